/* I/O between files and the heap: read/pread/recv/fread/fgets/getline into
 * a heap buffer read into a volatile bounce buffer first (the system call or
 * stdio runs outside any transaction), then store what they read in one
 * transaction; write/pwrite/send/fwrite/puts/fputs from the heap copy the
 * data out first (libc cannot read the canonical window: strict mode),
 * through the engine when it keeps committed versions outside the data area
 * (mvcc), in place at the alias otherwise (romulus).  A stream buffer in the
 * heap (setvbuf) is refused: libc would write it on every call.  Vectored
 * I/O is iovec.c's.  Inside a region that may still be undone, the output
 * calls hold their output until the region commits (output.c). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "output.h"
#include "wrap.h"

/* glibc's <stdio.h> may define these as macros. */
#undef fread_unlocked
#undef fwrite_unlocked
#undef fputs_unlocked
#undef fgets_unlocked

WRAP_REAL(read)
WRAP_REAL(pread)
WRAP_REAL(pread64)
WRAP_REAL(write)
WRAP_REAL(pwrite)
WRAP_REAL(pwrite64)
WRAP_REAL(fread)
WRAP_REAL(fread_unlocked)
WRAP_REAL(fwrite)
WRAP_REAL(fwrite_unlocked)
WRAP_REAL(fgets)
WRAP_REAL(fgets_unlocked)
WRAP_REAL(getdelim)
WRAP_REAL(send)
WRAP_REAL(sendto)
WRAP_REAL(recv)
WRAP_REAL(recvfrom)
WRAP_REAL(__recv_chk)
WRAP_REAL(__recvfrom_chk)
WRAP_REAL(setvbuf)
WRAP_REAL(setbuf)
WRAP_REAL(setbuffer)
WRAP_REAL(puts)
WRAP_REAL(fputs)
WRAP_REAL(fputs_unlocked)
WRAP_REAL(__read_chk)
WRAP_REAL(__pread_chk)
WRAP_REAL(__pread64_chk)
WRAP_REAL(__fread_chk)
WRAP_REAL(__fgets_chk)
WRAP_REAL(__fread_unlocked_chk)
WRAP_REAL(__fgets_unlocked_chk)

/* ---- bounce buffers ---- */

struct bounce {
  char *p;
  char local[4096];
};

/* NULL (errno ENOMEM) when out of memory. */
static char *bounce_get(struct bounce *b, size_t n) {
  b->p = n <= sizeof b->local ? b->local : malloc(n);
  if (!b->p) errno = ENOMEM;
  return b->p;
}

static void bounce_put(struct bounce *b) {
  if (b->p != b->local) free(b->p);
}

/* Heap data to write out, copied through the engine. */
static char *out_copy(struct bounce *b, const void *src, size_t n) {
  char *p = bounce_get(b, n);
  if (p) amber_wrap_read(p, src, n);
  return p;
}

/* Stores what a read put into the bounce buffer, keeping the read's errno. */
static void in_store(const char *fn, void *dst, const char *src, size_t n) {
  int e = errno;
  amber_wrap_write(fn, dst, src, n);
  errno = e;
}

/* The heap is written (reads into it) / read through the engine. */
#define INTO(p, n) (__builtin_expect(wrap_touches(p, n), 0))
#define OUT_OF(p, n) (__builtin_expect(wrap_touches(p, n), 0))

/* ---- output held until the region's commit (output.c) ---- */

/* A write-like call while the region holds its output: 1 when it is done
 * here (*r its result: all of it, or -1 for a descriptor not open for
 * writing), 0 when the descriptor cannot wait and the caller writes now. */
static int held_fd(int kind, int fd, int64_t arg, int nonblock, const void *buf, size_t n, ssize_t *r) {
  int w = wrap_output_fd_waits(fd, nonblock);
  if (!w) return 0;
  *r = -1;
  if (w < 0) return 1;
  if (n > SSIZE_MAX) n = SSIZE_MAX;
  wrap_output_add(kind, NULL, fd, arg, buf, n);
  *r = (ssize_t)n;
  return 1;
}

/* pwrite's own errors come now: a negative offset, a descriptor that cannot
 * seek. */
static int held_pwrite(int fd, const void *buf, size_t n, off64_t off, ssize_t *r) {
  *r = -1;
  if (off < 0) {
    errno = EINVAL;
    return 1;
  }
  int e = errno;
  if (lseek(fd, 0, SEEK_CUR) < 0) return 1; /* ESPIPE, EBADF */
  errno = e;
  return held_fd(AMBER_OUT_PWRITE, fd, off, 0, buf, n, r);
}

#define HELD_FD(call)                                                          \
  do {                                                                         \
    ssize_t r_;                                                                \
    if (wrap_output_held() && call) return r_;                                 \
  } while (0)

/* ---- system calls ---- */

#define READ_LIKE(fn, call)                                                    \
  do {                                                                         \
    amber_interpose_check_usable(fn, buf);                                          \
    struct bounce b;                                                           \
    char *p = bounce_get(&b, n);                                               \
    if (!p) return -1;                                                         \
    ssize_t r = call;                                                          \
    if (r > 0) in_store(fn, buf, p, (size_t)r);                                \
    bounce_put(&b);                                                            \
    return r;                                                                  \
  } while (0)

#define WRITE_LIKE(fn, call)                                                   \
  do {                                                                         \
    amber_interpose_check_usable(fn, buf);                                          \
    struct bounce b;                                                           \
    const char *p = out_copy(&b, buf, n);                                      \
    if (!p) return -1;                                                         \
    ssize_t r = call;                                                          \
    bounce_put(&b);                                                            \
    return r;                                                                  \
  } while (0)

ssize_t read(int fd, void *buf, size_t n) {
  amber_interpose_sync();
  if (!INTO(buf, n)) return REAL(read)(fd, buf, n);
  READ_LIKE("read", REAL(read)(fd, p, n));
}

ssize_t pread(int fd, void *buf, size_t n, off_t off) {
  amber_interpose_sync();
  if (!INTO(buf, n)) return REAL(pread)(fd, buf, n, off);
  READ_LIKE("pread", REAL(pread)(fd, p, n, off));
}

ssize_t pread64(int fd, void *buf, size_t n, off64_t off) {
  amber_interpose_sync();
  if (!INTO(buf, n)) return REAL(pread64)(fd, buf, n, off);
  READ_LIKE("pread", REAL(pread64)(fd, p, n, off));
}

ssize_t write(int fd, const void *buf, size_t n) {
  HELD_FD(held_fd(AMBER_OUT_FD, fd, 0, 0, buf, n, &r_));
  amber_interpose_sync();
  if (!OUT_OF(buf, n)) return REAL(write)(fd, buf, n);
  WRITE_LIKE("write", REAL(write)(fd, p, n));
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) {
  HELD_FD(held_pwrite(fd, buf, n, off, &r_));
  amber_interpose_sync();
  if (!OUT_OF(buf, n)) return REAL(pwrite)(fd, buf, n, off);
  WRITE_LIKE("pwrite", REAL(pwrite)(fd, p, n, off));
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off) {
  HELD_FD(held_pwrite(fd, buf, n, off, &r_));
  amber_interpose_sync();
  if (!OUT_OF(buf, n)) return REAL(pwrite64)(fd, buf, n, off);
  WRITE_LIKE("pwrite", REAL(pwrite64)(fd, p, n, off));
}

ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen) {
  amber_interpose_sync();
  if (!INTO(buf, n)) return REAL(__read_chk)(fd, buf, n, buflen);
  if (n > buflen) __chk_fail();
  READ_LIKE("read", REAL(read)(fd, p, n));
}

ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen) {
  amber_interpose_sync();
  if (!INTO(buf, n)) return REAL(__pread_chk)(fd, buf, n, off, buflen);
  if (n > buflen) __chk_fail();
  READ_LIKE("pread", REAL(pread)(fd, p, n, off));
}

ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen) {
  amber_interpose_sync();
  if (!INTO(buf, n)) return REAL(__pread64_chk)(fd, buf, n, off, buflen);
  if (n > buflen) __chk_fail();
  READ_LIKE("pread", REAL(pread64)(fd, p, n, off));
}

ssize_t recv(int fd, void *buf, size_t n, int flags) {
  amber_interpose_sync();
  if (!INTO(buf, n)) return REAL(recv)(fd, buf, n, flags);
  READ_LIKE("recv", REAL(recv)(fd, p, n, flags));
}

ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *from, socklen_t *fromlen) {
  amber_interpose_sync();
  if (!INTO(buf, n)) return REAL(recvfrom)(fd, buf, n, flags, from, fromlen);
  READ_LIKE("recvfrom", REAL(recvfrom)(fd, p, n, flags, from, fromlen));
}

ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags) {
  amber_interpose_sync();
  if (!INTO(buf, n)) return REAL(__recv_chk)(fd, buf, n, buflen, flags);
  if (n > buflen) __chk_fail();
  READ_LIKE("recv", REAL(recv)(fd, p, n, flags));
}

ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags, struct sockaddr *from, socklen_t *fromlen) {
  amber_interpose_sync();
  if (!INTO(buf, n)) return REAL(__recvfrom_chk)(fd, buf, n, buflen, flags, from, fromlen);
  if (n > buflen) __chk_fail();
  READ_LIKE("recvfrom", REAL(recvfrom)(fd, p, n, flags, from, fromlen));
}

ssize_t send(int fd, const void *buf, size_t n, int flags) {
  HELD_FD(held_fd(AMBER_OUT_SEND, fd, flags, flags & MSG_DONTWAIT, buf, n, &r_));
  amber_interpose_sync();
  if (!OUT_OF(buf, n)) return REAL(send)(fd, buf, n, flags);
  WRITE_LIKE("send", REAL(send)(fd, p, n, flags));
}

ssize_t sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *to, socklen_t tolen) {
  /* To an address: not held (the commit would need the address too); the
   * region becomes irrevocable and it is sent now. */
  if (wrap_output_held() && to) __amber_irrevocable();
  HELD_FD(held_fd(AMBER_OUT_SEND, fd, flags, flags & MSG_DONTWAIT, buf, n, &r_));
  amber_interpose_sync();
  if (!OUT_OF(buf, n)) return REAL(sendto)(fd, buf, n, flags, to, tolen);
  WRITE_LIKE("sendto", REAL(sendto)(fd, p, n, flags, to, tolen));
}

/* ---- stdio ---- */

static size_t total(size_t size, size_t n) {
  size_t t;
  return __builtin_mul_overflow(size, n, &t) ? 0 : t; /* 0: never the heap's */
}

#define FREAD_LIKE(fn, realfn)                                                 \
  do {                                                                         \
    amber_interpose_check_usable(fn, ptr);                                          \
    struct bounce b;                                                           \
    char *p = bounce_get(&b, t);                                               \
    if (!p) return 0;                                                          \
    size_t r = realfn(p, size, n, f);                                          \
    if (r) in_store(fn, ptr, p, r * size);                                     \
    bounce_put(&b);                                                            \
    return r;                                                                  \
  } while (0)

#define FWRITE_LIKE(fn, realfn)                                                \
  do {                                                                         \
    amber_interpose_check_usable(fn, ptr);                                          \
    struct bounce b;                                                           \
    const char *p = out_copy(&b, ptr, t);                                      \
    if (!p) return 0;                                                          \
    size_t r = realfn(p, size, n, f);                                          \
    bounce_put(&b);                                                            \
    return r;                                                                  \
  } while (0)

/* fwrite while the region holds its output (the stream can wait). */
static size_t held_fwrite(const void *ptr, size_t size, size_t n, FILE *f) {
  size_t t = total(size, n);
  if (!t) return 0;
  wrap_output_add(AMBER_OUT_STREAM, f, -1, 0, ptr, t);
  return n;
}

#define HELD_STREAM(f) (wrap_output_held() && wrap_output_stream_waits(f))

size_t fread(void *ptr, size_t size, size_t n, FILE *f) {
  amber_interpose_sync();
  size_t t = total(size, n);
  if (!INTO(ptr, t)) return REAL(fread)(ptr, size, n, f);
  FREAD_LIKE("fread", REAL(fread));
}

size_t fread_unlocked(void *ptr, size_t size, size_t n, FILE *f) {
  amber_interpose_sync();
  size_t t = total(size, n);
  if (!INTO(ptr, t)) return REAL(fread_unlocked)(ptr, size, n, f);
  FREAD_LIKE("fread_unlocked", REAL(fread_unlocked));
}

size_t __fread_chk(void *ptr, size_t ptrlen, size_t size, size_t n, FILE *f) {
  amber_interpose_sync();
  size_t t = total(size, n);
  if (!INTO(ptr, t)) return REAL(__fread_chk)(ptr, ptrlen, size, n, f);
  if (t > ptrlen) __chk_fail();
  FREAD_LIKE("fread", REAL(fread));
}

size_t __fread_unlocked_chk(void *ptr, size_t ptrlen, size_t size, size_t n, FILE *f) {
  amber_interpose_sync();
  size_t t = total(size, n);
  if (!INTO(ptr, t)) return REAL(__fread_unlocked_chk)(ptr, ptrlen, size, n, f);
  if (t > ptrlen) __chk_fail();
  FREAD_LIKE("fread_unlocked", REAL(fread_unlocked));
}

size_t fwrite(const void *ptr, size_t size, size_t n, FILE *f) {
  if (HELD_STREAM(f)) return held_fwrite(ptr, size, n, f);
  amber_interpose_sync();
  size_t t = total(size, n);
  if (!OUT_OF(ptr, t)) return REAL(fwrite)(ptr, size, n, f);
  FWRITE_LIKE("fwrite", REAL(fwrite));
}

size_t fwrite_unlocked(const void *ptr, size_t size, size_t n, FILE *f) {
  if (HELD_STREAM(f)) return held_fwrite(ptr, size, n, f);
  amber_interpose_sync();
  size_t t = total(size, n);
  if (!OUT_OF(ptr, t)) return REAL(fwrite_unlocked)(ptr, size, n, f);
  FWRITE_LIKE("fwrite_unlocked", REAL(fwrite_unlocked));
}

static char *heap_fgets(const char *fn, char *s, int n, FILE *f, int unlocked) {
  amber_interpose_check_usable(fn, s);
  struct bounce b;
  char *p = bounce_get(&b, (size_t)n);
  if (!p) return NULL;
  char *r = unlocked ? REAL(fgets_unlocked)(p, n, f) : REAL(fgets)(p, n, f);
  if (r) in_store(fn, s, p, strlen(p) + 1);
  bounce_put(&b);
  return r ? s : NULL;
}

char *fgets(char *s, int n, FILE *f) {
  amber_interpose_sync();
  if (n <= 0 || !INTO(s, (size_t)n)) return REAL(fgets)(s, n, f);
  return heap_fgets("fgets", s, n, f, 0);
}

char *fgets_unlocked(char *s, int n, FILE *f) {
  amber_interpose_sync();
  if (n <= 0 || !INTO(s, (size_t)n)) return REAL(fgets_unlocked)(s, n, f);
  return heap_fgets("fgets_unlocked", s, n, f, 1);
}

char *__fgets_chk(char *s, size_t size, int n, FILE *f) {
  amber_interpose_sync();
  if (n <= 0 || !INTO(s, (size_t)n)) return REAL(__fgets_chk)(s, size, n, f);
  if ((size_t)n > size) __chk_fail();
  return heap_fgets("fgets", s, n, f, 0);
}

char *__fgets_unlocked_chk(char *s, size_t size, int n, FILE *f) {
  amber_interpose_sync();
  if (n <= 0 || !INTO(s, (size_t)n)) return REAL(__fgets_unlocked_chk)(s, size, n, f);
  if ((size_t)n > size) __chk_fail();
  return heap_fgets("fgets_unlocked", s, n, f, 1);
}

/* A heap string to print: a volatile copy read through the engine. */
#define OUT_STR(s) (__builtin_expect(wrap_in_heap(s), 0))

#define PUTS_LIKE(fn, call)                                                    \
  do {                                                                         \
    amber_interpose_check_usable(fn, s);                                            \
    char *p = amber_wrap_strndup(s, (size_t)-1, NULL);                         \
    if (!p) {                                                                  \
      errno = ENOMEM;                                                          \
      return EOF;                                                              \
    }                                                                          \
    int r = call;                                                              \
    int e = errno;                                                             \
    free(p);                                                                   \
    errno = e;                                                                 \
    return r;                                                                  \
  } while (0)

/* puts / fputs while the region holds its output: the string (a heap one
 * read now, in the region's view), then puts' newline.  Their results are
 * glibc's: puts the bytes written, fputs 1. */
static int held_puts(const char *s, FILE *f, int newline) {
  char *copy = NULL;
  size_t len;
  if (OUT_STR(s)) {
    amber_interpose_check_usable(newline ? "puts" : "fputs", s);
    copy = amber_wrap_strndup(s, (size_t)-1, &len);
    if (!copy) amber_wrap_nomem(newline ? "puts" : "fputs", s, 0);
    s = copy;
  } else {
    len = strlen(s);
  }
  wrap_output_add(AMBER_OUT_STREAM, f, -1, 0, s, len);
  if (newline) wrap_output_add(AMBER_OUT_STREAM, f, -1, 0, "\n", 1);
  free(copy);
  if (!newline) return 1;
  return len + 1 > INT_MAX ? INT_MAX : (int)(len + 1);
}

int puts(const char *s) {
  if (HELD_STREAM(stdout)) return held_puts(s, stdout, 1);
  amber_interpose_sync();
  if (!OUT_STR(s)) return REAL(puts)(s);
  PUTS_LIKE("puts", REAL(puts)(p));
}

int fputs(const char *s, FILE *f) {
  if (HELD_STREAM(f)) return held_puts(s, f, 0);
  amber_interpose_sync();
  if (!OUT_STR(s)) return REAL(fputs)(s, f);
  PUTS_LIKE("fputs", REAL(fputs)(p, f));
}

int fputs_unlocked(const char *s, FILE *f) {
  if (HELD_STREAM(f)) return held_puts(s, f, 0);
  amber_interpose_sync();
  if (!OUT_STR(s)) return REAL(fputs_unlocked)(s, f);
  PUTS_LIKE("fputs_unlocked", REAL(fputs_unlocked)(p, f));
}

/* getline / getdelim with the line pointer, its size or the buffer in the
 * heap: the real getdelim reads into a volatile line of its own, then one
 * transaction grows the caller's buffer when it is too small (a heap buffer
 * with a persistent realloc, which joins that transaction), copies the line
 * in and updates *lineptr and *n.  A volatile buffer is grown first, outside
 * the transaction (the transaction may run again). */
struct line_req {
  char **lineptr;
  size_t *n;
  char *buf, *line; /* the caller's buffer (after a volatile growth), the line read */
  size_t cap, len;  /* the buffer's size (after growth), the line's bytes with its NUL */
};

static void line_fn(void *arg) {
  struct line_req *q = arg;
  char *buf = q->buf;
  size_t cap = q->cap;
  if (wrap_in_heap(buf) && cap < q->len) {
    buf = amber_interpose_realloc(buf, q->len);
    cap = q->len;
    if (!buf) return;
  }
  if (wrap_touches(buf, q->len)) __amber_memmove(buf, q->line, q->len);
  else memcpy(buf, q->line, q->len);
  if (wrap_touches(q->lineptr, sizeof buf)) __amber_memmove(q->lineptr, &buf, sizeof buf);
  else *q->lineptr = buf;
  if (wrap_touches(q->n, sizeof cap)) __amber_memmove(q->n, &cap, sizeof cap);
  else *q->n = cap;
}

static ssize_t heap_getdelim(const char *fn, char **lineptr, size_t *n, int delim, FILE *f) {
  amber_interpose_check_usable(fn, lineptr);
  struct line_req q = {lineptr, n, NULL, NULL, 0, 0};
  amber_wrap_read(&q.buf, lineptr, sizeof q.buf);
  amber_wrap_read(&q.cap, n, sizeof q.cap);
  if (!q.buf) q.cap = 0;
  size_t lcap = 0;
  ssize_t r = REAL(getdelim)(&q.line, &lcap, delim, f);
  int e = errno;
  if (r >= 0) {
    q.len = (size_t)r + 1;
    if (!wrap_in_heap(q.buf) && q.cap < q.len) { /* volatile (or none): libc's growth */
      char *nb = realloc(q.buf, q.len);
      if (!nb) {
        free(q.line);
        errno = ENOMEM;
        return -1;
      }
      q.buf = nb;
      q.cap = q.len;
    }
    amber_interpose_write_tx(fn, wrap_in_heap(q.buf) ? (void *)q.buf : (void *)lineptr, line_fn, &q);
  }
  free(q.line);
  errno = e;
  return r;
}

/* The pointer, the size, or the buffer they name is in the heap. */
static int line_in_heap(char **lineptr, size_t *n) {
  return wrap_touches(lineptr, sizeof *lineptr) || wrap_touches(n, sizeof *n) || wrap_in_heap(*lineptr);
}

ssize_t getdelim(char **lineptr, size_t *n, int delim, FILE *f) {
  amber_interpose_sync();
  if (__builtin_expect(!lineptr || !n || !line_in_heap(lineptr, n), 1)) return REAL(getdelim)(lineptr, n, delim, f);
  return heap_getdelim("getdelim", lineptr, n, delim, f);
}

ssize_t __getdelim(char **lineptr, size_t *n, int delim, FILE *f) {
  amber_interpose_sync();
  if (__builtin_expect(!lineptr || !n || !line_in_heap(lineptr, n), 1)) return REAL(getdelim)(lineptr, n, delim, f);
  return heap_getdelim("getdelim", lineptr, n, delim, f);
}

ssize_t getline(char **lineptr, size_t *n, FILE *f) {
  amber_interpose_sync();
  if (__builtin_expect(!lineptr || !n || !line_in_heap(lineptr, n), 1)) return REAL(getdelim)(lineptr, n, '\n', f);
  return heap_getdelim("getline", lineptr, n, '\n', f);
}

/* A stream buffer in the heap: libc would read and write it on every call,
 * past any interceptor.  Refused, with what to do. */
static void no_heap_buffer(const char *fn, const void *buf) {
  amber_fatal("%s() was given a buffer in the persistent heap (%p) for a stdio stream; libc reads and writes a stream's "
              "buffer directly, outside any transaction: give it a volatile buffer (a static or malloc'd array outside "
              "regions) or NULL (docs/wrappers.md)",
              fn, buf);
}

int setvbuf(FILE *f, char *buf, int mode, size_t size) {
  if (__builtin_expect(buf && mode != _IONBF && wrap_touches(buf, size ? size : 1), 0)) no_heap_buffer("setvbuf", buf);
  return REAL(setvbuf)(f, buf, mode, size);
}

void setbuf(FILE *f, char *buf) {
  if (__builtin_expect(buf && wrap_touches(buf, BUFSIZ), 0)) no_heap_buffer("setbuf", buf);
  REAL(setbuf)(f, buf);
}

void setbuffer(FILE *f, char *buf, size_t size) {
  if (__builtin_expect(buf && wrap_touches(buf, size ? size : 1), 0)) no_heap_buffer("setbuffer", buf);
  REAL(setbuffer)(f, buf, size);
}
