/* A heap file: creation, validation, mapping, closing. */
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
   * faults (runtime/strict.c), and amber itself never dereferences it.
   * NULL otherwise. */
  char *window;
  char *engine_area;             /* mapping of the engine's area (or NULL) */
  const struct amber_engine *engine;
  /* Set by an engine's recover when the heap needed recovery (for an engine
   * whose status-page state word does not tell: the tool's "pending"). */
  int recovery_work;
};

struct amber_create_args {
  uint64_t data_size;
  uint64_t base;
  uint32_t engine;
};

enum {
  AMBER_OPEN_WRITE = 1,   /* read-write; recovery may run */
  AMBER_OPEN_AT_BASE = 2, /* map the data area at its canonical base */
  AMBER_OPEN_LOCK = 4,    /* take the exclusive lock (fail when in use) */
  AMBER_OPEN_PRIVATE = 8, /* without WRITE: writable copy-on-write mappings of
                             the read-only file (recovery on a private copy) */
  AMBER_OPEN_WINDOW_READ = 16, /* with AT_BASE: the canonical window is
                                  readable (AMBER_STRICT=0), not PROT_NONE */
};

/* Creates a heap file atomically (it appears complete or not at all).
 * Returns 0, 1 when another process created it first, -1 after an error
 * message. */
int amber_heap_create(const char *path, const struct amber_create_args *a);

/* Validates and maps a heap.  Never writes to the file: on any error it
 * prints an amber: error: and returns -1 with nothing mapped. */
int amber_heap_open(const char *path, int flags, struct amber_heap *h);

void amber_heap_unmap(struct amber_heap *h);

/* Marks the heap dirty (on open by a program) or clean (at clean close). */
void amber_heap_set_clean(struct amber_heap *h, int clean);

static inline struct amber_data_header *amber_heap_dh(const struct amber_heap *h) {
  return (struct amber_data_header *)h->data;
}

/* The engine of a new heap when AMBER_ENGINE (or amber create --engine) names
 * none.  An existing heap keeps the engine it was created for. */
#define AMBER_ENGINE_DEFAULT AMBER_ENGINE_MVCC

/* Engine by id or name; NULL when unknown. */
const struct amber_engine *amber_engine_by_id(uint32_t id);
const struct amber_engine *amber_engine_by_name(const char *name);

/* Default heap path for this program: /dev/shm/amber-<program>.heap. */
void amber_default_heap_path(char *buf, size_t len);

#endif
