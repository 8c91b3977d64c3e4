/* Re-execution of OLog records in DRAM (docs/engines/mvcc.md, "Recovery").
 *
 * A store of block versions, in commit-ts order per block, over a base
 * (the state at the checkpoint boundary c, given by the caller).  Records
 * are applied in commit-ts order:
 *   - a value record's version of a block is the block's newest version
 *     with its ranges laid over it (block writers are serialised by the
 *     block lock, so the newest one is the one the writer copied);
 *   - an operational record re-runs its region on a private thread state
 *     whose loads read the newest version certainly older than the record's
 *     local-ts (the writer's ORDO visibility rule, with its boundary), whose
 *     stores go to private copies, and whose inputs come from the record
 *     (tx/op.h); its copies become versions at its commit ts.
 * Every record from c on has local-ts certainly after c (a round's boundary
 * is below every running transaction's local-ts by the ORDO boundary), so
 * the base plus the versions replayed so far are all it can have read. */
#include <stdlib.h>
#include <string.h>

#include "tx/alloc.h"
#include "base/diag.h"
#include "heap/heap.h"
#include "tx/op.h"
#include "heap/window.h"
#include "tx/tx.h"
#include "mvcc.h"

struct rp_ver {
  struct rp_ver *older;
  uint64_t cts; /* 0: the base */
  char data[];
};

struct rp_blk {
  uint64_t key;          /* blk + 1; 0: empty slot */
  struct rp_ver *newest;
  char *pending;         /* the running operational record's copy */
  uint64_t stamp;        /* the chunk it was last written in */
};

struct mv_rp {
  struct rp_blk *tab;
  size_t cap, n;
  mv_rp_base_fn *base;
  void *ctx;
  uint64_t boundary;     /* the writer's ORDO boundary */
  uint64_t local;        /* the running operational record's local-ts */
  uint64_t *wset;        /* its written blocks */
  size_t nw, capw;
  uint64_t chunk;        /* stamp of the blocks written since the last mv_rp_flushed */
  uint64_t *touched;     /* those blocks */
  size_t ntouched, captouched;
};

static struct mv_rp *cur; /* the store the replaying thread reads and writes */

static void *xalloc(size_t n) {
  void *p = malloc(n);
  if (!p) amber_fatal("mvcc recovery: out of memory (%zu bytes) for replayed versions", n);
  return p;
}

static struct rp_blk *slot_of(struct mv_rp *R, uint64_t blk) {
  size_t i = (size_t)((blk + 1) * 0x9E3779B97F4A7C15ull) & (R->cap - 1);
  while (R->tab[i].key && R->tab[i].key != blk + 1) i = (i + 1) & (R->cap - 1);
  return &R->tab[i];
}

static void grow(struct mv_rp *R) {
  struct rp_blk *old = R->tab;
  size_t oldcap = R->cap;
  R->cap = oldcap ? oldcap * 2 : 1024;
  R->tab = calloc(R->cap, sizeof *R->tab);
  if (!R->tab) amber_fatal("mvcc recovery: out of memory for replayed blocks");
  for (size_t i = 0; i < oldcap; i++)
    if (old[i].key) *slot_of(R, old[i].key - 1) = old[i];
  free(old);
}

static void push(uint64_t **v, size_t *n, size_t *cap, uint64_t b) {
  if (*n == *cap) {
    *cap = *cap ? *cap * 2 : 256;
    *v = realloc(*v, *cap * sizeof **v);
    if (!*v) amber_fatal("mvcc recovery: out of memory");
  }
  (*v)[(*n)++] = b;
}

/* The block's entry, with its base version on first use. */
static struct rp_blk *block(struct mv_rp *R, uint64_t blk) {
  struct rp_blk *b = slot_of(R, blk);
  if (b->key) return b;
  if ((R->n + 1) * 2 > R->cap) {
    grow(R);
    b = slot_of(R, blk);
  }
  struct rp_ver *v = xalloc(sizeof *v + mv.block);
  v->older = NULL;
  v->cts = 0;
  R->base(R->ctx, blk, v->data);
  b->key = blk + 1;
  b->newest = v;
  b->pending = NULL;
  b->stamp = 0;
  R->n++;
  return b;
}

struct mv_rp *mv_rp_new(mv_rp_base_fn *base, void *ctx, uint64_t boundary) {
  struct mv_rp *R = calloc(1, sizeof *R);
  if (!R) amber_fatal("mvcc recovery: out of memory");
  R->base = base;
  R->ctx = ctx;
  R->boundary = boundary;
  R->chunk = 1;
  grow(R);
  return R;
}

void mv_rp_free(struct mv_rp *R) {
  for (size_t i = 0; i < R->cap; i++)
    for (struct rp_ver *v = R->tab[i].newest, *o; v; v = o) {
      o = v->older;
      free(v);
    }
  free(R->tab);
  free(R->wset);
  free(R->touched);
  free(R);
}

static void add_version(struct mv_rp *R, struct rp_blk *b, uint64_t cts, const char *data) {
  struct rp_ver *v = xalloc(sizeof *v + mv.block);
  memcpy(v->data, data, mv.block);
  v->cts = cts;
  v->older = b->newest;
  b->newest = v;
  if (b->stamp != R->chunk) {
    b->stamp = R->chunk;
    push(&R->touched, &R->ntouched, &R->captouched, b->key - 1);
  }
}

/* ---- the replaying transaction's reads and writes (mv_load, mv_store) */

static const char *visible(struct mv_rp *R, struct rp_blk *b) {
  if (b->pending) return b->pending;
  for (struct rp_ver *v = b->newest; v; v = v->older)
    if (v->cts == 0 || R->local > v->cts + R->boundary) return v->data;
  AMBER_BUG("replayed block %llu has no base version", (unsigned long long)(b->key - 1));
}

void mv_rp_load(const void *addr, void *dst, size_t n) {
  const char *p = addr;
  char *d = dst;
  while (n) {
    uint64_t blk, in;
    size_t k = mv_piece(p, n, &blk, &in);
    memcpy(d, visible(cur, block(cur, blk)) + in, k);
    p += k;
    d += k;
    n -= k;
  }
}

void mv_rp_store(void *addr, const void *src, size_t n) {
  char *p = addr;
  const char *s = src;
  while (n) {
    uint64_t blk, in;
    size_t k = mv_piece(p, n, &blk, &in);
    struct rp_blk *b = block(cur, blk);
    if (!b->pending) {
      const char *from = visible(cur, b);
      b->pending = xalloc(mv.block);
      memcpy(b->pending, from, mv.block);
      push(&cur->wset, &cur->nw, &cur->capw, blk);
    }
    memcpy(b->pending + in, s, k);
    p += k;
    s += k;
    n -= k;
  }
}

/* ---- records ---- */

static void apply_values(struct mv_rp *R, const struct mv_rec *r) {
  const char *p = (const char *)r + sizeof *r, *end = mv_rec_body_end(r);
  for (uint32_t j = 0; j < r->nranges; j++) {
    const struct mv_range *g = (const struct mv_range *)p;
    if ((size_t)(end - p) < sizeof *g || g->off >= mv.size || g->len > mv.block ||
        (g->off & (mv.block - 1)) + g->len > mv.block || (size_t)(end - p) < sizeof *g + g->len)
      amber_fatal("heap %s: OLog record (seq %llu) has a range outside the data area although its checksum is right; "
                  "the heap was written by a different amber or is damaged: restore it from a copy",
                  mv.heap->path, (unsigned long long)r->seq);
    struct rp_blk *b = block(R, g->off >> mv.shift);
    char tmp[4096];
    memcpy(tmp, b->newest->data, mv.block);
    memcpy(tmp + (g->off & (mv.block - 1)), p + sizeof *g, g->len);
    add_version(R, b, r->cts, tmp);
    p += sizeof *g + ((g->len + 7u) & ~7u);
  }
}

/* Re-runs the record's region on a private thread state. */
static void apply_op(struct mv_rp *R, const struct mv_rec *r, uint32_t ring, const char *writer) {
  uint64_t op_id;
  memcpy(&op_id, (const char *)r + sizeof *r, sizeof op_id);
  struct __amber_region_desc *d = amber_op_find(op_id);
  if (!d) AMBER_BUG("replay of op id 0x%016llx, which recovery's writer check should have refused", (unsigned long long)op_id);
  if (r->reserved < d->closure_size || sizeof *r + 8 + r->reserved > (size_t)(mv_rec_body_end(r) - (const char *)r))
    amber_fatal("heap %s: the OLog (ring %u, record %llu) of region %s holds %u bytes of inputs, fewer than its %u-byte "
                "closure; it was written by a different build (%s)",
                mv.heap->path, ring, (unsigned long long)r->seq, d->name, r->reserved, d->closure_size, writer);
  struct amber_thread rt, *saved = amber_self;
  memset(&rt, 0, sizeof rt);
  rt.depth = 1;
  rt.writer = 1;
  rt.kind = d->kind;
  rt.desc = d;
  rt.op = AMBER_OP_REPLAY;
  rt.opin = (const char *)r + sizeof *r + 8;
  rt.opn = r->reserved;
  rt.oprd = 0;
  char closure[d->closure_size ? d->closure_size : 1];
  amber_op_take(&rt, closure, d->closure_size);
  R->local = r->local;
  R->nw = 0;
  cur = R;
  amber_alloc_attach(mv.heap);
  /* The program's pointers are canonical: the callbacks tell heap from
   * volatile memory by the window.  During recovery it is not published
   * yet, and only this thread runs: it is set for the replay and taken back.
   * At run time (AMBER_MVCC_ASSERT's check) it is published already, and
   * other threads read it with no lock: it is left alone, not rewritten
   * with the same values (a data race, found by TSan: test/tsan). */
  uintptr_t base = __amber_heap_base, size = __amber_heap_size;
  int publish = base != (uintptr_t)mv.heap->window || size != mv.heap->hdr.data_size;
  if (publish) {
    __amber_heap_base = (uintptr_t)mv.heap->window;
    __amber_heap_size = mv.heap->hdr.data_size;
  }
  amber_self = &rt;
  d->fn(closure);
  amber_self = saved;
  if (publish) {
    __amber_heap_base = base;
    __amber_heap_size = size;
  }
  cur = NULL;
  if (rt.oprd != rt.opn) amber_op_diverged(&rt, "used fewer of its recorded inputs than it took when it ran");
  free(rt.alloc_rec);
  for (size_t i = 0; i < R->nw; i++) {
    struct rp_blk *b = slot_of(R, R->wset[i]);
    add_version(R, b, r->cts, b->pending);
    free(b->pending);
    b->pending = NULL;
  }
  R->nw = 0;
}

void mv_rp_apply(struct mv_rp *R, const struct mv_rec *r, uint32_t ring, const char *writer) {
  if (r->kind == MV_REC_OP) apply_op(R, r, ring, writer);
  else apply_values(R, r);
}

size_t mv_rp_touched(const struct mv_rp *R) { return R->ntouched; }

void mv_rp_each_touched(struct mv_rp *R, void (*fn)(void *ctx, uint64_t blk, uint64_t cts, const char *data), void *ctx) {
  for (size_t i = 0; i < R->ntouched; i++) {
    struct rp_blk *b = slot_of(R, R->touched[i]);
    fn(ctx, b->key - 1, b->newest->cts, b->newest->data);
  }
}

void mv_rp_flushed(struct mv_rp *R) {
  R->chunk++;
  R->ntouched = 0;
}

