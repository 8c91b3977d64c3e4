/* Helpers shared by the amber tool's commands, and the live view: a heap a
 * running program has open, read through a stable copy of its file. */
#define _GNU_SOURCE /* memfd_create */
#include "amber_tool.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/options.h"

#include "check.h"
#include "engine/registry.h"
#include "tx/engine.h"

/* The pid /proc/locks gives for the lock on (dev, ino); 0 when none. */
static int lock_holder(dev_t dev, ino_t ino) {
  FILE *f = fopen("/proc/locks", "re");
  if (!f) return 0;
  char line[256];
  int pid = 0;
  while (!pid && fgets(line, sizeof line, f)) {
    char kind[16];
    int p;
    unsigned maj, min;
    unsigned long long i;
    char *s = strchr(line, ':');
    if (!s) continue;
    /* "1: FLOCK  ADVISORY  WRITE 1234 00:1a:5678 0 EOF" ("->" marks a waiter) */
    if (strstr(line, "->")) continue;
    if (sscanf(s + 1, " %15s %*s %*s %d %x:%x:%llu", kind, &p, &maj, &min, &i) == 5 && !strcmp(kind, "FLOCK") &&
        makedev(maj, min) == dev && i == (unsigned long long)ino)
      pid = p;
  }
  fclose(f);
  return pid;
}

int amber_heap_is_live(const char *path, int *holder) {
  *holder = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return 0;
  struct stat sb;
  int live = 0;
  if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
    if (flock(fd, LOCK_SH | LOCK_NB) == 0) flock(fd, LOCK_UN);
    else if (errno == EWOULDBLOCK) {
      live = 1;
      *holder = lock_holder(sb.st_dev, sb.st_ino);
    }
  }
  close(fd);
  return live;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int all_zero(const char *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (b[i]) return 0;
  return 1;
}

/* A copy of the file at fd, in the memory file `to`, that one whole read of
 * the file found equal to it: the file as it was during that read (the
 * program wrote nothing in between).  Each read copies again the chunks
 * that changed; up to 10 reads.  Returns 0, or -1 (errno; EAGAIN: it never
 * stood still). */
#define LIVE_CHUNK (1u << 20)

int amber_view_copy_tries(void) {
  uint64_t n = amber_opt.live_copy_tries;
  return n < 1 ? 1 : n > 1000 ? 1000 : (int)n;
}

static int stable_copy(int fd, int to, off_t size, struct amber_view *v) {
  char *a = malloc(LIVE_CHUNK), *b = malloc(LIVE_CHUNK);
  if (!a || !b) amber_fatal("out of memory copying a live heap");
  if (ftruncate(to, size) != 0) goto fail;
  int passes = amber_view_copy_tries();
  for (int pass = 0; pass < passes; pass++) {
    uint64_t t = now_ns();
    size_t changed = 0;
    for (off_t off = 0; off < size; off += LIVE_CHUNK) {
      size_t n = (size_t)(size - off < (off_t)LIVE_CHUNK ? size - off : (off_t)LIVE_CHUNK);
      if (pread(fd, a, n, off) != (ssize_t)n) goto fail;
      if (pass == 0) {
        if (!all_zero(a, n) && pwrite(to, a, n, off) != (ssize_t)n) goto fail;
        continue;
      }
      if (pread(to, b, n, off) != (ssize_t)n) goto fail;
      if (memcmp(a, b, n)) {
        changed++;
        if (pwrite(to, a, n, off) != (ssize_t)n) goto fail;
      }
    }
    v->passes = pass + 1;
    if (pass > 0 && !changed) {
      v->as_of = t;
      free(a);
      free(b);
      return 0;
    }
  }
  errno = EAGAIN;
fail:;
  int e = errno;
  free(a);
  free(b);
  errno = e;
  return -1;
}

/* The live view: a stable copy of the heap, opened without a lock. */
static int view_live(const char *path, struct amber_heap *h, struct amber_view *v, int busy_ok) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  struct stat sb;
  if (fd < 0 || fstat(fd, &sb) != 0) {
    amber_error("heap %s: %s", path, strerror(errno));
    if (fd >= 0) close(fd);
    return -1;
  }
  int mfd = memfd_create("amber-live-copy", MFD_CLOEXEC);
  if (mfd < 0) {
    amber_error("heap %s is in use by process %d, and no memory for a copy to read: %s", path, v->holder, strerror(errno));
    close(fd);
    return -1;
  }
  if (stable_copy(fd, mfd, sb.st_size, v) != 0) {
    if (errno == EAGAIN && busy_ok) v->busy = 1; /* the caller shows what it can without a copy */
    else if (errno == EAGAIN)
      amber_error("heap %s is in use by process %d, which changed it during each of %d reads: no consistent copy to show; try "
                  "again when it is less busy or stop the program; amber info and amber stats --pid %d show it while it runs",
                  path, v->holder, amber_view_copy_tries(), v->holder);
    else amber_error("heap %s is in use by process %d; copying it for a read-only view failed: %s", path, v->holder, strerror(errno));
    close(fd);
    close(mfd);
    return -1;
  }
  char copy[64];
  snprintf(copy, sizeof copy, "/proc/self/fd/%d", mfd);
  int rc = amber_engine_heap_open(copy, AMBER_OPEN_PRIVATE, h);
  close(mfd); /* the mappings keep the copy */
  if (rc != 0) {
    amber_error("heap %s is in use by process %d; its copy (above: %s) could not be opened", path, v->holder, copy);
    close(fd);
    return -1;
  }
  snprintf(h->path, sizeof h->path, "%s", path);
  h->owner_uid = (unsigned)sb.st_uid;
  h->mode = (unsigned)(sb.st_mode & 07777);
  v->src_fd = fd;
  return 0;
}

void amber_view_live_words(const struct amber_view *v, char *buf, size_t len) {
  time_t sec = (time_t)(v->as_of / 1000000000u);
  struct tm tm;
  gmtime_r(&sec, &tm);
  char t[32], who[48] = "a running process";
  strftime(t, sizeof t, "%Y-%m-%d %H:%M:%S", &tm);
  if (v->holder) snprintf(who, sizeof who, "process %d", v->holder);
  snprintf(buf, len, "live: open by %s; a read-only view of a copy of the file as of %s UTC (stable after %d reads)", who, t,
           v->passes);
}

void amber_view_close(struct amber_heap *h, struct amber_view *v) {
  amber_heap_unmap(h);
  if (v->src_fd >= 0) close(v->src_fd);
  v->src_fd = -1;
}

int amber_view_open(const char *path, struct amber_heap *h, struct amber_view *v, int busy_ok) {
  memset(v, 0, sizeof *v);
  v->src_fd = -1;
  if (amber_heap_is_live(path, &v->holder)) {
    v->live = 1;
    if (view_live(path, h, v, busy_ok) != 0) return -1;
  } else if (amber_engine_heap_open(path, AMBER_OPEN_PRIVATE | AMBER_OPEN_LOCK, h) != 0) return -1;
  v->clean = h->status->clean == AMBER_CLEAN;
  v->opens = h->status->opens;
  v->engine_state = h->status->engine_state;
  v->pending = amber_check_recover_private(h, v->engine_state);
  v->pending_txns = h->pending_txns;
  v->pending_ckpts = h->pending_ckpts;
  v->left_out = h->pending_left_out;
  return 0;
}

int amber_state_tag(uint64_t w, char tag[5]) {
  memset(tag, 0, 5);
  if (w >> 32 || !w) return 0;
  for (int i = 0; i < 4; i++) {
    unsigned char c = (unsigned char)(w >> (8 * (3 - i)));
    if (!isupper(c)) {
      memset(tag, 0, 5);
      return 0;
    }
    tag[i] = (char)c;
  }
  return 1;
}
