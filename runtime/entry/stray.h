/* Stray stores: persistent writes outside regions (entry/stray.c). */
#ifndef AMBER_ENTRY_STRAY_H
#define AMBER_ENTRY_STRAY_H

#include <stddef.h>
#include <stdint.h>

/* Stray stores: persistent writes outside regions, by code the
 * pass range-checked, gathered per thread into batches (tx/batch.c).  The total
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
