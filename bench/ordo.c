/* The ORDO microbenchmark (the paper's Figure 8b): timestamps per
 * microsecond per thread, new_time (ORDO) against a shared atomic
 * fetch-and-add (a logical clock), 1..N threads.  One JSON line per
 * (clock, threads).
 *   ordo [--threads N] [--seconds S] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ordo/ordo.h"

static _Alignas(64) uint64_t shared_counter;
static _Alignas(64) int stop;
static _Alignas(64) int go;

struct worker {
  _Alignas(64) uint64_t n;
  int faa;
};

static void *run(void *arg) {
  struct worker *w = arg;
  uint64_t n = 0, sink = 0;
  while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE)) __builtin_ia32_pause();
  if (w->faa) {
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
      sink += __atomic_fetch_add(&shared_counter, 1, __ATOMIC_SEQ_CST);
      n++;
    }
  } else {
    amber_time_t t = amber_ordo_get_time();
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
      t = amber_ordo_new_time(t);
      n++;
    }
    sink += t;
  }
  __asm__ volatile("" : : "r"(sink));
  w->n = n;
  return NULL;
}

static double measure(int threads, int faa, double secs) {
  struct worker *w = aligned_alloc(64, sizeof *w * (size_t)threads);
  pthread_t *th = malloc(sizeof *th * (size_t)threads);
  memset(w, 0, sizeof *w * (size_t)threads);
  stop = go = 0;
  for (int i = 0; i < threads; i++) {
    w[i].faa = faa;
    pthread_create(&th[i], NULL, run, &w[i]);
  }
  struct timespec a, b, d = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
  clock_gettime(CLOCK_MONOTONIC, &a);
  __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
  nanosleep(&d, NULL);
  __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
  uint64_t total = 0;
  for (int i = 0; i < threads; i++) {
    pthread_join(th[i], NULL);
    total += w[i].n;
  }
  clock_gettime(CLOCK_MONOTONIC, &b);
  double us = (double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_nsec - a.tv_nsec) / 1e3;
  free(w);
  free(th);
  return (double)total / us / threads;
}

int main(int argc, char **argv) {
  int max = 2;
  double secs = 1.0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--threads") && i + 1 < argc) max = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) secs = atof(argv[++i]);
    else {
      fprintf(stderr, "amber: error: ordo: unknown argument '%s'; use --threads N --seconds S\n", argv[i]);
      return 2;
    }
  }
  if (max < 1) max = 1;
  amber_ordo_init();
  uint64_t b = amber_ordo_boundary(); /* measure before timing anything */
  for (int t = 1; t <= max; t++) {
    double ordo = measure(t, 0, secs), faa = measure(t, 1, secs);
    printf("{\"workload\": \"ordo-timestamps\", \"threads\": %d, \"clock\": \"%s\", \"boundary_cycles\": %llu, "
           "\"new_time_per_us_per_thread\": %.2f, \"atomic_faa_per_us_per_thread\": %.2f}\n",
           t, amber_ordo_mode_name(amber_ordo_clk.mode), (unsigned long long)b, ordo, faa);
    fflush(stdout);
  }
  return 0;
}
