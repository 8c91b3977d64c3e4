/* The engine interface (DESIGN.md §4).  The pass emits engine-neutral calls;
 * tx/tx.c routes them here (through amber_tx_engine).  Engines do not include each other. */
#ifndef AMBER_ENGINE_H
#define AMBER_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct amber_heap;
struct amber_thread;
struct __amber_reads;

struct amber_engine {
  const char *name;
  uint32_t id;      /* enum amber_engine_id */
  int direct_reads; /* inside a transaction, heap memory may be read in place (outside: `load`) */
  int aborts_writers; /* writing transactions may abort (and are re-run) */
  /* begin may run at the transaction's first access instead of its start
   * (tx/tx.h, amber_tx_touch): then commit and abort are called only for a
   * transaction whose begin ran. */
  int lazy_begin;
  /* Optional: refuses (-1 after a message) to create (creating = 1) or open
   * for writing a heap of this engine in the current configuration. */
  int (*gate)(const char *path, int creating);
  /* Optional: outside transactions, brings the master (the data area) up to
   * date with every committed write that can be written back now. */
  void (*sync)(void);
  /* Optional: outside regions, returns once every commit thread `t` made
   * (and every commit those depend on) is durable; commits made under
   * t->defer_durability may have returned before (amber_wait_durable).
   * Without it, every commit is durable when it returns. */
  void (*wait_durable)(struct amber_thread *t);
  /* Optional: outside regions, the PM fence ticket (amber_pm_fence_wait)
   * that wait_durable(t) would wait for now; 0: none.  Without it, 0. */
  uint64_t (*durable_token)(struct amber_thread *t);
  /* Optional: the thread that ran `t` is ending (outside any region). */
  void (*thread_fini)(struct amber_thread *t);
  /* Optional: a debugger stopped the process (debugger.c).  Calls fn for
   * each block whose bytes, as thread t would read them now (t NULL or
   * outside a region: the latest commit; inside one: its snapshot and its
   * own uncommitted writes), differ from the data area's: off is the
   * block's offset in the data area.  Never waits, locks or allocates: the
   * other threads are stopped anywhere, their locks held. */
  void (*debug_view)(struct amber_thread *t, void (*fn)(uint64_t off, const void *bytes, size_t n, void *ctx), void *ctx);
  /* Optional: the engine's own statistics, appended to AMBER_STATS output:
   * `, "key": value` pairs when json, else indented text lines. */
  void (*stats)(FILE *f, int json);
  /* Optional: is an existing heap's engine area of engine_size bytes
   * plausible?  (Without it: it must equal area_size(data_size).)  For an
   * engine whose area depends on options of the heap's creation; validate
   * then checks it exactly against the area's own header. */
  int (*area_fits)(uint64_t data_size, uint64_t engine_size);
  /* Bytes of the engine's own area for a data area of `data_size`. */
  uint64_t (*area_size)(uint64_t data_size);
  /* Initialises the engine area of a heap being created (h->data and
   * h->engine_area are mapped, the data area is already formatted). */
  void (*format)(struct amber_heap *h);
  /* Validates engine state without writing; returns -1 after a message. */
  int (*validate)(struct amber_heap *h);
  /* Deep consistency check for `amber check`; returns the number of
   * problems found (each printed). */
  int (*check)(struct amber_heap *h);
  /* Brings the heap to a consistent state. Idempotent; safe to crash in. */
  void (*recover)(struct amber_heap *h);
  /* Starts serving transactions on the process's heap. */
  void (*open)(struct amber_heap *h);
  /* Close: turns away every transaction that starts from now on (it never
   * runs: amber_heap_wait_closed), waits up to wait_ms for the running
   * ones, then writes everything committed to the data area.  Returns 0
   * when nothing is left to recover (the caller then marks the heap
   * clean); else the heap must stay dirty, its logs intact (a crash's
   * state): > 0, the transactions still running after the wait; < 0, the
   * engine said why in a warning.  Never waits longer for a transaction. */
  int (*close)(struct amber_heap *h, uint64_t wait_ms);

  /* Transactions.  `t->writer` says whether begin must allow writes; an
   * engine that cannot serve a write in the current mode calls
   * amber_tx_restart(t, AMBER_ABORT_UPGRADE). */
  void (*begin)(struct amber_thread *t);
  /* Also called outside transactions (t->depth == 0: loads outside regions,
   * libc reading the heap for code amber never compiled): then it returns
   * the latest committed bytes, never a running transaction's, and does not
   * wait for a running transaction to end. */
  void (*load)(struct amber_thread *t, const void *addr, void *dst, size_t n);
  void (*store)(struct amber_thread *t, void *addr, const void *src, size_t n);
  void (*commit)(struct amber_thread *t);
  /* Undoes the transaction's effects on the heap and releases its locks,
   * leaving the thread outside any transaction: the runtime then begins it
   * again (a restart, amber_retry) or not (amber_cancel). */
  void (*abort)(struct amber_thread *t);
  /* Ordinary memory (not the heap) that a transaction reaches: globals,
   * the volatile heap, other threads' stacks (docs/guide.md, "What a region
   * isolates").  Called only while t->vguard asks for them (the engine's
   * begin sets it).  vread copies n bytes at the program's addr into dst
   * consistently with the transaction's view, or restarts it; vwrite takes
   * what the transaction needs before it writes [addr, addr + n) in place
   * (a lock, or a restart as a writer); the caller then undo-logs and
   * stores.  Ordinary memory gets concurrency control, never durability. */
  void (*vread)(struct amber_thread *t, const void *addr, void *dst, size_t n);
  void (*vwrite)(struct amber_thread *t, void *addr, size_t n);
  /* The (writing, irrevocable) transaction is about to run code that may
   * write the heap without going through `store`: the engine must still
   * commit or roll back those writes as a unit. */
  void (*unlogged)(struct amber_thread *t);
  /* An engine with a read state of its own for the pass's inline loads
   * (mvcc) sets t->engine_reads in its begin (tx/tx.h). */
};

extern const struct amber_engine amber_engine_romulus;
extern const struct amber_engine amber_engine_mvcc;

#endif
