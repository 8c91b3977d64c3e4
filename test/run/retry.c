// amber_retry(): a consumer region that finds the persistent queue empty
// retries until a producer has filled it.  Every retried run is undone: its
// persistent and ordinary stores and its allocation vanish (polls counts
// successful runs only), while an AMBER_UNISOLATED counter sees every run.
// The first retry is forced: the producer starts only once the consumer has
// found the queue empty.  On romulus the consumer is a writer by then, so
// the writer's rollback (main restored from back) runs, and the twins stay
// equal (amber check).  An AMBER_PERSISTENT region and a nested region retry
// the outermost region.  Misuse is a clear error.
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: env AMBER_ENGINE=mvcc AMBER_STATS_FILE=%t.mvcc.json %run %t queue | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.mvcc.json
// RUN: %amber check %t.heap | FileCheck %s --check-prefix=CHECKED
// RUN: env AMBER_ENGINE=romulus AMBER_STATS_FILE=%t.rom.json %run %t queue | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.rom.json
// RUN: %amber check %t.heap | FileCheck %s --check-prefix=CHECKED
// RUN: env AMBER_ENGINE=mvcc AMBER_ISOLATION=si %run %t queue | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc %run %t persistent | FileCheck %s --check-prefix=PERS
// RUN: env AMBER_ENGINE=romulus %run %t persistent | FileCheck %s --check-prefix=PERS
// RUN: not %run %t outside 2>&1 | FileCheck %s --check-prefix=OUTSIDE
// RUN: not env AMBER_ENGINE=mvcc %run %t io 2>&1 | FileCheck %s --check-prefix=IO
// RUN: not env AMBER_ENGINE=romulus %run %t io 2>&1 | FileCheck %s --check-prefix=IO
// RUN: not env AMBER_ENGINE=mvcc %run %t solo 2>&1 | FileCheck %s --check-prefix=SOLO
// CHECK: consumed 200 sum 20100 polls 200 vpolls 200 objects 1 retried yes
// STATS: "aborts_retry": {{[1-9][0-9]*}}
// CHECKED: consistent
// PERS: persistent x 1 v 1 runs 3
// OUTSIDE: amber: error: amber_retry() called outside any region
// IO: amber: error: amber_retry() in region main#{{[0-9]}} ({{.*}}retry.c:{{[0-9]+}}) after it made an irrevocable call
// SOLO: amber: error: amber_retry() in irrevocable region main#{{[0-9]}} ({{.*}}retry.c:{{[0-9]+}})
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 200
#define CAP 16

struct item { long v; };
struct root {
  long head, tail;
  long buf[CAP];
  long polls, sum;
  struct item *last; /* a persistent allocation per consumed item */
  long objects;
};
static struct root *r;
static long vpolls; /* ordinary: undone with each retried run */
AMBER_UNISOLATED static long runs;   /* every run of the consumer's region */
AMBER_UNISOLATED static int waiting; /* the consumer found the queue empty */

static void *producer(void *arg) {
  (void)arg;
  while (!__atomic_load_n(&waiting, __ATOMIC_ACQUIRE)) {
  }
  for (long i = 1; i <= N;) {
    int put = 0;
    AMBER_ATOMIC {
      put = 0;
      if (r->tail - r->head < CAP) {
        r->buf[r->tail % CAP] = i;
        r->tail++;
        put = 1;
      }
    }
    i += put;
  }
  return NULL;
}

static void *consumer(void *arg) {
  (void)arg;
  for (long n = 0; n < N; n++) {
    AMBER_ATOMIC {
      __atomic_fetch_add(&runs, 1, __ATOMIC_RELAXED);
      r->polls++;
      vpolls++;
      struct item *it = malloc(sizeof *it);
      it->v = n;
      if (r->head == r->tail) {
        __atomic_store_n(&waiting, 1, __ATOMIC_RELEASE);
        amber_retry();
      }
      r->sum += r->buf[r->head % CAP];
      r->head++;
      free(r->last);
      r->last = it;
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "queue";
  if (!strcmp(mode, "outside")) {
    amber_retry();
    return 0;
  }
  r = amber_root(sizeof *r);
  if (!strcmp(mode, "io")) {
    AMBER_ATOMIC {
      r->polls++;
      fsync(1); /* an outside effect amber cannot undo (output is held: output_once.c) */
      amber_retry();
    }
    return 0;
  }
  if (!strcmp(mode, "persistent")) {
    /* An AMBER_PERSISTENT region (my lock, amber's atomicity) retried twice,
     * from a nested region the second time: each run is undone whole. */
    static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&m);
    AMBER_PERSISTENT {
      runs++;
      r->polls++;
      vpolls++;
      if (runs == 1) amber_retry();
      AMBER_ATOMIC {
        if (runs == 2) amber_retry();
      }
    }
    pthread_mutex_unlock(&m);
    printf("persistent x %ld v %ld runs %ld\n", r->polls, vpolls, runs);
    return 0;
  }
  if (!strcmp(mode, "solo")) {
    long v[4] = {3, 1, 2, 0};
    char buf[24];
    AMBER_ATOMIC {
      if (r->polls == 0) {
        r->polls = 1;
        amber_retry();
      }
      snprintf(buf, sizeof buf, "%ld", v[0]); /* makes the region irrevocable (qsort no longer does) */
    }
    return 0;
  }
  struct amber_usage before, after;
  amber_usage(&before);
  pthread_t p, c;
  pthread_create(&c, NULL, consumer, NULL);
  pthread_create(&p, NULL, producer, NULL);
  pthread_join(c, NULL);
  pthread_join(p, NULL);
  amber_usage(&after);
  long objects = (long)(after.objects - before.objects), polls = 0, sum = 0, head = 0;
  AMBER_ATOMIC {
    polls = r->polls;
    sum = r->sum;
    head = r->head;
  }
  /* Each run frees the previous item: the last one stays (retried runs' are undone). */
  printf("consumed %ld sum %ld polls %ld vpolls %ld objects %ld retried %s\n", head, sum, polls, vpolls, objects,
         runs > N ? "yes" : "no");
  return 0;
}
