/* The MVCC engine's heap life cycle: its engine area (the block size), the
 * crash-safety gate, open, clean close, and the engine table.
 *
 * DURABILITY IS PART 2 (issue [6/7], OLog/CLog): this engine writes committed
 * versions back to the master in place when it reclaims them, so a crash can
 * lose or tear committed transactions.  Creating or opening a heap with it is
 * refused unless AMBER_MVCC_UNSAFE=1 acknowledges that, and a heap that was
 * not closed cleanly is refused (data may be torn). */
#include <sched.h>
#include <string.h>

#include "../../crc32c.h"
#include "../../diag.h"
#include "../../engine.h"
#include "../../heap.h"
#include "../../options.h"
#include "../../pm.h"
#include "../../tx.h"
#include "mvcc.h"

#define MV_AREA_MAGIC "AMBRMVC" /* 8 bytes with the NUL */
#define MV_AREA_VERSION 1u

/* Engine area offset 0 (docs/format.md).  Written once at creation. */
struct mv_area {
  char magic[8];      /* MV_AREA_MAGIC */
  uint32_t version;   /* MV_AREA_VERSION */
  uint32_t block;     /* version block size in bytes: a power of two, 16..4096 */
  uint64_t reserved[5]; /* 0; part 2 puts its log geometry here */
  uint32_t pad;       /* 0 */
  uint32_t crc;       /* crc32c of the bytes before this field */
};

static int block_ok(uint64_t b) { return b >= 16 && b <= 4096 && !(b & (b - 1)); }

static uint64_t wanted_block(void) {
  amber_options_load();
  return amber_opt.block_set ? amber_opt.block : 64;
}

static int mv_gate(const char *path, int creating) {
  amber_options_load();
  if (creating && !block_ok(wanted_block()))
    return amber_error("AMBER_BLOCK=%llu for new heap %s: the mvcc block size must be a power of two between 16 and 4096 bytes",
                       (unsigned long long)wanted_block(), path);
  if (!amber_opt.mvcc_unsafe)
    return amber_error("refusing to %s heap %s with engine mvcc: the mvcc engine is not crash-consistent yet (its durability, the "
                       "OLog and CLog, is issue [6/7]); a crash or kill can lose or tear committed transactions. Set "
                       "AMBER_MVCC_UNSAFE=1 to use it anyway (tests, benchmarks), or use AMBER_ENGINE=romulus",
                       creating ? "create" : "open", path);
  return 0;
}

static uint64_t mv_area_size(uint64_t data_size) {
  (void)data_size;
  return AMBER_PAGE;
}

static uint32_t area_crc(const struct mv_area *a) { return amber_crc32c(0, a, offsetof(struct mv_area, crc)); }

static void mv_format(struct amber_heap *h) {
  struct mv_area *a = (struct mv_area *)h->engine_area;
  uint64_t b = wanted_block();
  if (!block_ok(b)) amber_fatal("AMBER_BLOCK=%llu: the mvcc block size must be a power of two between 16 and 4096 bytes", (unsigned long long)b);
  memset(a, 0, AMBER_PAGE);
  memcpy(a->magic, MV_AREA_MAGIC, sizeof a->magic);
  a->version = MV_AREA_VERSION;
  a->block = (uint32_t)b;
  a->crc = area_crc(a);
  h->status->engine_state = 0;
}

static int area_problem(const struct amber_heap *h) {
  const struct mv_area *a = (const struct mv_area *)h->engine_area;
  if (memcmp(a->magic, MV_AREA_MAGIC, sizeof a->magic) || a->version != MV_AREA_VERSION || a->crc != area_crc(a) ||
      !block_ok(a->block))
    return amber_error("heap %s has a corrupt mvcc engine area (file offset 0x%llx: magic, version %u, block %u or checksum); the "
                       "file is damaged: restore it from a copy",
                       h->path, (unsigned long long)h->hdr.engine_offset, a->version, a->block);
  return 0;
}

static int mv_validate(struct amber_heap *h) {
  if (area_problem(h)) return -1;
  /* amber info / amber check open read-only and write nothing: allowed. */
  if (!h->writable) return 0;
  if (mv_gate(h->path, 0)) return -1;
  if (h->status->clean != AMBER_CLEAN)
    return amber_error("heap %s (engine mvcc) was not closed cleanly: the program using it crashed, was killed or exited inside a "
                       "region. The mvcc engine has no crash recovery yet (issue [6/7]), so committed data may be lost or torn; "
                       "amber refuses the heap instead of pretending. Restore it from a copy or recreate it",
                       h->path);
  return 0;
}

static int mv_check(struct amber_heap *h) {
  int n = area_problem(h) ? 1 : 0;
  if (h->status->clean != AMBER_CLEAN) {
    amber_error("heap %s (engine mvcc) was not closed cleanly; the mvcc engine has no crash recovery yet (issue [6/7]): its data may "
                "be torn",
                h->path);
    n++;
  }
  return n; /* amber check walks the allocator metadata itself */
}

/* Nothing to recover: validate refused a heap that was not closed cleanly. */
static void mv_recover(struct amber_heap *h) { (void)h; }

static void mv_open(struct amber_heap *h) {
  const struct mv_area *a = (const struct mv_area *)h->engine_area;
  mv.heap = h;
  mv.base = h->data;
  mv.size = h->hdr.data_size;
  mv.block = a->block;
  mv.shift = (unsigned)__builtin_ctzll(a->block);
  mv.nblocks = mv.size >> mv.shift;
  mv.tlog_bytes = amber_opt.mvcc_tlog;
  const char *iso = amber_opt.isolation;
  if (!strcmp(iso, "ser") || !iso[0]) mv.default_mode = MV_SER;
  else if (!strcmp(iso, "si")) mv.default_mode = MV_SI;
  else if (!strcmp(iso, "lin")) mv.default_mode = MV_LIN;
  else amber_fatal("AMBER_ISOLATION=%s is not an isolation level; use si, ser (the default) or lin", iso);
  mv.threads = NULL;
  mv.closing = 0;
  mv.gp_epoch = mv.gp_want = mv.gp_periods = 0;
  mv.gp_stop = 0;
  mv_shadow_open();
  amber_warn("heap %s uses engine mvcc, which is not crash-consistent yet (issue [6/7]): a crash can lose or tear committed "
             "transactions (acknowledged by AMBER_MVCC_UNSAFE=1)",
             h->path);
}

static void mv_sync(void) {
  struct amber_thread *t = amber_thread();
  struct mv_thread *m = mv_thread_of(t);
  if (m->in_tx) return;
  mv_sync_all(m);
}

/* Code outside regions reads the data area directly (the pass range-checks
 * only stores there), so a thread that ends brings it up to date: after
 * pthread_join the program sees every commit of the threads it joined. */
static void mv_thread_fini(struct amber_thread *t) {
  struct mv_thread *m = t->engine_data;
  if (m && !m->in_tx) mv_sync_all(m);
}

static void mv_close(struct amber_heap *h) {
  __atomic_store_n(&mv.closing, 1, __ATOMIC_SEQ_CST);
  /* Wait for running transactions (other threads still inside regions). */
  struct mv_thread *self = mv_thread_of(amber_thread());
  for (struct mv_thread *o = __atomic_load_n(&mv.threads, __ATOMIC_ACQUIRE); o; o = o->next)
    while (o != self && __atomic_load_n(&o->txseq, __ATOMIC_ACQUIRE) & 1) sched_yield();
  mv_detector_stop();
  mv_sync_all(self);
  uint64_t left = 0;
  for (uint64_t b = 0; b < mv.nblocks; b++) {
    struct mv_ctl *c = mv_ctl_of(b);
    if (c && __atomic_load_n(&c->head, __ATOMIC_ACQUIRE)) left++;
  }
  if (left)
    amber_warn("heap %s: %llu blocks of committed data could not be written back at close (a transaction was still running); they "
               "are lost",
               h->path, (unsigned long long)left);
}

static void mv_stats(FILE *f, int json) {
  uint64_t freed = 0, wb = 0, threads = 0;
  for (struct mv_thread *o = __atomic_load_n(&mv.threads, __ATOMIC_ACQUIRE); o; o = o->next) {
    freed += o->n_freed;
    wb += o->n_written_back;
    threads++;
  }
  uint64_t gp = __atomic_load_n(&mv.gp_periods, __ATOMIC_RELAXED);
  if (json)
    fprintf(f, ", \"mvcc_block\": %llu, \"tlog_freed_copies\": %llu, \"writeback_blocks\": %llu, \"grace_periods\": %llu, "
               "\"grace_detector\": %d, \"mvcc_threads\": %llu",
            (unsigned long long)mv.block, (unsigned long long)freed, (unsigned long long)wb, (unsigned long long)gp,
            mv_detector_ran(), (unsigned long long)threads);
  else
    fprintf(f, "  mvcc               block %llu B; TLog copies freed %llu; blocks written back %llu; detector grace periods %llu; "
               "threads %llu\n",
            (unsigned long long)mv.block, (unsigned long long)freed, (unsigned long long)wb, (unsigned long long)gp,
            (unsigned long long)threads);
}

const struct amber_engine amber_engine_mvcc = {
    .name = "mvcc",
    .id = AMBER_ENGINE_MVCC,
    .direct_reads = 0,
    .aborts_writers = 1,
    .gate = mv_gate,
    .sync = mv_sync,
    .thread_fini = mv_thread_fini,
    .stats = mv_stats,
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
};
