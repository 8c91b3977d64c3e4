// The mvcc engine writes its anonymous pages (the shadow table, the
// headers' cold half, the TLog ring) before anything reads them
// (docs/engines/mvcc.md, "Shadow table"): a read first maps the kernel's
// zero page, and the write after it takes a second, copy-on-write fault
// that shoots down the TLB on every CPU the process runs on (thousands in
// a kvserver benchmark run: bench/README.md).  Here an update region reads
// a block never written (SER validation looks at it at commit) and writes
// a counter, once per block, each block on a table page of its own (128
// blocks of 64 bytes to a page of headers); then a region per block writes
// it.  The blocks are allocated by a first run, so that the measuring run
// (the heap opened again) starts with no header installed.  Per block:
// the table page (1 fault), its share of a cold page (about 0.75) and of
// the heap's pages (mapped 16 at a time): about 2.0 faults; when
// validation or mv_dirty read those pages first, or the first header of a
// page did not write it (a compiler dropped an OR of 0), 3.8 (measured
// before the fix).  Counted with
// getrusage, so it needs 4 KiB pages without transparent huge pages on
// anonymous memory (the default "madvise" policy): elsewhere it says
// "skipped" and checks nothing.
// RUN: %amber_cc -O2 %s -o %t
// RUN: env AMBER_ENGINE=mvcc AMBER_BLOCK=64 %run %t create
// RUN: env AMBER_ENGINE=mvcc %rerun %t | FileCheck %s
// CHECK: first-touch {{ok|skipped}}
#include <amber.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define N 512
#define STRIDE (128 * 64) /* one page of 32-byte headers covers 128 blocks of 64 bytes */

static long minflt(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

static int thp_always(void) {
  FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  if (!f) return 0;
  char buf[128] = "";
  if (!fgets(buf, sizeof buf, f)) buf[0] = 0;
  fclose(f);
  return strstr(buf, "[always]") != NULL;
}

int main(int argc, char **argv) {
  char *area = amber_root(64 + (size_t)N * STRIDE); /* zeroed when new */
  if (argc > 1 && !strcmp(argv[1], "create")) return 0;
  if (sysconf(_SC_PAGESIZE) != 4096 || thp_always()) {
    printf("first-touch skipped\n");
    return 0;
  }
  long *counter = (long *)area;
  char *blocks = area + 64;
  /* Warm: the thread's engine state and a few of every kind of page. */
  for (int i = 0; i < 64; i++) AMBER_ATOMIC { *counter += 1; }
  long sum = 0, before = minflt();
  for (int i = 0; i < N; i++) {
    long *b = (long *)(blocks + (size_t)i * STRIDE);
    AMBER_ATOMIC {
      sum += *b;
      *counter += 1;
    }
  }
  for (int i = 0; i < N; i++) {
    long *b = (long *)(blocks + (size_t)i * STRIDE);
    AMBER_ATOMIC { *b = i + 1; }
  }
  double per = (double)(minflt() - before) / N;
  long check = 0;
  for (int i = 0; i < N; i++) AMBER_ATOMIC { check += *(long *)(blocks + (size_t)i * STRIDE); }
  if (sum != 0 || check != (long)N * (N + 1) / 2) {
    printf("first-touch wrong values: sum %ld check %ld\n", sum, check);
    return 1;
  }
  if (per > 2.9) {
    printf("first-touch %.2f faults per block, not about 2.0: a page of the engine was read before it was written\n", per);
    return 1;
  }
  printf("first-touch ok (%.2f faults per block)\n", per);
  return 0;
}
