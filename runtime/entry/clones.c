/* The module constructor's registration of its transactional clones, and
 * the indirect call's look-up of its target's (the registry: tx/clones.c). */
#include "amber_interface.h"
#include "base/diag.h"
#include "tx/clones.h"
#include "tx/op.h"

AMBER_START_TEXT void __amber_register_clones(const struct __amber_clone *entries, size_t n) {
  amber_clones_add(entries, n);
}

void *__amber_clone_of(void *fn) {
  /* The target may come from recorded data (another process's address
   * space): such a call cannot be re-executed.  (A direct call to another
   * module's clone by name, pass ABI 6, does not come here: its target is a
   * link-time constant of an object in the capture's identity.) */
  struct amber_thread *self = amber_thread();
  amber_op_giveup(self, "made an indirect or cross-module call");
  void *clone = amber_clones_find(fn);
  if (clone) return clone;
  /* Code amber never instrumented: it may write the heap behind the
   * transaction's back. */
  __amber_irrevocable();
  return fn;
}
