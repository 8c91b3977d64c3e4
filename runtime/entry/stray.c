/* Stray stores: persistent writes outside regions, counted per process and
 * per source site for the statistics (stats.c). */
#include "stray.h"

#include <string.h>

#include "heap/window.h"
#include "tx/tx.h"

/* Counted by the __amber_outside_* write callbacks (access.c), and by the pass's
 * call before a libc writer's wrapper: per process, and per site in a
 * bounded table, the first AMBER_STRAY_SITES distinct sites (by text: a
 * site string may exist once per module), later ones only in the total.
 * Invariant: a table slot's site is set once, from NULL, and never changes. */
static uint64_t stray_unlisted; /* the total is the table's sum plus these */
static struct {
  const char *site;
  uint64_t count;
} stray_table[AMBER_STRAY_SITES];

void __amber_stray_store(const char *site, const void *p) {
  if (!amber_in_heap(p)) return;
  struct amber_thread *t = amber_thread();
  if (t->depth || t->fase) return; /* in a transaction or a lock-delimited section: not stray */
  if (!site) site = "?";
  /* Fast path: the same string seen before (a site string is one object
   * per module), by pointer; then by text, taking a free slot. */
  for (int i = 0; i < AMBER_STRAY_SITES; i++) {
    const char *s = __atomic_load_n(&stray_table[i].site, __ATOMIC_ACQUIRE);
    if (!s) break;
    if (s == site) {
      __atomic_fetch_add(&stray_table[i].count, 1, __ATOMIC_RELAXED);
      return;
    }
  }
  for (int i = 0; i < AMBER_STRAY_SITES; i++) {
    const char *s = __atomic_load_n(&stray_table[i].site, __ATOMIC_ACQUIRE);
    if (!s) {
      const char *none = NULL;
      if (__atomic_compare_exchange_n(&stray_table[i].site, &none, site, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        s = site;
      else
        s = none; /* another thread took the slot first */
    }
    if (s == site || !strcmp(s, site)) {
      __atomic_fetch_add(&stray_table[i].count, 1, __ATOMIC_RELAXED);
      return;
    }
  }
  __atomic_fetch_add(&stray_unlisted, 1, __ATOMIC_RELAXED);
}

uint64_t amber_stray_stores(uint64_t *unlisted) {
  uint64_t other = __atomic_load_n(&stray_unlisted, __ATOMIC_RELAXED), total = other;
  for (int i = 0; i < AMBER_STRAY_SITES; i++) {
    if (!__atomic_load_n(&stray_table[i].site, __ATOMIC_ACQUIRE)) break;
    total += __atomic_load_n(&stray_table[i].count, __ATOMIC_RELAXED);
  }
  if (unlisted) *unlisted = other;
  return total;
}

size_t amber_stray_sites(struct amber_stray_site *out, size_t max) {
  size_t n = 0;
  for (int i = 0; i < AMBER_STRAY_SITES && n < max; i++) {
    const char *s = __atomic_load_n(&stray_table[i].site, __ATOMIC_ACQUIRE);
    if (!s) break;
    out[n].site = s;
    out[n].count = __atomic_load_n(&stray_table[i].count, __ATOMIC_RELAXED);
    n++;
  }
  return n;
}
