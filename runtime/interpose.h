/* The process layer's face for the interceptors of wrappers/: everything
 * they reach of the runtime, and nothing else (docs/wrappers.md).
 *
 * wrappers/ includes no other runtime header (a layering check in CI
 * rejects one).  Apart from three self-contained headers (below), the
 * names are declared here rather than taken from the lower layers'
 * headers, so the interceptors see neither the heap's,
 * the thread's nor the engine's layout; runtime/interpose.c includes both
 * this header and those, so the compiler checks that each declaration here
 * matches its definition.  The few variables are here for inline checks on
 * the interceptors' hot paths (a range check, one relaxed load); everything
 * else is a function. */
#ifndef AMBER_INTERPOSE_H
#define AMBER_INTERPOSE_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Whole headers the interceptors use as they are: the pass's ABI (the
 * __amber_* libc entry points, one implementation of heap copies and
 * strings, run inside amber_interpose_write_tx), the diagnostics, and the
 * lock-delimited sections' calls.  Each includes nothing of the runtime. */
#include "amber_interface.h"
#include "base/diag.h"
#include "tx/fase.h"

/* ---- the heap window (heap/window.c), for inline checks ---- */

/* The canonical data area [__amber_heap_base, + __amber_heap_size); size 0
 * while no heap is open (published last, once the runtime is ready). */
extern uintptr_t __amber_heap_base;
extern uintptr_t __amber_heap_size;
/* This process is a child forked while the heap was open (wrappers/fork.c
 * sets it through amber_interpose_forked). */
extern int amber_heap_forked;

/* ---- the process: is a heap open, mapped, usable ---- */

/* The runtime is ready: the heap is open and recovered, its engine fixed. */
int amber_interpose_ready(void);
/* The heap is mapped in this process, and this is not a forked child. */
int amber_interpose_heap_mapped(void);
/* A forked child touched its parent's heap: prints the error (heap/window.h). */
int amber_heap_forked_error(const char *did, const void *addr);
/* In the child of a fork: the heap's mappings become inaccessible, the
 * heap counts as closed, its descriptor is closed (docs/wrappers.md). */
void amber_interpose_forked(void);
/* addr lies in one of the heap's mappings (data, window, metadata, engine
 * area). */
int amber_interpose_heap_contains(const void *addr);

/* ---- reading and writing the heap (runtime/interpose.c) ---- */

/* Heap memory is never read by the real functions: the canonical window is
 * inaccessible to code amber did not instrument (strict mode), and may be
 * stale.  Interceptors read it with the functions below, through the
 * engine or in place at the alias. */

/* Stops the program when an interceptor touches the heap where it may not:
 * in a child forked from the process that has the heap open.  `fn` names
 * the libc function, `addr` the address. */
void amber_interpose_check_usable(const char *fn, const void *addr);

/* Runs fn(arg) as a transaction that reads (and perhaps writes) the heap:
 * joins the running transaction when the thread is in one (the read-only
 * case never upgrades it), else runs a transaction of its own (read: only
 * when the engine's committed state is not in place).  fn may be
 * run more than once (the engine re-runs aborted transactions): it must
 * only read the heap and write the heap or its own output.  write_tx also
 * stops the program after amber_close(). */
void amber_interpose_read_tx(void (*fn)(void *), void *arg);
void amber_interpose_write_tx(const char *what, const void *addr, void (*fn)(void *), void *arg);

/* Inside amber_wrap_*_tx: copies n bytes at src (heap or not) to volatile
 * dst, heap bytes through the engine. */
void amber_interpose_load(void *dst, const void *src, size_t n);
/* Heap address p as this thread may read it in place with the real
 * function, outside amber_interpose_read_tx: its alias when no engine read
 * is needed (the thread's romulus transaction or stray batch, whose view
 * is the data area; a closed heap), else NULL (read through the engine). */
const void *amber_interpose_in_place(const void *p);
/* Inside amber_interpose_read_tx: the length of the string at s, at most max,
 * reading heap bytes through the engine. */
size_t amber_interpose_strnlen_tx(const char *s, size_t max);

/* free / realloc of a persistent pointer, each its own transaction (joins
 * the running one). */
void amber_interpose_free(void *p);
void *amber_interpose_realloc(void *p, size_t n);

/* The calling thread runs a region (the pass's __amber_malloc allocates
 * persistently there).  Called only while a heap is open. */
__attribute__((visibility("hidden"))) int amber_interpose_in_region(void); /* hidden: no PLT on malloc's path */
/* Inside a region: n bytes (zeroed with `zero`) of the persistent heap,
 * aligned to `align` (a power of two; at most the allocator's page, else an
 * amber: error naming `fn`), in the region's transaction. */
void *amber_interpose_palloc(const char *fn, size_t n, size_t align, int zero);
/* Inside a region: a persistent copy of the string at s (at most max bytes,
 * then a NUL); s may be persistent or volatile. */
char *amber_interpose_pstrndup(const char *s, size_t max);
/* The usable size of the live persistent allocation at p; 0 when p is none. */
size_t amber_interpose_psize(const void *p);
/* Inside a region: n bytes of volatile memory that live until the region's
 * transaction ends, freed at its commit and when it is undone (a restart
 * or amber_cancel leaves by siglongjmp, past the caller's frames); NULL
 * when out of memory.  amber_interpose_scratch_free frees one earlier. */
void *amber_interpose_scratch(size_t n);
void amber_interpose_scratch_free(void *p);

/* ---- stores outside regions (tx/batch.c) ---- */

/* Open stray batches in the process (tx/batch.h). */
extern int amber_tx_batches_open;
void amber_interpose_sync_slow(void);
/* A synchronisation point the program makes through an interceptor (a lock
 * or unlock, thread creation or join, I/O, fork): the calling thread's
 * stray batch commits first, so that what it stored outside regions is
 * durable, and visible to the threads the point releases, and so that no
 * engine lock is held while the call may block.  One relaxed load when no
 * thread has a batch open. */
static inline void amber_interpose_sync(void) {
  if (__builtin_expect(__atomic_load_n(&amber_tx_batches_open, __ATOMIC_RELAXED) != 0, 0)) amber_interpose_sync_slow();
}

/* ---- output inside regions (tx/output.c) ---- */

/* Nonzero while this thread runs a region that may still be undone:
 * output it writes then waits for the region's commit (docs/guide.md 2.3);
 * 2 while that region's transaction has not begun (amber_interpose_touch).
 * One initial-exec TLS load, tested inline by the output interceptors. */
extern __thread int amber_output_held __attribute__((tls_model("initial-exec")));
/* What a held record does at the commit (tx/output.h's kinds). */
enum {
  AMBER_OUT_STREAM = 0, /* fwrite to a stream */
  AMBER_OUT_FD = 1,     /* write to a descriptor, all of it */
  AMBER_OUT_PWRITE = 2, /* pwrite at offset arg */
  AMBER_OUT_SEND = 3,   /* send with flags arg, all of it */
  AMBER_OUT_FLUSH = 4,  /* fflush(stream) (NULL: every stream) */
};
/* amber_output_held is 2: the running region's transaction has not begun
 * (its begin waits for its first access, runtime/tx/tx.h): begins it, so
 * that what the interceptor reads of the program's memory next is read
 * inside it.  Sets amber_output_held to 1. */
void amber_interpose_touch(void);
/* Appends one record to the running region's output (while
 * amber_output_held); bytes are copied. */
void amber_interpose_output(int kind, void *stream, int fd, int64_t arg, const void *bytes, size_t n);

/* ---- threads (tx/thread.c) ---- */

/* The calling thread is ending: hands its amber state back (nothing when
 * it has none). */
void amber_thread_retire(void);

/* ---- lock-delimited sections, AMBER_FASE=locks: tx/fase.h (included
 * above), written for these interceptors ---- */

struct amber_thread; /* opaque here */
/* The calling thread's state (made on its first use). */
struct amber_thread *amber_interpose_thread(void);

/* ---- fatal signals (wrappers/signals.c) ---- */

/* stats.c: AMBER_STATS or AMBER_STATS_FILE asks for the statistics. */
int amber_stats_wanted(void);
/* Strict mode: the canonical window is inaccessible, SIGSEGV reports. */
int amber_interpose_strict(void);
/* In the SIGSEGV handler: reports and ends the process when the fault is in
 * the heap window (heap/strict.c); returns otherwise. */
void amber_strict_fault(const siginfo_t *si, void *uc);
/* In the SIGSEGV handler: reports and ends the process when the fault is
 * the call of a code handle whose function is gone (entry/code.c);
 * returns otherwise. */
void amber_code_fault(const siginfo_t *si, void *uc);
/* After a copy of n bytes from the heap at src to ordinary memory at dst:
 * the code handles in it become this process's code addresses. */
void amber_interpose_code_loaded(void *dst, const void *src, size_t n);
/* A fault on a page of a debugger's heap view (runtime/debugger.c): maps the
 * heap back and returns 1 (the access is retried); else 0. */
int amber_debug_fault(const void *addr);
/* In the SIGBUS handler: reports and ends the process when the fault is in
 * one of the heap's mappings (a page its file cannot give: heap/fault.c);
 * returns otherwise. */
void amber_heap_bus_fault(const siginfo_t *si, void *uc);
/* stats.c: set up at heap open, then print from the signal handler. */
void amber_stats_prepare_signal(void);
void amber_stats_at_signal(void);

/* ---- one runtime per process (init.c; docs/guide.md, "Linking the runtime
 * into the program") ---- */

/* This copy of the runtime is a libamber.so loaded into a program that has
 * the runtime linked into it: its constructors do nothing, and nothing calls
 * it (the program's definitions come first).  Fatal, naming both, when this
 * copy was preloaded and is another build than the program's. */
int amber_runtime_dormant(void);
/* The code address pc is the runtime's own, in a program that has the
 * runtime linked into it (lib/libamber_rt.o); 0 in libamber.so, where the
 * interceptors name the library instead. */
int amber_runtime_linked_in(const void *pc);

/* ---- what wrappers/ gives the runtime ---- */

/* The interceptors register, from a constructor, what to run once the heap
 * is open, before the heap window is published (the fatal-signal
 * handlers).  A registration, not a call by name: no runtime layer depends
 * on wrappers/, and the static runtime (no wrappers) simply has none. */
void amber_interpose_on_heap_open(void (*fn)(void));
/* init.c: the heap is open; runs what was registered. */
void amber_interpose_heap_opened(void);

#endif
