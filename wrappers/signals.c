/* Fatal signals (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT).
 *
 * With AMBER_STATS or AMBER_STATS_FILE set, a handler prints and writes the
 * statistics when one of them ends the process, then lets the default
 * action happen (the process dies by the same signal, with a core where
 * the system makes one).  It never writes the heap: recovery at the next
 * open rolls back whatever transaction was running.
 *
 * The program keeps its own handlers.  amber's handler is installed only
 * where the disposition is the default, and stands in for the default:
 * sigaction() and signal() are intercepted so that the program sees the
 * disposition it set (SIG_DFL where amber's handler runs), a handler it
 * installs replaces amber's for real, and SIG_DFL it sets brings amber's
 * back.  Other ways to install a handler (sigset, sysv_signal, the raw
 * system call) are not seen; the handler they install simply runs.
 *
 * SIGSEGV is also how strict mode (runtime/heap/strict.c) sees code amber did
 * not instrument touch the heap's canonical window, and how the call of a
 * code handle whose function is gone shows (runtime/entry/code.c), so while the heap is
 * open amber's handler is installed for it whatever the statistics
 * options, and stays installed when the program sets its own handler: it
 * "chains".  A window fault is reported (and ends the process) first; for
 * any other SIGSEGV the program's handler is called from amber's, with the
 * same arguments, its sa_mask added and SA_RESETHAND honoured (SA_NODEFER
 * and SA_ONSTACK are those of amber's handler, which has SA_ONSTACK).
 *
 * SIGBUS is how a heap page that the file cannot give shows (its file
 * system is full under a sparse heap, the file was truncated, the storage
 * failed): while the heap is open amber's handler chains for it the same
 * way, and a fault in one of the heap's mappings ends the process with an
 * amber: error: that names the heap, the offset and the cause
 * (runtime/heap/fault.c); the program's handler gets every other SIGBUS.
 *
 * In a child forked while the heap is open (fork.c), SIGSEGV and SIGBUS
 * get the handler too: a fault inside the heap's mappings, which the
 * child made inaccessible, ends the child with an amber: error: that says
 * why. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "wrap.h"

WRAP_REAL(sigaction)
WRAP_REAL(signal)

static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
#define NSIGS (int)(sizeof fatal / sizeof fatal[0])

/* Per signal, under `lock`: tracked (amber may install its handler for
 * it), ours (amber's handler is the installed one), prog (what the program
 * believes is installed while ours is), chain (SIGSEGV while the heap is
 * open: ours stays installed and calls prog, whatever prog is). */
static struct {
  int tracked, ours, chain;
  struct sigaction prog;
} st[NSIG];
static int lock;

static void lock_take(sigset_t *saved) {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, saved); /* no handler of ours can interrupt the holder */
  while (__atomic_test_and_set(&lock, __ATOMIC_ACQUIRE)) __builtin_ia32_pause();
}

static void lock_give(const sigset_t *saved) {
  __atomic_clear(&lock, __ATOMIC_RELEASE);
  pthread_sigmask(SIG_SETMASK, saved, NULL);
}

static void on_fatal(int sig, siginfo_t *si, void *uc);

static int install_ours(int sig, struct sigaction *old) {
  struct sigaction a;
  memset(&a, 0, sizeof a);
  a.sa_sigaction = on_fatal;
  a.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&a.sa_mask);
  return REAL(sigaction)(sig, &a, old);
}

/* Under the lock: amber's handler stands in for SIG_DFL (when `prog` is
 * the program's default disposition). */
static void take_over(int sig, const struct sigaction *prog) {
  if (install_ours(sig, NULL) == 0) {
    st[sig].prog = *prog;
    st[sig].ours = 1;
  }
}

/* A chained signal whose program disposition is a handler: runs it, as the
 * kernel would have, and returns 1; else 0. */
static int run_program_handler(int sig, siginfo_t *si, void *uc) {
  sigset_t saved;
  lock_take(&saved);
  struct sigaction p = st[sig].prog;
  int handler = p.sa_handler != SIG_DFL && p.sa_handler != SIG_IGN;
  if (handler && (p.sa_flags & SA_RESETHAND)) {
    st[sig].prog.sa_handler = SIG_DFL;
    st[sig].prog.sa_flags &= ~SA_SIGINFO;
  }
  lock_give(&saved);
  if (!handler) return 0;
  sigset_t before;
  pthread_sigmask(SIG_BLOCK, &p.sa_mask, &before);
  if (p.sa_flags & SA_SIGINFO) p.sa_sigaction(sig, si, uc);
  else p.sa_handler(sig);
  pthread_sigmask(SIG_SETMASK, &before, NULL);
  return 1;
}

static void on_fatal(int sig, siginfo_t *si, void *uc) {
  int e = errno;
  if (amber_heap_forked && (sig == SIGSEGV || sig == SIGBUS) && amber_wrap_fork_fault(sig, si->si_addr)) _exit(2);
  if (sig == SIGSEGV && si->si_code > 0 && !amber_heap_forked && amber_debug_fault(si->si_addr)) {
    errno = e; /* a page a debugger's view left behind: mapped back, the access runs again */
    return;
  }
  if (sig == SIGSEGV && !amber_heap_forked) amber_strict_fault(si, uc); /* returns unless the fault is in the window */
  if (sig == SIGSEGV) amber_code_fault(si, uc); /* returns unless a code handle was called */
  if (sig == SIGBUS && !amber_heap_forked) amber_heap_bus_fault(si, uc);  /* returns unless the fault is in the heap */
  if (__atomic_load_n(&st[sig].chain, __ATOMIC_ACQUIRE) && run_program_handler(sig, si, uc)) {
    errno = e;
    return;
  }
  if (!amber_heap_forked) amber_stats_at_signal();
  /* Now what the program asked for (the default, unless a forked child
   * inherited the program's own handler), and the signal again: a fault
   * happens again when the handler returns, a sent signal is sent again. */
  sigset_t saved;
  lock_take(&saved);
  REAL(sigaction)(sig, &st[sig].prog, NULL);
  st[sig].ours = 0;
  st[sig].chain = 0;
  lock_give(&saved);
  if (si->si_code <= 0 || sig == SIGABRT) {
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    raise(sig);
    pthread_sigmask(SIG_UNBLOCK, &one, NULL);
  }
  errno = e;
}

void amber_wrap_signals_install(void) {
  amber_stats_prepare_signal();
  int stats = amber_stats_wanted();
  sigset_t saved;
  lock_take(&saved);
  for (int i = 0; i < NSIGS; i++) {
    int sig = fatal[i];
    /* SIGSEGV: strict mode's faults and calls of code handles whose
     * function is gone (runtime/entry/code.c), SIGBUS: the heap's pages,
     * reported whatever the program set. */
    int chain = sig == SIGSEGV || sig == SIGBUS;
    if (!stats && !chain) continue;
    struct sigaction cur;
    if (st[sig].tracked || REAL(sigaction)(sig, NULL, &cur) != 0) continue;
    st[sig].tracked = 1;
    if (cur.sa_handler == SIG_DFL || chain) take_over(sig, &cur);
    __atomic_store_n(&st[sig].chain, chain && st[sig].ours, __ATOMIC_RELEASE);
  }
  lock_give(&saved);
}

/* The child of a fork: amber's handler for heap faults, whatever the
 * program installed (kept, and restored for its own faults). */
void amber_wrap_signals_forked(void) {
  /* This thread is the child's only one: a lock another thread of the
   * parent held at the fork is nobody's now. */
  __atomic_clear(&lock, __ATOMIC_RELEASE);
  sigset_t saved;
  lock_take(&saved);
  for (int sig = SIGBUS; sig; sig = sig == SIGBUS ? SIGSEGV : 0) {
    struct sigaction cur;
    if (st[sig].ours || REAL(sigaction)(sig, NULL, &cur) != 0) continue;
    st[sig].tracked = 1;
    take_over(sig, &cur);
  }
  lock_give(&saved);
}

static int tracked(int sig) { return sig > 0 && sig < NSIG && __atomic_load_n(&st[sig].tracked, __ATOMIC_ACQUIRE); }

static int track_sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  sigset_t saved;
  lock_take(&saved);
  int r = 0;
  if (st[sig].ours) {
    if (old) *old = st[sig].prog;
    if (act && (act->sa_handler == SIG_DFL || st[sig].chain)) st[sig].prog = *act; /* ours goes on standing in for it */
    else if (act && (r = REAL(sigaction)(sig, act, NULL)) == 0) st[sig].ours = 0;
  } else if (act && act->sa_handler == SIG_DFL && !amber_heap_forked) {
    r = REAL(sigaction)(sig, NULL, old);
    if (r == 0) take_over(sig, act);
  } else {
    r = REAL(sigaction)(sig, act, old);
  }
  lock_give(&saved);
  return r;
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  if (__builtin_expect(!tracked(sig), 1)) return REAL(sigaction)(sig, act, old);
  return track_sigaction(sig, act, old);
}

sighandler_t signal(int sig, sighandler_t h) {
  if (__builtin_expect(!tracked(sig), 1)) return REAL(signal)(sig, h);
  /* glibc's signal(): BSD semantics. */
  struct sigaction a, old;
  memset(&a, 0, sizeof a);
  a.sa_handler = h;
  sigemptyset(&a.sa_mask);
  sigaddset(&a.sa_mask, sig);
  a.sa_flags = SA_RESTART;
  if (track_sigaction(sig, &a, &old) != 0) return SIG_ERR;
  return old.sa_handler;
}
