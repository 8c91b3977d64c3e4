/* The registry of transactional clones: modules register theirs from their
 * constructors; indirect calls inside regions look their target up here. */
#include <pthread.h>
#include <stdlib.h>

#include "amber_interface.h"
#include "base/diag.h"
#include "tx/op.h"

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
 * One page: one page fault. */
#define INITIAL_CAP 128
static _Alignas(4096) unsigned char initial[sizeof(struct table) + INITIAL_CAP * sizeof(struct __amber_clone)];
AMBER_START_DATA static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

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

AMBER_START_TEXT void __amber_register_clones(const struct __amber_clone *entries, size_t n) {
  /* Other modules call these clones by name: replay needs this object's
   * build (tx/op.c). */
  if (n) amber_op_note_code(entries);
  pthread_mutex_lock(&lock);
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
  pthread_mutex_unlock(&lock);
}

void *__amber_clone_of(void *fn) {
  /* The target may come from recorded data (another process's address
   * space): such a call cannot be re-executed.  (A direct call to another
   * module's clone by name, pass ABI 6, does not come here: its target is a
   * link-time constant of an object in the capture's identity.) */
  struct amber_thread *self = amber_thread();
  amber_op_giveup(self, "made an indirect or cross-module call");
  struct table *t = __atomic_load_n(&tab, __ATOMIC_ACQUIRE);
  if (t) {
    for (size_t h = hash(fn, t->cap);; h = (h + 1) & (t->cap - 1)) {
      void *f = __atomic_load_n(&t->slot[h].fn, __ATOMIC_ACQUIRE);
      if (f == fn) return t->slot[h].clone;
      if (!f) break;
    }
  }
  /* Code amber never instrumented: it may write the heap behind the
   * transaction's back. */
  __amber_irrevocable();
  return fn;
}
