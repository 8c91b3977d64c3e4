/* Statistics: commits, aborts, flushes and fences by category. */
#ifndef AMBER_STATS_H
#define AMBER_STATS_H
#include <stdio.h>

/* Prints (AMBER_STATS) and writes (AMBER_STATS_FILE) the statistics once. */
void amber_stats_at_exit(void);
void amber_stats_write(FILE *f, int json);
#endif
