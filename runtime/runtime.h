/* Process-wide runtime state: the open heap and lazy initialisation. */
#ifndef AMBER_RUNTIME_H
#define AMBER_RUNTIME_H

#include <stdint.h>

#include "heap.h"

/* The heap window [amber_base, amber_base + amber_size): canonical addresses
 * of the data area.  Zero until the heap is open. */
extern uintptr_t amber_base;
extern uintptr_t amber_size;
extern struct amber_heap amber_the_heap;
extern const struct amber_engine *amber_eng;
extern int amber_closed;

static inline int amber_in_heap(const void *p) {
  return (uintptr_t)p - amber_base < amber_size;
}

/* Opens (creating if needed) and recovers the heap once; fatal on error. */
void amber_ensure_init(void);
/* Fatal error when the heap was closed by amber_close(). */
void amber_check_open(void);

#endif
