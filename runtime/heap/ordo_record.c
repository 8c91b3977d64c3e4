/* The heap's ORDO record: validating its two slots at open, attaching the
 * clock to it (the stored boundary, offset and floor) and sealing it at
 * close. */
#include "ordo_record.h"
#include "ordo_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/crc32c.h"
#include "base/diag.h"
#include "heap.h"
#include "ordo/ordo.h"
#include "ordo/calibrate.h"
#include "ordo/check.h"
#include "ordo/cpu.h"
#include "pm/pm.h"

_Static_assert(sizeof(struct amber_ordo_record) <= AMBER_ORDO_SLOT, "ORDO record exceeds its slot");

static struct amber_ordo_record *slot(const struct amber_heap *h, int i) {
  return (struct amber_ordo_record *)((char *)h->meta + AMBER_ORDO_OFFSET + (unsigned)i * AMBER_ORDO_SLOT);
}

const char *amber_ordo_record_how_name(uint32_t how) {
  static const char *const names[] = {"never measured", "measured at the first open", "measured again: another machine",
                                      "measured again: a check at open contradicted the stored value",
                                      "measured again: the stored value was provisional"};
  return how <= AMBER_ORDO_HOW_MAX ? names[how] : "?";
}

void amber_ordo_record_seal(struct amber_ordo_record *r) {
  r->crc = amber_crc32c(0, r, offsetof(struct amber_ordo_record, crc));
}

static int valid(const struct amber_ordo_record *r) {
  return r->magic == AMBER_ORDO_MAGIC && r->crc == amber_crc32c(0, r, offsetof(struct amber_ordo_record, crc));
}

static int empty(const struct amber_ordo_record *r) {
  static const struct amber_ordo_record zero;
  return !memcmp(r, &zero, sizeof zero);
}

const struct amber_ordo_record *amber_ordo_record_current(const struct amber_heap *h) {
  const struct amber_ordo_record *a = slot(h, 0), *b = slot(h, 1);
  int va = valid(a), vb = valid(b);
  if (va && vb) return a->seq >= b->seq ? a : b;
  return va ? a : vb ? b : NULL;
}

int amber_ordo_record_validate(const struct amber_heap *h) {
  const struct amber_ordo_record *a = slot(h, 0), *b = slot(h, 1);
  if (valid(a) || valid(b) || empty(a) || empty(b)) return 0;
  return amber_error("heap %s has a corrupt ORDO clock record (both slots at file offset %u fail their checksum); the file is damaged: restore it from a copy",
                     h->path, AMBER_ORDO_OFFSET);
}

static void write_record(struct amber_heap *h, struct amber_ordo_record *r) {
  const struct amber_ordo_record *cur = amber_ordo_record_current(h);
  r->magic = AMBER_ORDO_MAGIC;
  r->seq = cur ? cur->seq + 1 : 1;
  r->reserved = 0;
  amber_ordo_record_seal(r);
  /* The slot that is not current: a torn write leaves the current one. */
  struct amber_ordo_record *dst = slot(h, cur == slot(h, 0) ? 1 : 0);
  memcpy(dst, r, sizeof *r);
  amber_pm_wrote(dst, sizeof *dst);
  /* No fence of its own: the record is a cache (a lost or torn one fails
   * its checksum and the other slot, or a new measurement, serves), and
   * the status persist that follows every write at open and close orders
   * it (the simulator's quiesce lint checks that it is durable then). */
  amber_pm_flush(dst, sizeof *dst, AMBER_PM_HEADER);
}

static uint64_t realtime_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void amber_ordo_boot_id(uint8_t id[16]) {
  memset(id, 0, 16);
  FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
  if (!f) return;
  int n = 0, c, hi = -1;
  while (n < 16 && (c = fgetc(f)) != EOF) {
    int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (v < 0) continue;
    if (hi < 0) hi = v;
    else id[n++] = (uint8_t)(hi << 4 | v), hi = -1;
  }
  fclose(f);
}

static int boot_known(const uint8_t id[16]) {
  for (int i = 0; i < 16; i++)
    if (id[i]) return 1;
  return 0;
}

/* A fresh measurement, kept in the record with how it was obtained. */
static void measure(const char *path, struct amber_ordo_record *r, const struct amber_ordo_fingerprint *fp, uint32_t how,
                    uint64_t now_ns) {
  struct amber_ordo_calibration c;
  if (amber_ordo_calibrate(&c) != 0) exit(2);
  int confirmed = amber_ordo_calibration_confirmed(&c);
  amber_info("measured ORDO boundary: %llu cycles over %d CPU pairs in %.1f ms (%d sessions, %d disturbed)%s",
             (unsigned long long)c.boundary, c.pairs, (double)c.elapsed_ns / 1e6, c.sessions, c.unclean,
             confirmed ? "" : "; not confirmed");
  /* Only an unconfirmed value above the clean round-trip limit is worth a
   * warning: it makes every new timestamp wait that long. */
  if (!confirmed && c.boundary > c.clean_rtt)
    amber_warn("ORDO boundary of heap %s measured as %llu cycles (%.1f us) but not confirmed: %s; this run uses it (each new timestamp waits that long) and the next open measures again",
               path, (unsigned long long)c.boundary, amber_ordo_cycles_to_ns(c.boundary) / 1e3,
               c.unclean_pairs ? "no undisturbed round trip between some CPUs (the machine is busy)" : "the time cap left CPU pairs unmeasured");
  amber_ordo_set_boundary(c.boundary, AMBER_ORDO_SRC_MEASURED);
  struct amber_ordo_provenance p;
  memset(&p, 0, sizeof p);
  p.how = how;
  p.flags = confirmed ? 0 : AMBER_ORDO_PROVISIONAL;
  p.measured_unix_ns = now_ns;
  p.replaced = how == AMBER_ORDO_HOW_FIRST ? 0 : r->boundary;
  p.contradicted_by = how == AMBER_ORDO_HOW_CONTRADICTED ? r->how.check_value : 0;
  p.rtt = c.rtt;
  p.cpu_a = c.cpu_a;
  p.cpu_b = c.cpu_b;
  p.pairs = (uint32_t)c.pairs;
  p.planned = (uint32_t)c.planned;
  p.sessions = (uint32_t)c.sessions;
  p.unclean = (uint32_t)c.unclean;
  p.elapsed_ns = c.elapsed_ns;
  amber_ordo_calibration_free(&c);
  r->boundary = amber_ordo_clk.boundary;
  r->fp = *fp;
  r->how = p;
}

/* The boundary: the variable, else the record's when measured on this
 * topology, confirmed, and not contradicted by this open's check; else a
 * fresh measurement (which the record then keeps). */
static void choose_boundary(const char *path, struct amber_ordo_record *r, const struct amber_ordo_fingerprint *fp, uint64_t now_ns) {
  uint64_t b;
  if (amber_ordo_env_boundary(&b) == 0) {
    amber_ordo_set_boundary(b, AMBER_ORDO_SRC_ENV);
    return;
  }
  uint32_t how = AMBER_ORDO_HOW_FIRST;
  if (r->boundary && amber_ordo_fingerprint_match(&r->fp, fp)) {
    if (r->how.flags & AMBER_ORDO_PROVISIONAL) {
      how = AMBER_ORDO_HOW_PROVISIONAL;
    } else if (!amber_ordo_check_wanted(r->boundary)) {
      r->how.check_flags = 0;
      amber_ordo_set_boundary(r->boundary, AMBER_ORDO_SRC_RECORD);
      return;
    } else {
      struct amber_ordo_check k;
      if (amber_ordo_check(r->boundary, r->how.cpu_a, r->how.cpu_b, &k) != 0) exit(2);
      r->how.check_flags = (k.done ? AMBER_ORDO_CHECK_DONE : 0) | (k.clean ? AMBER_ORDO_CHECK_CLEAN : 0);
      if (k.done) {
        r->how.check_value = k.value;
        r->how.check_rtt = k.rtt;
        r->how.check_unix_ns = now_ns;
        r->how.checks++;
      }
      if (!k.contradicts) {
        amber_ordo_set_boundary(r->boundary, AMBER_ORDO_SRC_RECORD);
        return;
      }
      amber_info("stored ORDO boundary %llu cycles contradicted by a check of CPUs %d and %d (%llu cycles, round trip %llu): measuring again",
                 (unsigned long long)r->boundary, r->how.cpu_a, r->how.cpu_b, (unsigned long long)k.value,
                 (unsigned long long)k.rtt);
      how = AMBER_ORDO_HOW_CONTRADICTED;
    }
  } else if (r->boundary) {
    how = AMBER_ORDO_HOW_MACHINE;
  }
  /* A new heap, or one last opened on other CPUs: a boundary confirmed
   * earlier this boot on these CPUs (AMBER_ORDO_CACHE) serves as well as a
   * new measurement, which takes up to a second. */
  uint64_t cb;
  struct amber_ordo_provenance cp;
  if ((how == AMBER_ORDO_HOW_FIRST || how == AMBER_ORDO_HOW_MACHINE) && amber_ordo_cache_boundary(fp, &cb, &cp)) {
    amber_info("ORDO boundary %llu cycles from the ORDO cache (measured %.1f ms over %u CPU pairs earlier this boot; "
               "AMBER_ORDO_CACHE=0 measures instead)",
               (unsigned long long)cb, (double)cp.elapsed_ns / 1e6, cp.pairs);
    cp.replaced = how == AMBER_ORDO_HOW_FIRST ? 0 : r->boundary;
    cp.how = how;
    r->boundary = cb;
    r->fp = *fp;
    r->how = cp;
    amber_ordo_set_boundary(cb, AMBER_ORDO_SRC_CACHE);
    return;
  }
  measure(path, r, fp, how, now_ns);
  if (!(r->how.flags & AMBER_ORDO_PROVISIONAL)) amber_ordo_cache_store(fp, r->boundary, &r->how);
}

void amber_ordo_record_attach(struct amber_heap *h) {
  amber_ordo_init();
  __atomic_store_n(&amber_ordo_clk.ready, 0, __ATOMIC_RELEASE);
  const struct amber_ordo_record *cur = amber_ordo_record_current(h);
  struct amber_ordo_record r;
  memset(&r, 0, sizeof r);
  if (cur) r = *cur;
  uint8_t boot[16];
  amber_ordo_boot_id(boot);
  uint64_t now = realtime_ns();
  uint64_t elapsed_ns = cur && now > cur->floor_unix_ns ? now - cur->floor_unix_ns : 0;
  int mode = amber_ordo_clk.mode;
  if (mode == AMBER_ORDO_TSC) {
    struct amber_ordo_fingerprint fp;
    amber_ordo_cpu_fingerprint(&fp, amber_ordo_clk.tsc_khz);
    choose_boundary(h->path, &r, &fp, now);
    amber_ordo_cache_store(&fp, 0, NULL); /* the TSC frequency, when the cache lacked it */
    uint64_t tsc = amber_ordo_rdtscp();
    int same_boot = cur && cur->mode == AMBER_ORDO_TSC && boot_known(boot) && !memcmp(boot, cur->boot_id, 16);
    if (!cur) amber_ordo_clk.offset = 0;
    else if (same_boot && tsc + cur->offset > cur->floor) amber_ordo_clk.offset = cur->offset;
    else /* The TSC restarted (reboot) or the clocks changed: resume past
          * every timestamp the previous run can have issued. */
      amber_ordo_clk.offset = cur->floor + (uint64_t)((double)elapsed_ns * (double)amber_ordo_clk.tsc_khz / 1e6) +
                              amber_ordo_clk.boundary + 1 - tsc;
    r.offset = amber_ordo_clk.offset;
  } else {
    amber_ordo_set_boundary(1, AMBER_ORDO_SRC_LOGICAL);
    /* A counter that no thread can move faster than once a nanosecond. */
    uint64_t start = cur ? cur->floor + elapsed_ns + 1 : 1;
    uint64_t c = __atomic_load_n(&amber_ordo_logical, __ATOMIC_RELAXED);
    while (c < start && !__atomic_compare_exchange_n(&amber_ordo_logical, &c, start, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
    }
  }
  r.mode = (uint32_t)mode;
  r.floor = amber_ordo_get_time();
  r.floor_unix_ns = now;
  memcpy(r.boot_id, boot, 16);
  write_record(h, &r);
}

void amber_ordo_record_detach(struct amber_heap *h) {
  const struct amber_ordo_record *cur = amber_ordo_record_current(h);
  if (!cur || !amber_ordo_clk.mode) return;
  struct amber_ordo_record r = *cur;
  r.floor = amber_ordo_get_time();
  r.floor_unix_ns = realtime_ns();
  write_record(h, &r);
}
