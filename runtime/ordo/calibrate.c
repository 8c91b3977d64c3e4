/* Measuring the ORDO boundary: pairwise one-way delays between CPUs, the
 * paper's algorithm, with sessions repeated until one ran undisturbed
 * (docs/ordo.md). */
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

/* Spin, yielding now and then: the partner is pinned elsewhere, but this
 * CPU may be shared with other work.  Rarely (about every 2 ms): a thread that
 * yields at once gives its time slice away, and a pair meets only when both
 * run at the same time, so on a busy machine frequent yields mean few
 * undisturbed rounds. */
static inline void relax(unsigned *spins) {
  if (++*spins & 0xffff) __builtin_ia32_pause();
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
  int rounds;
  uint64_t budget_ns;   /* the session's length */
  uint64_t deadline_ns; /* set when both sides run (0 until then) */
  int64_t min[2]; /* min[s]: receiver's clock - sender's, when side s sent */
  int64_t rtt[2]; /* rtt[s]: side s's shortest publish-to-reply, on its own clock */
  int got[2];     /* rounds received by side s */
  int pin_failed;
};

struct side {
  struct pair *p;
  int s;
};

uint64_t amber_ordo_now_ns(void) {
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
  unsigned spins = 0;
  /* The session's time starts when both sides run: on a busy machine
   * starting a thread can take longer than a session. */
  if (__atomic_add_fetch(&p->started.v, 1, __ATOMIC_ACQ_REL) == 2)
    __atomic_store_n(&p->deadline_ns, amber_ordo_now_ns() + p->budget_ns, __ATOMIC_RELEASE);
  while (!__atomic_load_n(&p->deadline_ns, __ATOMIC_ACQUIRE)) relax(&spins);
  uint64_t last = 0, sent = 0;
  int64_t best = INT64_MAX, rtt = INT64_MAX;
  int got = 0, have_sent = 0;
  for (uint64_t k = 0; k < 2 * (uint64_t)p->rounds; k++) {
    if ((int)(k & 1) == s) {
      while (__atomic_load_n(&p->ack.v, __ATOMIC_ACQUIRE) != k) relax(&spins);
      /* Not before a run each way: a session always yields a value, even
       * when starting it took longer than its budget (a busy machine). */
      if (k >= 2 && amber_ordo_now_ns() > __atomic_load_n(&p->deadline_ns, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&p->slot.v, STOP, __ATOMIC_RELEASE);
        break;
      }
      last = sent = amber_ordo_rdtscp();
      have_sent = 1;
      __atomic_store_n(&p->slot.v, last, __ATOMIC_RELEASE);
    } else {
      uint64_t v;
      while ((v = __atomic_load_n(&p->slot.v, __ATOMIC_ACQUIRE)) == last) relax(&spins);
      if (v == STOP) break;
      uint64_t now = amber_ordo_rdtscp();
      int64_t d = (int64_t)(now - v);
      if (d < best) best = d;
      /* The partner read its clock after seeing our value and published
       * after that: (our d) + (its d) <= this round trip, offsets cancel. */
      if (have_sent && (int64_t)(now - sent) < rtt) rtt = (int64_t)(now - sent);
      got++;
      last = v;
      __atomic_store_n(&p->ack.v, k + 1, __ATOMIC_RELEASE);
    }
  }
  p->min[1 - s] = best; /* this side received what side 1-s sent */
  p->rtt[s] = rtt;
  p->got[s] = got;
  return NULL;
}

int amber_ordo_session(int a, int b, int rounds, uint64_t budget_ns, struct amber_ordo_session *out) {
  struct pair *p = aligned_alloc(64, sizeof *p);
  if (!p) return amber_error("ORDO calibration: out of memory");
  memset(p, 0, sizeof *p);
  p->cpu[0] = a;
  p->cpu[1] = b;
  p->rounds = rounds;
  p->budget_ns = budget_ns;
  struct side sd[2] = {{p, 0}, {p, 1}};
  pthread_t th[2];
  int e = 0;
  for (int i = 0; i < 2 && !e; i++)
    if ((e = pthread_create(&th[i], NULL, run_side, &sd[i])) != 0 && i == 1) {
      /* Let the first side stop: it waits for the second to start. */
      __atomic_store_n(&p->budget_ns, 0, __ATOMIC_RELEASE);
      __atomic_store_n(&p->deadline_ns, 1, __ATOMIC_RELEASE);
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
  out->min[0] = p->min[0];
  out->min[1] = p->min[1];
  out->rtt = p->rtt[0] < p->rtt[1] ? p->rtt[0] : p->rtt[1];
  out->rounds = p->got[0] < p->got[1] ? p->got[0] : p->got[1];
  free(p);
  if (bad)
    return amber_error("ORDO calibration cannot pin a thread to CPU %d or %d (sched_setaffinity failed); set AMBER_ORDO_BOUNDARY to skip the measurement",
                       a, b);
  return 0;
}

uint64_t amber_ordo_clean_rtt_cycles(void) {
  uint64_t khz = amber_ordo_clk.tsc_khz ? amber_ordo_clk.tsc_khz : amber_ordo_cpu_tsc_khz();
  uint64_t c = AMBER_ORDO_CLEAN_RTT_NS * khz / 1000000ull;
  return c ? c : 1;
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

/* One pair: sessions until one is clean (a round trip under the limit),
 * at most AMBER_ORDO_SESSIONS and until AMBER_ORDO_HARD_NS; a pair with no
 * sample in a direction by then is an error.
 * Each direction keeps its minimum over every session: a delay can only
 * make a value larger, so the minimum is the tightest sound one. */
static int measure_pair(struct amber_ordo_calibration *c, int i, int j, uint64_t t0, int64_t m[2], int64_t *rtt) {
  m[0] = m[1] = *rtt = INT64_MAX;
  int clean = 0;
  for (int k = 0;; k++) {
    uint64_t now = amber_ordo_now_ns();
    int sampled = m[0] != INT64_MAX && m[1] != INT64_MAX;
    if (k && (clean || (sampled && (k >= AMBER_ORDO_SESSIONS || now - t0 > AMBER_ORDO_HARD_NS)))) break;
    if (k && !sampled && now - t0 > AMBER_ORDO_HARD_NS)
      return amber_error("ORDO calibration saw no run between CPUs %d and %d in %.1f s: the machine is too busy to measure; set AMBER_ORDO_BOUNDARY (e.g. to the boundary `amber ordo` prints on a quiet machine) or retry",
                         c->cpus[i], c->cpus[j], (double)(now - t0) / 1e9);
    uint64_t len = AMBER_ORDO_PAIR_NS;
    if (!k && now + len > t0 + AMBER_ORDO_TOTAL_NS && t0 + AMBER_ORDO_TOTAL_NS > now) len = t0 + AMBER_ORDO_TOTAL_NS - now;
    struct amber_ordo_session s;
    if (amber_ordo_session(c->cpus[i], c->cpus[j], AMBER_ORDO_ROUNDS, len, &s)) return -1;
    c->sessions++;
    if (s.min[0] < m[0]) m[0] = s.min[0];
    if (s.min[1] < m[1]) m[1] = s.min[1];
    if (s.rtt < *rtt) *rtt = s.rtt;
    if (s.rtt != INT64_MAX && (uint64_t)s.rtt <= c->clean_rtt) clean = 1;
    else c->unclean++;
  }
  if (!clean) c->unclean_pairs++;
  return 0;
}

int amber_ordo_calibrate(struct amber_ordo_calibration *c) {
  memset(c, 0, sizeof *c);
  c->cpu_a = c->cpu_b = -1;
  uint64_t t0 = amber_ordo_now_ns();
  c->clean_rtt = amber_ordo_clean_rtt_cycles();
  c->cpus = calloc(CPU_SETSIZE, sizeof *c->cpus);
  if (!c->cpus) return amber_error("ORDO calibration: out of memory");
  c->ncpus = amber_ordo_cpu_list(c->cpus, CPU_SETSIZE);
  int n = c->ncpus;
  c->offset = malloc((size_t)n * (size_t)n * sizeof *c->offset);
  if (!c->offset) return amber_error("ORDO calibration: out of memory");
  for (int i = 0; i < n * n; i++) c->offset[i] = AMBER_ORDO_UNMEASURED;
  for (int i = 0; i < n; i++) c->offset[i * n + i] = 0;
  c->pairs_total = n * (n - 1) / 2;
  int i, j;
  while (next_pair(n, c->planned, &i, &j)) c->planned++;
  int64_t worst = 1;
  for (int idx = 0; next_pair(n, idx, &i, &j); idx++) {
    if (amber_ordo_now_ns() - t0 > AMBER_ORDO_TOTAL_NS) break; /* time cap: keep what we have */
    int64_t m[2], rtt;
    if (measure_pair(c, i, j, t0, m, &rtt)) return -1;
    c->offset[i * n + j] = m[0];
    c->offset[j * n + i] = m[1];
    int64_t v = m[0] > m[1] ? m[0] : m[1];
    if (v > worst || c->cpu_a < 0) {
      if (v > worst) worst = v;
      c->cpu_a = c->cpus[i];
      c->cpu_b = c->cpus[j];
      c->rtt = (uint64_t)rtt;
    }
    c->pairs++;
  }
  c->boundary = (uint64_t)worst;
  c->elapsed_ns = amber_ordo_now_ns() - t0;
  return 0;
}

int amber_ordo_calibration_confirmed(const struct amber_ordo_calibration *c) {
  return c->unclean_pairs == 0 && c->pairs == c->planned;
}

void amber_ordo_calibration_free(struct amber_ordo_calibration *c) {
  free(c->cpus);
  free(c->offset);
  c->cpus = NULL;
  c->offset = NULL;
}
