/* What the ORDO clock knows of the CPUs: invariant TSC, TSC frequency, the
 * online CPUs and the topology fingerprint. */
#include "cpu.h"

#include <cpuid.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ordo.h"

int amber_ordo_cpu_invariant_tsc(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u) return 0;
  __cpuid(0x80000007u, a, b, c, d);
  return (d >> 8) & 1;
}

static uint64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t amber_ordo_cpu_tsc_khz(void) {
  /* CPUID leaf 0x15 states the TSC frequency where the CPU knows it: no
   * start-up cost then. */
  unsigned eax, ebx, ecx, edx;
  if (__get_cpuid_count(0x15, 0, &eax, &ebx, &ecx, &edx) && eax && ebx && ecx)
    return (uint64_t)ecx * ebx / eax / 1000;
  /* Otherwise measure for 0.5 ms (every heap open pays it; 0.5 ms keeps the
   * error well inside the fingerprint's 2 % tolerance).  Bracket each end
   * between two clock reads and retry the end until the bracket is tight,
   * so a preemption between the reads cannot skew the result. */
  uint64_t n0 = mono_ns(), c0 = amber_ordo_rdtscp(), n0b = mono_ns();
  uint64_t n1, c1, n1b;
  do {
    n1 = mono_ns();
    c1 = amber_ordo_rdtscp();
    n1b = mono_ns();
  } while (n1 - n0 < 500000 || n1b - n1 > 2000);
  uint64_t ns = ((n1 + n1b) - (n0 + n0b)) / 2;
  return ns ? (uint64_t)((double)(c1 - c0) * 1e6 / (double)ns) : 0;
}

int amber_ordo_cpu_list(int *cpus, int max) {
  cpu_set_t set;
  int n = 0;
  if (sched_getaffinity(0, sizeof set, &set) != 0) {
    cpus[0] = 0;
    return 1;
  }
  for (int i = 0; i < CPU_SETSIZE && n < max; i++)
    if (CPU_ISSET(i, &set)) cpus[n++] = i;
  return n;
}

void amber_ordo_cpu_fingerprint(struct amber_ordo_fingerprint *f, uint64_t tsc_khz) {
  memset(f, 0, sizeof *f);
  unsigned r[12] = {0};
  unsigned a, b, c, d;
  if (__get_cpuid(0x80000000u, &a, &b, &c, &d) && a >= 0x80000004u)
    for (unsigned i = 0; i < 3; i++) __cpuid(0x80000002u + i, r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]);
  memcpy(f->model, r, sizeof f->model);
  f->model[sizeof f->model - 1] = 0;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  f->ncpus = n > 0 ? (uint32_t)n : 1;
  f->tsc_khz = tsc_khz;
}

int amber_ordo_fingerprint_match(const struct amber_ordo_fingerprint *a, const struct amber_ordo_fingerprint *b) {
  if (memcmp(a->model, b->model, sizeof a->model) || a->ncpus != b->ncpus) return 0;
  uint64_t lo = a->tsc_khz < b->tsc_khz ? a->tsc_khz : b->tsc_khz;
  uint64_t hi = a->tsc_khz ^ b->tsc_khz ^ lo;
  return hi - lo <= hi / 50;
}
