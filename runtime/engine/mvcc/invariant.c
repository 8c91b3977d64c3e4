/* AMBER_MVCC_ASSERT: the durability invariant, checked on the live heap
 * (issue [6/7] part 4; docs/engines/mvcc.md "The invariant").
 *
 * With c the durable checkpoint boundary, for every block:
 *   1. the master holds no effect of a commit at or after c (its master
 *      timestamp is below c);
 *   2. the master with the block's newest CLog entry below c laid over it
 *      (when newer than the master) is the block's newest version below c:
 *      the exact state as of c;
 *   3. that state with the OLog records from c on applied in commit-ts
 *      order (what recovery does, through the same code: mv_redo) is the
 *      block's latest committed version.
 * And two of the engine's own: every block with versions in its chain is
 * on the dirty list (else no round would ever checkpoint or detach them),
 * and no version in a chain has a cts at most its block's unl_ts (which
 * would let its slot be freed while readers can reach it; tlog.c).
 * The check runs before and after every checkpoint round and at close.  Commits take
 * check_lock shared while they publish, the check takes it exclusively, so
 * it sees no commit half done.  A violation is fatal. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "heap/heap.h"
#include "mvcc.h"

pthread_rwlock_t mv_check_lock = PTHREAD_RWLOCK_INITIALIZER;
static uint64_t nchecks;

/* Block images by block index: open addressing, grown at half full. */
struct images {
  uint64_t *key; /* blk + 1; 0 = empty */
  char *at_c, *latest;
  size_t cap, n;
};

static size_t find(struct images *I, uint64_t blk) {
  size_t i = (size_t)(blk * 0x9E3779B97F4A7C15ull) & (I->cap - 1);
  while (I->key[i] && I->key[i] != blk + 1) i = (i + 1) & (I->cap - 1);
  return i;
}

static void grow(struct images *I) {
  struct images n = {0};
  n.cap = I->cap ? I->cap * 2 : 1024;
  n.key = calloc(n.cap, sizeof *n.key);
  n.at_c = malloc(n.cap * mv.block);
  n.latest = malloc(n.cap * mv.block);
  if (!n.key || !n.at_c || !n.latest) amber_fatal("AMBER_MVCC_ASSERT: out of memory for block images");
  for (size_t i = 0; i < I->cap; i++) {
    if (!I->key[i]) continue;
    size_t j = find(&n, I->key[i] - 1);
    n.key[j] = I->key[i];
    memcpy(n.at_c + j * mv.block, I->at_c + i * mv.block, mv.block);
    memcpy(n.latest + j * mv.block, I->latest + i * mv.block, mv.block);
    n.n++;
  }
  free(I->key);
  free(I->at_c);
  free(I->latest);
  *I = n;
}

/* The images of blk, made from the master on first use. */
static size_t image(struct images *I, uint64_t blk) {
  if ((I->n + 1) * 2 > I->cap) grow(I);
  size_t i = find(I, blk);
  if (!I->key[i]) {
    I->key[i] = blk + 1;
    memcpy(I->at_c + i * mv.block, mv.base + (blk << mv.shift), mv.block);
    memcpy(I->latest + i * mv.block, mv.base + (blk << mv.shift), mv.block);
    I->n++;
  }
  return i;
}

static void apply(void *ctx, uint64_t off, const void *src, uint32_t len, uint64_t cts) {
  struct images *I = ctx;
  size_t i = image(I, off >> mv.shift);
  uint64_t in = off & (mv.block - 1);
  memcpy(I->latest + i * mv.block + in, src, len);
  if (cts < __atomic_load_n(&mv.c, __ATOMIC_ACQUIRE)) memcpy(I->at_c + i * mv.block + in, src, len);
}

static void violated(const char *when, uint64_t blk, const char *what) {
  amber_fatal("AMBER_MVCC_ASSERT: the mvcc durability invariant does not hold (%s): block %llu (data offset 0x%llx) %s; heap %s. "
              "This is a bug in amber or the heap was written behind its back: report it with this message",
              when, (unsigned long long)blk, (unsigned long long)(blk << mv.shift), what, mv.heap->path);
}

static int cmp_ptr(const void *a, const void *b) {
  uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
  return x < y ? -1 : x > y;
}

/* The dirty list's headers, sorted; *n of them. */
static uintptr_t *dirty_set(size_t *n) {
  size_t cap = 64;
  uintptr_t *v = malloc(cap * sizeof *v);
  *n = 0;
  for (struct mv_ctl *d = mv_clog_dirty_first(); d && v; d = mv_dirty_next(d)) {
    if (*n == cap) v = realloc(v, (cap *= 2) * sizeof *v);
    if (v) v[(*n)++] = (uintptr_t)d;
  }
  if (!v) amber_fatal("AMBER_MVCC_ASSERT: out of memory");
  qsort(v, *n, sizeof *v, cmp_ptr);
  return v;
}

static void check_chain(const char *when, uint64_t b, const struct mv_ctl *ctl, const uintptr_t *dirty, size_t ndirty) {
  const struct mv_copy *head = __atomic_load_n(&ctl->head, __ATOMIC_ACQUIRE);
  if (!head) return;
  uintptr_t key = (uintptr_t)ctl;
  if (!bsearch(&key, dirty, ndirty, sizeof *dirty, cmp_ptr))
    violated(when, b, "has versions in its chain but is not on the dirty list (no round would take it)");
  uint64_t unl = __atomic_load_n(&mv_cold(ctl)->unl_ts, __ATOMIC_ACQUIRE);
  for (const struct mv_copy *v = head; v; v = __atomic_load_n(&v->older, __ATOMIC_ACQUIRE))
    if (v->cts <= unl) violated(when, b, "has a version in its chain that its unl_ts marks as detached (its slot may be freed)");
}

void mv_check_invariant(const char *when) {
  pthread_rwlock_wrlock(&mv_check_lock);
  uint64_t c = __atomic_load_n(&mv.c, __ATOMIC_ACQUIRE);
  size_t ndirty;
  uintptr_t *dirty = dirty_set(&ndirty);
  struct images I = {0};
  grow(&I);
  mv_redo(apply, &I, NULL);
  for (uint64_t b = 0; b < mv.nblocks; b++) {
    struct mv_ctl *ctl = mv_ctl_of(b);
    const char *master = mv.base + (b << mv.shift);
    /* Relaxed: an irrevocable region may zero the word meanwhile (solo.c,
     * outside this lock); either value it reads is one the engine keeps
     * below c (TSan, test/tsan, found the plain read). */
    uint64_t mts = __atomic_load_n(&mv.mts[b], __ATOMIC_RELAXED);
    if (mts && mts >= c) violated(when, b, "has a master timestamp at or after the checkpoint boundary");
    if (!ctl) {
      if (!I.n) continue;
      size_t i = find(&I, b);
      if (I.key[i] && memcmp(I.latest + i * mv.block, master, mv.block))
        violated(when, b, "is changed by recovery although it was never written since the heap was opened");
      continue;
    }
    check_chain(when, b, ctl, dirty, ndirty);
    const char *ckpt = __atomic_load_n(&ctl->ckpt, __ATOMIC_ACQUIRE);
    if (ckpt && mv_cold(ctl)->ckpt_ts >= c) violated(when, b, "has a checkpoint copy from after the checkpoint boundary");
    /* What the running engine holds: the latest version, and the newest
     * one below c. */
    const struct mv_copy *head = __atomic_load_n(&ctl->head, __ATOMIC_ACQUIRE), *below = head;
    while (below && below->cts >= c) below = below->older;
    const char *latest = head ? head->data : ckpt ? ckpt : master;
    const char *at_c = below ? below->data : ckpt ? ckpt : master;
    size_t i = find(&I, b);
    const char *r_latest = I.key[i] ? I.latest + i * mv.block : master;
    const char *r_at_c = I.key[i] ? I.at_c + i * mv.block : master;
    if (memcmp(r_at_c, at_c, mv.block)) violated(when, b, "differs, as the master and the CLog rebuild it, from its state at the checkpoint boundary");
    if (memcmp(r_latest, latest, mv.block)) violated(when, b, "differs, as recovery would rebuild it, from its latest committed version");
  }
  free(dirty);
  free(I.key);
  free(I.at_c);
  free(I.latest);
  nchecks++;
  pthread_rwlock_unlock(&mv_check_lock);
}

uint64_t mv_checks_run(void) { return nchecks; }
