/* The heap's code name table (docs/format.md, "Code name table"): the
 * symbol names behind the code handles stored in the heap, so that a later
 * run, a rebuilt binary or another program finds the function again. */
#ifndef AMBER_HEAP_CODENAMES_H
#define AMBER_HEAP_CODENAMES_H

#include <stddef.h>
#include <stdint.h>

#include "heap.h"

/* The handle of a symbol name: AMBER_CODE_TAG << 48 | FNV-1a 64 of the name
 * masked to 48 bits. */
uint64_t amber_codenames_handle(const char *name, size_t len);
static inline int amber_codenames_is_handle(uint64_t v) { return (v >> 48) == AMBER_CODE_TAG; }

/* The name of handle in h's table (not NUL-terminated: *len bytes), NULL
 * when the table does not have it.  Reads the table only: async-signal-safe. */
const char *amber_codenames_find(const struct amber_heap *h, uint64_t handle, uint32_t *len);

/* Makes sure h's table names handle `handle` as `name`, durably (flushed and
 * fenced) before it returns: call before the handle is stored.  Returns 0;
 * -1 after an amber: error when the table is full, or holds another name
 * for the same handle (a hash collision), or the heap is read-only. */
int amber_codenames_add(struct amber_heap *h, uint64_t handle, const char *name);

/* Records in h's table and the bytes they take (amber info, amber check). */
size_t amber_codenames_count(const struct amber_heap *h, size_t *bytes);

#endif
