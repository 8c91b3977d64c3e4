/* Stray batches (docs/guide.md section 4, "Stores outside regions").
 *
 * A thread's persistent stores outside regions (the cold side of the
 * pass's range checks, entry/access.c) join one implicit transaction of
 * the thread, opened in place at the first of them and committed at the
 * latest at the thread's next region or internal transaction, amber_sync,
 * a synchronisation point the interceptors see (locks, thread creation and
 * end, I/O, fork), its exit or the program's, or at its first stray access
 * once the batch is AMBER_STRAY_MS old, holds BATCH_STORES stores or
 * BATCH_BYTES bytes, or another thread waits for isolation it may hold.
 *
 * Invariant: a thread has at most one batch, and its stores enter it in
 * program order; it commits whole (the engine's commit), before any later
 * transaction of the thread begins.  So the committed stray stores of a
 * thread are a prefix of them in program order, and a crash loses at most
 * the open batch's stores, never an earlier one's.
 *
 * The batch is an AMBER_KIND_PERSISTENT writer that never restarts: its
 * stores are the program's own, made once, in place in its view.  While it
 * is open the thread's depth stays 0 (malloc stays volatile, the stores
 * stay stray for the statistics); the engines read through the open batch
 * for this thread (romulus: main in place, mvcc: its pending copies). */
#include "batch.h"

#include <time.h>

#include "base/diag.h"
#include "base/options.h"
#include "tx.h"

int amber_tx_batches_open;

/* Bumped by a thread that waits for isolation an open batch may hold. */
static uint64_t please_epoch;

/* Bounds of one batch: the work a crash can lose, and the engine's logs a
 * batch fills (mvcc: 4096 stores of 8 bytes take at most 4096 version
 * blocks, under half of the default TLog, and one OLog record of about
 * 330 KiB, under its default 1 MiB; mvcc also splits a batch itself when
 * its logs run short: mv_store). */
#define BATCH_STORES 4096u
#define BATCH_BYTES (64u << 10)

/* The coarse monotonic clock (the vDSO's, no system call; its tick is a
 * few ms, so AMBER_STRAY_MS is kept to within a tick). */
static inline uint64_t coarse_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void open_batch(struct amber_thread *t) {
  amber_tx_begin_in_place(t);
  t->batch = 1;
  t->batch_n = 0;
  t->batch_bytes = 0;
  t->batch_due = coarse_ns() + amber_opt.stray_ms * 1000000u;
  /* Relaxed: a please raised before this load concerns locks this batch
   * does not hold yet; one raised after it is seen at a later poll. */
  t->batch_please = __atomic_load_n(&please_epoch, __ATOMIC_RELAXED);
  __atomic_fetch_add(&amber_tx_batches_open, 1, __ATOMIC_RELAXED);
}

void amber_tx_batch_commit(struct amber_thread *t) {
  if (!t->batch) return;
  amber_tx_commit_in_place(t);
  t->batch = 0;
  t->batch_commits++;
  __atomic_fetch_sub(&amber_tx_batches_open, 1, __ATOMIC_RELAXED);
}

/* Relaxed load of the epoch: a waiter that bumped it spins until the batch
 * commits, so the owner only has to see the bump eventually (at a later
 * poll), which coherence guarantees. */
static inline int due(const struct amber_thread *t) {
  if (t->batch_n >= BATCH_STORES || t->batch_bytes >= BATCH_BYTES) return 1;
  if (__atomic_load_n(&please_epoch, __ATOMIC_RELAXED) != t->batch_please) return 1;
  return coarse_ns() >= t->batch_due;
}

/* batch_busy: the thread is inside this file's work on its batch.  A
 * signal handler that reaches a synchronisation point meanwhile (write(2)
 * is async-signal-safe, and intercepted) must not commit the batch under
 * the interrupted store: amber_tx_batch_sync leaves it to the next point. */
void amber_tx_batch_store(struct amber_thread *t, void *addr, const void *src, size_t n) {
  t->batch_busy = 1;
  __atomic_signal_fence(__ATOMIC_SEQ_CST); /* busy before the batch is looked at (a handler is on this thread) */
  if (t->batch && due(t)) amber_tx_batch_commit(t);
  if (!t->batch) open_batch(t);
  t->batch_split = 1;
  amber_tx_write(t, addr, src, n);
  t->batch_split = 0;
  t->batch_n++;
  t->batch_bytes += n;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  t->batch_busy = 0;
}

void amber_tx_batch_poll(struct amber_thread *t) {
  t->batch_busy = 1;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  if (t->batch && due(t)) amber_tx_batch_commit(t);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  t->batch_busy = 0;
}

void amber_tx_batch_sync(void) {
  struct amber_thread *t = amber_self;
  if (t && t->batch && !t->batch_busy) amber_tx_batch_commit(t);
}

void amber_tx_batch_split(struct amber_thread *t) {
  if (!t->batch || !t->batch_split) AMBER_BUG("a batch split outside a stray store");
  amber_tx_batch_commit(t);
  open_batch(t);
  t->batch_split = 1;
}

void amber_tx_batch_please(void) {
  if (amber_tx_batch_any()) __atomic_fetch_add(&please_epoch, 1, __ATOMIC_RELAXED);
}
