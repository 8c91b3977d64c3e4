/* The fault report of strict mode.
 *
 * The program holds canonical heap addresses; amber reads and writes the
 * data through its alias mapping, so the canonical window itself is
 * PROT_NONE (AMBER_STRICT=1) or PROT_READ (AMBER_STRICT=0).  Code the pass
 * never saw (another library, a file built without amber-cc) that touches
 * it faults; this turns the SIGSEGV into a diagnostic that says which
 * access, where in the heap file, and from which code.
 *
 * Everything here runs in a signal handler: output goes through write(2)
 * from a stack buffer, numbers are formatted by hand, nothing allocates.
 * libunwind's local unwinding (unw_init_local2, unw_step,
 * unw_get_proc_name) is async-signal-safe; dladdr only reads the loader's
 * tables (it takes the loader lock, which a faulting thread does not hold
 * unless the fault is inside the loader). */
#define UNW_LOCAL_ONLY
#include "strict.h"

#include <dlfcn.h>
#include <libunwind.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "heap.h"
#include "sigline.h"

/* Set once at open, before the window is published; read by the handler. */
static uintptr_t window_lo, window_size;
static uint64_t data_file_off;
static char heap_path[PATH_MAX];

void amber_strict_open(const struct amber_heap *h) {
  if (!h->window) return;
  snprintf(heap_path, sizeof heap_path, "%s", h->path);
  data_file_off = h->hdr.data_offset;
  window_size = h->hdr.data_size;
  __atomic_store_n(&window_lo, (uintptr_t)h->window, __ATOMIC_RELEASE);
}

/* ---- the report ---- */

/* One frame: "  #N 0xPC function+0xOFF (module+0xOFF)". */
static void put_frame(struct amber_sigline *l, int n, unw_cursor_t *c, uintptr_t pc) {
  amber_sigline_put(l, "  #");
  amber_sigline_dec(l, (uint64_t)n);
  amber_sigline_put(l, " ");
  amber_sigline_hex(l, pc);
  char name[256];
  unw_word_t off = 0;
  if (unw_get_proc_name(c, name, sizeof name, &off) == 0) {
    amber_sigline_put(l, " ");
    amber_sigline_put(l, name);
    amber_sigline_put(l, "+");
    amber_sigline_hex(l, off);
  }
  Dl_info di;
  /* A caller's pc is the return address: look up the call instruction. */
  if (dladdr((void *)(n ? pc - 1 : pc), &di) && di.dli_fname) {
    amber_sigline_put(l, " (");
    amber_sigline_put(l, di.dli_fname);
    amber_sigline_put(l, "+");
    amber_sigline_hex(l, pc - (uintptr_t)di.dli_fbase);
    amber_sigline_put(l, ")");
  }
  amber_sigline_flush(l);
}

static void backtrace_from(void *uc) {
  struct amber_sigline l = {.n = 0};
  amber_sigline_put(&l, "amber: backtrace (innermost first):");
  amber_sigline_flush(&l);
  unw_cursor_t c;
  if (unw_init_local2(&c, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) != 0) {
    amber_sigline_put(&l, "  (no backtrace: libunwind cannot unwind from this fault)");
    amber_sigline_flush(&l);
    return;
  }
  for (int n = 0; n < 64; n++) {
    unw_word_t ip = 0;
    if (unw_get_reg(&c, UNW_REG_IP, &ip) != 0 || ip == 0) break;
    put_frame(&l, n, &c, (uintptr_t)ip);
    if (unw_step(&c) <= 0) break;
  }
}

void amber_strict_fault(const siginfo_t *si, void *uc) {
  uintptr_t lo = __atomic_load_n(&window_lo, __ATOMIC_ACQUIRE), a = (uintptr_t)si->si_addr;
  /* si_code <= 0: sent (kill, raise), si_addr means nothing. */
  if (si->si_code <= 0 || !lo || a - lo >= window_size) return;
  int write_access = 0;
#if defined(__x86_64__)
  /* The page-fault error code: bit 1 is set for a write. */
  write_access = uc && (((const ucontext_t *)uc)->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#endif
  struct amber_sigline l = {.n = 0};
  amber_sigline_put(&l, "amber: error: persistent memory accessed outside the runtime: ");
  amber_sigline_put(&l, write_access ? "write of " : "read of ");
  amber_sigline_hex(&l, a);
  amber_sigline_put(&l, " (heap ");
  amber_sigline_put(&l, heap_path);
  amber_sigline_put(&l, " offset ");
  amber_sigline_hex(&l, data_file_off + (a - lo));
  amber_sigline_put(&l, ")");
  amber_sigline_flush(&l);
  amber_sigline_put(&l, "amber: note: code amber did not instrument touched the heap directly; compile it with amber-cc so that its "
          "accesses go through the runtime");
  amber_sigline_put(&l, write_access ? " (its writes are never allowed: they would not be crash-safe)"
                       : ", or run with AMBER_STRICT=0 to let it read the heap (possibly stale data; docs/guide.md)");
  amber_sigline_flush(&l);
  backtrace_from(uc);
  _exit(2);
}
