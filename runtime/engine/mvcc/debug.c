/* What a debugger shows (runtime/debugger.c): the bytes of each block as a
 * stopped thread would read them, where they are not the master's.
 *
 * Runs in an inferior call while every other thread is stopped anywhere,
 * locks held: so it never waits for a COMMITTING owner (resolve in txn.c
 * does), never records reads or dependencies, never allocates.  A thread
 * stopped in the middle of linking its copies shows the ones already linked:
 * the commit is not atomic to a debugger that stops it half-way. */
#include "mvcc.h"
#include "ordo/ordo.h"
#include "tx/tx.h"

struct debug_walk {
  struct mv_thread *m; /* the stopped thread's state inside a transaction; NULL: the latest commit */
  void (*fn)(uint64_t off, const void *bytes, size_t n, void *ctx);
  void *ctx;
};

static const char *debug_resolve(const struct mv_thread *m, struct mv_ctl *c) {
  uintptr_t l = __atomic_load_n(&c->lock, __ATOMIC_ACQUIRE);
  if (m && l && !(l & 1u) && ((struct mv_copy *)l)->owner == m) return ((struct mv_copy *)l)->data; /* its own write */
  for (struct mv_copy *v = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE); v; v = __atomic_load_n(&v->older, __ATOMIC_ACQUIRE))
    if (!m || m->mode == MV_LATEST || amber_ordo_cmp_time(v->cts, m->local) < 0) return v->data;
  return __atomic_load_n(&c->ckpt, __ATOMIC_ACQUIRE); /* NULL: the master */
}

static void debug_block(struct mv_ctl *c, void *ctx) {
  struct debug_walk *w = ctx;
  const char *p = debug_resolve(w->m, c);
  if (p) w->fn(mv_ctl_blk(c) << mv.shift, p, mv.block, w->ctx);
}

void mv_debug_view(struct amber_thread *t, void (*fn)(uint64_t off, const void *bytes, size_t n, void *ctx), void *ctx) {
  if (!mv.table) return;
  struct mv_thread *m = t ? t->engine_data : NULL;
  /* An irrevocable transaction writes the master in place: nothing newer. */
  struct debug_walk w = {m && m->in_tx && !m->solo ? m : NULL, fn, ctx};
  mv_shadow_each(debug_block, &w);
}
