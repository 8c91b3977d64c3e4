// The op id is stable across compilations and optimisation levels and is
// FNV-1a 64 of "<file>:<function>:<ordinal>".
// RUN: %clang -O0 -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm %s -o %t1.ll
// RUN: %clang -O2 -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm %s -o %t2.ll
// RUN: grep -o 'amber_region.[01].desc = .*i64 -\?[0-9]*, ptr' %t1.ll | sort > %t1.ids
// RUN: grep -o 'amber_region.[01].desc = .*i64 -\?[0-9]*, ptr' %t2.ll | sed 's/ nonnull//' | sort > %t2.ids
// RUN: diff %t1.ids %t2.ids
// RUN: %python -c "import sys; h=0xcbf29ce484222325; exec('for c in sys.argv[1].encode(): h=((h^c)*0x100000001b3)%%(1<<64)'); print('ID=%%d' %% (h-(1<<64) if h>=1<<63 else h))" "%s:g:1" > %t.want
// RUN: cat %t.want %t1.ll | FileCheck %s
#include <amber.h>
void g(int *p) {
  AMBER_ATOMIC { *p = 1; }
  AMBER_ATOMIC { *p = 2; }
}
// CHECK: ID=[[ID:-?[0-9]+]]
// CHECK: @g.amber_region.1.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 8, i16 1, i32 0, i32 13, i64 [[ID]],
