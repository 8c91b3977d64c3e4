/* Copies to and from the program's volatile memory inside regions, where
 * another thread may access the same bytes at the same time.
 *
 * A naturally aligned access of 1, 2, 4 or 8 bytes is made as one C atomic,
 * so that it is race-free in the C11 model (TSan checks it: test/tsan)
 * against the program's atomics on the same bytes; other sizes have no C
 * atomic and stay plain copies (no C atomic of the program's can be one).
 * The order is the one the program's access needs (pass ABI 7: the pass
 * tells a plain store from an atomic or volatile one; docs/pass.md):
 *
 * - the program's plain (non-atomic, non-volatile) store, __amber_storeN /
 *   __amber_storep / __amber_storen: amber_shared_store_order with
 *   __ATOMIC_RELAXED (entry/access.c's do_store).  Relaxed: a
 *   plain store carries no order of its own in the C11 model, and if
 *   another thread accesses the same bytes without synchronising with this
 *   one, the program already has a data race on them; relaxed keeps it
 *   untorn and TSan's reports the program's.  The orders the runtime itself
 *   needs around it come from its own operations: a region's commit (or a
 *   lock-delimited section's, or the program's own lock's release) is a
 *   release after it, and in a transaction access.c's do_store puts a
 *   release fence between the engine's claim of the bytes (mvcc's word lock)
 *   and the store (the seqlock of engine/mvcc/vmem.c).  On x86-64 a plain
 *   mov, where the seq_cst store was an xchg (~20 cycles).
 * - amber_shared_store_order: the program's atomic store, in its own order
 *   (__amber_atomic_storeN: relaxed, release or seq_cst), and a C volatile
 *   store, seq_cst (the strongest: pre-C11 code signals through volatile
 *   ints).  x86-64: a mov, an xchg for seq_cst.
 * - amber_shared_store: seq_cst, whatever the program's store was: where
 *   the caller does not know (the outside-region callbacks: entry/access.c),
 *   and tx.c's undo, which puts back the bytes a transaction overwrote.
 *   Relaxed would do for the undo: it runs while the transaction still
 *   isolates the bytes (mvcc's word stays taken until mv_vabort's release
 *   store, after the undo; a romulus writer holds the writers' lock, and a
 *   romulus reader's store made it a writer first), so a transaction that
 *   reads them afterwards synchronises with that release; the thread's own
 *   re-run stores after it in the location's modification order (same
 *   thread, same location); code outside regions that reads the location
 *   meanwhile (weak isolation, guide 2.6) is promised no order, only an
 *   untorn value, which any atomic gives.  The undo is rare (an abort), so
 *   it keeps the stronger order.
 * - amber_shared_load: seq_cst, the strongest a program's load may ask for
 *   (the pass passes atomic loads as plain sized ones: __amber_loadN); on
 *   x86-64 the plain mov it was. */
#ifndef AMBER_BASE_SHARED_H
#define AMBER_BASE_SHARED_H

#include <stddef.h>
#include <stdint.h>

#define AMBER_SHARED_CASES(X)                                                  \
  X(1, uint8_t) X(2, uint16_t) X(4, uint32_t) X(8, uint64_t)

/* *dst = n bytes at the program's p. */
static inline void amber_shared_load(void *dst, const void *p, size_t n) {
  if (((uintptr_t)p & (n - 1)) == 0) switch (n) {
#define LOAD(N, T)                                                             \
  case N: {                                                                    \
    T v = __atomic_load_n((const T *)p, __ATOMIC_SEQ_CST);                     \
    __builtin_memcpy(dst, &v, N);                                              \
    return;                                                                    \
  }
      AMBER_SHARED_CASES(LOAD)
#undef LOAD
    }
  __builtin_memcpy(dst, p, n);
}

/* n bytes at the program's p = *src, with order __ATOMIC_RELAXED,
 * __ATOMIC_RELEASE or __ATOMIC_SEQ_CST (a constant where it is inlined, or
 * the compiler branches on it). */
static inline __attribute__((always_inline)) void amber_shared_store_order(void *p, const void *src, size_t n,
                                                                           int order) {
  if (((uintptr_t)p & (n - 1)) == 0) switch (n) {
#define STORE(N, T)                                                            \
  case N: {                                                                    \
    T v;                                                                       \
    __builtin_memcpy(&v, src, N);                                              \
    __atomic_store_n((T *)p, v, order);                                        \
    return;                                                                    \
  }
      AMBER_SHARED_CASES(STORE)
#undef STORE
    }
  __builtin_memcpy(p, src, n);
}

/* A store whose program order is not known: seq_cst. */
static inline void amber_shared_store(void *p, const void *src, size_t n) {
  amber_shared_store_order(p, src, n, __ATOMIC_SEQ_CST);
}

#endif
