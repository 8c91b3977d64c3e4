/* Waiting inside a transaction (docs/engines/mvcc.md, "Waiting inside a
 * transaction").
 *
 * An AMBER_PERSISTENT region (and a lock-delimited section: every
 * MV_LATEST transaction) never aborts, so when
 * its TLog or OLog ring is full, or a block it writes is locked, it waits
 * inside its transaction.  Reclamation waits for two things: grace periods
 * (every thread inside a transaction passes a point where it holds no
 * pointer into a copy) and the horizon (every running transaction's
 * local-ts).  A waiter that stayed visible to both would wait for itself,
 * and two such waiters for each other.  So while it waits it is *parked*:
 *
 *  - it holds no pointer into any copy but its own pending ones (the
 *    waits sit between accesses; stores copy from volatile memory), so it
 *    is at a quiescent state: `txseq` advances by 2 (it stays odd: close and
 *    irrevocable transactions still see a transaction running) and `parked`
 *    tells grace periods taken meanwhile not to wait for it;
 *  - a LATEST transaction reads the newest version, not a snapshot, and its
 *    commit ts is drawn above its local-ts, so its local-ts only has to stay
 *    a lower bound of that commit ts: parked, it holds the horizon back at
 *    nothing (`active` MV_INACTIVE), and unparking publishes a new local-ts
 *    the way a start does (MV_STARTING before the clock is read), so a round
 *    either sees it or chose its boundary below it.
 *
 * Invariant: a parked thread is inside a LATEST transaction and holds no
 * pointer into another thread's copy. */
#include "base/diag.h"
#include "mvcc.h"

void mv_park(struct mv_thread *m) {
  if (m->mode != MV_LATEST || !m->in_tx || m->parked) AMBER_BUG("mvcc: park outside a LATEST transaction");
  __atomic_store_n(&m->active, MV_INACTIVE, __ATOMIC_SEQ_CST);
  __atomic_store_n(&m->parked, 1, __ATOMIC_SEQ_CST);
  __atomic_store_n(&m->txseq, m->txseq + 2, __ATOMIC_SEQ_CST); /* still odd */
}

void mv_unpark(struct mv_thread *m) {
  if (!m->parked) return;
  /* As publish_start: STARTING before the clock is read. */
  __atomic_store_n(&m->active, MV_STARTING, __ATOMIC_SEQ_CST);
  __atomic_store_n(&m->parked, 0, __ATOMIC_SEQ_CST);
  uint64_t now = amber_ordo_get_time();
  if (now > m->local) m->local = now;
  __atomic_store_n(&m->active, m->local, __ATOMIC_SEQ_CST);
  __atomic_thread_fence(__ATOMIC_SEQ_CST); /* unparked before it reads a chain again */
}

void mv_wait_parked(struct mv_thread *m) {
  mv_park(m);
  mv_backoff(m);
  mv_unpark(m);
}
