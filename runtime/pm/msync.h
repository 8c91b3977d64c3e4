/* The msync backend (AMBER_PM=msync): flushes record dirty ranges, a fence
 * makes every range its thread recorded durable, and fences that meet share
 * one sync (group commit).  docs/engines/msync.md states the contract and
 * the ordering argument.
 *
 * The group-commit core is independent of how ranges are made durable: the
 * sync step is a function, msync/fdatasync on the heap file in the real
 * backend, "make these lines durable in the model" in the crash simulator
 * (AMBER_SIM_MSYNC=1), a mock in test/unit/msync_group.c. */
#ifndef AMBER_PM_MSYNC_H
#define AMBER_PM_MSYNC_H

#include <stddef.h>
#include <stdint.h>

#include "pm.h"

/* [start, end) of the heap as the caller names it: addresses in the real
 * backend (page-aligned), file line indexes in the simulator.  tag is the
 * sync step's own datum (the simulator: the newest store the flush covers);
 * ranges merge only when their tags are equal, or one repeats the other. */
struct amber_msync_range {
  uintptr_t start, end;
  uint64_t tag;
};

/* `len` bytes at file offset `off`, mapped at `addr`. */
struct amber_msync_file_range {
  uintptr_t addr;
  uint64_t off, len;
};

/* The sync step: makes r[0..n) durable, or dies; returns the syncs it
 * issued (syscalls).  Called by one thread at a time (the group's leader),
 * without the group-commit lock held. */
typedef unsigned (*amber_msync_sync_fn)(const struct amber_msync_range *r, size_t n);

/* The real backend: the heap file `path`, open as `fd`, mapped as reg;
 * dax: the file is on DAX (it takes MAP_SYNC). */
void amber_msync_attach(const char *path, int fd, const struct amber_pm_region *reg, int nreg, int dax);
/* Any other sync step (the simulator, tests). */
void amber_msync_attach_fn(amber_msync_sync_fn fn);
/* The heap file open as `fd` is about to close: syncs what waits, and from
 * now on no sync touches fd; ranges recorded before are dropped at their
 * thread's next fence.  Nothing happens when fd is not the attached file. */
void amber_msync_detach(int fd);

/* Records [start, end) for this thread's next fence: no syscall, no lock. */
void amber_msync_record(uintptr_t start, uintptr_t end, uint64_t tag);
/* Returns once a sync that started after every range this thread recorded
 * was recorded has completed.  Without recorded ranges, returns at once. */
void amber_msync_fence(void);
/* The fence in two halves (amber_msync_fence = wait(publish())).  publish
 * hands this thread's recorded ranges to the group commit and returns a
 * ticket (0: nothing recorded); wait(ticket) returns once a sync that took
 * those ranges has completed, leading one itself when none runs.  Any
 * thread may wait for any ticket; tickets grow with publication order, so
 * a durable ticket makes every smaller one durable. */
uint64_t amber_msync_publish(void);
void amber_msync_wait(uint64_t ticket);
/* The same wait, whose sync (when this thread leads it) starts at once:
 * for a thread that batches commits itself (amber_wait_token). */
void amber_msync_wait_now(uint64_t ticket);
/* 1 once wait(ticket) would return at once (no lock). */
int amber_msync_durable(uint64_t ticket);

/* Gathering (docs/engines/msync.md, "Gathering"): a thread that will
 * publish soon (mvcc: an update transaction's first write) enters; its next
 * publish, wait or leave (an abort, a commit with nothing to publish) takes
 * it out.  A leader of a ticket wait (never a plain fence) that finds
 * threads in flight waits for them to publish before it takes the pending
 * ranges, at most pct % of the mean sync duration (or fixed_ns when not 0,
 * for tests); pct 0: never.  Both idempotent per thread. */
void amber_msync_enter(void);
void amber_msync_leave(void);
void amber_msync_set_gather(unsigned pct, uint64_t fixed_ns);
/* Overlapping syncs (docs/engines/msync.md, "Overlapping syncs"): at most
 * k syncs run at once, each taking what was pending when it started (1 to
 * 64; 1: one at a time, and only then does a leader gather).  Waits for
 * the running syncs first. */
void amber_msync_set_parallel(unsigned k);
/* For tests and statistics: threads in flight; 1 while a leader gathers;
 * out[0] leaders that waited, out[1] of them ended by the last sibling's
 * publish, out[2] by the bound. */
unsigned amber_msync_inflight(void);
int amber_msync_gathering(void);
void amber_msync_gather_counts(uint64_t out[3]);

/* Real backend's planning: sorts r[0..n) by address and merges ranges that
 * overlap or touch, or lie in one region of reg with at most
 * AMBER_MSYNC_GAP_PAGES pages between them (one msync of the span writes
 * only its dirty pages; a gap of 65536 pages measured no different,
 * docs/engines/msync.md).  Returns the ranges left; more than
 * AMBER_MSYNC_MAX_CALLS means the several-ranges path (file_sync). */
#define AMBER_MSYNC_GAP_PAGES 16
#define AMBER_MSYNC_MAX_CALLS 1
size_t amber_msync_coalesce(struct amber_msync_range *r, size_t n, const struct amber_pm_region *reg, int nreg,
                            uintptr_t page);

/* A sync of several ranges (docs/engines/msync.md, "Several ranges"):
 * the real backend's file ranges, r[0..n) (sorted, coalesced addresses)
 * cut at the mappings' ends: out[i] is `len` bytes at file offset `off`,
 * mapped at `addr`.  out holds n * AMBER_PM_MAX_REGIONS entries; returns
 * how many it filled.  A range outside every mapping is a bug (fatal). */
size_t amber_msync_file_ranges(const struct amber_msync_range *r, size_t n, const struct amber_pm_region *reg, int nreg,
                               struct amber_msync_file_range *out);

/* How the real backend syncs several ranges, chosen at attach from the
 * heap file's file system and AMBER_PM_MSYNC_SEVERAL (names below). */
enum amber_msync_several { AMBER_MSYNC_SEVERAL_NONE, AMBER_MSYNC_SEVERAL_RANGES, AMBER_MSYNC_SEVERAL_FDATASYNC };
extern const char *const amber_msync_several_name[3];
/* AMBER_PM_MSYNC_SEVERAL at start-up: fatal on an unknown value. */
void amber_msync_check_option(void);
/* For the file system statfs calls `magic` and the mount options `opts`
 * (NULL: unknown), whether a sync of several ranges may write each with
 * sync_file_range and commit them with one msync; if not, *why says why. */
int amber_msync_ranges_safe(unsigned long magic, const char *opts, const char **why);

/* The sync step's statistics, all threads: [0] syncs of several ranges by
 * sync_file_range + one msync, [1] by fdatasync, [2] ranges written by the
 * former, [3] ns spent in sync steps, [4] ns leaders spent gathering. */
void amber_msync_sync_counts(uint64_t out[5]);
/* The way the attached heap syncs several ranges (NONE: none attached). */
enum amber_msync_several amber_msync_several(void);

/* The sync journal (docs/engines/msync.md, "The sync journal"): with one
 * sync at a time, a sync writes its ranges' bytes as entries into the
 * heap's journal (mapped at map, `size` bytes at file offset `file_off`,
 * current head: epoch, slot) and makes that one span durable, instead of
 * syncing the ranges where they lie; those are synced in place (by the
 * sync step) when the journal is full and at detach, and the epoch then
 * moves on.  The ops say how ranges name bytes and how the journal's own
 * bytes are made durable: NULL for the real backend (addresses, msync);
 * the simulator passes its own.  Called after attach; detach ends it. */
struct amber_msync_journal_ops {
  /* r[0..n) as the bytes they name (struct amber_msync_file_range, below)
   * into x (room for n * AMBER_PM_MAX_REGIONS); returns how many. */
  size_t (*extents)(const struct amber_msync_range *r, size_t n, struct amber_msync_file_range *x);
  /* The journal's bytes [addr, addr+len) durable now, or die. */
  void (*persist)(const void *addr, size_t len);
  /* r[0..n) are durable through the journal (the simulator's check); may be NULL. */
  void (*journaled)(const struct amber_msync_range *r, size_t n);
};
void amber_msync_journal_attach(char *map, uint64_t file_off, uint64_t size, uint64_t epoch, int slot,
                                const struct amber_msync_journal_ops *ops);
/* The heap was closed (marked clean): what the journal holds is synced in
 * place and voided, so the next open replays nothing; later syncs go in
 * place.  Waits for the running sync first. */
void amber_msync_journal_close(void);
/* [0] syncs the journal took, [1] bytes it wrote (headers included), [2]
 * times it was full (ranges synced in place, epoch advanced). */
void amber_msync_journal_counts(uint64_t out[3]);

/* Syncs issued so far, all threads (the stats' "syncs"). */
uint64_t amber_msync_syncs(void);
/* Threads waiting in a fence for a sync (for tests). */
unsigned amber_msync_waiting(void);

#endif
