/* SIGBUS in a heap mapping (fault.h): which heap, which file offset, and
 * why.  The cause is read from the file itself, from the handler: fstat
 * (shorter than its header says: truncated), si_code (a machine check:
 * the medium), fstatfs (no free space: the file system is full), else an
 * I/O error.  Everything here that runs in the handler is
 * async-signal-safe: the table is read with acquire loads of fields that
 * were written before the entry was published. */
#include "fault.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <ucontext.h>
#include <unistd.h>

#include "heap.h"
#include "sigline.h"

/* One heap file: its mappings (meta, data, window, engine area). */
#define NHEAPS 4
#define NMAPS 5
static struct tracked {
  const struct amber_heap *h; /* published last; NULL: free slot */
  int fd, writable, creating;
  uint64_t file_size;
  char path[PATH_MAX];
  struct {
    uintptr_t lo, len;
    uint64_t file_off;
    const char *what;
  } map[NMAPS];
} heaps[NHEAPS];

void amber_heap_fault_track(const struct amber_heap *h) {
  amber_heap_fault_untrack(h);
  for (int i = 0; i < NHEAPS; i++) {
    struct tracked *t = &heaps[i];
    if (__atomic_load_n(&t->h, __ATOMIC_ACQUIRE)) continue;
    t->fd = h->fd;
    t->writable = h->writable;
    t->creating = h->creating;
    t->file_size = h->hdr.file_size;
    memcpy(t->path, h->path, sizeof t->path);
    const struct amber_header *hd = &h->hdr;
    const void *lo[NMAPS] = {h->meta, h->data, h->window, h->engine_area, h->journal};
    const uintptr_t len[NMAPS] = {AMBER_META_SIZE, hd->data_size, hd->data_size, hd->engine_size, hd->journal_size};
    const uint64_t off[NMAPS] = {0, hd->data_offset, hd->data_offset, hd->engine_offset, hd->journal_offset};
    static const char *const what[NMAPS] = {"metadata", "data area", "data area (the program's window)", "engine area", "sync journal"};
    for (int m = 0; m < NMAPS; m++) {
      t->map[m].lo = (uintptr_t)lo[m];
      t->map[m].len = lo[m] ? len[m] : 0;
      t->map[m].file_off = off[m];
      t->map[m].what = what[m];
    }
    __atomic_store_n(&t->h, h, __ATOMIC_RELEASE);
    return;
  }
  /* More heaps mapped at once than the table holds: their faults stay bare
   * signals.  No caller maps more than two. */
}

void amber_heap_fault_untrack(const struct amber_heap *h) {
  for (int i = 0; i < NHEAPS; i++)
    if (__atomic_load_n(&heaps[i].h, __ATOMIC_ACQUIRE) == h) __atomic_store_n(&heaps[i].h, NULL, __ATOMIC_RELEASE);
}

void amber_heap_bus_fault(const siginfo_t *si, void *uc) {
  if (si->si_code <= 0) return; /* sent (kill, raise): no address */
  uintptr_t a = (uintptr_t)si->si_addr;
  const struct tracked *t = NULL;
  int m = 0;
  for (int i = 0; i < NHEAPS && !t; i++) {
    if (!__atomic_load_n(&heaps[i].h, __ATOMIC_ACQUIRE)) continue;
    for (m = 0; m < NMAPS; m++)
      if (a - heaps[i].map[m].lo < heaps[i].map[m].len) {
        t = &heaps[i];
        break;
      }
  }
  if (!t) return;
  int write_access = 0;
#if defined(__x86_64__)
  /* The page-fault error code: bit 1 is set for a write. */
  write_access = uc && (((const ucontext_t *)uc)->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#else
  (void)uc;
#endif
  uint64_t off = t->map[m].file_off + (a - t->map[m].lo);
  struct amber_sigline l = {.n = 0};
  amber_sigline_put(&l, "amber: error: heap ");
  amber_sigline_put(&l, t->path);
  amber_sigline_put(&l, write_access ? ": a write of " : ": a read of ");
  amber_sigline_hex(&l, a);
  amber_sigline_put(&l, " (file offset ");
  amber_sigline_hex(&l, off);
  amber_sigline_put(&l, ", its ");
  amber_sigline_put(&l, t->map[m].what);
  amber_sigline_put(&l, ") failed with SIGBUS: ");
  struct stat sb;
  struct statfs fs;
  int truncated = fstat(t->fd, &sb) == 0 && (uint64_t)sb.st_size < t->file_size;
  if (truncated) {
    amber_sigline_put(&l, "the file is now ");
    amber_sigline_dec(&l, (uint64_t)sb.st_size);
    amber_sigline_put(&l, " bytes, not ");
    amber_sigline_dec(&l, t->file_size);
    amber_sigline_put(&l, ": something truncated it while it was in use. Restore the heap from a copy");
  } else if (si->si_code == BUS_MCEERR_AR || si->si_code == BUS_MCEERR_AO) {
    amber_sigline_put(&l, "the memory holding that page reported a media error (machine check). The heap's storage is failing: "
                          "copy what you can and restore the heap from a copy");
  } else {
    int known = fstatfs(t->fd, &fs) == 0;
    uint64_t avail = known ? (uint64_t)fs.f_bavail * (uint64_t)fs.f_bsize : 0;
    if (known && avail < (1u << 20)) {
      amber_sigline_put(&l, "its file system is full (");
      amber_sigline_dec(&l, avail);
      amber_sigline_put(&l, " bytes free) and the file is sparse there. Free space on that file system (or move the heap to "
                            "one with room; heaps created with AMBER_HEAP_RESERVE=1, the default, have their blocks from the start)");
    } else {
      amber_sigline_put(&l, "the storage could not supply the page (an I/O error; check the device, e.g. dmesg)");
      if (known) {
        amber_sigline_put(&l, "; its file system has ");
        amber_sigline_dec(&l, avail);
        amber_sigline_put(&l, " bytes free");
      }
    }
  }
  amber_sigline_flush(&l);
  if (t->creating) {
    amber_sigline_put(&l, "amber: note: the heap was being created: it gets no file at its path");
  } else if (!t->writable) {
    amber_sigline_put(&l, "amber: note: nothing was written to the heap file (it was open read-only)");
  } else {
    amber_sigline_put(&l, "amber: note: the program stops here and nothing more is written to the heap: it is left as a crash "
                          "leaves it, and ");
    amber_sigline_put(&l, truncated ? "the next open refuses it (its size is wrong)"
                                    : "the next open recovers every transaction that committed");
  }
  amber_sigline_flush(&l);
  _exit(2);
}

/* ---- the guard: a SIGBUS handler of amber's own ---- */

static struct sigaction replaced;
static int guarding;

static void on_bus(int sig, siginfo_t *si, void *uc) {
  amber_heap_bus_fault(si, uc);
  /* Not a heap fault: what was there before, and the signal again (a fault
   * repeats when the handler returns; a sent signal is sent again). */
  sigaction(sig, &replaced, NULL);
  if (si->si_code <= 0) raise(sig);
}

void amber_heap_fault_guard(int on) {
  if (on == guarding) return;
  if (on) {
    struct sigaction a;
    memset(&a, 0, sizeof a);
    a.sa_sigaction = on_bus;
    a.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&a.sa_mask);
    if (sigaction(SIGBUS, &a, &replaced) != 0) return;
  } else {
    sigaction(SIGBUS, &replaced, NULL);
  }
  guarding = on;
}
