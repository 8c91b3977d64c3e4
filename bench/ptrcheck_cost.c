/* ptrcheck_cost: what the pointer check (AMBER_CHECK_POINTERS, docs/guide.md
 * "Pointers to volatile memory") costs per 8-byte store into the heap
 * inside a region, by the kind of value stored:
 *
 *   int        small integers: the check's first compare drops them
 *   pptr       persistent pointers (into the heap): dropped by the window test
 *   hash32     32-bit hashes (4 Mi and up): they look like pointers out
 *              of the heap, so they are recorded and looked up at the
 *              commit, below every mapping: no system call
 *   unmapped   words that point between mappings but at nothing (e.g.
 *              0x600000000000 + i, a large integer below 2^47): recorded,
 *              and looked up at the commit with a mincore(2) call each:
 *              the check's worst case
 *
 * Each region stores --stores words (one thread, its own slice of a root
 * array: nothing conflicts); the empty region's time is subtracted and the
 * rest divided by the stores.  The runtime reads AMBER_CHECK_POINTERS once,
 * so one process measures one mode: bench/ptrcheck-run runs the modes
 * interleaved and prints medians.  Prints one JSON line per kind;
 * --verify checks the last region's words.
 *
 *   ptrcheck_cost [--stores K] [--regions R] [--verify]
 * Build with amber-cc (bench/README.md, "ptrcheck_cost"). */
#include <amber.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WORDS 1024

static long stores = 64, regions = 100000;
static int verify;

struct root {
  uint64_t w[WORDS];
};

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

enum kind { K_EMPTY, K_INT, K_PPTR, K_HASH, K_CAND, K_N };
static const char *kind_name[K_N] = {"empty-region", "int", "pptr", "hash32", "unmapped"};

static uint64_t value(enum kind k, struct root *r, long i) {
  switch (k) {
  case K_INT: return (uint64_t)i;
  case K_PPTR: return (uint64_t)(uintptr_t)&r->w[(i * 7) % WORDS];
  case K_HASH: return 0x80000000u + (uint64_t)i * 0x9e3779u;
  case K_CAND: return 0x600000000000ull + (uint64_t)i * 64; /* 96 TiB: mapped by nothing */
  default: return 0;
  }
}

/* noinline: the stores go through a pointer the pass cannot see through. */
__attribute__((noinline)) static void fill(struct root *r, enum kind k, long n) {
  for (long i = 0; i < n; i++) r->w[i % WORDS] = value(k, r, i);
}

static uint64_t run(struct root *r, enum kind k) {
  uint64_t t0 = now_ns();
  for (long j = 0; j < regions; j++) {
    AMBER_ATOMIC {
      if (k != K_EMPTY) fill(r, k, stores);
    }
  }
  return now_ns() - t0;
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--stores") && i + 1 < argc) stores = atol(argv[++i]);
    else if (!strcmp(argv[i], "--regions") && i + 1 < argc) regions = atol(argv[++i]);
    else if (!strcmp(argv[i], "--verify")) verify = 1;
    else {
      fprintf(stderr, "usage: ptrcheck_cost [--stores K] [--regions R] [--verify]\n");
      return 2;
    }
  }
  if (stores < 1 || stores > WORDS || regions < 1) {
    fprintf(stderr, "ptrcheck_cost: --stores 1..%d, --regions >= 1\n", WORDS);
    return 2;
  }
  const char *mode = getenv("AMBER_CHECK_POINTERS");
  if (!mode || !mode[0]) mode = "off";
  struct root *r = amber_root(sizeof *r);
  run(r, K_INT); /* warm-up: the heap's pages, the thread's logs */
  uint64_t ns[K_N];
  for (int k = 0; k < K_N; k++) ns[k] = run(r, (enum kind)k);
  int bad = 0;
  if (verify) {
    for (long i = 0; i < stores; i++)
      if (r->w[i % WORDS] != value(K_CAND, r, i) && i + WORDS >= stores) bad++;
  }
  double empty = (double)ns[K_EMPTY] / regions;
  for (int k = 0; k < K_N; k++) {
    double per_region = (double)ns[k] / regions;
    printf("{\"bench\": \"ptrcheck_cost\", \"check_pointers\": \"%s\", \"kind\": \"%s\", \"stores\": %ld, "
           "\"regions\": %ld, \"ns_per_region\": %.1f, \"ns_per_store\": %.2f%s}\n",
           mode, kind_name[k], k == K_EMPTY ? 0 : stores, regions, per_region,
           k == K_EMPTY ? 0.0 : (per_region - empty) / stores, verify ? (bad ? ", \"verify\": \"FAILED\"" : ", \"verify\": \"ok\"") : "");
  }
  return bad ? 1 : 0;
}
