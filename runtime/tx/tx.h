/* Per-thread transaction state and the engine-neutral transaction driver. */
#ifndef AMBER_TX_H
#define AMBER_TX_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>

#include "amber_interface.h"
#include "base/shared.h"
#include "engine.h"
#include "heap/window.h"
#include "unisolated.h"
#include "batch.h"
#include "output.h"

enum amber_abort_reason {
  AMBER_ABORT_UPGRADE,    /* a reader restarts as a writer */
  AMBER_ABORT_CONFLICT,   /* a block lock held by another transaction */
  AMBER_ABORT_VALIDATION, /* serializable read-set validation, or a write over a version newer than the snapshot */
  AMBER_ABORT_FUTURE,     /* linearizable: a version from the future */
  AMBER_ABORT_CAPACITY,   /* the thread's version log is full */
  AMBER_ABORT_IRREVOCABLE, /* it calls code amber could not instrument: it restarts alone (mvcc) */
  AMBER_ABORT_RETRY,      /* the region called amber_retry() */
  AMBER_ABORT_CANCEL,     /* the region called amber_cancel() */
  AMBER_ABORT_READLOG,    /* mvcc SER/LIN: a region that ran without its read log (never seen writing) wrote */
  AMBER_ABORT_STALE,      /* mvcc: a read-only transaction that started from a recent clock value met a version as new */
  AMBER_ABORT_NREASONS
};

struct amber_alloc_rec; /* tx/alloc.h */

/* Scratch blocks one transaction may hold at once (nested sorts). */
#define AMBER_TX_SCRATCH_MAX 8

/* A word the pointer check looks at when its transaction commits
 * (tx/ptrcheck.h): canonical heap address, the value stored, and the
 * site of a store outside regions (NULL inside them). */
struct amber_ptrcand {
  uintptr_t addr;
  uint64_t value;
  const char *site;
};

/* One undo record: up to 8 bytes in `old` (restored as one access of its
 * size, base/shared.h), or, for a larger block (a memcpy of an array,
 * AMBER_UNDO_BLOCK bytes or more), its old bytes at offset `old` of the
 * thread's undo_bytes (restored by one copy). */
struct amber_undo {
  void *addr;
  uint64_t old;
  uint32_t size;
};
#define AMBER_UNDO_BLOCK 64u

struct amber_thread {
  int depth;       /* region nesting; 0 outside regions */
  int writer;      /* this transaction may write persistent memory */
  int wrote;       /* set by the engine on the first persistent write */
  int defer_durability; /* amber_defer_durability_begin depth: commits need not be durable at return */
  int iso;         /* isolation level of the outermost region (AMBER_SI, ...) */
  int kind;        /* its kind: AMBER_KIND_ATOMIC or AMBER_KIND_PERSISTENT */
  /* AMBER_VGUARD_*: the running transaction's accesses to ordinary memory
   * go through the engine's vread / vwrite.  Set by the engine's begin,
   * cleared when the transaction ends. */
  int vguard;
  /* The engine's begin is deferred to the transaction's first access
   * (amber_tx_touch): set by the driver when the region starts or
   * restarts, cleared just before the engine's begin runs.  A transaction
   * that ends while it is still set touched no memory another thread can
   * reach: its engine neither began nor commits it. */
  int pending;
  int pm_marked; /* pm_mark holds this region's start marks (taken at its first begin) */
  /* What __amber_read_state answered in the running transaction, once it
   * began (entry/access.c): the answer holds until the transaction ends or
   * restarts (tx.c clears it there, amber_tx_forget_reads: end(), the
   * reader's fast end and undo_all, which every restart passes), so the next
   * frame that asks gets it with two loads.  NULL: ask again. */
  const struct __amber_reads *reads;
  /* The engine's read state for the pass's inline loads (amber_interface.h,
   * ABI 5), set by its begin when it has one (mvcc), for a transaction
   * that is neither replaying nor a lock-delimited section (the entry layer
   * checks those), or NULL: every load calls the runtime.  Valid until the
   * transaction ends; tx.c clears it there with `reads`. */
  const struct __amber_reads *engine_reads;
  /* The running transaction made an irrevocable call (I/O, code amber could
   * not instrument): its effects can no longer be undone by amber_retry or
   * amber_cancel. */
  int irrevocable_done;
  /* Why the running transaction is being undone, while it is (for the
   * engine's messages). */
  enum amber_abort_reason undoing;
  void *held_lock; /* a runtime mutex held across engine calls (released on abort) */
  /* Lock-delimited sections (AMBER_FASE=locks, tx/fase.c): the
   * program's mutexes and rwlock write locks this thread holds (counted
   * through the interceptors), and the section's state. */
  int fase_locks;
  int fase; /* AMBER_FASE_NONE, _HELD (no transaction yet) or _OPEN */
  struct __amber_region_desc *desc;
  /* An internal transaction (desc NULL): what it does, for messages
   * ("amber_root(1048576 bytes)"); NULL when unnamed. */
  const char *what;
  sigjmp_buf restart; /* the restart point (tx.c: __builtin_setjmp's words, or sigsetjmp's) */
  int jump_why;       /* what a jump to it does (tx.c: RESTART, CANCELLED) */
  uintptr_t run_sp;                 /* stack pointer at __amber_run */
  uintptr_t stack_lo;               /* lowest address of this thread's stack */
  uintptr_t stack_hi;               /* and its end (0 when unknown) */
  /* Volatile stores of a transaction that may abort, undone on abort. */
  struct amber_undo *undo;
  size_t nundo, capundo;
  char *undo_bytes; /* the old bytes of block records */
  size_t nundo_bytes, capundo_bytes;
  /* Allocator decisions of the running transaction. */
  struct amber_alloc_rec *alloc_rec;
  size_t nalloc_rec, capalloc_rec;
  /* Output of a region that may still be undone, issued at its commit
   * (tx/output.c). */
  struct amber_output out;
  /* Volatile (non-heap) frees requested inside a region: done at commit. */
  void **vfree;
  size_t nvfree, capvfree;
  /* Volatile scratch memory of the running transaction (wrappers/sort.c's
   * copies): freed when it ends, committed or undone (amber_tx_scratch). */
  void *scratch[AMBER_TX_SCRATCH_MAX];
  int nscratch;
  /* Operational records (tx/op.h): AMBER_OP_*; capture: the input stream
   * so far (opbuf, opn of opcap bytes); replay: the recorded stream (opin,
   * opn bytes, oprd consumed). */
  int op;
  char *opbuf;
  size_t opn, opcap, oprd;
  const char *opin;
  int exited;     /* its thread ended; the state awaits reuse */
  uint32_t index; /* state number, from 0 */
  uint32_t arena;
  void *engine_data; /* the engine's per-thread state */
  /* Statistics. */
  uint64_t update_commits, readonly_commits, aborts[AMBER_ABORT_NREASONS];
  uint64_t readonly_fences, readonly_flushes; /* issued by read-only regions, retries included */
  uint64_t pm_mark[2];                        /* fences, flushes of this thread when its region began */
  uint64_t stored_bytes; /* bytes the program stored to the heap in regions */
  /* The stray batch (tx/batch.c): the persistent stores this thread made
   * outside regions since the batch opened, one implicit transaction
   * (depth stays 0).  batch: it is open; batch_split: the engine may commit
   * it and open the next in the middle of the store now running (between
   * the program's stores, never inside the runtime's own operations);
   * batch_n, batch_bytes: stores and bytes in it; batch_due: the coarse
   * clock (ns) at which it commits at the latest; batch_please: the
   * contention epoch (amber_tx_batch_please) it last saw; batch_busy: in
   * tx/batch.c's work on it (a signal handler's sync point waits). */
  int batch, batch_split, batch_busy;
  uint32_t batch_n;
  uint64_t batch_bytes, batch_due, batch_please;
  uint64_t batch_commits; /* statistics: batches committed */
  /* The pointer check (tx/ptrcheck.h, AMBER_CHECK_POINTERS): the running
   * transaction's candidate words; store_site: the site of the store
   * outside regions now running (entry/access.c), NULL otherwise. */
  struct amber_ptrcand *ptrc;
  size_t nptrc, capptrc;
  const char *store_site;
  struct amber_thread *next_thread;
};

/* Initial-exec: every access callback reads it, and libamber is loaded with
 * the program (linked or preloaded), never dlopen'ed, so its TLS is static
 * (no __tls_get_addr call per access). */
extern __thread struct amber_thread *amber_self __attribute__((tls_model("initial-exec")));
struct amber_thread *amber_thread_slow(void);
static inline struct amber_thread *amber_thread(void) {
  struct amber_thread *t = amber_self;
  return __builtin_expect(t != NULL, 1) ? t : amber_thread_slow();
}
/* The calling thread is ending: hands its state back now (the engine's
 * thread_fini first), for reuse by the next new thread; nothing when it has
 * none.  A later amber call in the same thread takes a state again.  Fatal
 * inside a region.  (wrappers/threads.c: pthread_create, pthread_exit.) */
void amber_thread_retire(void);
/* Every thread state (for stats): one per thread running amber code, reused
 * after a thread ends. */
struct amber_thread *amber_threads(void);
uint32_t amber_thread_states(void);

/* The engine serving this process's transactions: NULL until the process
 * layer (init.c) has opened and recovered the heap, then fixed. */
extern const struct amber_engine *amber_tx_engine;

/* The heap opens at first use.  The process layer, which composes heap,
 * allocator and engine, registers its opener from a constructor; a
 * transaction (or amber_root) that finds no engine runs it, once. */
void amber_tx_set_opener(void (*open)(void));
void amber_tx_open_slow(void);
/* 1 once the process layer has opened and recovered the heap: release-
 * stored last, so a thread that sees it sees the open heap and engine.
 * Until then amber_tx_engine belongs to the thread opening the heap, whose
 * recovery runs transactions itself (amber_tx_opening). */
extern int amber_tx_ready;
extern __thread int amber_tx_opening __attribute__((tls_model("initial-exec")));
static inline int amber_tx_is_ready(void) { return __atomic_load_n(&amber_tx_ready, __ATOMIC_ACQUIRE); }
static inline void amber_tx_ensure_open(void) {
  if (__builtin_expect(!amber_tx_is_ready(), 0) && !amber_tx_opening) amber_tx_open_slow();
}

/* Abandons the running transaction (undoing its effects) and runs it again
 * from the start; AMBER_ABORT_UPGRADE re-runs it as a writer. */
noreturn void amber_tx_restart(struct amber_thread *t, enum amber_abort_reason why);

/* amber_retry(): undoes the running transaction (a writer too, on every
 * engine) and runs the outermost region again; fatal where it cannot. */
noreturn void amber_tx_retry(struct amber_thread *t);
/* amber_cancel(): undoes the running transaction as amber_retry does and
 * ends it: the outermost region's __amber_run returns nonzero. */
noreturn void amber_tx_cancel(struct amber_thread *t);
/* "amber_retry()" or "amber_cancel()": what undoes t's transaction (while
 * the engine's abort runs), for messages. */
const char *amber_tx_undo_call(const struct amber_thread *t);

/* Bits of desc->runtime_state, the runtime's per-region hints (0x4 belongs
 * to op.c).  WRITER: start it as a writer: it wrote before, or its
 * descriptor says so (irrevocable, persistent: set by entry/run.c's
 * check_desc before CHECKED).  CHECKED: its descriptor was validated
 * (entry/run.c).  IRREVOCABLE: it
 * called code amber could not instrument at run time (an engine may start
 * it irrevocable from then on).  LOGREADS and READONLY, the mvcc
 * engine's (engine/mvcc/txn.c, mv_begin): it wrote, so its SER and LIN
 * transactions log what they read from the start; it committed without
 * writing, so until it writes they need not. */
#define AMBER_HINT_WRITER 0x1u
#define AMBER_HINT_CHECKED 0x2u
#define AMBER_HINT_IRREVOCABLE 0x8u
#define AMBER_HINT_LOGREADS 0x10u
#define AMBER_HINT_READONLY 0x20u

/* The region wants to start as a writer: irrevocable or persistent, or it
 * wrote before (its hint). */
static inline int amber_tx_wants_writer(const struct __amber_region_desc *d) {
  return (d->flags & AMBER_DESC_IRREVOCABLE) || d->kind == 2 /* AMBER_KIND_PERSISTENT */ ||
         (__atomic_load_n(&d->runtime_state, __ATOMIC_RELAXED) & AMBER_HINT_WRITER);
}

/* The fast path of a region's boundary (tx.c, amber_tx_run_region): the
 * program's region d starts outermost (t->depth 0) in a thread with no
 * lock-delimited section and no stray batch, d's descriptor checked
 * (entry/run.c), and amber_tx_fast set.  Else __amber_run takes the
 * general path: amber_tx_run_outermost.  amber_tx_fast: set once the heap
 * is open and ready (init.c), when the engine begins lazily and no region
 * captures operational records (decided at the open); cleared for good
 * (amber_tx_fast_off) before anything sets what amber_heap_check_open
 * looks at: the exit begins, amber_close, fork() in the child.  So a
 * region that finds it set finds the heap as open as the general path's
 * check would (one that starts while another thread sets those is before
 * it either way). */
extern int amber_tx_fast __attribute__((visibility("hidden"))); /* hidden: one instruction, no GOT */
void amber_tx_fast_off(void);
static inline int amber_tx_region_fast(const struct amber_thread *t, const struct __amber_region_desc *d) {
  return (__atomic_load_n(&d->runtime_state, __ATOMIC_RELAXED) & AMBER_HINT_CHECKED) && !(t->depth | t->fase | t->batch) &&
         __atomic_load_n(&amber_tx_fast, __ATOMIC_ACQUIRE);
}
int amber_tx_run_region(struct __amber_region_desc *desc, void *arg, int iso, struct amber_thread *t);

/* Runs fn(arg) as the thread's outermost transaction, re-running it from
 * here when the engine restarts it (readers only), then commits (t->depth
 * is 0; the caller decided writer and iso).  Returns 0, or 1 when fn
 * called amber_cancel (nothing of it remains). */
int amber_tx_run_outermost(struct amber_thread *t, struct __amber_region_desc *desc, void (*fn)(void *), void *arg,
                            int writer, int iso);

/* A lock-delimited section's transaction (tx/fase.c): opened in place
 * by tx.c, with no closure and no restart point (an AMBER_KIND_PERSISTENT
 * writer, which no engine restarts), by the first region, internal write or
 * outside store of a section (t->fase == AMBER_FASE_HELD, t->depth == 0);
 * committed by amber_tx_section_commit at the section's end (t->depth == 1). */
enum { AMBER_FASE_NONE, AMBER_FASE_HELD, AMBER_FASE_OPEN };
void amber_tx_section_commit(struct amber_thread *t);
void amber_tx_section_open(struct amber_thread *t);
/* Inside a lock-delimited section that has no transaction yet, a region or
 * an internal write opens it and then joins it (flat nesting), so it
 * commits with the section, at the outermost unlock. */
static inline void amber_tx_join_section(struct amber_thread *t) {
  if (__builtin_expect(t->fase == AMBER_FASE_HELD, 0) && t->depth == 0) amber_tx_section_open(t);
}

/* Runs fn(arg) as a writing transaction of the runtime itself (amber_root,
 * free outside regions); joins the running transaction when there is one.
 * _named: `what` says what it does in the engines' messages (it must live
 * until the transaction ends). */
void amber_tx_run_internal(void (*fn)(void *), void *arg);
/* A transaction opened in place, with no closure and no restart point (an
 * AMBER_KIND_PERSISTENT writer, which no engine restarts), and its commit:
 * what lock-delimited sections and stray batches are made of. */
void amber_tx_begin_in_place(struct amber_thread *t);
void amber_tx_commit_in_place(struct amber_thread *t);
void amber_tx_run_internal_named(const char *what, void (*fn)(void *), void *arg);

/* The running transaction for a message: "region NAME", "irrevocable
 * region NAME", or the internal transaction's name. */
const char *amber_tx_name(const struct amber_thread *t);

/* A region's transaction begins lazily: the driver runs the engine's
 * begin not when the region starts but at its first access to memory
 * another thread can reach (heap or ordinary), or never, for a region that
 * makes none (an empty region, one that only computes on its closure and
 * its own frame).  Every path by which a region reads or writes such
 * memory calls amber_tx_touch first: the engine's read/write path and the
 * ordinary-memory hooks below, the pass's entry points that read in place
 * (entry/access.c: __amber_read_state, the direct heap load; entry/
 * libc.c: direct()), the irrevocable markers (entry/run.c), the
 * interceptors' reads at the alias (interpose.c) and held output
 * (tx/output.c: amber_output_held is 2 while pending, and the output
 * interceptors call amber_interpose_touch on seeing it).  Nothing is read
 * or written before the engine's begin, so the transaction is the same as
 * one that began at the touch: isolation, aborts and durability are the
 * engine's as before.  Outside a pending transaction, one load and a
 * not-taken branch. */
void amber_tx_begin_now(struct amber_thread *t);
/* The running transaction's read state is no longer known (it ended or
 * restarts). */
static inline void amber_tx_forget_reads(struct amber_thread *t) {
  t->reads = NULL;
  t->engine_reads = NULL;
}
static inline void amber_tx_touch(struct amber_thread *t) {
  if (__builtin_expect(t->pending, 0)) amber_tx_begin_now(t);
}

/* The engine's transactional read/write path, for runtime code. */
static inline void amber_tx_read(struct amber_thread *t, const void *addr, void *dst, size_t n) {
  amber_tx_touch(t);
  amber_tx_engine->load(t, addr, dst, n);
}
static inline void amber_tx_write(struct amber_thread *t, void *addr, const void *src, size_t n) {
  amber_tx_touch(t);
  amber_tx_engine->store(t, addr, src, n);
}

/* Bits of t->vguard. */
#define AMBER_VGUARD_READS 0x1
#define AMBER_VGUARD_WRITES 0x2

/* addr is in a frame this thread made inside its running region (below
 * __amber_run's): no other thread can reach it before the region ends,
 * when the frame is gone, so it needs no concurrency control. */
static inline int amber_tx_own_frame(const struct amber_thread *t, const void *addr) {
  uintptr_t a = (uintptr_t)addr;
  return t->stack_lo && a >= t->stack_lo && a < t->run_sp;
}
/* A transaction's read of ordinary memory (the pass's loads, libc readers):
 * under the engine's concurrency control when it asks for it, else in place
 * (maybe a program's atomic: base/shared.h). */
static inline void amber_tx_vread(struct amber_thread *t, const void *addr, void *dst, size_t n) {
  amber_tx_touch(t); /* vguard is the begun engine's */
  if ((t->vguard & AMBER_VGUARD_READS) && !amber_tx_own_frame(t, addr) && !amber_unisolated(addr))
    amber_tx_engine->vread(t, addr, dst, n);
  else
    amber_shared_load(dst, addr, n);
}
/* Before a transaction writes ordinary memory in place: the engine's claim,
 * then the undo record an abort restores (neither for AMBER_UNISOLATED
 * variables). */
void amber_tx_vclaim(struct amber_thread *t, void *addr, size_t n);
/* Inside a transaction: n bytes of volatile memory (malloc) that it holds
 * until it ends: freed at its commit and when it is undone (a restart or
 * amber_cancel leaves by siglongjmp, past the frames that used it, which
 * would otherwise leak it); NULL when out of memory.
 * amber_tx_scratch_free frees one before that. */
void *amber_tx_scratch(struct amber_thread *t, size_t n);
void amber_tx_scratch_free(struct amber_thread *t, void *p);

struct amber_alloc_rec *amber_tx_push_alloc_rec(struct amber_thread *t);
/* Records the old content of a volatile location the transaction is about to
 * overwrite, when it may abort. */
void amber_tx_undo_volatile(struct amber_thread *t, void *addr, size_t n);
/* The running transaction may still be undone: its volatile stores need
 * undo.  Every region's may (a conflict, an upgrade to writer, or
 * amber_retry on any engine); a lock-delimited section's never. */
static inline int amber_tx_may_abort(const struct amber_thread *t) {
  return t->depth && t->fase != AMBER_FASE_OPEN;
}

/* amber_tx_undo_volatile and amber_tx_vclaim_small share these two: */
/* A store at addr needs no undo record: the transaction cannot be undone
 * (e.g. romulus writers never abort), or addr is in a frame below
 * __amber_run, which dies with a restart anyway (restoring it could
 * overwrite the frames that perform the restart). */
static inline __attribute__((always_inline)) int amber_tx_undo_exempt(const struct amber_thread *t,
                                                                      const void *addr) {
  uintptr_t a = (uintptr_t)addr;
  return !amber_tx_may_abort(t) || (a >= t->stack_lo && a < t->run_sp);
}
/* One undo record of the k <= 8 bytes at addr, their old content in the
 * record; the caller has made room for it (t->nundo < t->capundo). */
static inline __attribute__((always_inline)) void amber_tx_undo_push(struct amber_thread *t, void *addr, size_t k) {
  struct amber_undo *u = &t->undo[t->nundo++];
  u->addr = addr;
  u->size = (uint32_t)k;
  u->old = 0;
  amber_shared_load(&u->old, addr, k); /* as the store it undoes (base/shared.h) */
}

/* amber_tx_vclaim for a store of n <= 8 bytes (a constant where it is
 * inlined), the common case without a call: a begun transaction whose
 * engine guards no volatile writes (romulus), no AMBER_UNISOLATED ranges,
 * room in the undo log.  It records what amber_tx_undo_volatile would, one
 * record of n bytes, or none when the transaction cannot be undone or addr
 * is in a frame below __amber_run.  Anything else takes amber_tx_vclaim. */
static inline __attribute__((always_inline)) void amber_tx_vclaim_small(struct amber_thread *t, void *addr,
                                                                        size_t n) {
  if (__builtin_expect(t->pending | (t->vguard & AMBER_VGUARD_WRITES) | (t->nundo == t->capundo) |
                           (__atomic_load_n(&amber_unisolated_n, __ATOMIC_RELAXED) != 0),
                       0)) {
    amber_tx_vclaim(t, addr, n);
    return;
  }
  if (amber_tx_undo_exempt(t, addr)) return;
  amber_tx_undo_push(t, addr, n);
}

#endif
