// Code addresses in objects loaded and unloaded while the program runs
// (docs/guide.md, "Function pointers in the heap"; entry/code.c,
// maybe_code).  The runtime tells code from data by the executable segments
// of the objects loaded now, and rejects values in no object's mapping
// without the loader's lock (_dl_find_object):
// * a function of a library dlopen'ed after the last pointer store, copied
//   into the heap by memcpy, becomes a handle (the memcpy scan used to
//   compare with a list of code segments taken before the dlopen, so the raw
//   address was stored);
// * a pointer to that library's data stays a raw pointer;
// * after the library is dlclose'd and its text's address is mapped again
//   as ordinary memory, a pointer into that memory stays a raw pointer (it
//   used to match the stale list and stop the program with "a code address
//   ... has no symbol name");
// * grid-cell-like pointers to malloc'd memory stay raw (the lock-free
//   reject);
// * a later run that loads the library calls the function through the
//   handle.
// Volatile pointers are stored on purpose: the pointer check is off.
//
// RUN: %clang -O2 -fPIC -shared %S/Inputs/fnptr_plain_lib.c -o %t.plain.so
// RUN: %amber_cc -O2 %s -ldl -o %t
// RUN: env AMBER_CHECK_POINTERS=off %run %t set %t.plain.so | FileCheck %s --check-prefix=SET
// RUN: env AMBER_CHECK_POINTERS=off %rerun %t call %t.plain.so | FileCheck %s --check-prefix=CALL
// RUN: env AMBER_CHECK_POINTERS=off AMBER_ENGINE=romulus %run %t set %t.plain.so | FileCheck %s --check-prefix=SET
// RUN: env AMBER_CHECK_POINTERS=off AMBER_ENGINE=romulus %rerun %t call %t.plain.so | FileCheck %s --check-prefix=CALL
//
// SET: own handle 1
// SET-NEXT: memcpy handle 1
// SET-NEXT: data raw 1
// SET-NEXT: malloc raw 1
// SET-NEXT: reused raw 1
// SET-NEXT: set
// CALL: neg(-7) 7
#include <amber.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

long twice(long x) { return 2 * x; }

struct cb {
  long (*f)(long);
};
struct root {
  long (*own)(long);
  struct cb copied;
  long *data;
  long *cell;
  char *reused;
};

/* The stored word's bits, read as an integer (no handle translation). */
static uint64_t raw(void *slot) {
  uint64_t w = 0;
  AMBER_ATOMIC { w = *(volatile uint64_t *)slot; }
  return w;
}
static int is_handle(uint64_t w) { return (w >> 48) == 0xAB1E; }

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  struct root *r = amber_root(sizeof *r);
  if (!strcmp(argv[1], "call")) {
    if (!dlopen(argv[2], RTLD_NOW | RTLD_GLOBAL)) return 3;
    printf("neg(-7) %ld\n", r->copied.f(-7));
    return 0;
  }
  AMBER_ATOMIC { r->own = twice; } /* the runtime has seen code before the dlopen */
  printf("own handle %d\n", is_handle(raw(&r->own)));

  void *lib = dlopen(argv[2], RTLD_NOW | RTLD_GLOBAL);
  if (!lib) return 3;
  struct cb vol = {(long (*)(long))dlsym(lib, "plain_neg")};
  long *data = dlsym(lib, "plain_data");
  uintptr_t text = (uintptr_t)vol.f;
  volatile size_t n = sizeof vol; /* a real memcpy call, not a folded 8-byte store */
  AMBER_ATOMIC { memcpy(&r->copied, &vol, n); }
  printf("memcpy handle %d\n", is_handle(raw(&r->copied)));
  AMBER_ATOMIC { r->data = data; }
  printf("data raw %d\n", raw(&r->data) == (uint64_t)(uintptr_t)data);
  long *cells = malloc(64 * sizeof *cells);
  AMBER_ATOMIC {
    for (int i = 0; i < 64; i++) r->cell = &cells[i];
  }
  printf("malloc raw %d\n", raw(&r->cell) == (uint64_t)(uintptr_t)&cells[63]);

  dlclose(lib);
  char *page = (char *)(text & ~(uintptr_t)4095);
  char *m = mmap(page, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (m != page) {
    printf("the library's text was not unmapped by dlclose\n");
    return 4;
  }
  AMBER_ATOMIC { r->reused = page + 1; }
  printf("reused raw %d\n", raw(&r->reused) == (uint64_t)(uintptr_t)(page + 1));
  amber_sync();
  printf("set\n");
  return 0;
}
