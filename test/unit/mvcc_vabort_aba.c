// mvcc, ordinary memory: an aborted writer releases each word it took at a
// version no reader can hold (runtime/engine/mvcc/vmem.c, mv_vabort; docs/
// engines/mvcc.md, V1).  Released at the version it found, the seqlock of a
// reader that read the word, then the writer's uncommitted bytes, then the
// word again after the abort, accepted those bytes (ABA).  Three parts, each
// on a fresh page of ordinary memory (its own lock-table word):
//   version  one thread: a commit, then a cancelled store; the word after the
//            cancel is even and differs from (is above) the word before.
//   runtime  two threads, the runtime's own read (__amber_load8, mv_vread):
//            the reader is stopped inside it by page faults, at the load of
//            the bytes (the page is PROT_NONE; meanwhile the writer takes
//            the word and stores) and at the re-read of the word (its page
//            of the lock table is PROT_NONE; meanwhile the writer cancels).
//            A fixed interleaving: each side waits for the other's flag, no
//            sleeps.  The reader must read the committed value.
//   inline   the same interleaving around the pass's inline load of ordinary
//            memory, step by step as amber_interface.h specifies it
//            (__amber_read_state's vtab and vsettled): the re-read must
//            differ, and the callback then reads the committed value.
// Not instrumented (a unit test): the regions are hand-made descriptors,
// the region's accesses are the pass's entry points (__amber_load8,
// __amber_store8), and the test's other accesses are raw.  Each part fails
// when mv_vabort releases at the version it found (checked by hand against
// the runtime before the fix, one part at a time: `BINARY version`, ...).
// RUN: rm -f %t.heap && %unit_cc %s -o %t %unit_libs
// RUN: env AMBER_HEAP=%t.heap AMBER_HEAP_SIZE=8M AMBER_ENGINE=mvcc %t | FileCheck %s
// Again on the logical clock (boundary 0: the version plus one is the
// smallest step a reader's local-ts can tell apart), linearizable.
// RUN: rm -f %t.heap && env AMBER_HEAP=%t.heap AMBER_HEAP_SIZE=8M AMBER_ENGINE=mvcc AMBER_CLOCK=logical AMBER_ISOLATION=lin %t | FileCheck %s
// CHECK: version: ok
// CHECK: runtime: ok
// CHECK: inline: ok
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "amber.h"
#include "amber_interface.h"
#include "engine/mvcc/mvcc.h"

#define PAGE 4096ul
#define CLEAN 7ull
#define DIRTY 99ull

static uint64_t *g;      /* the location of the running part, alone on its page */
static uint64_t *word;   /* its lock-table word */
static uint64_t mask;

static void fail(const char *what) {
  printf("FAIL: %s\n", what);
  fflush(stdout);
  _exit(1);
}

static void *page_of(const void *p) { return (void *)((uintptr_t)p & ~(PAGE - 1)); }

/* Flags between the two threads: each side waits for the other's. */
static int go_store, stored, go_abort, aborted;
static void raise_flag(int *f) { __atomic_store_n(f, 1, __ATOMIC_SEQ_CST); }
static void wait_flag(int *f) {
  while (!__atomic_load_n(f, __ATOMIC_SEQ_CST)) __builtin_ia32_pause();
}

static void region(void (*fn)(void *), void *arg, int expect_cancel) {
  static struct __amber_region_desc d[8];
  static int nd;
  struct __amber_region_desc *x = NULL;
  for (int i = 0; i < nd; i++)
    if (d[i].fn == fn) x = &d[i];
  if (!x) {
    x = &d[nd++];
    x->magic = AMBER_DESC_MAGIC;
    x->abi_version = AMBER_ABI_VERSION;
    x->kind = AMBER_KIND_ATOMIC;
    x->op_id = 0x5eed0000u + (uint64_t)nd;
    x->fn = fn;
    x->name = "mvcc_vabort_aba";
    x->file = __FILE__;
  }
  if (__amber_run(x, arg, AMBER_ISO_DEFAULT) != expect_cancel) fail(expect_cancel ? "region not cancelled" : "region cancelled");
}

static void store_clean(void *arg) {
  (void)arg;
  __amber_store8(g, CLEAN);
}
static void store_cancel(void *arg) {
  (void)arg;
  __amber_store8(g, DIRTY);
  amber_cancel();
}

/* The writer of the two-thread parts: takes the word and stores when told,
 * then cancels when told. */
static void store_wait_cancel(void *arg) {
  (void)arg;
  __amber_store8(g, DIRTY); /* a restart (validation) comes before the store: re-run */
  raise_flag(&stored);
  wait_flag(&go_abort);
  amber_cancel();
}
static void *writer(void *arg) {
  (void)arg;
  wait_flag(&go_store);
  region(store_wait_cancel, NULL, 1);
  raise_flag(&aborted);
  return NULL;
}

static void fresh_part(void) {
  g = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (g == MAP_FAILED) fail("mmap");
  uint64_t *tab = mv_vtable(&mask);
  word = &tab[((uintptr_t)g >> 3) & mask];
  go_store = stored = go_abort = aborted = 0;
}

/* ---- version ---- */
static void part_version(void) {
  fresh_part();
  region(store_clean, NULL, 0);
  uint64_t before = __atomic_load_n(word, __ATOMIC_SEQ_CST);
  if ((before & 1) || before == 0) fail("version: the commit left no version");
  region(store_cancel, NULL, 1);
  uint64_t after = __atomic_load_n(word, __ATOMIC_SEQ_CST);
  if (*g != CLEAN) fail("version: the cancelled store was not undone");
  if (after & 1) fail("version: the word is still held after the cancel");
  if (after == before) fail("version: the cancel released the word at the version it found (ABA)");
  if (after < before) fail("version: the word went back");
  printf("version: ok (%llu -> %llu)\n", (unsigned long long)before, (unsigned long long)after);
}

/* ---- runtime: the reader stopped inside mv_vread by two faults ---- */
static int faults;
static void on_segv(int sig, siginfo_t *si, void *uc) {
  (void)sig;
  (void)uc;
  void *a = page_of(si->si_addr);
  if (faults == 0 && a == page_of(g)) {
    /* At the load of the bytes: the word was read even, unheld. */
    faults = 1;
    mprotect(page_of(g), PAGE, PROT_READ | PROT_WRITE);
    raise_flag(&go_store);
    wait_flag(&stored); /* the writer holds the word, DIRTY is in place */
    mprotect(page_of(word), PAGE, PROT_NONE);
    return; /* the load again: DIRTY */
  }
  if (faults == 1 && a == page_of(word)) {
    /* At the re-read of the word. */
    faults = 2;
    mprotect(page_of(word), PAGE, PROT_READ | PROT_WRITE);
    raise_flag(&go_abort);
    wait_flag(&aborted); /* CLEAN restored, the word released */
    return;
  }
  signal(SIGSEGV, SIG_DFL); /* anything else: the fault again, fatal */
}

static uint64_t got;
static void read_faulting(void *arg) {
  (void)arg;
  if (faults == 0) {
    /* The transaction begins first (its snapshot past the commit of
     * CLEAN), then the bytes go out of reach. */
    (void)__amber_load8((const char *)g + 8);
    mprotect(page_of(g), PAGE, PROT_NONE);
  }
  got = __amber_load8(g);
}
static void *reader_runtime(void *arg) {
  (void)arg;
  region(read_faulting, NULL, 0);
  return NULL;
}

static void part_runtime(void) {
  fresh_part();
  region(store_clean, NULL, 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSEGV, &sa, NULL)) fail("sigaction");
  pthread_t w, r;
  pthread_create(&w, NULL, writer, NULL);
  pthread_create(&r, NULL, reader_runtime, NULL);
  pthread_join(r, NULL);
  pthread_join(w, NULL);
  signal(SIGSEGV, SIG_DFL);
  if (faults != 2) fail("runtime: the interleaving did not happen (the read did not fault twice)");
  if (got == DIRTY) fail("runtime: the reader accepted the bytes of a cancelled store (ABA)");
  if (got != CLEAN) fail("runtime: the reader read neither value");
  printf("runtime: ok\n");
}

/* ---- inline: the pass's load of ordinary memory, step by step ---- */
static int inline_rechecked; /* the re-read differed */
static void read_inline(void *arg) {
  (void)arg;
  const struct __amber_reads *rd = __amber_read_state();
  if (rd->mode != AMBER_READS_MVCC && rd->mode != AMBER_READS_MVCC_LOG) fail("inline: not the mvcc inline state");
  uint64_t *w = &rd->vtab[((uintptr_t)g >> 3) & rd->vmask];
  if (w != word) fail("inline: rd.vtab is not the lock table");
  uint64_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);
  if (!go_store) {
    if ((v & 1) || v >= rd->vsettled) fail("inline: the word is not settled (the inline load would not read in place)");
    raise_flag(&go_store);
    wait_flag(&stored);
    uint64_t x = __atomic_load_n(g, __ATOMIC_RELAXED); /* DIRTY */
    raise_flag(&go_abort);
    wait_flag(&aborted);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(w, __ATOMIC_RELAXED) == v) {
      got = x; /* the inline load's value */
      return;
    }
    inline_rechecked = 1;
  }
  got = __amber_load8(g); /* the callback */
}

static void part_inline(void) {
  fresh_part();
  /* Initialised outside regions: the word stays at 0, which every snapshot
   * reads in place (below vsettled). */
  *g = CLEAN;
  pthread_t w;
  pthread_create(&w, NULL, writer, NULL);
  region(read_inline, NULL, 0);
  pthread_join(w, NULL);
  if (!aborted) fail("inline: the interleaving did not happen");
  if (got == DIRTY || !inline_rechecked) fail("inline: the re-read found the word unchanged after the cancel (ABA)");
  if (got != CLEAN) fail("inline: the callback read neither value");
  printf("inline: ok\n");
}

/* No argument: every part; else the parts named. */
int main(int argc, char **argv) {
  (void)amber_root(64); /* opens the heap, which starts the engine (this program has no regions of the pass's) */
  static const struct {
    const char *name;
    void (*run)(void);
  } parts[] = {{"version", part_version}, {"runtime", part_runtime}, {"inline", part_inline}};
  for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
    int on = argc < 2;
    for (int a = 1; a < argc; a++) on |= !strcmp(argv[a], parts[i].name);
    if (on) parts[i].run();
  }
  return 0;
}
