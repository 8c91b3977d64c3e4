/* A region's output, deferred to its commit (tx/output.c; docs/guide.md
 * section 2.3, "Output"). */
#ifndef AMBER_TX_OUTPUT_H
#define AMBER_TX_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

struct amber_thread;

/* What one record does at the commit (AMBER_OUT_* of interpose.h, the
 * interceptors' names for them). */
enum amber_output_kind {
  AMBER_OUTPUT_STREAM = 0, /* fwrite(bytes, 1, n, stream) */
  AMBER_OUTPUT_FD = 1,     /* write(fd, bytes, n), all of it */
  AMBER_OUTPUT_PWRITE = 2, /* pwrite(fd, bytes, n, arg) */
  AMBER_OUTPUT_SEND = 3,   /* send(fd, bytes, n, arg), all of it */
  AMBER_OUTPUT_FLUSH = 4,  /* fflush(stream); stream NULL: every stream */
};

struct amber_output_rec {
  int kind;
  int fd;
  void *stream; /* FILE * */
  int64_t arg;  /* pwrite's offset, send's flags */
  size_t off, len; /* the bytes: buf[off, off + len) */
};

/* A thread's deferred output, in program order (a member of struct
 * amber_thread). */
struct amber_output {
  char *buf;
  size_t n, cap;
  struct amber_output_rec *rec;
  size_t nrec, caprec;
};

/* 1 while this thread runs a region whose output is deferred: one that may
 * still be undone (an abort, amber_retry, amber_cancel); 2 the same while
 * the region's transaction has not begun yet (tx.h, amber_tx_touch): an
 * interceptor that sees 2 calls amber_interpose_touch before it reads
 * the program's memory.  0 outside
 * regions, in lock-delimited sections, and from the point where a region
 * became irrevocable (its output so far issued then).  Initial-exec TLS:
 * the interceptors test it inline (interpose.h declares it too). */
extern __thread int amber_output_held __attribute__((tls_model("initial-exec")));

/* The driver (tx/tx.c): a region's transaction starts (or restarts) with
 * its output held. */
void amber_output_hold(struct amber_thread *t);
/* Issues the held output in order, and holds no more: at the commit, and
 * where the region becomes irrevocable. */
void amber_output_release(struct amber_thread *t);
/* Forgets the held output: the transaction is undone (an abort, a retry, a
 * cancel). */
void amber_output_drop(struct amber_thread *t);
/* Appends one record (the interceptors, through interpose.c).  Only while
 * amber_output_held. */
void amber_output_add(struct amber_thread *t, int kind, void *stream, int fd, int64_t arg, const void *bytes,
                      size_t n);

#endif
