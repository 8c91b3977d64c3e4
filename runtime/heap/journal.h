/* The sync journal's replay at open (docs/format.md, "Sync journal"; its
 * format: pm/journal.h).  The msync backend writes it (pm/msync.c,
 * docs/engines/msync.md, "The sync journal"). */
#ifndef AMBER_HEAP_JOURNAL_H
#define AMBER_HEAP_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "format.h"

struct amber_heap;

/* After amber_heap_map mapped every area, before anything reads them:
 * copies the current epoch's entries onto the heap's mappings, in order.
 * A writable shared heap then has them synced (fdatasync) and the epoch
 * advanced, so they are never applied again; a private mapping (amber
 * check) gets them in its copy only; a read-only one only counts them
 * (h->journal_pending).  Returns 0, or -1 after an error (damage). */
int amber_journal_replay(struct amber_heap *h);

#endif
