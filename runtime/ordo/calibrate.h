/* Measuring the ORDO boundary (docs/ordo.md): pairwise one-way delays
 * between CPUs, minimum over many runs, maximum of both directions, maximum
 * over the pairs. */
#ifndef AMBER_ORDO_CALIBRATE_H
#define AMBER_ORDO_CALIBRATE_H

#include <stdint.h>

#define AMBER_ORDO_ALL_PAIRS 256   /* up to this many pairs, measure them all */
#define AMBER_ORDO_ROUNDS 2000     /* runs per direction of a pair */
#define AMBER_ORDO_PAIR_NS 20000000ull   /* at most 20 ms per pair */
#define AMBER_ORDO_TOTAL_NS 800000000ull /* at most 0.8 s in all */
#define AMBER_ORDO_UNMEASURED INT64_MIN

struct amber_ordo_calibration {
  int ncpus;          /* CPUs this process may run on */
  int *cpus;          /* their ids */
  int64_t *offset;    /* [i * ncpus + j]: min over runs of (clock of cpus[j]
                         on seeing the value) - (value published by cpus[i]);
                         AMBER_ORDO_UNMEASURED when the pair was not sampled */
  uint64_t boundary;  /* cycles, >= 1 */
  int pairs;          /* unordered pairs measured */
  int pairs_total;    /* ncpus * (ncpus - 1) / 2 */
  uint64_t elapsed_ns;
};

/* Runs the measurement; returns 0, or -1 after an amber: error:.  Free the
 * result with amber_ordo_calibration_free. */
int amber_ordo_calibrate(struct amber_ordo_calibration *c);
void amber_ordo_calibration_free(struct amber_ordo_calibration *c);

#endif
