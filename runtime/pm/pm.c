/* The persistence backend: flushes and fences in modes pmem, fence, msync,
 * none and sim (AMBER_PM=auto picks one from the heap's medium), their counters by category, latency emulation, crash injection
 * and planted bugs at named sites. */
#include "pm.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "base/diag.h"
#include "base/options.h"
#include "durability.h"
#include "libpmem.h"
#include "msync.h"
#include "ordo/cpu.h"
#include "sim.h"

#define LINE 64u

const char *const amber_pm_cat_name[AMBER_PM_NCAT] = {"data", "log", "checkpoint", "allocator", "header"};

static enum amber_pm_mode mode = AMBER_PM_MODE_PMEM;
static int mode_auto;                 /* AMBER_PM=auto: amber_pm_open picks the mode */
static int medium_known;              /* amber_pm_open ran: `medium` is the heap's */
static struct amber_pm_medium medium;
static uint64_t crash_at;        /* AMBER_CRASH_AT, 0 = off */
static uint64_t events;          /* persistence events so far (atomic) */
int amber_pm_simulating;
static void plant_init(void);
static const struct amber_pm_site *planted; /* AMBER_PLANT: this site does nothing */
static uint64_t planted_reached;

/* Slow-PM emulation (AMBER_PM_WRITE_NS, AMBER_PM_FENCE_NS): a busy-wait per
 * line flushed and per fence.  Invariant: emulating is nonzero only when a
 * delay is set and the mode is pmem or msync, so with both delays 0 the hot
 * paths pay one predictable branch on it. */
static int emulating;
static uint64_t write_ns, fence_ns;
static uint64_t tsc_khz; /* 0: spin on CLOCK_MONOTONIC instead of the TSC */
static uint64_t write_cycles, fence_cycles; /* the delays in TSC cycles */

/* Counters live in a per-thread block that is never freed, so stats can sum
 * the counters of threads that have exited. */
struct counter_block {
  struct amber_pm_counters c;
  struct counter_block *next;
  int free; /* its thread ended: the next new thread adds to it */
};
static struct counter_block *blocks;
static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;
/* Initial-exec: libamber is loaded with the program, never dlopen'ed (tx/tx.h): no
 * __tls_get_addr call per fence or flush, nor per region (tx.c counts both). */
static __thread struct counter_block *self __attribute__((tls_model("initial-exec")));
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

__thread struct amber_pm_counters *amber_pm_mine __attribute__((tls_model("initial-exec"))); /* &self->c */

static void block_exit(void *arg) {
  struct counter_block *b = arg;
  self = NULL;
  amber_pm_mine = NULL;
  __atomic_store_n(&b->free, 1, __ATOMIC_RELEASE);
}

static void make_exit_key(void) {
  if (pthread_key_create(&exit_key, block_exit) != 0) amber_fatal("cannot create a thread-exit key");
}

struct amber_pm_counters *amber_pm_counters_slow(void) {
  if (self != NULL) return &self->c;
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
  amber_pm_mine = &b->c;
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
    out->all_flushes += __atomic_load_n(&b->c.all_flushes, __ATOMIC_RELAXED);
    out->all_fences += __atomic_load_n(&b->c.all_fences, __ATOMIC_RELAXED);
  }
  pthread_mutex_unlock(&blocks_lock);
  out->syncs = amber_msync_syncs();
  amber_msync_gather_counts(out->sync_gathers);
  amber_msync_sync_counts(out->sync_steps);
}

static uint64_t ns_to_cycles(uint64_t ns) { return (ns * tsc_khz + 500000) / 1000000; }

/* At start-up: the delays are checked before any heap is touched. */
static void emulation_check(void) {
  write_ns = amber_opt.pm_write_ns;
  fence_ns = amber_opt.pm_fence_ns;
  if (write_ns > AMBER_PM_DELAY_MAX_NS)
    amber_fatal("AMBER_PM_WRITE_NS=%s is more than %u ns; use a delay per cache line in nanoseconds, e.g. 140 (STT-RAM) "
                "or 340 (PCM)", secure_getenv("AMBER_PM_WRITE_NS"), AMBER_PM_DELAY_MAX_NS);
  if (fence_ns > AMBER_PM_DELAY_MAX_NS)
    amber_fatal("AMBER_PM_FENCE_NS=%s is more than %u ns; use a delay per fence in nanoseconds, e.g. 200 (STT-RAM) "
                "or 500 (PCM)", secure_getenv("AMBER_PM_FENCE_NS"), AMBER_PM_DELAY_MAX_NS);
}

/* Once the mode is known: the backends that flush or fence through libpmem
 * load it now (before any flush), the others never do. */
static void load_backend(void) {
  if (mode == AMBER_PM_MODE_PMEM || mode == AMBER_PM_MODE_FENCE)
    amber_pmem_load(mode == AMBER_PM_MODE_PMEM ? "the pmem backend" : "the fence backend");
}

/* Once the mode is known. */
static void emulation_start(void) {
  emulating = 0;
  if (!(write_ns | fence_ns) || (mode != AMBER_PM_MODE_PMEM && mode != AMBER_PM_MODE_MSYNC)) return;
  /* The TSC counts time only when it is invariant; otherwise (or when its
   * frequency cannot be had) spin on the monotonic clock. */
  tsc_khz = amber_ordo_cpu_invariant_tsc() ? amber_ordo_cpu_tsc_khz() : 0;
  write_cycles = ns_to_cycles(write_ns);
  fence_cycles = ns_to_cycles(fence_ns);
  emulating = 1;
  amber_info("slow-PM emulation: %llu ns per line flushed, %llu ns per fence (%s)", (unsigned long long)write_ns,
             (unsigned long long)fence_ns, tsc_khz ? "TSC spin" : "clock spin");
}

/* Busy-waits n units of `ns` nanoseconds (`cycles` TSC cycles). */
static __attribute__((noinline)) void emulate_delay(uint64_t n, uint64_t ns, uint64_t cycles) {
  if (tsc_khz) {
    uint64_t want, t0 = __rdtsc();
    if (__builtin_mul_overflow(n, cycles, &want)) want = UINT64_MAX;
    while (__rdtsc() - t0 < want) /* no pause: it would overshoot short delays by up to ~50 ns */
      ;
    return;
  }
  uint64_t want;
  if (__builtin_mul_overflow(n, ns, &want)) want = UINT64_MAX;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t t0 = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec, now;
  do {
    clock_gettime(CLOCK_MONOTONIC, &ts);
    now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  } while (now - t0 < want);
}

int amber_pm_emulating(void) { return emulating; }

const char *const amber_pm_mode_names[AMBER_PM_NMODES] = {"pmem", "msync", "none", "sim", "fence"};

int amber_pm_mode_parse(const char *name, enum amber_pm_mode *m, int *is_auto) {
  *is_auto = !strcmp(name, "auto");
  if (*is_auto) return 0;
  for (int i = 0; i < AMBER_PM_NMODES; i++)
    if (!strcmp(name, amber_pm_mode_names[i])) {
      *m = (enum amber_pm_mode)i;
      return 0;
    }
  return -1;
}

void amber_pm_init(void) {
  const char *m = amber_opt.pm;
  if (amber_pm_mode_parse(m, &mode, &mode_auto) != 0)
    amber_fatal("AMBER_PM=%s is not a persistence backend; use auto (the default: chosen from the heap file's medium), pmem, "
                "fence, msync, none or sim", m);
  if (mode_auto) mode = AMBER_PM_MODE_NONE;
  amber_pm_medium_check_option();
  crash_at = amber_opt.crash_at;
  if (amber_opt.pm_group_wait > 1000)
    amber_fatal("AMBER_PM_GROUP_WAIT=%llu is out of range; give a percentage of the mean sync time from 0 (never wait) to 1000 "
                "(the default is 50)", (unsigned long long)amber_opt.pm_group_wait);
  amber_msync_set_gather((unsigned)amber_opt.pm_group_wait, 0);
  if (amber_opt.pm_msync_parallel < 1 || amber_opt.pm_msync_parallel > 64)
    amber_fatal("AMBER_PM_MSYNC_PARALLEL=%llu is out of range; give how many syncs of the msync backend may run at once, "
                "from 1 (one at a time, the default) to 64", (unsigned long long)amber_opt.pm_msync_parallel);
  amber_msync_set_parallel((unsigned)amber_opt.pm_msync_parallel);
  amber_msync_check_option();
  if (mode == AMBER_PM_MODE_SIM) {
    amber_sim_init();
    amber_pm_simulating = 1;
  }
  emulation_check();
  if (!mode_auto) {
    load_backend();
    emulation_start();
  }
  plant_init();
}

int amber_pm_open(int fd) {
  amber_pm_medium_detect(fd, &medium);
  medium_known = 1;
  if (mode_auto) {
    mode = amber_pm_auto_mode(&medium);
    load_backend();
    emulation_start();
  }
  /* MAP_SYNC makes a write fault sync the file system's metadata of the
   * block first, so flushed cache lines alone are durable; the override
   * (AMBER_PM_MEDIUM) on a file that refuses it maps without. */
  int flushes_lines = mode == AMBER_PM_MODE_PMEM || mode == AMBER_PM_MODE_FENCE;
  return medium.map_sync && flushes_lines ? MAP_SHARED_VALIDATE | MAP_SYNC : MAP_SHARED;
}

const struct amber_pm_medium *amber_pm_medium(void) { return medium_known ? &medium : NULL; }
int amber_pm_auto(void) { return mode_auto; }

void amber_pm_attach(const char *path, int fd, uint64_t file_size, const struct amber_pm_region *reg, int nreg) {
  if (medium_known && !mode_auto) amber_pm_warn_power_loss(path, &medium, mode);
  if (mode == AMBER_PM_MODE_SIM) amber_sim_attach(path, file_size, reg, nreg);
  if (mode == AMBER_PM_MODE_MSYNC) amber_msync_attach(path, fd, reg, nreg, medium_known && medium.map_sync);
}

/* The crash simulator's model of the msync backend (AMBER_SIM_MSYNC). */
static int sim_msync(void) { return mode == AMBER_PM_MODE_SIM && amber_opt.sim_msync; }

void amber_pm_journal_attach(char *map, uint64_t file_off, uint64_t size, uint64_t epoch, int slot) {
  if (amber_opt.pm_journal && (mode == AMBER_PM_MODE_MSYNC || sim_msync()))
    amber_msync_journal_attach(map, file_off, size, epoch, slot, sim_msync() ? &amber_sim_journal_ops : NULL);
}

void amber_pm_journal_close(void) {
  if (mode == AMBER_PM_MODE_MSYNC || sim_msync()) amber_msync_journal_close();
}

void amber_pm_detach(int fd) {
  if (mode == AMBER_PM_MODE_MSYNC) amber_msync_detach(fd);
  /* The model's journal mapping goes with the heap: nothing may sync
   * through it after this (the real backend's detach ends it). */
  if (sim_msync()) amber_msync_journal_close();
}

enum amber_pm_mode amber_pm_mode(void) { return mode; }
const char *amber_pm_mode_name(void) { return mode_auto && !medium_known ? "auto" : amber_pm_mode_names[mode]; }

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
  c->all_flushes += lines;
  c->flushed_bytes += lines * LINE;
  switch (mode) {
  case AMBER_PM_MODE_PMEM:
    amber_pmem_flush((const void *)a, e - a);
    break;
  case AMBER_PM_MODE_MSYNC: /* recorded; the fence syncs (msync.c) */
    /* By the line: the sync journal copies exactly these bytes; a sync
     * in place rounds to pages (msync.c, file_sync). */
    amber_msync_record(a, (e + LINE - 1) & ~(uintptr_t)(LINE - 1), 0);
    break;
  case AMBER_PM_MODE_NONE:
  case AMBER_PM_MODE_SIM:
  case AMBER_PM_MODE_FENCE: /* the platform writes caches back on power loss */
  case AMBER_PM_NMODES:
    break;
  }
  if (__builtin_expect(emulating, 0) && write_ns) emulate_delay(lines, write_ns, write_cycles);
}

void amber_pm_fence_at(const struct amber_pm_site *site, enum amber_pm_cat cat) {
  if (__builtin_expect(site == planted, 0)) {
    __atomic_add_fetch(&planted_reached, 1, __ATOMIC_RELAXED);
    return;
  }
  if (mode == AMBER_PM_MODE_SIM) amber_sim_fence();
  else event();
  struct amber_pm_counters *c = amber_pm_counters();
  c->fences[cat]++;
  c->all_fences++;
  if (mode == AMBER_PM_MODE_PMEM || mode == AMBER_PM_MODE_FENCE) amber_pmem_drain();
  else if (mode == AMBER_PM_MODE_MSYNC) amber_msync_fence();
  else if (mode == AMBER_PM_MODE_SIM && amber_opt.sim_msync) {
    amber_msync_fence();
    amber_sim_fence_done();
  }
  if (__builtin_expect(emulating, 0) && fence_ns) emulate_delay(1, fence_ns, fence_cycles);
}

/* The fence in two halves (pm.h).  Only the msync backend and the
 * simulator's model of it defer: every other mode fences in publish. */
int amber_pm_tickets(void) { return mode == AMBER_PM_MODE_MSYNC || (mode == AMBER_PM_MODE_SIM && amber_opt.sim_msync); }

uint64_t amber_pm_fence_publish_at(const struct amber_pm_site *site, enum amber_pm_cat cat) {
  if (!amber_pm_tickets()) {
    amber_pm_fence_at(site, cat);
    return 0;
  }
  if (__builtin_expect(site == planted, 0)) {
    __atomic_add_fetch(&planted_reached, 1, __ATOMIC_RELAXED);
    return 0;
  }
  if (mode == AMBER_PM_MODE_SIM) amber_sim_fence();
  else event();
  struct amber_pm_counters *c = amber_pm_counters();
  c->fences[cat]++;
  c->all_fences++;
  uint64_t k = amber_msync_publish();
  if (__builtin_expect(emulating, 0) && fence_ns) emulate_delay(1, fence_ns, fence_cycles);
  return k;
}

void amber_pm_fence_wait(uint64_t ticket) {
  if (!ticket) return;
  amber_msync_wait(ticket);
  if (mode == AMBER_PM_MODE_SIM) amber_sim_fence_done();
}

void amber_pm_fence_wait_now(uint64_t ticket) {
  if (!ticket) return;
  amber_msync_wait_now(ticket);
  if (mode == AMBER_PM_MODE_SIM) amber_sim_fence_done();
}

int amber_pm_fence_durable(uint64_t ticket) { return !ticket || amber_msync_durable(ticket); }

void amber_pm_group_enter(void) {
  if (amber_pm_tickets()) amber_msync_enter();
}

void amber_pm_group_leave(void) {
  if (amber_pm_tickets()) amber_msync_leave();
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
