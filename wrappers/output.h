/* Output inside regions (wrappers/output.c): what the output interceptors
 * share to let a region's output wait for its commit (runtime
 * tx/output.c, docs/wrappers.md "Output inside regions"). */
#ifndef AMBER_WRAPPERS_OUTPUT_H
#define AMBER_WRAPPERS_OUTPUT_H

#include <stdio.h>

#include "wrap.h"

/* This thread runs a region whose output waits for its commit: one TLS
 * load, so output outside regions costs nothing more.  Held (2) in a
 * region whose transaction has not begun: it begins now, before the caller
 * reads what it writes out (interpose.h, amber_interpose_touch). */
static inline int wrap_output_held(void) {
  int h = amber_output_held;
  if (__builtin_expect(h == 0, 1)) return 0;
  if (h == 2) amber_interpose_touch();
  return 1;
}

/* While held: output to stream f (NULL: every stream, fflush) may wait:
 * 1.  0 when it cannot (a memory or cookie stream, which the program may
 * read or whose callbacks run before the commit): the region has become
 * irrevocable (its output so far issued, nothing held from now on) and the
 * caller writes at once. */
int wrap_output_stream_waits(FILE *f);
/* While held: output to descriptor fd may wait: 1; 0 when it cannot (a
 * non-blocking descriptor, or `nonblock`: the write could be partial):
 * the region has become irrevocable and the caller writes at once; -1
 * (errno EBADF) when fd is not open for writing, as write would say. */
int wrap_output_fd_waits(int fd, int nonblock);
/* Appends n bytes at p (heap memory too: copied out through the engine)
 * to the region's output (AMBER_OUT_* of interpose.h). */
void wrap_output_add(int kind, void *stream, int fd, int64_t arg, const void *p, size_t n);

#endif
