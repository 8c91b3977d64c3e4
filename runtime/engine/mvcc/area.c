/* The MVCC engine's heap life cycle: its engine area (geometry, master
 * timestamps, OLog rings: plog.c), validation, recovery, open, clean close,
 * statistics and the engine table. */
#include <sched.h>
#include <string.h>
#include <time.h>

#include "base/diag.h"
#include "tx/engine.h"
#include "heap/heap.h"
#include "heap/window.h"
#include "base/options.h"
#include "tx/op.h"
#include "pm/pm.h"
#include "tx/tx.h"
#include "base/wait.h"
#include "mvcc.h"

static int block_ok(uint64_t b) { return b >= 16 && b <= 4096 && !(b & (b - 1)); }

/* Geometry of a new heap, from the options. */
static uint64_t want_block(void) { return amber_opt.block_set ? amber_opt.block : 64; }
static uint64_t want_olog(void) { return (amber_opt.mvcc_olog + AMBER_PAGE - 1) & ~(uint64_t)(AMBER_PAGE - 1); }
static uint64_t want_clog(void) { return (amber_opt.mvcc_clog + AMBER_PAGE - 1) & ~(uint64_t)(AMBER_PAGE - 1); }

static int mv_gate(const char *path, int creating) {
  amber_options_load();
  /* The TLog is the process's (DRAM), so it is checked at every open: a
   * ring too small for one block's copy would refuse every write. */
  if (amber_opt.mvcc_tlog < 2 * AMBER_PAGE || amber_opt.mvcc_tlog > (1ull << 36))
    return amber_error("AMBER_MVCC_TLOG=%llu for heap %s: each thread's TLog takes 8K to 64G (default 8M)",
                       (unsigned long long)amber_opt.mvcc_tlog, path);
  if (!creating) return 0;
  if (!block_ok(want_block()))
    return amber_error("AMBER_BLOCK=%llu for new heap %s: the mvcc block size must be a power of two between 16 and 4096 bytes",
                       (unsigned long long)want_block(), path);
  if (amber_opt.mvcc_threads < 1 || amber_opt.mvcc_threads > 4096)
    return amber_error("AMBER_MVCC_THREADS=%llu for new heap %s: use 1 to 4096", (unsigned long long)amber_opt.mvcc_threads, path);
  if (want_olog() < 16 * AMBER_PAGE || want_olog() > (1ull << 32))
    return amber_error("AMBER_MVCC_OLOG=%llu for new heap %s: use 64K to 4G", (unsigned long long)amber_opt.mvcc_olog, path);
  if (want_clog() < 16 * AMBER_PAGE || want_clog() > (1ull << 36))
    return amber_error("AMBER_MVCC_CLOG=%llu for new heap %s: use 64K to 64G", (unsigned long long)amber_opt.mvcc_clog, path);
  return 0;
}

static uint64_t mv_area_size(uint64_t data_size) {
  amber_options_load();
  return mv_layout(data_size, want_block(), amber_opt.mvcc_threads, want_olog(), want_clog(), NULL, NULL, NULL);
}

/* The area's size is fixed by its own header, not by today's options. */
static int mv_area_fits(uint64_t data_size, uint64_t engine_size) {
  (void)data_size;
  return engine_size >= AMBER_PAGE;
}

static void attach(struct amber_heap *h) {
  const struct mv_area *a = (const struct mv_area *)h->engine_area;
  mv.heap = h;
  mv.base = h->data;
  mv.size = h->hdr.data_size;
  mv.block = a->block;
  mv.shift = (unsigned)__builtin_ctzll(a->block);
  mv.nblocks = mv.size >> mv.shift;
  mv.area = h->engine_area;
  mv.mts = (uint64_t *)(mv.area + a->mts_off);
  mv.logs_off = a->logs_off;
  mv.olog_bytes = a->olog_bytes;
  mv.olog_high_bytes = mv.olog_bytes / 4 * 3;
  mv.olog_high_recs = mv_oq_n() / 4 * 3;
  mv.max_threads = a->max_threads;
  mv_clog_attach();
}

static void mv_format(struct amber_heap *h) {
  struct mv_area *a = (struct mv_area *)h->engine_area;
  uint64_t b = want_block();
  if (!block_ok(b)) amber_fatal("AMBER_BLOCK=%llu: the mvcc block size must be a power of two between 16 and 4096 bytes", (unsigned long long)b);
  memset(a, 0, AMBER_PAGE);
  memcpy(a->magic, MV_AREA_MAGIC, sizeof a->magic);
  a->version = MV_AREA_VERSION;
  a->block = (uint32_t)b;
  a->max_threads = (uint32_t)amber_opt.mvcc_threads;
  a->olog_bytes = want_olog();
  a->clog_bytes = want_clog();
  a->area_size = mv_layout(h->hdr.data_size, b, a->max_threads, a->olog_bytes, a->clog_bytes, &a->mts_off, &a->logs_off, &a->clog_off);
  a->crc = mv_area_crc(a);
  /* The timestamp table is zero (the file is new); the rings start empty. */
  attach(h);
  mv_rings_format();
  mv_clog_format();
  h->status->engine_state = 0;
}

static int area_problem(const struct amber_heap *h) {
  const struct mv_area *a = (const struct mv_area *)h->engine_area;
  uint64_t mo = 0, lo = 0, co = 0;
  if (memcmp(a->magic, MV_AREA_MAGIC, sizeof a->magic) || a->crc != mv_area_crc(a))
    return amber_error("heap %s has a corrupt mvcc engine area (file offset 0x%llx: magic or checksum); the file is damaged: "
                       "restore it from a copy",
                       h->path, (unsigned long long)h->hdr.engine_offset);
  if (a->version != MV_AREA_VERSION)
    return amber_error("heap %s has mvcc engine area version %u; this amber reads version %u (docs/format.md). Open it with the "
                       "amber that created it, or recreate it",
                       h->path, a->version, MV_AREA_VERSION);
  if (!block_ok(a->block) || !a->max_threads || !a->olog_bytes || a->olog_bytes % AMBER_PAGE || !a->clog_bytes ||
      a->clog_bytes % AMBER_PAGE || a->clog_bytes < (uint64_t)a->block + 64 ||
      a->area_size != mv_layout(h->hdr.data_size, a->block, a->max_threads, a->olog_bytes, a->clog_bytes, &mo, &lo, &co) ||
      a->mts_off != mo || a->logs_off != lo || a->clog_off != co || a->area_size != h->hdr.engine_size)
    return amber_error("heap %s: its mvcc engine area's geometry (block %u, %u OLog rings of %llu bytes, CLog %llu bytes, area %llu "
                       "bytes) does not match the file (%llu bytes); the file is damaged: restore it from a copy",
                       h->path, a->block, a->max_threads, (unsigned long long)a->olog_bytes, (unsigned long long)a->clog_bytes,
                       (unsigned long long)a->area_size, (unsigned long long)h->hdr.engine_size);
  return 0;
}

static int rings_problem(const struct amber_heap *h) {
  for (uint32_t i = 0; i < mv.max_threads; i++) {
    uint64_t p, q;
    if (mv_ring_read_tail(i, &p, &q, NULL, NULL) < 0)
      return amber_error("heap %s: both headers of OLog ring %u are corrupt; the file is damaged: restore it from a copy", h->path, i);
  }
  if (mv_clog_read(NULL, NULL, NULL, NULL) < 0)
    return amber_error("heap %s: both CLog headers are corrupt (file offset 0x%llx); the file is damaged: restore it from a copy",
                       h->path, (unsigned long long)(h->hdr.engine_offset + mv.clog_off));
  return 0;
}

static int mv_validate(struct amber_heap *h) {
  if (area_problem(h)) return -1;
  attach(h);
  if (rings_problem(h)) return -1;
  /* Damaged logs (not a crash's torn tail) are refused before anything is
   * written: recovery would drop committed transactions.  A program's open
   * of a clean heap reads no log; the tool always looks. */
  if ((h->status->clean != AMBER_CLEAN || !h->window) && mv_logs_damage()) return -1;
  /* A program's open: refuse operational records it cannot re-execute
   * now, before anything writes the heap (the tool's views do not re-run
   * them: mv_recover_logs). */
  if (h->window && h->writable && h->status->clean != AMBER_CLEAN) {
    amber_op_scan();
    if (mv_recover_precheck() != 0) return -1;
  }
  return 0;
}

/* A clean heap's open replays nothing (mv_recover), so the clean mark is
 * right only over empty logs: the close empties them before it is set.
 * Live records under it are commits the data area may lack (an amber
 * before issue 17 part 1 marked heaps clean while threads still
 * committed).  Returns the problems found. */
static int clean_mark_problems(const struct amber_heap *h) {
  if (h->status->clean != AMBER_CLEAN) return 0;
  int bad = 0;
  for (uint32_t i = 0; i < mv.max_threads; i++) {
    uint64_t pos, seq, n = 0, lo = 0, hi = 0;
    if (mv_ring_read_tail(i, &pos, &seq, NULL, NULL) < 0) continue; /* rings_problem said so */
    for (const struct mv_rec *r; (r = mv_rec_at(i, &pos, seq)) != NULL; pos += r->len, seq++) {
      if (r->magic != MV_REC_MAGIC) continue;
      if (!n++) lo = r->cts;
      hi = r->cts;
    }
    if (!n) continue;
    amber_error("heap %s is marked cleanly closed, but OLog ring %u still holds %llu committed transactions (commit ts %llu to "
                "%llu) that a clean open never replays: the data area may lack them (a close before issue 17's fix marked it "
                "clean while threads still committed). amber cannot recover them: keep a copy of the file, and restore an "
                "older copy if those transactions matter",
                h->path, i, (unsigned long long)n, (unsigned long long)lo, (unsigned long long)hi);
    bad++;
  }
  uint64_t c, tail, n = 0;
  if (mv_clog_read(&c, &tail, NULL, NULL) >= 0)
    while (n < mv.clog_n && mv_ckpt_at(tail + n)) n++;
  if (n) {
    amber_error("heap %s is marked cleanly closed, but its CLog still holds %llu checkpoint copies (entries from %llu) that a "
                "clean open never writes back: the data area may lack them. amber cannot recover them: keep a copy of the file, "
                "and restore an older copy if those transactions matter",
                h->path, (unsigned long long)n, (unsigned long long)tail);
    bad++;
  }
  return bad;
}

/* amber check walks the allocator metadata itself. */
static int mv_check(struct amber_heap *h) {
  if (mv_validate(h)) return 1;
  return clean_mark_problems(h);
}

/* Idempotent: a clean heap's rings are empty, so this applies nothing. */
static void mv_recover(struct amber_heap *h) {
  attach(h);
  amber_op_scan(); /* the regions operational records name */
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  mv.dropped = 0;
  mv.replayed = h->status->clean == AMBER_CLEAN ? 0 : mv_recover_logs();
  clock_gettime(CLOCK_MONOTONIC, &t1);
  mv.recovery_seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  if (mv.replayed) amber_info("heap %s: recovery applied %llu OLog records", h->path, (unsigned long long)mv.replayed);
}

static void mv_open(struct amber_heap *h) {
  attach(h);
  mv.tlog_bytes = amber_opt.mvcc_tlog;
  mv.eager = amber_opt.mvcc_eager;
  mv.recent_on = amber_opt.mvcc_recent_start;
  __atomic_store_n(&mv.recent_ts, 0, __ATOMIC_RELAXED);
  mv.elr = amber_opt.mvcc_elr && amber_pm_tickets();
  mv.elr_commits = mv.elr_conditional = mv.elr_waits = mv.olog_full_rounds = 0;
  const char *iso = amber_opt.isolation;
  if (!strcmp(iso, "ser") || !iso[0]) mv.default_mode = MV_SER;
  else if (!strcmp(iso, "si")) mv.default_mode = MV_SI;
  else if (!strcmp(iso, "lin")) mv.default_mode = MV_LIN;
  else amber_fatal("AMBER_ISOLATION=%s is not an isolation level; use si, ser (the default) or lin", iso);
  mv.threads = NULL;
  mv.closing = 0;
  mv.next_ring = 0;
  mv.gp_epoch = mv.gp_want = mv.gp_periods = 0;
  mv.gp_stop = 0;
  mv.check = amber_opt.mvcc_assert;
  mv.solo = 0;
  mv.solo_txns = 0;
  mv.large_txns = 0;
  mv.solo_waiters = 0;
  amber_op_scan(); /* before any region runs: which ones may capture */
  mv_shadow_open();
  mv_clog_open();
}

/* A write-back outside transactions on a thread other than the closing
 * one: never while the close writes back and empties the rings (Dekker:
 * mv.syncing, then mv.closing here; mv.closing, then mv.syncing there). */
static void sync_unless_closing(struct mv_thread *m) {
  __atomic_add_fetch(&mv.syncing, 1, __ATOMIC_SEQ_CST);
  if (!__atomic_load_n(&mv.closing, __ATOMIC_SEQ_CST)) mv_sync_all(m, 0);
  __atomic_sub_fetch(&mv.syncing, 1, __ATOMIC_RELEASE);
}

static void mv_sync(void) {
  struct amber_thread *t = amber_thread();
  struct mv_thread *m = mv_thread_of(t);
  if (m->in_tx) return;
  sync_unless_closing(m);
}

/* Code amber never instrumented reads the data area directly (with
 * AMBER_STRICT=0), so a thread that ends brings it up to date: after
 * pthread_join such code sees every commit of the threads it joined.
 * (Instrumented code reads through the runtime wherever it runs.) */
static void mv_thread_fini(struct amber_thread *t) {
  struct mv_thread *m = t->engine_data;
  if (m && !m->in_tx) sync_unless_closing(m);
}

/* A block whose committed data is not all in the master yet. */
static void count_unwritten(struct mv_ctl *c, void *left) {
  if (__atomic_load_n(&c->head, __ATOMIC_ACQUIRE) || __atomic_load_n(&c->ckpt, __ATOMIC_ACQUIRE)) ++*(uint64_t *)left;
}

/* The close protocol (docs/engines/mvcc.md, "Close"): mv.closing turns
 * away every transaction that starts from now on (Dekker with
 * publish_start: mv.closing, then txseq here; txseq, then mv.closing
 * there) and every later write-back of other threads; the running ones
 * get up to wait_ms to end.  Only then is
 * everything written back and the rings emptied: no commit can follow. */
static int mv_close(struct amber_heap *h, uint64_t wait_ms) {
  __atomic_store_n(&mv.closing, 1, __ATOMIC_SEQ_CST);
  struct mv_thread *self = mv_thread_of(amber_thread());
  struct amber_wait w;
  amber_wait_start(&w, wait_ms);
  int running;
  do {
    running = 0;
    for (struct mv_thread *o = __atomic_load_n(&mv.threads, __ATOMIC_ACQUIRE); o; o = o->next)
      if (o != self && (__atomic_load_n(&o->txseq, __ATOMIC_SEQ_CST) & 1)) running++;
    if (!running && !__atomic_load_n(&mv.syncing, __ATOMIC_SEQ_CST)) break;
  } while (amber_wait_more(&w));
  /* A transaction still running may commit until the process ends: leave
   * the logs and the heap's dirty mark to recovery, as a crash would.  (A
   * write-back still running after the wait counts as one.) */
  if (running) return running;
  if (__atomic_load_n(&mv.syncing, __ATOMIC_SEQ_CST)) return 1;
  mv_sync_all(self, 1);
  mv_detector_stop();
  if (mv.check) mv_check_invariant("close");
  uint64_t left = 0;
  mv_shadow_each(count_unwritten, &left);
  if (left) {
    /* Not expected (nothing runs): keep the rings and the dirty mark. */
    amber_warn("heap %s: %llu blocks of committed data could not be written back at close; the heap stays dirty and "
               "the next open recovers them from the CLog and the OLog",
               h->path, (unsigned long long)left);
    return -1;
  }
  /* Everything is in the master: empty the rings, so the next open replays
   * nothing. */
  for (struct mv_thread *o = __atomic_load_n(&mv.threads, __ATOMIC_ACQUIRE); o; o = o->next)
    if (o->ohead != o->otail) mv_ring_write_tail(o->ring_id, o->ohead, o->oseq_head, __atomic_load_n(&mv.c, __ATOMIC_ACQUIRE));
  return 0;
}

/* A transaction start that met the close (publish_start): it never ran.
 * An irrevocable start gives back what it holds (the round lock, mv.solo:
 * no undo entry was written yet), or the close's write-back would wait
 * for it. */
noreturn void mv_close_turn_away(struct mv_thread *m) {
  if (m->solo) {
    mv_clog_solo_unlock(0);
    m->solo = 0;
    mv_solo_leave();
  }
  __atomic_store_n(&m->cell, ((__atomic_load_n(&m->cell, __ATOMIC_RELAXED) >> 2) + 1) << 2 | MV_IDLE, __ATOMIC_RELEASE);
  amber_heap_wait_closed();
}

static void mv_stats(FILE *f, int json) {
  uint64_t freed = 0, threads = 0, olog = 0, recycled = 0, upd = 0, ops = 0, vconf = 0, vwords = 0, vwaits = 0, recent = 0;
  for (struct mv_thread *o = __atomic_load_n(&mv.threads, __ATOMIC_ACQUIRE); o; o = o->next) {
    recent += o->recent_starts;
    vconf += o->vconflicts;
    vwords += o->vwritten;
    vwaits += o->vquiesce_waits;
    freed += o->n_freed;
    ops += o->op_records;
    olog += o->olog_bytes_written;
    recycled += o->n_recycled;
    threads++;
  }
  for (struct amber_thread *t = amber_threads(); t; t = t->next_thread) upd += t->update_commits;
  uint64_t gp = __atomic_load_n(&mv.gp_periods, __ATOMIC_RELAXED);
  double per_upd = upd ? (double)olog / (double)upd : 0.0;
  uint64_t rounds, entries, drained, live, olive = 0;
  mv_clog_stats(&rounds, &entries, &drained, &live);
  uint64_t spilled, segments;
  mv_clog_spill_stats(&spilled, &segments);
  /* How full the logs are now (amber stats --pid reads these while the
   * program runs): TLog slots in use, OLog ring bytes not yet recycled,
   * CLog entries not yet written back; each a fraction of its capacity. */
  uint64_t tused = 0, tcap = 0, ocap = 0;
  for (struct mv_thread *o = __atomic_load_n(&mv.threads, __ATOMIC_ACQUIRE); o; o = o->next) {
    olive += __atomic_load_n(&o->ohead, __ATOMIC_RELAXED) - __atomic_load_n(&o->otail, __ATOMIC_RELAXED);
    tused += __atomic_load_n(&o->head, __ATOMIC_RELAXED) - __atomic_load_n(&o->tail, __ATOMIC_RELAXED);
    tcap += o->nslots;
    ocap += mv.olog_bytes;
  }
  if (json) {
    fprintf(f, ", \"tlog_fill\": %.4f, \"olog_fill\": %.4f, \"clog_fill\": %.4f", tcap ? (double)tused / (double)tcap : 0.0,
            ocap ? (double)olive / (double)ocap : 0.0, mv.clog_n ? (double)live / (double)mv.clog_n : 0.0);
    fprintf(f, ", \"mvcc_block\": %llu, \"tlog_freed_copies\": %llu, \"writeback_blocks\": %llu, \"grace_periods\": %llu, "
               "\"grace_detector\": %d, \"mvcc_threads\": %llu, \"olog_bytes\": %llu, \"olog_bytes_per_update_txn\": %.1f, "
               "\"olog_recycled_records\": %llu, \"replayed_txns\": %llu, \"checkpoint_rounds\": %llu, \"clog_entries\": %llu, "
               "\"clog_written_back\": %llu, \"invariant_checks\": %llu, \"olog_live_bytes\": %llu, \"clog_live_entries\": %llu, "
               "\"olog_op_records\": %llu, \"recovery_seconds\": %.4f, \"irrevocable_txns\": %llu",
            (unsigned long long)mv.block, (unsigned long long)freed, (unsigned long long)drained, (unsigned long long)gp,
            mv_detector_ran(), (unsigned long long)threads, (unsigned long long)olog, per_upd, (unsigned long long)recycled,
            (unsigned long long)mv.replayed, (unsigned long long)rounds, (unsigned long long)entries, (unsigned long long)drained,
            (unsigned long long)mv_checks_run(), (unsigned long long)olive, (unsigned long long)live, (unsigned long long)ops, mv.recovery_seconds,
            (unsigned long long)mv.solo_txns);
    fprintf(f, ", \"large_txns\": %llu, \"undo_spilled_entries\": %llu, \"undo_spill_segments\": %llu, \"recent_starts\": %llu",
            (unsigned long long)mv.large_txns, (unsigned long long)spilled, (unsigned long long)segments, (unsigned long long)recent);
    fprintf(f, ", \"ordinary_conflicts\": %llu, \"ordinary_words_written\": %llu, \"ordinary_quiesce_waits\": %llu",
            (unsigned long long)vconf, (unsigned long long)vwords, (unsigned long long)vwaits);
    fprintf(f, ", \"early_lock_release\": %d, \"elr_commits\": %llu, \"elr_conditional_commits\": %llu, \"elr_dependency_waits\": %llu, "
               "\"unacknowledged_dropped\": %llu, \"olog_full_rounds\": %llu",
            mv.elr, (unsigned long long)mv.elr_commits, (unsigned long long)mv.elr_conditional, (unsigned long long)mv.elr_waits,
            (unsigned long long)mv.dropped, (unsigned long long)__atomic_load_n(&mv.olog_full_rounds, __ATOMIC_RELAXED));
    return;
  }
  fprintf(f, "  olog               %llu bytes (%.1f per update txn); operational records %llu; records recycled %llu; replayed at open %llu (recovery %.3f s)\n",
          (unsigned long long)olog, per_upd, (unsigned long long)ops, (unsigned long long)recycled, (unsigned long long)mv.replayed,
          mv.recovery_seconds);
  fprintf(f, "  olog live          %llu bytes in the rings now\n", (unsigned long long)olive);
  if (mv.elr || mv.dropped)
    fprintf(f, "  early lock release %s; commits %llu (%llu conditional); dependency waits %llu; unacknowledged records dropped at open %llu\n",
            mv.elr ? "on" : "off", (unsigned long long)mv.elr_commits, (unsigned long long)mv.elr_conditional,
            (unsigned long long)mv.elr_waits, (unsigned long long)mv.dropped);
  fprintf(f, "  clog               checkpoint rounds %llu; entries %llu (%llu live now, %llu bytes each); written back to the master %llu; "
             "invariant checks %llu; rounds started in a commit (its OLog ring full) %llu\n",
          (unsigned long long)rounds, (unsigned long long)entries, (unsigned long long)live, (unsigned long long)mv.clog_entry,
          (unsigned long long)drained, (unsigned long long)mv_checks_run(),
          (unsigned long long)__atomic_load_n(&mv.olog_full_rounds, __ATOMIC_RELAXED));
  fprintf(f, "  mvcc               block %llu B; TLog copies freed %llu; blocks written back %llu; detector grace periods %llu; "
             "threads %llu; irrevocable transactions %llu\n",
          (unsigned long long)mv.block, (unsigned long long)freed, (unsigned long long)drained, (unsigned long long)gp,
          (unsigned long long)threads, (unsigned long long)mv.solo_txns);
  fprintf(f, "  large transactions %llu restarted alone (a log too small for them); undo entries spilled to the heap %llu in %llu "
             "segments\n",
          (unsigned long long)mv.large_txns, (unsigned long long)spilled, (unsigned long long)segments);
  fprintf(f, "  recent starts      %llu transactions started from a clock value already read (AMBER_MVCC_RECENT_START)\n",
          (unsigned long long)recent);
  fprintf(f, "  ordinary memory    restarts over it %llu; lock words released at commit %llu; transactions waited for (privatization) %llu\n",
          (unsigned long long)vconf, (unsigned long long)vwords, (unsigned long long)vwaits);
}

const struct amber_engine amber_engine_mvcc = {
    .name = "mvcc",
    .id = AMBER_ENGINE_MVCC,
    .direct_reads = 0,
    .aborts_writers = 1,
    .lazy_begin = 1,
    .gate = mv_gate,
    .area_fits = mv_area_fits,
    .sync = mv_sync,
    .thread_fini = mv_thread_fini,
    .wait_durable = mv_wait_durable,
    .durable_token = mv_durable_token,
    .stats = mv_stats,
    .debug_view = mv_debug_view,
    .area_size = mv_area_size,
    .format = mv_format,
    .validate = mv_validate,
    .check = mv_check,
    .recover = mv_recover,
    .open = mv_open,
    .close = mv_close,
    .begin = mv_begin,
    .load = mv_load,
    .store = mv_store,
    .commit = mv_commit,
    .abort = mv_abort,
    .unlogged = mv_unlogged,
    .vread = mv_vread,
    .vwrite = mv_vwrite,
};
