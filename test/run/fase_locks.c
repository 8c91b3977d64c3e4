// Lock-delimited sections (AMBER_FASE=locks), counted by update commits:
// amber_root's creation is one; then each section of a mode commits once.
// Without AMBER_FASE the interceptors open no section and each store is
// its own transaction (the commits show it).
// RUN: %amber_cc -O2 %s -o %t
// RUN: env AMBER_STATS_FILE=%t.off.json %run %t basic
// RUN: FileCheck %s --check-prefix=OFF < %t.off.json
// RUN: env AMBER_FASE=none AMBER_STATS_FILE=%t.none.json %run %t basic
// RUN: FileCheck %s --check-prefix=OFF < %t.none.json
// RUN: env AMBER_FASE=locks AMBER_STATS_FILE=%t.on.json %run %t basic
// RUN: FileCheck %s --check-prefix=ON < %t.on.json
// RUN: env AMBER_FASE=locks AMBER_ENGINE=mvcc AMBER_STATS_FILE=%t.mv.json %run %t basic
// RUN: FileCheck %s --check-prefix=ON < %t.mv.json
// RUN: env AMBER_FASE=locks AMBER_STATS_FILE=%t.try.json %run %t try | FileCheck %s --check-prefix=TRY
// RUN: FileCheck %s --check-prefix=TRYSTATS < %t.try.json
// RUN: env AMBER_FASE=locks AMBER_STATS_FILE=%t.rd.json %run %t rdlock
// RUN: FileCheck %s --check-prefix=ONE < %t.rd.json
// RUN: env AMBER_FASE=locks AMBER_STATS_FILE=%t.reg.json %run %t region
// RUN: FileCheck %s --check-prefix=ONE < %t.reg.json
// RUN: env AMBER_STATS_FILE=%t.regoff.json %run %t region
// RUN: FileCheck %s --check-prefix=REGOFF < %t.regoff.json
// RUN: env AMBER_FASE=locks AMBER_STATS_FILE=%t.cw.json %run %t condwait | FileCheck %s --check-prefix=CW
// RUN: FileCheck %s --check-prefix=TWO < %t.cw.json
// RUN: env AMBER_FASE=locks not %run %t condwait2 2>&1 | FileCheck %s --check-prefix=CW2
// The unlock inside the AMBER region is an external call, so the region is
// irrevocable: romulus reaches the unlock and refuses it there; mvcc cannot
// restart the section to run the region alone and refuses at the call.
// RUN: env AMBER_FASE=locks AMBER_ENGINE=romulus not %run %t inregion 2>&1 | FileCheck %s --check-prefix=INREGION
// RUN: env AMBER_FASE=locks AMBER_ENGINE=mvcc not %run %t inregion 2>&1 | FileCheck %s --check-prefix=INREGION-MVCC
// RUN: env AMBER_FASE=locks %run %t exit 2>&1 | FileCheck %s --check-prefix=EXIT
// RUN: env AMBER_FASE=locks %rerun %t show | FileCheck %s --check-prefix=SHOW
// RUN: env AMBER_FASE=locks %run %t alloc | FileCheck %s --check-prefix=ALLOC
// RUN: env AMBER_FASE=locks %rerun %t alloc | FileCheck %s --check-prefix=ALLOC2
// RUN: env AMBER_FASE=bogus not %run %t basic 2>&1 | FileCheck %s --check-prefix=BAD
#include <amber.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct root {
  long a, b, c;
  long *p;
};

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER, m2 = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER, rd = PTHREAD_RWLOCK_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;

static struct timespec soon(long ms) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_nsec += ms * 1000000;
  ts.tv_sec += ts.tv_nsec / 1000000000;
  ts.tv_nsec %= 1000000000;
  return ts;
}

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  const char *mode = argc > 1 ? argv[1] : "basic";
  if (!strcmp(mode, "basic")) {
    // 10 sections of 3 stores, a nested lock in each.
    for (int i = 0; i < 10; i++) {
      pthread_mutex_lock(&m);
      r->a++;
      pthread_mutex_lock(&m2);
      r->b++;
      pthread_mutex_unlock(&m2);
      r->c++;
      pthread_mutex_unlock(&m);
    }
  } else if (!strcmp(mode, "try")) {
    // trylock, timedlock and an rwlock write lock each delimit a section;
    // a failed trylock (the lock is held by this thread's own section) opens none.
    if (pthread_mutex_trylock(&m) == 0) {
      r->a++;
      r->b++;
      printf("nested trylock: %s\n", pthread_mutex_trylock(&m) == EBUSY ? "busy" : "?");
      pthread_mutex_unlock(&m);
    }
    struct timespec ts = soon(1000);
    if (pthread_mutex_timedlock(&m, &ts) == 0) {
      r->a++;
      r->b++;
      pthread_mutex_unlock(&m);
    }
    pthread_rwlock_wrlock(&rw);
    r->a++;
    r->b++;
    pthread_rwlock_unlock(&rw);
    printf("a %ld b %ld\n", r->a, r->b);
  } else if (!strcmp(mode, "rdlock")) {
    // A read lock taken and released inside a section does not end it.
    pthread_mutex_lock(&m);
    r->a++;
    pthread_rwlock_rdlock(&rd);
    pthread_rwlock_unlock(&rd);
    r->b++;
    pthread_mutex_unlock(&m);
  } else if (!strcmp(mode, "region")) {
    // Regions inside a section flatten into it: one commit.
    pthread_mutex_lock(&m);
    AMBER_PERSISTENT { r->a++; }
    r->b++;
    AMBER_ATOMIC { r->c++; }
    pthread_mutex_unlock(&m);
  } else if (!strcmp(mode, "condwait")) {
    // The wait ends the section (committed) and the wake-up starts another.
    pthread_mutex_lock(&m);
    r->a++;
    struct timespec ts = soon(10);
    int e = pthread_cond_timedwait(&c, &m, &ts);
    r->b++;
    pthread_mutex_unlock(&m);
    printf("timedwait: %s\n", e == ETIMEDOUT ? "timed out" : "?");
  } else if (!strcmp(mode, "condwait2")) {
    pthread_mutex_lock(&m);
    pthread_mutex_lock(&m2);
    struct timespec ts = soon(10);
    pthread_cond_timedwait(&c, &m2, &ts);
  } else if (!strcmp(mode, "alloc")) {
    // Persistent allocation in a section: an AMBER_PERSISTENT block (it
    // flattens into the section); free of the old object joins it too.
    pthread_mutex_lock(&m);
    long *old = r->p, *n;
    AMBER_PERSISTENT {
      n = malloc(4 * sizeof *n);
      n[0] = old ? old[0] + 1 : 1;
    }
    r->p = n;
    free(old);
    pthread_mutex_unlock(&m);
    struct amber_usage u;
    amber_usage(&u);
    printf("p[0] %ld, objects %llu\n", r->p[0], (unsigned long long)u.objects);
  } else if (!strcmp(mode, "exit")) {
    // exit() inside a section: it never committed, so it is rolled back.
    pthread_mutex_lock(&m);
    r->a = 5;
    exit(0);
  } else if (!strcmp(mode, "show")) {
    printf("a %ld\n", r->a);
  } else if (!strcmp(mode, "inregion")) {
    pthread_mutex_lock(&m);
    r->a++;
    AMBER_PERSISTENT { pthread_mutex_unlock(&m); }
  }
  return 0;
}
// OFF: "update_commits": 31,
// ON: "update_commits": 11,
// TRY: nested trylock: busy
// TRY: a 3 b 3
// TRYSTATS: "update_commits": 4,
// ONE: "update_commits": 2,
// REGOFF: "update_commits": 4,
// CW: timedwait: timed out
// TWO: "update_commits": 3,
// CW2: amber: error: pthread_cond_timedwait() while this thread holds 2 program locks
// INREGION-MVCC: amber: error: a lock-delimited section (AMBER_FASE) calls code amber could not instrument
// INREGION: amber: error: the outermost unlock ended a lock-delimited section (AMBER_FASE=locks) inside an AMBER region
// EXIT: amber: warning: exit inside a lock-delimited section (AMBER_FASE=locks): its stores are rolled back at the next open
// SHOW: a 0
// ALLOC: p[0] 1, objects 2
// ALLOC2: p[0] 2, objects 2
// BAD: amber: error: AMBER_FASE=bogus is not a section mode
