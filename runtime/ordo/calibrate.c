/* Measuring the ORDO boundary: pairwise one-way delays between CPUs, the
 * paper's algorithm (docs/ordo.md). */
#include "calibrate.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/diag.h"
#include "ordo.h"
#include "cpu.h"

#define STOP UINT64_MAX
#define MIN_ROUNDS 200 /* per direction; fewer (a loaded machine) and the pair is measured again */
#define TRIES 5

/* Spin politely: on an oversubscribed machine the partner may need this CPU. */
static inline void relax(unsigned *spins) {
  if (++*spins & 1023) __builtin_ia32_pause();
  else sched_yield();
}

struct line {
  _Alignas(64) uint64_t v;
};

/* One pair session: side 0 publishes at even rounds, side 1 at odd rounds. */
struct pair {
  struct line slot; /* the published clock value */
  struct line ack;  /* rounds completed */
  struct line started;
  int cpu[2];
  uint64_t deadline_ns;
  int64_t min[2]; /* min[s]: receiver's clock - sender's, when side s sent */
  int got[2];     /* rounds received by side s */
  int pin_failed;
};

struct side {
  struct pair *p;
  int s;
};

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *run_side(void *arg) {
  struct side *sd = arg;
  struct pair *p = sd->p;
  int s = sd->s;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(p->cpu[s], &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) __atomic_store_n(&p->pin_failed, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&p->started.v, 1, __ATOMIC_ACQ_REL);
  while (__atomic_load_n(&p->started.v, __ATOMIC_ACQUIRE) < 2) __builtin_ia32_pause();
  uint64_t last = 0;
  int64_t best = INT64_MAX;
  int got = 0;
  unsigned spins = 0;
  for (uint64_t k = 0; k < 2 * AMBER_ORDO_ROUNDS; k++) {
    if ((int)(k & 1) == s) {
      while (__atomic_load_n(&p->ack.v, __ATOMIC_ACQUIRE) != k) relax(&spins);
      if ((k & 63) == s && now_ns() > p->deadline_ns) {
        __atomic_store_n(&p->slot.v, STOP, __ATOMIC_RELEASE);
        break;
      }
      last = amber_ordo_rdtscp();
      __atomic_store_n(&p->slot.v, last, __ATOMIC_RELEASE);
    } else {
      uint64_t v;
      while ((v = __atomic_load_n(&p->slot.v, __ATOMIC_ACQUIRE)) == last) relax(&spins);
      if (v == STOP) break;
      int64_t d = (int64_t)(amber_ordo_rdtscp() - v);
      if (d < best) best = d;
      got++;
      last = v;
      __atomic_store_n(&p->ack.v, k + 1, __ATOMIC_RELEASE);
    }
  }
  p->min[1 - s] = best; /* this side received what side 1-s sent */
  p->got[s] = got;
  return NULL;
}

static int measure_pair(int a, int b, uint64_t deadline_ns, int64_t out[2], int *rounds) {
  struct pair *p = aligned_alloc(64, sizeof *p);
  if (!p) return amber_error("ORDO calibration: out of memory");
  memset(p, 0, sizeof *p);
  p->cpu[0] = a;
  p->cpu[1] = b;
  p->deadline_ns = deadline_ns;
  struct side sd[2] = {{p, 0}, {p, 1}};
  pthread_t th[2];
  int e = 0;
  for (int i = 0; i < 2 && !e; i++)
    if ((e = pthread_create(&th[i], NULL, run_side, &sd[i])) != 0 && i == 1) {
      /* Let the first side stop: it waits for the second to start. */
      __atomic_add_fetch(&p->started.v, 1, __ATOMIC_RELEASE);
      __atomic_store_n(&p->deadline_ns, 0, __ATOMIC_RELEASE);
      pthread_join(th[0], NULL);
    }
  if (e) {
    free(p);
    return amber_error("ORDO calibration cannot start a thread: %s; raise the process's thread limit or set AMBER_ORDO_BOUNDARY",
                       strerror(e));
  }
  pthread_join(th[0], NULL);
  pthread_join(th[1], NULL);
  int bad = p->pin_failed;
  out[0] = p->min[0];
  out[1] = p->min[1];
  *rounds = p->got[0] < p->got[1] ? p->got[0] : p->got[1];
  free(p);
  if (bad)
    return amber_error("ORDO calibration cannot pin a thread to CPU %d or %d (sched_setaffinity failed); set AMBER_ORDO_BOUNDARY to skip the measurement",
                       a, b);
  return 0;
}

/* Which pairs: all of them up to AMBER_ORDO_ALL_PAIRS; beyond, every CPU
 * with the first (the star), with its neighbour (the ring) and with the CPU
 * halfway round (crossing sockets and NUMA nodes): 3n pairs that include
 * both ends of every interconnect distance. */
static int next_pair(int n, int idx, int *i, int *j) {
  if (n * (n - 1) / 2 <= AMBER_ORDO_ALL_PAIRS) {
    for (int a = 0; a < n; a++)
      for (int b = a + 1; b < n; b++)
        if (idx-- == 0) {
          *i = a, *j = b;
          return 1;
        }
    return 0;
  }
  if (idx < n - 1) return *i = 0, *j = idx + 1, 1;
  idx -= n - 1;
  if (idx < n - 2) return *i = idx + 1, *j = idx + 2, 1;
  idx -= n - 2;
  if (idx < n / 2 - 1) return *i = idx + 1, *j = idx + 1 + n / 2, 1;
  return 0;
}

int amber_ordo_calibrate(struct amber_ordo_calibration *c) {
  memset(c, 0, sizeof *c);
  uint64_t t0 = now_ns();
  c->cpus = calloc(CPU_SETSIZE, sizeof *c->cpus);
  if (!c->cpus) return amber_error("ORDO calibration: out of memory");
  c->ncpus = amber_ordo_cpu_list(c->cpus, CPU_SETSIZE);
  int n = c->ncpus;
  c->offset = malloc((size_t)n * (size_t)n * sizeof *c->offset);
  if (!c->offset) return amber_error("ORDO calibration: out of memory");
  for (int i = 0; i < n * n; i++) c->offset[i] = AMBER_ORDO_UNMEASURED;
  for (int i = 0; i < n; i++) c->offset[i * n + i] = 0;
  c->pairs_total = n * (n - 1) / 2;
  int64_t worst = 1;
  int i, j;
  for (int idx = 0; next_pair(n, idx, &i, &j); idx++) {
    uint64_t now = now_ns();
    if (now - t0 > AMBER_ORDO_TOTAL_NS) break; /* time cap: keep what we have */
    /* Min over runs, across tries: a try cut short by preemption (too few
     * rounds) is followed by another while time remains. */
    int64_t m[2] = {INT64_MAX, INT64_MAX};
    int total = 0;
    for (int try = 0; try < TRIES && total < MIN_ROUNDS; try++) {
      now = now_ns();
      if (try && now - t0 > AMBER_ORDO_TOTAL_NS) break;
      uint64_t dl = now + AMBER_ORDO_PAIR_NS;
      if (dl > t0 + AMBER_ORDO_TOTAL_NS && !try) dl = t0 + AMBER_ORDO_TOTAL_NS;
      int64_t t[2];
      int r;
      if (measure_pair(c->cpus[i], c->cpus[j], dl, t, &r)) return -1;
      total += r;
      if (t[0] < m[0]) m[0] = t[0];
      if (t[1] < m[1]) m[1] = t[1];
    }
    c->offset[i * n + j] = m[0];
    c->offset[j * n + i] = m[1];
    if (m[0] != INT64_MAX && m[0] > worst) worst = m[0];
    if (m[1] != INT64_MAX && m[1] > worst) worst = m[1];
    c->pairs++;
  }
  c->boundary = (uint64_t)worst;
  c->elapsed_ns = now_ns() - t0;
  return 0;
}

void amber_ordo_calibration_free(struct amber_ordo_calibration *c) {
  free(c->cpus);
  free(c->offset);
  c->cpus = NULL;
  c->offset = NULL;
}
