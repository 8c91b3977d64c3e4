/* Which engines this amber has, and a heap composed of its file, its
 * allocator and its engine (runtime/engine/registry.c). */
#ifndef AMBER_ENGINE_REGISTRY_H
#define AMBER_ENGINE_REGISTRY_H

#include <stdint.h>

#include "heap/heap.h"

/* The engine of a new heap when AMBER_ENGINE (or amber create --engine) names
 * none.  An existing heap keeps the engine it was created for. */
#define AMBER_ENGINE_DEFAULT AMBER_ENGINE_MVCC

/* Engine by id or name; NULL when unknown. */
const struct amber_engine *amber_engine_by_id(uint32_t id);
const struct amber_engine *amber_engine_by_name(const char *name);

/* Creates a heap for engine a->engine: the file (heap/), the allocator's
 * data area and the engine's area, atomically.  Returns as
 * amber_heap_create: 0, 1 when another process created it first, -1 after
 * an error message. */
int amber_engine_heap_create(const char *path, const struct amber_create_args *a);

/* Validates and maps a heap and the engine state and allocator metadata in
 * it; sets h->engine.  Never writes to the file: on any error it prints an
 * amber: error: and returns -1 with nothing mapped. */
int amber_engine_heap_open(const char *path, int flags, struct amber_heap *h);

#endif
