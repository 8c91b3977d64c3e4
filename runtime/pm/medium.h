/* What the heap file is on, found at open from its descriptor: it decides
 * the backend AMBER_PM=auto picks (pm/durability.c says what each failure
 * then keeps). */
#ifndef AMBER_PM_MEDIUM_H
#define AMBER_PM_MEDIUM_H

enum amber_pm_medium_kind {
  AMBER_MEDIUM_FILE,          /* an ordinary file system: the page cache reaches the disk by msync */
  AMBER_MEDIUM_MEMORY,        /* tmpfs, ramfs, hugetlbfs: the file is RAM */
  AMBER_MEDIUM_DAX,           /* a DAX mapping that takes MAP_SYNC: flushed cache lines are durable */
  AMBER_MEDIUM_DAX_AUTOFLUSH, /* DAX where the platform flushes caches on power loss (eADR, CXL GPF) */
  AMBER_MEDIUM_NKINDS
};
/* "file", "memory", "dax", "dax-autoflush": also the values of AMBER_PM_MEDIUM. */
extern const char *const amber_pm_medium_name[AMBER_MEDIUM_NKINDS];

struct amber_pm_medium {
  enum amber_pm_medium_kind kind;
  char fs[32];   /* the file system: "ext4", "tmpfs", ..., or "magic 0x..." */
  int map_sync;  /* the file takes MAP_SHARED_VALIDATE | MAP_SYNC: a real DAX mapping */
  int simulated; /* kind is AMBER_PM_MEDIUM's, not the file's */
};

/* Fatal when AMBER_PM_MEDIUM names no medium (at start-up, before any heap
 * is touched). */
void amber_pm_medium_check_option(void);
/* What the file open as fd is on; AMBER_PM_MEDIUM, when set, overrides the
 * kind (map_sync stays the file's own).  Reads only: the file is not
 * modified. */
void amber_pm_medium_detect(int fd, struct amber_pm_medium *m);

#endif
