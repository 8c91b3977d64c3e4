/* The crash simulator's recording side: stores, flushes, fences, lint and
 * the walk over crash points.  sim.h states the model. */
#include "sim.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/options.h"
#include "msync.h"

#define LINE 64u
#define PAGE 4096u

struct sim_model amber_sim;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int attached;
static uint64_t events;
static uint64_t points;     /* crash points walked */
static int durable_fd = -1; /* AMBER_SIM_DURABLE */
static uint32_t *page_pending; /* per file page: lines with pending stores */
static uint32_t next_tid;
static pid_t owner; /* the process the simulator runs in (not its walk children) */

/* Lint counters (docs/crashtest.md). */
static struct {
  uint64_t tx, redundant_flush, empty_fence, unflushed_at_commit, undurable_at_quiesce, untracked;
} lint;

/* Walk children still running, and their crash points. */
static struct kid {
  pid_t pid;
  uint64_t n;
} *kids;
static size_t nkids, kidcap;

/* A thread's flushes not yet ordered by a fence of its own. */
struct flush_rec {
  uint64_t idx, seq;
};
struct sim_thread {
  uint32_t tid;
  struct flush_rec *f;
  size_t n, cap;
};
static __thread struct sim_thread *me __attribute__((tls_model("initial-exec"))); /* initial-exec: tx/tx.h */

static void *xrealloc(void *p, size_t n) {
  p = realloc(p, n);
  if (!p) amber_fatal("out of memory in the crash simulator");
  return p;
}

static struct sim_thread *self(void) {
  if (!me) {
    me = xrealloc(NULL, sizeof *me);
    memset(me, 0, sizeof *me);
    me->tid = ++next_tid; /* under the lock */
  }
  return me;
}

/* ---- lines ---- */

static size_t hash(uint64_t idx) { return (size_t)(idx * 0x9E3779B97F4A7C15ull >> 17); }

static void tab_grow(void) {
  struct sim_model *m = &amber_sim;
  size_t cap = m->tabcap ? m->tabcap * 2 : 4096;
  struct sim_line **t = xrealloc(NULL, cap * sizeof *t);
  memset(t, 0, cap * sizeof *t);
  for (size_t i = 0; i < m->tabcap; i++) {
    struct sim_line *l = m->tab[i];
    if (!l) continue;
    size_t h = hash(l->idx);
    while (t[h & (cap - 1)]) h++;
    t[h & (cap - 1)] = l;
  }
  free(m->tab);
  m->tab = t;
  m->tabcap = cap;
}

/* Lines are never removed: a line once stored to keeps its (maybe empty)
 * record, so the table only grows with the lines a run touches. */
static struct sim_line *line_of(uint64_t idx, int create) {
  struct sim_model *m = &amber_sim;
  if (m->tabcap) {
    for (size_t h = hash(idx);; h++) {
      struct sim_line *l = m->tab[h & (m->tabcap - 1)];
      if (!l) break;
      if (l->idx == idx) return l;
    }
  }
  if (!create) return NULL;
  if (2 * (m->used + 1) > m->tabcap) tab_grow();
  struct sim_line *l = xrealloc(NULL, sizeof *l);
  memset(l, 0, sizeof *l);
  l->idx = idx;
  size_t h = hash(idx);
  while (m->tab[h & (m->tabcap - 1)]) h++;
  m->tab[h & (m->tabcap - 1)] = l;
  m->used++;
  return l;
}

/* The value the model gives word w of a line: its newest pending store, else
 * the durable value. */
static uint64_t model_word(const struct sim_line *l, uint64_t idx, unsigned w) {
  if (l)
    for (uint32_t i = l->n; i-- > 0;)
      if (l->st[i].word == w) return l->st[i].val;
  uint64_t v;
  memcpy(&v, amber_sim.durable + idx * LINE + w * 8, 8);
  return v;
}

static void push_store(struct sim_line *l, unsigned w, uint64_t val, uint32_t tid) {
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 4;
    l->st = xrealloc(l->st, l->cap * sizeof *l->st);
  }
  if (l->n == 0) page_pending[l->idx * LINE / PAGE]++;
  l->st[l->n++] = (struct sim_store){.seq = ++amber_sim.seq, .val = val, .tid = tid, .word = (uint8_t)w};
}

/* Records the stores that make the model's line equal to memory; returns
 * how many words changed. */
static unsigned sync_line(uint64_t idx, uint32_t tid) {
  const unsigned char *mem = amber_sim_mem(idx * LINE);
  struct sim_line *l = line_of(idx, 0);
  unsigned changed = 0;
  for (unsigned w = 0; w < LINE / 8; w++) {
    uint64_t v;
    memcpy(&v, mem + w * 8, 8);
    if (v == model_word(l, idx, w)) continue;
    if (!l) l = line_of(idx, 1);
    push_store(l, w, v, tid);
    changed++;
  }
  return changed;
}

/* Finds stores nobody reported: lines whose memory differs from the model. */
void amber_sim_adopt_untracked(void) {
  struct sim_model *m = &amber_sim;
  uint32_t tid = self()->tid;
  for (uint64_t pg = 0; pg < m->file_size / PAGE; pg++) {
    const unsigned char *mem = amber_sim_mem(pg * PAGE);
    if (!mem) continue;
    if (!page_pending[pg] && memcmp(mem, m->durable + pg * PAGE, PAGE) == 0) continue;
    for (uint64_t i = 0; i < PAGE / LINE; i++) lint.untracked += sync_line(pg * PAGE / LINE + i, tid);
  }
}

const unsigned char *amber_sim_mem(uint64_t off) {
  struct sim_model *m = &amber_sim;
  for (int i = 0; i < m->nreg; i++)
    if (off >= m->reg[i].file_off && off < m->reg[i].file_off + m->reg[i].len)
      return m->reg[i].addr + (off - m->reg[i].file_off);
  return NULL;
}

static int file_off(const void *addr, uint64_t *off) {
  struct sim_model *m = &amber_sim;
  const unsigned char *a = addr;
  for (int i = 0; i < m->nreg; i++)
    if (a >= m->reg[i].addr && a < m->reg[i].addr + m->reg[i].len) {
      *off = m->reg[i].file_off + (uint64_t)(a - m->reg[i].addr);
      return 1;
    }
  return 0;
}

/* ---- durability ---- */

static void make_durable(struct sim_line *l, uint64_t upto) {
  uint32_t k = 0;
  while (k < l->n && l->st[k].seq <= upto) {
    memcpy(amber_sim.durable + l->idx * LINE + l->st[k].word * 8, &l->st[k].val, 8);
    k++;
  }
  if (!k) return;
  memmove(l->st, l->st + k, (l->n - k) * sizeof *l->st);
  l->n -= k;
  if (l->n == 0) page_pending[l->idx * LINE / PAGE]--;
  if (durable_fd >= 0 &&
      pwrite(durable_fd, amber_sim.durable + l->idx * LINE, LINE, (off_t)(l->idx * LINE)) != (ssize_t)LINE)
    amber_fatal("cannot write the simulator's durable image %s; check the disk", amber_opt.sim_durable);
}

/* AMBER_SIM_WRITEBACK: does the flush of line idx up to store seq reach the
 * medium before its sync?  A seeded hash, so a run repeats. */
static int early_writeback(uint64_t idx, uint64_t seq) {
  uint64_t x = idx * 0x9E3779B97F4A7C15ull ^ seq * 0xD1B54A32D192ED03ull ^ (amber_opt.sim_seed + 1) * 0xBF58476D1CE4E5B9ull;
  x ^= x >> 31;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 29;
  return x % 100 < amber_opt.sim_writeback;
}

/* ---- events and crash points ---- */

static int selected(uint64_t n) {
  uint64_t k = amber_opt.sim_stride;
  if (k <= 1) return 1;
  uint64_t x = n * 0x9E3779B97F4A7C15ull ^ amber_opt.sim_seed * 0xBF58476D1CE4E5B9ull;
  x ^= x >> 31;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 29;
  return x % k == 0;
}

void amber_sim_say(const char *fmt, ...) {
  char buf[4608];
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (len < 0) return;
  if ((size_t)len >= sizeof buf) {
    len = (int)sizeof buf - 1;
    buf[len - 1] = '\n';
  }
  if (write(1, buf, (size_t)len) < 0) { /* stdout closed: nobody listens */
  }
}

/* A crash-point child that did not finish cleanly lost images: say so, so
 * a harness counts it instead of missing it. */
static void reaped(size_t i, int st) {
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
    amber_sim_say("amber-sim: point %llu failed status=%d\n", (unsigned long long)kids[i].n,
                  WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st));
  kids[i] = kids[--nkids];
}

/* Waits for our own children only (by pid): the program may have its own. */
static void wait_kid(int block) {
  for (size_t i = 0; i < nkids; i++) {
    int st;
    pid_t r = waitpid(kids[i].pid, &st, block && i == 0 ? 0 : WNOHANG);
    if (r == kids[i].pid) {
      reaped(i, st);
      return;
    }
    if (r < 0) { /* not ours any more */
      kids[i] = kids[--nkids];
      return;
    }
  }
}

static void crash_point(uint64_t n) {
  int crash = amber_opt.crash_at == n;
  if (!crash && !(amber_opt.sim_walk && selected(n))) return;
  if (!attached) { /* before the heap is open (nothing to image) */
    if (crash) raise(SIGKILL);
    return;
  }
  points++;
  amber_sim_adopt_untracked();
  amber_sim_say("amber-sim: point %llu\n", (unsigned long long)n);
  if (crash) {
    amber_sim_point(n);
    const char msg[] = "amber: crash injected (AMBER_CRASH_AT)\n";
    if (write(2, msg, sizeof msg - 1) < 0) {
    }
    raise(SIGKILL);
  }
  uint64_t jobs = amber_opt.sim_jobs ? amber_opt.sim_jobs : 1;
  while (nkids >= jobs) wait_kid(1);
  pid_t pid = fork();
  if (pid < 0) amber_fatal("the crash simulator cannot fork at event %llu: out of processes", (unsigned long long)n);
  if (pid == 0) {
    amber_sim_point(n);
    _exit(0);
  }
  if (nkids == kidcap) {
    kidcap = kidcap ? kidcap * 2 : 8;
    kids = xrealloc(kids, kidcap * sizeof *kids);
  }
  kids[nkids++] = (struct kid){pid, n};
}

static uint64_t event(void) {
  uint64_t n = ++events;
  crash_point(n);
  return n;
}

void amber_sim_flush(const void *addr, size_t len) {
  pthread_mutex_lock(&lock);
  event();
  if (attached) {
    struct sim_thread *t = self();
    uint64_t a, e;
    if (file_off(addr, &a) && file_off((const char *)addr + len - 1, &e)) {
      for (uint64_t idx = a / LINE; idx <= e / LINE; idx++) {
        lint.untracked += sync_line(idx, t->tid);
        struct sim_line *l = line_of(idx, 0);
        uint64_t newest = l && l->n ? l->st[l->n - 1].seq : 0;
        /* Redundant when nothing is pending, or this thread already flushed
         * every pending store (another thread's flush is not ordered by our
         * fence, so it does not make ours redundant). */
        if (!l || !l->n || (newest <= l->flushed_seq && l->flushed_tid == t->tid)) {
          lint.redundant_flush++;
          continue;
        }
        l->flushed_seq = newest;
        l->flushed_tid = t->tid;
        /* AMBER_SIM_MSYNC: made durable by the group commit's sync step
         * (msync_sync); t->f is then what amber_sim_fence_done checks. */
        if (amber_opt.sim_msync) amber_msync_record(idx, idx + 1, newest);
        /* AMBER_SIM_WRITEBACK: the page cache wrote this line back early. */
        if (amber_opt.sim_msync && amber_opt.sim_writeback && early_writeback(idx, newest)) make_durable(l, newest);
        if (t->n == t->cap) {
          t->cap = t->cap ? t->cap * 2 : 64;
          t->f = xrealloc(t->f, t->cap * sizeof *t->f);
        }
        t->f[t->n++] = (struct flush_rec){idx, newest};
      }
    }
  }
  pthread_mutex_unlock(&lock);
}

void amber_sim_fence(void) {
  pthread_mutex_lock(&lock);
  event();
  if (attached) {
    struct sim_thread *t = self();
    if (t->n == 0) lint.empty_fence++;
    if (amber_opt.sim_msync) { /* durable through the group commit (amber_pm_fence_at) */
      pthread_mutex_unlock(&lock);
      return;
    }
    for (size_t i = 0; i < t->n; i++) {
      struct sim_line *l = line_of(t->f[i].idx, 0);
      if (l) make_durable(l, t->f[i].seq);
    }
    t->n = 0;
  }
  pthread_mutex_unlock(&lock);
}

/* AMBER_SIM_MSYNC: the msync backend's sync step in the model.  Each range
 * is one line and the newest store its flush covered: those stores become
 * durable, and no more (the real msync may write later stores too, which
 * the model's images already allow). */
static unsigned msync_sync(const struct amber_msync_range *r, size_t n) {
  /* A real sync takes a while, and fences that arrive meanwhile group
   * behind it: yield, so a multi-threaded run under the simulator takes
   * that path too (the soak's --sim --msync), not only the leader's. */
  sched_yield();
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < n; i++)
    for (uintptr_t idx = r[i].start; idx < r[i].end; idx++) {
      struct sim_line *l = line_of(idx, 0);
      if (l) make_durable(l, r[i].tag);
    }
  pthread_mutex_unlock(&lock);
  return 1;
}

/* AMBER_SIM_MSYNC with the sync journal: a range is a line index. */
static size_t journal_extents(const struct amber_msync_range *r, size_t n, struct amber_msync_file_range *x) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    const unsigned char *a = amber_sim_mem(r[i].start * LINE);
    if (!a) AMBER_BUG("simulator: a journaled range (file offset %llu) lies outside the heap's mappings",
                      (unsigned long long)(r[i].start * LINE));
    x[k++] = (struct amber_msync_file_range){(uintptr_t)a, r[i].start * LINE, (r[i].end - r[i].start) * LINE};
  }
  return k;
}

/* The journal's own bytes: recorded as stores and durable at once (the
 * real backend's msync of the span returns after they are on the medium). */
static void journal_persist(const void *addr, size_t len) {
  sched_yield(); /* as msync_sync: let fences arrive during the sync */
  pthread_mutex_lock(&lock);
  uint64_t a, e;
  if (!file_off(addr, &a) || !file_off((const char *)addr + len - 1, &e))
    AMBER_BUG("simulator: the sync journal [%p, +%zu) lies outside the heap's mappings", addr, len);
  uint32_t tid = self()->tid;
  for (uint64_t idx = a / LINE; idx <= e / LINE; idx++) {
    sync_line(idx, tid);
    struct sim_line *l = line_of(idx, 0);
    if (l && l->n) make_durable(l, l->st[l->n - 1].seq);
  }
  pthread_mutex_unlock(&lock);
}

static void journal_covered(const struct amber_msync_range *r, size_t n) {
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < n; i++)
    for (uintptr_t idx = r[i].start; idx < r[i].end; idx++) {
      struct sim_line *l = line_of(idx, 0);
      if (l && r[i].tag > l->journaled) l->journaled = r[i].tag;
    }
  pthread_mutex_unlock(&lock);
}

const struct amber_msync_journal_ops amber_sim_journal_ops = {journal_extents, journal_persist, journal_covered};

/* AMBER_SIM_MSYNC: this thread's fence returned from the group commit.
 * Every store its flushes covered must be durable now; one that is not
 * means the group commit let a fence return before a sync covered it. */
void amber_sim_fence_done(void) {
  pthread_mutex_lock(&lock);
  struct sim_thread *t = self();
  for (size_t i = 0; i < t->n; i++) {
    struct sim_line *l = line_of(t->f[i].idx, 0);
    if (l && l->n && l->st[0].seq <= t->f[i].seq && l->journaled < t->f[i].seq)
      AMBER_BUG("simulator: a fence returned before the msync backend synced file offset %llu (store %llu, flushed "
                "by this thread): the group commit broke its ordering (runtime/pm/msync.c)",
                (unsigned long long)(t->f[i].idx * LINE), (unsigned long long)l->st[0].seq);
  }
  t->n = 0;
  pthread_mutex_unlock(&lock);
}

void amber_pm_sim_wrote(const void *addr, size_t len) {
  if (!len) return;
  pthread_mutex_lock(&lock);
  uint64_t a, e;
  if (attached && file_off(addr, &a) && file_off((const char *)addr + len - 1, &e)) {
    uint32_t tid = self()->tid;
    for (uint64_t idx = a / LINE; idx <= e / LINE; idx++) sync_line(idx, tid);
  }
  pthread_mutex_unlock(&lock);
}

/* Lines with pending stores; with `tid`, only stores of that thread not
 * covered by a flush. */
static uint64_t count_pending(uint32_t tid) {
  uint64_t n = 0;
  for (size_t i = 0; i < amber_sim.tabcap; i++) {
    struct sim_line *l = amber_sim.tab[i];
    if (!l || !l->n) continue;
    if (!tid) { /* durable through the sync journal counts (msync.c) */
      if (l->st[l->n - 1].seq > l->journaled) n++;
      continue;
    }
    for (uint32_t k = 0; k < l->n; k++)
      if (l->st[k].tid == tid && l->st[k].seq > l->flushed_seq) {
        n++;
        break;
      }
  }
  return n;
}

void amber_pm_sim_quiesce(enum amber_pm_quiesce q) {
  pthread_mutex_lock(&lock);
  if (attached) {
    if (q == AMBER_QUIESCE_TX) {
      lint.tx++;
      lint.unflushed_at_commit += count_pending(self()->tid);
    } else {
      amber_sim_adopt_untracked();
      uint64_t n = count_pending(0);
      lint.undurable_at_quiesce += n;
      if (n && amber_opt.verbose)
        amber_info("simulator: %llu lines not durable at %s", (unsigned long long)n, q == AMBER_QUIESCE_OPEN ? "open" : "close");
    }
  }
  pthread_mutex_unlock(&lock);
}

/* ---- life cycle ---- */

static void report(void) {
  if (getpid() != owner || !attached) return; /* walk children and heapless tools have nothing to say */
  pthread_mutex_lock(&lock);
  while (nkids) wait_kid(1);
  amber_sim_say("amber-sim: lint - tx=%llu redundant-flush=%llu empty-fence=%llu unflushed-at-commit=%llu "
                "undurable-at-quiesce=%llu untracked=%llu\n",
                (unsigned long long)lint.tx, (unsigned long long)lint.redundant_flush,
                (unsigned long long)lint.empty_fence, (unsigned long long)lint.unflushed_at_commit,
                (unsigned long long)lint.undurable_at_quiesce, (unsigned long long)lint.untracked);
  amber_sim_say("amber-sim: walk events=%llu points=%llu\n", (unsigned long long)events, (unsigned long long)points);
  pthread_mutex_unlock(&lock);
}

void amber_sim_init(void) {
  owner = getpid();
  if (amber_opt.sim_walk && amber_opt.crash_at)
    amber_fatal("AMBER_SIM_WALK=1 and AMBER_CRASH_AT=%llu both choose crash points; set only one",
                (unsigned long long)amber_opt.crash_at);
  if (amber_opt.sim_writeback > 100)
    amber_fatal("AMBER_SIM_WRITEBACK=%llu is not a percentage; use 0 to 100 (the share of flushed lines written back before "
                "their sync)", (unsigned long long)amber_opt.sim_writeback);
  if (amber_opt.sim_writeback && !amber_opt.sim_msync)
    amber_fatal("AMBER_SIM_WRITEBACK models the msync backend's page cache; set AMBER_SIM_MSYNC=1 with it, or unset it");
  if (amber_opt.sim_msync && amber_opt.sim_eadr)
    amber_fatal("AMBER_SIM_MSYNC=1 and AMBER_SIM_EADR=1 model two different media (a file synced by msync, durable "
                "caches); set only one");
  atexit(report);
}

void amber_sim_attach(const char *path, uint64_t file_size, const struct amber_pm_region *reg, int nreg) {
  pthread_mutex_lock(&lock);
  struct sim_model *m = &amber_sim;
  m->file_size = file_size;
  m->durable = malloc(m->file_size);
  page_pending = calloc(m->file_size / PAGE, sizeof *page_pending);
  if (!m->durable || !page_pending)
    amber_fatal("the crash simulator needs %llu bytes for heap %s; use a smaller AMBER_HEAP_SIZE for simulation",
                (unsigned long long)m->file_size, path);
  if (nreg > AMBER_PM_MAX_REGIONS) AMBER_BUG("the simulator models at most %d mappings of a heap, not %d", AMBER_PM_MAX_REGIONS, nreg);
  for (int i = 0; i < nreg; i++) {
    m->reg[i].addr = reg[i].addr;
    m->reg[i].len = reg[i].len;
    m->reg[i].file_off = reg[i].file_off;
  }
  m->nreg = nreg;
  /* What the file holds at open is durable: nothing wrote it since. */
  for (int i = 0; i < m->nreg; i++) memcpy(m->durable + m->reg[i].file_off, m->reg[i].addr, m->reg[i].len);
  if (amber_opt.sim_durable[0]) {
    /* Complete before it has its name: a kill while it is written leaves
     * no durable image (the heap file is then still the durable state),
     * never a short one. */
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", amber_opt.sim_durable, (int)getpid());
    durable_fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (durable_fd < 0 || pwrite(durable_fd, m->durable, m->file_size, 0) != (ssize_t)m->file_size ||
        rename(tmp, amber_opt.sim_durable) != 0)
      amber_fatal("cannot write the simulator's durable image AMBER_SIM_DURABLE=%s; check the directory", amber_opt.sim_durable);
  }
  attached = 1;
  pthread_mutex_unlock(&lock);
  if (amber_opt.sim_msync) amber_msync_attach_fn(msync_sync);
}
