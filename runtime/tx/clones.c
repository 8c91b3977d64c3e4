/* The registry of transactional clones (tx/clones.h). */
#include <sched.h>
#include <stdlib.h>

#include "base/diag.h"
#include "tx/clones.h"

/* Open addressing, never shrinking; readers run without the lock, so a
 * grown table replaces the old one (which is kept: readers may hold it). */
struct table {
  size_t cap; /* power of two */
  struct __amber_clone slot[];
};
AMBER_START_DATA static struct table *tab;
AMBER_START_DATA static size_t used;
/* The first table is static: a module constructor's registration then
 * allocates nothing, and a program that never allocates does not
 * initialise malloc (two brk and a getrandom) to start (issue 27 item 5).
 * It lives with the other variables start-up writes (half a kilobyte:
 * 8 functions with clones, each entered twice, at most half full), not on a
 * page of its own: a page fault less at every start, and .bss needs no
 * page alignment (which had put its first bytes, crtbegin's, on a page of
 * their own too).  A program with more clones allocates its next table. */
#define INITIAL_CAP 32
AMBER_START_DATA static _Alignas(16) unsigned char initial[sizeof(struct table) + INITIAL_CAP * sizeof(struct __amber_clone)];
/* Registrations are few (one per module constructor) and short: a spin
 * lock rather than a pthread mutex, whose real function (wrappers/real.c)
 * every start would otherwise look up and write (issue 27 item 5).  The
 * exchange's acquire and the release store order the table's writes
 * between holders. */
AMBER_START_DATA static int lock;

AMBER_START_TEXT static void lock_take(void) {
  while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
    while (__atomic_load_n(&lock, __ATOMIC_RELAXED)) sched_yield(); /* relaxed: only a hint to try again */
}

AMBER_START_TEXT static void lock_drop(void) { __atomic_store_n(&lock, 0, __ATOMIC_RELEASE); }

static inline size_t hash(const void *fn, size_t cap) {
  return (size_t)(((uintptr_t)fn >> 4) * 0x9E3779B97F4A7C15ull >> 17) & (cap - 1);
}

AMBER_START_TEXT static void put(struct table *t, void *fn, void *clone) {
  for (size_t h = hash(fn, t->cap);; h = (h + 1) & (t->cap - 1)) {
    if (t->slot[h].fn == fn || !t->slot[h].fn) {
      t->slot[h].clone = clone;
      __atomic_store_n(&t->slot[h].fn, fn, __ATOMIC_RELEASE);
      return;
    }
  }
}

AMBER_START_TEXT void amber_clones_add(const struct __amber_clone *entries, size_t n) {
  lock_take();
  struct table *t = tab;
  if (!t || 2 * (used + 2 * n) > t->cap) {
    size_t cap = t ? t->cap : INITIAL_CAP;
    while (2 * (used + 2 * n) > cap) cap *= 2;
    struct table *nt = !t && cap == INITIAL_CAP ? (struct table *)initial : calloc(1, sizeof *nt + cap * sizeof nt->slot[0]);
    if (!nt) amber_fatal("out of memory for the clone registry (%zu entries)", cap);
    nt->cap = cap;
    if (t)
      for (size_t i = 0; i < t->cap; i++)
        if (t->slot[i].fn) put(nt, t->slot[i].fn, t->slot[i].clone);
    __atomic_store_n(&tab, nt, __ATOMIC_RELEASE);
    t = nt;
  }
  for (size_t i = 0; i < n; i++)
    if (entries[i].fn && entries[i].clone) {
      put(t, entries[i].fn, entries[i].clone);
      put(t, entries[i].clone, entries[i].clone); /* a clone's own address */
      used += 2;
    }
  lock_drop();
}

void *amber_clones_find(void *fn) {
  struct table *t = __atomic_load_n(&tab, __ATOMIC_ACQUIRE);
  if (t)
    for (size_t h = hash(fn, t->cap);; h = (h + 1) & (t->cap - 1)) {
      void *f = __atomic_load_n(&t->slot[h].fn, __ATOMIC_ACQUIRE);
      if (f == fn) return t->slot[h].clone;
      if (!f) break;
    }
  return NULL;
}

int amber_clones_within(uintptr_t lo, uintptr_t hi) {
  struct table *t = __atomic_load_n(&tab, __ATOMIC_ACQUIRE);
  if (t)
    for (size_t i = 0; i < t->cap; i++) {
      uintptr_t f = (uintptr_t)__atomic_load_n(&t->slot[i].fn, __ATOMIC_ACQUIRE);
      if (f >= lo && f < hi) return 1;
    }
  return 0;
}
