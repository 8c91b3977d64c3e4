/* The CLog and checkpoint rounds (issue [6/7] part 3; docs/engines/mvcc.md
 * "Checkpoints").
 *
 * A checkpoint round picks a new boundary c' (the horizon less the ORDO
 * boundary: every commit ts below c' is certainly before every running or
 * future transaction's local-ts, so all of them are linked already) and
 * copies, for every dirty block, the newest version with cts < c' into the
 * CLog (block + index + cts, one entry).  One fence; then c' is written to
 * the CLog header (one fence): from then on the master and the CLog hold the
 * exact state as of c', and OLog records older than c' may be recycled.
 * Only then do the replaced versions leave their chains (readers fall back
 * from the chain to the checkpoint copy, then to the master).
 *
 * Draining the CLog writes a block's latest checkpoint copy to the master
 * (data, fence, master timestamp, fence) and points readers back at the
 * master; an entry that a newer one of its block supersedes is dropped
 * unwritten (that is where checkpoints coalesce).  Drained entries are reused
 * after a grace period (a reader may still be copying one).
 *
 * Invariants (checked by AMBER_MVCC_ASSERT, check.c):
 *  - the master holds no version with cts >= c (it is written only from
 *    CLog entries of durable rounds);
 *  - for every block, the newest of the master (at its timestamp) and the
 *    CLog entries with cts < c is the newest version with cts < c;
 *  - a round is all or nothing: its entries are written before c' is, and
 *    recovery ignores entries with cts >= the durable c.
 * Rounds, drains and every write of ctl->ckpt hold round_lock. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/crc32c.h"
#include "base/diag.h"
#include "heap/heap.h"
#include "pm/pm.h"
#include "tx/alloc.h"
#include "mvcc.h"

static pthread_mutex_t round_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mv_ctl *dirty_head; /* Treiber stack; taken whole by a round */

/* Under round_lock.  Entries [tail, head) are live; [tail, free_upto) are
 * drained or superseded and free once grace period free_ticket is over;
 * drained_to is where the next drain starts. */
static uint64_t head, tail, drained_to, free_upto, free_ticket;
static int free_pending;
static struct mv_ctl **work;
static size_t capwork;
static struct ckpt_done {
  struct mv_ctl *ctl;
  const char *data;
  uint64_t cts;
} *done;
static size_t capdone;
static uint64_t n_rounds, n_entries, n_drained;

/* Makes room for element i of a scratch array (doubling; never shrinks). */
static void *room_for(void *p, size_t *cap, size_t i, size_t elem) {
  if (i < *cap) return p;
  *cap = *cap ? *cap * 2 : 1024;
  p = realloc(p, *cap * elem);
  if (!p) amber_fatal("mvcc: out of memory for a checkpoint round or CLog drain (%zu entries)", *cap);
  return p;
}

static void done_push(size_t *n, struct mv_ctl *ctl, const char *data, uint64_t cts) {
  done = room_for(done, &capdone, *n, sizeof *done);
  done[(*n)++] = (struct ckpt_done){ctl, data, cts};
}

/* ---- the persistent ring -------------------------------------------- */

static char *slot(void) { return mv.area + mv.clog_off; }
static struct mv_clog_hdr *hdr(int w) { return (struct mv_clog_hdr *)(slot() + 64 * w); }
static struct mv_ckpt *entry(uint64_t i) { return (struct mv_ckpt *)(slot() + AMBER_PAGE + (i % mv.clog_n) * mv.clog_entry); }
static uint32_t hdr_crc(const struct mv_clog_hdr *h) { return amber_crc32c(0, h, offsetof(struct mv_clog_hdr, crc)); }
static uint32_t ckpt_crc(const struct mv_ckpt *e) {
  return amber_crc32c(0, (const char *)e + offsetof(struct mv_ckpt, seq), sizeof *e - offsetof(struct mv_ckpt, seq) + mv.block);
}

void mv_clog_attach(void) {
  const struct mv_area *a = (const struct mv_area *)mv.area;
  mv.clog_off = a->clog_off;
  mv.clog_bytes = a->clog_bytes;
  mv.clog_entry = (sizeof(struct mv_ckpt) + mv.block + 7) & ~7ull;
  mv.clog_n = mv.clog_bytes / mv.clog_entry;
}

int mv_clog_read(uint64_t *c, uint64_t *t, uint64_t *hd, uint64_t *gen) {
  int best = -1;
  for (int w = 0; w < 2; w++) {
    const struct mv_clog_hdr *h = hdr(w);
    if (h->magic != MV_CLOG_MAGIC || h->crc != hdr_crc(h)) continue;
    if (best < 0 || h->gen > hdr(best)->gen) best = w;
  }
  if (best < 0) return -1;
  if (c) *c = hdr(best)->c;
  if (t) *t = hdr(best)->tail;
  if (hd) *hd = hdr(best)->head;
  if (gen) *gen = hdr(best)->gen;
  return best;
}

static void put_hdr(int w, uint64_t gen, uint64_t c, uint64_t t, uint64_t hd) {
  struct mv_clog_hdr n;
  memset(&n, 0, sizeof n);
  n.magic = MV_CLOG_MAGIC;
  n.gen = gen;
  n.c = c;
  n.tail = t;
  n.head = hd;
  n.crc = hdr_crc(&n);
  memcpy(hdr(w), &n, sizeof n);
  amber_pm_wrote(hdr(w), sizeof n);
  amber_pm_flush(hdr(w), sizeof n, AMBER_PM_CKPT);
}

void mv_clog_format(void) {
  put_hdr(0, 1, 0, 0, 0);
  put_hdr(1, 0, 0, 0, 0);
  amber_pm_fence(AMBER_PM_CKPT);
}

/* Overwrites the older header (the current one survives a torn write). */
void mv_clog_write(uint64_t c, uint64_t t, uint64_t hd) {
  uint64_t gen = 0;
  int cur = mv_clog_read(NULL, NULL, NULL, &gen);
  put_hdr(cur == 0 ? 1 : 0, gen + 1, c, t, hd);
  amber_pm_fence(AMBER_PM_CKPT);
  __atomic_store_n(&mv.c, c, __ATOMIC_RELEASE);
}

static const char *put_at(struct mv_ckpt *e, uint64_t i, uint64_t blk, uint64_t cts, const char *data) {
  e->magic = MV_CKPT_MAGIC;
  e->seq = i;
  e->blk = blk;
  e->cts = cts;
  memcpy(e + 1, data, mv.block);
  e->crc = ckpt_crc(e);
  amber_pm_wrote(e, mv.clog_entry);
  return (const char *)(e + 1);
}

const char *mv_clog_put(uint64_t i, uint64_t blk, uint64_t cts, const char *data) {
  const char *d = put_at(entry(i), i, blk, cts, data);
  amber_pm_flush(entry(i), mv.clog_entry, AMBER_PM_CKPT);
  return d;
}

uint64_t mv_ckpt_file_off(uint64_t i) { return mv.heap->hdr.engine_offset + (uint64_t)((char *)entry(i) - mv.area); }

const struct mv_ckpt *mv_ckpt_in(const struct mv_ckpt *e, uint64_t i) {
  if (e->magic != MV_CKPT_MAGIC || e->seq != i || e->blk >= mv.nblocks || e->crc != ckpt_crc(e)) return NULL;
  return e;
}

const struct mv_ckpt *mv_ckpt_slot(uint64_t i) { return entry(i); }

const struct mv_ckpt *mv_ckpt_at(uint64_t i) { return mv_ckpt_in(entry(i), i); }

static uint64_t room(void) { return mv.clog_n - (head - tail); }

/* ---- the undo spill (docs/engines/mvcc.md, "Large transactions") ------ */

/* A link entry's block: where the entries after it are. */
struct spill_link {
  uint64_t off;   /* data-area offset of the segment (page-aligned) */
  uint64_t pages; /* its length */
};
_Static_assert(sizeof(struct spill_link) <= 16, "a link fits the smallest block");

static uint64_t seg_slots(uint64_t pages) { return pages * AMBER_PAGE / mv.clog_entry; }

int mv_ckpt_link(const struct mv_ckpt *e, uint64_t i, struct mv_spill *s) {
  if (e->magic != MV_CKPT_MAGIC || e->seq != i || e->blk != MV_CKPT_LINK || e->crc != ckpt_crc(e)) return 0;
  struct spill_link l;
  memcpy(&l, e + 1, sizeof l);
  uint64_t np = mv.heap->hdr.data_size / AMBER_PAGE, p = l.off / AMBER_PAGE;
  if (l.off % AMBER_PAGE || !p || p >= np || !l.pages || l.pages > np - p || seg_slots(l.pages) < 2)
    return 0;
  *s = (struct mv_spill){l.off, i + 1, seg_slots(l.pages)};
  return 1;
}

const struct mv_ckpt *mv_spill_entry(const struct mv_spill *s, uint64_t i) {
  return (const struct mv_ckpt *)(mv.base + s->off + (i - s->first) * mv.clog_entry);
}

/* The segments of the running irrevocable transaction (under round_lock). */
static struct seg { struct mv_spill s; uint64_t pages; } *segs;
static size_t nsegs, capsegs;
static uint64_t spill_pages_next, n_spilled, n_segments;

/* Claims a segment of free heap pages and writes, at e (the last free slot
 * of the ring or of the current segment), the link entry head that names
 * it; flushed, not fenced: the caller writes the next entry, into the new
 * segment, and fences both before the master changes.  A link that a crash
 * tore hides only entries fenced with it, whose blocks are unchanged. */
static int spill_link(struct mv_ckpt *e) {
  uint64_t min = (2 * mv.clog_entry + AMBER_PAGE - 1) / AMBER_PAGE, k = spill_pages_next, off = 0;
  if (k < min) k = min;
  while (!(off = amber_alloc_claim(k)) && k > min) k = k / 2 > min ? k / 2 : min;
  if (!off) return 0;
  if (k == spill_pages_next && k < (64u << 20) / AMBER_PAGE) spill_pages_next = k * 2;
  segs = room_for(segs, &capsegs, nsegs, sizeof *segs);
  segs[nsegs++] = (struct seg){{off, head + 1, seg_slots(k)}, k};
  char blk[4096];
  memset(blk, 0, mv.block);
  struct spill_link l = {off, k};
  memcpy(blk, &l, sizeof l);
  put_at(e, head, MV_CKPT_LINK, 0, blk);
  amber_pm_flush(e, mv.clog_entry, AMBER_PM_CKPT);
  head++;
  n_segments++;
  return 1;
}

/* The ring's slots, then each segment's, less one for the link to the next. */
static struct mv_ckpt *undo_slot(void) {
  if (!nsegs) {
    if (room() > 1) return entry(head);
    spill_pages_next = (mv.clog_bytes + AMBER_PAGE - 1) / AMBER_PAGE;
    if (!spill_link(entry(head))) return NULL;
  } else {
    struct mv_spill *s = &segs[nsegs - 1].s;
    if (head - s->first + 1 < s->n) return (struct mv_ckpt *)mv_spill_entry(s, head);
    if (!spill_link((struct mv_ckpt *)mv_spill_entry(s, head))) return NULL;
  }
  return (struct mv_ckpt *)mv_spill_entry(&segs[nsegs - 1].s, head);
}

/* After the commit point (or with nothing spilled): the segments go back
 * to the allocator; their bytes are garbage from now on. */
static void spill_release(void) {
  for (size_t k = 0; k < nsegs; k++) amber_alloc_unclaim(segs[k].s.off, segs[k].pages);
  nsegs = 0;
}

void mv_clog_spill_stats(uint64_t *entries, uint64_t *segments) {
  *entries = n_spilled;
  *segments = n_segments;
}

/* Called by open, after recovery emptied the ring. */
void mv_clog_open(void) {
  uint64_t c = 0, t = 0;
  mv_clog_read(&c, &t, NULL, NULL);
  head = tail = drained_to = free_upto = t;
  free_pending = 0;
  dirty_head = NULL;
  n_rounds = n_entries = n_drained = 0;
  __atomic_store_n(&mv.c, c, __ATOMIC_RELEASE);
}

/* ---- the dirty list -------------------------------------------------- */

void mv_dirty(struct mv_ctl *ctl) {
  /* The caller's seq_cst fence orders its chain update before this load;
   * a round clears `next_dirty` before it reads the chain (Dekker).  A
   * compare-exchange from 0, not an exchange: the word is also the link,
   * and an exchange that lost to another pusher would overwrite its link
   * and cut the list after ctl (test/run/mvcc_persistent_tlog_full.c hung
   * on such a lost block). */
  uintptr_t off = 0;
  if (__atomic_load_n(&mv_cold(ctl)->next_dirty, __ATOMIC_RELAXED) ||
      !__atomic_compare_exchange_n(&mv_cold(ctl)->next_dirty, &off, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
    return;
  /* Ours to push: bit 0 stays set in every link written from here on. */
  struct mv_ctl *h = __atomic_load_n(&dirty_head, __ATOMIC_RELAXED);
  do __atomic_store_n(&mv_cold(ctl)->next_dirty, (uintptr_t)h | 1u, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(&dirty_head, &h, ctl, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

struct mv_ctl *mv_clog_dirty_first(void) { return __atomic_load_n(&dirty_head, __ATOMIC_ACQUIRE); }

int mv_clog_dirty(void) { return mv_clog_dirty_first() != NULL; }

/* ---- draining --------------------------------------------------------- */

/* The drained prefix is free once nobody can still be reading it.  Never
 * waits: a thread inside a transaction may be waiting for round_lock. */
static void finish_free(struct mv_thread *m) {
  if (!free_pending || !mv_gp_over(m, free_ticket)) return;
  free_pending = 0;
  tail = free_upto;
  mv_clog_write(__atomic_load_n(&mv.c, __ATOMIC_ACQUIRE), tail, head);
}

/* Drops superseded entries and (all: every one) writes latest checkpoint
 * copies back to the master; without `all` it stops at the first entry
 * that needs a write-back, so checkpoints of a block keep coalescing. */
static void drain(struct mv_thread *m, int all) {
  size_t n = 0;
  uint64_t i = drained_to;
  for (; i < head; i++) {
    const struct mv_ckpt *e = entry(i);
    if (i + 8 < head) { /* the header and the master ahead; the CLog is read in order */
      uint64_t b = entry(i + 8)->blk;
      if (b < mv.nblocks) {
        __builtin_prefetch(mv_ctl_at(b));
        if (all) __builtin_prefetch(mv.base + (b << mv.shift), 1);
      }
    }
    struct mv_ctl *ctl = mv_ctl_of(e->blk);
    const char *data = (const char *)(e + 1);
    if (!ctl || __atomic_load_n(&ctl->ckpt, __ATOMIC_ACQUIRE) != data) continue; /* superseded */
    if (!all) break;
    char *master = mv.base + (e->blk << mv.shift);
    memcpy(master, data, mv.block);
    amber_pm_wrote(master, mv.block);
    amber_pm_flush(master, mv.block, AMBER_PM_DATA);
    done_push(&n, ctl, data, e->cts);
  }
  if (n) {
    amber_pm_fence(AMBER_PM_DATA);
    for (size_t k = 0; k < n; k++) mv_mts_raise(mv_ctl_blk(done[k].ctl), done[k].cts);
    amber_pm_fence(AMBER_PM_DATA);
    for (size_t k = 0; k < n; k++) __atomic_store_n(&done[k].ctl->ckpt, NULL, __ATOMIC_RELEASE);
    n_drained += n;
  }
  if (i == drained_to) return;
  drained_to = i;
  free_upto = i;
  free_ticket = mv_gp_ticket(m); /* a later ticket covers an earlier pending one */
  free_pending = 1;
}


/* ---- rounds ----------------------------------------------------------- */

/* Detaches the versions of ctl older than c, unless a writer that is not m
 * holds the block and they start at the head (its commit will link onto the
 * head). */
static void detach(struct mv_thread *m, struct mv_ctl *ctl, uint64_t c) {
  uintptr_t z = 0;
  /* Failure acquires: z may be another thread's copy, installed by its
   * seq_cst CAS after its owner was written; reading z->owner needs that
   * CAS to happen before (as in txn.c's lock_block; TSan found both). */
  int locked = __atomic_compare_exchange_n(&ctl->lock, &z, (uintptr_t)m | 1u, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
  int mine = !locked && z && !(z & 1u) && ((struct mv_copy *)z)->owner == m;
  struct mv_copy **link = &ctl->head;
  struct mv_copy *v = __atomic_load_n(link, __ATOMIC_ACQUIRE);
  while (v && v->cts >= c) {
    link = &v->older;
    v = __atomic_load_n(link, __ATOMIC_ACQUIRE);
  }
  if (v && (locked || mine || link != &ctl->head)) {
    __atomic_store_n(link, NULL, __ATOMIC_RELEASE);
    /* v and everything older are off the chain: their slots may be freed
     * (after a grace period) from this store on, so v is not read after it.
     * Monotonic: an earlier round detached only older versions. */
    __atomic_store_n(&mv_cold(ctl)->unl_ts, v->cts, __ATOMIC_RELEASE);
  }
  if (locked) __atomic_store_n(&ctl->lock, 0, __ATOMIC_RELEASE);
}

/* A round's passes over work[] miss the cache on each control header and
 * its newest version (a round takes thousands of blocks, written by other
 * threads since the last one): fetch the header MV_PREFETCH blocks ahead
 * and its chain's head half as far ahead, so the misses overlap. */
#define MV_PREFETCH 8

static void prefetch_ahead(size_t k, size_t n) {
  if (k + MV_PREFETCH < n) __builtin_prefetch(work[k + MV_PREFETCH], 1);
  if (k + MV_PREFETCH / 2 < n) __builtin_prefetch(__atomic_load_n(&work[k + MV_PREFETCH / 2]->head, __ATOMIC_RELAXED));
}

static void work_push(size_t *n, struct mv_ctl *c) {
  work = room_for(work, &capwork, *n, sizeof *work);
  work[(*n)++] = c;
}

static uint64_t *firsts;
static size_t capfirsts;

static void firsts_push(size_t i, uint64_t v) {
  firsts = room_for(firsts, &capfirsts, i, sizeof *firsts);
  firsts[i] = v;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static void repush(size_t n) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  for (size_t k = 0; k < n; k++) {
    if (k + MV_PREFETCH < n) __builtin_prefetch(work[k + MV_PREFETCH]);
    if (__atomic_load_n(&work[k]->head, __ATOMIC_ACQUIRE)) mv_dirty(work[k]);
  }
}

static int round_locked(struct mv_thread *m) {
  finish_free(m);
  if (mv.check) mv_check_invariant("before a checkpoint round");
  uint64_t h = mv_horizon(), bd = amber_ordo_boundary();
  if (h <= bd) return 0;
  uint64_t c = h - bd, c0 = __atomic_load_n(&mv.c, __ATOMIC_ACQUIRE);
  if (c <= c0) return 1;
  /* Every block written since its last checkpoint; clear the flags before
   * reading the chains (a commit that links afterwards pushes again). */
  size_t n = 0;
  for (struct mv_ctl *d = __atomic_exchange_n(&dirty_head, NULL, __ATOMIC_ACQ_REL), *next; d; d = next) {
    /* In the same walk (one cache miss per header, not two): `next` first,
     * since once the flag is clear a commit may push d again, rewriting it. */
    next = mv_dirty_next(d);
    work_push(&n, d);
    __atomic_store_n(&mv_cold(d)->next_dirty, 0, __ATOMIC_SEQ_CST);
  }
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  /* Blocks that need an entry: a version below c newer than their last
   * checkpoint; `first` is the oldest such version's cts.  At most n: only
   * counted (one more walk of every chain, cache misses on each) when the
   * CLog may not hold n more entries; else `need` stays the bound n, which
   * decides the same below (room() >= n >= the count). */
  size_t need = n;
  if (room() < n) {
    need = 0;
    for (size_t k = 0; k < n; k++) {
      struct mv_ctl *ctl = work[k];
      uint64_t f = 0;
      prefetch_ahead(k, n);
      for (struct mv_copy *v = __atomic_load_n(&ctl->head, __ATOMIC_ACQUIRE); v && v->cts > mv_cold(ctl)->ckpt_ts;
           v = __atomic_load_n(&v->older, __ATOMIC_ACQUIRE))
        if (v->cts < c) f = v->cts;
      if (f) firsts_push(need++, f);
    }
  }
  uint64_t used = head - tail;
  if (used > mv.clog_n / 4 * 3 || room() < need) drain(m, 1);
  else if (used > mv.clog_n / 2) drain(m, 0);
  if (room() < need) finish_free(m);
  if (room() < need) {
    /* A lower boundary that fits: below the (room+1)-th oldest first
     * version, at most `room` blocks need an entry, and every other
     * block's state there is already checkpointed. */
    qsort(firsts, need, sizeof *firsts, cmp_u64);
    c = room() ? firsts[room()] : 0;
    if (c <= c0) {
      repush(n);
      return 0;
    }
  }
  /* The entries, then c'. */
  size_t nd = 0;
  for (size_t k = 0; k < n; k++) {
    struct mv_ctl *ctl = work[k];
    prefetch_ahead(k, n);
    struct mv_copy *v = __atomic_load_n(&ctl->head, __ATOMIC_ACQUIRE);
    while (v && v->cts >= c) v = __atomic_load_n(&v->older, __ATOMIC_ACQUIRE);
    if (!v || v->cts <= mv_cold(ctl)->ckpt_ts) continue; /* nothing older than c', or already checkpointed */
    const char *copy = mv_clog_put(head, mv_ctl_blk(ctl), v->cts, v->data);
    head++;
    done_push(&nd, ctl, copy, v->cts);
  }
  if (nd) amber_pm_fence(AMBER_PM_CKPT);
  mv_clog_write(c, tail, head);
  n_rounds++;
  n_entries += nd;
  /* Readers may now take the checkpoint copies: point them there before
   * the versions leave the chains. */
  for (size_t k = 0; k < nd; k++) {
    mv_cold(done[k].ctl)->ckpt_ts = done[k].cts;
    __atomic_store_n(&done[k].ctl->ckpt, done[k].data, __ATOMIC_RELEASE);
  }
  for (size_t k = 0; k < n; k++) {
    prefetch_ahead(k, n);
    detach(m, work[k], c);
  }
  repush(n);
  if (mv.check) mv_check_invariant("after a checkpoint round");
  return 1;
}

int mv_checkpoint(struct mv_thread *m, int wait) {
  if (wait) pthread_mutex_lock(&round_lock);
  else if (pthread_mutex_trylock(&round_lock)) return 0;
  int r = round_locked(m);
  pthread_mutex_unlock(&round_lock);
  return r;
}

void mv_clog_drain_all(struct mv_thread *m, int wait_free) {
  for (;;) {
    pthread_mutex_lock(&round_lock);
    drain(m, 1);
    finish_free(m);
    int left = free_pending;
    pthread_mutex_unlock(&round_lock);
    if (!left || !wait_free) break;
    mv_backoff(m); /* readers of the drained entries are still running */
  }
  m->retries = 0;
}

void mv_clog_stats(uint64_t *rounds, uint64_t *entries, uint64_t *drained, uint64_t *live) {
  *live = head - tail;
  *rounds = n_rounds;
  *entries = n_entries;
  *drained = n_drained;
}



/* ---- irrevocable transactions (solo.c) ------------------------------- */

int mv_clog_solo_lock(void) {
  pthread_mutex_lock(&round_lock);
  if (!__atomic_load_n(&dirty_head, __ATOMIC_ACQUIRE) && head == tail && !free_pending) return 1;
  pthread_mutex_unlock(&round_lock);
  return 0;
}

uint64_t mv_clog_solo_head(void) { return head; }

int mv_clog_undo(uint64_t blk, uint64_t cts, const char *data) {
  struct mv_ckpt *e = undo_slot();
  if (!e) return 0;
  put_at(e, head, blk, cts, data);
  amber_pm_flush(e, mv.clog_entry, AMBER_PM_CKPT);
  head++;
  n_spilled += nsegs > 0;
  return 1;
}

uint64_t mv_clog_undo_bytes(void) {
  uint64_t b = 0;
  for (size_t k = 0; k < nsegs; k++) b += segs[k].pages * AMBER_PAGE;
  return b + mv.clog_bytes;
}

void mv_clog_solo_unlock(uint64_t c) {
  if (c) { /* the undo entries were never a checkpoint copy: nobody reads them */
    tail = drained_to = free_upto = head;
    mv_clog_write(c, tail, head);
  }
  spill_release();
  pthread_mutex_unlock(&round_lock);
}
