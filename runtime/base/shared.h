/* Copies to and from the program's volatile memory inside regions, where
 * another thread may access the same bytes at the same time.
 *
 * The pass hands the runtime every access a region makes to volatile memory
 * as a plain sized one (__amber_load4, __amber_store8, ...), the program's
 * atomics included, without their memory order: a thread that signals
 * another from inside a region (__atomic_store_n(&flag, 1, ...)) reaches
 * these.  So a naturally aligned access of 1, 2, 4 or 8 bytes is made as one
 * seq_cst atomic: the strongest order the program may have asked for, the
 * only one that keeps every order it could have used (a seq_cst store's
 * store-load fence included), and race-free in the C11 model (TSan checks
 * it: test/tsan).  On x86-64 a seq_cst load is the plain mov it was; a store
 * becomes an xchg.  Other sizes have no C atomic and stay plain copies (no
 * C atomic of the program's can be one). */
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

/* n bytes at the program's p = *src. */
static inline void amber_shared_store(void *p, const void *src, size_t n) {
  if (((uintptr_t)p & (n - 1)) == 0) switch (n) {
#define STORE(N, T)                                                            \
  case N: {                                                                    \
    T v;                                                                       \
    __builtin_memcpy(&v, src, N);                                              \
    __atomic_store_n((T *)p, v, __ATOMIC_SEQ_CST);                             \
    return;                                                                    \
  }
      AMBER_SHARED_CASES(STORE)
#undef STORE
    }
  __builtin_memcpy(p, src, n);
}

#endif
