/* Strict mode (AMBER_STRICT, DESIGN.md §4): the canonical heap window is
 * inaccessible to code amber never instrumented, and a fault there is
 * reported as an amber: error: with the access, the address and a
 * backtrace. */
#ifndef AMBER_STRICT_H
#define AMBER_STRICT_H

#include <signal.h>

struct amber_heap;

/* Records h's window for the fault report (the heap was just opened at its
 * base).  The handler itself is installed by wrappers/signals.c. */
void amber_strict_open(const struct amber_heap *h);

/* From a SIGSEGV handler: when the fault at si->si_addr lies in the heap's
 * canonical window, prints the error and a backtrace of the faulting thread
 * (uc: the handler's ucontext) and ends the process with status 2; else
 * returns.  Async-signal-safe: write(2) only, no allocation. */
void amber_strict_fault(const siginfo_t *si, void *uc);

#endif
