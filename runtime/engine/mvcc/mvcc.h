/* The MVCC engine (TimeStone, part 1: versions, isolation, commit, abort,
 * TLog reclamation with write-back).  Shared declarations of its files:
 *
 *   area.c    heap life cycle: engine area (block size), the crash-safety
 *             gate, open/close, write-back of everything (sync)
 *   shadow.c  the DRAM shadow table and the control headers' allocator
 *   tlog.c    per-thread TLog rings, reclamation, write-back
 *   detector.c  grace periods and the detector thread
 *   plog.c    persistent state: engine area, master timestamps, OLog rings
 *   clog.c    the CLog and checkpoint rounds (the durable boundary c)
 *   invariant.c  the invariant's assertion mode (AMBER_MVCC_ASSERT)
 *   scan.c    reading the logs; a torn tail told apart from damage
 *   recover.c recovery from the CLog and the OLog
 *   txn.c     begin, load, store, commit, abort; isolation levels
 *   solo.c    irrevocable transactions: alone, in place, undone from the CLog
 *   park.c    waiting inside a LATEST transaction without holding others back
 *   vmem.c    ordinary (non-heap) memory: a lock table under the same timestamps
 *
 * docs/engines/mvcc.md states the invariants; the comments point at them. */
#ifndef AMBER_MVCC_H
#define AMBER_MVCC_H

#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>
#include <string.h>

#include "amber_interface.h"
#include "ordo/ordo.h"
#include "tx/tx.h"

struct amber_heap;
struct amber_thread;
struct mv_thread;

/* One version of one block, in its writer's TLog ring.  A copy is linked
 * into its block's chain only at commit, with its commit timestamp already
 * set: a linked copy is committed and immutable (data and cts), so an
 * aborted transaction's copies were never visible to anyone. */
struct mv_copy {
  struct mv_copy *older;   /* next older version of the block (atomic) */
  uint64_t cts;            /* commit timestamp; set before linking */
  struct mv_ctl *ctl;      /* the block's control header */
  struct mv_thread *owner; /* the ring it lives in (immutable) */
  uint32_t unused;          /* free (a copy's unlinked state is its block's: mv_copy_unlinked) */
  uint32_t ring;           /* owner's OLog ring, where this version's commit record is (immutable) */
  uint32_t lo, hi;         /* the bytes [lo, hi) of the block this transaction stored (its OLog range) */
  /* Early lock release: the sync ticket of this version's record, 0 when it
   * was durable at commit; durable once amber_pm_fence_durable(ticket).
   * Set before linking. */
  uint64_t ticket;
  uint64_t reserved;
  char data[];             /* the block, at offset 64 */
};
#define MV_COPY_HDR 64u
_Static_assert(offsetof(struct mv_copy, cts) == AMBER_MV_COPY_CTS && offsetof(struct mv_copy, owner) == AMBER_MV_COPY_OWNER &&
                   offsetof(struct mv_copy, data) == AMBER_MV_COPY_DATA,
               "the pass's inline loads read a version's cts, owner and data here (amber_interface.h)");

/* A block's control header (DESIGN.md §5): the words a read needs, in
 * place in the shadow table at table[blk] (32 bytes, two to a cache line;
 * the pass's inline check reads them there), and struct mv_ctl_cold, the
 * rest, at cold[blk].  All zeros until the block is first written since
 * the heap was opened, when mv_ctl_get sets its bit in mv.installed (before
 * the writer locks it); never moved or freed while the heap is open. */
struct mv_ctl {
  struct mv_copy *head; /* newest committed version; NULL: the checkpoint copy (or the master) is newest */
  uintptr_t lock;       /* 0; the owner's pending copy; or (mv_thread *)|1 while a checkpoint round detaches */
  /* The latest checkpoint copy: the block's data in a CLog entry (PM), or
   * NULL when the master holds the newest checkpointed version.  Written
   * only by checkpoint rounds and CLog drains (under the round lock). */
  const char *ckpt;
  uint64_t rts;         /* largest commit ts of a SER/LIN transaction that validated a
                           read of this block while an active writer held it */
};
/* The header's words no read needs, at the same index in a table of their own. */
struct mv_ctl_cold {
  uint64_t ckpt_ts;     /* the checkpoint copy's commit ts (kept when the entry is drained) */
  /* The dirty list (clog.c), atomic: the next header with bit 0 set while
   * this one is on the list or being checkpointed, 0 otherwise. */
  uintptr_t next_dirty;
  /* Every version of this block whose cts is at most unl_ts is off its
   * chain (atomic, monotonic): a checkpoint round detached it, after its
   * CLog entry's fence.  What the TLog's reclamation asks of a copy
   * (mv_copy_unlinked): one store per block a round cuts, where a flag per
   * detached copy was a walk of cold copies, one cache miss each. */
  uint64_t unl_ts;
};
_Static_assert(sizeof(struct mv_ctl) == 1u << AMBER_MV_CTL_SHIFT, "a control header at table + (blk << AMBER_MV_CTL_SHIFT)");
_Static_assert(offsetof(struct mv_ctl, head) == AMBER_MV_CTL_HEAD && offsetof(struct mv_ctl, lock) == AMBER_MV_CTL_LOCK &&
                   offsetof(struct mv_ctl, ckpt) == AMBER_MV_CTL_CKPT,
               "the pass's inline loads read a control header's head, lock and ckpt here (amber_interface.h)");

/* A transaction's shared status cell: gen << 2 | state.  Readers that meet a
 * block locked by a COMMITTING owner wait for the cell to change. */
enum { MV_IDLE = 0, MV_ACTIVE = 1, MV_COMMITTING = 2, MV_DOOMED = 3 };
#define MV_STATE(w) ((unsigned)((w) & 3u))

/* `active` values other than a timestamp. */
#define MV_INACTIVE 0ull
#define MV_STARTING (~0ull) /* between "in a transaction" and "local-ts known": blocks reclamation */

/* Conditional dependencies an OLog record holds (early lock release). */
#define MV_CDEPS 4

enum mv_mode { MV_SI = 1, MV_SER = 2, MV_LIN = 3, MV_LATEST = 4 /* PERSISTENT regions, reads outside regions */ };

struct mv_thread {
  /* Read by other threads. */
  _Alignas(64) uint64_t active; /* MV_INACTIVE, MV_STARTING, or the running transaction's local-ts */
  uint64_t txseq;               /* odd while a transaction (or a read outside one) runs */
  /* Status cell of the running transaction: generation << 2 | state.  Only
   * the owner changes the generation; others CAS only the state (DOOMED),
   * so the owner reads its own generation with a relaxed load. */
  uint64_t cell;
  int persistent;               /* the running transaction is an AMBER_PERSISTENT region */
  uint32_t parked;              /* waiting inside its transaction, at a quiescent state (park.c) */
  struct mv_thread *next;       /* registry (append-only) */

  /* Private to the owning thread. */
  _Alignas(64) char *ring;      /* TLog: nslots slots of slot_size bytes */
  uint64_t nslots, slot_size;
  uint64_t head, tail, txstart; /* ring positions (monotonic); [txstart, head) = the running transaction's copies */
  uint64_t fresh;               /* slots [0, fresh) have been handed out (owner and ring set; mv_ring_alloc) */
  uint64_t local;               /* local-ts */
  uint64_t maxseen;             /* largest cts read or overwritten (LATEST mode) */
  /* The running transaction's dependency on another ring: the largest cts
   * of a version another thread committed that it read or overwrote, and
   * that version's ring (its OLog record's ring: docs/engines/mvcc.md,
   * "Cross-ring dependencies"); dep 0: none. */
  uint64_t dep;
  uint32_t dep_ring;
  /* Its conditional dependencies: versions it read or overwrote whose
   * records were not durable then (another thread's pend_cts), at most one
   * per ring; more than MV_CDEPS: cdep_over, and the commit waits for cwait
   * before writing its record.  cwait: the largest ticket among them. */
  uint64_t cdep[MV_CDEPS];
  uint16_t cdep_ring[MV_CDEPS];
  unsigned ncdep;
  int cdep_over;
  uint64_t cwait;
  /* Deferred durability (amber_defer_durability_begin): dfr_wait, the
   * largest ticket the thread must wait for before the program may
   * acknowledge what it did (its own deferred records, what its regions
   * read); own_ticket and own_cts, the ticket and commit ts of its newest
   * record, which may not be durable yet: the next record of its ring
   * names it (an own-ring cdep), so that recovery can tell a deferred batch
   * torn by a crash from damage (docs/engines/mvcc.md, "Deferred
   * durability"). */
  uint64_t dfr_wait, own_ticket, own_cts;
  int mode;                     /* enum mv_mode */
  int in_tx;
  /* SER and LIN: the running transaction logs what it reads (rd.log,
   * rd.vlog), for its validation should it write (mv_begin). */
  int track;
  /* The pass's inline loads (amber_interface.h, ABI 5): mode, shift,
   * table, self and settled set at begin; the read set (block indexes, SER
   * and LIN) is rd.log[0 .. rd.n), appended to by the inline loads too. */
  struct __amber_reads rd;
  /* The last batch of unlinked copies [tail, gp_upto) is free once the
   * grace period of gp_ticket is over (detector.c). */
  uint64_t gp_upto;
  uint64_t gp_ticket;
  int gp_pending;
  unsigned retries;             /* consecutive aborts, for backoff */
  uint64_t rng;
  int backoff;                  /* the pending abort wants a backoff */
  int eager_next;               /* the next begin waits out the ORDO boundary (an uncertain version aborted this one) */
  /* Recent starts (txn.c, "Recent starts"; docs/engines/mvcc.md): a
   * read-only region's transaction takes its local-ts from a clock value
   * already read instead of reading the clock.  known_ts: the largest
   * clock value this thread knows was read (by any thread) before now;
   * recent: the running transaction started so; recent_skip: begins
   * that read the clock before the next recent start (after a stale
   * restart: recent_backoff, doubled by each, up to 64). */
  uint64_t known_ts;
  int recent;
  unsigned recent_skip, recent_backoff;
  uint64_t recent_starts;       /* statistics (stale restarts: aborts_stale) */
  /* OLog ring (plog.c): byte positions and record sequence numbers,
   * monotonic; [otail, ohead) holds records not yet recycled. */
  uint32_t ring_id;
  uint64_t ohead, otail, oseq_head, oseq_tail;
  /* One entry per record not yet recycled: where it ends in the ring and
   * where its transaction's copies end in the TLog. */
  struct mv_oq { uint64_t olog_end, seq, cts; } *oq;
  uint64_t oq_head, oq_tail;
  /* Statistics (read at exit). */
  uint64_t olog_bytes_written;
  uint64_t op_records;          /* operational records written */
  uint64_t n_recycled;
  uint64_t n_freed;             /* TLog slots freed after their grace period */
  /* Ordinary memory (vmem.c): the lock-table words the running
   * transaction holds, each with the version it found there, and (SER,
   * LIN) the words it read. */
  struct mv_vheld { uint64_t *word; uint64_t old; } *vw;
  size_t nvw, capvw;
  /* The words read (SER, LIN) are rd.vlog[0 .. rd.vn), appended to by the
   * pass's inline loads too. */
  uint64_t vconflicts;          /* restarts over ordinary memory (statistics) */
  uint64_t vwritten;            /* words released at commit */
  uint64_t vquiesce_waits;      /* transactions waited for after such commits */
  /* Irrevocable transactions (solo.c). */
  int want_solo;                /* the next begin runs alone */
  int solo;                     /* the running transaction runs alone */
  struct mv_ctl **solow;        /* the blocks it wrote (their undo is in the CLog) */
  size_t nsolo, capsolo;
};

struct mv_global {
  struct amber_heap *heap;
  char *base;          /* master = canonical data area */
  uint64_t size;
  unsigned shift;      /* log2(block) */
  uint64_t block;
  uint64_t nblocks;
  struct mv_ctl *table; /* the control headers, one per block, at table[blk] (shadow.c) */
  struct mv_ctl_cold *cold;
  uint64_t *table_used; /* bit i: a header was installed in the table's i-th 4 KiB page */
  uint64_t *installed;  /* bit b: block b's header is in use (the block was written since the heap was opened) */
  struct mv_thread *threads;
  uint64_t tlog_bytes;
  int default_mode; /* enum mv_mode of AMBER_ATOMIC regions without a level (AMBER_ISOLATION) */
  int closing;         /* close turns away every transaction that starts (area.c, mv_close) */
  uint32_t syncing;    /* write-backs outside transactions running (area.c; the close waits for them) */
  int eager;           /* AMBER_MVCC_EAGER: write back right after each commit when possible */
  /* Grace periods (detector.c). */
  uint64_t gp_epoch;   /* grace periods completed */
  uint64_t gp_want;    /* the epoch some thread waits for */
  uint64_t gp_periods; /* statistics */
  uint32_t gp_bell;    /* futex word the detector sleeps on */
  uint32_t gp_sleeping;
  int gp_stop;         /* the detector must end (close) */
  /* Persistent state (plog.c). */
  char *area;          /* the engine area */
  uint64_t *mts;       /* master timestamps, one per block */
  uint64_t logs_off;
  uint64_t olog_bytes; /* ring bytes per thread */
  /* mv_olog_high's high-water marks, set with olog_bytes (area.c, attach):
   * three quarters of the ring's bytes and of its record queue. */
  uint64_t olog_high_bytes, olog_high_recs;
  uint32_t max_threads;
  uint32_t next_ring;  /* rings handed out (atomic) */
  uint64_t replayed;   /* records recovery applied at this open */
  uint64_t dropped;    /* records recovery dropped at this open: a conditional dependency was missing (never acknowledged) */
  int elr;             /* early lock release: the backend defers fences (amber_pm_tickets) */
  uint64_t elr_commits, elr_conditional, elr_waits; /* statistics (atomic, relaxed) */
  uint64_t olog_full_rounds; /* statistics: rounds a commit ran because its OLog ring was full (atomic, relaxed) */
  double recovery_seconds; /* how long that recovery took */
  /* The CLog and checkpoint rounds (clog.c). */
  uint64_t clog_off;   /* the CLog slot in the engine area */
  uint64_t clog_bytes; /* its ring bytes */
  uint64_t clog_entry; /* bytes of one entry */
  uint64_t clog_n;     /* entries the ring holds */
  uint64_t c;          /* the durable checkpoint boundary (atomic) */
  int check;           /* AMBER_MVCC_ASSERT */
  uintptr_t solo;      /* the mv_thread running an irrevocable transaction, or 0 (atomic; solo.c) */
  uint64_t solo_txns;  /* irrevocable transactions committed (statistics) */
  uint64_t large_txns; /* restarts alone because a log was too small for the transaction (statistics) */
  uint32_t solo_waiters; /* transactions waiting at their start for one (atomic) */
  int recent_on;       /* AMBER_MVCC_RECENT_START */
  /* The largest commit ts drawn so far (relaxed: any value read is a clock
   * value read before it was stored, all a recent start needs).  Alone on
   * its cache line: every update commit writes it, every begin reads it. */
  _Alignas(64) uint64_t recent_ts;
  char recent_pad[56];
};
extern struct mv_global mv;

/* Engine area, offset 0 (docs/format.md).  Written once at creation. */
#define MV_AREA_MAGIC "AMBRMVC" /* 8 bytes with the NUL */
#define MV_AREA_VERSION 9u
struct mv_area {
  char magic[8];        /* MV_AREA_MAGIC */
  uint32_t version;     /* MV_AREA_VERSION */
  uint32_t block;       /* version block size in bytes: a power of two, 16..4096 */
  uint32_t max_threads; /* OLog rings */
  uint32_t pad0;
  uint64_t olog_bytes;  /* bytes of each ring (a multiple of 4096) */
  uint64_t mts_off;     /* master timestamp table */
  uint64_t logs_off;    /* first ring slot */
  uint64_t area_size;   /* the whole engine area */
  uint64_t clog_off;    /* the CLog slot: two CLog headers, then the ring */
  uint64_t clog_bytes;  /* bytes of the CLog ring (a multiple of 4096) */
  uint32_t pad;
  uint32_t crc;         /* crc32c of the bytes before this field */
};
#define MV_RING_MAGIC 0x474e4952474f4c4full /* "OLOGRING" */
struct mv_ring_hdr {    /* two per ring slot, at offsets 0 and 64 */
  uint64_t magic;
  uint64_t tail;        /* byte position of the oldest live record (monotonic) */
  uint64_t seq;         /* its sequence number */
  uint64_t c;           /* the durable checkpoint boundary the records before tail were recycled under */
  uint32_t pad;
  uint32_t crc;
};
#define MV_CLOG_MAGIC 0x474e4952474f4c43ull /* "CLOGRING" */
struct mv_clog_hdr {    /* two, at offsets 0 and 64 of the CLog slot */
  uint64_t magic;
  uint64_t gen;         /* the larger valid one is current */
  uint64_t c;           /* durable checkpoint boundary: master + CLog hold the state as of c */
  uint64_t tail;        /* index of the oldest live entry (monotonic) */
  uint64_t head;        /* entries [tail, head) belong to durable rounds: each must be there */
  uint32_t pad;
  uint32_t crc;
};
#define MV_CKPT_MAGIC 0x31504b43u /* "CKP1" */
#define MV_CKPT_LINK UINT64_MAX /* blk of a link entry: the undo entries after it are in a spill segment */
struct mv_ckpt {        /* a CLog entry, followed by the block; entry i sits at slot i % clog_n */
  uint32_t magic;
  uint32_t crc;         /* crc32c of what follows this field, block included */
  uint64_t seq;         /* the entry index i */
  uint64_t blk;         /* block index */
  uint64_t cts;         /* commit ts of the version copied */
};
#define MV_REC_MAGIC 0x31474c4fu /* "OLG1" */
#define MV_PAD_MAGIC 0x44415050u /* "PPAD": fills the ring's end */
enum { MV_REC_VALUES = 1, MV_REC_OP = 2 };
struct mv_rec {
  uint32_t magic, len;  /* len: bytes of the record, a multiple of 8 */
  uint64_t seq;         /* the ring's record number */
  uint64_t cts, local;  /* commit and local timestamps */
  uint64_t dep;         /* the largest cts of another ring's version it read or overwrote (0: none) */
  uint32_t nranges;     /* MV_REC_VALUES: ranges that follow */
  uint8_t kind;         /* MV_REC_VALUES or MV_REC_OP */
  uint8_t ncdep;        /* conditional dependencies in the trailer (0 .. MV_CDEPS) */
  uint16_t dep_ring;    /* the ring of that version's record (at most 4096 rings) */
  uint32_t reserved;    /* MV_REC_OP: bytes of the input stream */
  uint32_t crc;         /* crc32c of the record with this field left out */
};
_Static_assert(sizeof(struct mv_rec) == 56, "an OLog record's header is 56 bytes (docs/format.md)");
/* Conditional dependencies (early lock release): commit ts and ring of
 * versions of other rings whose records were not yet durable when the
 * transaction read or overwrote them.  Recovery drops the record when one
 * of them is missing (docs/engines/mvcc.md).  Only a record with some
 * (ncdep > 0) carries them, as a trailer: its last mv_cdep_bytes(ncdep)
 * bytes, ncdep u64 commit ts, then ncdep u16 rings, zero-padded to 8. */
static inline uint64_t mv_cdep_bytes(unsigned n) { return n ? 8u * n + ((2u * n + 7u) & ~7u) : 0; }
/* The end of the record's body (values or op), where its trailer starts. */
static inline const char *mv_rec_body_end(const struct mv_rec *r) {
  return (const char *)r + r->len - mv_cdep_bytes(r->ncdep);
}
/* The i-th conditional dependency's commit ts (i < r->ncdep); *ring its ring. */
static inline uint64_t mv_rec_cdep(const struct mv_rec *r, unsigned i, uint32_t *ring) {
  const char *t = mv_rec_body_end(r);
  uint64_t c;
  uint16_t g;
  memcpy(&c, t + 8u * i, sizeof c);
  memcpy(&g, t + 8u * r->ncdep + 2u * i, sizeof g);
  *ring = g;
  return c;
}
/* The header's own consistency, for a record that starts `room` bytes
 * before the ring's end (the crc is checked apart). */
static inline int mv_rec_shape_ok(const struct mv_rec *r, uint64_t room) {
  return r->len >= sizeof *r && !(r->len % 8) && r->len <= room && r->ncdep <= MV_CDEPS &&
         r->len - sizeof *r >= mv_cdep_bytes(r->ncdep);
}
/* An MV_REC_OP record's body: the region's op id (u64), then its input
 * stream (runtime/tx/op.h), padded to 8. */
static inline uint64_t mv_op_rec_size(size_t inputs) { return sizeof(struct mv_rec) + 8 + ((inputs + 7u) & ~(uint64_t)7u); }
#define MV_WRITER_MAGIC 0x5245544952574f50ull /* "POWRITER" */
struct mv_writer {      /* at offset 128 of a ring slot: who wrote its operational records */
  uint64_t magic;
  uint64_t identity;    /* amber_op_identity() of the program */
  uint64_t boundary;    /* its ORDO boundary */
  uint32_t len;         /* bytes of path */
  uint32_t crc;         /* crc32c of the fields above and the path */
  char path[];          /* the program (/proc/self/exe) */
};
struct mv_range {       /* followed by len bytes, padded to 8 */
  uint64_t off;         /* data-area offset */
  uint32_t len, pad;
};
/* Entries of a thread's record queue: one per record the ring can hold
 * (every record is at least a header long), so only bytes limit the ring. */
static inline uint64_t mv_oq_n(void) { return mv.olog_bytes / sizeof(struct mv_rec) + 1; }
/* The ring past its high-water mark (three quarters of its bytes or of its
 * record queue): checked at every begin (mv_begin), so inline, and against
 * marks computed once, at attach (two compares, no division). */
static inline int mv_olog_high(const struct mv_thread *m) {
  return m->ohead - m->otail > mv.olog_high_bytes || m->oq_head - m->oq_tail > mv.olog_high_recs;
}

/* A spin that waits for another thread (a committing owner, a reader):
 * pause, then yield now and then. */
static inline void mv_cpu_wait(unsigned *spins) {
  if (++*spins < 128) __builtin_ia32_pause();
  else {
    sched_yield();
    *spins = 0;
  }
}

/* The first piece of [p, p + n) that lies in one block: its block, its
 * offset in the block; returns its length. */
static inline size_t mv_piece(const char *p, size_t n, uint64_t *blk, uint64_t *in) {
  uint64_t off = (uint64_t)(p - mv.base);
  *blk = off >> mv.shift;
  *in = off & (mv.block - 1);
  return mv.block - *in < n ? (size_t)(mv.block - *in) : n;
}

/* plog.c */
uint64_t mv_layout(uint64_t data_size, uint64_t block, uint64_t threads, uint64_t olog, uint64_t clog, uint64_t *mts_off,
                   uint64_t *logs_off, uint64_t *clog_off);
uint32_t mv_area_crc(const struct mv_area *a);
char *mv_ring_bytes(uint32_t i);
/* The current header (0 or 1), -1 when both are corrupt; *c (may be NULL)
 * the boundary it recycled under; *other_bad: the other header fails its
 * checksum. */
int mv_ring_read_tail(uint32_t i, uint64_t *pos, uint64_t *seq, uint64_t *c, int *other_bad);
/* c: the durable checkpoint boundary the records before pos were recycled
 * under (all of them have a smaller commit ts). */
void mv_ring_write_tail(uint32_t i, uint64_t pos, uint64_t seq, uint64_t c);
/* Looks through all of ring i for intact records with a sequence number in
 * [seq, seq + what the ring can hold): records written after record seq.
 * Returns how many; lo, hi: their smallest and largest seq; clo, chi: their
 * commit timestamps' range. */
uint64_t mv_ring_later(uint32_t i, uint64_t seq, uint64_t *lo, uint64_t *hi, uint64_t *clo, uint64_t *chi);
/* One step of that look: the intact record (value, op or pad) at byte
 * `off` of ring i with such a sequence number, or NULL. */
const struct mv_rec *mv_ring_later_at(uint32_t i, uint64_t off, uint64_t seq);
/* The file offset of ring i's byte position pos. */
uint64_t mv_ring_file_off(uint32_t i, uint64_t pos);
void mv_rings_format(void);
uint32_t mv_rec_crc(const struct mv_rec *r);
/* The record at *ppos with sequence number seq, or NULL (the ring ends
 * there); *ppos skips a ring tail too short for a record. */
const struct mv_rec *mv_rec_at(uint32_t ring, uint64_t *ppos, uint64_t seq);
uint64_t mv_rec_size(struct mv_thread *m);
/* 1: room for an n-byte record now; 0: not yet (retry later); -1: never. */
int mv_olog_reserve(struct mv_thread *m, uint64_t n);
/* The ring past its high-water mark; then, between transactions, recycle
 * and if need be run a checkpoint round (plog.c). */
void mv_olog_make_room(struct mv_thread *m);
uint64_t mv_olog_append(struct mv_thread *m, uint64_t cts, uint64_t n, uint64_t op_id, const char *in, uint32_t nin, int defer);
void mv_writer_note(uint32_t ring, uint64_t identity, uint64_t boundary, const char *path);
/* The ring's writer note, or NULL when it has none (or a torn one). */
const struct mv_writer *mv_writer_read(uint32_t ring);
void mv_olog_recycle(struct mv_thread *m);
void mv_mts_raise(uint64_t blk, uint64_t ts);

/* clog.c */
void mv_clog_attach(void);
void mv_clog_format(void);
/* The current CLog header (0 or 1), -1 when both are corrupt (any pointer
 * may be NULL). */
int mv_clog_read(uint64_t *c, uint64_t *tail, uint64_t *head, uint64_t *gen);
/* Entries [tail, head) are live and durable; c the durable boundary. */
void mv_clog_write(uint64_t c, uint64_t tail, uint64_t head);
/* The file offset of CLog entry i. */
uint64_t mv_ckpt_file_off(uint64_t i);
/* Writes and flushes entry i (no fence); returns its copy of the block. */
const char *mv_clog_put(uint64_t i, uint64_t blk, uint64_t cts, const char *data);
/* Entry i, or NULL when it is not there (stale, torn or foreign). */
const struct mv_ckpt *mv_ckpt_at(uint64_t i);
/* The ring slot of entry i; e itself when it holds an intact entry i of a
 * block, else NULL. */
const struct mv_ckpt *mv_ckpt_slot(uint64_t i);
const struct mv_ckpt *mv_ckpt_in(const struct mv_ckpt *e, uint64_t i);
/* An undo spill segment (docs/engines/mvcc.md, "Large transactions"):
 * entries [first, first + n) at data-area offset off, in free heap pages;
 * the last slot a link to the next one, if any.  mv_ckpt_link: e holds an
 * intact link entry i, which names segment *s (first = i + 1). */
struct mv_spill { uint64_t off, first, n; };
int mv_ckpt_link(const struct mv_ckpt *e, uint64_t i, struct mv_spill *s);
const struct mv_ckpt *mv_spill_entry(const struct mv_spill *s, uint64_t i);
void mv_clog_spill_stats(uint64_t *entries, uint64_t *segments);
/* Puts ctl on the dirty list (after a version was linked into its chain). */
void mv_dirty(struct mv_ctl *ctl);
/* A checkpoint round: every block's newest version older than a new
 * boundary c goes to the CLog, then c is durable, then the copies it
 * replaces leave their chains.  `wait`: the caller is outside any
 * transaction and may wait for the round lock.
 * Returns 0 when no round could run (lock busy, CLog full). */
int mv_checkpoint(struct mv_thread *m, int wait);
/* Writes every checkpoint copy back to the master (clean close, sync);
 * the caller is outside any transaction.  wait_free: wait until the
 * drained entries' readers are gone and the CLog is empty. */
void mv_clog_drain_all(struct mv_thread *m, int wait_free);
/* Writes every block's newest committed version back to the master.
 * wait_free as above. */
void mv_sync_all(struct mv_thread *m, int wait_free);
void mv_clog_stats(uint64_t *rounds, uint64_t *entries, uint64_t *drained, uint64_t *live);
/* Some block has versions not yet checkpointed. */
int mv_clog_dirty(void);
/* The dirty list's first header (AMBER_MVCC_ASSERT's check walks it with
 * commits and rounds held off; the link is next_dirty without bit 0). */
struct mv_ctl *mv_clog_dirty_first(void);
/* Open, after recovery: the CLog's volatile state from its header. */
void mv_clog_open(void);

/* Irrevocable transactions (solo.c): the round lock is held from
 * mv_clog_solo_lock (1: the CLog is empty and no block is dirty) to
 * mv_clog_solo_unlock, which moves c and empties the CLog in one header
 * write (c 0: no write, the CLog holds no undo entry).  mv_clog_undo
 * appends an entry, past the ring's end into spill segments of free heap
 * pages (0: the heap has no free run for the next segment). */
int mv_clog_solo_lock(void);
uint64_t mv_clog_solo_head(void);
int mv_clog_undo(uint64_t blk, uint64_t cts, const char *data);
uint64_t mv_clog_undo_bytes(void); /* the CLog and the spill segments claimed */
void mv_clog_solo_unlock(uint64_t c);

/* invariant.c: the invariant's assertion mode.  Commits hold
 * mv_check_lock shared while they publish (when mv.check). */
extern pthread_rwlock_t mv_check_lock;
void mv_check_invariant(const char *when);
uint64_t mv_checks_run(void);

/* scan.c: what the logs hold, and damage (as opposed to a torn tail) */
struct mv_found {
  const struct mv_rec *r;
  uint32_t ring;
  int dropped; /* in L->rec, while drop_unacknowledged runs: a conditional dependency is missing */
};
struct mv_ckpt_found {
  uint64_t blk, cts, seq;
  const char *data;
};
struct mv_logs {
  struct mv_found *rec;      /* OLog records, in commit-ts order */
  size_t nrec;
  struct mv_ckpt_found *ck;  /* CLog entries below c, by block then cts */
  size_t nck;
  uint64_t c, clog_end;      /* the durable boundary; where the CLog's valid part ends */
  uint64_t *end_pos, *end_seq; /* where each ring's valid part ends */
  uint64_t ring_c_max;       /* the newest boundary a ring recycled under, and that ring */
  uint32_t ring_c_ring;
  int detect, report;
  int damaged;               /* problems found (detect) */
  /* Records dropped, never acknowledged (scan.c; not in rec): a
   * conditional dependency is missing, or a deferred batch the crash tore
   * (deferred_tail). */
  struct mv_found *drop;
  size_t ndropped, capdrop;
  /* Of those, the records of torn deferred batches (deferred_tail): damage
   * to a batch acknowledged later looks the same, so recovery warns. */
  size_t ntorn;
};
/* detect: also look for damage (a ring scan per broken ring); report:
 * print each problem as an amber: error:. */
void mv_logs_scan(struct mv_logs *L, int detect, int report);
void mv_logs_free(struct mv_logs *L);
/* The number of problems, each printed (nothing is written). */
int mv_logs_damage(void);

/* recover.c */
/* Calls apply, in order, for every write recovery makes over the master:
 * the newest CLog entry with cts < c of each block (when newer than the
 * block's master timestamp), then the ranges of every OLog record with
 * cts >= c (newer than the block's master timestamp) in commit-ts order.
 * Returns the number of records with at least one such range; *maxcts is
 * the largest commit ts seen. */
typedef void mv_apply_fn(void *ctx, uint64_t off, const void *src, uint32_t len, uint64_t cts);
uint64_t mv_redo(mv_apply_fn *apply, void *ctx, uint64_t *maxcts);
/* Before anything is written at a program's open: -1 (after a message)
 * when the OLog holds operational records this program cannot re-execute. */
int mv_recover_precheck(void);
/* Recovery proper; returns the number of records applied. */
uint64_t mv_recover_logs(void);

/* replay.c: versions re-made from OLog records, in DRAM, over a base */
struct mv_rp;
typedef void mv_rp_base_fn(void *ctx, uint64_t blk, char *out); /* the block's state at c */
struct mv_rp *mv_rp_new(mv_rp_base_fn *base, void *ctx, uint64_t boundary);
void mv_rp_free(struct mv_rp *R);
/* Applies one record (in commit-ts order); `writer` names its program. */
void mv_rp_apply(struct mv_rp *R, const struct mv_rec *r, uint32_t ring, const char *writer);
/* The blocks written since the last mv_rp_flushed, with their newest version. */
size_t mv_rp_touched(const struct mv_rp *R);
void mv_rp_each_touched(struct mv_rp *R, void (*fn)(void *ctx, uint64_t blk, uint64_t cts, const char *data), void *ctx);
void mv_rp_flushed(struct mv_rp *R);
/* A replaying transaction's reads and writes (mv_load, mv_store divert). */
void mv_rp_load(const void *addr, void *dst, size_t n);
void mv_rp_store(void *addr, const void *src, size_t n);

/* shadow.c */
void mv_shadow_open(void);
/* Block blk's control header, in use or not (all zeros until installed). */
static inline struct mv_ctl *mv_ctl_at(uint64_t blk) { return &mv.table[blk]; }
static inline uint64_t mv_ctl_blk(const struct mv_ctl *c) { return (uint64_t)(c - mv.table); }
static inline struct mv_ctl_cold *mv_cold(const struct mv_ctl *c) { return &mv.cold[mv_ctl_blk(c)]; }
/* Whether block blk's header is installed (written since the heap was
 * opened), read with memory order `order`. */
static inline int mv_installed(uint64_t blk, int order) {
  return (__atomic_load_n(&mv.installed[blk / 64], order) >> (blk % 64)) & 1;
}
/* Its header when installed, else NULL: the master holds the block. */
static inline struct mv_ctl *mv_ctl_of(uint64_t blk) { return mv_installed(blk, __ATOMIC_ACQUIRE) ? &mv.table[blk] : NULL; }
struct mv_ctl *mv_ctl_get(uint64_t blk);
/* Calls fn(c) for every control header installed in the table, reading
 * only the table's pages that hold one (a close costs the blocks written,
 * not the heap's size). */
/* debug.c: the engine's debug_view (tx/engine.h). */
void mv_debug_view(struct amber_thread *t, void (*fn)(uint64_t off, const void *bytes, size_t n, void *ctx), void *ctx);
void mv_shadow_each(void (*fn)(struct mv_ctl *c, void *ctx), void *ctx);

/* tlog.c */
/* The thread's state, made at its first transaction (mv_thread_new).
 * Inline: every begin, load, store and commit asks for it, and the call
 * with the new state's frame cost 20 instructions each time (issue 19). */
struct mv_thread *mv_thread_new(struct amber_thread *t);
static inline struct mv_thread *mv_thread_of(struct amber_thread *t) {
  struct mv_thread *m = t->engine_data;
  if (__builtin_expect(m != NULL, 1)) return m;
  return mv_thread_new(t);
}
static inline struct mv_copy *mv_slot(struct mv_thread *m, uint64_t pos) {
  return (struct mv_copy *)(m->ring + (pos % m->nslots) * m->slot_size);
}
/* A committed copy is off its chain (a checkpoint round detached it and
 * everything older, after the fence of its CLog entry): its slot is free
 * after a grace period.  Chains are in cts order and a commit links above
 * the head, so the copies detached from a block are exactly those with cts
 * up to the newest one detached (mv_ctl.unl_ts).  The acquire pairs with the
 * round's release store, made after the chain was cut. */
static inline int mv_copy_unlinked(const struct mv_copy *x) {
  return x->cts <= __atomic_load_n(&mv_cold(x->ctl)->unl_ts, __ATOMIC_ACQUIRE);
}
/* The header after d on the dirty list (clog.c): its link without bit 0. */
static inline struct mv_ctl *mv_dirty_next(const struct mv_ctl *d) {
  return (struct mv_ctl *)(__atomic_load_n(&mv_cold(d)->next_dirty, __ATOMIC_RELAXED) & ~(uintptr_t)1);
}
/* A free slot at the ring's head, or NULL when the ring is full even after
 * reclaiming what can be reclaimed now. */
struct mv_copy *mv_ring_alloc(struct mv_thread *m);
/* Best-effort reclamation (never waits); `all`: go as far as possible. */
void mv_reclaim(struct mv_thread *m, int all);
/* The horizon: every running transaction's local-ts is certainly after any
 * cts certainly before it; 0 when some transaction is starting. */
uint64_t mv_horizon(void);
/* Bounded backoff: pause, then sched_yield, then nanosleep. */
void mv_backoff(struct mv_thread *m);

/* detector.c */
/* Asks for the grace period that frees what m unlinked so far; 0 when no
 * other thread is in a transaction (nothing to wait for). */
uint64_t mv_gp_ticket(struct mv_thread *m);
int mv_gp_over(struct mv_thread *m, uint64_t ticket);
void mv_detector_stop(void);
int mv_detector_ran(void);

/* area.c: a start that met the close never runs (waits, then stops). */
noreturn void mv_close_turn_away(struct mv_thread *m);

/* park.c: a LATEST transaction waiting for other threads inside itself
 * (full TLog or OLog, a locked block) is parked meanwhile: grace periods
 * do not wait for it and its local-ts does not hold the horizon back. */
void mv_park(struct mv_thread *m);
void mv_unpark(struct mv_thread *m); /* a new local-ts, published as a start publishes one */
void mv_wait_parked(struct mv_thread *m); /* park, back off, unpark */

/* txn.c */
void mv_begin(struct amber_thread *t);
/* A recent start met a version not certainly older than its local-ts:
 * restart with the clock (txn.c, "Recent starts"). */
noreturn void mv_stale_restart(struct amber_thread *t, struct mv_thread *m);
void mv_load(struct amber_thread *t, const void *addr, void *dst, size_t n);
void mv_store(struct amber_thread *t, void *addr, const void *src, size_t n);
void mv_commit(struct amber_thread *t);
void mv_abort(struct amber_thread *t);
void mv_wait_durable(struct amber_thread *t);
uint64_t mv_durable_token(struct amber_thread *t);
void mv_unlogged(struct amber_thread *t);

/* vmem.c: ordinary memory under the engine's timestamps (the engine's
 * vread / vwrite; the rest from mv_commit and mv_abort). */
void mv_vread(struct amber_thread *t, const void *addr, void *dst, size_t n);
void mv_vwrite(struct amber_thread *t, void *addr, size_t n);
int mv_vvalidate(struct mv_thread *m);
void mv_vrelease(struct mv_thread *m, uint64_t cts);
void mv_vabort(struct mv_thread *m);
void mv_vquiesce(struct mv_thread *m, uint64_t cts);
uint64_t *mv_vtable(uint64_t *mask); /* the lock table, for the pass's inline loads */

/* solo.c */
void mv_solo_wait(void);                 /* until no transaction runs alone */
void mv_solo_enter(struct mv_thread *m); /* before the begin publishes anything */
void mv_solo_started(struct mv_thread *m); /* after local-ts is known */
void mv_solo_store(struct amber_thread *t, struct mv_thread *m, void *addr, const void *src, size_t n);
void mv_solo_commit(struct mv_thread *m);
void mv_solo_leave(void);

#endif
