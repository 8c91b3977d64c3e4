#include "pm.h"

#include <libpmem.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "diag.h"
#include "options.h"

#define LINE 64u

const char *const amber_pm_cat_name[AMBER_PM_NCAT] = {"data", "log", "checkpoint", "allocator", "header"};

static enum amber_pm_mode mode = AMBER_PM_MODE_PMEM;
static uint64_t crash_at;        /* AMBER_CRASH_AT, 0 = off */
static uint64_t events;          /* persistence events so far (atomic) */

/* Counters live in a per-thread block that is never freed, so stats can sum
 * the counters of threads that have exited. */
struct counter_block {
  struct amber_pm_counters c;
  struct counter_block *next;
  int free; /* its thread ended: the next new thread adds to it */
};
static struct counter_block *blocks;
static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread struct counter_block *self;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static void block_exit(void *arg) {
  struct counter_block *b = arg;
  self = NULL;
  __atomic_store_n(&b->free, 1, __ATOMIC_RELEASE);
}

static void make_exit_key(void) {
  if (pthread_key_create(&exit_key, block_exit) != 0) amber_fatal("cannot create a thread-exit key");
}

struct amber_pm_counters *amber_pm_counters(void) {
  if (__builtin_expect(self != NULL, 1)) return &self->c;
  pthread_once(&exit_key_once, make_exit_key);
  struct counter_block *b = NULL;
  pthread_mutex_lock(&blocks_lock);
  for (struct counter_block *x = blocks; x && !b; x = x->next)
    if (__atomic_load_n(&x->free, __ATOMIC_ACQUIRE)) b = x;
  if (b) {
    b->free = 0;
  } else {
    b = calloc(1, sizeof *b);
    if (!b) amber_fatal("out of memory for per-thread counters");
    b->next = blocks;
    blocks = b;
  }
  pthread_mutex_unlock(&blocks_lock);
  self = b;
  pthread_setspecific(exit_key, b);
  return &b->c;
}

void amber_pm_counters_sum(struct amber_pm_counters *out) {
  memset(out, 0, sizeof *out);
  pthread_mutex_lock(&blocks_lock);
  for (struct counter_block *b = blocks; b; b = b->next) {
    for (int i = 0; i < AMBER_PM_NCAT; i++) {
      out->flushes[i] += __atomic_load_n(&b->c.flushes[i], __ATOMIC_RELAXED);
      out->fences[i] += __atomic_load_n(&b->c.fences[i], __ATOMIC_RELAXED);
    }
    out->flushed_bytes += __atomic_load_n(&b->c.flushed_bytes, __ATOMIC_RELAXED);
  }
  pthread_mutex_unlock(&blocks_lock);
}

void amber_pm_init(void) {
  const char *m = amber_opt.pm;
  if (!strcmp(m, "pmem")) mode = AMBER_PM_MODE_PMEM;
  else if (!strcmp(m, "msync")) mode = AMBER_PM_MODE_MSYNC;
  else if (!strcmp(m, "none")) mode = AMBER_PM_MODE_NONE;
  else if (!strcmp(m, "sim"))
    amber_fatal("AMBER_PM=sim: the crash simulator is not built yet (issue [3/7]); use pmem, msync or none");
  else amber_fatal("AMBER_PM=%s is not a persistence backend; use pmem, msync or none", m);
  crash_at = amber_opt.crash_at;
}

enum amber_pm_mode amber_pm_mode(void) { return mode; }
const char *amber_pm_mode_name(void) {
  return mode == AMBER_PM_MODE_PMEM ? "pmem" : mode == AMBER_PM_MODE_MSYNC ? "msync" : "none";
}

/* Crash injection: the N-th event dies before it takes effect, so the heap
 * holds exactly what earlier events made durable (and, on a page-cache
 * backed file, whatever stores were already made). */
static inline void event(void) {
  if (__builtin_expect(crash_at != 0, 0)) {
    uint64_t n = __atomic_add_fetch(&events, 1, __ATOMIC_RELAXED);
    if (n == crash_at) {
      const char msg[] = "amber: crash injected (AMBER_CRASH_AT)\n";
      ssize_t w = write(2, msg, sizeof msg - 1);
      (void)w;
      raise(SIGKILL);
    }
  }
}

void amber_pm_flush(const void *addr, size_t len, enum amber_pm_cat cat) {
  if (len == 0) return;
  event();
  uintptr_t a = (uintptr_t)addr & ~(uintptr_t)(LINE - 1);
  uintptr_t e = (uintptr_t)addr + len;
  struct amber_pm_counters *c = amber_pm_counters();
  uint64_t lines = (e - a + LINE - 1) / LINE;
  c->flushes[cat] += lines;
  c->flushed_bytes += lines * LINE;
  switch (mode) {
  case AMBER_PM_MODE_PMEM:
    pmem_flush((const void *)a, e - a);
    break;
  case AMBER_PM_MODE_MSYNC: {
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t pa = a & ~(pg - 1);
    if (msync((void *)pa, e - pa, MS_SYNC) != 0)
      amber_fatal("msync of the heap failed; the heap file's storage may be failing");
    break;
  }
  case AMBER_PM_MODE_NONE:
    break;
  }
}

void amber_pm_fence(enum amber_pm_cat cat) {
  event();
  amber_pm_counters()->fences[cat]++;
  if (mode == AMBER_PM_MODE_PMEM) pmem_drain();
}

void amber_pm_persist(const void *addr, size_t len, enum amber_pm_cat cat) {
  amber_pm_flush(addr, len, cat);
  amber_pm_fence(cat);
}
