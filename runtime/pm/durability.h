/* What each failure keeps: the backend AMBER_PM=auto picks for a medium,
 * and the words the runtime, amber info and the statistics print about a
 * (medium, backend) pair.  docs/guide.md's table is these words
 * (test/docs/durability-table.test runs every row). */
#ifndef AMBER_PM_DURABILITY_H
#define AMBER_PM_DURABILITY_H

#include <stddef.h>

#include "medium.h"
#include "pm.h"

/* dax: pmem; dax-autoflush: fence; file: msync; memory: none. */
enum amber_pm_mode amber_pm_auto_mode(const struct amber_pm_medium *m);
/* 1 when commits acknowledged with this backend survive power loss on m. */
int amber_pm_power_safe(const struct amber_pm_medium *m, enum amber_pm_mode mode);
/* "safe" for every backend: the kernel keeps a killed process's stores in
 * the file. */
const char *amber_pm_process_crash_words(enum amber_pm_mode mode);
/* "safe", or "not covered (why)". */
const char *amber_pm_power_loss_words(const struct amber_pm_medium *m, enum amber_pm_mode mode);
/* "file (ext4)", "dax (xfs, MAP_SYNC)", "dax (AMBER_PM_MEDIUM; the file is on ext4)". */
void amber_pm_medium_words(char *buf, size_t len, const struct amber_pm_medium *m);
/* The one line: "medium file (ext4), backend msync (auto): process crash:
 * safe; power loss: safe"; `how` is "auto" or "AMBER_PM=pmem". */
void amber_pm_describe(char *buf, size_t len, const struct amber_pm_medium *m, enum amber_pm_mode mode, const char *how);
/* Prints the one amber: warning: of an explicit AMBER_PM that does not
 * cover power loss on m, unless AMBER_PM_POWER_LOSS_OK=1. */
void amber_pm_warn_power_loss(const char *path, const struct amber_pm_medium *m, enum amber_pm_mode mode);

/* amber_pm_describe of this process's heap (pm.c's medium and mode). */
void amber_pm_describe_open(char *buf, size_t len);

#endif
