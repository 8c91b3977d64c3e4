/* Operational records (docs/engines/mvcc.md, "Operational records"): what a
 * transaction took from outside the persistent heap, captured in execution
 * order so that recovery can re-execute its region and get the same writes.
 *
 * A transaction captures when its engine keeps operational records, its
 * region is an AMBER_ATOMIC region of an object whose descriptors were
 * found at open (amber_op_scan), and AMBER_OLOG=ops.  The input stream is:
 * the closure, then, in order, the bytes of every non-heap load (loads,
 * memory intrinsics and libc wrappers reading volatile memory, the old value
 * of a volatile atomic), each nested region's closure, and 8 bytes per
 * persistent allocation (where it went).  Anything the runtime cannot
 * capture (an irrevocable call, an indirect call or a cross-module call
 * resolved at run time, a stream over AMBER_OLOG_INPUTS) makes the
 * transaction log values instead.  A direct call to another module's clone
 * by name (pass ABI 6) is captured like a call within the module: its
 * target is a link-time constant, and the identity covers the object that
 * defines it (every object with a registered clone: tx/clones.c).
 *
 * Replay feeds the same stream back: non-heap loads return recorded bytes,
 * non-heap stores are dropped (the program's volatile state is not there
 * during recovery), allocations land where they landed. */
#ifndef AMBER_OPREC_H
#define AMBER_OPREC_H

#include <stddef.h>
#include <stdint.h>

#include "base/shared.h"
#include "tx.h"

/* desc->runtime_state bit: the descriptor was found by amber_op_scan and
 * its op id is unique (tx.h: bits 0x1, 0x2 and 0x8 are the others). */
#define AMBER_HINT_OPS 0x4u

/* Ordered so that "inputs are being captured or replayed" is op >= CAPTURE. */
enum { AMBER_OP_OFF = 0, AMBER_OP_VALUES, AMBER_OP_CAPTURE, AMBER_OP_REPLAY };

/* ---- capture ---- */
/* At the start (and every restart) of an outermost region. */
void amber_op_begin_capture(struct amber_thread *t, const struct __amber_region_desc *d, const void *closure);
extern int amber_op_capture; /* AMBER_OLOG=ops (amber_op_capturing) */
static inline void amber_op_begin(struct amber_thread *t, const struct __amber_region_desc *d, const void *closure) {
  t->opn = 0;
  t->op = AMBER_OP_OFF;
  if (__builtin_expect(amber_op_capture, 0)) amber_op_begin_capture(t, d, closure);
}
_Noreturn void amber_op_diverged(struct amber_thread *t, const char *what);
/* The region did `what`, whose inputs cannot be captured: the transaction
 * logs values.  A re-executed region cannot have done it (it was recorded
 * operationally): that is a divergence. */
static inline void amber_op_giveup(struct amber_thread *t, const char *what) {
  if (t->op == AMBER_OP_REPLAY) amber_op_diverged(t, what);
  if (t->op == AMBER_OP_CAPTURE) t->op = AMBER_OP_VALUES;
}
void amber_op_put_slow(struct amber_thread *t, const void *p, size_t n);
static inline void amber_op_put(struct amber_thread *t, const void *p, size_t n) {
  if (!n) return; /* a region without a closure: p and opbuf may be NULL */
  if (t->opn + n <= t->opcap) {
    __builtin_memcpy(t->opbuf + t->opn, p, n);
    t->opn += n;
  } else {
    amber_op_put_slow(t, p, n);
  }
}

/* ---- replay ---- */
/* The next n recorded input bytes (fatal when the record has fewer: the
 * re-executed region diverged). */
void amber_op_take(struct amber_thread *t, void *dst, size_t n);
/* The region did something its capture would have refused (declared
 * above, with amber_op_giveup). */

/* ---- the program's regions ---- */
/* AMBER_OLOG=ops: regions capture their inputs (after amber_op_scan). */
int amber_op_capturing(void);
/* Finds every region descriptor of the objects loaded now (their
 * "amber_regions" sections) and the program's identity (the build ids of
 * those objects).  Idempotent. */
void amber_op_scan(void);
/* The region with this op id, or NULL (unknown, or two regions share it). */
struct __amber_region_desc *amber_op_find(uint64_t op_id);
/* Hash of the build ids of the objects with regions or clones; 0 when one
 * of them has none (operational records are then off). */
uint64_t amber_op_identity(void);
/* The main program's path (for messages and the OLog writer note). */
const char *amber_op_program(void);

#endif
