/* What each failure keeps on each medium with each backend, in the words
 * amber prints, and the backend AMBER_PM=auto picks. */
#include "durability.h"

#include <stdio.h>
#include <string.h>

#include "base/diag.h"
#include "base/options.h"

static const char safe[] = "safe";

enum amber_pm_mode amber_pm_auto_mode(const struct amber_pm_medium *m) {
  switch (m->kind) {
  case AMBER_MEDIUM_DAX: return AMBER_PM_MODE_PMEM;
  case AMBER_MEDIUM_DAX_AUTOFLUSH: return AMBER_PM_MODE_FENCE;
  case AMBER_MEDIUM_MEMORY: return AMBER_PM_MODE_NONE;
  case AMBER_MEDIUM_FILE:
  case AMBER_MEDIUM_NKINDS: break;
  }
  return AMBER_PM_MODE_MSYNC;
}

const char *amber_pm_process_crash_words(enum amber_pm_mode mode) {
  (void)mode; /* with every backend the stores are in the file's shared pages, which outlive the process */
  return safe;
}

const char *amber_pm_power_loss_words(const struct amber_pm_medium *m, enum amber_pm_mode mode) {
  if (mode == AMBER_PM_MODE_SIM) return "not covered (AMBER_PM=sim is the crash simulator, for tests)";
  switch (m->kind) {
  case AMBER_MEDIUM_MEMORY: return "not covered (the file is in memory)";
  case AMBER_MEDIUM_FILE:
    if (mode == AMBER_PM_MODE_MSYNC) return safe;
    if (mode == AMBER_PM_MODE_NONE) return "not covered (nothing is written back)";
    return "not covered (cache-line flushes and fences do not reach the disk)";
  case AMBER_MEDIUM_DAX:
    if (mode == AMBER_PM_MODE_PMEM || mode == AMBER_PM_MODE_MSYNC) return safe;
    if (mode == AMBER_PM_MODE_NONE) return "not covered (nothing is flushed)";
    return "not covered (this platform does not flush its caches on power loss)";
  case AMBER_MEDIUM_DAX_AUTOFLUSH:
    /* Caches are durable, but stores that bypass them (non-temporal
     * copies) are ordered only by the fence. */
    if (mode != AMBER_PM_MODE_NONE) return safe;
    return "not covered (no fences order the writes)";
  case AMBER_MEDIUM_NKINDS: break;
  }
  return "not covered (unknown medium)";
}

int amber_pm_power_safe(const struct amber_pm_medium *m, enum amber_pm_mode mode) {
  return amber_pm_power_loss_words(m, mode) == safe;
}

void amber_pm_medium_words(char *buf, size_t len, const struct amber_pm_medium *m) {
  const char *name = amber_pm_medium_name[m->kind];
  if (m->simulated) snprintf(buf, len, "%s (AMBER_PM_MEDIUM; the file is on %s)", name, m->fs);
  else if (m->map_sync) snprintf(buf, len, "%s (%s, MAP_SYNC)", name, m->fs);
  else snprintf(buf, len, "%s (%s)", name, m->fs);
}

void amber_pm_describe(char *buf, size_t len, const struct amber_pm_medium *m, enum amber_pm_mode mode, const char *how) {
  char med[96];
  amber_pm_medium_words(med, sizeof med, m);
  snprintf(buf, len, "medium %s, backend %s (%s): process crash: %s; power loss: %s", med, amber_pm_mode_names[mode], how,
           amber_pm_process_crash_words(mode), amber_pm_power_loss_words(m, mode));
}

void amber_pm_warn_power_loss(const char *path, const struct amber_pm_medium *m, enum amber_pm_mode mode) {
  if (mode == AMBER_PM_MODE_SIM || amber_pm_power_safe(m, mode) || amber_opt.pm_power_loss_ok) return;
  const char *fix;
  switch (m->kind) {
  case AMBER_MEDIUM_MEMORY: fix = "no backend covers it on a memory file system: put the heap on a disk or a DAX file system for that"; break;
  case AMBER_MEDIUM_FILE: fix = "AMBER_PM=auto (the default) or msync covers it on this file"; break;
  default: fix = "AMBER_PM=auto (the default) or pmem covers it on this medium"; break;
  }
  char med[96];
  amber_pm_medium_words(med, sizeof med, m);
  amber_warn("heap %s is on medium %s: with AMBER_PM=%s a process crash is safe but power loss is %s; %s, or set "
             "AMBER_PM_POWER_LOSS_OK=1 to accept that and silence this warning",
             path, med, amber_pm_mode_names[mode], amber_pm_power_loss_words(m, mode), fix);
}

void amber_pm_describe_open(char *buf, size_t len) {
  const struct amber_pm_medium *m = amber_pm_medium();
  if (!m) {
    snprintf(buf, len, "backend %s (no heap open)", amber_pm_mode_name());
    return;
  }
  char how[32];
  snprintf(how, sizeof how, amber_pm_auto() ? "auto" : "AMBER_PM=%s", amber_pm_mode_name());
  amber_pm_describe(buf, len, m, amber_pm_mode(), how);
}
