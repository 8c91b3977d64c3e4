/* A bounded wait for other threads: yield at first, then sleep a
 * millisecond at a time, until a number of milliseconds have passed.  The
 * engines' close waits so for the regions still running (AMBER_EXIT_WAIT). */
#ifndef AMBER_BASE_WAIT_H
#define AMBER_BASE_WAIT_H

#include <sched.h>
#include <stdint.h>
#include <time.h>

struct amber_wait {
  struct timespec t0;
  uint64_t ms;
  unsigned spins;
};

static inline void amber_wait_start(struct amber_wait *w, uint64_t ms) {
  clock_gettime(CLOCK_MONOTONIC, &w->t0);
  w->ms = ms;
  w->spins = 0;
}

/* 0 once the time is up; otherwise waits a little and returns 1. */
static inline int amber_wait_more(struct amber_wait *w) {
  struct timespec now, ms = {0, 1000000};
  clock_gettime(CLOCK_MONOTONIC, &now);
  int64_t waited = (int64_t)(now.tv_sec - w->t0.tv_sec) * 1000 + (now.tv_nsec - w->t0.tv_nsec) / 1000000;
  if (waited < 0 || (uint64_t)waited >= w->ms) return 0;
  if (w->spins++ < 1000) sched_yield();
  else nanosleep(&ms, NULL);
  return 1;
}

#endif
