/* The engine registry (ids and names of the engines built in) and the
 * composition of a heap: the file from heap/, the allocator's metadata from
 * tx/alloc.c and the engine's own area, created and validated together. */
#include "registry.h"

#include <string.h>

#include "base/diag.h"
#include "tx/alloc.h"
#include "tx/engine.h"

const struct amber_engine *amber_engine_by_id(uint32_t id) {
  if (id == AMBER_ENGINE_ROMULUS) return &amber_engine_romulus;
  if (id == AMBER_ENGINE_MVCC) return &amber_engine_mvcc;
  return NULL;
}

const struct amber_engine *amber_engine_by_name(const char *name) {
  if (!strcmp(name, "romulus")) return &amber_engine_romulus;
  if (!strcmp(name, "mvcc")) return &amber_engine_mvcc;
  return NULL;
}

/* The allocator's data area first: the engine's format may rely on it. */
static void format(struct amber_heap *h, void *eng) {
  h->engine = eng;
  amber_alloc_format(h);
  h->engine->format(h);
}

int amber_engine_heap_create(const char *path, const struct amber_create_args *a) {
  const struct amber_engine *eng = amber_engine_by_id(a->engine);
  if (!eng) return amber_error("cannot create heap %s: engine id %u is not built into this amber", path, a->engine);
  if (eng->gate && eng->gate(path, 1) != 0) return -1;
  return amber_heap_create(path, a, eng->area_size(a->data_size), format, (void *)eng);
}

static int fail(struct amber_heap *h) {
  amber_heap_unmap(h);
  return -1;
}

int amber_engine_heap_open(const char *path, int flags, struct amber_heap *h) {
  if (amber_heap_open_file(path, flags, h) != 0) return -1;
  const struct amber_header *hd = &h->hdr;
  h->engine = amber_engine_by_id(hd->engine);
  if (!h->engine) {
    amber_error("heap %s uses engine %u, which this amber does not have", path, hd->engine);
    return fail(h);
  }
  if (h->engine->area_fits ? !h->engine->area_fits(hd->data_size, hd->engine_size)
                           : h->engine->area_size(hd->data_size) != hd->engine_size) {
    amber_error("heap %s: engine area of %llu bytes does not fit engine %s; the header is inconsistent", path,
                (unsigned long long)hd->engine_size, h->engine->name);
    return fail(h);
  }
  if ((flags & AMBER_OPEN_WRITE) && h->engine->gate && h->engine->gate(path, 0) != 0) return fail(h);
  if (amber_heap_map(h, flags) != 0) return -1;
  if (h->engine->validate(h) != 0 || amber_alloc_validate(h) != 0) return fail(h);
  return 0;
}
