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
#include "sim.h"

#define LINE 64u

const char *const amber_pm_cat_name[AMBER_PM_NCAT] = {"data", "log", "checkpoint", "allocator", "header"};

static enum amber_pm_mode mode = AMBER_PM_MODE_PMEM;
static uint64_t crash_at;        /* AMBER_CRASH_AT, 0 = off */
static uint64_t events;          /* persistence events so far (atomic) */
int amber_pm_simulating;
static void plant_init(void);
static const struct amber_pm_site *planted; /* AMBER_PLANT: this site does nothing */
static uint64_t planted_reached;

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
  else if (!strcmp(m, "sim")) mode = AMBER_PM_MODE_SIM;
  else amber_fatal("AMBER_PM=%s is not a persistence backend; use pmem, msync, none or sim", m);
  crash_at = amber_opt.crash_at;
  if (mode == AMBER_PM_MODE_SIM) {
    amber_sim_init();
    amber_pm_simulating = 1;
  }
  plant_init();
}

void amber_pm_attach(struct amber_heap *h) {
  if (mode == AMBER_PM_MODE_SIM) amber_sim_attach(h);
}

enum amber_pm_mode amber_pm_mode(void) { return mode; }
const char *amber_pm_mode_name(void) {
  static const char *const names[] = {"pmem", "msync", "none", "sim"};
  return names[mode];
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

void amber_pm_flush_at(const struct amber_pm_site *site, const void *addr, size_t len, enum amber_pm_cat cat) {
  if (len == 0) return;
  if (__builtin_expect(site == planted, 0)) {
    __atomic_add_fetch(&planted_reached, 1, __ATOMIC_RELAXED);
    return;
  }
  if (mode == AMBER_PM_MODE_SIM) amber_sim_flush(addr, len);
  else event();
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
  case AMBER_PM_MODE_SIM:
    break;
  }
}

void amber_pm_fence_at(const struct amber_pm_site *site, enum amber_pm_cat cat) {
  if (__builtin_expect(site == planted, 0)) {
    __atomic_add_fetch(&planted_reached, 1, __ATOMIC_RELAXED);
    return;
  }
  if (mode == AMBER_PM_MODE_SIM) amber_sim_fence();
  else event();
  amber_pm_counters()->fences[cat]++;
  if (mode == AMBER_PM_MODE_PMEM) pmem_drain();
}

/* ---- sites and planted bugs ---- */

extern const struct amber_pm_site __start_amber_pm_sites[], __stop_amber_pm_sites[];

static int site_order(const void *a, const void *b) {
  const struct amber_pm_site *x = *(const struct amber_pm_site *const *)a, *y = *(const struct amber_pm_site *const *)b;
  int c = strcmp(x->file, y->file);
  if (c) return c;
  if (x->line != y->line) return x->line < y->line ? -1 : 1;
  return x->kind - y->kind;
}

static const struct amber_pm_site **sorted_sites;
static size_t nsites;

static void sort_sites(void) {
  nsites = (size_t)(__stop_amber_pm_sites - __start_amber_pm_sites);
  sorted_sites = malloc((nsites + 1) * sizeof *sorted_sites);
  if (!sorted_sites) amber_fatal("out of memory for the flush-site table");
  for (size_t i = 0; i < nsites; i++) sorted_sites[i] = &__start_amber_pm_sites[i];
  qsort(sorted_sites, nsites, sizeof *sorted_sites, site_order);
}

const struct amber_pm_site *const *amber_pm_sites(size_t *n) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, sort_sites);
  *n = nsites;
  return sorted_sites;
}

static void planted_report(void) {
  amber_sim_say("amber-sim: plant - %llu reached=%llu\n", (unsigned long long)amber_opt.plant,
                (unsigned long long)__atomic_load_n(&planted_reached, __ATOMIC_RELAXED));
}

static void plant_init(void) {
  if (!amber_opt.plant) return;
  size_t n;
  const struct amber_pm_site *const *sites = amber_pm_sites(&n);
  if (amber_opt.plant > n)
    amber_fatal("AMBER_PLANT=%llu: this runtime has %zu flush and fence sites; use 1..%zu (amber plant-sites lists them)",
                (unsigned long long)amber_opt.plant, n, n);
  planted = sites[amber_opt.plant - 1];
  amber_warn("AMBER_PLANT=%llu removes the %s at %s:%d (%s): a planted bug for testing the crash harness; this heap is NOT crash-safe",
             (unsigned long long)amber_opt.plant, planted->kind == AMBER_SITE_FLUSH ? "flush" : "fence", planted->file,
             planted->line, planted->func);
  if (mode == AMBER_PM_MODE_SIM) atexit(planted_report);
}
