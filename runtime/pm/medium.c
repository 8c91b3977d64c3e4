/* Finds out what the heap file is on: a memory file system (fstatfs), a DAX
 * mapping that accepts MAP_SYNC and whether the platform flushes caches
 * itself (libpmem), or an ordinary file. */
#include "medium.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/vfs.h>

#include "base/diag.h"
#include "base/options.h"
#include "libpmem.h"

const char *const amber_pm_medium_name[AMBER_MEDIUM_NKINDS] = {"file", "memory", "dax", "dax-autoflush"};

static const struct {
  unsigned long magic;
  const char *name;
  int memory;
} fs_table[] = {
    {0x01021994, "tmpfs", 1},  {0x858458f6, "ramfs", 1}, {0x958458f6, "hugetlbfs", 1}, {0xEF53, "ext4", 0},
    {0x58465342, "xfs", 0},    {0x9123683E, "btrfs", 0}, {0xF2F52010, "f2fs", 0},     {0x2fc12fc1, "zfs", 0},
    {0x6969, "nfs", 0},        {0x794c7630, "overlay", 0}, {0x65735546, "fuse", 0},    {0x01021997, "9p", 0},
};

/* AMBER_PM_MEDIUM: -1 when unset or empty (detect), else the kind. */
static int override(void) {
  const char *v = amber_opt.pm_medium;
  if (!amber_opt.pm_medium_set || !v[0]) return -1;
  for (int k = 0; k < AMBER_MEDIUM_NKINDS; k++)
    if (!strcmp(v, amber_pm_medium_name[k])) return k;
  amber_fatal("AMBER_PM_MEDIUM=%s is not a medium; use file, memory, dax or dax-autoflush (to test what AMBER_PM=auto does "
              "there), or unset it to detect the heap file's medium",
              v);
}

void amber_pm_medium_check_option(void) { (void)override(); }

/* A DAX file maps with MAP_SYNC; any other file refuses it (EOPNOTSUPP,
 * or EINVAL on kernels without MAP_SHARED_VALIDATE).  A read-only mapping
 * of one page asks without writing anything. */
static int takes_map_sync(int fd) {
  void *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED_VALIDATE | MAP_SYNC, fd, 0);
  if (p == MAP_FAILED) return 0;
  munmap(p, 4096);
  return 1;
}

void amber_pm_medium_detect(int fd, struct amber_pm_medium *m) {
  memset(m, 0, sizeof *m);
  int memory = 0;
  struct statfs fs;
  if (fstatfs(fd, &fs) == 0) {
    unsigned long magic = (unsigned long)fs.f_type;
    snprintf(m->fs, sizeof m->fs, "magic 0x%lx", magic);
    for (size_t i = 0; i < sizeof fs_table / sizeof fs_table[0]; i++)
      if (fs_table[i].magic == magic) {
        snprintf(m->fs, sizeof m->fs, "%s", fs_table[i].name);
        memory = fs_table[i].memory;
      }
  } else {
    snprintf(m->fs, sizeof m->fs, "unknown file system");
  }
  m->map_sync = !memory && takes_map_sync(fd);
  if (memory) m->kind = AMBER_MEDIUM_MEMORY;
  else if (m->map_sync) {
    amber_pmem_load("a heap on DAX (to ask whether the platform flushes caches on power loss)");
    m->kind = amber_pmem_has_auto_flush() == 1 ? AMBER_MEDIUM_DAX_AUTOFLUSH : AMBER_MEDIUM_DAX;
  } else m->kind = AMBER_MEDIUM_FILE;
  int k = override();
  if (k >= 0) {
    m->kind = (enum amber_pm_medium_kind)k;
    m->simulated = 1;
  }
}
