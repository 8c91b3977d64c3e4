/* amber: durable, isolated transactions for C programs on persistent memory.
 *
 * Mark the code that must be atomic with AMBER_ATOMIC { ... } (or one of the
 * other region forms below), compile with amber-cc, and run with the amber
 * runtime (linked by amber-cc, or LD_PRELOAD=libamber.so).  Inside a region,
 * malloc/calloc/realloc allocate from the persistent heap and every store to
 * persistent memory commits atomically and durably with the region.
 *
 * See docs/guide.md for what may appear inside a region.
 */
#ifndef AMBER_H
#define AMBER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Isolation levels for AMBER_ATOMIC_ISO.  Levels mix freely on one data set.
 * Engines that do not implement a level run it at a stronger one and say so in
 * docs/engines/NAME.md. */
#define AMBER_ISO_DEFAULT 0 /* the engine's default: serializable */
#define AMBER_SI 1          /* snapshot isolation */
#define AMBER_SER 2         /* serializable */
#define AMBER_LIN 3         /* linearizable */

/* Region kinds (the first argument of the begin marker). */
#define AMBER_KIND_ATOMIC 1     /* ACID transaction; may abort and re-run */
#define AMBER_KIND_PERSISTENT 2 /* failure-atomic only; never aborts */

/* Region markers.  The amber pass replaces them; the runtime's definitions
 * only run when a file was compiled without the pass, and then stop the
 * program with a message that says how to compile it. */
int __amber_region_begin(int kind, int iso, const char *file, int line);
int __amber_region_live(void);
void __amber_region_end(void);

/* The region statement.  Leaving it by return, break or goto is a compile
 * error; `continue` ends the region normally. */
#define AMBER__REGION(kind, iso)                                               \
  for (__amber_region_begin((kind), (iso), __FILE__, __LINE__);                \
       __amber_region_live(); __amber_region_end())

#define AMBER_ATOMIC AMBER__REGION(AMBER_KIND_ATOMIC, AMBER_ISO_DEFAULT)
#define AMBER_ATOMIC_ISO(iso) AMBER__REGION(AMBER_KIND_ATOMIC, (iso))
#define AMBER_PERSISTENT AMBER__REGION(AMBER_KIND_PERSISTENT, AMBER_ISO_DEFAULT)

/* On a function definition: the whole body is one AMBER_ATOMIC region. */
#define AMBER_ATOMIC_FN __attribute__((annotate("amber.atomic_fn"), noinline))
/* On a global or static variable: accesses to it inside regions are plain,
 * neither isolated from other threads' regions nor undone when a region
 * re-runs (still recorded for recovery's re-execution).  For flags, progress
 * counters and handshakes that threads share deliberately across
 * transactions; use atomics on them.  docs/guide.md 2.6. */
#define AMBER_UNISOLATED __attribute__((annotate("amber.unisolated")))

/* Inside a region: abandons the running transaction (every persistent and
 * ordinary store it made is undone, its allocations returned) and runs the
 * outermost region again from its start, after letting other threads run:
 * for a region that finds the state is not yet what it needs (a queue
 * empty, a slot taken).  Fatal outside a region, inside a lock-delimited
 * section, and after the region made an irrevocable call (I/O or code amber
 * could not instrument: that cannot be undone).  docs/guide.md 2.2.
 * (The macro reaches the runtime directly: a call the pass would otherwise
 * treat as unknown code.) */
_Noreturn void __amber_retry(void);
_Noreturn void amber_retry(void);
#define amber_retry() __amber_retry()

/* Inside a region: discards the running transaction (every persistent and
 * ordinary store it made is undone, its allocations returned and its frees
 * not done) and continues after the outermost region, which is the one that
 * ends (flat nesting: from a nested region too, the whole transaction goes).
 * There, every variable is as it was before that region; one first defined
 * inside it is indeterminate, as in C.  An AMBER_ATOMIC_FN function that
 * cancels returns the zero of its type.  Fatal outside a region, inside a
 * lock-delimited section, and after the region made an irrevocable call
 * (I/O or code amber could not instrument: that cannot be undone; it applies
 * to AMBER_PERSISTENT regions too).  docs/guide.md 2.2.
 * (The macro reaches the runtime directly, as amber_retry's does.) */
_Noreturn void __amber_cancel(void);
_Noreturn void amber_cancel(void);
#define amber_cancel() __amber_cancel()

/* The persistent root object: zeroed on first use, the same object on every
 * later run.  Asking for a different size than the heap recorded is an error.
 * Call it outside regions. */
void *amber_root(size_t size);

/* Makes the calling thread's stores to persistent memory outside regions
 * durable now, and visible to every other thread.  Such stores are gathered
 * per thread into one implicit transaction (a batch) that also commits at
 * the thread's next region, at the synchronisation points amber sees (locks,
 * thread creation and end, I/O, fork), at exit, and after AMBER_STRAY_MS;
 * a crash loses at most the stores since the last commit, and what
 * survives is a prefix of them in program order.  docs/guide.md section 4. */
void amber_sync(void);

/* Deferred durability (docs/guide.md, "Deferred durability"): between
 * amber_defer_durability_begin() and _end() on a thread, a region that
 * commits returns as soon as its commit is published, before it is durable
 * (on the engines and backends where commit waits for a slow sync: mvcc
 * with AMBER_PM=msync; elsewhere commits stay durable at return), and
 * amber_wait_durable() waits until every commit the thread made so far, and
 * every commit those read or overwrote, is durable.  The program's
 * contract: acknowledge nothing (a reply, a message, a file another process
 * reads) that depends on such a commit, or on what a region read, before
 * amber_wait_durable() returns; a crash may lose commits never waited for.
 * Scopes nest (a counter); _end does not wait.  Call them outside regions.
 * Stores outside regions (amber_sync) are never deferred. */
void amber_defer_durability_begin(void);
void amber_defer_durability_end(void);
void amber_wait_durable(void);
/* Deferred durability handed to another thread (a server whose workers go
 * on executing while one thread waits for the sync; docs/guide.md,
 * "Durability tokens"): amber_durable_token() returns a token for what
 * amber_wait_durable() on the calling thread would wait for now (0:
 * nothing); amber_wait_token(token), on any thread, outside regions,
 * returns once all of it is durable; amber_token_durable(token) says
 * whether it is (1) without waiting.  The program's contract is
 * amber_wait_durable's: acknowledge nothing that depends on those commits
 * before the token is durable.  A token is valid while the heap stays open. */
unsigned long long amber_durable_token(void);
void amber_wait_token(unsigned long long token);
int amber_token_durable(unsigned long long token);

/* Heap usage by the persistent allocator. */
struct amber_usage {
  size_t objects;     /* live persistent allocations */
  size_t bytes;       /* bytes they occupy (rounded to their size class) */
  size_t heap_bytes;  /* capacity of the data area */
};
void amber_usage(struct amber_usage *out);

/* 1 when p points into the persistent heap of this process's open heap
 * (what a region's malloc, calloc, realloc, aligned_alloc, posix_memalign,
 * strdup, ... return, and memory they point into); 0 for any other address,
 * and while no heap is open.  Never opens the heap; callable anywhere.
 * docs/guide.md, "Allocation". */
int amber_is_persistent(const void *p);

/* Print the statistics (commits, aborts, flushes and fences by category). */
void amber_stats_print(void);

/* The statistics as text: what amber_stats_print prints (json 0) or the
 * JSON line AMBER_STATS_FILE gets (json 1), written into buf (at most size
 * bytes, NUL included; truncated when longer).  Returns the length of the
 * whole text, as snprintf does: a result >= size means buf was too small.
 * For a program that reports them itself (examples/kvserver.c's INFO).
 * Call it outside regions.  docs/guide.md 9.4. */
size_t amber_stats_text(char *buf, size_t size, int json);

/* Opens the heap now (creating it when missing) and recovers it, instead of
 * at its first use: the file `path`, or with NULL the default (AMBER_HEAP,
 * else the private default, docs/guide.md section 7).  AMBER_HEAP, when
 * set, takes precedence over `path`, so a program's heap can be moved
 * without rebuilding it (AMBER_VERBOSE says so; set-user-ID programs ignore
 * AMBER_HEAP).  Call it outside regions, before the first one or
 * amber_root; one heap per process: naming another heap once one is open
 * is an error.  Errors are fatal, as at any open.  Returns 0. */
int amber_open(const char *path);

/* Checkpoint and close the heap cleanly (also done at exit).  After it, any
 * persistent access is an error.  Regions that start on other threads during
 * it never run; running ones get AMBER_EXIT_WAIT ms to end.  Returns 0 on
 * success, -1 when one was still running: the heap is then left dirty, and
 * the next open recovers every committed transaction. */
int amber_close(void);

#ifdef __cplusplus
}
#endif
#endif /* AMBER_H */
