// A region's transaction begins at its first access, not at its start
// (runtime/tx/tx.h, amber_tx_touch): each way a region can first read
// memory other threads write must begin it before the read.  A writer
// thread fills a volatile buffer and a heap buffer with one letter per
// region ('A'..'Z' in turn, a byte at a time); reader
// threads run regions whose first access takes one path each:
//   libc: memcmp of the volatile buffer's halves (entry/libc.c direct()),
//   heap: memcmp of the heap buffer's halves (direct() on the heap),
//   strlen: strlen of the heap buffer, then one byte of it,
//   load: an 8-byte load of each half of the volatile buffer through a
//         pointer (inline loads after __amber_read_state),
//   print: fprintf("%s") of the volatile buffer to a file (an output
//         interceptor reads it: amber_output_held is 2 until the
//         transaction began); romulus only: mvcc isolates the program's
//         loads of ordinary memory, not libc's reads of it,
// and empty regions in between (which begin nothing).  No reader may see
// two letters in one view, nor print a line of two letters (read back at
// the end).  `lazy_begin PRINT-FILE|- WRITES`.
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: env AMBER_ENGINE=romulus %run %t %t.lines 20000 | FileCheck %s --check-prefixes=CHECK,PRINT
// RUN: env AMBER_ENGINE=mvcc %run %t - 20000 | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc AMBER_ISOLATION=si %run %t - 20000 | FileCheck %s
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 64

static char vbuf[N + 1];
static char *hbuf; /* N + 1 bytes of the heap */
static long writes;
static FILE *lines;
static int done;
static pthread_barrier_t start;

static void *writer(void *arg) {
  (void)arg;
  pthread_barrier_wait(&start);
  for (long i = 1; i <= writes; i++) {
    int c = 'A' + (int)(i % 26);
    /* A byte at a time: the buffers stay half-written a while. */
    AMBER_ATOMIC {
      for (int k = 0; k < N; k++) vbuf[k] = (char)c;
    }
    AMBER_ATOMIC {
      for (int k = 0; k < N; k++) hbuf[k] = (char)c;
    }
  }
  __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
  return NULL;
}

struct seen { long libc, heap, strlen, load, views; };

/* noinline: a pointer the pass cannot see through, loaded in the region. */
__attribute__((noinline)) static int halves_differ(const char *p) {
  long x, y;
  memcpy(&x, p, 8);
  memcpy(&y, p + N - 8, 8);
  return x != y;
}

static void *reader(void *arg) {
  struct seen *s = arg;
  long sink = 0;
  /* The buffers' addresses reach the regions in their closures: no load
   * of a global begins them before the access each tests. */
  char *v = vbuf, *h = hbuf;
  pthread_barrier_wait(&start);
  do {
    int bad = 0;
    AMBER_ATOMIC { bad = memcmp(v, v + N / 2, N / 2) != 0; }
    s->libc += bad;
    AMBER_ATOMIC { sink++; }
    AMBER_ATOMIC { bad = memcmp(h, h + N / 2, N / 2) != 0; }
    s->heap += bad;
    AMBER_ATOMIC { bad = strlen(h) != N || h[0] != h[N - 1]; }
    s->strlen += bad;
    AMBER_ATOMIC {}
    AMBER_ATOMIC { bad = halves_differ(v); }
    s->load += bad;
    if (lines)
      AMBER_ATOMIC { fprintf(lines, "%s\n", v); }
    s->views++;
  } while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE) || s->views < 100);
  return (void *)sink;
}

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  writes = atol(argv[2]);
  if (strcmp(argv[1], "-")) {
    lines = fopen(argv[1], "w+");
    if (!lines) return 2;
    writes /= 4; /* keep the file small */
  }
  char **root = amber_root(sizeof *root);
  AMBER_ATOMIC {
    if (!*root) *root = calloc(1, N + 1);
    hbuf = *root;
    memset(hbuf, 'A', N);
    memset(vbuf, 'A', N);
  }
  pthread_t w, r[2];
  struct seen s[2] = {{0}};
  pthread_barrier_init(&start, NULL, 3);
  for (int i = 0; i < 2; i++) pthread_create(&r[i], NULL, reader, &s[i]);
  pthread_create(&w, NULL, writer, NULL);
  pthread_join(w, NULL);
  for (int i = 0; i < 2; i++) pthread_join(r[i], NULL);
  long torn = 0, views = 0;
  for (int i = 0; i < 2; i++) {
    torn += s[i].libc + s[i].heap + s[i].strlen + s[i].load;
    views += s[i].views;
  }
  printf("torn %ld (libc %ld, heap %ld, strlen %ld, load %ld)\n", torn, s[0].libc + s[1].libc, s[0].heap + s[1].heap,
         s[0].strlen + s[1].strlen, s[0].load + s[1].load);
  printf("views %s\n", views >= 200 ? "enough" : "too few");
  if (lines) {
    long n = 0, bad = 0;
    char line[2 * N];
    rewind(lines);
    while (fgets(line, sizeof line, lines)) {
      n++;
      bad += strlen(line) != N + 1 || strspn(line, (char[]){line[0], 0}) != N;
    }
    fclose(lines);
    printf("printed %s, %ld torn\n", n == views ? "every view" : "not every view", bad);
    torn += bad;
  }
  return torn != 0;
}
// CHECK: torn 0 (libc 0, heap 0, strlen 0, load 0)
// CHECK: views enough
// PRINT: printed every view, 0 torn
