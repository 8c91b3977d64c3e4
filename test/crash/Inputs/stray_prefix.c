/* Crash-test workload for stray batches (tools/stray-kill): persistent
 * stores outside any region, in program order, with amber_sync()
 * acknowledgements.  The array is a ring: a[i % SIZE] = i + 1.
 *
 *   stray_prefix run START N [ACK]
 *                              for i = START .. START + N - 1, outside
 *                              regions: a[i % SIZE] = i + 1, then
 *                              count = i + 1; after every ACK-th i (default
 *                              10000): amber_sync(), then "ack I" (every
 *                              store up to count = I + 1 is durable); "done"
 *                              at the end
 *   stray_prefix groups G ACK  run 0 G*ACK ACK: G acks (tools/crashtest's
 *                              --ops counts acks)
 *   stray_prefix check [ACK]   the prefix property: there is a P (count or
 *                              count + 1: count is stored after a[], before
 *                              the next a[]) such that every slot holds
 *                              exactly what the stores i < P left there
 *                              (the largest such i + 1, or 0): no store of
 *                              the prefix lost, none after it kept.  Prints
 *                              "prefix: P", "progress: P / ACK" (whole
 *                              groups of ACK, tools/crashtest's measure)
 *                              and "check: ok", or the first bad slot and
 *                              exits 1
 */
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SIZE
#define SIZE 65536L /* entries: 512 KiB (crash-simulator walks build it smaller: -DSIZE=256) */
#endif

struct root {
  long count;
  char pad[56]; /* count on its own cache line */
  long a[SIZE];
};

/* What slot k holds after the stores i < p. */
static long expect(long k, long p) {
  if (p <= k) return 0;
  long i = k + (p - 1 - k) / SIZE * SIZE; /* the largest i < p with i % SIZE == k */
  return i + 1;
}

static long first_bad(const struct root *r, long p) {
  for (long k = 0; k < SIZE; k++)
    if (r->a[k] != expect(k, p)) return k;
  return -1;
}

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  int groups = argc > 3 && !strcmp(argv[1], "groups");
  if (argc > 3 && (!strcmp(argv[1], "run") || groups)) {
    long start = atol(argv[2]), n = atol(argv[3]), ack = argc > 4 ? atol(argv[4]) : 10000;
    if (ack < 1) ack = 1;
    if (groups) n = atol(argv[2]) * atol(argv[3]), start = 0, ack = atol(argv[3]);
    for (long i = start; i < start + n; i++) {
      r->a[i % SIZE] = i + 1;
      r->count = i + 1;
      if ((i + 1) % ack == 0) {
        amber_sync();
        printf("ack %ld\n", i);
        fflush(stdout);
      }
    }
    amber_sync();
    printf("done\n");
    return 0;
  }
  if (argc > 1 && !strcmp(argv[1], "check")) {
    long ack = argc > 2 ? atol(argv[2]) : 10000;
    if (ack < 1) ack = 1;
    long c = r->count;
    long bad = first_bad(r, c);
    long p = c;
    if (bad >= 0 && first_bad(r, c + 1) < 0) p = c + 1, bad = -1;
    if (bad >= 0) {
      printf("count %ld, but slot %ld holds %ld (expected %ld): not a prefix\n", c, bad, r->a[bad], expect(bad, c));
      return 1;
    }
    printf("prefix: %ld\nprogress: %ld\ncheck: ok\n", p, p / ack);
    return 0;
  }
  fprintf(stderr, "usage: stray_prefix run START N [ACK] | groups G ACK | check [ACK]\n");
  return 2;
}
