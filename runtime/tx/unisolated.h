/* The program's AMBER_UNISOLATED variables (include/amber.h): address
 * ranges that regions access in place, neither isolated nor undone. */
#ifndef AMBER_TX_UNISOLATED_H
#define AMBER_TX_UNISOLATED_H

#include <stddef.h>
#include <stdint.h>

/* Ranges registered so far (0 in most programs: one load and a branch). */
extern size_t amber_unisolated_n;
int amber_unisolated_find(uintptr_t a);
static inline int amber_unisolated(const void *p) {
  /* Relaxed: a count read before a module's constructor registered its
   * ranges means no region of that module ran yet. */
  if (__builtin_expect(__atomic_load_n(&amber_unisolated_n, __ATOMIC_RELAXED) == 0, 1)) return 0;
  return amber_unisolated_find((uintptr_t)p);
}
/* Adds n ranges (module constructors; any thread, any time). */
void amber_unisolated_add(const void *const *addr, const size_t *size, size_t stride, size_t n);

#endif
