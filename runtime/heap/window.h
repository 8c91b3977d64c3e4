/* The process's heap as the rest of the runtime sees it: the canonical
 * window the program's pointers live in, the alias the runtime reaches it
 * through, and whether it may still be used (closed, forked).  The process
 * layer (init.c) opens the heap and publishes these; lower layers only read
 * them. */
#ifndef AMBER_HEAP_WINDOW_H
#define AMBER_HEAP_WINDOW_H

#include <stdint.h>
#include <stdnoreturn.h>

#include "heap.h"

/* The heap window [__amber_heap_base, __amber_heap_base + __amber_heap_size):
 * canonical addresses of the data area.  Zero until the heap is open; the
 * pass reads them for its range checks outside regions. */
extern uintptr_t __amber_heap_base;
extern uintptr_t __amber_heap_size;
extern struct amber_heap amber_the_heap;
/* amber_close() closed the heap (or exit ran inside a region). */
extern int amber_heap_closed;
/* The heap is being closed (or was) because the process exits: from now
 * on a transaction that starts on another thread than the exiting one
 * waits for the process to end.  Set by the process layer's exit handler. */
extern int amber_heap_exiting;
void amber_heap_exit_begins(void);
/* This process is a child forked (wrappers/fork.c) from the one that has
 * the heap open: the heap is inaccessible here, amber_heap_closed is set. */
extern int amber_heap_forked;

static inline int amber_in_heap(const void *p) {
  return (uintptr_t)p - __amber_heap_base < __amber_heap_size;
}

/* The alias minus the canonical window: amber_the_heap.data - hdr.base once
 * the heap is open (DESIGN.md §4).  The program holds canonical addresses
 * only; the runtime dereferences heap memory only at their aliases.  An ABI
 * symbol (amber_interface.h): the pass's inline loads in regions read it. */
extern intptr_t __amber_heap_delta;

/* Where the runtime reads or writes the heap byte the program knows as p
 * (p in the heap window). */
static inline void *amber_heap_alias(const void *p) {
  return (char *)(uintptr_t)p + __amber_heap_delta;
}
/* The canonical address of an alias address a (the program's view). */
static inline void *amber_heap_canonical(const void *a) {
  return (char *)(uintptr_t)a - __amber_heap_delta;
}
/* Where the runtime may dereference p: its alias when p is in the heap
 * window, else p itself. */
static inline void *amber_heap_reach(const void *p) {
  return amber_in_heap(p) ? amber_heap_alias(p) : (void *)(uintptr_t)p;
}

/* The error of a forked child that used its parent's heap (wrappers/fork.c
 * explains why it may not): `did` says what it did ("touched", "called
 * strlen() on"), addr where (NULL: no address).  _error prints it and
 * returns -1; _fatal prints it and exits with status 2. */
int amber_heap_forked_error(const char *did, const void *addr);
noreturn void amber_heap_forked_fatal(const char *did, const void *addr);

/* Fatal error when the heap was closed by amber_close(), or this process is
 * a forked child of the one that has it open.  When the process is exiting
 * it waits for the end instead: its transaction never starts.  (Inline: it
 * runs at every region's start; three loads when all is well.) */
void amber_heap_check_open_slow(void);
static inline void amber_heap_check_open(void) {
  if (__builtin_expect(amber_heap_forked | __atomic_load_n(&amber_heap_exiting, __ATOMIC_ACQUIRE) | amber_heap_closed, 0))
    amber_heap_check_open_slow();
}
/* For a transaction start that found a close under way (the engine turned
 * it away before it ran): waits until the close is done, then stops as
 * amber_heap_check_open does. */
noreturn void amber_heap_wait_closed(void);

#endif
