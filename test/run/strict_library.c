// Strict mode (the default): an uninstrumented shared library that reads or
// writes the heap faults, and the runtime names the access kind, the
// address, the heap offset and the library function in a backtrace, then
// exits with status 2.  AMBER_STRICT=0 lets it read (the value a
// committed region left); its writes still fault.  libc calls it makes on
// heap data (strlen) and the program's printf of heap strings work in both
// modes (the interceptors read the heap for libc).
// RUN: %clang -O1 -shared -fPIC %S/Inputs/peek_lib.c -o %t.peek.so
// RUN: %amber_cc -O1 %s %t.peek.so -o %t
// RUN: not %run %t read > %t.out 2>&1; FileCheck %s --check-prefixes=ADDR,READ < %t.out
// RUN: %rerun %t libc | FileCheck %s --check-prefix=LIBC
// RUN: env AMBER_STRICT=0 %rerun %t read | FileCheck %s --check-prefix=LAX
// RUN: env AMBER_STRICT=0 %rerun %t libc | FileCheck %s --check-prefix=LIBC
// RUN: not %rerun %t write > %t.out 2>&1; FileCheck %s --check-prefixes=ADDR,WRITE < %t.out
// RUN: env AMBER_STRICT=0 not %rerun %t write > %t.out 2>&1; FileCheck %s --check-prefixes=ADDR,WRITE < %t.out
// RUN: %rerun %t libc | FileCheck %s --check-prefix=LIBC
// RUN: %amber check %t.heap
// A SIGSEGV handler of the program's does not hide the report (amber's
// handler stays in front of it for window faults).
// RUN: not %rerun %t handler > %t.out 2>&1; FileCheck %s --check-prefixes=ADDR,READ < %t.out
// mvcc keeps a commit in DRAM until it is written back: with eager write-back
// the data area is current when the library reads it.
// RUN: env AMBER_ENGINE=mvcc not %run %t read 2>&1 | FileCheck %s --check-prefixes=ADDR,READ
// RUN: env AMBER_ENGINE=mvcc AMBER_STRICT=0 AMBER_MVCC_EAGER=1 %run %t read | FileCheck %s --check-prefix=LAX
// RUN: env AMBER_ENGINE=mvcc %rerun %t libc | FileCheck %s --check-prefix=LIBC
// ADDR: x at [[ADDR:0x[0-9a-f]+]]
// READ: amber: error: persistent memory accessed outside the runtime: read of [[ADDR]] (heap {{.*}}.heap offset 0x{{[0-9a-f]+}})
// READ-NEXT: amber: note: {{.*}}compile it with amber-cc{{.*}}AMBER_STRICT=0
// READ-NEXT: amber: backtrace
// READ-NEXT: #0 0x{{[0-9a-f]+}} peek_value+0x{{[0-9a-f]+}} ({{.*}}peek.so+0x{{[0-9a-f]+}})
// READ: main
// READ-NOT: library read
// READ-NOT: own handler ran
// LAX: library read 42
// WRITE: amber: error: persistent memory accessed outside the runtime: write of [[ADDR]] (heap {{.*}}.heap offset 0x{{[0-9a-f]+}})
// WRITE-NEXT: amber: note: {{.*}}compile it with amber-cc
// WRITE-NEXT: amber: backtrace
// WRITE-NEXT: #0 0x{{[0-9a-f]+}} poke_value+0x{{[0-9a-f]+}} ({{.*}}peek.so+0x{{[0-9a-f]+}})
// WRITE-NOT: library wrote
// LIBC: x=42 name=amber length=5 library length=5
#include <amber.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

long peek_value(const long *p);
void poke_value(long *p, long v);
size_t string_length(const char *s);

struct root {
  long x;
  char name[16];
};

static void own(int sig) {
  (void)sig;
  static const char msg[] = "own handler ran\n";
  ssize_t w = write(1, msg, sizeof msg - 1);
  (void)w;
  _exit(3);
}

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  AMBER_ATOMIC {
    r->x = 42;
    strcpy(r->name, "amber");
  }
  printf("x at %p\n", (void *)&r->x);
  fflush(stdout);
  if (!strcmp(argv[1], "handler")) {
    signal(SIGSEGV, own);
    printf("library read %ld\n", peek_value(&r->x));
  }
  if (!strcmp(argv[1], "read")) printf("library read %ld\n", peek_value(&r->x));
  if (!strcmp(argv[1], "write")) {
    poke_value(&r->x, 7);
    printf("library wrote\n");
  }
  if (!strcmp(argv[1], "libc"))
    printf("x=%ld name=%s length=%zu library length=%zu\n", r->x, r->name, strlen(r->name), string_length(r->name));
  return 0;
}
