/* Stray batches: a thread's persistent stores outside regions, gathered
 * into one implicit transaction (tx/batch.c; docs/guide.md section 4,
 * "Stores outside regions"). */
#ifndef AMBER_TX_BATCH_H
#define AMBER_TX_BATCH_H

#include <stddef.h>
#include <stdint.h>

struct amber_thread;

/* Open batches in the process (any thread): interceptors test it, one
 * relaxed load, before they look for their thread's. */
extern int amber_tx_batches_open;

/* Stores n bytes at the heap alias addr as part of the thread's batch
 * (opened when there is none; committed first and reopened when it is
 * due: AMBER_STRAY_MS old, full, or wanted by another thread).  Outside
 * regions only (t->depth 0, no lock-delimited section). */
void amber_tx_batch_store(struct amber_thread *t, void *addr, const void *src, size_t n);
/* At a stray load: commits the batch when it is due (as a store would). */
void amber_tx_batch_poll(struct amber_thread *t);
/* Commits the thread's batch, if one is open (durable when this returns). */
void amber_tx_batch_commit(struct amber_thread *t);
/* The calling thread's batch, if any: a synchronisation point the
 * runtime sees (an interceptor, amber_sync, exit). */
void amber_tx_batch_sync(void);
/* Called by an engine from inside the batch's store, when it may split
 * (t->batch_split): commits what the batch holds and opens the next, so
 * that the store goes on holding nothing (a wait for another thread's lock,
 * or a full log). */
void amber_tx_batch_split(struct amber_thread *t);
/* A thread waits for isolation (an engine lock) that an open batch may
 * hold: every batch commits at its owner's next stray access or
 * synchronisation point. */
void amber_tx_batch_please(void);
/* Some thread has a batch open. */
static inline int amber_tx_batch_any(void) { return __atomic_load_n(&amber_tx_batches_open, __ATOMIC_RELAXED) != 0; }

#endif
