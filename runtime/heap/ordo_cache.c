/* The ORDO cache file (ordo_cache.h). */
#include "ordo_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/crc32c.h"
#include "base/options.h"
#include "owner.h"
#include "ordo/cpu.h"
#include "ordo/ordo.h"
#include "ordo_record.h"

#define CACHE_MAGIC "AMBORDC"
#define CACHE_VERSION 1u

struct cache {
  char magic[8];     /* CACHE_MAGIC */
  uint32_t version;  /* CACHE_VERSION */
  uint32_t uid;      /* the effective user that wrote it */
  uint8_t boot_id[16];
  struct amber_ordo_fingerprint fp; /* CPU model, count and TSC frequency */
  uint64_t boundary; /* 0: none confirmed yet */
  struct amber_ordo_provenance how;
  uint32_t reserved;
  uint32_t crc; /* crc32c of the bytes before it */
};

static struct cache cached; /* valid when have */
static int have;

static uint32_t cache_crc(const struct cache *c) { return amber_crc32c(0, c, offsetof(struct cache, crc)); }

static int dir_path(char *buf, size_t len, int make) {
  unsigned uid = (unsigned)geteuid();
  snprintf(buf, len, "%s/amber-%u", AMBER_HEAP_DEFAULT_ROOT, uid);
  if (make && mkdir(buf, 0700) != 0 && errno != EEXIST) return -1;
  /* Nobody else may be able to put a file here: this user's directory,
   * writable by nobody else (lstat: never a symbolic link). */
  struct stat sb;
  if (lstat(buf, &sb) != 0 || !S_ISDIR(sb.st_mode) || sb.st_uid != uid || (sb.st_mode & (S_IWGRP | S_IWOTH))) return -1;
  return 0;
}

static int same_cpus(const struct amber_ordo_fingerprint *a, const struct amber_ordo_fingerprint *b) {
  return !memcmp(a->model, b->model, sizeof a->model) && a->ncpus == b->ncpus;
}

void amber_ordo_cache_load(void) {
  have = 0;
  if (!amber_opt.ordo_cache) return;
  char path[128];
  if (dir_path(path, sizeof path - 16, 0) != 0) return;
  strcat(path, "/ordo.cache");
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return;
  struct stat sb;
  struct cache c;
  int ok = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_uid == geteuid() && !(sb.st_mode & (S_IWGRP | S_IWOTH)) &&
           sb.st_size == (off_t)sizeof c && pread(fd, &c, sizeof c, 0) == (ssize_t)sizeof c;
  close(fd);
  if (!ok || memcmp(c.magic, CACHE_MAGIC, sizeof c.magic) || c.version != CACHE_VERSION || c.crc != cache_crc(&c) ||
      c.uid != (uint32_t)geteuid() || !c.fp.tsc_khz)
    return;
  uint8_t boot[16], zero[16] = {0};
  amber_ordo_boot_id(boot);
  if (!memcmp(boot, zero, 16) || memcmp(boot, c.boot_id, 16)) return; /* another boot: the TSCs restarted */
  struct amber_ordo_fingerprint now;
  amber_ordo_cpu_fingerprint(&now, c.fp.tsc_khz);
  if (!same_cpus(&now, &c.fp)) return; /* CPUs came or went */
  cached = c;
  have = 1;
  amber_ordo_preset_tsc_khz(c.fp.tsc_khz);
}

int amber_ordo_cache_boundary(const struct amber_ordo_fingerprint *fp, uint64_t *boundary, struct amber_ordo_provenance *how) {
  if (!have || !cached.boundary || !amber_ordo_fingerprint_match(&cached.fp, fp)) return 0;
  *boundary = cached.boundary;
  *how = cached.how;
  return 1;
}

void amber_ordo_cache_store(const struct amber_ordo_fingerprint *fp, uint64_t boundary, const struct amber_ordo_provenance *how) {
  if (!amber_opt.ordo_cache || !fp->tsc_khz) return;
  if (have && (!boundary || cached.boundary) && amber_ordo_fingerprint_match(&cached.fp, fp)) return; /* nothing new */
  struct cache c;
  memset(&c, 0, sizeof c);
  memcpy(c.magic, CACHE_MAGIC, sizeof c.magic);
  c.version = CACHE_VERSION;
  c.uid = (uint32_t)geteuid();
  amber_ordo_boot_id(c.boot_id);
  uint8_t zero[16] = {0};
  if (!memcmp(c.boot_id, zero, 16)) return; /* no boot id: a cache could outlive a reboot unnoticed */
  c.fp = *fp;
  if (boundary) {
    c.boundary = boundary;
    c.how = *how;
  } else if (have && cached.boundary && amber_ordo_fingerprint_match(&cached.fp, fp)) {
    c.boundary = cached.boundary;
    c.how = cached.how;
  }
  c.crc = cache_crc(&c);
  char dir[128], tmp[160], path[160];
  if (dir_path(dir, sizeof dir, 1) != 0) return;
  snprintf(path, sizeof path, "%s/ordo.cache", dir);
  snprintf(tmp, sizeof tmp, "%s/.ordo.cache.%ld", dir, (long)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  int ok = write(fd, &c, sizeof c) == (ssize_t)sizeof c;
  close(fd);
  if (!ok || rename(tmp, path) != 0) {
    unlink(tmp);
    return;
  }
  cached = c;
  have = 1;
}
