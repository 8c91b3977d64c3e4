/* The check of a stored ORDO boundary at heap open (docs/ordo.md, "Checking
 * a stored boundary"): one short measurement of the pair that set it. */
#ifndef AMBER_ORDO_CHECK_H
#define AMBER_ORDO_CHECK_H

#include <stdint.h>

#define AMBER_ORDO_CHECK_ROUNDS 256        /* runs per direction of a check session */
#define AMBER_ORDO_CHECK_SESSIONS 10       /* until one is clean or the value decides */
#define AMBER_ORDO_CHECK_TOTAL_NS 250000000ull /* no new session after 250 ms */
#define AMBER_ORDO_CHECK_NS 20000000ull    /* at most 20 ms per session (quiet: about 0.1 ms) */
#define AMBER_ORDO_CONTRADICT 4            /* stored > 4 x the check's scale: stale */
/* Only a stored value above this is checked: a clean measurement gives at
 * most its round trip plus the pair's offset, well under 2 us on any
 * machine amber knows, and a value below costs a new timestamp at most
 * that.  Checking every open cost tens of ms on a busy machine (starting
 * two pinned threads waits for both CPUs' run queues). */
#define AMBER_ORDO_CHECK_ABOVE_NS 2000ull

struct amber_ordo_check {
  int done;       /* the pair was measured (both CPUs usable, a run each way) */
  int clean;      /* a session had a round trip under AMBER_ORDO_CLEAN_RTT_NS */
  uint64_t value; /* the larger direction's minimum: an upper bound of the pair's offset */
  uint64_t rtt;   /* shortest round trip, cycles */
  int contradicts;
};

/* Measures CPUs a and b briefly and decides whether `stored` (a boundary
 * they set) is contradicted: stored > AMBER_ORDO_CONTRADICT x value, or x
 * max(value, rtt) when the check was clean.  The check's value is itself a
 * sound bound, so a stored value far above it can only have been inflated
 * by a disturbed measurement (or the clocks were resynchronised since).
 * Returns 0 (done 0 when a or b is not usable), -1 after an amber: error:. */
int amber_ordo_check(uint64_t stored, int a, int b, struct amber_ordo_check *out);
/* Whether a stored value is checked at open (above AMBER_ORDO_CHECK_ABOVE_NS). */
int amber_ordo_check_wanted(uint64_t stored);
/* The rule alone (for tests and `amber ordo`). */
int amber_ordo_contradicts(uint64_t stored, uint64_t value, uint64_t rtt, int clean);

#endif
