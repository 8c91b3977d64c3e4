/* A heap page the file cannot give (SIGBUS): the file system is full under
 * a sparse heap, the file was truncated while mapped, or the storage
 * failed.  Every mapping of a heap file is tracked while it exists, so the
 * fault is reported as an amber: error: naming the heap, the file offset
 * and the cause, instead of a bare "Bus error". */
#ifndef AMBER_HEAP_FAULT_H
#define AMBER_HEAP_FAULT_H

#include <signal.h>

struct amber_heap;

/* heap.c: h's mappings now exist (after mapping) / are going (before
 * unmapping).  Not async-signal-safe; one caller at a time. */
void amber_heap_fault_track(const struct amber_heap *h);
void amber_heap_fault_untrack(const struct amber_heap *h);

/* In a SIGBUS handler: when the fault lies in a tracked mapping, prints
 * the error and ends the process with status 2 without writing the heap
 * (it is left as a crash leaves it); returns otherwise. */
void amber_heap_bus_fault(const siginfo_t *si, void *uc);

/* For a process whose interceptors (wrappers/signals.c) do not handle
 * SIGBUS: the amber tool, and a program while its heap is being created,
 * opened and recovered.  on = 1 installs a SIGBUS handler that reports
 * heap faults and hands any other to the disposition it replaced; on = 0
 * puts that disposition back. */
void amber_heap_fault_guard(int on);

#endif
