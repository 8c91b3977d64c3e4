// The runtime linked into the program (amber-cc -static-libamber; docs/guide.md,
// "Linking the runtime into the program"; issue 27 item 5): a program that
// never touches the heap loads no second object, and one that does runs as
// with libamber.so.  One runtime per process: a libamber.so that comes in
// anyway defers to the program's copy (dormant), or is refused when the user
// preloaded another build (static_runtime_refuse.test).
// RUN: %amber_cc -O2 -fPIC -shared %S/Inputs/xcall_lib.c -o %t.amber.so
// RUN: %amber_cc -static-libamber -O2 %s -o %t -ldl
// No DT_NEEDED on libamber.so, no RUNPATH to search, and the runtime's names
// exported (shared objects and libc bind to them):
// RUN: readelf -d %t > %t.dyn
// RUN: not grep -E 'libamber|RUNPATH|RPATH' %t.dyn
// RUN: nm -D --defined-only %t | FileCheck %s --check-prefix=EXPORTS
// EXPORTS-DAG: T __amber_module_init
// EXPORTS-DAG: R __amber_linked_in
// EXPORTS-DAG: T amber_root
// EXPORTS-DAG: W free
// EXPORTS-DAG: W strdup
// The runtime's internal names are not even global in the program:
// RUN: nm %t | not grep -E ' [TDB] (amber_tx_|mv_|amber_heap_open)'
//
// Never touching the heap: the objects mapped are the program, libc, the loader.
// RUN: rm -f %t.heap
// RUN: env AMBER_HEAP=%t.heap %t untouched | FileCheck %s --check-prefix=UNTOUCHED
// RUN: test ! -e %t.heap
// UNTOUCHED: objects: ld-linux-x86-64.so.2 libc.so.6{{$}}
//
// The heap: a region, output, the allocator; the runtime's own allocations
// inside a region stay volatile (no persistent object but the root and the
// one strdup), and a second run sees the first's work.  (Opening a heap
// dlopens what it needs, libpmem or libunwind: listed after libc.)
// RUN: env AMBER_HEAP=%t.heap AMBER_HEAP_SIZE=16M %t count | FileCheck %s --check-prefix=RUN1
// RUN1: in region 1
// RUN1-NEXT: count 1 objects 2 persistent 1
// RUN1-NEXT: objects: ld-linux-x86-64.so.2 libc.so.6
// RUN1-NOT: libamber
// RUN: env AMBER_HEAP=%t.heap %t count | FileCheck %s --check-prefix=RUN2
// RUN2: in region 2
// RUN2-NEXT: count 2 objects 2 persistent 1
//
// Preloaded, the same build's libamber.so defers (the test suite's %run):
// RUN: env AMBER_HEAP_SIZE=16M %run %t count | FileCheck %s --check-prefix=PRELOAD
// PRELOAD: count 1 objects 2 persistent 1
// PRELOAD-NEXT: objects: ld-linux-x86-64.so.2 libamber.so libc.so.6
//
// An amber-compiled shared object dlopen'ed: its libamber.so dependency stays
// dormant, its module registers with the program's runtime, and its clone
// runs inside the program's region (cancelled: both stores undone).
// RUN: env AMBER_HEAP=%t.heap %t dlopen %t.amber.so | FileCheck %s --check-prefix=DLOPEN
// DLOPEN: dlopen: committed heap 7 lib 7, cancelled heap 7 lib 7
// DLOPEN-NEXT: objects: ld-linux-x86-64.so.2 libamber.so libc.so.6 {{.*}}static_runtime.c.tmp.amber.so{{$}}
//
// A plain program (no runtime of its own) dlopens the same amber .so: its
// libamber.so, dlopen'ed with it, is the runtime.
// RUN: %clang -O2 %S/Inputs/dlopen_plain.c -o %t.plain -ldl
// RUN: %t.plain %t.amber.so | FileCheck %s --check-prefix=PLAIN
// PLAIN: plain dlopen: thrice 9, runtime found
//
// Preloaded, another build's libamber.so (here the same library with its
// identity changed) is refused, naming both:
// RUN: rm -rf %t.other && mkdir %t.other
// RUN: %python -c "import sys; b = open(sys.argv[1], 'rb').read(); assert b.count(b' built in ') == 1; open(sys.argv[2], 'wb').write(b.replace(b' built in ', b' BUILT IN '))" %libamber %t.other/libamber.so
// RUN: not env LD_PRELOAD=%t.other/libamber.so AMBER_HEAP=%t.heap %t count 2>&1 | FileCheck %s --check-prefix=REFUSE
// REFUSE: amber: error: two amber runtimes in one process: {{.*}}static_runtime.c.tmp has the runtime linked into it (amber-cc -static-libamber: amber {{.*}} built in {{.*}}), and LD_PRELOAD loads {{.*}}.other/libamber.so (amber {{.*}} BUILT IN {{.*}}); a process runs one runtime
//
// -static-libamber is for executables: with -shared the library links
// libamber.so; with a sanitizer it is refused.
// RUN: %amber_cc -static-libamber -O2 -fPIC -shared %S/Inputs/xcall_lib.c -o %t.s.so
// RUN: readelf -d %t.s.so | grep -q 'NEEDED.*libamber.so'
// RUN: not %amber_cc -static-libamber -fsanitize=thread %s -o %t.tsan 2>&1 | FileCheck %s --check-prefix=SAN
// SAN: amber: error: amber-cc: -static-libamber cannot be combined with -fsanitize=thread
#define _GNU_SOURCE
#include <amber.h>
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char names[16][64];
static int nnames;

static int note(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size, (void)arg;
  const char *n = info->dlpi_name, *b = strrchr(n, '/');
  b = b ? b + 1 : n;
  if (*b && strncmp(b, "linux-vdso", 10) && nnames < 16) snprintf(names[nnames++], sizeof names[0], "%s", b);
  return 0;
}

static int cmp(const void *a, const void *b) { return strcmp(a, b); }

static void objects(void) {
  dl_iterate_phdr(note, NULL);
  qsort(names, nnames, sizeof names[0], cmp);
  printf("objects:");
  for (int i = 0; i < nnames; i++) printf(" %s", names[i]);
  printf("\n");
}

struct root {
  long count;
  char *name;
  long heap;
};

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "untouched")) {
    char *p = strdup("volatile");
    free(p);
    objects();
    return 0;
  }
  struct root *r = amber_root(sizeof *r);
  if (argc > 2 && !strcmp(argv[1], "dlopen")) {
    void *h = dlopen(argv[2], RTLD_NOW);
    if (!h) {
      printf("dlopen: %s\n", dlerror());
      return 1;
    }
    long (*bump)(long *, long) = (long (*)(long *, long))dlsym(h, "amber_bump");
    long *hits = dlsym(h, "amber_hits");
    r->heap = 0;
    AMBER_ATOMIC { bump(&r->heap, 7); }
    long heap1 = r->heap, lib1 = *hits;
    AMBER_ATOMIC {
      bump(&r->heap, 5);
      amber_cancel();
    }
    printf("dlopen: committed heap %ld lib %ld, cancelled heap %ld lib %ld\n", heap1, lib1, r->heap, *hits);
    objects();
    return 0;
  }
  AMBER_ATOMIC {
    r->count++;
    if (!r->name) r->name = strdup("first"); /* persistent: the program's strdup in a region */
    printf("in region %ld\n", r->count);   /* held until commit: the runtime's own buffer, volatile */
  }
  struct amber_usage u;
  amber_usage(&u);
  printf("count %ld objects %zu persistent %d\n", r->count, u.objects, amber_is_persistent(r->name));
  objects();
  return 0;
}
