/* A region's output, deferred to its commit: what the program writes to
 * streams and file descriptors inside a region that may still be undone is
 * kept here, in program order, issued when the region commits (or becomes
 * irrevocable) and dropped when it is undone, so that each line appears
 * once however often the region runs (docs/guide.md section 2.3).
 *
 * The interceptors of wrappers/ (printf.c, io.c, output.c) decide what may
 * wait and append records through interpose.c; the driver (tx.c) holds,
 * releases and drops.  Records are issued with the C library's functions
 * (libamber's own calls never reach the interceptors). */
#include "output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/diag.h"
#include "op.h"
#include "tx.h"

__thread int amber_output_held __attribute__((tls_model("initial-exec")));

/* Buffers above this are given back after their region. */
#define KEEP_BYTES (1u << 20)

void amber_output_hold(struct amber_thread *t) {
  /* A lock-delimited section is never undone: its output goes out as it
   * is written, as without amber. */
  amber_output_held = t->fase != AMBER_FASE_OPEN;
}

static void reset(struct amber_output *o) {
  o->n = 0;
  o->nrec = 0;
  if (o->cap > KEEP_BYTES) {
    free(o->buf);
    o->buf = NULL;
    o->cap = 0;
  }
}

void amber_output_drop(struct amber_thread *t) {
  amber_output_held = 0;
  reset(&t->out);
}

static void grow(void **p, size_t *cap, size_t need, size_t elem) {
  size_t n = *cap ? *cap : 64;
  while (n < need) n *= 2;
  void *q = realloc(*p, n * elem);
  if (!q) amber_fatal("out of memory keeping a region's output until its commit (%zu bytes)", need * elem);
  *p = q;
  *cap = n;
}

void amber_output_add(struct amber_thread *t, int kind, void *stream, int fd, int64_t arg, const void *bytes,
                      size_t n) {
  /* The transaction has begun (amber_tx_touch): the interceptor saw
   * amber_output_held, 2 while its begin is deferred, and began it
   * (amber_interpose_touch) before it read what it writes out. */
  /* Recovery cannot re-execute output: the transaction logs values. */
  amber_op_giveup(t, "wrote output");
  struct amber_output *o = &t->out;
  /* A signal handler that writes while this runs finds nothing held and
   * writes at once (it cannot append to what is being changed). */
  amber_output_held = 0;
  if (o->n + n > o->cap) grow((void **)&o->buf, &o->cap, o->n + n, 1);
  if (n) memcpy(o->buf + o->n, bytes, n);
  struct amber_output_rec *last = o->nrec ? &o->rec[o->nrec - 1] : NULL;
  if (kind == AMBER_OUTPUT_STREAM && last && last->kind == kind && last->stream == stream) {
    last->len += n; /* one fwrite for consecutive text to one stream */
  } else {
    if (o->nrec == o->caprec) grow((void **)&o->rec, &o->caprec, o->nrec + 1, sizeof *o->rec);
    o->rec[o->nrec++] = (struct amber_output_rec){kind, fd, stream, arg, o->n, n};
  }
  o->n += n;
  amber_output_held = 1;
}

/* A deferred write the system refused, after the region committed: the
 * program cannot see it any more, so amber says it (once per process). */
static void failed(const struct amber_thread *t, const struct amber_output_rec *r, int err) {
  static int said;
  if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED)) return;
  amber_warn("%s to file descriptor %d, deferred to the commit of %s, failed: %s (%zu bytes lost; further failures "
             "are not reported)",
             r->kind == AMBER_OUTPUT_PWRITE ? "pwrite" : r->kind == AMBER_OUTPUT_SEND ? "send" : "write", r->fd,
             amber_tx_name(t), strerror(err), r->len);
}

static void issue(const struct amber_thread *t, const struct amber_output_rec *r, const char *p) {
  size_t done = 0;
  switch (r->kind) {
  case AMBER_OUTPUT_STREAM:
    fwrite(p, 1, r->len, r->stream); /* an error shows in ferror(stream), as libc's */
    return;
  case AMBER_OUTPUT_FLUSH:
    fflush(r->stream);
    return;
  default: /* FD, SEND, PWRITE: the whole record, as the call returned it all */
    while (done < r->len) {
      ssize_t w = r->kind == AMBER_OUTPUT_SEND     ? send(r->fd, p + done, r->len - done, (int)r->arg)
                  : r->kind == AMBER_OUTPUT_PWRITE ? pwrite(r->fd, p + done, r->len - done, (off_t)(r->arg + (int64_t)done))
                                                   : write(r->fd, p + done, r->len - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        failed(t, r, w < 0 ? errno : EIO);
        return;
      }
      done += (size_t)w;
    }
    return;
  }
}

void amber_output_release(struct amber_thread *t) {
  amber_output_held = 0;
  struct amber_output *o = &t->out;
  if (!o->nrec) return;
  int e = errno; /* the program's errno is its own calls' */
  for (size_t i = 0; i < o->nrec; i++) issue(t, &o->rec[i], o->buf + o->rec[i].off);
  reset(o);
  errno = e;
}
