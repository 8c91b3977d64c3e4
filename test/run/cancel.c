// amber_cancel(): a cancelled region leaves nothing behind (persistent
// stores, stores to globals, the volatile heap and the caller's locals, in
// registers or in memory, its allocations and its frees) and the program
// continues after it; a region that cancels only sometimes commits
// otherwise; nesting is flat (a cancel in a nested region, in the same
// function or a called one, ends the outermost region); an AMBER_ATOMIC_FN
// body that cancels returns 0 (in registers or in memory); an
// AMBER_PERSISTENT region cancels too.
// Locals are live-outs of the outlined region: at -O0 and -O2 they take
// different routes (the pass's cancel path, the optimiser's folding), so
// both are run on both engines.  Misuse is a clear error.
// RUN: %amber_cc -O0 %s -o %t.O0 -pthread
// RUN: %amber_cc -O2 %s -o %t.O2 -pthread
// RUN: env AMBER_ENGINE=mvcc AMBER_STATS_FILE=%t.m0.json %run %t.O0 | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.m0.json
// RUN: %amber check %t.heap | FileCheck %s --check-prefix=CHECKED
// RUN: env AMBER_ENGINE=romulus AMBER_STATS_FILE=%t.r0.json %run %t.O0 | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.r0.json
// RUN: %amber check %t.heap | FileCheck %s --check-prefix=CHECKED
// RUN: env AMBER_ENGINE=mvcc %run %t.O2 | FileCheck %s
// RUN: env AMBER_ENGINE=romulus %run %t.O2 | FileCheck %s
// RUN: %amber check %t.heap | FileCheck %s --check-prefix=CHECKED
// RUN: %amber_cc -O0 -g %s -o %t.g -pthread && env AMBER_ENGINE=mvcc %run %t.g | FileCheck %s
// RUN: %amber_cc -O3 %s -o %t.O3 -pthread && env AMBER_ENGINE=romulus %run %t.O3 | FileCheck %s
// A cancelled region commits nothing, so the next run finds what committed:
// RUN: env AMBER_ENGINE=romulus %rerun %t.O2 again | FileCheck %s --check-prefix=AGAIN
// Threads whose transfers cancel when they would overdraw: a cancelled
// transaction's locks go with it, and only committed transfers count.
// RUN: env AMBER_ENGINE=mvcc %run %t.O2 threads | FileCheck %s --check-prefix=THREADS
// RUN: env AMBER_ENGINE=romulus %run %t.O0 threads | FileCheck %s --check-prefix=THREADS
// Romulus cancels a region that will call uninstrumented code (before it):
// RUN: env AMBER_ENGINE=romulus %run %t.O2 solo | FileCheck %s --check-prefix=SOLO-ROM
// RUN: not %run %t.O2 outside 2>&1 | FileCheck %s --check-prefix=OUTSIDE
// RUN: not env AMBER_ENGINE=mvcc %run %t.O2 io 2>&1 | FileCheck %s --check-prefix=IO
// RUN: not env AMBER_ENGINE=romulus %run %t.O2 io 2>&1 | FileCheck %s --check-prefix=IO
// RUN: not env AMBER_ENGINE=mvcc %run %t.O2 io-persistent 2>&1 | FileCheck %s --check-prefix=IO
// RUN: not env AMBER_ENGINE=romulus %run %t.O0 io-persistent 2>&1 | FileCheck %s --check-prefix=IO
// RUN: not env AMBER_ENGINE=mvcc %run %t.O2 solo 2>&1 | FileCheck %s --check-prefix=SOLO
// RUN: not env AMBER_FASE=locks %run %t.O2 section 2>&1 | FileCheck %s --check-prefix=SECTION
// CHECK: basic: a 0 g 1 tl 3 vh 5 x 1 y 0 d 1.5 p null taken 7 buf old keep 77 objects +0 runs {{[1-9]}}
// CHECK-NEXT: conditional: commits 3 sum 6 n 3 last 4 g 7 log 1 0 3 0 5 0 objects +3
// CHECK-NEXT: nested: a 0 v 0 after 0 w 0 commits 3
// CHECK-NEXT: nested commit: a 6 v 3
// CHECK-NEXT: fn: 0 a 6 then 4 a 4; big 4 11 then 0 0
// CHECK-NEXT: persistent: a 4 g 7 x 1
// STATS: "aborts_cancel": 9,
// CHECKED: consistent
// AGAIN: again: a 4 commits 3 keep 77
// SOLO-ROM: solo: a 0 sorted 0123
// THREADS: threads: sum 4000 negative 0 committed-match yes cancelled some
// OUTSIDE: amber: error: amber_cancel() called outside any region; it undoes the region that calls it and continues after it
// IO: amber: error: amber_cancel() in region main#{{[0-9]}} ({{.*}}cancel.c:{{[0-9]+}}) after it made an irrevocable call
// IO-SAME: decide to cancel before such calls
// SOLO: amber: error: amber_cancel() in irrevocable region main#{{[0-9]}} ({{.*}}cancel.c:{{[0-9]+}})
// SECTION: amber: error: amber_cancel() inside a lock-delimited section (AMBER_FASE=locks)
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct item { long v; };
struct root {
  long a, commits;
  struct item *obj, *keep;
  long log[6];
  struct item *items[6];
};
static struct root *r;
static long g = 1;                 /* ordinary global: undone */
static _Thread_local long tl = 3;  /* undone too */
AMBER_UNISOLATED static long runs; /* runs of basic's region (restarts too): kept */

/* Writes a caller's local through a pointer (the local lives in memory). */
__attribute__((noinline)) static void bump(int *p) { *p += 1; }

static long objects(void) {
  struct amber_usage u;
  amber_usage(&u);
  return (long)u.objects;
}

/* A region that always cancels: the code after it still runs. */
static void basic(int argc) {
  long *vh = malloc(sizeof *vh); /* the volatile heap */
  *vh = 5;
  AMBER_ATOMIC {
    r->keep = malloc(sizeof *r->keep);
    r->keep->v = 77;
  }
  long before = objects();
  int x = 1, taken = 7;
  long y = argc;
  double d = 1.5;
  struct item *p = NULL;
  char buf[16];
  strcpy(buf, "old");
  AMBER_ATOMIC {
    runs++;
    r->a = 100;
    g = 200;
    tl = 30;
    *vh = 300;
    x = 2;
    y += 10;
    d *= 2;
    taken = 8;
    bump(&taken);
    strcpy(buf, "new");
    p = malloc(sizeof *p); /* vanishes */
    p->v = 9;
    r->obj = p;
    free(r->keep); /* not done */
    r->keep = NULL;
    amber_cancel();
  }
  long after = objects();
  printf("basic: a %ld g %ld tl %ld vh %ld x %d y %ld d %.1f p %s taken %d buf %s keep %ld objects %+ld runs %ld\n", r->a, g,
         tl, *vh, x, y - argc, d, p ? "set" : "null", taken, buf, r->keep ? r->keep->v : -1, after - before, runs);
  free(vh);
}

/* Cancels the odd runs: the even ones commit. */
static void conditional(void) {
  long sum = 0, last = -1, before = objects();
  int n = 0;
  for (int i = 0; i < 6; i++) {
    AMBER_ATOMIC {
      r->commits++;
      r->log[i] = i + 1;
      r->items[i] = malloc(sizeof(struct item));
      sum += i;
      n++;
      g += i;
      last = i;
      if (i % 2) amber_cancel();
    }
  }
  printf("conditional: commits %ld sum %ld n %d last %ld g %ld log %ld %ld %ld %ld %ld %ld objects %+ld\n", r->commits,
         sum, n, last, g, r->log[0], r->log[1], r->log[2], r->log[3], r->log[4], r->log[5], objects() - before);
}

/* A region of its own, nested when called from one: cancels when *v > 1. */
static void add_or_cancel(long *v) {
  AMBER_ATOMIC {
    r->commits++;
    *v += 1;
    if (*v > 1) amber_cancel();
  }
}

static void nested(void) {
  long v = 0, w = 0;
  int after = 0;
  AMBER_ATOMIC {
    r->a = 5;
    v = 1;
    AMBER_ATOMIC {
      r->a = 6;
      v = 2;
      if (r->a == 6) amber_cancel();
      v = 3;
    }
    after = 1; /* never runs: the outer region ended */
  }
  AMBER_ATOMIC {
    r->a = 7;
    w = 1;
    add_or_cancel(&w); /* w becomes 2: cancels this outer region */
    w = 50;
  }
  printf("nested: a %ld v %ld after %d w %ld commits %ld\n", r->a, v, after, w, r->commits);
  AMBER_ATOMIC {
    r->a = 5;
    v = 1;
    AMBER_ATOMIC {
      r->a = 6;
      v = 2;
      if (r->a == 7) amber_cancel();
      v = 3;
    }
  }
  printf("nested commit: a %ld v %ld\n", r->a, v);
}

/* Withdraws amount unless the balance would go negative. */
AMBER_ATOMIC_FN long withdraw(long amount) {
  r->a -= amount;
  if (r->a < 0) amber_cancel();
  return r->a + 100;
}

/* A result returned in memory (sret). */
struct big { long v[8]; };
AMBER_ATOMIC_FN struct big snapshot(long limit) {
  struct big b;
  for (int i = 0; i < 8; i++) b.v[i] = r->a + i;
  if (r->a > limit) amber_cancel();
  return b;
}

static void persistent(void) {
  static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  int x = 1;
  pthread_mutex_lock(&m);
  AMBER_PERSISTENT {
    r->a = 9;
    g = 9;
    x = 2;
    if (r->a == 9) amber_cancel();
  }
  pthread_mutex_unlock(&m);
  printf("persistent: a %ld g %ld x %d\n", r->a, g, x);
}

#define NT 4
#define OPS 1000
struct bank { long balance[8], ops; };
static struct bank *bk;

static void *transfers(void *arg) {
  long me = (long)arg, mine = 0;
  unsigned seed = (unsigned)me + 1;
  for (int i = 0; i < OPS; i++) {
    seed = seed * 1103515245u + 12345u;
    int from = (int)(seed >> 8) % 8, to = (int)(seed >> 16) % 8;
    long amount = (long)(seed >> 20) % 300;
    int done = 0;
    AMBER_ATOMIC {
      bk->balance[from] -= amount;
      bk->balance[to] += amount;
      bk->ops++;
      done = 1;
      if (bk->balance[from] < 0) amber_cancel();
    }
    mine += done;
  }
  return (void *)mine;
}

static void threads(void) {
  AMBER_ATOMIC {
    bk = malloc(sizeof *bk);
    for (int i = 0; i < 8; i++) bk->balance[i] = 500;
    bk->ops = 0;
  }
  pthread_t th[NT];
  for (long i = 0; i < NT; i++) pthread_create(&th[i], NULL, transfers, (void *)i);
  long committed = 0, sum = 0, negative = 0;
  for (int i = 0; i < NT; i++) {
    void *n;
    pthread_join(th[i], &n);
    committed += (long)n;
  }
  for (int i = 0; i < 8; i++) {
    sum += bk->balance[i];
    negative += bk->balance[i] < 0;
  }
  printf("threads: sum %ld negative %ld committed-match %s cancelled %s\n", sum, negative,
         committed == bk->ops ? "yes" : "no", committed < NT * OPS ? "some" : "none");
}

static int cmp(const void *a, const void *b) { return (int)(*(const long *)a - *(const long *)b); }

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "all";
  if (!strcmp(mode, "outside")) {
    amber_cancel();
    return 0;
  }
  r = amber_root(sizeof *r);
  if (!strcmp(mode, "threads")) {
    threads();
    return 0;
  }
  if (!strcmp(mode, "again")) {
    printf("again: a %ld commits %ld keep %ld\n", r->a, r->commits, r->keep ? r->keep->v : -1);
    return 0;
  }
  if (!strcmp(mode, "io")) {
    AMBER_ATOMIC {
      r->a++;
      fsync(1); /* an outside effect amber cannot undo (output is held: output_once.c) */
      amber_cancel();
    }
    return 0;
  }
  if (!strcmp(mode, "io-persistent")) {
    AMBER_PERSISTENT {
      r->a++;
      fsync(1); /* an outside effect amber cannot undo (output is held: output_once.c) */
      if (r->a > 0) amber_cancel();
    }
    return 0;
  }
  if (!strcmp(mode, "solo")) {
    long v[4] = {3, 1, 2, 0};
    char buf[24];
    AMBER_ATOMIC {
      r->a = 1;
      if (r->commits == 0) amber_cancel();
      snprintf(buf, sizeof buf, "%ld", v[0]); /* makes the region irrevocable (qsort no longer does) */
    }
    qsort(v, 4, sizeof v[0], cmp);
    printf("solo: a %ld sorted %ld%ld%ld%ld\n", r->a, v[0], v[1], v[2], v[3]);
    return 0;
  }
  if (!strcmp(mode, "section")) {
    static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&m);
    r->a = 1; /* opens the section's transaction */
    amber_cancel();
    pthread_mutex_unlock(&m);
    return 0;
  }
  basic(argc);
  conditional();
  nested();
  long got = withdraw(10); /* balance 6: cancelled */
  long a1 = r->a;
  long got2 = withdraw(2);
  struct big b1 = snapshot(100), b2 = snapshot(0);
  printf("fn: %ld a %ld then %ld a %ld; big %ld %ld then %ld %ld\n", got, a1, got2 - 100, r->a, b1.v[0], b1.v[7], b2.v[0],
         b2.v[7]);
  persistent();
  return 0;
}
