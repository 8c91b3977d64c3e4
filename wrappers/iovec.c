/* Vectored I/O (readv, writev, preadv, pwritev) with buffers in the heap: the
 * iovec array is copied (it may itself live in the heap), each heap buffer
 * gets a volatile bounce buffer in its place, and
 *   - reads store what the system call put into the bounce buffers in one
 *     transaction (all of one call's buffers together);
 *   - writes copy the heap buffers out first, in one snapshot (through the
 *     engine where it keeps committed versions outside the data area).
 * The system call itself never runs inside a transaction, as in io.c. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "wrap.h"

WRAP_REAL(readv)
WRAP_REAL(writev)
WRAP_REAL(preadv)
WRAP_REAL(pwritev)
WRAP_REAL(preadv64)
WRAP_REAL(pwritev64)

/* One call's vectors: the caller's (orig, in volatile memory) and the ones
 * handed to the system call (v), where heap buffers are replaced. */
struct vecs {
  const struct iovec *orig;
  struct iovec *v;
  int n;
};

static int any_heap(const struct iovec *iov, int n) {
  if (n <= 0 || n > IOV_MAX) return 0;
  if (wrap_touches(iov, (size_t)n * sizeof *iov)) return 1;
  for (int i = 0; i < n; i++)
    if (wrap_touches(iov[i].iov_base, iov[i].iov_len)) return 1;
  return 0;
}

static void load_bufs(void *arg) {
  struct vecs *s = arg;
  for (int i = 0; i < s->n; i++)
    if (s->v[i].iov_base != s->orig[i].iov_base) amber_interpose_load(s->v[i].iov_base, s->orig[i].iov_base, s->v[i].iov_len);
}

/* Sets up s; -1 (errno ENOMEM) when out of memory. */
static int vecs_get(struct vecs *s, const char *fn, const struct iovec *iov, int n, int out) {
  s->n = n;
  s->v = calloc((size_t)n * 2, sizeof *s->v);
  if (!s->v) {
    errno = ENOMEM;
    return -1;
  }
  struct iovec *orig = s->v + n;
  if (wrap_touches(iov, (size_t)n * sizeof *iov)) {
    amber_interpose_check_usable(fn, iov);
    amber_wrap_read(orig, iov, (size_t)n * sizeof *iov);
  } else {
    memcpy(orig, iov, (size_t)n * sizeof *iov);
  }
  s->orig = orig;
  int heap = 0;
  for (int i = 0; i < n; i++) {
    s->v[i] = orig[i];
    if (!wrap_touches(orig[i].iov_base, orig[i].iov_len)) continue;
    amber_interpose_check_usable(fn, orig[i].iov_base);
    s->v[i].iov_base = malloc(orig[i].iov_len);
    if (!s->v[i].iov_base) {
      s->v[i].iov_base = orig[i].iov_base;
      errno = ENOMEM;
      return -1;
    }
    heap = 1;
  }
  if (out && heap) amber_interpose_read_tx(load_bufs, s);
  return 0;
}

static void vecs_put(struct vecs *s) {
  if (!s->v) return;
  for (int i = 0; i < s->n; i++)
    if (s->v[i].iov_base != s->orig[i].iov_base) free(s->v[i].iov_base);
  free(s->v);
}

struct stored {
  struct vecs *s;
  size_t got;
};

static void store_fn(void *arg) {
  struct stored *st = arg;
  size_t left = st->got;
  for (int i = 0; i < st->s->n && left; i++) {
    size_t k = st->s->v[i].iov_len < left ? st->s->v[i].iov_len : left;
    if (st->s->v[i].iov_base != st->s->orig[i].iov_base) __amber_memmove(st->s->orig[i].iov_base, st->s->v[i].iov_base, k);
    left -= k;
  }
}

/* After a read of r bytes into the bounce buffers: one transaction. */
static void vecs_store(struct vecs *s, const char *fn, ssize_t r) {
  if (r <= 0) return;
  int e = errno;
  struct stored st = {s, (size_t)r};
  void *first = NULL;
  for (int i = 0; i < s->n && !first; i++)
    if (s->v[i].iov_base != s->orig[i].iov_base) first = s->orig[i].iov_base;
  amber_interpose_write_tx(fn, first, store_fn, &st);
  errno = e;
}

#define VEC_CALL(fn, out, call)                                                \
  do {                                                                         \
    struct vecs s = {0};                                                       \
    ssize_t r = -1;                                                            \
    if (vecs_get(&s, fn, iov, n, out) == 0) {                                  \
      const struct iovec *v = s.v;                                             \
      r = call;                                                                \
      if (!(out)) vecs_store(&s, fn, r);                                       \
    }                                                                          \
    int e = errno;                                                             \
    vecs_put(&s);                                                              \
    errno = e;                                                                 \
    return r;                                                                  \
  } while (0)

ssize_t readv(int fd, const struct iovec *iov, int n) {
  amber_interpose_sync();
  if (__builtin_expect(!any_heap(iov, n), 1)) return REAL(readv)(fd, iov, n);
  VEC_CALL("readv", 0, REAL(readv)(fd, v, n));
}

ssize_t writev(int fd, const struct iovec *iov, int n) {
  amber_interpose_sync();
  if (__builtin_expect(!any_heap(iov, n), 1)) return REAL(writev)(fd, iov, n);
  VEC_CALL("writev", 1, REAL(writev)(fd, v, n));
}

ssize_t preadv(int fd, const struct iovec *iov, int n, off_t off) {
  amber_interpose_sync();
  if (__builtin_expect(!any_heap(iov, n), 1)) return REAL(preadv)(fd, iov, n, off);
  VEC_CALL("preadv", 0, REAL(preadv)(fd, v, n, off));
}

ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off) {
  amber_interpose_sync();
  if (__builtin_expect(!any_heap(iov, n), 1)) return REAL(pwritev)(fd, iov, n, off);
  VEC_CALL("pwritev", 1, REAL(pwritev)(fd, v, n, off));
}

ssize_t preadv64(int fd, const struct iovec *iov, int n, off64_t off) {
  amber_interpose_sync();
  if (__builtin_expect(!any_heap(iov, n), 1)) return REAL(preadv64)(fd, iov, n, off);
  VEC_CALL("preadv", 0, REAL(preadv64)(fd, v, n, off));
}

ssize_t pwritev64(int fd, const struct iovec *iov, int n, off64_t off) {
  amber_interpose_sync();
  if (__builtin_expect(!any_heap(iov, n), 1)) return REAL(pwritev64)(fd, iov, n, off);
  VEC_CALL("pwritev", 1, REAL(pwritev64)(fd, v, n, off));
}
