/* Grace periods (RCU style) for TLog reclamation, with a detector thread.
 *
 * A grace period is over when every transaction that was running when it
 * began has ended: each thread's `txseq` is odd inside a transaction, so a
 * snapshot of the odd ones, then waiting until each has moved on, is one
 * grace period.  The detector thread runs grace periods back to back while
 * some thread wants one and counts them in `mv.gp_epoch`.
 *
 * A thread waiting inside its transaction (park.c) is at a quiescent
 * state: it moves txseq on by 2 (still odd) and sets `parked`, so grace
 * periods pass it; a grace period never waits for the thread that waits for
 * it, nor for another such waiter.
 *
 * Invariant: a copy unlinked while the epoch was e is not referenced by any
 * transaction once the epoch reaches e + 2.  (The grace period that ends at
 * e + 1 may have taken its snapshot before the unlink; the one that ends at
 * e + 2 began after e + 1 was published, so after the unlink.)
 *
 * The detector is started on the first request and stopped by close.  A
 * thread that finds no other thread inside a transaction needs no detector:
 * the grace period is over at once (always so in a single-threaded
 * program, which therefore never starts the thread). */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/diag.h"
#include "tx/tx.h"
#include "mvcc.h"

static pthread_t detector;
static int detector_started; /* guarded by start_lock */
static int detector_ever;    /* statistics: it was started */
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;

static void futex_wait(uint32_t *addr, uint32_t val, long ns) {
  struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
  syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

static void futex_wake(uint32_t *addr) { syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0); }

/* A thread inside a transaction that is not parked (park.c): it may hold
 * a pointer into a copy. */
static int holding(struct mv_thread *o, uint64_t *seq) {
  *seq = __atomic_load_n(&o->txseq, __ATOMIC_SEQ_CST);
  return (*seq & 1) && !__atomic_load_n(&o->parked, __ATOMIC_SEQ_CST);
}

/* Waits until `o` has passed a quiescent state since it ran at `seq`: it
 * left that transaction, or parked (txseq moved on by 2, or `parked`). */
static void wait_left(struct mv_thread *o, uint64_t seq) {
  unsigned spins = 0;
  while (__atomic_load_n(&o->txseq, __ATOMIC_ACQUIRE) == seq && !__atomic_load_n(&o->parked, __ATOMIC_ACQUIRE) &&
         !__atomic_load_n(&mv.gp_stop, __ATOMIC_ACQUIRE)) {
    if (++spins < 64) __builtin_ia32_pause();
    else if (spins < 128) {
      if (spins == 64) amber_tx_batch_please(); /* o may be a stray batch whose owner is elsewhere (tx/batch.c) */
      sched_yield();
    }
    else {
      struct timespec ts = {0, 20000};
      nanosleep(&ts, NULL);
    }
  }
}

static void one_grace_period(void) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  for (struct mv_thread *o = __atomic_load_n(&mv.threads, __ATOMIC_ACQUIRE); o; o = o->next) {
    uint64_t s;
    if (holding(o, &s)) wait_left(o, s);
  }
  __atomic_add_fetch(&mv.gp_epoch, 1, __ATOMIC_SEQ_CST);
  __atomic_add_fetch(&mv.gp_periods, 1, __ATOMIC_RELAXED);
}

static void *detector_main(void *arg) {
  (void)arg;
  /* The detector takes no signal meant for the program. */
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  for (;;) {
    uint32_t bell = __atomic_load_n(&mv.gp_bell, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&mv.gp_stop, __ATOMIC_ACQUIRE)) break;
    if (__atomic_load_n(&mv.gp_want, __ATOMIC_ACQUIRE) > __atomic_load_n(&mv.gp_epoch, __ATOMIC_ACQUIRE)) {
      one_grace_period();
      continue;
    }
    __atomic_store_n(&mv.gp_sleeping, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&mv.gp_want, __ATOMIC_SEQ_CST) <= __atomic_load_n(&mv.gp_epoch, __ATOMIC_SEQ_CST))
      futex_wait(&mv.gp_bell, bell, 100000000L); /* 100 ms: a lost wake-up costs at most that */
    __atomic_store_n(&mv.gp_sleeping, 0, __ATOMIC_SEQ_CST);
  }
  return NULL;
}

static void start_detector(void) {
  pthread_mutex_lock(&start_lock);
  if (!detector_started && !__atomic_load_n(&mv.gp_stop, __ATOMIC_ACQUIRE)) {
    int e = pthread_create(&detector, NULL, detector_main, NULL);
    if (e)
      amber_fatal("mvcc: cannot start the grace-period detector thread (%s); the process is out of threads or memory",
                  strerror(e));
    /* A runtime thread's name starts with "amber-": gdb's script never calls
     * into it (runtime/debugger.py). */
    pthread_setname_np(detector, "amber-detector");
    __atomic_store_n(&detector_started, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&detector_ever, 1, __ATOMIC_RELAXED);
  }
  pthread_mutex_unlock(&start_lock);
}

/* May a thread other than m hold a pointer into a copy (inside a
 * transaction, not parked)?  m itself holds none where it reclaims:
 * outside a transaction, or between two of its accesses. */
static int others_running(struct mv_thread *m) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  uint64_t s;
  for (struct mv_thread *o = __atomic_load_n(&mv.threads, __ATOMIC_ACQUIRE); o; o = o->next)
    if (o != m && holding(o, &s)) return 1;
  return 0;
}

uint64_t mv_gp_ticket(struct mv_thread *m) {
  if (!others_running(m)) return 0; /* nobody can hold what was unlinked before this check */
  uint64_t want = __atomic_load_n(&mv.gp_epoch, __ATOMIC_SEQ_CST) + 2;
  uint64_t cur = __atomic_load_n(&mv.gp_want, __ATOMIC_SEQ_CST);
  while (cur < want && !__atomic_compare_exchange_n(&mv.gp_want, &cur, want, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  if (!__atomic_load_n(&detector_started, __ATOMIC_ACQUIRE)) start_detector();
  __atomic_add_fetch(&mv.gp_bell, 1, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&mv.gp_sleeping, __ATOMIC_SEQ_CST)) futex_wake(&mv.gp_bell);
  return want;
}

int mv_gp_over(struct mv_thread *m, uint64_t ticket) {
  if (!ticket || __atomic_load_n(&mv.gp_epoch, __ATOMIC_ACQUIRE) >= ticket) return 1;
  /* Still waiting: if nobody else is in a transaction now, every reader of
   * what we unlinked has left. */
  return !others_running(m);
}

void mv_detector_stop(void) {
  pthread_mutex_lock(&start_lock);
  if (detector_started) {
    /* No transaction runs any more (close waited for them): let the
     * detector finish what was asked of it, then stop it. */
    unsigned spins = 0;
    while (__atomic_load_n(&mv.gp_want, __ATOMIC_ACQUIRE) > __atomic_load_n(&mv.gp_epoch, __ATOMIC_ACQUIRE) && ++spins < 100000) {
      __atomic_add_fetch(&mv.gp_bell, 1, __ATOMIC_SEQ_CST);
      futex_wake(&mv.gp_bell);
      sched_yield();
    }
    __atomic_store_n(&mv.gp_stop, 1, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&mv.gp_bell, 1, __ATOMIC_SEQ_CST);
    futex_wake(&mv.gp_bell);
    pthread_join(detector, NULL);
    detector_started = 0;
  }
  __atomic_store_n(&mv.gp_stop, 1, __ATOMIC_SEQ_CST);
  pthread_mutex_unlock(&start_lock);
}

int mv_detector_ran(void) { return __atomic_load_n(&detector_ever, __ATOMIC_RELAXED); }
