/* The module constructor's registration of its AMBER_UNISOLATED variables
 * (llvm-pass/ModuleCtor.cpp). */
#include "amber_interface.h"
#include "tx/unisolated.h"

void __amber_register_unisolated(const struct __amber_range *table, size_t n) {
  if (n) amber_unisolated_add((const void *const *)&table[0].addr, &table[0].size, sizeof table[0], n);
}
