/* Checking a stored ORDO boundary at open: a short measurement of the pair
 * that set it, and the rule that calls the stored value stale. */
#include "check.h"

#include <sched.h>
#include <string.h>

#include "calibrate.h"
#include "cpu.h"
#include "ordo.h"

int amber_ordo_contradicts(uint64_t stored, uint64_t value, uint64_t rtt, int clean) {
  uint64_t scale = clean && rtt > value ? rtt : value;
  if (scale == 0) scale = 1;
  return stored / AMBER_ORDO_CONTRADICT > scale;
}

int amber_ordo_check_wanted(uint64_t stored) {
  uint64_t khz = amber_ordo_clk.tsc_khz ? amber_ordo_clk.tsc_khz : amber_ordo_cpu_tsc_khz();
  return stored > AMBER_ORDO_CHECK_ABOVE_NS * khz / 1000000ull;
}

static int usable(int cpu) {
  cpu_set_t set;
  return cpu >= 0 && cpu < CPU_SETSIZE && sched_getaffinity(0, sizeof set, &set) == 0 && CPU_ISSET(cpu, &set);
}

int amber_ordo_check(uint64_t stored, int a, int b, struct amber_ordo_check *out) {
  memset(out, 0, sizeof *out);
  if (a == b || !usable(a) || !usable(b)) return 0;
  uint64_t limit = amber_ordo_clean_rtt_cycles();
  int64_t m[2] = {INT64_MAX, INT64_MAX}, rtt = INT64_MAX;
  uint64_t t0 = amber_ordo_now_ns();
  /* Until a session is clean, or the value already contradicts `stored`
   * (more sessions could only lower it), or the budget is spent. */
  for (int k = 0; k < AMBER_ORDO_CHECK_SESSIONS && !out->clean; k++) {
    int64_t v = m[0] > m[1] ? m[0] : m[1];
    if (k && (amber_ordo_now_ns() - t0 > AMBER_ORDO_CHECK_TOTAL_NS ||
              (v != INT64_MAX && amber_ordo_contradicts(stored, v > 1 ? (uint64_t)v : 1, 0, 0))))
      break;
    struct amber_ordo_session s;
    if (amber_ordo_session(a, b, AMBER_ORDO_CHECK_ROUNDS, AMBER_ORDO_CHECK_NS, &s)) return -1;
    if (s.min[0] < m[0]) m[0] = s.min[0];
    if (s.min[1] < m[1]) m[1] = s.min[1];
    if (s.rtt < rtt) rtt = s.rtt;
    if (s.rtt != INT64_MAX && (uint64_t)s.rtt <= limit) out->clean = 1;
  }
  if (m[0] == INT64_MAX || m[1] == INT64_MAX) return 0;
  int64_t v = m[0] > m[1] ? m[0] : m[1];
  out->done = 1;
  out->value = v > 1 ? (uint64_t)v : 1;
  out->rtt = rtt == INT64_MAX ? 0 : (uint64_t)rtt;
  out->contradicts = amber_ordo_contradicts(stored, out->value, out->rtt, out->clean);
  return 0;
}
