/* A heap file: creation, validation, mapping, closing.  engine/registry.h
 * composes it with the allocator and the engine (amber_engine_heap_*): use
 * those to create or open a heap. */
#ifndef AMBER_HEAP_H
#define AMBER_HEAP_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "format.h"

struct amber_engine;

struct amber_heap {
  char path[PATH_MAX];
  int fd;
  int writable;
  struct amber_header hdr;       /* validated copy */
  struct amber_status *status;   /* mapped */
  void *meta;                    /* mapping of [0, AMBER_META_SIZE) */
  /* The runtime's mapping of the data area: every read and write amber
   * makes goes here.  With AMBER_OPEN_AT_BASE it is the alias, a second
   * mapping of the same file range beside the canonical window. */
  char *data;
  /* AMBER_OPEN_AT_BASE: the canonical window at hdr.base, the addresses the
   * program holds.  PROT_NONE (strict) or PROT_READ
   * (AMBER_OPEN_WINDOW_READ): code amber never instrumented that touches it
   * faults (heap/strict.c), and amber itself never dereferences it.
   * NULL otherwise. */
  char *window;
  int window_prot;               /* the window's protection (PROT_NONE or PROT_READ) */
  int map_flags;                 /* the flags every shared mapping of the file was made with (MAP_SYNC...) */
  char *engine_area;             /* mapping of the engine's area (or NULL) */
  /* Mapping of the sync journal (or NULL: none, hdr.journal_size 0), its
   * current epoch and head slot (heap/journal.h), and what the open found
   * there: entries replayed onto the heap (or, read-only, left pending). */
  char *journal;
  uint64_t journal_epoch;
  int journal_slot;
  uint64_t journal_replayed, journal_pending;
  int private_map;               /* AMBER_OPEN_PRIVATE: copy-on-write mappings */
  int creating;                  /* amber_heap_create's: the file has no name yet */
  unsigned owner_uid, mode;      /* the file's owner and permissions at open */
  const struct amber_engine *engine;
  /* Set by an engine's recover when the heap needed recovery (for an engine
   * whose status-page state word does not tell: the tool's "pending"). */
  int recovery_work;
  /* Set by an engine's recover: what it found still to apply (committed
   * transactions whose records are not yet in the data area, checkpoint
   * copies not yet written back), and of those transactions how many it
   * left out (records only the program that wrote them can apply: the
   * tool's views then show a state without them). */
  uint64_t pending_txns, pending_ckpts, pending_left_out;
};

struct amber_create_args {
  uint64_t data_size;
  uint64_t base;
  uint32_t engine;
  int reserve; /* give the file all its blocks now (AMBER_HEAP_RESERVE) */
  unsigned mode; /* the new file's exact permissions (AMBER_HEAP_MODE); 0:
                    AMBER_HEAP_DEFAULT_MODE, the umask applying */
  uint64_t journal_size; /* bytes of the sync journal (AMBER_JOURNAL_SIZE); 0: none */
};

enum {
  AMBER_OPEN_WRITE = 1,   /* read-write; recovery may run */
  AMBER_OPEN_AT_BASE = 2, /* map the data area at its canonical base */
  AMBER_OPEN_LOCK = 4,    /* take the exclusive lock (fail when in use) */
  AMBER_OPEN_PRIVATE = 8, /* without WRITE: writable copy-on-write mappings of
                             the read-only file (recovery on a private copy) */
  AMBER_OPEN_WINDOW_READ = 16, /* with AT_BASE: the canonical window is
                                  readable (AMBER_STRICT=0), not PROT_NONE */
  AMBER_OPEN_NOFOLLOW = 32, /* a symbolic link at the path is refused (the
                               default heap path) */
  AMBER_OPEN_OWNED = 64,  /* refuse a heap that is not this user's alone
                             (heap/owner.h); all but AMBER_HEAP_SHARED=1 */
};

/* Creates a heap file atomically (it appears complete or not at all), with
 * an engine area of engine_size bytes, its blocks reserved when a->reserve
 * (a file system without room refuses it here, naming the free space); format(h, ctx) fills the mapped data
 * and engine areas before the file gets its name.  Returns 0, 1 when
 * another process created it first, -1 after an error message. */
int amber_heap_create(const char *path, const struct amber_create_args *a, uint64_t engine_size,
                      void (*format)(struct amber_heap *h, void *ctx), void *ctx);

/* Opening is two steps, so that the engine's checks of the header come
 * between them.  amber_heap_open_file opens and locks the file and
 * validates its header (h->hdr); amber_heap_map validates the status word
 * and the ORDO record and maps the areas (the window at the canonical base
 * with AMBER_OPEN_AT_BASE).  Neither writes to the file: on any error they
 * print an amber: error: and return -1 with nothing mapped or open. */
int amber_heap_open_file(const char *path, int flags, struct amber_heap *h);
int amber_heap_map(struct amber_heap *h, int flags);

void amber_heap_unmap(struct amber_heap *h);

/* The run of bytes from p (in one of h's mappings, at most len of them)
 * whose contents are all alike in one way: *zero = 1, they read as zero
 * because the file has a hole there (SEEK_DATA; a reserved but unwritten
 * block counts) that this process has not written through a private
 * mapping either (/proc/self/pagemap); *zero = 0, they may hold data.
 * Returns at least 1 when len > 0.  This is what makes an open and
 * amber check/info/stats cost what the heap uses, not its size: the
 * allocator's page table (1/64 of the data area) and romulus' twins are
 * read only where they can hold something. */
uint64_t amber_heap_extent(const struct amber_heap *h, const void *p, uint64_t len, int *zero);

/* Tells the persistence backend which mappings hold the heap file (the
 * simulator models them). */
void amber_heap_pm_attach(struct amber_heap *h);

/* Marks the heap dirty (on open by a program) or clean (at clean close). */
void amber_heap_set_clean(struct amber_heap *h, int clean);

static inline struct amber_data_header *amber_heap_dh(const struct amber_heap *h) {
  return (struct amber_data_header *)h->data;
}

#endif
