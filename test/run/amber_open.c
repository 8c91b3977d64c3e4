// amber_open(path) names the heap in code and opens it at once (recovery
// included); AMBER_HEAP, when set, takes precedence (AMBER_VERBOSE says
// so); amber_open(NULL) opens the default heap now; naming a second heap
// once one is open is an error, the same heap again (another spelling) is
// not; an empty name is an error.
// RUN: %amber_cc -O1 %s -o %t
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: env -u AMBER_HEAP %t %t.d/a.heap | FileCheck %s --check-prefix=FIRST
// RUN: env -u AMBER_HEAP %t %t.d/a.heap | FileCheck %s --check-prefix=SECOND
// RUN: test -e %t.d/a.heap
// RUN: env AMBER_HEAP=%t.d/env.heap AMBER_VERBOSE=1 %t %t.d/a.heap 2>&1 | FileCheck %s --check-prefix=ENV
// RUN: test -e %t.d/env.heap
// RUN: env AMBER_HEAP=%t.d/null.heap %t NULL | FileCheck %s --check-prefix=FIRST
// RUN: env -u AMBER_HEAP %t %t.d/a.heap same %t.d/./a.heap | FileCheck %s --check-prefix=SAME
// RUN: not env -u AMBER_HEAP %t %t.d/a.heap other %t.d/b.heap 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: not env -u AMBER_HEAP %t "" 2>&1 | FileCheck %s --check-prefix=EMPTY
// FIRST: count 1
// SECOND: count 2
// ENV: amber: amber_open("{{.*}}a.heap"): AMBER_HEAP={{.*}}env.heap takes precedence
// ENV: count 1
// SAME: count 4
// OTHER: amber: error: amber_open("{{.*}}b.heap"): this process already uses heap {{.*}}a.heap
// EMPTY: amber: error: amber_open(""): name a heap file, or pass NULL for the default heap
#include <amber.h>
#include <stdio.h>
#include <string.h>

struct root { long count; };

int main(int argc, char **argv) {
  amber_open(strcmp(argv[1], "NULL") ? argv[1] : NULL);
  struct root *r = amber_root(sizeof *r);
  AMBER_ATOMIC { r->count++; }
  if (argc > 3) {
    amber_open(argv[3]); /* "same": another spelling of the open heap; "other": a second heap */
    AMBER_ATOMIC { r->count++; }
  }
  printf("count %ld\n", r->count);
  return 0;
}
