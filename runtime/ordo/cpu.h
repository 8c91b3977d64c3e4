/* What the ORDO clock needs to know about the CPUs: whether the TSC is
 * invariant, its frequency, and a fingerprint of the topology that decides
 * whether a stored boundary still applies. */
#ifndef AMBER_ORDO_CPU_H
#define AMBER_ORDO_CPU_H

#include <stdint.h>

/* The CPU topology an ORDO boundary was measured on.  On media: part of
 * the heap's ORDO record (heap/format.h, docs/format.md); a change here
 * changes AMBER_FORMAT_VERSION. */
struct amber_ordo_fingerprint {
  char model[48];   /* CPUID brand string, NUL-padded */
  uint32_t ncpus;   /* online CPUs */
  uint32_t pad;     /* 0 */
  uint64_t tsc_khz; /* measured TSC frequency (0 when never measured) */
};

/* CPUID 0x80000007 EDX bit 8. */
int amber_ordo_cpu_invariant_tsc(void);
/* Measures the TSC against CLOCK_MONOTONIC_RAW for about 2 ms. */
uint64_t amber_ordo_cpu_tsc_khz(void);
/* Online CPUs usable by this process, in ascending order; returns the count
 * (at most max). */
int amber_ordo_cpu_list(int *cpus, int max);
/* Fills *f for this machine (tsc_khz from a measurement). */
void amber_ordo_cpu_fingerprint(struct amber_ordo_fingerprint *f, uint64_t tsc_khz);
/* Same model and CPU count, frequency within 2 % (the measurement jitters). */
int amber_ordo_fingerprint_match(const struct amber_ordo_fingerprint *a, const struct amber_ordo_fingerprint *b);

#endif
