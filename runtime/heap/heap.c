/* The heap file: atomic creation, validation of its header, mapping (the
 * canonical window, the alias, the engine's area) and its clean/dirty
 * status word.  What fills the data and engine areas belongs to the layers
 * above (engine/registry.c composes them). */
#include "heap.h"
#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "base/crc32c.h"
#include "base/diag.h"
#include "fault.h"
#include "ordo_record.h"
#include "owner.h"
#include "pm/pm.h"

static uint32_t header_crc(const struct amber_header *h) {
  return amber_crc32c(0, h, offsetof(struct amber_header, crc));
}

static int write_all(int fd, const void *buf, size_t len, off_t off) {
  const char *p = buf;
  while (len) {
    ssize_t w = pwrite(fd, p, len, off);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    p += w;
    len -= (size_t)w;
    off += w;
  }
  return 0;
}

/* An unnamed file in path's directory (tmp gets ""), else a named
 * temporary (its name in tmp), with permissions `mode` (the umask
 * applies). */
static int open_unnamed(const char *path, unsigned mode, char *tmp, size_t len) {
  char dir[PATH_MAX];
  amber_heap_dir_of(path, dir, sizeof dir);
  tmp[0] = 0;
  int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, (mode_t)mode);
  if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) return fd;
  snprintf(tmp, len, "%s.creating.%d", path, (int)getpid());
  return open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
}

static int link_into_place(int fd, const char *tmp, const char *path) {
  if (tmp[0]) return link(tmp, path);
  char self[64];
  snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
  return linkat(AT_FDCWD, self, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
}

/* Gives the file all its blocks now (a.reserve; on tmpfs, checks the free
 * space instead, below), so that a full file system
 * is an error here and never a SIGBUS at some later store into a page the
 * file system cannot supply (heap/fault.c). */
static int reserve_blocks(int fd, const char *path, uint64_t size) {
  struct statfs fs;
  int have_fs = fstatfs(fd, &fs) == 0;
  unsigned long long avail = have_fs ? (unsigned long long)fs.f_bavail * (unsigned long long)fs.f_bsize : 0;
  /* tmpfs (the default heaps' /dev/shm): fallocate there allocates and
   * zeroes every page of the file, about 0.1 s for 256 MiB, and takes the
   * whole heap's RAM from the first run on.  The file stays sparse; the
   * check is the free space now.  Should the file system fill up later, a
   * write to a page not yet had stops the program with an amber: error:
   * (heap/fault.c: SIGBUS at ENOSPC), the heap left as a crash leaves it. */
  int e;
  if (have_fs && (unsigned long)fs.f_type == 0x01021994ul /* TMPFS_MAGIC */) {
    if (avail >= size) return 0;
    e = ENOSPC;
  } else {
    e = posix_fallocate(fd, 0, (off_t)size);
    if (e == 0) return 0;
    if (have_fs && fstatfs(fd, &fs) == 0) avail = (unsigned long long)fs.f_bavail * (unsigned long long)fs.f_bsize;
  }
  if (e == ENOSPC || e == EDQUOT)
    return amber_error("cannot create heap %s: it needs %llu bytes and its file system has %llu bytes free%s; free space there, put the "
                       "heap on another file system, or choose a smaller AMBER_HEAP_SIZE (AMBER_HEAP_RESERVE=0 creates it sparse "
                       "instead: the program then stops with an error when a page cannot be had)",
                       path, (unsigned long long)size, avail, e == EDQUOT ? " (or the disk quota is used up)" : "");
  return amber_error("cannot create heap %s: reserving its %llu bytes failed: %s (its file system has %llu bytes free); set "
                     "AMBER_HEAP_RESERVE=0 to create it sparse, or use another file system",
                     path, (unsigned long long)size, strerror(e), avail);
}

int amber_heap_create(const char *path, const struct amber_create_args *a, uint64_t engine_size,
                      void (*format)(struct amber_heap *h, void *ctx), void *ctx) {
  if (a->data_size < AMBER_MIN_DATA || a->data_size > AMBER_MAX_DATA || a->data_size % AMBER_PAGE)
    return amber_error("heap size %llu bytes for %s is out of range; use a multiple of 4K between 1M and 1T (AMBER_HEAP_SIZE)",
                       (unsigned long long)a->data_size, path);
  if (a->journal_size && (a->journal_size % AMBER_PAGE || a->journal_size < 2 * AMBER_PAGE || a->journal_size > AMBER_JOURNAL_MAX))
    return amber_error("sync journal size %llu bytes for heap %s is out of range; use 0 (none) or a multiple of 4K between 8K "
                       "and 1G (AMBER_JOURNAL_SIZE)",
                       (unsigned long long)a->journal_size, path);
  if (a->base % (2u << 20) || a->base < (1ull << 32) || a->base + a->data_size > (1ull << 47))
    return amber_error("base 0x%llx for heap %s is not a 2 MiB-aligned user address above 4 GiB (AMBER_BASE)",
                       (unsigned long long)a->base, path);

  struct amber_header hd;
  memset(&hd, 0, sizeof hd);
  memcpy(hd.magic, AMBER_MAGIC, sizeof hd.magic);
  hd.version = AMBER_FORMAT_VERSION;
  hd.engine = a->engine;
  if (getrandom(hd.uuid, sizeof hd.uuid, 0) != sizeof hd.uuid)
    for (size_t i = 0; i < sizeof hd.uuid; i++) hd.uuid[i] = (uint8_t)(rand() ^ (int)time(NULL) ^ getpid());
  hd.base = a->base;
  hd.data_offset = AMBER_META_SIZE;
  hd.data_size = a->data_size;
  hd.engine_offset = AMBER_META_SIZE + a->data_size;
  hd.engine_size = engine_size;
  hd.journal_offset = hd.engine_offset + hd.engine_size;
  hd.journal_size = a->journal_size;
  hd.file_size = hd.journal_offset + hd.journal_size;
  hd.created_unix = (uint64_t)time(NULL);
  hd.page_size = AMBER_PAGE;
  hd.crc = header_crc(&hd);

  /* Build the file without a name (O_TMPFILE) and link it into place, so a
   * crash during creation never leaves a half-made heap at `path`, nor a
   * full-size temporary file.  File systems without O_TMPFILE get a named
   * temporary instead (a crash can leave that one behind). */
  char tmp[PATH_MAX + 32];
  unsigned mode = a->mode ? a->mode : AMBER_HEAP_DEFAULT_MODE;
  int fd = open_unnamed(path, mode, tmp, sizeof tmp);
  if (fd < 0) return amber_error("cannot create heap %s: %s; check the directory exists and is writable", path, strerror(errno));
  /* A mode the user asked for is given exactly (the umask would take a
   * group's write permission from 0660). */
  if (a->mode && fchmod(fd, (mode_t)a->mode) != 0) {
    int e = errno;
    close(fd);
    if (tmp[0]) unlink(tmp);
    return amber_error("cannot give new heap %s mode %04o (AMBER_HEAP_MODE): %s", path, a->mode, strerror(e));
  }
  struct amber_heap h;
  memset(&h, 0, sizeof h);
  snprintf(h.path, sizeof h.path, "%s", path);
  h.fd = fd;
  h.hdr = hd;
  h.writable = 1;
  h.creating = 1;
  struct amber_status st;
  memset(&st, 0, sizeof st);
  st.clean = AMBER_CLEAN;
  if (ftruncate(fd, (off_t)hd.file_size) != 0 || write_all(fd, &hd, sizeof hd, 0) != 0 ||
      write_all(fd, &st, sizeof st, AMBER_STATUS_OFFSET) != 0) {
    int e = errno;
    close(fd);
    if (tmp[0]) unlink(tmp);
    return amber_error("cannot create heap %s (%llu bytes): %s; free space or choose a smaller AMBER_HEAP_SIZE", path,
                       (unsigned long long)hd.file_size, strerror(e));
  }
  if (a->reserve && reserve_blocks(fd, path, hd.file_size) != 0) {
    close(fd);
    if (tmp[0]) unlink(tmp);
    return -1;
  }
  h.meta = mmap(NULL, AMBER_META_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  h.data = mmap(NULL, hd.data_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)hd.data_offset);
  h.engine_area = hd.engine_size ? mmap(NULL, hd.engine_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)hd.engine_offset) : NULL;
  if (h.meta == MAP_FAILED || h.data == MAP_FAILED || h.engine_area == MAP_FAILED) {
    close(fd);
    if (tmp[0]) unlink(tmp);
    return amber_error("cannot map new heap %s: %s", path, strerror(errno));
  }
  h.status = (struct amber_status *)((char *)h.meta + AMBER_STATUS_OFFSET);
  amber_heap_fault_track(&h);
  format(&h, ctx);
  int rc = 0;
  if (msync(h.meta, AMBER_META_SIZE, MS_SYNC) || msync(h.data, hd.data_size, MS_SYNC) ||
      (h.engine_area && msync(h.engine_area, hd.engine_size, MS_SYNC)) || fsync(fd))
    rc = amber_error("cannot write new heap %s: %s", path, strerror(errno));
  if (rc == 0 && link_into_place(fd, tmp, path) != 0) {
    if (errno == EEXIST) rc = 1;
    else rc = amber_error("cannot create heap %s: %s", path, strerror(errno));
  }
  amber_heap_unmap(&h);
  if (tmp[0]) unlink(tmp);
  return rc;
}

void amber_heap_unmap(struct amber_heap *h) {
  if (h->fd >= 0) amber_pm_detach(h->fd); /* before the mappings and fd the backend syncs go */
  amber_heap_fault_untrack(h);
  if (h->meta && h->meta != MAP_FAILED) munmap(h->meta, AMBER_META_SIZE);
  if (h->data && h->data != MAP_FAILED) munmap(h->data, h->hdr.data_size);
  if (h->window) munmap(h->window, h->hdr.data_size);
  if (h->engine_area && h->engine_area != MAP_FAILED) munmap(h->engine_area, h->hdr.engine_size);
  if (h->journal && h->journal != MAP_FAILED) munmap(h->journal, h->hdr.journal_size);
  if (h->fd >= 0) close(h->fd);
  h->meta = NULL;
  h->data = NULL;
  h->window = NULL;
  h->engine_area = NULL;
  h->journal = NULL;
  h->status = NULL;
  h->fd = -1;
}

static int fail(struct amber_heap *h) {
  amber_heap_unmap(h);
  return -1;
}

int amber_heap_open_file(const char *path, int flags, struct amber_heap *h) {
  memset(h, 0, sizeof *h);
  h->fd = -1;
  snprintf(h->path, sizeof h->path, "%s", path);
  h->writable = !!(flags & AMBER_OPEN_WRITE);
  /* O_NONBLOCK: a FIFO at `path` must be refused below, not block open. */
  int nofollow = (flags & AMBER_OPEN_NOFOLLOW) ? O_NOFOLLOW : 0;
  int fd = open(path, (h->writable ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_NONBLOCK | nofollow);
  if (fd < 0) {
    if (nofollow && errno == ELOOP)
      return amber_error("cannot open heap %s: it is a symbolic link, and the default heap path is never followed; remove "
                         "the link (amber makes the heap there), or set AMBER_HEAP to the heap file itself",
                         path);
    int e = errno;
    struct stat ps;
    if (e == EACCES && stat(path, &ps) == 0 && ps.st_uid != geteuid()) {
      char who[160];
      amber_heap_owner_text((unsigned)ps.st_uid, (unsigned)ps.st_mode, who, sizeof who);
      return amber_error("cannot open heap %s: %s; it belongs to %s: use your own heap (unset AMBER_HEAP for the "
                         "private default)",
                         path, strerror(e), who);
    }
    return amber_error("cannot open heap %s: %s%s", path, strerror(e), e == EACCES ? "; check the file's permissions" : "");
  }
  h->fd = fd;
  if ((flags & AMBER_OPEN_LOCK) && flock(fd, LOCK_EX | LOCK_NB) != 0) {
    amber_error("heap %s is in use by another process; stop it first (one process opens a heap at a time)", path);
    return fail(h);
  }
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    amber_error("cannot stat heap %s: %s", path, strerror(errno));
    return fail(h);
  }
  if (!S_ISREG(sb.st_mode)) {
    amber_error("%s is not a regular file; AMBER_HEAP must name a heap file", path);
    return fail(h);
  }
  h->owner_uid = (unsigned)sb.st_uid;
  h->mode = (unsigned)sb.st_mode & 07777;
  /* Before any byte of it is read: the header of a heap someone else can
   * write is already theirs. */
  if ((flags & AMBER_OPEN_OWNED) && amber_heap_check_owner(path, &sb) != 0) return fail(h);
  struct amber_header hd;
  memset(&hd, 0, sizeof hd);
  ssize_t r = pread(fd, &hd, sizeof hd, 0);
  if (r >= (ssize_t)sizeof hd.magic && r < (ssize_t)sizeof hd && memcmp(hd.magic, AMBER_MAGIC, sizeof hd.magic) == 0) {
    amber_error("heap %s is only %lld bytes long, shorter than its header; the file was truncated: restore it from a copy", path,
                (long long)sb.st_size);
    return fail(h);
  }
  if (r != (ssize_t)sizeof hd || memcmp(hd.magic, AMBER_MAGIC, sizeof hd.magic) != 0) {
    amber_error("%s is not an amber heap (no amber magic in its first bytes); point AMBER_HEAP at an amber heap or at a path that does not exist yet", path);
    return fail(h);
  }
  if (hd.version != AMBER_FORMAT_VERSION) {
    /* Another version may lay its header out differently, so the checksum
     * cannot tell; a version this amber reads with a bad checksum can. */
    amber_error("heap %s has layout version %u but this amber reads version %u; use the amber that created it (or recreate the heap)%s",
                path, hd.version, AMBER_FORMAT_VERSION,
                hd.crc != header_crc(&hd) ? ". If no amber ever wrote that version, the header is damaged: restore the heap from a copy" : "");
    return fail(h);
  }
  if (hd.crc != header_crc(&hd)) {
    amber_error("heap %s has a corrupt header (checksum 0x%08x, expected 0x%08x); the file is damaged: restore it from a copy",
                path, hd.crc, header_crc(&hd));
    return fail(h);
  }
  if (hd.features != 0 || hd.page_size != AMBER_PAGE || hd.data_offset != AMBER_META_SIZE ||
      hd.data_size % AMBER_PAGE || hd.data_size < AMBER_MIN_DATA || hd.data_size > AMBER_MAX_DATA ||
      hd.engine_offset != hd.data_offset + hd.data_size || hd.engine_size > AMBER_MAX_DATA ||
      hd.journal_offset != hd.engine_offset + hd.engine_size || hd.journal_size % AMBER_PAGE ||
      (hd.journal_size && hd.journal_size < 2 * AMBER_PAGE) || hd.journal_size > AMBER_JOURNAL_MAX ||
      hd.file_size != hd.journal_offset + hd.journal_size || hd.base % (2u << 20) || hd.base < (1ull << 32) ||
      hd.base + hd.data_size > (1ull << 47)) {
    amber_error("heap %s has a header this amber cannot use (features 0x%llx, page %u, data %llu bytes at base 0x%llx); recreate the heap",
                path, (unsigned long long)hd.features, hd.page_size, (unsigned long long)hd.data_size, (unsigned long long)hd.base);
    return fail(h);
  }
  if ((uint64_t)sb.st_size != hd.file_size) {
    amber_error("heap %s is %llu bytes but its header says %llu; the file was truncated or extended: restore it from a copy",
                path, (unsigned long long)sb.st_size, (unsigned long long)hd.file_size);
    return fail(h);
  }
  h->hdr = hd;
  return 0;
}

/* Maps `size` bytes of the heap file from `off` at *at; -1 after an error
 * (*at stays NULL). */
static int map_area(struct amber_heap *h, char **at, uint64_t size, uint64_t off, int prot, int mflags) {
  void *p = mmap(NULL, size, prot, mflags, h->fd, (off_t)off);
  if (p == MAP_FAILED) return amber_error("cannot map heap %s: %s", h->path, strerror(errno));
  *at = p;
  return 0;
}

int amber_heap_map(struct amber_heap *h, int flags) {
  const char *path = h->path;
  const struct amber_header hd = h->hdr;
  int fd = h->fd;
  /* AMBER_OPEN_PRIVATE: copy-on-write mappings of a read-only file, so
   * amber check can run recovery without writing the heap. */
  int share = (flags & AMBER_OPEN_PRIVATE) ? MAP_PRIVATE | MAP_NORESERVE : MAP_SHARED;
  int prot = PROT_READ | (h->writable || share != MAP_SHARED ? PROT_WRITE : 0);
  /* A heap mapped for writing: the backend looks at its medium first, and
   * may want MAP_SYNC (pm.h, amber_pm_open).  mflags is what every mapping
   * below is made with. */
  int mflags = share == MAP_SHARED && h->writable ? amber_pm_open(fd) : share;
  h->map_flags = mflags;
  h->meta = mmap(NULL, AMBER_META_SIZE, prot, mflags, fd, 0);
  if (h->meta == MAP_FAILED) {
    h->meta = NULL;
    amber_error("cannot map heap %s: %s", path, strerror(errno));
    return fail(h);
  }
  h->status = (struct amber_status *)((char *)h->meta + AMBER_STATUS_OFFSET);
  amber_heap_fault_track(h); /* again below, with every mapping */
  if (flags & AMBER_OPEN_AT_BASE) {
    if (share != MAP_SHARED) {
      /* The window and the alias would be two separate private copies. */
      amber_error("heap %s: a private mapping cannot be opened at its base address", path);
      return fail(h);
    }
    void *want = (void *)(uintptr_t)hd.base;
    int wprot = (flags & AMBER_OPEN_WINDOW_READ) ? PROT_READ : PROT_NONE;
    void *got = mmap(want, hd.data_size, wprot, mflags | MAP_FIXED_NOREPLACE, fd, (off_t)hd.data_offset);
    if (got == MAP_FAILED || got != want) {
      int e = errno;
      if (got != MAP_FAILED) munmap(got, hd.data_size);
      amber_error("cannot map heap %s at its base address 0x%llx (%llu bytes): %s; something else in this process uses that range. "
                  "Recreate the heap with another AMBER_BASE",
                  path, (unsigned long long)hd.base, (unsigned long long)hd.data_size,
                  got == MAP_FAILED ? (e == EEXIST ? "address range already in use" : strerror(e)) : "kernel placed it elsewhere");
      return fail(h);
    }
    h->window = got;
    h->window_prot = wprot;
  }
  /* Invariant: amber reads and writes the data area only through h->data;
   * with a window, h->data is the alias: the same file pages (MAP_SHARED), so
   * a store through one is seen through the other, and cache lines are
   * flushed by either address. */
  if (map_area(h, &h->data, hd.data_size, hd.data_offset, prot, mflags) != 0 ||
      (hd.engine_size && map_area(h, &h->engine_area, hd.engine_size, hd.engine_offset, prot, mflags) != 0) ||
      (hd.journal_size && map_area(h, &h->journal, hd.journal_size, hd.journal_offset, prot, mflags) != 0))
    return fail(h);
  h->private_map = share != MAP_SHARED;
  amber_heap_fault_track(h);
  /* What the sync journal holds belongs in the areas before anything reads
   * them, the status words and the ORDO record included. */
  if (amber_journal_replay(h) != 0) return fail(h);
  if (h->status->clean != AMBER_CLEAN && h->status->clean != AMBER_DIRTY) {
    amber_error("heap %s has a corrupt status word (0x%llx); the file is damaged", path, (unsigned long long)h->status->clean);
    return fail(h);
  }
  if (amber_ordo_record_validate(h) != 0) return fail(h);
  return 0;
}

/* Of the n pages from page-aligned p in a private mapping: how many come
 * first that this process has not written (still the file's page, or not
 * touched).  0 when pagemap cannot tell. */
static uint64_t private_unwritten(const char *p, uint64_t n) {
  static int fd = -2;
  if (fd == -2) fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  uint64_t done = 0, e[512];
  while (done < n) {
    uint64_t want = n - done < 512 ? n - done : 512;
    off_t at = (off_t)(((uintptr_t)p / AMBER_PAGE + done) * sizeof e[0]);
    ssize_t r = pread(fd, e, want * sizeof e[0], at);
    if (r <= 0) return done;
    for (uint64_t i = 0; i < (uint64_t)r / sizeof e[0]; i++, done++) {
      int present = (e[i] >> 63) & 1, swapped = (e[i] >> 62) & 1, file = (e[i] >> 61) & 1;
      if ((present && !file) || swapped) return done; /* an anonymous copy: written here */
    }
  }
  return done;
}

uint64_t amber_heap_extent(const struct amber_heap *h, const void *p, uint64_t len, int *zero) {
  *zero = 0;
  if (!len) return 0;
  uintptr_t a = (uintptr_t)p;
  uint64_t off, room;
  if (h->data && a - (uintptr_t)h->data < h->hdr.data_size) {
    off = h->hdr.data_offset + (a - (uintptr_t)h->data);
    room = h->hdr.data_size - (a - (uintptr_t)h->data);
  } else if (h->engine_area && a - (uintptr_t)h->engine_area < h->hdr.engine_size) {
    off = h->hdr.engine_offset + (a - (uintptr_t)h->engine_area);
    room = h->hdr.engine_size - (a - (uintptr_t)h->engine_area);
  } else {
    return len < AMBER_PAGE ? len : AMBER_PAGE;
  }
  if (len > room) len = room;
  uint64_t to_page = AMBER_PAGE - (a & (AMBER_PAGE - 1)), one = len < to_page ? len : to_page;
  if (a & (AMBER_PAGE - 1)) return one; /* only whole pages are judged */
  off_t d = lseek(h->fd, (off_t)off, SEEK_DATA);
  if (d < 0 && errno != ENXIO) return one;
  uint64_t hole = d < 0 ? len : (uint64_t)d - off; /* ENXIO: no data after off */
  if (hole > len) hole = len;
  hole &= ~(uint64_t)(AMBER_PAGE - 1);
  if (hole && h->private_map) hole = private_unwritten(p, hole / AMBER_PAGE) * AMBER_PAGE;
  if (hole) {
    *zero = 1;
    return hole;
  }
  off_t e = lseek(h->fd, (off_t)off, SEEK_HOLE);
  if (e < 0 || (uint64_t)e <= off) return one;
  uint64_t data = ((uint64_t)e - off + AMBER_PAGE - 1) & ~(uint64_t)(AMBER_PAGE - 1);
  return data < len ? data : len;
}

void amber_heap_pm_attach(struct amber_heap *h) {
  struct amber_pm_region reg[AMBER_PM_MAX_REGIONS] = {
      {h->meta, AMBER_META_SIZE, 0},
      {h->data, h->hdr.data_size, h->hdr.data_offset},
      {h->engine_area, h->hdr.engine_size, h->hdr.engine_offset},
      {h->journal, h->hdr.journal_size, h->hdr.journal_offset},
  };
  int n = 2;
  if (h->engine_area) n++;
  else reg[2] = reg[3];
  if (h->journal) n++;
  amber_pm_attach(h->path, h->fd, h->hdr.file_size, reg, n);
  if (h->journal)
    amber_pm_journal_attach(h->journal, h->hdr.journal_offset, h->hdr.journal_size, h->journal_epoch, h->journal_slot);
}

void amber_heap_set_clean(struct amber_heap *h, int clean) {
  struct amber_status *st = h->status;
  if (!clean) __atomic_store_n(&st->opens, st->opens + 1, __ATOMIC_RELAXED);
  __atomic_store_n(&st->clean, clean ? AMBER_CLEAN : AMBER_DIRTY, __ATOMIC_RELEASE);
  amber_pm_wrote(st, sizeof *st);
  amber_pm_persist(st, sizeof *st, AMBER_PM_HEADER);
}
