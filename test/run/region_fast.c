// The boundary's fast path (runtime/tx/tx.c, amber_tx_run_region): an
// outermost region in an ordinary thread starts and ends without the
// general driver, and one that never touches memory another thread can
// reach ends with no engine call.  Mixed here with regions that do touch,
// in every order: nothing of the general path's semantics may be lost.
//   mix: one thread; never-touching regions (empty, computing on locals,
//     cancelling before any access, nested ones, a persistent one nested
//     in an atomic one: an upgrade restart before the first touch) beside
//     regions that write the heap and ordinary globals, output held until
//     the commit and dropped by a cancel; the commit and abort counts the
//     statistics show (read back with amber_stats_text) match what ran.
//   threads: two threads each run never-touching regions between regions
//     that increment heap and ordinary counters, retry until a counter is
//     even, and cancel every 7th; totals must match exactly (restarts from
//     conflicts land in the fast path's restart point).
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: %amber_cc -O0 %s -o %t.O0 -pthread
// RUN: env AMBER_ENGINE=romulus %run %t mix | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc %run %t mix | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc AMBER_ISOLATION=si %run %t.O0 mix | FileCheck %s
// RUN: env AMBER_ENGINE=romulus %run %t.O0 mix | FileCheck %s
// RUN: env AMBER_ENGINE=romulus %run %t threads | FileCheck %s --check-prefix=THREADS
// RUN: env AMBER_ENGINE=mvcc %run %t threads | FileCheck %s --check-prefix=THREADS
// CHECK: mix: sum 4950 cancelled 15 kept 85 nested 200 upgrade 2 heap 86 g 86
// CHECK-NEXT: mix: commits +{{[0-9]+}} ok, update +{{[0-9]+}} ok, cancel +44 ok
// CHECK-NEXT: mix: output after an empty region at once
// CHECK-NEXT: mix: lines 85 ok
// THREADS: threads: heap 2000 g 2000 cancelled {{[1-9][0-9]*}} ok
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct root {
  long count, even, ops, cancelled;
};
static struct root *r;
static long g;          /* ordinary global, isolated like the heap */
static long gops;       /* ordinary: committed increments */

/* A field of the statistics' JSON line. */
static unsigned long long stat_of(const char *key) {
  char buf[4096], pat[64];
  amber_stats_text(buf, sizeof buf, 1);
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  const char *p = strstr(buf, pat);
  if (!p) {
    fprintf(stderr, "region_fast: no %s in the statistics\n", key);
    exit(1);
  }
  return strtoull(p + strlen(pat), NULL, 10);
}

__attribute__((noinline)) static long square(long x) { return x * x; }

static void mix(void) {
  FILE *out = tmpfile();
  setvbuf(out, NULL, _IONBF, 0);
  unsigned long long ro0 = stat_of("readonly_commits"), up0 = stat_of("update_commits"), ca0 = stat_of("aborts_cancel");
  long sum = 0, cancelled = 0, kept = 0, nested = 0, upgrade = 0;
  long ro = 0, up = 0;
  for (int i = 0; i < 100; i++) {
    AMBER_ATOMIC {} /* empty */
    ro++;
    AMBER_ATOMIC { sum += i; } /* locals only */
    ro++;
    long before = sum;
    int c = 0;
    AMBER_ATOMIC {
      sum += 1000;
      c = 1;
      if (i % 7 == 0) amber_cancel(); /* before any access */
    }
    if (c) {
      kept++;
      ro++;
      sum = before;
    } else {
      cancelled++;
      if (sum != before) printf("mix: cancel kept sum %ld, not %ld\n", sum, before);
    }
    AMBER_ATOMIC {
      AMBER_ATOMIC { nested += square(1); }
      AMBER_ATOMIC { AMBER_ATOMIC { nested++; } }
    }
    ro++;
    if (i < 2) { /* a persistent region nested in an atomic one: it starts the atomic one again as a writer */
      AMBER_ATOMIC {
        AMBER_PERSISTENT { upgrade++; }
      }
      ro++; /* a writer that wrote nothing: read-only or update, depending on the engine */
    }
    /* Touching regions between the others. */
    if (i % 7 != 0 || i == 0) {
      AMBER_ATOMIC {
        r->count++;
        g++;
      }
      up++;
    } else {
      AMBER_ATOMIC {
        r->count++;
        g++;
        amber_cancel();
      }
    }
    if (i % 7 != 0) {
      AMBER_ATOMIC { fprintf(out, "line %d\n", i); } /* output: held, then written at the commit */
      ro++; /* it stored nothing to the heap */
    } else {
      AMBER_ATOMIC {
        fprintf(out, "dropped %d\n", i);
        amber_cancel();
      }
    }
  }
  unsigned long long dro = stat_of("readonly_commits") - ro0, dup = stat_of("update_commits") - up0,
                     dca = stat_of("aborts_cancel") - ca0;
  printf("mix: sum %ld cancelled %ld kept %ld nested %ld upgrade %ld heap %ld g %ld\n", sum, cancelled, kept, nested,
         upgrade, r->count, g);
  /* Every region that ended without a cancel committed once; those that
   * wrote the heap as updates. */
  printf("mix: commits +%llu %s, update +%llu %s, cancel +%llu %s\n", dro + dup,
         dro + dup == (unsigned long long)(ro + up) ? "ok" : "WRONG", dup,
         dup >= (unsigned long long)up && dup <= (unsigned long long)up + 2 ? "ok" : "WRONG", dca,
         dca == (unsigned long long)(3 * cancelled - 1) ? "ok" : "WRONG");
  /* Output after the region is not held (amber_output_held back to 0). */
  struct stat st0, st1;
  fstat(fileno(out), &st0);
  AMBER_ATOMIC {}
  fprintf(out, "tail\n");
  fstat(fileno(out), &st1);
  printf("mix: output after an empty region %s\n", st1.st_size == st0.st_size + 5 ? "at once" : "HELD");
  rewind(out);
  char line[64];
  int lines = 0, bad = 0;
  while (fgets(line, sizeof line, out)) {
    if (!strncmp(line, "line ", 5)) lines++;
    else if (strcmp(line, "tail\n")) bad++;
  }
  fclose(out);
  printf("mix: lines %d %s\n", lines, !bad && lines == kept ? "ok" : "WRONG");
}

#define PER_THREAD 1000
static void *worker(void *arg) {
  long id = (long)arg, junk = 0;
  for (int i = 0; i < PER_THREAD; i++) {
    AMBER_ATOMIC {}
    AMBER_ATOMIC { junk += i; }
    int done = 0;
    while (!done) {
      AMBER_ATOMIC {
        AMBER_ATOMIC { junk++; }
        r->count++;
        g++;
        if ((i + id) % 7 == 3) amber_cancel();
        done = 1;
      }
      if (!done) {
        AMBER_ATOMIC { r->cancelled++; }
        done = 1;
      } else {
        AMBER_ATOMIC {
          r->ops++;
          gops++;
        }
      }
    }
    AMBER_ATOMIC {
      if (r->even & 1) amber_retry(); /* the other thread makes it even again */
      r->even++;
      r->even++;
    }
  }
  return (void *)junk;
}

static void threads(void) {
  pthread_t th[2];
  for (long k = 0; k < 2; k++) pthread_create(&th[k], NULL, worker, (void *)k);
  for (int k = 0; k < 2; k++) pthread_join(th[k], NULL);
  long total = r->count + r->cancelled;
  printf("threads: heap %ld g %ld cancelled %ld %s\n", total, g + r->cancelled, r->cancelled,
         r->ops == g && gops == g && r->even == 2 * 2 * PER_THREAD && total == 2 * PER_THREAD ? "ok" : "WRONG");
}

int main(int argc, char **argv) {
  r = amber_root(sizeof *r);
  AMBER_ATOMIC { memset(r, 0, sizeof *r); }
  if (argc > 1 && !strcmp(argv[1], "threads")) threads();
  else mix();
  return 0;
}
