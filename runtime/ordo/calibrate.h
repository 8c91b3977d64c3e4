/* Measuring the ORDO boundary (docs/ordo.md): pairwise one-way delays
 * between CPUs, minimum over many runs, maximum of both directions, maximum
 * over the pairs; a pair is measured again until one of its round trips ran
 * undisturbed (a clean session). */
#ifndef AMBER_ORDO_CALIBRATE_H
#define AMBER_ORDO_CALIBRATE_H

#include <stdint.h>

#define AMBER_ORDO_ALL_PAIRS 256   /* up to this many pairs, measure them all */
#define AMBER_ORDO_ROUNDS 2000     /* runs per direction of a session */
#define AMBER_ORDO_PAIR_NS 200000000ull  /* at most 200 ms per session (a quiet one takes about 1 ms) */
#define AMBER_ORDO_TOTAL_NS 800000000ull /* no new pair after 0.8 s (keep what we have) */
#define AMBER_ORDO_HARD_NS 5000000000ull /* a pair with no clean session yet: at most 5 s in all */
#define AMBER_ORDO_SESSIONS 40     /* most sessions per pair */
/* A round trip (publish, the partner's reply, both on one clock) longer
 * than this was interrupted: a cache line crosses any machine's
 * interconnect and back in well under 2 us; a preemption, an interrupt or a
 * descheduled vCPU takes microseconds to milliseconds. */
#define AMBER_ORDO_CLEAN_RTT_NS 10000ull
#define AMBER_ORDO_UNMEASURED INT64_MIN

/* One session of one pair (a, b). */
struct amber_ordo_session {
  int64_t min[2]; /* min[0]: b's clock on seeing a's value - a's value; min[1]: the reverse; INT64_MAX when no run */
  int64_t rtt;    /* shortest round trip, cycles, on one clock; INT64_MAX when none */
  int rounds;     /* runs in the direction that had fewer */
};

struct amber_ordo_calibration {
  int ncpus;          /* CPUs this process may run on */
  int *cpus;          /* their ids */
  int64_t *offset;    /* [i * ncpus + j]: min over runs of (clock of cpus[j]
                         on seeing the value) - (value published by cpus[i]);
                         AMBER_ORDO_UNMEASURED when the pair was not sampled */
  uint64_t boundary;  /* cycles, >= 1 */
  int pairs;          /* unordered pairs measured */
  int pairs_total;    /* ncpus * (ncpus - 1) / 2 */
  int planned;        /* pairs the plan holds (pairs_total, or 3n sampled); pairs < planned: the time cap cut it short */
  int sessions;       /* sessions run, over all pairs */
  int unclean;        /* of them, sessions with no round trip under AMBER_ORDO_CLEAN_RTT_NS */
  int unclean_pairs;  /* measured pairs none of whose sessions was clean */
  int cpu_a, cpu_b;   /* the pair that set the boundary (-1 when none) */
  uint64_t rtt;       /* that pair's shortest round trip, cycles */
  uint64_t clean_rtt; /* AMBER_ORDO_CLEAN_RTT_NS in cycles */
  uint64_t elapsed_ns;
};

/* Runs the measurement; returns 0, or -1 after an amber: error:.  Free the
 * result with amber_ordo_calibration_free.  Every value is an upper bound
 * of its pair's clock offset (a delay only adds); the result is confirmed
 * when every measured pair had a clean session and every planned pair was
 * measured (amber_ordo_calibration_confirmed). */
int amber_ordo_calibrate(struct amber_ordo_calibration *c);
int amber_ordo_calibration_confirmed(const struct amber_ordo_calibration *c);
void amber_ordo_calibration_free(struct amber_ordo_calibration *c);

/* One session of CPUs a and b: `rounds` runs per direction, stopping
 * budget_ns after both threads run.  Returns 0, or -1 after an amber:
 * error:. */
int amber_ordo_session(int a, int b, int rounds, uint64_t budget_ns, struct amber_ordo_session *out);
/* AMBER_ORDO_CLEAN_RTT_NS in TSC cycles. */
uint64_t amber_ordo_clean_rtt_cycles(void);
uint64_t amber_ordo_now_ns(void);

#endif
