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
 * unless the fault is inside the loader).
 *
 * libunwind is loaded (dlopen) when a heap opens, not linked: a program
 * that never opens one does not load it and its liblzma (issue 27 item 5),
 * and the handler only calls through the pointers found then. */
#define UNW_LOCAL_ONLY
#include "strict.h"

#include <dlfcn.h>
#include <libunwind.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "heap.h"
#include "sigline.h"
#include "symbolize.h"

/* libunwind's local unwinding, from load_unwind (<libunwind.h> names its
 * functions by macros: _ULx86_64_step for unw_step, ...). */
#define SYM_NAME(f) SYM_TEXT(f)
#define SYM_TEXT(f) #f
static struct {
  __typeof__(unw_init_local2) *init_local2;
  __typeof__(unw_get_reg) *get_reg;
  __typeof__(unw_get_proc_name) *get_proc_name;
  __typeof__(unw_step) *step;
} unw;

/* At open (once; later opens find it loaded).  Without libunwind a fault
 * report says so instead of its backtrace. */
static void load_unwind(void) {
  if (unw.step) return;
  void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
  if (!h) return;
  __typeof__(unw) u = {
      .init_local2 = (__typeof__(unw.init_local2))dlsym(h, SYM_NAME(unw_init_local2)),
      .get_reg = (__typeof__(unw.get_reg))dlsym(h, SYM_NAME(unw_get_reg)),
      .get_proc_name = (__typeof__(unw.get_proc_name))dlsym(h, SYM_NAME(unw_get_proc_name)),
      .step = (__typeof__(unw.step))dlsym(h, SYM_NAME(unw_step)),
  };
  if (u.init_local2 && u.get_reg && u.get_proc_name && u.step) unw = u;
}

/* Set once at open, before the window is published; read by the handler. */
static uintptr_t window_lo, window_size;
static uint64_t data_file_off;
static char heap_path[PATH_MAX];

void amber_strict_open(const struct amber_heap *h) {
  if (!h->window) return;
  snprintf(heap_path, sizeof heap_path, "%s", h->path);
  data_file_off = h->hdr.data_offset;
  window_size = h->hdr.data_size;
  amber_symbolize_prepare();
  load_unwind();
  __atomic_store_n(&window_lo, (uintptr_t)h->window, __ATOMIC_RELEASE);
}

/* ---- the report ---- */

/* One frame of the faulting thread, innermost first.  Static: the handler
 * may run on a small alternate stack, and it ends the process (a second
 * thread that faults meanwhile waits: `reporting`). */
#define MAXFRAMES 64
static struct frame {
  uintptr_t pc;
  char name[128]; /* libunwind's procedure name ("" when none) */
  uintptr_t name_off;
  uintptr_t base;      /* the module's load address (dladdr), 0: none */
  struct amber_sym_frame *sym; /* its entry in syms */
} frames[MAXFRAMES];
static struct amber_sym_frame syms[MAXFRAMES];
static int nframes, reporting;

static void unwind(void *uc) {
  unw_cursor_t c;
  nframes = 0;
  if (!unw.step || unw.init_local2(&c, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) != 0) return;
  while (nframes < MAXFRAMES) {
    unw_word_t ip = 0;
    if (unw.get_reg(&c, UNW_REG_IP, &ip) != 0 || ip == 0) break;
    struct frame *f = &frames[nframes];
    memset(f, 0, sizeof *f);
    f->sym = &syms[nframes];
    memset(f->sym, 0, sizeof *f->sym);
    f->pc = (uintptr_t)ip;
    unw_word_t off = 0;
    if (unw.get_proc_name(&c, f->name, sizeof f->name, &off) == 0) f->name_off = off;
    else f->name[0] = 0;
    /* A caller's pc is the return address: look up the call instruction. */
    uintptr_t look = nframes ? f->pc - 1 : f->pc;
    Dl_info di;
    struct link_map *lm = NULL;
    if (dladdr1((void *)look, &di, (void **)&lm, RTLD_DL_LINKMAP) && di.dli_fname) {
      f->sym->module = di.dli_fname;
      /* The program itself: the loader's name is argv[0]'s, maybe relative. */
      if (lm && !lm->l_name[0] && amber_symbolize_exe()) f->sym->module = amber_symbolize_exe();
      f->base = (uintptr_t)di.dli_fbase;
      /* The address as the file numbers it: less the load bias (0 for a
       * program not built as PIE). */
      f->sym->va = look - (lm ? (uintptr_t)lm->l_addr : 0);
      if (!f->name[0] && di.dli_sname) {
        strncpy(f->name, di.dli_sname, sizeof f->name - 1);
        f->name_off = f->pc - (uintptr_t)di.dli_saddr;
      }
    }
    nframes++;
    if (unw.step(&c) <= 0) break;
  }
}

/* The program itself has an empty name in the loader's list; dladdr names
 * it by argv[0]'s path.  A system library is one under the system's
 * library directories (libc, libm, libz, ...). */
static int system_library(const char *m) {
  static const char *const dirs[] = {"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/usr/local/lib/"};
  if (!m) return 0;
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
    if (!strncmp(m, dirs[i], strlen(dirs[i]))) return 1;
  return 0;
}

static const char *func_of(const struct frame *f) {
  return f->sym->func[0] ? f->sym->func : f->name[0] ? f->name : "??";
}

/* "  #N 0xPC function+0xOFF (module+0xOFF) at file:line:col". */
static void put_frame(struct amber_sigline *l, int n, const struct frame *f) {
  amber_sigline_put(l, "  #");
  amber_sigline_dec(l, (uint64_t)n);
  amber_sigline_put(l, " ");
  amber_sigline_hex(l, f->pc);
  if (f->name[0]) {
    amber_sigline_put(l, " ");
    amber_sigline_put(l, f->name);
    amber_sigline_put(l, "+");
    amber_sigline_hex(l, f->name_off);
  }
  if (f->sym->module) {
    amber_sigline_put(l, " (");
    amber_sigline_put(l, f->sym->module);
    amber_sigline_put(l, "+");
    amber_sigline_hex(l, f->pc - f->base);
    amber_sigline_put(l, ")");
  }
  if (f->sym->where[0]) {
    amber_sigline_put(l, " at ");
    amber_sigline_put(l, f->sym->where);
  }
  amber_sigline_flush(l);
}

/* The faulting code is a system library's function (libc, libm, libz...):
 * which one, called from where, and what to do. */
static void library_note(struct amber_sigline *l, int write_access) {
  /* The program's frame that called into the library, and the library's
   * function it called (the innermost frame may be one it calls in turn). */
  int caller = 1;
  while (caller < nframes && system_library(frames[caller].sym->module)) caller++;
  const char *entry = func_of(&frames[caller - 1]);
  amber_sigline_put(l, "amber: note: the access was made by ");
  amber_sigline_put(l, func_of(&frames[0]));
  amber_sigline_put(l, "()");
  if (caller > 1) {
    amber_sigline_put(l, " inside ");
    amber_sigline_put(l, entry);
    amber_sigline_put(l, "()");
  }
  amber_sigline_put(l, " in the system library ");
  amber_sigline_put(l, frames[0].sym->module);
  if (caller < nframes) {
    amber_sigline_put(l, ", called from ");
    amber_sigline_put(l, func_of(&frames[caller]));
    if (frames[caller].sym->where[0]) {
      amber_sigline_put(l, " at ");
      amber_sigline_put(l, frames[caller].sym->where);
    }
  }
  amber_sigline_flush(l);
  amber_sigline_put(l, "amber: note: libamber does not intercept ");
  amber_sigline_put(l, entry);
  amber_sigline_put(l, "(): copy the data to a local buffer in a region, or call it from code compiled with amber-cc; "
                       "docs/wrappers.md lists the functions that are covered");
  amber_sigline_put(l, write_access ? " (writes by such code are never allowed: they would not be crash-safe)"
                                    : " (AMBER_STRICT=0 lets such code read the heap: possibly stale data; docs/guide.md)");
  amber_sigline_flush(l);
}

static void backtrace_from(struct amber_sigline *l) {
  amber_sigline_put(l, "amber: backtrace (innermost first):");
  amber_sigline_flush(l);
  if (!nframes) {
    amber_sigline_put(l, unw.step ? "  (no backtrace: libunwind cannot unwind from this fault)"
                                  : "  (no backtrace: libunwind.so.8 could not be loaded; install libunwind8)");
    amber_sigline_flush(l);
  }
  for (int n = 0; n < nframes; n++) put_frame(l, n, &frames[n]);
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
  /* One report: a second thread that faults meanwhile waits for the end. */
  if (__atomic_exchange_n(&reporting, 1, __ATOMIC_ACQ_REL))
    for (;;) pause();
  unwind(uc);
  amber_symbolize(syms, nframes);
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
  if (nframes && system_library(frames[0].sym->module)) {
    library_note(&l, write_access);
  } else {
    amber_sigline_put(&l, "amber: note: code amber did not instrument touched the heap directly; compile it with amber-cc so "
                          "that its accesses go through the runtime");
    amber_sigline_put(&l, write_access ? " (its writes are never allowed: they would not be crash-safe)"
                                       : ", or run with AMBER_STRICT=0 to let it read the heap (possibly stale data; docs/guide.md)");
    amber_sigline_flush(&l);
  }
  backtrace_from(&l);
  _exit(2);
}
