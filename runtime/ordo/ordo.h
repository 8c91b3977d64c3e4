/* The ORDO clock (DESIGN.md §4, docs/ordo.md): per-core invariant TSCs made
 * into one global clock by an uncertainty window, the ORDO boundary.
 * Two timestamps closer than the boundary are incomparable (cmp_time 0);
 * new_time(t) waits the window out so its result is certainly after t.
 * Without an invariant TSC (or AMBER_CLOCK=logical) the same API runs on a
 * shared atomic counter with boundary 0. */
#ifndef AMBER_ORDO_H
#define AMBER_ORDO_H

#include <stdint.h>

typedef uint64_t amber_time_t;

enum amber_ordo_mode { AMBER_ORDO_UNSET = 0, AMBER_ORDO_TSC = 1, AMBER_ORDO_LOGICAL = 2 };
/* Where the boundary came from. */
enum amber_ordo_source {
  AMBER_ORDO_SRC_NONE = 0, AMBER_ORDO_SRC_MEASURED, AMBER_ORDO_SRC_RECORD, AMBER_ORDO_SRC_ENV,
  AMBER_ORDO_SRC_API, AMBER_ORDO_SRC_LOGICAL, AMBER_ORDO_SRC_CACHE
};

struct amber_ordo_clock {
  int mode;          /* enum amber_ordo_mode; written once, before ready */
  int ready;         /* boundary known (release-stored after it) */
  uint64_t boundary; /* cycles (TSC) or 0 (logical) */
  uint64_t offset;   /* added to the TSC: keeps time monotonic across reboots */
  uint64_t tsc_khz;  /* measured TSC frequency */
  int source;        /* enum amber_ordo_source */
};
extern struct amber_ordo_clock amber_ordo_clk;
/* The logical clock, alone on its cache line. */
extern uint64_t amber_ordo_logical;

/* The raw TSC, ordered: rdtscp waits for earlier instructions (and earlier
 * loads) to complete; the lfence keeps later loads and stores from starting
 * before the clock is read; "memory" stops the compiler moving accesses. */
static inline uint64_t amber_ordo_rdtscp(void) {
  uint32_t lo, hi, aux;
  __asm__ volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux) : : "memory");
  return ((uint64_t)hi << 32) | lo;
}

/* Slow paths (ordo.c). */
amber_time_t amber_ordo_get_time_slow(void);
amber_time_t amber_ordo_new_time_slow(amber_time_t t);
void amber_ordo_ensure_boundary(void);

static inline amber_time_t amber_ordo_get_time(void) {
  if (__builtin_expect(amber_ordo_clk.mode == AMBER_ORDO_TSC, 1)) return amber_ordo_rdtscp() + amber_ordo_clk.offset;
  return amber_ordo_get_time_slow();
}

static inline uint64_t amber_ordo_boundary(void) {
  if (__builtin_expect(!__atomic_load_n(&amber_ordo_clk.ready, __ATOMIC_ACQUIRE), 0)) amber_ordo_ensure_boundary();
  return amber_ordo_clk.boundary;
}

/* A timestamp certainly greater than t: cmp_time(new_time(t), t) == 1. */
static inline amber_time_t amber_ordo_new_time(amber_time_t t) {
  uint64_t b = amber_ordo_boundary();
  if (__builtin_expect(amber_ordo_clk.mode == AMBER_ORDO_TSC, 1)) {
    amber_time_t now;
    while ((now = amber_ordo_get_time()) <= t + b) __builtin_ia32_pause();
    return now;
  }
  return amber_ordo_new_time_slow(t);
}

/* 1 when a is certainly after b, -1 when b is certainly after a, 0 when the
 * two are within the boundary (uncertain: callers resolve conservatively). */
static inline int amber_ordo_cmp_time(amber_time_t a, amber_time_t b) {
  uint64_t bd = amber_ordo_boundary();
  if (a > b + bd) return 1;
  if (b > a + bd) return -1;
  return 0;
}

/* Chooses the mode (AMBER_CLOCK, CPUID) and checks AMBER_ORDO_BOUNDARY
 * (fatal when malformed); measures only the TSC frequency (2 ms). */
void amber_ordo_init(void);
/* Before amber_ordo_init: the TSC frequency known from this boot's ORDO
 * cache (heap/ordo_cache.c), so the mode's choice does not measure it. */
void amber_ordo_preset_tsc_khz(uint64_t khz);
/* Fixes the boundary (tests, AMBER_ORDO_BOUNDARY); 0 is not allowed. */
void amber_ordo_set_boundary(uint64_t cycles, int source);
/* Parses AMBER_ORDO_BOUNDARY; returns 0 and sets *out, or fatal on a bad
 * value; returns -1 when the variable is unset. */
int amber_ordo_env_boundary(uint64_t *out);
const char *amber_ordo_mode_name(int mode);
const char *amber_ordo_source_name(int source);
double amber_ordo_cycles_to_ns(uint64_t cycles);

#endif
