/* The region entry points the pass calls: __amber_run (a region's
 * transaction, or a nested region joining its outer one) and the
 * irrevocable-call markers it places before code it could not instrument;
 * and amber_retry / amber_cancel, which end the running one. */
#include "amber_interface.h"
#include "base/diag.h"
#include "tx/op.h"
#include "tx/tx.h"

static void check_desc(struct __amber_region_desc *d) {
  if (__atomic_load_n(&d->runtime_state, __ATOMIC_RELAXED) & AMBER_HINT_CHECKED) return;
  if (d->magic != AMBER_DESC_MAGIC)
    amber_fatal("region descriptor at %p is damaged (bad magic); the program's image is corrupt", (void *)d);
  if (d->abi_version != AMBER_ABI_VERSION)
    amber_fatal("region %s (%s:%u) was compiled for amber ABI %u but this runtime implements ABI %u; rebuild the program with this amber's amber-cc",
                d->name ? d->name : "?", d->file ? d->file : "?", d->line, d->abi_version, AMBER_ABI_VERSION);
  if (d->kind != 1 && d->kind != 2)
    amber_fatal("region %s (%s:%u) has unknown kind %u", d->name, d->file, d->line, d->kind);
  /* The fast path reads whether the region starts as a writer from the
   * hint alone (tx/tx.c, amber_tx_run_region): the descriptor's part of
   * amber_tx_wants_writer goes into it, before CHECKED. */
  if ((d->flags & AMBER_DESC_IRREVOCABLE) || d->kind == 2 /* AMBER_KIND_PERSISTENT */)
    __atomic_fetch_or(&d->runtime_state, AMBER_HINT_WRITER, __ATOMIC_RELAXED);
  __atomic_fetch_or(&d->runtime_state, AMBER_HINT_CHECKED, __ATOMIC_RELEASE);
}

/* Every region the fast path does not take: nested ones, a thread's first,
 * a lock-delimited section's, those with a stray batch to commit first,
 * before the heap is open, a descriptor not yet checked. */
__attribute__((noinline)) static int run_general(struct __amber_region_desc *desc, void *closure, int iso) {
  struct amber_thread *t = amber_thread();
  check_desc(desc);
  amber_tx_join_section(t);
  if (t->depth > 0) {
    /* Nesting is flat: the inner region is part of the outer transaction. */
    if (!t->writer && amber_tx_wants_writer(desc)) amber_tx_restart(t, AMBER_ABORT_UPGRADE);
    /* The outer region built this closure with stores that replay drops. */
    if (t->op == AMBER_OP_CAPTURE) amber_op_put(t, closure, desc->closure_size);
    else if (t->op == AMBER_OP_REPLAY) amber_op_take(t, closure, desc->closure_size);
    t->depth++;
    desc->fn(closure);
    t->depth--;
    return 0; /* a cancel never returns here: it leaves the outermost region */
  }
  return amber_tx_run_outermost(t, desc, desc->fn, closure, amber_tx_wants_writer(desc), iso);
}

int __amber_run(struct __amber_region_desc *desc, void *closure, int iso) {
  struct amber_thread *t = amber_self;
  /* An ordinary outermost region: the boundary's fast path (tx/tx.h).
   * Both calls are tail calls: nothing is saved here. */
  if (__builtin_expect(t != NULL, 1) && __builtin_expect(amber_tx_region_fast(t, desc), 1))
    return amber_tx_run_region(desc, closure, iso, t); /* arguments in place */
  return run_general(desc, closure, iso);
}

/* Known calls with outside effects that write no program memory (fsync,
 * exit, ...; the pass's isIoCall).  Output is not among them: it waits for
 * the commit (tx/output.c), and stays held here, as the region may still
 * abort under mvcc. */
void __amber_irrevocable_io(void) {
  struct amber_thread *t = amber_thread();
  if (t->depth > 0 && !t->writer) amber_tx_restart(t, AMBER_ABORT_UPGRADE);
  amber_tx_touch(t); /* the call reads or writes memory of the program's (tx/tx.h) */
  if (t->depth > 0) t->irrevocable_done = 1;
  /* Its output would happen again at replay. */
  amber_op_giveup(t, "called a function with outside effects (I/O)");
}

void __amber_irrevocable(void) {
  struct amber_thread *t = amber_thread();
  if (t->depth == 0) return;
  if (!t->writer) amber_tx_restart(t, AMBER_ABORT_UPGRADE);
  amber_tx_touch(t); /* the engine's unlogged needs it begun, and the code reads memory in place */
  amber_op_giveup(t, "called code amber could not instrument");
  amber_tx_engine->unlogged(t);
  t->irrevocable_done = 1; /* after unlogged: mvcc restarts the region alone there first */
  /* From here the region cannot be undone (mvcc runs it alone, a romulus
   * writer never aborts): what it wrote so far goes out now, before the
   * call (a prompt before a read), and the rest as it is written. */
  amber_output_release(t);
}

void __amber_retry(void) { amber_tx_retry(amber_thread()); }
void(amber_retry)(void) { amber_tx_retry(amber_thread()); }
void __amber_cancel(void) { amber_tx_cancel(amber_thread()); }
void(amber_cancel)(void) { amber_tx_cancel(amber_thread()); }
