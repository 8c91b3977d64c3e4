/* The ORDO cache (AMBER_ORDO_CACHE): what this boot's machine told an
 * earlier process about its clocks (the TSC frequency and a confirmed ORDO
 * boundary), kept in a file of the user's private runtime directory
 * (/dev/shm/amber-<euid>/ordo.cache) so that a later process, or a new heap,
 * need not measure them again (issue 27, item 5: a heap open costs ~0.5 ms
 * of TSC measurement without it, a heap's creation a full calibration). */
#ifndef AMBER_HEAP_ORDO_CACHE_H
#define AMBER_HEAP_ORDO_CACHE_H

#include "format.h"

/* Reads the cache when AMBER_ORDO_CACHE=1 and it is trustworthy: a regular
 * file of this user that only this user can write, in a directory of this
 * user's that nobody else can write, its checksum right, written during
 * this boot on a CPU of the same model and count.  Then presets the TSC
 * frequency (amber_ordo_preset_tsc_khz).  Silent: a missing or unusable
 * cache only means measuring.  Before amber_ordo_init. */
void amber_ordo_cache_load(void);
/* A confirmed boundary measured this boot on CPUs matching fp: 1 and the
 * boundary with its provenance, else 0. */
int amber_ordo_cache_boundary(const struct amber_ordo_fingerprint *fp, uint64_t *boundary,
                              struct amber_ordo_provenance *how);
/* Remembers the TSC frequency (fp) and, when boundary is nonzero (a
 * confirmed measurement), the boundary; writes the file (atomically, by
 * rename) when that adds to what it held.  Best effort, silent. */
void amber_ordo_cache_store(const struct amber_ordo_fingerprint *fp, uint64_t boundary,
                            const struct amber_ordo_provenance *how);

#endif
