/* Statistics: commits, aborts, flushes and fences by category. */
#ifndef AMBER_STATS_H
#define AMBER_STATS_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* AMBER_STATS or AMBER_STATS_FILE asks for the statistics. */
int amber_stats_wanted(void);
/* At initialisation, before any heap is touched: fatal when AMBER_STATS_FILE
 * names a file that cannot be written. */
void amber_stats_check_file(void);
/* Prints (AMBER_STATS) and writes (AMBER_STATS_FILE) the statistics once. */
void amber_stats_at_exit(void);
void amber_stats_write(FILE *f, int json);
/* The "tx": {...}, "pm": {...} members of the live statistics (live.c). */
void amber_stats_write_groups(FILE *f);
/* For fatal signals: amber_stats_prepare_signal (when the heap opens) sets
 * up what amber_stats_at_signal (in the handler; no malloc, no stdio locks
 * of the program's streams) needs to print and write them once. */
void amber_stats_prepare_signal(void);
void amber_stats_at_signal(void);

/* Writes s as a JSON string literal (quotes and escapes included); for
 * every JSON writer of the runtime and the amber tool. */
void amber_stats_json_str(FILE *f, const char *s);

#endif
