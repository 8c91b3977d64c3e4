// The persistent allocator through runtime transactions: alignment, no
// overlap, exact usage accounting, slab pages and large runs returned to the
// pool, and the same state after reopening the heap.  On romulus: the test
// reads the heap in place between and inside its transactions (romulus'
// direct reads; mvcc reads only through amber_tx_read), and its fill writes
// ~16 MB in one transaction, more than an mvcc thread's TLog holds.
// RUN: rm -f %t.heap && %unit_cc %s -o %t %unit_libs
// RUN: env AMBER_HEAP=%t.heap AMBER_HEAP_SIZE=64M AMBER_ENGINE=romulus %t fill
// RUN: env AMBER_HEAP=%t.heap %t reopen
// RUN: %amber check %t.heap
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tx/alloc.h"
#include "amber.h"
#include "tx/tx.h"

#define N 3000
struct root {
  void *obj[N];
  size_t size[N];
};

/* The root at its alias: this test is runtime code (it calls the engine's
 * write path, which takes alias addresses; runtime.h). */
static struct root *r;
static size_t sizes[] = {1, 8, 16, 17, 40, 64, 100, 255, 256, 700, 1024, 2000, 2048, 2049, 5000, 70000};

/* arg NULL: every slot; else only the odd slots. */
static void alloc_all(void *arg) {
  struct amber_thread *t = amber_thread();
  for (int i = arg ? 1 : 0; i < N; i += arg ? 2 : 1) {
    size_t n = sizes[i % (sizeof sizes / sizeof *sizes)];
    void *p = amber_palloc(t, n);
    assert(((uintptr_t)p & 15) == 0);
    assert(amber_palloc_size(t, p) >= n);
    amber_tx_write(t, &r->obj[i], &p, sizeof p);
    amber_tx_write(t, &r->size[i], &n, sizeof n);
    char fill[70000];
    memset(fill, i & 0xff, n);
    amber_tx_write(t, amber_heap_alias(p), fill, n);
  }
}

static void free_odd(void *arg) {
  struct amber_thread *t = amber_thread();
  for (int i = 1; i < N; i += 2) {
    amber_pfree(t, r->obj[i]);
    void *z = NULL;
    amber_tx_write(t, &r->obj[i], &z, sizeof z);
  }
}

static void check_contents(void) {
  for (int i = 0; i < N; i++) {
    if (!r->obj[i]) continue;
    unsigned char *p = amber_heap_alias(r->obj[i]);
    for (size_t k = 0; k < r->size[i]; k++) assert(p[k] == (unsigned char)(i & 0xff));
  }
}

static size_t rounded(size_t n) {
  if (n > 2048) return (n + 4095) / 4096 * 4096;
  static const size_t cls[] = {16, 32, 48, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512,
                               640, 768, 896, 1024, 1280, 1536, 1792, 2048};
  for (size_t i = 0;; i++)
    if (cls[i] >= n) return cls[i];
}

static size_t expected_bytes(void) {
  size_t b = rounded(sizeof(struct root));
  for (int i = 0; i < N; i++)
    if (r->obj[i]) b += rounded(r->size[i]);
  return b;
}

int main(int argc, char **argv) {
  r = amber_heap_alias(amber_root(sizeof *r));
  struct amber_usage u;
  if (!strcmp(argv[1], "fill")) {
    amber_tx_run_internal(alloc_all, NULL);
    /* Objects never overlap: sort-free pairwise check on the page grid. */
    for (int i = 0; i < N; i++)
      for (int j = i + 1; j < N && j < i + 64; j++) {
        uintptr_t a = (uintptr_t)r->obj[i], b = (uintptr_t)r->obj[j];
        assert(a + r->size[i] <= b || b + r->size[j] <= a);
      }
    check_contents();
    amber_usage(&u);
    assert(u.objects == N + 1);
    assert(u.bytes == expected_bytes());
    size_t before = u.bytes;
    amber_tx_run_internal(free_odd, NULL);
    amber_usage(&u);
    assert(u.objects == N / 2 + 1);
    assert(u.bytes == expected_bytes() && u.bytes < before);
    /* Freed space is reused: allocating the odd ones again fits. */
    amber_tx_run_internal(alloc_all, &u);
    check_contents();
    amber_usage(&u);
    assert(u.bytes == before);
    amber_tx_run_internal(free_odd, NULL);
    amber_usage(&u);
    assert(u.bytes == expected_bytes());
    printf("fill ok: %zu objects, %zu bytes\n", u.objects, u.bytes);
  } else {
    check_contents();
    amber_usage(&u);
    assert(u.objects == N / 2 + 1);
    assert(u.bytes == expected_bytes());
    printf("reopen ok\n");
  }
  return 0;
}
