/* Statistics: commits, aborts, flushes and fences by category. */
#ifndef AMBER_STATS_H
#define AMBER_STATS_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Prints (AMBER_STATS) and writes (AMBER_STATS_FILE) the statistics once. */
void amber_stats_at_exit(void);
void amber_stats_write(FILE *f, int json);
/* For fatal signals: amber_stats_prepare_signal (when the heap opens) sets
 * up what amber_stats_at_signal (in the handler; no malloc, no stdio locks
 * of the program's streams) needs to print and write them once. */
void amber_stats_prepare_signal(void);
void amber_stats_at_signal(void);

/* Writes s as a JSON string literal (quotes and escapes included); for
 * every JSON writer of the runtime and the amber tool. */
void amber_json_str(FILE *f, const char *s);

/* Stray stores (access.c): persistent writes outside regions, by code the
 * pass range-checked, each run as a transaction of its own.  The total
 * (and in *unlisted those whose site did not fit the table), and the sites
 * in the order first seen. */
#define AMBER_STRAY_SITES 64
struct amber_stray_site {
  const char *site; /* "file:line", or the function's name without -g */
  uint64_t count;
};
uint64_t amber_stray_stores(uint64_t *unlisted);
size_t amber_stray_sites(struct amber_stray_site *out, size_t max);
#endif
