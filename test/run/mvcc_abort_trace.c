// mvcc engine: an aborted transaction leaves no trace.  A holder thread
// keeps block x locked inside its transaction until the victim has tried to
// write x; the victim's transaction aborts (lock conflict) and re-runs until
// the holder commits.  Afterwards: stack and global variables changed in the
// victim's region hold the values of one run, exactly one of its
// allocations survives, and no lock is left (later writers proceed); an
// AMBER_UNISOLATED counter keeps every run's increment (never undone).
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: env AMBER_ENGINE=mvcc AMBER_STATS_FILE=%t.json %run %t | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.json
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct obj { long v; long pad[7]; };
struct root { long x; long pad1[7]; struct obj *list; long pad2[7]; long later; };
static struct root *r;
/* Atomics: the two threads' handshake, across their transactions, so
 * AMBER_UNISOLATED (docs/guide.md 2.6). */
AMBER_UNISOLATED static int locked, trying;
static long global_sum;
/* Counts every run of the victim's region: not undone (AMBER_UNISOLATED). */
AMBER_UNISOLATED static long runs;

static void *holder(void *arg) {
  (void)arg;
  AMBER_ATOMIC {
    r->x = 1;
    __atomic_store_n(&locked, 1, __ATOMIC_RELEASE);
    /* Hold x until the victim has tried to write it at least once. */
    while (!__atomic_load_n(&trying, __ATOMIC_ACQUIRE)) {
    }
  }
  return NULL;
}

static long victim_local;

static void *victim(void *arg) {
  (void)arg;
  while (!__atomic_load_n(&locked, __ATOMIC_ACQUIRE)) {
  }
  long local = 0;
  AMBER_ATOMIC {
    local += 1;
    global_sum += 10;
    runs += 1;
    struct obj *o = malloc(sizeof *o);
    o->v = 5;
    r->list = o;
    __atomic_store_n(&trying, 1, __ATOMIC_RELEASE);
    r->x = 2; /* conflicts with the holder until it commits */
  }
  victim_local = local;
  return NULL;
}

static void *later(void *arg) {
  (void)arg;
  AMBER_ATOMIC {
    r->x += 10;
    r->list->v += 10;
    r->later = 1;
  }
  return NULL;
}

int main(void) {
  r = amber_root(sizeof *r);
  struct amber_usage before, after;
  amber_usage(&before);
  pthread_t h, v, l;
  pthread_create(&h, NULL, holder, NULL);
  pthread_create(&v, NULL, victim, NULL);
  pthread_join(h, NULL);
  pthread_join(v, NULL);
  amber_usage(&after);
  printf("x %ld v %ld local %ld global %ld objects +%ld\n", r->x, r->list->v, victim_local, global_sum,
         (long)(after.objects - before.objects));
  /* No lock left behind: another thread and main write the same blocks. */
  pthread_create(&l, NULL, later, NULL);
  pthread_join(l, NULL);
  AMBER_ATOMIC_ISO(AMBER_SI) { r->x += 100; }
  printf("x %ld v %ld later %ld\n", r->x, r->list->v, r->later);
  printf("victim region runs > 1: %s\n", runs > 1 ? "yes" : "no");
  return 0;
}
// CHECK: x 2 v 5 local 1 global 10 objects +1
// CHECK: x 112 v 15 later 1
// CHECK: victim region runs > 1: yes
// STATS: "aborts": {{[1-9][0-9]*}},
