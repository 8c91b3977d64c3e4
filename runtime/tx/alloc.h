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

/* One allocator decision of the running transaction (kept in its thread
 * state: amber_tx_push_alloc_rec), undone if it aborts, made final when it
 * commits, and recorded for an operational replay. */
enum { AMBER_REC_TOOK_PAGES = 1, AMBER_REC_FREED_PAGES, AMBER_REC_FREED_SLOT, AMBER_REC_NEW_SLAB };
struct amber_alloc_rec {
  int kind;
  uint64_t page;
  uint64_t npages; /* or the size class, for slot records */
};

#define AMBER_SLAB_MAX 2048u /* larger objects get a run of whole pages */
#define AMBER_NARENAS 16u

/* Writes the data header and an empty page table (heap creation). */
void amber_alloc_format(struct amber_heap *h);
/* Checks the data header of the data area at open, before recovery (the
 * area may hold part of a transaction); -1 after a message. Never writes. */
int amber_alloc_validate(struct amber_heap *h);
/* Checks the data image `data` (the data area, or the engine's twin of it,
 * in h's geometry) as recovery leaves it: data header, every page
 * descriptor, the root.  -1 after a message naming the first problems.
 * Never writes. */
int amber_alloc_validate_image(const struct amber_heap *h, const char *data);
/* The same walk for amber check: prints every problem ("amber: error: heap
 * PATH: ..." with page and file offset) and returns their number.  Fills
 * objects/bytes (live objects, bytes of their classes) when non-NULL. */
int amber_alloc_check(const struct amber_heap *h, const char *data, size_t *objects, size_t *bytes);

/* A read-only census of the data image `data` for amber stats: pages by
 * kind, live objects by size class, large objects, free space.  Walks the
 * page table in the geometry of h's (validated) file header and never
 * leaves the image; descriptors it cannot trust are counted in `damaged`
 * (amber check says what is wrong with them).  Never writes. */
#define AMBER_ALLOC_NCLASSES 24u
struct amber_alloc_census {
  uint64_t pages;            /* pages in the data area */
  uint64_t meta_pages;       /* data header and page table */
  uint64_t free_pages;       /* allocatable pages no object uses */
  uint64_t largest_free_run; /* longest run of free pages */
  uint64_t slab_pages, large_pages, damaged;
  uint64_t objects, bytes;   /* live objects; bytes of their classes / pages */
  struct {
    uint32_t size;                  /* object size of the class */
    uint32_t slots;                 /* objects per slab page */
    uint64_t pages, objects;        /* slab pages of the class, live objects */
  } cls[AMBER_ALLOC_NCLASSES];
  uint64_t large_objects, large_requested; /* objects over AMBER_SLAB_MAX, bytes asked */
  uint64_t arena_pages[AMBER_NARENAS];     /* slab pages per arena */
};
void amber_alloc_census(const struct amber_heap *h, const char *data, struct amber_alloc_census *c);

/* Every live object of the data image `data`, in address order: fn(arg,
 * data offset, size class (0 for a large object: a run of whole pages),
 * size: the class's, or the bytes a large object's allocation asked for);
 * a nonzero return stops the walk.  Descriptors the census would count as
 * damaged are skipped.  Never writes (amber dump). */
typedef int (*amber_alloc_walk_fn)(void *arg, uint64_t off, uint32_t cls, uint64_t size);
void amber_alloc_walk(const struct amber_heap *h, const char *data, amber_alloc_walk_fn fn, void *arg);

/* Builds the volatile indexes for the process's heap (after recovery);
 * a damaged page table is refused with an amber: error: and exit status 2. */
void amber_alloc_open(struct amber_heap *h);
/* The page table's geometry only (no indexes): for recovery's replay of
 * allocations (amber_palloc of a replaying transaction). */
void amber_alloc_attach(struct amber_heap *h);
/* k contiguous free pages claimed outside any transaction: no transaction
 * allocates them until amber_alloc_unclaim, and the page table still says
 * they are free (a crash frees them).  Returns their data-area offset, 0
 * when no such run is free.  For an engine's scratch logs (mvcc's undo
 * spill: docs/engines/mvcc.md, "Large transactions"). */
uint64_t amber_alloc_claim(uint64_t k);
void amber_alloc_unclaim(uint64_t off, uint64_t k);
/* Frees the volatile indexes (tests that open several heaps in turn). */
void amber_alloc_close(void);

/* Inside a writing transaction that can no longer restart (the callers make
 * it a writer first): a restart would leave with an arena lock held.
 * Pointers are canonical (the program's view, heap/window.h): amber_palloc
 * returns one; amber_pfree and amber_palloc_size take one. */
void *amber_palloc(struct amber_thread *t, size_t n);
void amber_pfree(struct amber_thread *t, void *p);
/* Bytes usable at p, a live persistent allocation; 0 when p is not one. */
size_t amber_palloc_size(struct amber_thread *t, const void *p);

/* Transaction outcome hooks: commit makes freed space reusable, abort
 * returns pages the transaction took. */
void amber_alloc_commit(struct amber_thread *t);
/* Objects the running transaction of this thread allocated so far: a
 * transaction with none and no allocator record has nothing to commit
 * (tx.c skips the call; its slab of each class is none either, as palloc
 * counts the object first). */
extern __thread uint64_t amber_alloc_tx_objects __attribute__((tls_model("initial-exec")));
void amber_alloc_abort(struct amber_thread *t);

#endif
