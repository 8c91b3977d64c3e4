// Regions whose only reason to be irrevocable was a direct call to another
// module's function (issue 19): the pass no longer flags them
// AMBER_DESC_IRREVOCABLE (test/pass/irrevocable.c), so they start as
// readers; the call goes to the other module's clone, and when there is
// none (a plain-clang library) __amber_clone_of makes the transaction
// irrevocable at run time, which restarts a reader as a writer.
//  - "threads": two threads each run 2000 regions calling the second TU's
//    clones (1000 that add to the thread's heap slot, 1000 that only read
//    it): exact totals, exact commits (4000 plus amber_root's 1), no
//    irrevocable transaction, no upgrade restart on mvcc; on romulus the
//    reading regions stay readers (readonly commits 2000).
//  - "plain": one thread, 50 regions that add to the heap, then call a
//    plain-clang library's function: the first run's heap store is undone
//    when the call upgrades it (one upgrade restart, the descriptor's hint
//    starts the rest as writers), so the heap ends at exactly 50; every one
//    is irrevocable on mvcc (irrevocable_txns 50).
// RUN: %clang -O2 -fPIC -shared -DPLAIN %S/Inputs/xcall_lib.c -o %t.plain.so
// RUN: %amber_cc -O2 %s %S/Inputs/xcall_mt_tu2.c %t.plain.so -o %t -pthread
// RUN: env AMBER_ENGINE=mvcc AMBER_STATS_FILE=%t.m.json %run %t threads | FileCheck %s
// RUN: FileCheck %s --check-prefix=MVCC < %t.m.json
// RUN: env AMBER_ENGINE=romulus AMBER_STATS_FILE=%t.r.json %run %t threads | FileCheck %s
// RUN: FileCheck %s --check-prefix=ROM < %t.r.json
// RUN: env AMBER_ENGINE=mvcc AMBER_STATS_FILE=%t.p.json %run %t plain | FileCheck %s --check-prefix=PLAIN
// RUN: FileCheck %s --check-prefix=PSTATS < %t.p.json
// RUN: env AMBER_ENGINE=romulus AMBER_STATS_FILE=%t.q.json %run %t plain | FileCheck %s --check-prefix=PLAIN
// RUN: FileCheck %s --check-prefix=QSTATS < %t.q.json
// CHECK: slots 1000 1000 seen 1000 1000
// MVCC: "commits": 4001,
// MVCC-SAME: "aborts_upgrade": 0,
// MVCC: "irrevocable_txns": 0
// ROM: "commits": 4001, "update_commits": 2001, "readonly_commits": 2000,
// ROM-SAME: "aborts_upgrade": {{[12]}},
// PLAIN: plain: heap 50 local 50 hits 50
// PSTATS: "commits": 51,
// PSTATS-SAME: "aborts_upgrade": 1,
// PSTATS: "irrevocable_txns": 50
// QSTATS: "commits": 51,
// QSTATS-SAME: "aborts_upgrade": 1,
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

long mt_get(const long *slot);
void mt_add(long *slot, long by);
long plain_bump(long *heap, long by);
extern long plain_hits;

enum { N = 1000 };
static long *slots;
static long seen[2];

static void *worker(void *arg) {
  long i = (long)arg, s = 0;
  for (int k = 0; k < N; k++) {
    AMBER_ATOMIC { mt_add(&slots[i], 1); }
    long v = 0;
    AMBER_ATOMIC { v = mt_get(&slots[i]); }
    s += v == k + 1;
  }
  seen[i] = s;
  return NULL;
}

int main(int argc, char **argv) {
  slots = amber_root(2 * sizeof *slots);
  if (argc > 1 && !strcmp(argv[1], "plain")) {
    long local = 0; /* the library cannot write the heap (strict mode) */
    for (int k = 0; k < 50; k++) AMBER_ATOMIC {
        slots[0] += 1;
        plain_bump(&local, 1);
      }
    printf("plain: heap %ld local %ld hits %ld\n", slots[0], local, plain_hits);
    return 0;
  }
  pthread_t th[2];
  for (long i = 0; i < 2; i++) pthread_create(&th[i], NULL, worker, (void *)i);
  for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
  printf("slots %ld %ld seen %ld %ld\n", slots[0], slots[1], seen[0], seen[1]);
  return 0;
}
