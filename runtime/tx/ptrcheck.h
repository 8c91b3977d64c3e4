/* The pointer check (AMBER_CHECK_POINTERS, docs/guide.md "Pointers to
 * volatile memory"): a commit that leaves a persistent word pointing into
 * the process's volatile memory (libc's heap, a thread's stack, a module's
 * data), which the next run cannot have, is reported with the region's
 * file:line. */
#ifndef AMBER_TX_PTRCHECK_H
#define AMBER_TX_PTRCHECK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "heap/window.h"

struct amber_thread;

enum { AMBER_PTRCHECK_OFF, AMBER_PTRCHECK_WARN, AMBER_PTRCHECK_ERROR };
/* AMBER_CHECK_POINTERS, set once by amber_ptrcheck_init before the heap
 * opens; read with amber_ptrcheck_on() (relaxed: a thread reaches a store
 * into the heap only after it saw the heap open, which came later). */
extern int amber_ptrcheck_mode;
static inline int amber_ptrcheck_on(void) { return __atomic_load_n(&amber_ptrcheck_mode, __ATOMIC_RELAXED); }
/* Parses AMBER_CHECK_POINTERS (fatal on a value other than off, warn, error). */
void amber_ptrcheck_init(void);

/* A stored word that may be a pointer: user space on x86-64 and AArch64,
 * from amber_ptrcheck_lo (the lowest address the process had mapped when
 * the check started, its executable's image: at least 4 MiB, where a
 * non-PIE image starts; a PIE one is at 0x55... and up) to 2^47, and not
 * in the persistent heap's window.  Integers below it (32-bit hashes, counts,
 * times), most 64-bit hashes and doubles, and persistent pointers fail it. */
#define AMBER_PTRCHECK_TOP 0x800000000000ull
extern uint64_t amber_ptrcheck_lo;
static inline int amber_ptrcheck_maybe(uint64_t v) {
  uint64_t lo = __atomic_load_n(&amber_ptrcheck_lo, __ATOMIC_RELAXED);
  return v - lo < AMBER_PTRCHECK_TOP - lo && !amber_in_heap((const void *)(uintptr_t)v);
}

/* Records the words of a store of n bytes at canonical heap address p
 * (already written to the transaction) that may be pointers, as candidates
 * checked at the transaction's commit.  `site` names stores outside
 * regions ("file:line"), NULL inside them. */
void amber_ptrcheck_note_slow(struct amber_thread *t, uintptr_t p, const void *src, size_t n, const char *site);
static inline void amber_ptrcheck_note(struct amber_thread *t, const void *p, const void *src, size_t n,
                                       const char *site) {
  if (__builtin_expect(amber_ptrcheck_on() == AMBER_PTRCHECK_OFF, 1)) return;
  if (n == 8) {
    uint64_t v;
    memcpy(&v, src, 8);
    if (((uintptr_t)p & 7) || !amber_ptrcheck_maybe(v)) return;
  } else if (n < 8) {
    return;
  }
  amber_ptrcheck_note_slow(t, (uintptr_t)p, src, n, site);
}

/* At the commit of t's transaction, before the engine's: each candidate
 * that still holds its value (read through the transaction) and points
 * into volatile memory is reported; AMBER_PTRCHECK_ERROR stops the program
 * before the transaction commits. */
void amber_ptrcheck_commit(struct amber_thread *t);

#endif
