// Leaving a region by return, break or goto is a compile error that names the
// source line.
// RUN: not %amber_cc -O2 -c -DCASE=1 %s -o %t.o 2>&1 | FileCheck %s --check-prefix=RET
// RUN: not %amber_cc -O2 -c -DCASE=2 %s -o %t.o 2>&1 | FileCheck %s --check-prefix=GOTO
// RUN: not %amber_cc -O2 -c -DCASE=3 %s -o %t.o 2>&1 | FileCheck %s --check-prefix=BREAK
// RUN: not %amber_cc -O0 -c -DCASE=1 %s -o %t.o 2>&1 | FileCheck %s --check-prefix=RET
#include <amber.h>

#if CASE == 1
long f(long *p) {
  AMBER_ATOMIC {
    if (*p > 10)
      return 1; // RET: region_exit_error.c:[[@LINE]]:{{[0-9]+}}: error:
    *p += 1;
  }
  return 0;
}
#elif CASE == 2
long g(long *p) {
  for (;;) {
    AMBER_ATOMIC {
      if (*p)
        goto out; // GOTO: region_exit_error.c:[[@LINE]]:{{[0-9]+}}: error:
      *p = 1;
    }
  }
out:
  return 0;
}
#else
long h(long *p) {
  for (int i = 0; i < 10; i++) {
    AMBER_ATOMIC {
      if (*p > 10)
        break; // BREAK: region_exit_error.c:[[@LINE]]:{{[0-9]+}}: error:
      *p += 1;
    }
  }
  return 0;
}
#endif
