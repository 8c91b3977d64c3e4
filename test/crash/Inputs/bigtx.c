/* Crash-test workload: transactions larger than the logs (docs/engines/
 * mvcc.md, "Large transactions").  Each operation is one AMBER_ATOMIC region
 * that writes one word in each of NBLK blocks of a persistent array and
 * allocates a node; run with a small CLog (AMBER_MVCC_CLOG=64K: 682
 * entries), it outgrows the CLog, restarts alone and spills its undo entries
 * past the ring into two segments of free heap pages.  After a crash the
 * array must hold exactly operation P's values for some P (no part of a
 * transaction), and the node chain must hold P nodes.
 *
 *   bigtx run N      operations up to N, "ack I" after each commit
 *   bigtx check      "progress: P" and "check: ok", or "check: FAILED <why>"
 */
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBLK 1600
struct node { long op; struct node *next; };
struct root {
  long initialised;
  long ops;
  long *arr; /* NBLK blocks of 64 bytes: word 8 * j */
  struct node *nodes;
};

static long value(long op, long j) { return op ? op * 100000 + j : 0; }

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  if (!r->initialised) {
    AMBER_ATOMIC {
      r->arr = calloc(NBLK * 8, sizeof(long));
      r->initialised = 1;
    }
  }
  if (argc > 2 && !strcmp(argv[1], "run")) {
    long n = atol(argv[2]);
    for (long i = r->ops + 1; i <= n; i++) {
      AMBER_ATOMIC {
        for (long j = 0; j < NBLK; j++) r->arr[8 * j] = value(i, j);
        struct node *x = malloc(sizeof *x);
        x->op = i;
        x->next = r->nodes;
        r->nodes = x;
        r->ops = i;
      }
      printf("ack %ld\n", i);
      fflush(stdout);
    }
    return 0;
  }
  long p = r->ops, k = p;
  for (long j = 0; j < NBLK; j++)
    if (r->arr[8 * j] != value(p, j)) {
      printf("progress: %ld\ncheck: FAILED block %ld holds %ld, operation %ld wrote %ld\n", p, j, r->arr[8 * j], p,
             value(p, j));
      return 1;
    }
  for (struct node *x = r->nodes; x; x = x->next, k--)
    if (x->op != k) {
      printf("progress: %ld\ncheck: FAILED node chain holds operation %ld where %ld was expected\n", p, x->op, k);
      return 1;
    }
  if (k) {
    printf("progress: %ld\ncheck: FAILED %ld nodes missing\n", p, k);
    return 1;
  }
  printf("progress: %ld\ncheck: ok\n", p);
  return 0;
}
