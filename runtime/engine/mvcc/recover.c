/* Recovery of the mvcc engine (value mode, docs/engines/mvcc.md).
 *
 * Every record still in an OLog ring holds, for each block its transaction
 * wrote, the byte ranges it stored.  The master holds each block at the
 * timestamp in the master timestamp table, and every record newer than that
 * timestamp for a block is still in its ring (plog.c's invariant).  So the
 * newest state of a block is the master with the ranges of every newer
 * record applied in commit-timestamp order.
 *
 * Three phases, each ended by a fence, make recovery idempotent and safe
 * against a crash in the middle of itself:
 *   A. write the ranges into the master (timestamps untouched: a crash here
 *      re-applies the same ranges, in the same order, over the same base);
 *   B. write the new timestamps (the data they vouch for is durable);
 *   C. empty the rings (every record is now at or below its blocks'
 *      timestamps, so a crash before a ring is emptied re-applies nothing). */
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

uint64_t mv_recover_logs(void) {
  struct found *v = NULL;
  size_t n = 0, cap = 0;
  uint64_t *end_pos = calloc(mv.max_threads, sizeof *end_pos), *end_seq = calloc(mv.max_threads, sizeof *end_seq);
  if (!end_pos || !end_seq) amber_fatal("mvcc recovery: out of memory");
  for (uint32_t i = 0; i < mv.max_threads; i++) scan(i, &v, &n, &cap, &end_pos[i], &end_seq[i]);
  qsort(v, n, sizeof *v, by_cts);

  /* Phase A.  A block's base timestamp is the one before this recovery:
   * every record newer than it is applied, in order. */
  uint64_t replayed = 0;
  struct touched {
    uint64_t blk, ts;
  } *tb = NULL;
  size_t ntb = 0, captb = 0;
  for (size_t k = 0; k < n; k++) {
    const struct mv_rec *r = v[k].r;
    const char *p = (const char *)r + sizeof *r, *end = (const char *)r + r->len;
    int applied = 0;
    for (uint32_t j = 0; j < r->nranges; j++) {
      const struct mv_range *g = (const struct mv_range *)p;
      if ((size_t)(end - p) < sizeof *g || !range_ok(g) || (size_t)(end - p) < sizeof *g + g->len)
        amber_fatal("heap %s: OLog record (ring %u, seq %llu) has a range outside the data area although its checksum is right; "
                    "the heap was written by a different amber or is damaged: restore it from a copy",
                    mv.heap->path, v[k].ring, (unsigned long long)r->seq);
      uint64_t blk = g->off >> mv.shift;
      if (r->cts > mv.mts[blk]) {
        char *dst = mv.base + g->off;
        memcpy(dst, p + sizeof *g, g->len);
        amber_pm_wrote(dst, g->len);
        amber_pm_flush(dst, g->len, AMBER_PM_DATA);
        if (ntb == captb) {
          captb = captb ? captb * 2 : 1024;
          tb = realloc(tb, captb * sizeof *tb);
          if (!tb) amber_fatal("mvcc recovery: out of memory");
        }
        tb[ntb++] = (struct touched){blk, r->cts};
        applied = 1;
      }
      p += sizeof *g + ((g->len + 7u) & ~7u);
    }
    replayed += applied;
  }
  if (ntb) amber_pm_fence(AMBER_PM_DATA);
  /* Phase B: records were applied in timestamp order, so the last entry of
   * a block holds its newest timestamp. */
  for (size_t k = 0; k < ntb; k++)
    mv_mts_raise(tb[k].blk, tb[k].ts);
  if (ntb) amber_pm_fence(AMBER_PM_DATA);
  /* Phase C. */
  for (uint32_t i = 0; i < mv.max_threads; i++) {
    uint64_t pos, seq;
    if (mv_ring_read_tail(i, &pos, &seq) < 0) continue;
    if (pos != end_pos[i]) mv_ring_write_tail(i, end_pos[i], end_seq[i]);
  }
  free(tb);
  free(v);
  free(end_pos);
  free(end_seq);
  return replayed;
}
