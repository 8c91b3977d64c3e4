// AMBER_STATS=1 prints statistics at exit; amber_stats_print prints them on
// demand.  Both mention the commits.
// RUN: %amber_cc -O2 %s -o %t
// RUN: %run %t 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: env AMBER_STATS=1 %rerun %t 2>&1 | FileCheck %s --check-prefix=EXIT
#include <amber.h>
#include <stdio.h>

int main(void) {
  long *r = amber_root(sizeof(long));
  for (int i = 0; i < 100; i++)
    AMBER_ATOMIC { *r += 1; }
  printf("value %ld\n", *r);
  fflush(stdout);
  amber_stats_print();
  fflush(stderr);
  printf("end of main\n");
  fflush(stdout);
  return 0;
}
// PRINT: value 100
// PRINT: {{[Cc]ommit}}
// PRINT: end of main
// EXIT: value 200
// EXIT: {{[Cc]ommit}}
// EXIT: end of main
// EXIT: {{[Cc]ommit}}
