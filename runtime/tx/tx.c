/* The engine-neutral transaction driver: __amber_run, restarts, the volatile
 * undo log and per-thread state. */
#include "tx.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "base/diag.h"
#include "op.h"
#include "pm/pm.h"

__thread struct amber_thread *amber_self;
static struct amber_thread *all_threads;
static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t nthreads;

/* Per-descriptor hint kept in desc->runtime_state. */
#define HINT_WRITER 0x1u
#define HINT_CHECKED 0x2u

uint32_t amber_thread_states(void) { return __atomic_load_n(&nthreads, __ATOMIC_ACQUIRE); }

struct amber_thread *amber_threads(void) {
  return __atomic_load_n(&all_threads, __ATOMIC_ACQUIRE);
}

/* Thread states are recycled: a thread that exits leaves its state (its
 * counters, its grown logs) for the next new thread, so a program that
 * creates threads in a loop holds as many states as it ever ran threads at
 * once.  Statistics stay exact: counters only ever add up. */
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static void thread_exit(void *arg) {
  struct amber_thread *t = arg;
  if (t->depth > 0)
    amber_fatal("a thread exited inside the AMBER region %s; the region never commits and its locks would stay held. "
                "Leave the region before the thread ends",
                t->desc && t->desc->name ? t->desc->name : "(runtime)");
  if (amber_eng && amber_eng->thread_fini && !amber_closed) amber_eng->thread_fini(t);
  amber_self = NULL;
  __atomic_store_n(&t->exited, 1, __ATOMIC_RELEASE);
}

void amber_thread_retire(void) {
  struct amber_thread *t = amber_self;
  if (!t) return;
  pthread_setspecific(exit_key, NULL); /* the key's destructor has nothing left to do */
  thread_exit(t);
}

static void make_exit_key(void) {
  if (pthread_key_create(&exit_key, thread_exit) != 0) amber_fatal("cannot create a thread-exit key");
}

static struct amber_thread *reuse_exited(void) {
  for (struct amber_thread *t = amber_threads(); t; t = t->next_thread) {
    int one = 1;
    if (__atomic_load_n(&t->exited, __ATOMIC_ACQUIRE) &&
        __atomic_compare_exchange_n(&t->exited, &one, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
      return t;
  }
  return NULL;
}

struct amber_thread *amber_thread_slow(void) {
  pthread_once(&exit_key_once, make_exit_key);
  struct amber_thread *t = reuse_exited();
  int fresh = t == NULL;
  if (fresh) t = calloc(1, sizeof *t);
  if (!t) amber_fatal("out of memory for thread state");
  t->depth = 0;
  t->desc = NULL;
  t->fase = t->fase_locks = 0; /* a reused state holds no program lock */
  t->stack_lo = 0;
  pthread_attr_t attr;
  void *lo;
  size_t sz;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    if (pthread_attr_getstack(&attr, &lo, &sz) == 0) t->stack_lo = (uintptr_t)lo;
    pthread_attr_destroy(&attr);
  }
  if (fresh) {
    pthread_mutex_lock(&threads_lock);
    t->index = nthreads++;
    t->next_thread = all_threads;
    __atomic_store_n(&all_threads, t, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&threads_lock);
    t->arena = t->index % AMBER_NARENAS;
  }
  amber_self = t;
  pthread_setspecific(exit_key, t);
  return t;
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
  if (!amber_tx_may_abort(t)) return; /* e.g. romulus writers never abort */
  uintptr_t a = (uintptr_t)addr;
  /* Frames below __amber_run die with a restart anyway; restoring them could
   * overwrite the frames that perform the restart. */
  if (a >= t->stack_lo && a < t->run_sp) return;
  while (n) {
    uint32_t k = n >= 8 ? 8 : (uint32_t)n;
    if (t->nundo == t->capundo) t->undo = grow(t->undo, &t->capundo, sizeof *t->undo);
    struct amber_undo *u = &t->undo[t->nundo++];
    u->addr = (void *)a;
    u->size = k;
    u->old = 0;
    memcpy(&u->old, (void *)a, k);
    a += k;
    n -= k;
  }
}

static void undo_volatile(struct amber_thread *t) {
  while (t->nundo) {
    struct amber_undo *u = &t->undo[--t->nundo];
    memcpy(u->addr, &u->old, u->size);
  }
}

noreturn void amber_tx_restart(struct amber_thread *t, enum amber_abort_reason why) {
  if (t->fase == AMBER_FASE_OPEN) AMBER_BUG("a lock-delimited section's transaction was asked to restart");
  if (t->writer && !amber_eng->aborts_writers) AMBER_BUG("a writing transaction was asked to restart (region %s)", t->desc ? t->desc->name : "?");
  undo_volatile(t);
  amber_alloc_abort(t);
  t->nvfree = 0;
  amber_eng->abort(t);
  t->aborts[why]++;
  if (why == AMBER_ABORT_UPGRADE) {
    t->writer = 1;
    if (t->desc) __atomic_fetch_or(&t->desc->runtime_state, HINT_WRITER, __ATOMIC_RELAXED);
  }
  siglongjmp(t->restart, 1);
}

static void check_desc(struct __amber_region_desc *d) {
  if (__atomic_load_n(&d->runtime_state, __ATOMIC_RELAXED) & HINT_CHECKED) return;
  if (d->magic != AMBER_DESC_MAGIC)
    amber_fatal("region descriptor at %p is damaged (bad magic); the program's image is corrupt", (void *)d);
  if (d->abi_version != AMBER_ABI_VERSION)
    amber_fatal("region %s (%s:%u) was compiled for amber ABI %u but this runtime implements ABI %u; rebuild the program with this amber's amber-cc",
                d->name ? d->name : "?", d->file ? d->file : "?", d->line, d->abi_version, AMBER_ABI_VERSION);
  if (d->kind != 1 && d->kind != 2)
    amber_fatal("region %s (%s:%u) has unknown kind %u", d->name, d->file, d->line, d->kind);
  __atomic_fetch_or(&d->runtime_state, HINT_CHECKED, __ATOMIC_RELAXED);
}

static inline int wants_writer(const struct __amber_region_desc *d) {
  return (d->flags & AMBER_DESC_IRREVOCABLE) || d->kind == 2 /* AMBER_KIND_PERSISTENT */ ||
         (__atomic_load_n(&d->runtime_state, __ATOMIC_RELAXED) & HINT_WRITER);
}

/* This thread's fences and flushes so far (every category). */
static void pm_mark(uint64_t m[2]) {
  const struct amber_pm_counters *c = amber_pm_counters();
  m[0] = m[1] = 0;
  for (int i = 0; i < AMBER_PM_NCAT; i++) {
    m[0] += c->fences[i];
    m[1] += c->flushes[i];
  }
}

static void finish(struct amber_thread *t) {
  amber_eng->commit(t);
  if (t->wrote) t->update_commits++;
  else {
    t->readonly_commits++;
    uint64_t now[2];
    pm_mark(now);
    t->readonly_fences += now[0] - t->pm_mark[0];
    t->readonly_flushes += now[1] - t->pm_mark[1];
  }
  amber_alloc_commit(t);
  t->op = AMBER_OP_OFF;
  t->nundo = 0;
  for (size_t i = 0; i < t->nvfree; i++) free(t->vfree[i]);
  t->nvfree = 0;
  t->desc = NULL;
  amber_pm_quiesce(AMBER_QUIESCE_TX);
}

/* What every outermost transaction sets before the engine begins it. */
static void prepare(struct amber_thread *t, struct __amber_region_desc *desc, int kind, int writer, int iso, uintptr_t run_sp) {
  amber_ensure_init();
  amber_check_open();
  t->desc = desc;
  t->iso = iso;
  t->kind = kind;
  t->writer = writer;
  t->run_sp = run_sp;
  pm_mark(t->pm_mark);
}

/* The outermost transaction of a thread: runs fn(arg), re-running it from
 * here when the engine restarts it (readers only), then commits. */
static void run_outermost(struct amber_thread *t, struct __amber_region_desc *desc, void (*fn)(void *), void *arg,
                          int writer, int iso) {
  prepare(t, desc, desc ? (int)desc->kind : 1 /* AMBER_KIND_ATOMIC */, writer, iso, (uintptr_t)__builtin_frame_address(0));
  sigsetjmp(t->restart, 0);
  /* Restarts land here with t->writer possibly raised. */
  t->wrote = 0;
  amber_op_begin(t, desc, arg);
  amber_eng->begin(t);
  t->depth = 1;
  fn(arg);
  t->depth = 0;
  finish(t);
}

/* A lock-delimited section's transaction (AMBER_FASE=locks): a writer that
 * never restarts, so run_sp 0 (no frames to protect from the undo log). */
static void section_open(struct amber_thread *t) {
  prepare(t, NULL, 2 /* AMBER_KIND_PERSISTENT */, 1, 0 /* AMBER_ISO_DEFAULT */, 0);
  t->wrote = 0;
  t->op = AMBER_OP_OFF; /* no closure to re-run: values */
  amber_eng->begin(t);
  t->depth = 1;
  t->fase = AMBER_FASE_OPEN;
}

void amber_tx_section_commit(struct amber_thread *t) {
  if (t->fase != AMBER_FASE_OPEN || t->depth != 1) AMBER_BUG("section commit at depth %d, state %d", t->depth, t->fase);
  t->depth = 0;
  t->fase = AMBER_FASE_HELD;
  finish(t);
}

/* Inside a lock-delimited section that has no transaction yet, a region or
 * an internal write opens it and then joins it (flat nesting), so it
 * commits with the section, at the outermost unlock. */
static inline void join_section(struct amber_thread *t) {
  if (__builtin_expect(t->fase == AMBER_FASE_HELD, 0) && t->depth == 0) section_open(t);
}

void __amber_run(struct __amber_region_desc *desc, void *closure, int iso) {
  struct amber_thread *t = amber_thread();
  check_desc(desc);
  join_section(t);
  if (t->depth > 0) {
    /* Nesting is flat: the inner region is part of the outer transaction. */
    if (!t->writer && wants_writer(desc)) amber_tx_restart(t, AMBER_ABORT_UPGRADE);
    /* The outer region built this closure with stores that replay drops. */
    if (t->op == AMBER_OP_CAPTURE) amber_op_put(t, closure, desc->closure_size);
    else if (t->op == AMBER_OP_REPLAY) amber_op_take(t, closure, desc->closure_size);
    t->depth++;
    desc->fn(closure);
    t->depth--;
    return;
  }
  run_outermost(t, desc, desc->fn, closure, wants_writer(desc), iso);
}

void amber_tx_run_internal(void (*fn)(void *), void *arg) {
  struct amber_thread *t = amber_thread();
  join_section(t);
  if (t->depth > 0) {
    if (!t->writer) amber_tx_restart(t, AMBER_ABORT_UPGRADE);
    fn(arg);
    return;
  }
  run_outermost(t, NULL, fn, arg, 1, 0 /* AMBER_ISO_DEFAULT */);
}

void __amber_irrevocable_io(void) {
  struct amber_thread *t = amber_thread();
  if (t->depth > 0 && !t->writer) amber_tx_restart(t, AMBER_ABORT_UPGRADE);
  /* Its output would happen again at replay. */
  amber_op_giveup(t, "called a function with outside effects (I/O)");
}

void __amber_irrevocable(void) {
  struct amber_thread *t = amber_thread();
  if (t->depth == 0) return;
  if (!t->writer) amber_tx_restart(t, AMBER_ABORT_UPGRADE);
  amber_op_giveup(t, "called code amber could not instrument");
  amber_eng->unlogged(t);
}
