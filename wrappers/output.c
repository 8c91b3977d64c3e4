/* Output inside regions: the program's output written inside a region that
 * may still be undone waits for the region's commit (runtime
 * tx/output.c), so that it appears once, in program order, however often
 * the region runs (docs/guide.md 2.3, docs/wrappers.md "Output inside
 * regions").  This file decides what may wait, and intercepts the output
 * functions printf.c and io.c do not: putc and its forms, fflush, perror.
 * Outside such regions each is one TLS load and the C library's function.
 *
 * What may wait: text for a stream that writes to a descriptor (stdout,
 * stderr, fopen'ed files, pipes, sockets), and writes to a descriptor open
 * for writing in blocking mode, whose write the commit can finish.  What
 * cannot: a memory stream (open_memstream, fmemopen) or a cookie stream,
 * which the program may read, or whose callbacks run, before the commit;
 * a non-blocking descriptor, whose write may be partial.  Output to those
 * makes the region irrevocable first (as a call to code amber did not
 * compile does: its output so far goes out then), and is written at once.
 * Any call the pass cannot see (a read, lseek, close, fclose, ...) makes
 * the region irrevocable too, so held output never waits past a call that
 * could observe it. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

#undef putc
#undef putchar
#undef putc_unlocked
#undef putchar_unlocked
#undef fputc_unlocked

WRAP_REAL(putc)
WRAP_REAL(fputc)
WRAP_REAL(putchar)
WRAP_REAL(putc_unlocked)
WRAP_REAL(fputc_unlocked)
WRAP_REAL(putchar_unlocked)
WRAP_REAL(fflush)
WRAP_REAL(fflush_unlocked)
WRAP_REAL(perror)

int wrap_output_stream_waits(FILE *f) {
  if (!f) return 1;
  int e = errno;
  int fd = fileno(f); /* -1 for memory and cookie streams */
  errno = e;
  if (fd >= 0) return 1;
  __amber_irrevocable();
  return 0;
}

int wrap_output_fd_waits(int fd, int nonblock) {
  int e = errno;
  int fl = fcntl(fd, F_GETFL);
  if (fl < 0) return -1; /* EBADF, as write says */
  if ((fl & O_ACCMODE) == O_RDONLY) {
    errno = EBADF;
    return -1;
  }
  errno = e;
  if (!(fl & O_NONBLOCK) && !nonblock) return 1;
  __amber_irrevocable();
  return 0;
}

void wrap_output_add(int kind, void *stream, int fd, int64_t arg, const void *p, size_t n) {
  if (!n && kind != AMBER_OUT_FLUSH) return;
  if (__builtin_expect(!wrap_touches(p, n), 1)) {
    amber_interpose_output(kind, stream, fd, arg, p, n);
    return;
  }
  /* Heap bytes: the region's view of them now, not at the commit. */
  amber_interpose_check_usable("write", p);
  char local[4096];
  char *copy = n <= sizeof local ? local : malloc(n);
  if (!copy) amber_wrap_nomem("write", p, n);
  amber_wrap_read(copy, p, n);
  amber_interpose_output(kind, stream, fd, arg, copy, n);
  if (copy != local) free(copy);
}

/* ---- putc and its forms: one byte ---- */

static int held_byte(int c, FILE *f) {
  unsigned char b = (unsigned char)c;
  wrap_output_add(AMBER_OUT_STREAM, f, -1, 0, &b, 1);
  return b;
}

#define PUT_BYTE(c, f, real)                                                   \
  do {                                                                         \
    if (wrap_output_held() && wrap_output_stream_waits(f)) return held_byte(c, f); \
    return real;                                                               \
  } while (0)

int putc(int c, FILE *f) { PUT_BYTE(c, f, REAL(putc)(c, f)); }
int fputc(int c, FILE *f) { PUT_BYTE(c, f, REAL(fputc)(c, f)); }
int putchar(int c) { PUT_BYTE(c, stdout, REAL(putchar)(c)); }
int putc_unlocked(int c, FILE *f) { PUT_BYTE(c, f, REAL(putc_unlocked)(c, f)); }
int fputc_unlocked(int c, FILE *f) { PUT_BYTE(c, f, REAL(fputc_unlocked)(c, f)); }
int putchar_unlocked(int c) { PUT_BYTE(c, stdout, REAL(putchar_unlocked)(c)); }

/* ---- fflush: in order with the held text ---- */

int fflush(FILE *f) {
  if (wrap_output_held() && wrap_output_stream_waits(f)) {
    wrap_output_add(AMBER_OUT_FLUSH, f, -1, 0, NULL, 0);
    return 0;
  }
  return REAL(fflush)(f);
}

int fflush_unlocked(FILE *f) {
  if (wrap_output_held() && wrap_output_stream_waits(f)) {
    wrap_output_add(AMBER_OUT_FLUSH, f, -1, 0, NULL, 0);
    return 0;
  }
  return REAL(fflush_unlocked)(f);
}

/* ---- perror: its line, with this errno's message ---- */

void perror(const char *s) {
  int e = errno;
  char *copy = NULL;
  if (s && wrap_in_heap(s)) { /* libc cannot read the heap's window */
    amber_interpose_check_usable("perror", s);
    copy = amber_wrap_strndup(s, (size_t)-1, NULL);
    if (!copy) amber_wrap_nomem("perror", s, 0);
    s = copy;
  }
  if (wrap_output_held() && wrap_output_stream_waits(stderr)) {
    const char *msg = strerror(e);
    int colon = s && *s;
    size_t ls = colon ? strlen(s) : 0, lm = strlen(msg);
    char local[512];
    size_t n = ls + (colon ? 2 : 0) + lm + 1;
    char *line = n <= sizeof local ? local : malloc(n);
    if (!line) amber_wrap_nomem("perror", NULL, 0);
    char *p = line;
    if (colon) {
      memcpy(p, s, ls);
      memcpy(p + ls, ": ", 2);
      p += ls + 2;
    }
    memcpy(p, msg, lm);
    p[lm] = '\n';
    wrap_output_add(AMBER_OUT_STREAM, stderr, -1, 0, line, n);
    if (line != local) free(line);
  } else {
    errno = e;
    REAL(perror)(s);
  }
  free(copy);
  errno = e;
}
