/* A table of the process's volatile mappings, parsed from /proc/self/maps,
 * for the pointer check (tx/ptrcheck.c): which kind of memory a word
 * stored into the heap points into.  Only consulted for words that already
 * passed the check's cheap filter, so it is built lazily and refreshed on
 * a miss that mincore(2) says is mapped memory. */
#include "vmaps.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "heap/window.h"

struct vmap {
  uintptr_t lo, hi;
  enum amber_vmap_kind kind;
  int module; /* index into names, or -1 */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct vmap *maps;
static size_t nmaps, capmaps;
static char **names;
static size_t nnames, capnames;
static uint64_t built_ns; /* 0: never built */
/* The lowest address mapped when the table was built, the heap's window
 * aside: the executable's image (PIE or not; new mappings come above it,
 * mmap top-down below the libraries, brk up from the image), so a missed
 * address below it needs no mincore(2). */
static uintptr_t lowest;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The whole of /proc/self/maps, NUL-terminated, in a malloc'd buffer. */
static char *slurp(void) {
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (!buf) break;
    if (cap - n < 4096) {
      char *b = realloc(buf, cap * 2);
      if (!b) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = b;
      cap *= 2;
    }
    ssize_t r = read(fd, buf + n, cap - n - 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    n += (size_t)r;
  }
  close(fd);
  if (buf) buf[n] = 0;
  return buf;
}

static int name_index(const char *path, size_t len) {
  for (size_t i = 0; i < nnames; i++)
    if (!strncmp(names[i], path, len) && !names[i][len]) return (int)i;
  if (nnames == capnames) {
    size_t c = capnames ? capnames * 2 : 32;
    char **nn = realloc(names, c * sizeof *nn);
    if (!nn) return -1;
    names = nn;
    capnames = c;
  }
  char *s = strndup(path, len);
  if (!s) return -1;
  names[nnames] = s;
  return (int)nnames++;
}

static void push(uintptr_t lo, uintptr_t hi, enum amber_vmap_kind kind, int module) {
  if (nmaps == capmaps) {
    size_t c = capmaps ? capmaps * 2 : 256;
    struct vmap *m = realloc(maps, c * sizeof *m);
    if (!m) return;
    maps = m;
    capmaps = c;
  }
  maps[nmaps++] = (struct vmap){lo, hi, kind, module};
}

/* Rebuilds the table (lock held).  Lines: "lo-hi perms offset dev inode  path". */
static void build(void) {
  char *buf = slurp();
  nmaps = 0;
  lowest = UINTPTR_MAX;
  built_ns = now_ns() | 1;
  if (!buf) return;
  int prev_module = -1;
  uintptr_t prev_hi = 0;
  for (char *line = buf; *line;) {
    char *eol = strchr(line, '\n');
    if (eol) *eol = 0;
    char *p = line;
    uintptr_t lo = strtoull(p, &p, 16);
    uintptr_t hi = *p == '-' ? strtoull(p + 1, &p, 16) : 0;
    char perms[5] = {0};
    while (*p == ' ') p++;
    for (int i = 0; i < 4 && *p && *p != ' '; i++) perms[i] = *p++;
    /* offset, dev, inode, then the path (maybe empty) */
    for (int f = 0; f < 3; f++) {
      while (*p == ' ') p++;
      while (*p && *p != ' ') p++;
    }
    while (*p == ' ') p++;
    const char *path = p;
    size_t plen = strlen(path);
    enum amber_vmap_kind kind = AMBER_VMAP_NONE;
    int module = -1;
    int readable = perms[0] == 'r', writable = perms[1] == 'w', exec = perms[2] == 'x', priv = perms[3] == 'p';
    if (hi > lo && readable && !exec && priv) {
      if (!plen) {
        /* A module's .bss continues its writable private file mapping
         * (.data) in anonymous memory; any other anonymous memory is
         * malloc's or mmap's (thread arenas may well follow a shared file
         * mapping, such as the heap's alias). */
        if (prev_module >= 0 && lo == prev_hi && writable) {
          kind = AMBER_VMAP_DATA;
          module = prev_module;
        } else {
          kind = AMBER_VMAP_ANON;
        }
      } else if (!strcmp(path, "[heap]")) {
        kind = AMBER_VMAP_BRK;
      } else if (!strcmp(path, "[stack]")) {
        kind = AMBER_VMAP_STACK;
      } else if (path[0] == '/') {
        kind = AMBER_VMAP_DATA;
        module = name_index(path, plen);
      }
      /* [vvar], [vdso] and the like: NONE */
    }
    /* The persistent heap's window and its alias are the heap's, never
     * volatile (the window is excluded before the table is asked). */
    if (kind != AMBER_VMAP_NONE) push(lo, hi, kind, module);
    if (hi > lo && lo < lowest && !amber_in_heap((const void *)lo)) lowest = lo;
    prev_module = path[0] == '/' && writable && priv && !exec ? module : -1;
    prev_hi = hi;
    if (!eol) break;
    line = eol + 1;
  }
  free(buf);
}

static const struct vmap *lookup(uintptr_t v) {
  size_t lo = 0, hi = nmaps;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v < maps[mid].lo) hi = mid;
    else if (v >= maps[mid].hi) lo = mid + 1;
    else return &maps[mid];
  }
  return NULL;
}

/* v's page is mapped (in any way): mincore fails with ENOMEM on a hole. */
static int mapped(uintptr_t v) {
  static long page;
  if (!page) page = sysconf(_SC_PAGESIZE);
  unsigned char vec;
  return mincore((void *)(v & ~(uintptr_t)(page - 1)), 1, &vec) == 0 || errno != ENOMEM;
}

/* Entries older than this are re-read before a found address is named. */
#define STALE_NS 100000000u

uintptr_t amber_vmaps_lowest(void) {
  pthread_mutex_lock(&lock);
  if (!built_ns) build();
  uintptr_t lo = lowest;
  pthread_mutex_unlock(&lock);
  return lo;
}

enum amber_vmap_kind amber_vmaps_find(uintptr_t v, char *name, size_t len) {
  if (amber_in_heap((const void *)v)) return AMBER_VMAP_NONE;
  pthread_mutex_lock(&lock);
  if (!built_ns) build();
  const struct vmap *m = lookup(v);
  if (!m ? v >= lowest && mapped(v) : now_ns() - built_ns > STALE_NS) {
    build();
    m = lookup(v);
  }
  enum amber_vmap_kind kind = m ? m->kind : AMBER_VMAP_NONE;
  if (name && len) {
    name[0] = 0;
    if (m && m->module >= 0 && (size_t)m->module < nnames) {
      strncpy(name, names[m->module], len - 1);
      name[len - 1] = 0;
    }
  }
  pthread_mutex_unlock(&lock);
  return kind;
}
