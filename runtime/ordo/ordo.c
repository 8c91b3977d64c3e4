/* The ORDO clock's state and slow paths: choosing the mode, the boundary
 * (AMBER_ORDO_BOUNDARY, the heap's record, or a measurement), the logical
 * fallback. */
#include "ordo.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/options.h"
#include "calibrate.h"
#include "cpu.h"

_Alignas(64) struct amber_ordo_clock amber_ordo_clk;
_Alignas(64) uint64_t amber_ordo_logical; /* its own line: it is the hot word */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

const char *amber_ordo_mode_name(int mode) {
  return mode == AMBER_ORDO_TSC ? "tsc" : mode == AMBER_ORDO_LOGICAL ? "logical" : "unset";
}

const char *amber_ordo_source_name(int source) {
  static const char *const names[] = {"none", "measured", "heap record", "AMBER_ORDO_BOUNDARY", "api", "logical clock",
                                      "ORDO cache (measured this boot)"};
  return source >= 0 && source <= AMBER_ORDO_SRC_CACHE ? names[source] : "?";
}

int amber_ordo_env_boundary(uint64_t *out) {
  amber_options_load();
  if (!amber_opt.ordo_boundary_set || !amber_opt.ordo_boundary[0]) return -1;
  const char *s = amber_opt.ordo_boundary;
  char *end;
  errno = 0;
  unsigned long long v = isdigit((unsigned char)s[0]) ? strtoull(s, &end, 0) : 0;
  if (!isdigit((unsigned char)s[0]) || errno || *end || v == 0)
    amber_fatal("AMBER_ORDO_BOUNDARY=%s is not a positive number of cycles; use e.g. 2000, or unset it to measure the boundary", s);
  *out = v;
  return 0;
}

static uint64_t preset_khz;

void amber_ordo_preset_tsc_khz(uint64_t khz) {
  pthread_mutex_lock(&lock);
  if (!amber_ordo_clk.mode) preset_khz = khz;
  pthread_mutex_unlock(&lock);
}

static void choose_mode(void) {
  uint64_t b;
  amber_ordo_env_boundary(&b); /* a malformed value fails here, early */
  const char *want = amber_opt.clock;
  int mode;
  if (!strcmp(want, "logical")) mode = AMBER_ORDO_LOGICAL;
  else if (!strcmp(want, "tsc") || !strcmp(want, "auto")) {
    int inv = amber_ordo_cpu_invariant_tsc();
    if (!inv && !strcmp(want, "tsc"))
      amber_fatal("AMBER_CLOCK=tsc but this CPU has no invariant TSC (CPUID 0x80000007 EDX bit 8); use AMBER_CLOCK=logical or auto");
    mode = inv ? AMBER_ORDO_TSC : AMBER_ORDO_LOGICAL;
  } else {
    amber_fatal("AMBER_CLOCK=%s is not a clock; use auto, tsc or logical", want);
  }
  if (mode == AMBER_ORDO_TSC) amber_ordo_clk.tsc_khz = preset_khz ? preset_khz : amber_ordo_cpu_tsc_khz();
  if (mode == AMBER_ORDO_LOGICAL && __atomic_load_n(&amber_ordo_logical, __ATOMIC_RELAXED) == 0)
    __atomic_store_n(&amber_ordo_logical, 1, __ATOMIC_RELAXED);
  __atomic_store_n(&amber_ordo_clk.mode, mode, __ATOMIC_RELEASE);
}

void amber_ordo_init(void) {
  pthread_mutex_lock(&lock);
  if (!amber_ordo_clk.mode) choose_mode();
  pthread_mutex_unlock(&lock);
}

void amber_ordo_set_boundary(uint64_t cycles, int source) {
  if (!cycles) AMBER_BUG("ORDO boundary 0");
  amber_ordo_init();
  pthread_mutex_lock(&lock);
  amber_ordo_clk.boundary = amber_ordo_clk.mode == AMBER_ORDO_LOGICAL ? 0 : cycles;
  amber_ordo_clk.source = amber_ordo_clk.mode == AMBER_ORDO_LOGICAL ? AMBER_ORDO_SRC_LOGICAL : source;
  __atomic_store_n(&amber_ordo_clk.ready, 1, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&lock);
}

/* No heap said what the boundary is: the variable, or a measurement. */
void amber_ordo_ensure_boundary(void) {
  amber_ordo_init();
  if (__atomic_load_n(&amber_ordo_clk.ready, __ATOMIC_ACQUIRE)) return;
  uint64_t b;
  if (amber_ordo_clk.mode == AMBER_ORDO_LOGICAL) {
    amber_ordo_set_boundary(1, AMBER_ORDO_SRC_LOGICAL);
  } else if (amber_ordo_env_boundary(&b) == 0) {
    amber_ordo_set_boundary(b, AMBER_ORDO_SRC_ENV);
  } else {
    static pthread_mutex_t measuring = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&measuring); /* one measurement, however many callers */
    if (!__atomic_load_n(&amber_ordo_clk.ready, __ATOMIC_ACQUIRE)) {
      struct amber_ordo_calibration c;
      if (amber_ordo_calibrate(&c) != 0) exit(2);
      amber_ordo_set_boundary(c.boundary, AMBER_ORDO_SRC_MEASURED);
      amber_ordo_calibration_free(&c);
    }
    pthread_mutex_unlock(&measuring);
  }
}

amber_time_t amber_ordo_get_time_slow(void) {
  if (!amber_ordo_clk.mode) amber_ordo_init();
  if (amber_ordo_clk.mode == AMBER_ORDO_TSC) return amber_ordo_rdtscp() + amber_ordo_clk.offset;
  return __atomic_load_n(&amber_ordo_logical, __ATOMIC_SEQ_CST);
}

/* Logical clock: the counter moves past t, and every result is unique. */
amber_time_t amber_ordo_new_time_slow(amber_time_t t) {
  uint64_t cur = __atomic_load_n(&amber_ordo_logical, __ATOMIC_RELAXED);
  for (;;) {
    uint64_t next = (cur > t ? cur : t) + 1;
    if (__atomic_compare_exchange_n(&amber_ordo_logical, &cur, next, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) return next;
  }
}

double amber_ordo_cycles_to_ns(uint64_t cycles) {
  return amber_ordo_clk.tsc_khz ? (double)cycles * 1e6 / (double)amber_ordo_clk.tsc_khz : 0.0;
}
