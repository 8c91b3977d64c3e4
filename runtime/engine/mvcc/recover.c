/* Recovery of the mvcc engine (docs/engines/mvcc.md, "Recovery").
 *
 * The master and the CLog hold the exact state as of the durable checkpoint
 * boundary c (clog.c): per block, the newest of the master (at its master
 * timestamp) and the CLog entries with cts < c.  Every commit with cts >= c
 * has its record in an OLog ring (plog.c): the byte ranges it stored
 * (values), or its region's op id and inputs (operational, tx/op.h).
 *
 * Recovery never writes the master with anything but a state at a durable
 * boundary, so a crash anywhere in it leaves master + CLog + OLog as
 * recoverable as before:
 *   1. the state at c goes into the master: the newest CLog entry of each
 *      block (when newer than its master timestamp), fence, the master
 *      timestamps, fence, then one header write empties the CLog;
 *   2. the records from c on are re-made in DRAM, in commit-ts order
 *      (replay.c); the blocks they wrote become CLog entries, fence, then a
 *      header write moves c past them (a durable checkpoint round), and
 *      step 1 puts them into the master.  When the blocks would not fit the
 *      CLog this happens in chunks, cut only where every later record's
 *      local-ts is certainly after the chunk's boundary;
 *   3. the OLog rings are emptied: every record is now below c.
 * A crash before a header write leaves entries with cts >= c, which the
 * next recovery ignores (as for a checkpoint round that never finished). */
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "heap/heap.h"
#include "tx/op.h"
#include "pm/pm.h"
#include "mvcc.h"

/* Does CLog entry k hold its block's state at c: its block's newest entry
 * (below c), and newer than the master? */
static int entry_is_state_at_c(const struct mv_logs *L, size_t k) {
  const struct mv_ckpt_found *e = &L->ck[k];
  return !(k + 1 < L->nck && L->ck[k + 1].blk == e->blk) && e->cts > mv.mts[e->blk];
}

/* The state at c of a block: its newest CLog entry below c when newer than
 * the master, else the master. */
static const char *at_c(const struct mv_logs *L, uint64_t blk) {
  size_t lo = 0, hi = L->nck; /* the first entry of a larger block */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (L->ck[mid].blk <= blk) lo = mid + 1;
    else hi = mid;
  }
  if (lo && L->ck[lo - 1].blk == blk && L->ck[lo - 1].cts > mv.mts[blk]) return L->ck[lo - 1].data;
  return mv.base + (blk << mv.shift);
}

static void base_at_c(void *ctx, uint64_t blk, char *out) { memcpy(out, at_c(ctx, blk), mv.block); }

/* The index of the first record from c on. */
static size_t first_after_c(const struct mv_logs *L) {
  size_t k = 0;
  while (k < L->nrec && L->rec[k].r->cts < L->c) k++;
  return k;
}

/* The writer's name and build for messages: "PATH (build 0x...)". */
static void writer_name(const struct mv_writer *w, char *who, size_t whosz) {
  if (!w) snprintf(who, whosz, "an unknown program");
  else snprintf(who, whosz, "%.*s (build 0x%016llx)", (int)w->len, w->path, (unsigned long long)w->identity);
}

/* The ORDO boundary the records' writer used (into *bound), and a check that
 * the running program is that writer's build and has every region the
 * records name.  `who` gets the writer's name for messages.  -1 after an
 * amber: error: message. */
static int writer_check(const struct mv_logs *L, size_t from, uint64_t *bound, char *who, size_t whosz) {
  uint64_t b = 0;
  snprintf(who, whosz, "an unknown program");
  for (size_t k = from; k < L->nrec; k++) {
    const struct mv_rec *r = L->rec[k].r;
    if (r->kind != MV_REC_OP) continue;
    const struct mv_writer *w = mv_writer_read(L->rec[k].ring);
    if (!w)
      return amber_error("heap %s: OLog ring %u holds operational records but no valid note of the program that wrote them; the "
                         "file is damaged: restore it from a copy",
                         mv.heap->path, L->rec[k].ring);
    writer_name(w, who, whosz);
    uint64_t op_id;
    memcpy(&op_id, (const char *)r + sizeof *r, sizeof op_id);
    const struct __amber_region_desc *d = amber_op_find(op_id);
    if (w->identity != amber_op_identity() || !d) {
      size_t n = 0;
      for (size_t j = from; j < L->nrec; j++) n += L->rec[j].r->kind == MV_REC_OP;
      const char *me = amber_op_program()[0] ? amber_op_program() : "?";
      int same_path = w->len == strlen(me) && !memcmp(w->path, me, w->len);
      char here[256];
      if (d) snprintf(here, sizeof here, "here region %s (%s:%u)", d->name ? d->name : "?", d->file ? d->file : "?", d->line);
      else snprintf(here, sizeof here, "no region of this program has that op id");
      /* One message: who wrote the records, who this is, what to do. */
      return amber_error(
          "heap %s: %zu committed transaction%s after the last checkpoint %s operational records (AMBER_OLOG=ops), which only "
          "the build that wrote them can re-execute: written by %s (first: OLog ring %u record %llu, region op id 0x%016llx, %s); "
          "this program, %s (build 0x%016llx), is %s. Nothing was changed. Recover the heap with the writer's build first: "
          "amber recover %s --with OLD, OLD being that build%s; then run this one. Value records (the default, AMBER_OLOG "
          "unset) recover in any build",
          mv.heap->path, n, n == 1 ? "" : "s", n == 1 ? "is" : "are", who, L->rec[k].ring, (unsigned long long)r->seq,
          (unsigned long long)op_id, here, me, (unsigned long long)amber_op_identity(),
          w->identity == amber_op_identity() ? "the same build but lacks that region"
          : same_path                         ? "a different build at the same path (rebuilt since)"
                                              : "a different program or build",
          mv.heap->path,
          same_path && w->identity != amber_op_identity() ? " (a copy kept from before the rebuild, or the same source built again "
                                                            "without the change)"
                                                          : "");
    }
    if (w->boundary > b) b = w->boundary;
  }
  *bound = b;
  return 0;
}

static uint64_t writer_boundary(const struct mv_logs *L, size_t from, char *who, size_t whosz) {
  uint64_t b = 0;
  if (writer_check(L, from, &b, who, whosz) != 0) exit(2);
  return b;
}

int mv_recover_precheck(void) {
  struct mv_logs L;
  mv_logs_scan(&L, 0, 0);
  char who[600];
  uint64_t b;
  int rc = writer_check(&L, first_after_c(&L), &b, who, sizeof who);
  mv_logs_free(&L);
  return rc;
}

struct applier {
  mv_apply_fn *fn;
  void *ctx;
};
static void forward(void *ctx, uint64_t blk, uint64_t cts, const char *data) {
  struct applier *a = ctx;
  a->fn(a->ctx, blk << mv.shift, data, (uint32_t)mv.block, cts);
}

uint64_t mv_redo(mv_apply_fn *apply, void *ctx, uint64_t *maxcts) {
  struct mv_logs L;
  mv_logs_scan(&L, 0, 0);
  uint64_t mx = 0;
  for (size_t k = 0; k < L.nck; k++) {
    const struct mv_ckpt_found *e = &L.ck[k];
    if (e->cts > mx) mx = e->cts;
    if (entry_is_state_at_c(&L, k)) apply(ctx, e->blk << mv.shift, e->data, (uint32_t)mv.block, e->cts);
  }
  size_t from = first_after_c(&L);
  uint64_t n = 0;
  if (from < L.nrec) {
    char who[600];
    struct mv_rp *R = mv_rp_new(base_at_c, &L, writer_boundary(&L, from, who, sizeof who));
    struct applier a = {apply, ctx};
    for (size_t k = from; k < L.nrec; k++) {
      mv_rp_apply(R, L.rec[k].r, L.rec[k].ring, who);
      mv_rp_each_touched(R, forward, &a);
      mv_rp_flushed(R);
      n++;
      if (L.rec[k].r->cts > mx) mx = L.rec[k].r->cts;
    }
    mv_rp_free(R);
  }
  if (maxcts) *maxcts = mx;
  mv_logs_free(&L);
  return n;
}

/* Step 1: the state at c into the master, then an empty CLog. */
static void clog_to_master(struct mv_logs *L) {
  size_t nw = 0;
  for (size_t k = 0; k < L->nck; k++) {
    const struct mv_ckpt_found *e = &L->ck[k];
    if (!entry_is_state_at_c(L, k)) continue;
    char *dst = mv.base + (e->blk << mv.shift);
    memcpy(dst, e->data, mv.block);
    amber_pm_wrote(dst, mv.block);
    amber_pm_flush(dst, mv.block, AMBER_PM_DATA);
    nw++;
  }
  if (nw) {
    amber_pm_fence(AMBER_PM_DATA);
    for (size_t k = 0; k < L->nck; k++)
      if (entry_is_state_at_c(L, k)) mv_mts_raise(L->ck[k].blk, L->ck[k].cts);
    amber_pm_fence(AMBER_PM_DATA);
  }
  uint64_t c = 0, t = 0, hd = 0;
  if (mv_clog_read(&c, &t, &hd, NULL) >= 0 && (t != L->clog_end || hd != L->clog_end)) mv_clog_write(c, L->clog_end, L->clog_end);
  L->nck = 0; /* the master now holds the state at c */
}

/* Writes the chunk's entries from index L->clog_end on, and lists them as
 * step 1 reads them (one per block). */
static void put_entry(void *ctx, uint64_t blk, uint64_t cts, const char *data) {
  struct mv_logs *L = ctx;
  uint64_t i = L->clog_end + L->nck;
  L->ck[L->nck++] = (struct mv_ckpt_found){blk, cts, i, mv_clog_put(i, blk, cts, data)};
}

/* Step 2's checkpoint round for the blocks replayed since the last one, at
 * boundary c; then step 1 for them. */
static void checkpoint_chunk(struct mv_logs *L, struct mv_rp *R, uint64_t c) {
  size_t n = mv_rp_touched(R);
  if (n > mv.clog_n)
    amber_fatal("recovery of heap %s must checkpoint %zu blocks at once, more than its CLog holds (%llu): the OLog holds "
                "transactions that overlapped in time across that many blocks. The heap is still recoverable (nothing of "
                "this checkpoint was written); recover it with an amber whose recovery can split the work (report this)",
                mv.heap->path, n, (unsigned long long)mv.clog_n);
  /* Step 1 emptied the CLog: clog_end is its tail. */
  free(L->ck);
  L->ck = malloc((n ? n : 1) * sizeof *L->ck);
  if (!L->ck) amber_fatal("mvcc recovery: out of memory");
  L->nck = 0;
  mv_rp_each_touched(R, put_entry, L);
  if (n) amber_pm_fence(AMBER_PM_CKPT);
  mv_clog_write(c, L->clog_end, L->clog_end + n);
  L->c = c;
  L->clog_end += n;
  clog_to_master(L);
  mv_rp_flushed(R);
}

/* Operational records re-run the program's regions, which need the heap at
 * its base address: the amber tool cannot.  `amber recover` refuses (before
 * writing anything); check, info and stats (on a private copy) leave out
 * every record from c on (they are applied in commit-ts order) and say so
 * (h->pending_left_out). */
static int ops_elsewhere(const struct mv_logs *L, size_t from) {
  if (mv.heap->window) return 0;
  size_t ops = 0;
  uint32_t ring = 0;
  for (size_t k = from; k < L->nrec; k++)
    if (L->rec[k].r->kind == MV_REC_OP) ring = L->rec[k].ring, ops++;
  if (!ops) return 0;
  char who[600];
  writer_name(mv_writer_read(ring), who, sizeof who);
  size_t all = L->nrec - from;
  if (mv.heap->writable)
    amber_fatal("heap %s: %zu of the %zu committed transactions to recover are operational records (AMBER_OLOG=ops) written by "
                "%s, and the amber tool cannot re-execute a program's regions; nothing was changed. Recover it with that "
                "build: amber recover %s --with PROGRAM (the same build; a rebuilt program is refused)",
                mv.heap->path, ops, all, who, mv.heap->path);
  amber_warn("heap %s: %zu of the %zu committed transactions to recover are operational records (AMBER_OLOG=ops) that only "
             "%s can re-execute (amber recover %s --with PROGRAM); what follows leaves out all %zu",
             mv.heap->path, ops, all, who, mv.heap->path, all);
  mv.heap->pending_left_out = all;
  return 1;
}

/* Dropped records by ring, newest (largest sequence number) first. */
static int newest_first(const void *a, const void *b) {
  const struct mv_found *x = a, *y = b;
  if (x->ring != y->ring) return x->ring < y->ring ? -1 : 1;
  return x->r->seq > y->r->seq ? -1 : x->r->seq < y->r->seq;
}

uint64_t mv_recover_logs(void) {
  struct mv_logs L;
  /* Validation refused a damaged heap at open (mv_validate); this is the
   * same scan, so recovery never starts on one. */
  mv_logs_scan(&L, 1, 0);
  if (L.damaged)
    amber_fatal("heap %s: its logs are damaged (%d problems) but recovery was asked to run; nothing was changed: run amber "
                "check on it for the details",
                mv.heap->path, L.damaged);
  size_t from = first_after_c(&L);
  if (from < L.nrec || L.nck) mv.heap->recovery_work = 1;
  mv.heap->pending_txns = L.nrec - from;
  mv.heap->pending_left_out = 0;
  mv.heap->pending_ckpts = 0;
  for (size_t k = 0; k < L.nck; k++) mv.heap->pending_ckpts += entry_is_state_at_c(&L, k);
  int elsewhere = ops_elsewhere(&L, from); /* before anything is written */
  /* Records never acknowledged (a conditional dependency is missing, or
   * a deferred batch torn: scan.c) are erased first, durably: once c moves past their
   * dependencies' timestamps, a later recovery could no longer tell them
   * from acknowledged ones.  Erased, they look like a ring's unwritten end
   * (only dropped records follow one in its ring: a later record written
   * before it was durable names it, txn.c).  A crash here leaves some
   * erased and the rest still dropped. */
  mv.dropped = L.ndropped;
  if (L.ndropped) {
    mv.heap->recovery_work = 1;
    /* Under deferred durability a ring may hold several (a torn batch, or
     * the records after a dropped one): erased newest first, each fenced,
     * so that an erased record is never followed by an intact dropped one
     * (a zeroed record ends the ring's scan; what lay after it would stay). */
    if (L.ndropped > 1) qsort(L.drop, L.ndropped, sizeof *L.drop, newest_first);
    for (size_t k = 0; k < L.ndropped; k++) {
      struct mv_rec *r = (struct mv_rec *)L.drop[k].r;
      memset(r, 0, sizeof *r);
      amber_pm_wrote(r, sizeof *r);
      amber_pm_flush(r, sizeof *r, AMBER_PM_LOG);
      if (k + 1 == L.ndropped || L.drop[k + 1].ring == L.drop[k].ring) amber_pm_fence(AMBER_PM_LOG);
    }
    amber_info("heap %s: recovery dropped %zu OLog records of commits never acknowledged (a commit they read from was "
               "not durable at the crash)",
               mv.heap->path, L.ndropped);
    if (L.ntorn)
      amber_warn("heap %s: recovery dropped %zu OLog records, %zu of them in a deferred-durability batch the crash "
                 "tore: a torn batch was never acknowledged, but damage to a batch that was "
                 "made durable and acknowledged looks the same, so if the program acknowledged these commits "
                 "(amber_wait_durable returned for them), the storage lost them: check the disk and the kernel log",
                 mv.heap->path, L.ndropped, L.ntorn);
  }
  clog_to_master(&L);
  if (elsewhere) { /* the records stay for the program */
    mv_logs_free(&L);
    return 0;
  }
  uint64_t replayed = L.nrec - from;
  if (from < L.nrec) {
    char who[600];
    uint64_t b = writer_boundary(&L, from, who, sizeof who);
    struct mv_rp *R = mv_rp_new(base_at_c, &L, b);
    /* lmin[k]: the smallest local-ts of the records from k on. */
    uint64_t *lmin = malloc((L.nrec + 1) * sizeof *lmin);
    if (!lmin) amber_fatal("mvcc recovery: out of memory");
    lmin[L.nrec] = UINT64_MAX;
    for (size_t k = L.nrec; k-- > from;) lmin[k] = L.rec[k].r->local < lmin[k + 1] ? L.rec[k].r->local : lmin[k + 1];
    for (size_t k = from; k < L.nrec; k++) {
      /* Cut before record k when half the CLog is used and every record
       * from k on certainly saw every commit before it. */
      if (k > from && mv_rp_touched(R) > mv.clog_n / 2) {
        uint64_t prev = L.rec[k - 1].r->cts;
        if (L.rec[k].r->cts > prev && lmin[k] > prev + b) checkpoint_chunk(&L, R, prev + 1);
      }
      mv_rp_apply(R, L.rec[k].r, L.rec[k].ring, who);
    }
    checkpoint_chunk(&L, R, L.rec[L.nrec - 1].r->cts + 1);
    free(lmin);
    mv_rp_free(R);
  }
  /* Step 3. */
  for (uint32_t i = 0; i < mv.max_threads; i++) {
    uint64_t pos, seq;
    if (mv_ring_read_tail(i, &pos, &seq, NULL, NULL) < 0) continue;
    if (pos != L.end_pos[i]) mv_ring_write_tail(i, L.end_pos[i], L.end_seq[i], L.c);
  }
  mv_logs_free(&L);
  return replayed;
}
