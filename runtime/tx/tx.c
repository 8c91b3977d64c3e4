/* The engine-neutral transaction driver: an outermost transaction from
 * prepare to commit, restarts, the volatile undo log, lock-delimited
 * sections' transactions and the runtime's own internal transactions. */
#include "tx.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "base/diag.h"
#include "base/shared.h"
#include "op.h"
#include "pm/pm.h"
#include "ptrcheck.h"

const struct amber_engine *amber_tx_engine;
int amber_tx_ready;
int amber_tx_fast;
void amber_tx_fast_off(void) { __atomic_store_n(&amber_tx_fast, 0, __ATOMIC_SEQ_CST); }
extern int amber_pm_simulating __attribute__((visibility("hidden"))); /* pm/pm.h's amber_pm_quiesce */
__thread int amber_tx_opening;

/* Set once, by the process layer's constructor, before any transaction. */
AMBER_START_DATA static void (*opener)(void);

AMBER_START_TEXT void amber_tx_set_opener(void (*open)(void)) { opener = open; }

void amber_tx_open_slow(void) {
  if (!opener)
    AMBER_BUG("a transaction started before the heap was opened, and no process layer registered an opener "
              "(runtime/init.c is not linked in)");
  opener();
}

static void *grow(void *p, size_t *cap, size_t elem) {
  size_t n = *cap ? *cap * 2 : 64;
  void *q = realloc(p, n * elem);
  if (!q) amber_fatal("out of memory for transaction logs (%zu entries)", n);
  *cap = n;
  return q;
}

struct amber_alloc_rec *amber_tx_push_alloc_rec(struct amber_thread *t) {
  if (t->nalloc_rec == t->capalloc_rec) t->alloc_rec = grow(t->alloc_rec, &t->capalloc_rec, sizeof *t->alloc_rec);
  return &t->alloc_rec[t->nalloc_rec++];
}

void amber_tx_undo_volatile(struct amber_thread *t, void *addr, size_t n) {
  if (amber_tx_undo_exempt(t, addr)) return;
  uintptr_t a = (uintptr_t)addr;
  /* A large block (labyrinth copies its whole grid into a private one in
   * each transaction): its old bytes in one copy, one record, instead of a
   * record per word. */
  while (n >= AMBER_UNDO_BLOCK) {
    uint32_t k = n > (1u << 30) ? 1u << 30 : (uint32_t)n;
    if (t->nundo == t->capundo) t->undo = grow(t->undo, &t->capundo, sizeof *t->undo);
    if (t->capundo_bytes - t->nundo_bytes < k) {
      size_t cap = t->capundo_bytes ? t->capundo_bytes : 4096;
      while (cap - t->nundo_bytes < k) cap *= 2;
      char *b = realloc(t->undo_bytes, cap);
      if (!b) amber_fatal("out of memory for transaction logs (%zu bytes of undo)", cap);
      t->undo_bytes = b;
      t->capundo_bytes = cap;
    }
    struct amber_undo *u = &t->undo[t->nundo++];
    u->addr = (void *)a;
    u->size = k;
    u->old = t->nundo_bytes;
    memcpy(t->undo_bytes + t->nundo_bytes, (void *)a, k); /* as the program's copy it undoes: plain */
    t->nundo_bytes += k;
    a += k;
    n -= k;
  }
  size_t need = (n + 7) / 8; /* room for all its records at once */
  while (t->capundo - t->nundo < need) t->undo = grow(t->undo, &t->capundo, sizeof *t->undo);
  while (n) {
    uint32_t k = n >= 8 ? 8 : (uint32_t)n;
    amber_tx_undo_push(t, (void *)a, k); /* room made above */
    a += k;
    n -= k;
  }
}

void amber_tx_vclaim(struct amber_thread *t, void *addr, size_t n) {
  amber_tx_touch(t); /* vguard is the begun engine's */
  if (amber_unisolated(addr)) return;
  if ((t->vguard & AMBER_VGUARD_WRITES) && !amber_tx_own_frame(t, addr)) amber_tx_engine->vwrite(t, addr, n);
  amber_tx_undo_volatile(t, addr, n);
}

void *amber_tx_scratch(struct amber_thread *t, size_t n) {
  if (t->nscratch == AMBER_TX_SCRATCH_MAX)
    amber_fatal("%s holds %d volatile scratch blocks (sorts nested that deep in one region); sort outside the comparator",
                amber_tx_name(t), AMBER_TX_SCRATCH_MAX);
  void *p = malloc(n);
  if (p) t->scratch[t->nscratch++] = p;
  return p;
}

void amber_tx_scratch_free(struct amber_thread *t, void *p) {
  for (int i = t->nscratch; i-- > 0;)
    if (t->scratch[i] == p) {
      t->scratch[i] = t->scratch[--t->nscratch];
      break;
    }
  free(p);
}

static void free_scratch(struct amber_thread *t) {
  while (t->nscratch) free(t->scratch[--t->nscratch]);
}

static void undo_volatile(struct amber_thread *t) {
  while (t->nundo) {
    struct amber_undo *u = &t->undo[--t->nundo];
    if (u->size > 8) memcpy(u->addr, t->undo_bytes + u->old, u->size);
    else amber_shared_store(u->addr, &u->old, u->size);
  }
  t->nundo_bytes = 0;
}

/* Every effect of the running transaction undone: ordinary memory, the
 * allocator's decisions, deferred frees, then the engine's own. */
static void undo_all(struct amber_thread *t, enum amber_abort_reason why) {
  t->undoing = why;
  amber_output_drop(t); /* its output never happened */
  undo_volatile(t);
  t->nptrc = 0;
  amber_alloc_abort(t);
  t->nvfree = 0;
  free_scratch(t); /* the frames that used it are left by the jump */
  if (t->pending) t->pending = 0; /* the engine never began it */
  else amber_tx_engine->abort(t);
  amber_tx_forget_reads(t); /* every restart, retry and cancel passes here before its jump */
  t->aborts[why]++;
}

const char *amber_tx_undo_call(const struct amber_thread *t) {
  return t->undoing == AMBER_ABORT_CANCEL ? "amber_cancel()" : "amber_retry()";
}

/* The restart point's value in amber_tx_run_outermost: run the region
 * again, or end it cancelled. */
enum { RESTART = 1, CANCELLED = 2 };

/* The restart point is taken at every region start, so its cost is part of
 * every region's.  glibc's sigsetjmp (even without the signal mask: no
 * system call) is a call through the PLT, pointer mangling and a second
 * call (__sigjmp_save); __builtin_setjmp stores three words (frame pointer,
 * stack pointer, resume address) and makes the compiler keep every value
 * of amber_tx_run_outermost that lives across it in its frame, which is
 * all a jump back needs: the frames below are abandoned as with
 * siglongjmp, and no signal mask was ever saved.  (With
 * -fcf-protection=return LLVM adds the shadow-stack fix-up to the jump.)
 * The sanitizers follow jumps through their longjmp interceptors (TSan
 * keeps a shadow call stack, ASan unpoisons the abandoned frames): under
 * them, sigsetjmp. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define AMBER_TX_SIGJMP 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define AMBER_TX_SIGJMP 1
#endif
#ifndef AMBER_TX_SIGJMP
_Static_assert(sizeof(sigjmp_buf) >= 5 * sizeof(void *), "t->restart holds __builtin_setjmp's five words");
#endif

static noreturn void jump(struct amber_thread *t, int why) {
#ifdef AMBER_TX_SIGJMP
  siglongjmp(t->restart, why);
#else
  t->jump_why = why;
  __builtin_longjmp((void **)(void *)t->restart, 1);
#endif
}

noreturn void amber_tx_restart(struct amber_thread *t, enum amber_abort_reason why) {
  if (t->fase == AMBER_FASE_OPEN) AMBER_BUG("a lock-delimited section's transaction was asked to restart");
  if (t->writer && !amber_tx_engine->aborts_writers) AMBER_BUG("a writing transaction was asked to restart (region %s)", t->desc ? t->desc->name : "?");
  undo_all(t, why);
  if (why == AMBER_ABORT_UPGRADE) {
    t->writer = 1;
    if (t->desc) __atomic_fetch_or(&t->desc->runtime_state, AMBER_HINT_WRITER, __ATOMIC_RELAXED);
  }
  jump(t, RESTART);
}

/* amber_retry and amber_cancel: fatal where the running transaction cannot
 * be undone, else undone. */
static void undo_by_program(struct amber_thread *t, enum amber_abort_reason why) {
  int retry = why == AMBER_ABORT_RETRY;
  const char *call = retry ? "amber_retry()" : "amber_cancel()";
  if (!t->depth)
    amber_fatal("%s called outside any region; it %s: call it inside AMBER_ATOMIC or AMBER_PERSISTENT", call,
                retry ? "runs the region that calls it again from its start"
                      : "undoes the region that calls it and continues after it");
  const char *file = t->desc && t->desc->file ? t->desc->file : "?";
  unsigned line = t->desc ? t->desc->line : 0;
  if (t->fase == AMBER_FASE_OPEN)
    amber_fatal("%s inside a lock-delimited section (AMBER_FASE=locks): %s; put the code that %s in an AMBER_ATOMIC region",
                call, retry ? "a section has no start to run again" : "a section's stores are not undone",
                retry ? "retries" : "cancels");
  if (t->irrevocable_done)
    amber_fatal("%s in %s (%s:%u) after it made an irrevocable call (I/O, or code amber could not instrument), "
                "whose effects cannot be undone; decide to %s before such calls",
                call, amber_tx_name(t), file, line, retry ? "retry" : "cancel");
  if (!t->desc) AMBER_BUG("%s in amber's own transaction", call);
  undo_all(t, why);
}

noreturn void amber_tx_retry(struct amber_thread *t) {
  undo_by_program(t, AMBER_ABORT_RETRY);
  /* The state it waits for is made by other threads: let them run. */
  sched_yield();
  jump(t, RESTART);
}

/* Flat nesting: the transaction is the outermost region's, so that is the
 * region that ends; nested regions' frames go with the jump. */
noreturn void amber_tx_cancel(struct amber_thread *t) {
  undo_by_program(t, AMBER_ABORT_CANCEL);
  jump(t, CANCELLED);
}

/* This thread's fences and flushes so far (every category). */
static inline void pm_mark(uint64_t m[2]) {
  const struct amber_pm_counters *c = amber_pm_counters();
  m[0] = c->all_fences;
  m[1] = c->all_flushes;
}

/* What every ended transaction, committed or cancelled, leaves behind. */
static inline void end(struct amber_thread *t) {
  t->vguard = 0;
  t->op = AMBER_OP_OFF;
  t->nundo = 0;
  t->nundo_bytes = 0;
  t->nptrc = 0;
  if (__builtin_expect(t->nvfree != 0, 0)) {
    for (size_t i = 0; i < t->nvfree; i++) free(t->vfree[i]);
    t->nvfree = 0;
  }
  if (__builtin_expect(t->nscratch != 0, 0)) free_scratch(t);
  t->desc = NULL;
  t->what = NULL;
  /* As a transaction starts: the fast path (amber_tx_run_region) relies
   * on finding them so. */
  t->wrote = 0;
  t->irrevocable_done = 0;
  t->pm_marked = 0;
  amber_tx_forget_reads(t);
  amber_pm_quiesce(AMBER_QUIESCE_TX);
}

/* A commit that wrote nothing: counted, with the fences and flushes its
 * begin and commit made (none, on every engine: bench/README.md). */
static inline __attribute__((always_inline)) void count_readonly(struct amber_thread *t) {
  t->readonly_commits++;
  if (t->pm_marked) { /* else no begin ran: no fence, no flush */
    const struct amber_pm_counters *c = amber_pm_counters();
    /* Two scalar compares and an add only when one moved (none, on every
     * engine): the compiler's one 16-byte load of the marks, which
     * amber_tx_begin_now stored as two 8-byte words moments before, could
     * not be forwarded from the store buffer and stalled every read-only
     * commit (5.8 % of hash-1k at 2 % updates on mvcc, perf). */
    uint64_t df = c->all_fences - t->pm_mark[0];
    __asm__("" : "+r"(df)); /* keeps the two subtractions scalar */
    uint64_t dl = c->all_flushes - t->pm_mark[1];
    if (__builtin_expect((df | dl) != 0, 0)) {
      t->readonly_fences += df;
      t->readonly_flushes += dl;
    }
  }
}

static inline void finish(struct amber_thread *t) {
  if (t->nptrc) amber_ptrcheck_commit(t); /* AMBER_CHECK_POINTERS: before anything of it is durable */
  if (t->pending) t->pending = 0; /* it touched nothing: nothing to commit */
  else amber_tx_engine->commit(t);
  if (t->wrote) t->update_commits++;
  else count_readonly(t);
  if (__builtin_expect(t->nalloc_rec != 0 || amber_alloc_tx_objects != 0, 0)) amber_alloc_commit(t);
  /* committed: what it wrote goes out, in order */
  if (__builtin_expect(t->out.nrec != 0, 0)) amber_output_release(t);
  else amber_output_held = 0;
  end(t);
}

/* What every outermost transaction sets before the engine begins it. */
static inline void prepare(struct amber_thread *t, struct __amber_region_desc *desc, int kind, int writer, int iso,
                           uintptr_t run_sp) {
  amber_tx_ensure_open();
  amber_heap_check_open();
  t->desc = desc;
  t->iso = iso;
  t->kind = kind;
  t->writer = writer;
  t->run_sp = run_sp;
  t->pm_marked = 0;
}

void amber_tx_begin_now(struct amber_thread *t) {
  t->pending = 0; /* first: what the begin does itself does not begin again */
  if (!t->pm_marked) { /* the region's first begin: its restarts' fences count too */
    pm_mark(t->pm_mark);
    t->pm_marked = 1;
  }
  if (amber_output_held == 2) amber_output_held = 1;
  amber_tx_engine->begin(t);
}

/* The outermost transaction of a thread: runs fn(arg), re-running it from
 * here when the engine restarts it (readers only), then commits. */
int amber_tx_run_outermost(struct amber_thread *t, struct __amber_region_desc *desc, void (*fn)(void *), void *arg,
                          int writer, int iso) {
  /* A region (or the runtime's own transaction) comes after the thread's
   * stores outside regions: they commit first, so the region keeps its
   * semantics and what survives a crash stays a prefix. */
  if (__builtin_expect(t->batch, 0)) amber_tx_batch_commit(t);
  prepare(t, desc, desc ? (int)desc->kind : 1 /* AMBER_KIND_ATOMIC */, writer, iso, (uintptr_t)__builtin_frame_address(0));
#ifdef AMBER_TX_SIGJMP
  int why = sigsetjmp(t->restart, 0);
#else
  int why = __builtin_setjmp((void **)(void *)t->restart) ? t->jump_why : 0;
#endif
  if (why == CANCELLED) {
    /* undo_all has undone it and the engine has ended it. */
    t->depth = 0;
    end(t);
    return 1;
  }
  /* Restarts land here with t->writer possibly raised. */
  t->wrote = 0;
  t->irrevocable_done = 0;
  amber_op_begin(t, desc, arg);
  if (amber_tx_engine->lazy_begin) {
    /* Output held, 2: the interceptors begin the transaction before they
     * read the program's memory (amber_output_hold's rule otherwise). */
    amber_output_held = t->fase != AMBER_FASE_OPEN ? 2 : 0;
    t->pending = 1;
  } else {
    amber_output_hold(t);
    amber_tx_begin_now(t);
  }
  t->depth = 1;
  fn(arg);
  t->depth = 0;
  finish(t);
  return 0;
}

/* The boundary of a region on the fast path (entry/run.c, __amber_run,
 * when amber_tx_region_fast holds: outermost, no lock-delimited section,
 * no stray batch, heap open and ready, a lazy-begin engine, no operational
 * capture, the descriptor checked).  amber_tx_run_outermost's work less
 * what those conditions make moot: no batch to commit, no open to wait
 * for, no op record to start (t->op stays AMBER_OP_OFF, as end() left
 * it), and begin deferred to the first touch.  A region that ends with its
 * transaction still pending touched nothing another thread can reach, so
 * nothing of it was logged either (every log below is written after a
 * touch; they are checked all the same, and any entry sends it through
 * finish): it counts as a read-only commit, with no engine call, no
 * fence, no mark.  Restarts and amber_cancel land here as in
 * amber_tx_run_outermost. */
int amber_tx_run_region(struct __amber_region_desc *desc, void *arg, int iso, struct amber_thread *t) {
  t->desc = desc;
  t->iso = iso;
  t->kind = desc->kind;
  /* amber_tx_wants_writer: check_desc folded the descriptor's part into
   * the hint.  wrote, irrevocable_done and pm_marked are 0: end() left
   * them so. */
  t->writer = __atomic_load_n(&desc->runtime_state, __ATOMIC_RELAXED) & AMBER_HINT_WRITER;
  t->run_sp = (uintptr_t)__builtin_frame_address(0);
#ifdef AMBER_TX_SIGJMP
  int why = sigsetjmp(t->restart, 0);
#else
  int why = __builtin_setjmp((void **)(void *)t->restart) ? t->jump_why : 0;
#endif
  if (__builtin_expect(why != 0, 0)) {
    if (why == CANCELLED) {
      t->depth = 0;
      end(t);
      return 1;
    }
    t->wrote = 0; /* a restart: as amber_tx_run_outermost's */
    t->irrevocable_done = 0;
  }
  amber_output_held = 2; /* t->fase is AMBER_FASE_NONE */
  t->pending = 1;
  t->depth = 1;
  desc->fn(arg);
  t->depth = 0;
  if (__builtin_expect(!(t->nptrc | t->nundo | t->nalloc_rec | t->out.nrec | t->nvfree | (size_t)t->nscratch |
                         amber_alloc_tx_objects),
                       1) &&
      !amber_pm_simulating) {
    if (__builtin_expect(t->pending, 1)) {
      /* t->reads is NULL: only a begun transaction's frames set it. */
      t->pending = 0;
      t->readonly_commits++;
      amber_output_held = 0;
      t->desc = NULL;
      return 0;
    }
    /* Begun, and ended a reader that wrote nothing: finish's work less
     * what that makes moot (no pointer check, no allocation, no output,
     * no undo, no irrevocable call: a reader that makes one restarts as a
     * writer), and end()'s resets of what is still as it left it. */
    if (!t->writer && !t->wrote) {
      amber_tx_engine->commit(t);
      count_readonly(t);
      amber_output_held = 0;
      t->vguard = 0;
      t->desc = NULL;
      t->pm_marked = 0;
      amber_tx_forget_reads(t);
      return 0;
    }
  }
  finish(t);
  return 0;
}

/* A lock-delimited section's transaction (AMBER_FASE=locks): a writer that
 * never restarts, so run_sp 0 (no frames to protect from the undo log). */
void amber_tx_begin_in_place(struct amber_thread *t) {
  prepare(t, NULL, 2 /* AMBER_KIND_PERSISTENT */, 1, 0 /* AMBER_ISO_DEFAULT */, 0);
  t->wrote = 0;
  t->irrevocable_done = 0;
  t->op = AMBER_OP_OFF; /* no closure to re-run: values */
  amber_tx_begin_now(t);
}

void amber_tx_commit_in_place(struct amber_thread *t) { finish(t); }

void amber_tx_section_open(struct amber_thread *t) {
  amber_tx_batch_commit(t); /* the section's stores come after the batch's */
  amber_tx_begin_in_place(t);
  t->depth = 1;
  t->fase = AMBER_FASE_OPEN;
}

void amber_tx_section_commit(struct amber_thread *t) {
  if (t->fase != AMBER_FASE_OPEN || t->depth != 1) AMBER_BUG("section commit at depth %d, state %d", t->depth, t->fase);
  t->depth = 0;
  t->fase = AMBER_FASE_HELD;
  finish(t);
}

void amber_tx_run_internal_named(const char *what, void (*fn)(void *), void *arg) {
  struct amber_thread *t = amber_thread();
  amber_tx_join_section(t);
  if (t->depth > 0) {
    if (!t->writer) amber_tx_restart(t, AMBER_ABORT_UPGRADE);
    amber_tx_touch(t); /* fn may read ordinary memory in place before its first write */
    fn(arg);
    return;
  }
  amber_tx_batch_commit(t); /* before `what`, which the batch's commit clears */
  t->what = what;
  amber_tx_run_outermost(t, NULL, fn, arg, 1, 0 /* AMBER_ISO_DEFAULT */);
}

void amber_tx_run_internal(void (*fn)(void *), void *arg) { amber_tx_run_internal_named(NULL, fn, arg); }

const char *amber_tx_name(const struct amber_thread *t) {
  static __thread char buf[256];
  if (t->desc) {
    snprintf(buf, sizeof buf, "region %s", t->desc->name ? t->desc->name : "?");
    return buf;
  }
  if (t->fase == AMBER_FASE_OPEN) return "a lock-delimited section (AMBER_FASE=locks)";
  return t->what ? t->what : "amber's own transaction (a free, realloc or store outside regions)";
}
