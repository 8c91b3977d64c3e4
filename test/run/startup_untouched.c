// A program built with amber-cc that never touches persistent memory pays
// nothing it does not use (issue 27 item 5): it runs interceptors (malloc,
// memcpy, printf, qsort) but opens no heap (no file, nothing of it mapped),
// and libamber's start is a handful of symbol bindings, not the ~150 of
// before (84 dlsym and every internal name looked up): counted from the
// loader's own report (LD_DEBUG=bindings), not timed.
// This is the libamber.so build (-shared-libamber); the runtime linked into
// the program, the default, maps no libamber.so at all (static_runtime.c).
// RUN: %amber_cc -shared-libamber -O2 %s -o %t
// RUN: %run %t | FileCheck %s
// RUN: test ! -e %t.heap
// RUN: rm -f %t.bindings.*
// RUN: env LD_DEBUG=bindings LD_DEBUG_OUTPUT=%t.bindings %t > /dev/null
// RUN: cat %t.bindings.* | grep -c 'binding file [^ ]*libamber.so ' > %t.count || true
// RUN: %python -c "import sys; n = int(open(sys.argv[1]).read()); print('libamber bindings at most 30:', n <= 30, n if n > 30 else '')" %t.count | FileCheck %s --check-prefix=BINDINGS
// CHECK: untouched: sorted 1, copied 1, heap mapped 0
// The objects mapped are the program's own (the program, libamber, libc,
// the loader): libunwind and liblzma behind it, and libpmem, are dlopen'ed
// only where a heap needs them (heap/strict.c, pm/libpmem.c).
// CHECK-NEXT: objects: ld-linux-x86-64.so.2 libamber.so libc.so.6{{$}}
// BINDINGS: libamber bindings at most 30: True
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
static int cmp_name(const void *a, const void *b) { return strcmp(a, b); }

int main(void) {
  int v[] = {3, 1, 2};
  qsort(v, 3, sizeof v[0], cmp);
  char *p = malloc(16);
  memcpy(p, "amber", 6);
  int mapped = 0;
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512];
  const char *heap = getenv("AMBER_HEAP");
  while (f && fgets(line, sizeof line, f))
    if ((heap && strstr(line, heap)) || !strncmp(line, "550000000000", 12)) mapped = 1;
  if (f) fclose(f);
  printf("untouched: sorted %d, copied %d, heap mapped %d\n", v[0] == 1 && v[2] == 3, !strcmp(p, "amber"), mapped);
  /* Every shared object mapped, by name, sorted. */
  char names[16][64];
  int n = 0;
  f = fopen("/proc/self/maps", "r");
  while (f && fgets(line, sizeof line, f)) {
    char *name = strrchr(line, '/');
    if (!name || !strstr(name, ".so")) continue;
    name++;
    name[strcspn(name, "\n")] = 0;
    int dup = 0;
    for (int i = 0; i < n; i++) dup |= !strcmp(names[i], name);
    if (!dup && n < 16) snprintf(names[n++], sizeof names[0], "%s", name);
  }
  if (f) fclose(f);
  qsort(names, n, sizeof names[0], cmp_name);
  printf("objects:");
  for (int i = 0; i < n; i++) printf(" %s", names[i]);
  printf("\n");
  free(p);
  return 0;
}
