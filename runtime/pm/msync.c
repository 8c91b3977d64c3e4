/* The msync backend: per-thread dirty ranges recorded at flushes, made
 * durable at fences by group commit (one leader syncs every waiting
 * thread's ranges at once).  msync.h states the interface,
 * docs/engines/msync.md the contract and the ordering argument. */
#include "msync.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/options.h"
#include "journal.h"

/* ---- the group commit ----
 *
 * Ordering argument (docs/engines/msync.md, "Why a fence's ranges are
 * durable when it returns"):
 *
 *   A fence appends its thread's ranges to `pending` and reads `want =
 *   started + 1` in one critical section.  A sync takes `pending` and
 *   increments `started` in one critical section, so the sync numbered
 *   `want` is the first to start after the append and takes every range
 *   appended before it, the fence's included.  Syncs run one at a time and
 *   may overlap (at most `parallel` of them: numbers in (completed,
 *   started]), but `completed` is the largest number up to which every
 *   sync has completed, so `completed >= want` means sync `want` has
 *   completed.  The fence returns only then.
 *
 * Invariant: pending holds exactly the ranges of fences that have not
 * returned and whose sync has not started; started - completed <=
 * parallel; done[g % MSYNC_MAX_PARALLEL] is 1 exactly for the syncs g in
 * (completed, started] that have completed. */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static uint64_t started, completed; /* syncs numbered from 1 */
static int running;                 /* syncs in progress */
static int leading;                 /* a leader has not taken pending yet (it gathers) */
#define MSYNC_MAX_PARALLEL 64
static unsigned parallel = 1;       /* AMBER_PM_MSYNC_PARALLEL: syncs that may run at once */
static unsigned char done[MSYNC_MAX_PARALLEL];
static unsigned waiting;
static struct amber_msync_range *pending, *spare;
static size_t npending, cap_pending, cap_spare;
static amber_msync_sync_fn sync_fn; /* NULL: not attached */
/* Odd while attached; each attach and detach changes it, so a range
 * recorded for one heap is never synced against another. */
static uint64_t epoch;
/* Syncs issued, for the statistics only: nothing is ordered by it, so its
 * increments and reads are relaxed (stats sum it after the threads it
 * reports on have been joined or may read a slightly old count). */
static uint64_t syncs;

/* ---- the leader's gathering wait (docs/engines/msync.md, "Gathering")
 *
 * Siblings a leader waits for: *writers*, the threads between
 * amber_msync_enter (mvcc: an update transaction's first write) and their
 * next publish, wait or leave (`inflight`); and the *expected*, the
 * threads that published into the last completed sync and have neither
 * published nor waited since (`returned`; only until the next sync
 * starts).  A leader of a ticket wait that finds a sibling holds the
 * leadership (`running`) without taking `pending` yet, and waits on
 * gather_cond until `gather_done` (set by whoever brought both counts to 0
 * while it gathered) or until gather_bound_ns() has passed; then it takes
 * `pending` and syncs as before.  Publishes during the wait get ticket
 * started + 1, the sync it is about to start.  The wait is bounded, holds
 * no lock anyone needs to publish, and a leader that finds no sibling does
 * not wait. */
static unsigned inflight;           /* atomic */
/* Under the lock: the sync numbered expect_gen completed last; `returned`
 * of the `members` that published into it have not published since; they
 * are expected at the next sync's gathering only.  `members` counts the
 * publications since the last sync started. */
static unsigned returned, members;
static uint64_t expect_gen;
static int gathering;               /* atomic; written under the lock */
static int gather_done;             /* under the lock */
static pthread_cond_t gather_cond = PTHREAD_COND_INITIALIZER;
static uint64_t sync_ewma_ns;       /* under the lock: mean sync duration, EWMA 1/8 */
static unsigned gather_pct;         /* the bound as a percentage of sync_ewma_ns; 0: never wait */
static uint64_t gather_fixed_ns;    /* tests: a fixed bound instead */
static uint64_t gathers, gathers_full, gathers_timeout; /* under the lock */
static uint64_t sync_ns_total, gather_ns_total;           /* under the lock */
/* Under the lock: the last gathering ran to its bound, so the next one
 * waits for writers only (expected threads may have gone idle: a server
 * thread waiting for its next request costs one bounded wait, not one per
 * sync). */
static int expect_off;

struct msync_thread {
  struct amber_msync_range *r;
  size_t n, cap;
  uint64_t epoch;
  int busy;            /* counted in inflight */
  uint64_t last_ticket; /* of this thread's last publication (under the lock) */
};
static __thread struct msync_thread *me __attribute__((tls_model("initial-exec"))); /* initial-exec: tx/tx.h */
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static void leave(struct msync_thread *t, int locked);
static void unexpect_locked(struct msync_thread *t);
static void gather_check_locked(void);

static void thread_exit(void *arg) {
  struct msync_thread *t = arg;
  pthread_mutex_lock(&lock);
  unexpect_locked(t);
  leave(t, 1);
  gather_check_locked();
  pthread_mutex_unlock(&lock);
  me = NULL;
  free(t->r);
  free(t);
}

static void make_exit_key(void) {
  if (pthread_key_create(&exit_key, thread_exit) != 0) amber_fatal("cannot create a thread-exit key");
}

static void *grow(void *p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return p;
  size_t c = *cap ? *cap : 16;
  while (c < need) c *= 2;
  p = realloc(p, c * size);
  if (!p) amber_fatal("out of memory for the msync backend's dirty ranges");
  *cap = c;
  return p;
}

static struct msync_thread *self(void) {
  if (__builtin_expect(me != NULL, 1)) return me;
  pthread_once(&exit_key_once, make_exit_key);
  struct msync_thread *t = calloc(1, sizeof *t);
  if (!t) amber_fatal("out of memory for the msync backend's dirty ranges");
  me = t;
  pthread_setspecific(exit_key, t);
  return t;
}

uint64_t amber_msync_syncs(void) { return __atomic_load_n(&syncs, __ATOMIC_RELAXED); }

unsigned amber_msync_waiting(void) {
  pthread_mutex_lock(&lock);
  unsigned w = waiting;
  pthread_mutex_unlock(&lock);
  return w;
}

static void direct_sync(uintptr_t start, uintptr_t end);

void amber_msync_record(uintptr_t start, uintptr_t end, uint64_t tag) {
  uint64_t ep = __atomic_load_n(&epoch, __ATOMIC_ACQUIRE);
  if (!(ep & 1)) { /* no heap attached: nothing to defer to */
    direct_sync(start, end);
    return;
  }
  struct msync_thread *t = self();
  if (t->epoch != ep) {
    t->n = 0;
    t->epoch = ep;
  }
  /* Flushes of one commit repeat and touch each other: merge with the
   * last few ranges instead of growing the list. */
  for (size_t i = t->n, k = 0; i-- > 0 && k < 4; k++) {
    struct amber_msync_range *x = &t->r[i];
    if (x->start == start && x->end == end) {
      if (tag > x->tag) x->tag = tag;
      return;
    }
    if (x->tag == tag && start <= x->end && x->start <= end) {
      if (start < x->start) x->start = start;
      if (end > x->end) x->end = end;
      return;
    }
  }
  t->r = grow(t->r, &t->cap, t->n + 1, sizeof *t->r);
  t->r[t->n++] = (struct amber_msync_range){start, end, tag};
}

/* Sync tickets: publishing appends the thread's ranges to `pending` and
 * takes ticket `started + 1` in one critical section (the sync numbered so
 * is the first to start after the append and takes them); waiting returns
 * once `completed` reaches the ticket.  A waiter leads a sync itself when
 * none runs, so every ticket someone waits for gets its sync from that
 * waiter or an earlier leader: nothing waits for a thread that is not
 * waiting too (docs/engines/msync.md, "Tickets"). */
uint64_t amber_msync_publish(void) {
  struct msync_thread *t = me;
  if (!t) return 0;
  if (!t->n) {
    leave(t, 0);
    return 0;
  }
  pthread_mutex_lock(&lock);
  if (t->epoch != epoch) { /* recorded for a heap that closed (its detach synced what waited) */
    t->n = 0;
    leave(t, 1);
    pthread_mutex_unlock(&lock);
    return 0;
  }
  pending = grow(pending, &cap_pending, npending + t->n, sizeof *pending);
  memcpy(pending + npending, t->r, t->n * sizeof *t->r);
  npending += t->n;
  t->n = 0;
  uint64_t want = started + 1; /* the first sync to start from now on takes our ranges */
  unexpect_locked(t);
  if (t->last_ticket != want) members++; /* a thread counts once per sync */
  t->last_ticket = want;
  leave(t, 1);
  gather_check_locked();
  pthread_mutex_unlock(&lock);
  return want;
}

int amber_msync_durable(uint64_t ticket) { return __atomic_load_n(&completed, __ATOMIC_ACQUIRE) >= ticket; }

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void amber_msync_enter(void) {
  struct msync_thread *t = self();
  if (t->busy) return;
  t->busy = 1;
  __atomic_add_fetch(&inflight, 1, __ATOMIC_SEQ_CST);
}

/* A gathering leader's wait ends once nobody is in flight or expected. */
static void gather_check_locked(void) {
  if (gathering && (expect_off || !returned) && !__atomic_load_n(&inflight, __ATOMIC_SEQ_CST)) {
    gather_done = 1;
    pthread_cond_broadcast(&gather_cond);
  }
}

/* The calling thread publishes, or ends: it is no longer expected. */
static void unexpect_locked(struct msync_thread *t) {
  if (expect_gen && t->last_ticket == expect_gen) {
    if (returned) returned--;
    t->last_ticket = 0;
  }
}

/* A leave that empties inflight while a leader gathers ends its wait.
 * Dekker with the leader: it sets `gathering`, then reads inflight; we
 * decrement inflight, then read `gathering` (all seq_cst), so either it
 * reads our decrement or we read its flag and check under the lock (which
 * it holds from its own check until it sleeps). */
static void leave(struct msync_thread *t, int locked) {
  if (!t || !t->busy) return;
  t->busy = 0;
  if (__atomic_sub_fetch(&inflight, 1, __ATOMIC_SEQ_CST) != 0 || !__atomic_load_n(&gathering, __ATOMIC_SEQ_CST)) return;
  if (!locked) pthread_mutex_lock(&lock);
  gather_check_locked();
  if (!locked) pthread_mutex_unlock(&lock);
}

/* An update transaction ended without publishing (an abort, nothing to
 * publish). */
void amber_msync_leave(void) { leave(me, 0); }

void amber_msync_set_gather(unsigned pct, uint64_t fixed_ns) {
  pthread_mutex_lock(&lock);
  gather_pct = pct;
  gather_fixed_ns = fixed_ns;
  pthread_mutex_unlock(&lock);
}

/* With the lock held: how long a leader may gather; 0: not at all. */
static uint64_t gather_bound_ns(void) {
  if (!gather_pct) return 0;
  if (gather_fixed_ns) return gather_fixed_ns;
  uint64_t b = sync_ewma_ns / 100 * gather_pct;
  return b < 100000000u ? b : 100000000u; /* at most 0.1 s, whatever the disk did */
}

/* With the lock held and `running` set by the caller: waits, bounded, for
 * the threads in flight to publish (see the comment at `inflight`). */
static void gather(void) {
  uint64_t bound = gather_bound_ns();
  if (!bound) return;
  __atomic_store_n(&gathering, 1, __ATOMIC_SEQ_CST);
  gather_done = 0;
  if ((!expect_off && returned) || __atomic_load_n(&inflight, __ATOMIC_SEQ_CST) != 0) {
    gathers++;
    uint64_t g0 = now_ns();
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl); /* pthread_cond_timedwait's clock */
    uint64_t ns = (uint64_t)dl.tv_nsec + bound;
    dl.tv_sec += (time_t)(ns / 1000000000u);
    dl.tv_nsec = (long)(ns % 1000000000u);
    int rc = 0;
    while (!gather_done && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&gather_cond, &lock, &dl);
    if (gather_done) gathers_full++;
    else gathers_timeout++;
    gather_ns_total += now_ns() - g0;
    expect_off = !gather_done;
  } else {
    expect_off = 0;
  }
  __atomic_store_n(&gathering, 0, __ATOMIC_SEQ_CST);
}

/* may_gather: a ticket wait (the caller holds no lock a sibling needs);
 * a plain fence never gathers (romulus and non-ELR commits hold their
 * locks across it). */
static unsigned sync_step(amber_msync_sync_fn fn, const struct amber_msync_range *r, size_t n);

static void wait_ticket(uint64_t want, int may_gather) {
  leave(me, 0); /* a waiter is not in flight: nobody gathers for it */
  if (!want || amber_msync_durable(want)) return;
  pthread_mutex_lock(&lock);
  /* Completed since the check above: no wait at all, so no change to who
   * is expected (the thread that just published into that sync stays
   * expected at the next one; counting this as a new wait took it out,
   * and test/unit/msync_group.c's gather round 3 then synced alone). */
  if (completed >= want) {
    pthread_mutex_unlock(&lock);
    return;
  }
  if (me) { /* waits for a sync: not expected at one (a read-only transaction waiting for what it read, say) */
    unexpect_locked(me);
    gather_check_locked();
  }
  while (completed < want) {
    /* Lead only when the sync that takes our ranges has not started yet
     * (want > started: a running one took them otherwise) and fewer than
     * `parallel` syncs are in progress or completed out of order. */
    if (want <= started || started - completed >= parallel || leading) {
      waiting++;
      pthread_cond_wait(&done_cond, &lock);
      waiting--;
      continue;
    }
    /* Lead: gather the siblings in flight (one sync at a time only), then
     * take every waiting thread's ranges and sync them at once. */
    running++;
    leading = 1; /* until it takes pending: the next sync is this one */
    if (may_gather && parallel == 1) gather();
    leading = 0;
    uint64_t gen = ++started;
    returned = 0; /* those not back by now are not waited for again */
    unsigned group = members;
    members = 0;
    struct amber_msync_range *r = pending;
    size_t n = npending, c = cap_pending;
    pending = spare;
    cap_pending = cap_spare;
    spare = NULL;
    cap_spare = 0;
    npending = 0;
    amber_msync_sync_fn fn = sync_fn;
    pthread_mutex_unlock(&lock);
    uint64_t t0 = now_ns();
    unsigned k = n && fn ? sync_step(fn, r, n) : 0;
    uint64_t dt = now_ns() - t0;
    pthread_mutex_lock(&lock);
    if (k) sync_ewma_ns = sync_ewma_ns ? sync_ewma_ns - sync_ewma_ns / 8 + dt / 8 : dt;
    sync_ns_total += dt;
    expect_gen = gen; /* its members will likely commit again soon: the next leader waits for them */
    returned = group;
    __atomic_add_fetch(&syncs, k, __ATOMIC_RELAXED);
    if (!spare) {
      spare = r;
      cap_spare = c;
    } else {
      free(r); /* another overlapping sync gave its list back first */
    }
    /* Syncs may complete out of order: `completed` moves past gen only
     * once every earlier sync has completed too. */
    done[gen % MSYNC_MAX_PARALLEL] = 1;
    while (completed < started && done[(completed + 1) % MSYNC_MAX_PARALLEL]) {
      done[(completed + 1) % MSYNC_MAX_PARALLEL] = 0;
      __atomic_store_n(&completed, completed + 1, __ATOMIC_RELEASE);
    }
    running--;
    pthread_cond_broadcast(&done_cond);
  }
  pthread_mutex_unlock(&lock);
}

void amber_msync_set_parallel(unsigned k) {
  pthread_mutex_lock(&lock);
  while (running) pthread_cond_wait(&done_cond, &lock);
  parallel = k < 1 ? 1 : k > MSYNC_MAX_PARALLEL ? MSYNC_MAX_PARALLEL : k;
  pthread_mutex_unlock(&lock);
}

void amber_msync_wait(uint64_t want) { wait_ticket(want, 1); }

void amber_msync_wait_now(uint64_t want) { wait_ticket(want, 0); }

void amber_msync_gather_counts(uint64_t out[3]) {
  pthread_mutex_lock(&lock);
  out[0] = gathers;
  out[1] = gathers_full;
  out[2] = gathers_timeout;
  pthread_mutex_unlock(&lock);
}

int amber_msync_gathering(void) { return __atomic_load_n(&gathering, __ATOMIC_SEQ_CST); }

unsigned amber_msync_inflight(void) { return __atomic_load_n(&inflight, __ATOMIC_SEQ_CST); }

void amber_msync_fence(void) { wait_ticket(amber_msync_publish(), 0); }

/* With the lock held and no sync running. */
static void attach_locked(amber_msync_sync_fn fn) {
  sync_fn = fn;
  npending = 0;
  __atomic_store_n(&epoch, (epoch | 1) + 2, __ATOMIC_RELEASE); /* odd, and new */
}

void amber_msync_attach_fn(amber_msync_sync_fn fn) {
  pthread_mutex_lock(&lock);
  while (running) pthread_cond_wait(&done_cond, &lock);
  attach_locked(fn);
  pthread_mutex_unlock(&lock);
}

/* ---- the sync journal (docs/engines/msync.md, "The sync journal") ----
 *
 * Used by one leader at a time (parallel == 1: the leader that holds
 * `running`) and by detach (with nothing running), so its state needs no
 * lock of its own.
 *
 * Invariant: every range some completed sync made durable through the
 * journal in the current epoch is in `done` (so it is synced in place
 * before the epoch moves on), and the entries of the current epoch are
 * exactly those syncs' bytes, in sync order, numbered from 0. */
static struct {
  char *map;
  uint64_t file_off, size, epoch;
  int slot;
  uint64_t head, seq; /* next entry: byte position and number */
  int fresh;          /* no entry written by this process yet */
  const struct amber_msync_journal_ops *ops;
  struct amber_msync_range *done;
  size_t ndone, cap_done;
  struct amber_msync_file_range *x;
  size_t cap_x;
} jr;
static uint64_t journal_counts[3]; /* relaxed atomics: statistics only */

static size_t real_extents(const struct amber_msync_range *r, size_t n, struct amber_msync_file_range *x);
static void real_persist(const void *addr, size_t len);
static const struct amber_msync_journal_ops real_ops = {real_extents, real_persist, NULL};
static int by_start(const void *a, const void *b);

void amber_msync_journal_attach(char *map, uint64_t file_off, uint64_t size, uint64_t ep, int slot,
                                const struct amber_msync_journal_ops *ops) {
  pthread_mutex_lock(&lock);
  while (running) pthread_cond_wait(&done_cond, &lock);
  jr.map = map;
  jr.file_off = file_off;
  jr.size = size;
  jr.epoch = ep;
  jr.slot = slot;
  jr.head = AMBER_JOURNAL_PAGE;
  jr.seq = 0;
  jr.fresh = 1;
  jr.ndone = 0;
  jr.ops = ops ? ops : &real_ops;
  pthread_mutex_unlock(&lock);
}

static unsigned journal_end(amber_msync_sync_fn fn);

void amber_msync_journal_close(void) {
  pthread_mutex_lock(&lock);
  while (running) pthread_cond_wait(&done_cond, &lock);
  if (jr.map) __atomic_add_fetch(&syncs, journal_end(sync_fn), __ATOMIC_RELAXED);
  pthread_mutex_unlock(&lock);
}

void amber_msync_journal_counts(uint64_t out[3]) {
  for (int i = 0; i < 3; i++) out[i] = __atomic_load_n(&journal_counts[i], __ATOMIC_RELAXED);
}

/* The next epoch: entries written so far are void from here on.  Only
 * after every range they hold is durable in place (or, the first time in
 * a process, when the open replayed the journal or found nothing to
 * replay: the bytes after what it replayed were never acknowledged, and
 * a new entry must not end up continuing them). */
static void journal_advance(void) {
  jr.slot ^= 1;
  jr.epoch++;
  amber_journal_head_write(jr.map, jr.slot, jr.epoch);
  jr.ops->persist(jr.map + (size_t)jr.slot * AMBER_JOURNAL_SLOT, AMBER_JOURNAL_SLOT);
  jr.head = AMBER_JOURNAL_PAGE;
  jr.seq = 0;
  jr.ndone = 0;
}

/* Every range journaled this epoch synced where it lies (plus r[0..n)),
 * then the next epoch.  Returns the syncs issued. */
static unsigned journal_checkpoint(amber_msync_sync_fn fn, const struct amber_msync_range *r, size_t n) {
  jr.done = grow(jr.done, &jr.cap_done, jr.ndone + n, sizeof *jr.done);
  memcpy(jr.done + jr.ndone, r, n * sizeof *r);
  jr.ndone += n;
  unsigned k = jr.ndone ? fn(jr.done, jr.ndone) : 0;
  journal_advance();
  __atomic_add_fetch(&journal_counts[2], 1, __ATOMIC_RELAXED);
  return k + 1;
}

/* Keeps `done` from growing without bound: sorted, overlapping or touching
 * ranges merged (a merged range keeps the larger tag: syncing more than a
 * flush covered is what the page cache may do anyway). */
static void done_compact(void) {
  if (jr.ndone < 4096) return;
  qsort(jr.done, jr.ndone, sizeof *jr.done, by_start);
  size_t out = 0;
  for (size_t i = 1; i < jr.ndone; i++) {
    struct amber_msync_range *a = &jr.done[out];
    if (jr.done[i].start <= a->end) {
      if (jr.done[i].end > a->end) a->end = jr.done[i].end;
      if (jr.done[i].tag > a->tag) a->tag = jr.done[i].tag;
    } else {
      jr.done[++out] = jr.done[i];
    }
  }
  jr.ndone = out + 1;
}

static unsigned sync_step(amber_msync_sync_fn fn, const struct amber_msync_range *r, size_t n) {
  if (!jr.map || parallel != 1 || !amber_opt.pm_journal) return fn(r, n);
  /* One range (one thread's commit) costs one write where it lies too,
   * and is not written twice; allowed only while the epoch holds no
   * entry, which replay could otherwise put back over it. */
  if (n == 1 && !jr.ndone) return fn(r, n);
  unsigned k = 0;
  if (jr.fresh) {
    journal_advance();
    jr.fresh = 0;
    k++;
  }
  jr.x = grow(jr.x, &jr.cap_x, n * AMBER_PM_MAX_REGIONS, sizeof *jr.x);
  size_t nx = jr.ops->extents(r, n, jr.x);
  uint64_t bytes = 0;
  for (size_t i = 0; i < nx; i++) bytes += amber_journal_entry_size(jr.x[i].len);
  /* A sync larger than half the journal goes where it lies.  (Entry
   * numbers fit sync_first, a u32: at most AMBER_JOURNAL_MAX bytes.) */
  if (bytes > (jr.size - AMBER_JOURNAL_PAGE) / 2) return k + journal_checkpoint(fn, r, n);
  if (jr.head + bytes > jr.size) k += journal_checkpoint(fn, NULL, 0);
  uint64_t start = jr.head, first = jr.seq;
  for (size_t i = 0; i < nx; i++) {
    struct amber_journal_entry *e = (struct amber_journal_entry *)(jr.map + jr.head);
    char *d = (char *)(e + 1);
    /* Word by word: another thread may store to these lines meanwhile (a
     * store the page cache could write back as well), and a word copied
     * whole is one of its values, never a mix. */
    const uint64_t *src = (const uint64_t *)jr.x[i].addr;
    uint64_t *dst = (uint64_t *)d;
    for (uint64_t w = 0; w < jr.x[i].len / 8; w++) dst[w] = __atomic_load_n(&src[w], __ATOMIC_RELAXED);
    e->magic = AMBER_JOURNAL_ENTRY_MAGIC;
    e->len = (uint32_t)jr.x[i].len;
    e->epoch = jr.epoch;
    e->seq = jr.seq++;
    e->off = jr.x[i].off;
    e->sync_first = (uint32_t)first;
    e->crc = amber_journal_entry_crc(e, d);
    jr.head += amber_journal_entry_size(jr.x[i].len);
  }
  jr.ops->persist(jr.map + start, jr.head - start);
  if (jr.ops->journaled) jr.ops->journaled(r, n);
  jr.done = grow(jr.done, &jr.cap_done, jr.ndone + n, sizeof *jr.done);
  memcpy(jr.done + jr.ndone, r, n * sizeof *r);
  jr.ndone += n;
  done_compact();
  __atomic_add_fetch(&journal_counts[0], 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&journal_counts[1], jr.head - start, __ATOMIC_RELAXED);
  return k + 1;
}

/* Detach: what the journal holds synced in place, so the next open has
 * nothing to replay; then no journal.  Returns the syncs issued. */
static unsigned journal_end(amber_msync_sync_fn fn) {
  unsigned k = 0;
  if (jr.map && !jr.fresh && fn) k = journal_checkpoint(fn, NULL, 0);
  jr.map = NULL;
  jr.ndone = 0;
  return k;
}

/* ---- the real sync step: msync and fdatasync on the heap file ---- */

static char heap_path[4096];
static int heap_fd = -1;
static struct amber_pm_region regions[AMBER_PM_MAX_REGIONS];
static int nregions;
static uintptr_t page_size;

static int by_start(const void *a, const void *b) {
  uintptr_t x = ((const struct amber_msync_range *)a)->start, y = ((const struct amber_msync_range *)b)->start;
  return x < y ? -1 : x > y;
}

static int region_of(uintptr_t a, const struct amber_pm_region *reg, int nreg) {
  for (int i = 0; i < nreg; i++)
    if (a >= (uintptr_t)reg[i].addr && a < (uintptr_t)reg[i].addr + reg[i].len) return i;
  return -1;
}

size_t amber_msync_coalesce(struct amber_msync_range *r, size_t n, const struct amber_pm_region *reg, int nreg,
                            uintptr_t page) {
  if (n < 2) return n;
  qsort(r, n, sizeof *r, by_start);
  size_t out = 0;
  for (size_t i = 1; i < n; i++) {
    struct amber_msync_range *x = &r[out];
    int join = r[i].start <= x->end;
    if (!join && r[i].start - x->end <= AMBER_MSYNC_GAP_PAGES * page) {
      int ra = region_of(x->start, reg, nreg);
      join = ra >= 0 && ra == region_of(r[i].end - 1, reg, nreg);
    }
    if (join) {
      if (r[i].end > x->end) x->end = r[i].end;
    } else {
      r[++out] = r[i];
    }
  }
  return out + 1;
}

static void direct_sync(uintptr_t start, uintptr_t end) {
  uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
  start &= ~(pg - 1);
  __atomic_add_fetch(&syncs, 1, __ATOMIC_RELAXED);
  if (msync((void *)start, end - start, MS_SYNC) != 0)
    amber_fatal("msync of [%p, %p) failed (%s) with no heap attached; the heap file's storage may be failing",
                (void *)start, (void *)end, strerror(errno));
}

/* ---- several ranges in one sync (docs/engines/msync.md, "Several ranges") ----
 *
 * One msync per range would flush the disk's cache (and commit the
 * journal) once per range; one fdatasync of the file writes back every
 * dirty page of the heap, in-place data pages no fence asked for included.
 * Where the file system's ranged fsync commits the metadata of the whole
 * inode and flushes the cache even when its own range is clean (ext4,
 * xfs), the leader instead starts the write of every range
 * (sync_file_range WRITE), waits for each (WAIT_BEFORE|WRITE|WAIT_AFTER:
 * WB_SYNC_ALL, as fsync's own data step), and commits all of them with one
 * msync of the last range. */

const char *const amber_msync_several_name[3] = {"none", "ranges", "fdatasync"};

static enum amber_msync_several several; /* of the attached heap; under the lock, read by its leader */
/* Statistics: [0] ranged syncs, [1] fdatasyncs, [2] ranges written; relaxed atomics. */
static uint64_t several_counts[3];

void amber_msync_check_option(void) {
  const char *v = amber_opt.pm_msync_several;
  if (strcmp(v, "ranges") && strcmp(v, "fdatasync"))
    amber_fatal("AMBER_PM_MSYNC_SEVERAL=%s is not a way to sync several ranges; use fdatasync (the default: one fdatasync of "
                "the heap file) or ranges (sync_file_range per range and one msync, where the file system allows it)",
                v);
}

#define EXT4_MAGIC 0xEF53ul /* ext2, ext3 and ext4 alike */
#define XFS_MAGIC 0x58465342ul

/* Whether the mount options list `opts` (comma-separated) holds `opt`. */
static int has_opt(const char *opts, const char *opt) {
  size_t n = strlen(opt);
  for (const char *p = opts; p && *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && !strncmp(p, opt, n)) return 1;
    p = e ? e + 1 : NULL;
  }
  return 0;
}

int amber_msync_ranges_safe(unsigned long magic, const char *opts, const char **why) {
  if (magic == XFS_MAGIC) return 1; /* xfs_file_fsync: forces the log to the inode's last commit, else flushes */
  if (magic != EXT4_MAGIC) {
    *why = "not ext4 or xfs (btrfs's ranged fsync may log only its own range's extents)";
    return 0;
  }
  if (!opts) {
    *why = "ext4 with mount options unknown (/proc/self/mountinfo unreadable)";
    return 0;
  }
  if (has_opt(opts, "data=journal")) {
    *why = "ext4 mounted data=journal";
    return 0;
  }
  return 1;
}

/* The super options of the mount that holds `fd`'s file, from
 * /proc/self/mountinfo (the field after " - FSTYPE SOURCE "), into buf;
 * NULL when unknown.  Bind mounts of one device share one super block. */
static const char *mount_opts(int fd, char *buf, size_t size) {
  struct stat st;
  if (fstat(fd, &st) != 0) return NULL;
  FILE *f = fopen("/proc/self/mountinfo", "re");
  if (!f) return NULL;
  char line[4096];
  const char *found = NULL;
  while (!found && fgets(line, sizeof line, f)) {
    unsigned maj, mnr;
    if (sscanf(line, "%*s %*s %u:%u", &maj, &mnr) != 2 || makedev(maj, mnr) != st.st_dev) continue;
    char *sep = strstr(line, " - ");
    char fstype[64], source[1024], opts[2048];
    if (!sep || sscanf(sep, " - %63s %1023s %2047s", fstype, source, opts) != 3) continue;
    snprintf(buf, size, "%s", opts);
    found = buf;
  }
  fclose(f);
  return found;
}

/* At attach, the lock held. */
static void choose_several(const char *path, int fd, int dax) {
  const char *why = "AMBER_PM_MSYNC_SEVERAL=fdatasync, the default";
  struct statfs fs;
  char opts[2048];
  several = AMBER_MSYNC_SEVERAL_FDATASYNC;
  if (amber_opt.pm_msync_several && !strcmp(amber_opt.pm_msync_several, "ranges")) {
    if (dax) why = "a DAX file";
    else if (fstatfs(fd, &fs) != 0) why = "fstatfs failed";
    else if (amber_msync_ranges_safe((unsigned long)fs.f_type, mount_opts(fd, opts, sizeof opts), &why))
      several = AMBER_MSYNC_SEVERAL_RANGES;
  }
  if (several == AMBER_MSYNC_SEVERAL_RANGES)
    amber_info("msync backend, heap %s: a sync of several ranges writes each with sync_file_range and commits them with one "
               "msync", path);
  else
    amber_info("msync backend, heap %s: a sync of several ranges is one fdatasync of the file (%s)", path, why);
}

enum amber_msync_several amber_msync_several(void) {
  pthread_mutex_lock(&lock);
  enum amber_msync_several v = several;
  pthread_mutex_unlock(&lock);
  return v;
}

void amber_msync_sync_counts(uint64_t out[5]) {
  for (int i = 0; i < 3; i++) out[i] = __atomic_load_n(&several_counts[i], __ATOMIC_RELAXED);
  pthread_mutex_lock(&lock);
  out[3] = sync_ns_total;
  out[4] = gather_ns_total;
  pthread_mutex_unlock(&lock);
}

size_t amber_msync_file_ranges(const struct amber_msync_range *r, size_t n, const struct amber_pm_region *reg, int nreg,
                               struct amber_msync_file_range *out) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    for (uintptr_t a = r[i].start; a < r[i].end;) {
      int j = region_of(a, reg, nreg);
      if (j < 0) AMBER_BUG("msync backend: dirty range [%p, %p) lies outside the heap's mappings", (void *)a, (void *)r[i].end);
      uintptr_t base = (uintptr_t)reg[j].addr, e = base + reg[j].len < r[i].end ? base + reg[j].len : r[i].end;
      out[k++] = (struct amber_msync_file_range){a, reg[j].file_off + (a - base), e - a};
      a = e;
    }
  return k;
}

static noreturn void sync_failed(const char *call);

static size_t real_extents(const struct amber_msync_range *r, size_t n, struct amber_msync_file_range *x) {
  return amber_msync_file_ranges(r, n, regions, nregions, x);
}

static void real_persist(const void *addr, size_t len) {
  uintptr_t a = (uintptr_t)addr & ~(page_size - 1);
  if (msync((void *)a, (uintptr_t)addr + len - a, MS_SYNC) != 0) sync_failed("msync of the sync journal");
}

static noreturn void sync_failed(const char *call) {
  amber_fatal("%s of heap %s failed (%s): commits since the last sync may not be durable; the heap file's storage may be "
              "failing (check the disk and the kernel log)", call, heap_path, strerror(errno));
}

/* Leaders of overlapping syncs run this at once: the scratch copies are
 * the call's own. */
static unsigned file_sync(const struct amber_msync_range *r, size_t n) {
  struct amber_msync_range *plan = NULL;
  size_t cap_plan = 0;
  plan = grow(plan, &cap_plan, n, sizeof *plan);
  memcpy(plan, r, n * sizeof *r);
  for (size_t i = 0; i < n; i++) { /* recorded by the line; msync takes pages */
    plan[i].start &= ~(page_size - 1);
    plan[i].end = (plan[i].end + page_size - 1) & ~(page_size - 1);
  }
  unsigned calls = 1;
  size_t k = amber_msync_coalesce(plan, n, regions, nregions, page_size);
  if (k > AMBER_MSYNC_MAX_CALLS && several == AMBER_MSYNC_SEVERAL_FDATASYNC) {
    if (fdatasync(heap_fd) != 0) sync_failed("fdatasync");
    __atomic_add_fetch(&several_counts[1], 1, __ATOMIC_RELAXED);
  } else if (k > AMBER_MSYNC_MAX_CALLS) {
    struct amber_msync_file_range *fplan = NULL;
    size_t cap_fplan = 0;
    fplan = grow(fplan, &cap_fplan, k * AMBER_PM_MAX_REGIONS, sizeof *fplan);
    size_t f = amber_msync_file_ranges(plan, k, regions, nregions, fplan);
    /* Start every range's write, so the device sees them together... */
    for (size_t i = 0; i < f; i++)
      if (sync_file_range(heap_fd, (off_t)fplan[i].off, (off_t)fplan[i].len, SYNC_FILE_RANGE_WRITE) != 0)
        sync_failed("sync_file_range");
    /* ...then wait for each: WB_SYNC_ALL also writes a page that was under
     * an older writeback when the first call passed it, as fsync's data
     * step does.  The last range's wait is the msync's own. */
    for (size_t i = 0; i + 1 < f; i++)
      if (sync_file_range(heap_fd, (off_t)fplan[i].off, (off_t)fplan[i].len,
                          SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER) != 0)
        sync_failed("sync_file_range");
    /* One ranged fsync: commits the inode's metadata (every range's block
     * allocations and extent conversions) and flushes the disk's cache. */
    if (msync((void *)fplan[f - 1].addr, fplan[f - 1].len, MS_SYNC) != 0) sync_failed("msync");
    __atomic_add_fetch(&several_counts[0], 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&several_counts[2], f, __ATOMIC_RELAXED);
    free(fplan);
  } else {
    for (size_t i = 0; i < k; i++)
      if (msync((void *)plan[i].start, plan[i].end - plan[i].start, MS_SYNC) != 0) sync_failed("msync");
    calls = (unsigned)k;
  }
  free(plan);
  return calls;
}

void amber_msync_attach(const char *path, int fd, const struct amber_pm_region *reg, int nreg, int dax) {
  if (nreg > AMBER_PM_MAX_REGIONS) AMBER_BUG("the msync backend knows at most %d mappings of a heap, not %d", AMBER_PM_MAX_REGIONS, nreg);
  pthread_mutex_lock(&lock);
  while (running) pthread_cond_wait(&done_cond, &lock);
  snprintf(heap_path, sizeof heap_path, "%s", path);
  heap_fd = fd;
  memcpy(regions, reg, (size_t)nreg * sizeof *reg);
  nregions = nreg;
  page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
  choose_several(path, fd, dax);
  attach_locked(file_sync);
  pthread_mutex_unlock(&lock);
}

void amber_msync_detach(int fd) {
  pthread_mutex_lock(&lock);
  while (running) pthread_cond_wait(&done_cond, &lock);
  if (!(epoch & 1) || (sync_fn == file_sync && fd != heap_fd)) {
    pthread_mutex_unlock(&lock);
    return;
  }
  /* Fences still waiting: their sync runs now, while the file is open. */
  if (npending) {
    running = 1;
    uint64_t gen = ++started;
    returned = members = 0;
    expect_gen = 0;
    size_t n = npending;
    npending = 0;
    __atomic_add_fetch(&syncs, sync_step(sync_fn, pending, n), __ATOMIC_RELAXED);
    __atomic_store_n(&completed, gen, __ATOMIC_RELEASE);
    running = 0;
    pthread_cond_broadcast(&done_cond);
  }
  __atomic_add_fetch(&syncs, journal_end(sync_fn), __ATOMIC_RELAXED);
  sync_fn = NULL;
  several = AMBER_MSYNC_SEVERAL_NONE;
  heap_fd = -1;
  nregions = 0;
  __atomic_store_n(&epoch, epoch + 1, __ATOMIC_RELEASE); /* even: detached */
  pthread_mutex_unlock(&lock);
}
