/* The registry of transactional clones (llvm-pass/Clones.cpp): every
 * module registers its functions' clones from its constructor
 * (entry/clones.c); an indirect call inside a region looks its target's
 * clone up here, and replay's identity (tx/op.c) asks which loaded objects
 * have clones. */
#ifndef AMBER_TX_CLONES_H
#define AMBER_TX_CLONES_H

#include <stddef.h>
#include <stdint.h>

#include "amber_interface.h"

/* Adds a module's n entries (module constructors; any thread, any time). */
void amber_clones_add(const struct __amber_clone *entries, size_t n);
/* fn's clone (fn itself when fn is a clone), or NULL when fn has none. */
void *amber_clones_find(void *fn);
/* Some registered function or clone lies in [lo, hi). */
int amber_clones_within(uintptr_t lo, uintptr_t hi);

#endif
