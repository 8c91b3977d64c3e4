/* The persistence backend: every flush and fence in amber goes through here,
 * so the modes, the counters and crash injection see all of them. */
#ifndef AMBER_PM_H
#define AMBER_PM_H

#include <stddef.h>
#include <stdint.h>

#include "medium.h"

enum amber_pm_cat {
  AMBER_PM_DATA,   /* program data written back to its home location */
  AMBER_PM_LOG,    /* logs */
  AMBER_PM_CKPT,   /* checkpoint / backup copies */
  AMBER_PM_ALLOC,  /* allocator metadata */
  AMBER_PM_HEADER, /* heap header, engine state words */
  AMBER_PM_NCAT
};
extern const char *const amber_pm_cat_name[AMBER_PM_NCAT];

/* FENCE: flushes are counted but not issued, fences are (a platform that
 * flushes its caches on power loss). */
enum amber_pm_mode { AMBER_PM_MODE_PMEM, AMBER_PM_MODE_MSYNC, AMBER_PM_MODE_NONE, AMBER_PM_MODE_SIM, AMBER_PM_MODE_FENCE, AMBER_PM_NMODES };
extern const char *const amber_pm_mode_names[AMBER_PM_NMODES];
/* The backend named `name` in *mode, or *is_auto = 1 for "auto"; -1 when
 * no backend has that name. */
int amber_pm_mode_parse(const char *name, enum amber_pm_mode *mode, int *is_auto);

/* Every flush or fence call in the runtime is a site, recorded at build time
 * in section amber_pm_sites, so planted-bug runs (AMBER_PLANT=k) can remove
 * exactly one of them.  docs/crashtest.md. */
enum amber_pm_site_kind { AMBER_SITE_FLUSH, AMBER_SITE_FENCE };
struct amber_pm_site {
  const char *file;
  const char *func;
  int line;
  int kind;
};
#define AMBER_PM_SITE_(k)                                                                                   \
  ({                                                                                                        \
    static const struct amber_pm_site amber_site_ __attribute__((section("amber_pm_sites"), used, aligned(8))) = { \
        __FILE__, __func__, __LINE__, k};                                                                   \
    &amber_site_;                                                                                           \
  })

/* Per-thread counters, summed by stats. */
struct amber_pm_counters {
  uint64_t flushes[AMBER_PM_NCAT]; /* cache lines written back */
  uint64_t fences[AMBER_PM_NCAT];
  uint64_t flushed_bytes;
  /* All categories together: what tx/tx.c marks at a region's begin and
   * compares at its commit (two loads instead of a sum). */
  uint64_t all_flushes, all_fences;
  uint64_t syncs; /* msync/fdatasync calls (AMBER_PM=msync) or model syncs (AMBER_SIM_MSYNC), all
                     threads: filled by amber_pm_counters_sum only */
  uint64_t sync_gathers[3]; /* msync group commit: leaders that waited for siblings, of them ended by the last
                               sibling's publish, by the bound (docs/engines/msync.md, "Gathering"); sum only */
  uint64_t sync_steps[5]; /* msync backend's sync steps (amber_msync_sync_counts): several ranges by sync_file_range
                             + one msync, by fdatasync, ranges written by the former, ns in sync steps, ns leaders
                             gathered; sum only */
};

/* One mapping of the heap file: `len` bytes at `addr` hold the file's bytes
 * from `file_off` on. */
struct amber_pm_region {
  void *addr;
  uint64_t len, file_off;
};
#define AMBER_PM_MAX_REGIONS 4

/* Reads AMBER_PM (and checks AMBER_PM_MEDIUM); fatal on an unknown name.
 * An explicit backend is the mode from here on; with AMBER_PM=auto (the
 * default) the mode is `none` until amber_pm_open picks it. */
void amber_pm_init(void);
/* The heap file open as fd is about to be mapped for writing: finds its
 * medium and, with AMBER_PM=auto, picks the mode from it.  Returns the
 * flags of the heap's shared mappings: MAP_SHARED_VALIDATE | MAP_SYNC on a
 * DAX file with a cache-flushing backend (pmem, fence), else MAP_SHARED.
 * Invariant: with auto, nothing is flushed to the heap before this (heap
 * creation syncs the new file itself: heap.c). */
int amber_pm_open(int fd);
/* The medium amber_pm_open found, or NULL before. */
const struct amber_pm_medium *amber_pm_medium(void);
/* 1 when AMBER_PM=auto chose the mode. */
int amber_pm_auto(void);
/* The process's heap file (`path`, open as `fd` until the heap closes,
 * file_size bytes, mapped as the nreg regions) is open, before recovery:
 * the simulator starts modelling it, and an explicit backend that does not
 * cover power loss on the medium gets its one warning.  heap/heap.c says which regions
 * (amber_heap_pm_attach). */
void amber_pm_attach(const char *path, int fd, uint64_t file_size, const struct amber_pm_region *reg, int nreg);
/* The heap's sync journal (heap/journal.h), after amber_pm_attach: the
 * msync backend (and the simulator's model of it) writes its syncs there
 * (docs/engines/msync.md, "The sync journal"); other backends ignore it. */
void amber_pm_journal_attach(char *map, uint64_t file_off, uint64_t size, uint64_t epoch, int slot);
/* The heap was marked clean: the journal's ranges synced in place and the
 * journal voided (msync.h, amber_msync_journal_close). */
void amber_pm_journal_close(void);
/* The heap file open as `fd` is about to close (heap/heap.c,
 * amber_heap_unmap): a backend that syncs through fd stops using it. */
void amber_pm_detach(int fd);
enum amber_pm_mode amber_pm_mode(void);
const char *amber_pm_mode_name(void);

/* Writes back every cache line of [addr, addr+len). */
#define amber_pm_flush(addr, len, cat) amber_pm_flush_at(AMBER_PM_SITE_(AMBER_SITE_FLUSH), addr, len, cat)
/* Orders and completes all earlier flushes of this thread. */
#define amber_pm_fence(cat) amber_pm_fence_at(AMBER_PM_SITE_(AMBER_SITE_FENCE), cat)
/* The fence in two halves, for a caller that has other work before it
 * needs durability (mvcc's early lock release, docs/engines/mvcc.md):
 * publish orders this thread's earlier flushes and returns a ticket;
 * amber_pm_fence_wait(ticket) returns once they are durable (any thread may
 * wait for any ticket, and waiting for one makes every smaller one durable).
 * Ticket 0: durable already.  Only the msync backend (and the simulator's
 * model of it, AMBER_SIM_MSYNC) defers (amber_pm_tickets() is 1): in every
 * other mode publish is the whole fence and returns 0.  Between publish and
 * wait, the thread flushes nothing it needs durable by the wait. */
#define amber_pm_fence_publish(cat) amber_pm_fence_publish_at(AMBER_PM_SITE_(AMBER_SITE_FENCE), cat)
uint64_t amber_pm_fence_publish_at(const struct amber_pm_site *site, enum amber_pm_cat cat);
void amber_pm_fence_wait(uint64_t ticket);
/* The same, without the group commit's gathering wait (a sync this thread
 * leads starts at once): for a waiter that batched the commits itself. */
void amber_pm_fence_wait_now(uint64_t ticket);
int amber_pm_fence_durable(uint64_t ticket);
int amber_pm_tickets(void);
/* Group commit's siblings (docs/engines/msync.md, "Gathering"): the calling
 * thread is in a transaction that will publish a ticket soon (enter: at its
 * first write), or no longer (leave: it ended without publishing; publish
 * and wait leave by themselves).  A sync's leader waits, bounded, for the
 * threads in between to publish.  No-ops unless amber_pm_tickets(). */
void amber_pm_group_enter(void);
void amber_pm_group_leave(void);
/* flush + fence (two sites). */
#define amber_pm_persist(addr, len, cat)                                                                      \
  do {                                                                                                        \
    amber_pm_flush(addr, len, cat);                                                                           \
    amber_pm_fence(cat);                                                                                      \
  } while (0)
void amber_pm_flush_at(const struct amber_pm_site *site, const void *addr, size_t len, enum amber_pm_cat cat);
void amber_pm_fence_at(const struct amber_pm_site *site, enum amber_pm_cat cat);

/* The runtime just wrote [addr, addr+len) of the heap.  Only the simulator
 * needs to know (it records the store per cache line, in order). */
void amber_pm_sim_wrote(const void *addr, size_t len);
static inline void amber_pm_wrote(const void *addr, size_t len) {
  extern int amber_pm_simulating;
  if (__builtin_expect(amber_pm_simulating, 0)) amber_pm_sim_wrote(addr, len);
}

/* Points where the simulator's lint looks at what is not yet durable. */
enum amber_pm_quiesce {
  AMBER_QUIESCE_TX,    /* a transaction ended: its stores must be flushed */
  AMBER_QUIESCE_OPEN,  /* recovery and open are done: everything durable */
  AMBER_QUIESCE_CLOSE, /* clean close: everything durable */
};
static inline void amber_pm_quiesce(enum amber_pm_quiesce q) {
  extern int amber_pm_simulating;
  void amber_pm_sim_quiesce(enum amber_pm_quiesce q);
  if (__builtin_expect(amber_pm_simulating, 0)) amber_pm_sim_quiesce(q);
}

/* Slow-PM emulation (AMBER_PM_WRITE_NS, AMBER_PM_FENCE_NS, at most this
 * many ns each): 1 when this process busy-waits on flushes and fences (a
 * delay is set and the mode is pmem or msync).  The delay then totals
 * lines flushed * WRITE_NS + fences * FENCE_NS, summed over threads. */
#define AMBER_PM_DELAY_MAX_NS 1000000u
int amber_pm_emulating(void);

/* The sites, numbered from 1 in (file, line, kind) order; *n gets the count. */
const struct amber_pm_site *const *amber_pm_sites(size_t *n);

/* The calling thread's counters (never NULL).  Initial-exec TLS, inline:
 * every region's begin reads them. */
extern __thread struct amber_pm_counters *amber_pm_mine __attribute__((tls_model("initial-exec")));
struct amber_pm_counters *amber_pm_counters_slow(void);
static inline struct amber_pm_counters *amber_pm_counters(void) {
  struct amber_pm_counters *c = amber_pm_mine;
  return __builtin_expect(c != NULL, 1) ? c : amber_pm_counters_slow();
}
/* Adds every thread's counters into *out. */
void amber_pm_counters_sum(struct amber_pm_counters *out);

#endif
