/* The persistent allocator.  Its metadata (the page table in the data area)
 * changes only through the engine's transactional write path, so an
 * allocation commits or vanishes with its transaction and recovery needs no
 * garbage collection.  The volatile indexes (free pages, partial slabs) are
 * rebuilt from the page table at open. */
#ifndef AMBER_ALLOC_H
#define AMBER_ALLOC_H

#include <stddef.h>
#include <stdint.h>

struct amber_heap;
struct amber_thread;

#define AMBER_SLAB_MAX 2048u /* larger objects get a run of whole pages */
#define AMBER_NARENAS 16u

/* Writes the data header and an empty page table (heap creation). */
void amber_alloc_format(struct amber_heap *h);
/* Checks the data header; -1 after a message. Never writes. */
int amber_alloc_validate(struct amber_heap *h);
/* Walks the page table of the data image `data` (h's geometry); prints each
 * problem and returns their number.  Fills objects/bytes when non-NULL. */
int amber_alloc_check(const struct amber_heap *h, const char *data, size_t *objects, size_t *bytes);

/* Builds the volatile indexes for the process's heap. */
void amber_alloc_open(struct amber_heap *h);

/* Inside a writing transaction that can no longer restart (the callers make
 * it a writer first): a restart would leave with an arena lock held. */
void *amber_palloc(struct amber_thread *t, size_t n);
void amber_pfree(struct amber_thread *t, void *p);
/* Bytes usable at p, a live persistent allocation; 0 when p is not one. */
size_t amber_palloc_size(struct amber_thread *t, const void *p);

/* Transaction outcome hooks: commit makes freed space reusable, abort
 * returns pages the transaction took. */
void amber_alloc_commit(struct amber_thread *t);
void amber_alloc_abort(struct amber_thread *t);

#endif
