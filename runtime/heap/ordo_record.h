/* The ORDO record in the heap (format.h, docs/ordo.md): the boundary and
 * the CPU fingerprint it was measured on, and the offset and floor that
 * keep amber time monotonic across restarts and reboots. */
#ifndef AMBER_ORDO_RECORD_H
#define AMBER_ORDO_RECORD_H

#include "format.h"

struct amber_heap;

/* Read-only check at heap open: returns -1 after an amber: error: when both
 * slots hold something and neither is valid. */
int amber_ordo_record_validate(const struct amber_heap *h);
/* The current record, or NULL when the heap has none yet. */
const struct amber_ordo_record *amber_ordo_record_current(const struct amber_heap *h);
/* "measured at the first open", ...: enum amber_ordo_how in words. */
const char *amber_ordo_record_how_name(uint32_t how);
/* /proc/sys/kernel/random/boot_id as 16 bytes; all zero when unknown. */
void amber_ordo_boot_id(uint8_t id[16]);
/* Sets r->crc. */
void amber_ordo_record_seal(struct amber_ordo_record *r);

/* Sets up the process's clock from the (validated, writable) heap: the
 * boundary from AMBER_ORDO_BOUNDARY, the record when the fingerprint
 * matches, else a measurement; an offset that keeps time monotonic; then
 * writes the record.  Calling it again re-reads the heap. */
void amber_ordo_record_attach(struct amber_heap *h);
/* At clean close: records the current time as the floor. */
void amber_ordo_record_detach(struct amber_heap *h);

#endif
