// Locals of the enclosing function used inside a region (live-ins) and
// values computed inside and used after it (live-outs); `continue` ends a
// region early and normally.
// RUN: %amber_cc -O2 %s -o %t
// RUN: %run %t 7 | FileCheck %s --check-prefix=FIRST
// RUN: %rerun %t 7 | FileCheck %s --check-prefix=SECOND
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>

struct root { long total; double avg; long skipped; long hist[8]; };

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  long k = argc > 1 ? atol(argv[1]) : 1;   /* live-in scalar */
  long local[8];                           /* live-in array, written inside */
  for (int i = 0; i < 8; i++)
    local[i] = i * k;

  long before = -1, after = -1, n = 0;     /* live-outs */
  double mean = 0;
  char *msg = "unset";
  AMBER_ATOMIC {
    before = r->total;
    for (int i = 0; i < 8; i++) {
      r->hist[i] += local[i];
      r->total += local[i];
      local[i] = -local[i];
      n++;
    }
    after = r->total;
    mean = (double)after / 8;
    r->avg = mean;
    msg = after > 300 ? "big" : "small";
  }
  printf("before %ld after %ld n %ld mean %.3f msg %s local7 %ld\n", before, after, n,
         mean, msg, local[7]);

  for (int pass = 0; pass < 4; pass++) {
    AMBER_ATOMIC {
      if (pass % 2)
        continue;          /* ends this region; nothing below runs */
      r->skipped += 10;
    }
  }
  printf("skipped %ld avg %.3f hist7 %ld\n", r->skipped, r->avg, r->hist[7]);
  return 0;
}
// FIRST: before 0 after 196 n 8 mean 24.500 msg small local7 -49
// FIRST-NEXT: skipped 20 avg 24.500 hist7 49
// SECOND: before 196 after 392 n 8 mean 49.000 msg big local7 -49
// SECOND-NEXT: skipped 40 avg 49.000 hist7 98
