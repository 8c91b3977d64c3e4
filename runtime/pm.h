/* The persistence backend: every flush and fence in amber goes through here,
 * so the modes, the counters and crash injection see all of them. */
#ifndef AMBER_PM_H
#define AMBER_PM_H

#include <stddef.h>
#include <stdint.h>

enum amber_pm_cat {
  AMBER_PM_DATA,   /* program data written back to its home location */
  AMBER_PM_LOG,    /* logs */
  AMBER_PM_CKPT,   /* checkpoint / backup copies */
  AMBER_PM_ALLOC,  /* allocator metadata */
  AMBER_PM_HEADER, /* heap header, engine state words */
  AMBER_PM_NCAT
};
extern const char *const amber_pm_cat_name[AMBER_PM_NCAT];

enum amber_pm_mode { AMBER_PM_MODE_PMEM, AMBER_PM_MODE_MSYNC, AMBER_PM_MODE_NONE };

/* Per-thread counters, summed by stats. */
struct amber_pm_counters {
  uint64_t flushes[AMBER_PM_NCAT]; /* cache lines written back */
  uint64_t fences[AMBER_PM_NCAT];
  uint64_t flushed_bytes;
};

/* Chooses the mode from AMBER_PM; fatal on an unknown name. */
void amber_pm_init(void);
enum amber_pm_mode amber_pm_mode(void);
const char *amber_pm_mode_name(void);

/* Writes back every cache line of [addr, addr+len). */
void amber_pm_flush(const void *addr, size_t len, enum amber_pm_cat cat);
/* Orders and completes all earlier flushes of this thread. */
void amber_pm_fence(enum amber_pm_cat cat);
/* flush + fence. */
void amber_pm_persist(const void *addr, size_t len, enum amber_pm_cat cat);

/* The calling thread's counters (never NULL). */
struct amber_pm_counters *amber_pm_counters(void);
/* Adds every thread's counters into *out. */
void amber_pm_counters_sum(struct amber_pm_counters *out);

#endif
