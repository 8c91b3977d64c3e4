// Every way of reaching the allocator (issue 27, [2b/7] item 3): inside a
// region, malloc, calloc, realloc, aligned_alloc, posix_memalign, strdup and
// strndup called through pointers kept in a structure, called directly where
// the pass does not rewrite them, and called from a plain-clang shared
// library, allocate from the persistent heap (amber_is_persistent), and what
// they hold survives a restart; outside regions the same calls are libc's.
// amber_usage counts a root stored outside regions (its stray batch commits
// first).
// RUN: %clang -O1 -shared -fPIC %S/Inputs/alloc_lib.c -o %t.lib.so
// RUN: %amber_cc -O2 %s %t.lib.so -o %t
// RUN: env AMBER_ENGINE=mvcc %run %t fill | FileCheck %s --check-prefix=FILL
// RUN: env AMBER_ENGINE=mvcc %rerun %t check | FileCheck %s --check-prefix=CHECK
// RUN: %amber check %t.heap
// RUN: env AMBER_ENGINE=romulus %run %t fill | FileCheck %s --check-prefix=FILL
// RUN: env AMBER_ENGINE=romulus %rerun %t check | FileCheck %s --check-prefix=CHECK
// RUN: %amber check %t.heap
// In a lock-delimited section (not a region), allocation stays volatile.
// RUN: env AMBER_FASE=locks %run %t section | FileCheck %s --check-prefix=SECTION
// SECTION: section: malloc 0 strdup 0 stored 5
// FILL: usage before: 1 object
// FILL-NEXT: inside: malloc 1 calloc 1 zeroed 1 realloc 1 aligned_alloc 1 aligned 1 posix_memalign 1 aligned 1
// FILL-NEXT: inside: strdup 1 strndup 1 direct aligned_alloc 1 direct posix_memalign 1 memalign 1 reallocarray 1
// FILL-NEXT: inside: library malloc 1 calloc 1 strdup 1
// FILL-NEXT: outside: malloc 0 calloc 0 realloc 0 aligned_alloc 0 posix_memalign 0 strdup 0 strndup 0 library 0 0 0
// FILL-NEXT: usage after: 15 objects
// CHECK: persistent: 1 1 1 1 1 1 1 1
// CHECK-NEXT: strings: malloc calloc realloc aligned posix strdup strndup library-strdup
// CHECK-NEXT: usage after free: 1 object
#include <amber.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *lib_alloc(size_t n);
void *lib_calloc(size_t n);
char *lib_strdup(const char *s);

struct allocator {
  void *(*malloc)(size_t);
  void *(*calloc)(size_t, size_t);
  void *(*realloc)(void *, size_t);
  void *(*aligned_alloc)(size_t, size_t);
  int (*posix_memalign)(void **, size_t, size_t);
  char *(*strdup)(const char *);
  char *(*strndup)(const char *, size_t);
  void (*free)(void *);
};
// volatile: the compiler cannot see which functions these are.
static volatile struct allocator A = {malloc, calloc, realloc, aligned_alloc, posix_memalign, strdup, strndup, free};

enum { NPTR = 15 };
struct root {
  char *m, *c, *r, *a, *pm, *sd, *snd, *da, *dpm, *ma, *ra, *lm, *lc, *lsd;
  int zeroed;
};

static int aligned(const void *p, uintptr_t a) { return ((uintptr_t)p & (a - 1)) == 0; }

static void usage(const char *when) {
  struct amber_usage u;
  amber_usage(&u);
  printf("usage %s: %zu object%s\n", when, u.objects, u.objects == 1 ? "" : "s");
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  struct root *r = amber_root(sizeof *r);
  if (!strcmp(argv[1], "fill")) {
    r->zeroed = -1; // a store outside regions: the root's stray batch
    usage("before");
    AMBER_ATOMIC {
      r->m = A.malloc(32);
      strcpy(r->m, "malloc");
      r->c = A.calloc(4, 8);
      r->zeroed = r->c[0] == 0 && r->c[31] == 0;
      strcpy(r->c, "calloc");
      r->r = A.malloc(8);
      r->r = A.realloc(r->r, 100);
      strcpy(r->r, "realloc");
      r->a = A.aligned_alloc(64, 100);
      strcpy(r->a, "aligned");
      A.posix_memalign((void **)&r->pm, 128, 40); // *out is persistent too
      strcpy(r->pm, "posix");
      r->sd = A.strdup("strdup");
      r->snd = A.strndup("strndup-and-more", 7);
      r->da = aligned_alloc(32, 32);
      posix_memalign((void **)&r->dpm, 256, 10);
      r->ma = memalign(16, 20);
      r->ra = reallocarray(NULL, 4, 10);
      r->lm = lib_alloc(24);
      r->lc = lib_calloc(24);
      r->lsd = lib_strdup("library-strdup");
    }
    printf("inside: malloc %d calloc %d zeroed %d realloc %d aligned_alloc %d aligned %d posix_memalign %d aligned %d\n",
           amber_is_persistent(r->m), amber_is_persistent(r->c), r->zeroed, amber_is_persistent(r->r),
           amber_is_persistent(r->a), aligned(r->a, 64), amber_is_persistent(r->pm), aligned(r->pm, 128));
    printf("inside: strdup %d strndup %d direct aligned_alloc %d direct posix_memalign %d memalign %d reallocarray %d\n",
           amber_is_persistent(r->sd), amber_is_persistent(r->snd), amber_is_persistent(r->da) && aligned(r->da, 32),
           amber_is_persistent(r->dpm) && aligned(r->dpm, 256), amber_is_persistent(r->ma), amber_is_persistent(r->ra));
    printf("inside: library malloc %d calloc %d strdup %d\n", amber_is_persistent(r->lm), amber_is_persistent(r->lc),
           amber_is_persistent(r->lsd));
    // Outside regions: libc's.
    void *m = A.malloc(32), *c = A.calloc(2, 8), *re = A.realloc(NULL, 10), *a = A.aligned_alloc(64, 64), *pm = NULL;
    A.posix_memalign(&pm, 64, 8);
    char *sd = A.strdup("x"), *snd = A.strndup("xy", 1);
    void *lm = lib_alloc(8), *lc = lib_calloc(8);
    char *lsd = lib_strdup("y");
    printf("outside: malloc %d calloc %d realloc %d aligned_alloc %d posix_memalign %d strdup %d strndup %d library %d %d %d\n",
           amber_is_persistent(m), amber_is_persistent(c), amber_is_persistent(re), amber_is_persistent(a),
           amber_is_persistent(pm), amber_is_persistent(sd), amber_is_persistent(snd), amber_is_persistent(lm),
           amber_is_persistent(lc), amber_is_persistent(lsd));
    void *all[] = {m, c, re, a, pm, sd, snd, lm, lc, lsd};
    for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++) A.free(all[i]);
    usage("after");
    return 0;
  }
  if (!strcmp(argv[1], "section")) {
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&mu);
    r->zeroed = 5; // opens the section's transaction
    char *m = A.malloc(16), *sd = A.strdup("s");
    pthread_mutex_unlock(&mu);
    printf("section: malloc %d strdup %d stored %d\n", amber_is_persistent(m), amber_is_persistent(sd), r->zeroed);
    A.free(m);
    A.free(sd);
    return 0;
  }
  // check: a new process, the same heap.
  char **p = &r->m;
  printf("persistent:");
  for (int i = 0; i < 8; i++) printf(" %d", amber_is_persistent(p[i]) || (i == 7 && amber_is_persistent(r->lsd)));
  printf("\nstrings: %s %s %s %s %s %s %s %s\n", r->m, r->c, r->r, r->a, r->pm, r->sd, r->snd, r->lsd);
  AMBER_ATOMIC {
    for (int i = 0; i < NPTR - 1; i++) A.free(p[i]);
  }
  usage("after free");
  return 0;
}
