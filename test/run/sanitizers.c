// A program built with amber-cc -fsanitize=address, and with
// -fsanitize=address,undefined, runs on a fresh heap at the default base (no
// AMBER_BASE: the lit configuration unsets every AMBER_* variable).  Before
// the default moved to 0x550000000000 (docs/guide.md, Heap sizing), the open
// failed: AddressSanitizer's allocator lives at 0x600000000000.
//
// LeakSanitizer stays on: a leak, and any ASan or UBSan report, fails the
// test (the mvcc engine registers its mmap'd thread states as LeakSanitizer
// root regions, so the buffers they point to are not reported).
// REQUIRES: asan, asan-ubsan
// RUN: %amber_cc -O1 -g -fsanitize=address %s -o %t
// RUN: %run %t | FileCheck %s --check-prefix=FIRST
// RUN: %rerun %t | FileCheck %s --check-prefix=SECOND
// RUN: %amber_cc -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all %s -o %t
// RUN: %run %t | FileCheck %s --check-prefix=FIRST
// RUN: %rerun %t | FileCheck %s --check-prefix=SECOND
// And on the romulus engine.
// RUN: env AMBER_ENGINE=romulus %run %t | FileCheck %s --check-prefix=FIRST
// RUN: %rerun %t | FileCheck %s --check-prefix=SECOND
// A heap string handed to printf outside a region: ASan's printf and puts
// interceptors come before libamber's and read the string themselves (to
// check it), a read of the heap by code amber did not instrument, which
// strict mode stops (docs/guide.md, section 9); AMBER_STRICT=0 lets them
// read, and libamber's interceptor then formats it.
// RUN: env AMBER_STRICT=0 %rerun %t name | FileCheck %s --check-prefix=NAME
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
  long value;
  struct node *next;
};
struct root {
  long runs;
  struct node *list;
  char name[32];
};

int main(int argc, char **argv) {
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
  printf("asan\n");
#endif
#endif
  struct root *r = amber_root(sizeof *r);
  char *scratch = malloc(64); /* volatile: ASan's heap, freed below */
  snprintf(scratch, 64, "run %ld", r->runs + 1);
  AMBER_ATOMIC {
    r->runs++;
    for (long i = 1; i <= 10; i++) { /* persistent nodes */
      struct node *n = malloc(sizeof *n);
      n->value = i * r->runs;
      n->next = r->list;
      r->list = n;
    }
    strcpy(r->name, scratch);
  }
  free(scratch);
  long nodes = 0, sum = 0;
  for (struct node *n = r->list; n; n = n->next) {
    nodes++;
    sum += n->value;
  }
  printf("runs %ld nodes %ld sum %ld\n", r->runs, nodes, sum);
  if (argc > 1) printf("name %s\n", r->name);
  return 0;
}
// FIRST: asan
// FIRST-NEXT: runs 1 nodes 10 sum 55
// SECOND: asan
// SECOND-NEXT: runs 2 nodes 20 sum 165
// NAME: runs 3 nodes 30 sum 330
// NAME-NEXT: name run 3
