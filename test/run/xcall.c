// Direct calls inside regions to functions of other modules (ABI 6, issue
// 19): a call to a function another amber-compiled module defines calls that
// module's transactional clone by name (__amber_tx_<name>, declared
// extern_weak, resolved by the linker); a function of a library built
// without amber has none (the weak symbol is null) and the call goes through
// __amber_clone_of, which makes the region irrevocable as before.
//  - "clone": regions call a second translation unit (directly and through
//    an alias) and an amber-compiled shared library; each callee adds to the
//    caller's heap object and to a global of its own; with amber_cancel both
//    stores are undone (the clones ran, instrumented), and no transaction is
//    irrevocable (mvcc's irrevocable_txns is 0);
//  - "ops": with AMBER_OLOG=ops, regions whose callees in the other TU and
//    the amber library touch only the heap keep their operational records
//    (a direct call to a clone by name is captured; __amber_clone_of gave
//    them up);
//  - "plain": a region calling a plain-clang library's function commits, its
//    stores (to ordinary memory) in place, irrevocably (irrevocable_txns counts every one).
// RUN: %amber_cc -O2 -fPIC -shared %S/Inputs/xcall_lib.c -o %t.amber.so
// RUN: %clang -O2 -fPIC -shared -DPLAIN %S/Inputs/xcall_lib.c -o %t.plain.so
// RUN: %amber_cc -O2 %s %S/Inputs/xcall_tu2.c %t.amber.so %t.plain.so -o %t.O2
// RUN: %amber_cc -O0 %s %S/Inputs/xcall_tu2.c %t.amber.so %t.plain.so -o %t.O0
// RUN: env AMBER_ENGINE=mvcc AMBER_STATS_FILE=%t.c2.json %run %t.O2 clone | FileCheck %s
// RUN: FileCheck %s --check-prefix=NONE < %t.c2.json
// RUN: env AMBER_ENGINE=mvcc AMBER_STATS_FILE=%t.c0.json %run %t.O0 clone | FileCheck %s
// RUN: FileCheck %s --check-prefix=NONE < %t.c0.json
// RUN: env AMBER_ENGINE=romulus %run %t.O2 clone | FileCheck %s
// RUN: env AMBER_ENGINE=romulus %run %t.O0 clone | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc AMBER_OLOG=ops AMBER_STATS_FILE=%t.o2.json %run %t.O2 ops | FileCheck %s --check-prefix=OPS
// RUN: FileCheck %s --check-prefix=OPREC < %t.o2.json
// RUN: env AMBER_ENGINE=mvcc AMBER_OLOG=ops AMBER_STATS_FILE=%t.o0.json %run %t.O0 ops | FileCheck %s --check-prefix=OPS
// RUN: FileCheck %s --check-prefix=OPREC < %t.o0.json
// RUN: env AMBER_ENGINE=mvcc AMBER_STATS_FILE=%t.p2.json %run %t.O2 plain | FileCheck %s --check-prefix=PLAIN
// RUN: FileCheck %s --check-prefix=ALL < %t.p2.json
// RUN: env AMBER_ENGINE=romulus %run %t.O0 plain | FileCheck %s --check-prefix=PLAIN
// The same with the runtime linked into the program (amber-cc
// -static-libamber): the amber library's libamber.so dependency defers to it
// (docs/guide.md 7.1), and its clones are called the same way.
// RUN: %amber_cc -static-libamber -O2 %s %S/Inputs/xcall_tu2.c %t.amber.so %t.plain.so -o %t.S2
// RUN: env AMBER_ENGINE=mvcc AMBER_STATS_FILE=%t.s2.json %run %t.S2 clone | FileCheck %s
// RUN: FileCheck %s --check-prefix=NONE < %t.s2.json
// RUN: rm -f %t.s.heap
// RUN: env AMBER_ENGINE=romulus AMBER_HEAP=%t.s.heap AMBER_HEAP_SIZE=64M %t.S2 clone | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc AMBER_STATS_FILE=%t.sp.json %run %t.S2 plain | FileCheck %s --check-prefix=PLAIN
// RUN: FileCheck %s --check-prefix=ALL < %t.sp.json
// The clone symbols are exported by name (an alias's too), statics' are not:
// RUN: nm -D %t.amber.so | FileCheck %s --check-prefix=SYMS --implicit-check-not=__amber_tx_twice
// RUN: nm %t.O2 | FileCheck %s --check-prefix=EXE
// CHECK: committed: heap 300 tu2 200 lib 100 twice 6 thrice 9
// CHECK-NEXT: cancelled: heap 300 tu2 200 lib 100
// NONE: "irrevocable_txns": 0
// OPS: ops: heap 20
// OPREC: "olog_op_records": 10,
// PLAIN: plain: local 50 plain 50
// ALL: "irrevocable_txns": 50
// SYMS: T __amber_tx_amber_bump
// SYMS: T __amber_tx_amber_thrice
// EXE: T __amber_tx_tu2_alias
// EXE: T __amber_tx_tu2_bump
#include <amber.h>
#include <stdio.h>
#include <string.h>

extern long tu2_hits, amber_hits, plain_hits;
long tu2_bump(long *heap, long by);
long tu2_alias(long *heap, long by);
long tu2_twice(long v);
long amber_bump(long *heap, long by);
long amber_thrice(long v);
long plain_bump(long *heap, long by);
void tu2_add(long *heap, long by);
void amber_add(long *heap, long by);

int main(int argc, char **argv) {
  long *heap = amber_root(sizeof *heap);
  if (argc > 1 && !strcmp(argv[1], "plain")) {
    long local = 0; /* the library cannot write the heap (strict mode) */
    for (int i = 0; i < 50; i++) AMBER_ATOMIC { plain_bump(&local, 1); }
    printf("plain: local %ld plain %ld\n", local, plain_hits);
    return 0;
  }
  if (argc > 1 && !strcmp(argv[1], "ops")) {
    for (int i = 0; i < 10; i++) AMBER_ATOMIC {
        tu2_add(heap, 1);
        amber_add(heap, 1);
      }
    printf("ops: heap %ld\n", *heap);
    return 0;
  }
  long t = 0, h = 0;
  for (int i = 0; i < 100; i++) AMBER_ATOMIC {
      tu2_bump(heap, 1);
      tu2_alias(heap, 1);
      amber_bump(heap, 1);
      t = tu2_twice(3);
      h = amber_thrice(3);
    }
  printf("committed: heap %ld tu2 %ld lib %ld twice %ld thrice %ld\n", *heap, tu2_hits, amber_hits, t, h);
  AMBER_ATOMIC {
    tu2_bump(heap, 1000);
    tu2_alias(heap, 1000);
    amber_bump(heap, 1000);
    amber_cancel();
  }
  printf("cancelled: heap %ld tu2 %ld lib %ld\n", *heap, tu2_hits, amber_hits);
  return 0;
}
