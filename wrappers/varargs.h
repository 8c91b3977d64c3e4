/* What the printf and scanf interceptors share: the pass-through test and
 * the forwarding of a variadic call to its va_list form. */
#ifndef AMBER_WRAPPERS_VARARGS_H
#define AMBER_WRAPPERS_VARARGS_H

#include <stdarg.h>

#include "wrap.h"

/* Straight through while no heap is open. */
#define PASS() (__builtin_expect(!__atomic_load_n(&__amber_heap_size, __ATOMIC_RELAXED), 1))

#define VARARGS(last, call)                                                    \
  va_list ap;                                                                  \
  va_start(ap, last);                                                          \
  int r = call;                                                                \
  va_end(ap);                                                                  \
  return r

#endif
