/* Recovery of the mvcc engine (value mode, docs/engines/mvcc.md).
 *
 * The master and the CLog hold the exact state as of the durable checkpoint
 * boundary c (clog.c): per block, the newest of the master (at its master
 * timestamp) and the CLog entries with cts < c.  Every commit with cts >= c
 * has its record in an OLog ring (plog.c), and each record holds, per block
 * its transaction wrote, the byte ranges it stored.  So the newest state is
 * the state at c with the ranges of every record from c on applied in
 * commit-timestamp order.
 *
 * Three phases, each ended by a fence, make recovery idempotent and safe
 * against a crash in the middle of itself:
 *   A. write the checkpoint copies, then the ranges, into the master
 *      (timestamps untouched: a crash here re-applies the same writes in the
 *      same order, and each write stores absolute bytes);
 *   B. write the new timestamps (the data they vouch for is durable);
 *   C. empty the CLog (moving c past every replayed commit), then the OLog
 *      rings: every entry and record is now at or below its blocks'
 *      timestamps or below c, so a crash before that re-applies nothing. */
#include <stdlib.h>
#include <string.h>

#include "../../diag.h"
#include "../../heap.h"
#include "../../pm.h"
#include "mvcc.h"

struct found {
  const struct mv_rec *r;
  uint32_t ring;
};

static int by_cts(const void *a, const void *b) {
  const struct found *x = a, *y = b;
  if (x->r->cts != y->r->cts) return x->r->cts < y->r->cts ? -1 : 1;
  if (x->ring != y->ring) return x->ring < y->ring ? -1 : 1;
  return x->r->seq < y->r->seq ? -1 : x->r->seq > y->r->seq;
}

/* Scans ring i from its durable tail: the records in order, ending at the
 * first one that is missing, stale (an older lap's) or torn. */
static void scan(uint32_t i, struct found **v, size_t *n, size_t *cap, uint64_t *end_pos, uint64_t *end_seq) {
  uint64_t pos, seq;
  if (mv_ring_read_tail(i, &pos, &seq) < 0) {
    *end_pos = *end_seq = 0;
    return;
  }
  for (;;) {
    const struct mv_rec *r = mv_rec_at(i, &pos, seq);
    if (!r) break;
    if (r->magic == MV_REC_MAGIC) {
      if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 1024;
        *v = realloc(*v, *cap * sizeof **v);
        if (!*v) amber_fatal("mvcc recovery: out of memory for %zu OLog records", *cap);
      }
      (*v)[(*n)++] = (struct found){r, i};
    }
    pos += r->len;
    seq++;
  }
  *end_pos = pos;
  *end_seq = seq;
}

/* Does range g of a record fit the data area? */
static int range_ok(const struct mv_range *g) {
  return g->off < mv.size && g->len <= mv.block && (g->off & (mv.block - 1)) + g->len <= mv.block;
}

struct ckpt_found {
  uint64_t blk, cts, seq;
  const char *data;
};

static int by_blk_cts(const void *a, const void *b) {
  const struct ckpt_found *x = a, *y = b;
  if (x->blk != y->blk) return x->blk < y->blk ? -1 : 1;
  if (x->cts != y->cts) return x->cts < y->cts ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* What is in the logs: the OLog records in commit-ts order, the CLog
 * entries of durable rounds, and where each ring's valid part ends. */
struct logs {
  struct found *rec;
  size_t nrec;
  struct ckpt_found *ck;
  size_t nck;
  uint64_t c, clog_end;
  uint64_t *end_pos, *end_seq;
};

static void scan_logs(struct logs *L) {
  memset(L, 0, sizeof *L);
  size_t cap = 0;
  L->end_pos = calloc(mv.max_threads, sizeof *L->end_pos);
  L->end_seq = calloc(mv.max_threads, sizeof *L->end_seq);
  if (!L->end_pos || !L->end_seq) amber_fatal("mvcc recovery: out of memory");
  for (uint32_t i = 0; i < mv.max_threads; i++) scan(i, &L->rec, &L->nrec, &cap, &L->end_pos[i], &L->end_seq[i]);
  qsort(L->rec, L->nrec, sizeof *L->rec, by_cts);
  uint64_t t = 0;
  if (mv_clog_read(&L->c, &t, NULL) < 0) return;
  size_t capck = 0;
  uint64_t i = t;
  for (; i - t < mv.clog_n; i++) {
    const struct mv_ckpt *e = mv_ckpt_at(i);
    if (!e) break;
    if (e->cts >= L->c) continue; /* a round that never became durable */
    if (L->nck == capck) {
      capck = capck ? capck * 2 : 1024;
      L->ck = realloc(L->ck, capck * sizeof *L->ck);
      if (!L->ck) amber_fatal("mvcc recovery: out of memory for %zu CLog entries", capck);
    }
    L->ck[L->nck++] = (struct ckpt_found){e->blk, e->cts, e->seq, (const char *)(e + 1)};
  }
  L->clog_end = i;
  qsort(L->ck, L->nck, sizeof *L->ck, by_blk_cts);
}

static void free_logs(struct logs *L) {
  free(L->rec);
  free(L->ck);
  free(L->end_pos);
  free(L->end_seq);
}

static uint64_t redo(const struct logs *L, mv_apply_fn *apply, void *ctx, uint64_t *maxcts) {
  uint64_t mx = 0;
  /* The state at c: each block's newest checkpoint copy, unless the master
   * already holds it (or a newer version: a drained entry, or a recovery
   * that got as far as its phase B). */
  for (size_t k = 0; k < L->nck; k++) {
    const struct ckpt_found *e = &L->ck[k];
    if (k + 1 < L->nck && L->ck[k + 1].blk == e->blk) continue;
    if (e->cts > mx) mx = e->cts;
    if (e->cts > mv.mts[e->blk]) apply(ctx, e->blk << mv.shift, e->data, (uint32_t)mv.block, e->cts);
  }
  /* Then every commit from c on, in order. */
  uint64_t replayed = 0;
  for (size_t k = 0; k < L->nrec; k++) {
    const struct mv_rec *r = L->rec[k].r;
    if (r->cts < L->c) continue; /* in the state at c */
    if (r->cts > mx) mx = r->cts;
    const char *p = (const char *)r + sizeof *r, *end = (const char *)r + r->len;
    int applied = 0;
    for (uint32_t j = 0; j < r->nranges; j++) {
      const struct mv_range *g = (const struct mv_range *)p;
      if ((size_t)(end - p) < sizeof *g || !range_ok(g) || (size_t)(end - p) < sizeof *g + g->len)
        amber_fatal("heap %s: OLog record (ring %u, seq %llu) has a range outside the data area although its checksum is right; "
                    "the heap was written by a different amber or is damaged: restore it from a copy",
                    mv.heap->path, L->rec[k].ring, (unsigned long long)r->seq);
      uint64_t blk = g->off >> mv.shift;
      if (r->cts > mv.mts[blk]) {
        apply(ctx, g->off, p + sizeof *g, g->len, r->cts);
        applied = 1;
      }
      p += sizeof *g + ((g->len + 7u) & ~7u);
    }
    replayed += applied;
  }
  if (maxcts) *maxcts = mx;
  return replayed;
}

uint64_t mv_redo(mv_apply_fn *apply, void *ctx, uint64_t *maxcts) {
  struct logs L;
  scan_logs(&L);
  uint64_t n = redo(&L, apply, ctx, maxcts);
  free_logs(&L);
  return n;
}

struct touched {
  struct {
    uint64_t blk, ts;
  } *v;
  size_t n, cap;
};

static void apply_to_master(void *ctx, uint64_t off, const void *src, uint32_t len, uint64_t cts) {
  struct touched *tb = ctx;
  char *dst = mv.base + off;
  memcpy(dst, src, len);
  amber_pm_wrote(dst, len);
  amber_pm_flush(dst, len, AMBER_PM_DATA);
  if (tb->n == tb->cap) {
    tb->cap = tb->cap ? tb->cap * 2 : 1024;
    tb->v = realloc(tb->v, tb->cap * sizeof *tb->v);
    if (!tb->v) amber_fatal("mvcc recovery: out of memory");
  }
  tb->v[tb->n].blk = off >> mv.shift;
  tb->v[tb->n].ts = cts;
  tb->n++;
}

uint64_t mv_recover_logs(void) {
  struct logs L;
  scan_logs(&L);
  /* Phase A. */
  struct touched tb = {0};
  uint64_t mx = 0;
  uint64_t replayed = redo(&L, apply_to_master, &tb, &mx);
  if (tb.n) amber_pm_fence(AMBER_PM_DATA);
  /* Phase B: writes were applied in timestamp order per block, so the
   * atomic max leaves each block's newest. */
  for (size_t k = 0; k < tb.n; k++) mv_mts_raise(tb.v[k].blk, tb.v[k].ts);
  if (tb.n) amber_pm_fence(AMBER_PM_DATA);
  /* Phase C. */
  uint64_t c = 0, t = 0;
  if (mv_clog_read(&c, &t, NULL) >= 0 && (t != L.clog_end || mx >= c)) mv_clog_write(mx >= c ? mx + 1 : c, L.clog_end);
  for (uint32_t i = 0; i < mv.max_threads; i++) {
    uint64_t pos, seq;
    if (mv_ring_read_tail(i, &pos, &seq) < 0) continue;
    if (pos != L.end_pos[i]) mv_ring_write_tail(i, L.end_pos[i], L.end_seq[i]);
  }
  free(tb.v);
  free_logs(&L);
  return replayed;
}
