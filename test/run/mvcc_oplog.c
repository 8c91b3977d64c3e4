// mvcc operational records (issue [6/7] parts 1, 2 and 5; opt-in since issue
// 18 [2/7] part 3: AMBER_OLOG=ops, values being the default): a commit logs
// the region's op id, its closure and the inputs it took from outside the
// heap; recovery re-executes the region.  A forced schedule keeps the
// versions out of the master (a second thread holds a snapshot), and the
// process kills itself with the commits only in DRAM and in the OLog.
//   - every acknowledged node is back at the address it was allocated at,
//     with the key copied from a stack buffer and the salt read from a
//     volatile global, and the count is right;
//   - a different build (-DOTHER: other regions, other op ids) refuses the
//     heap with an error naming the op id and the program that wrote it,
//     and leaves the file unchanged;
//   - AMBER_OLOG=values (and the default) writes no operational record, and
//     recovers too; another value is an error.
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: %amber_cc -O2 -DOTHER %s -o %t.other -pthread
// RUN: rm -f %t.heap
// RUN: env AMBER_ENGINE=mvcc AMBER_OLOG=ops AMBER_STATS_FILE=%t.json %run %t add 4 > %t.out
// RUN: FileCheck %s --check-prefix=OPS < %t.json
// RUN: not --crash env AMBER_OLOG=ops %rerun %t kill 6 > %t.out
// RUN: cp %t.heap %t.copy
// RUN: not %rerun %t.other show 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: cmp %t.heap %t.copy
// RUN: env AMBER_STATS_FILE=%t.json %rerun %t show > %t.show
// RUN: FileCheck %s --check-prefix=SHOW < %t.show
// RUN: FileCheck %s --check-prefix=REPLAY6 < %t.json
// RUN: grep ^ack %t.out | awk '{print "node", $3, $4, $5}' | sort > %t.acked
// RUN: grep ^node %t.show | sort > %t.shown
// RUN: comm -23 %t.acked %t.shown > %t.missing
// RUN: not grep . %t.missing
// RUN: %amber check %t.heap
// RUN: rm -f %t.heap
// RUN: env AMBER_ENGINE=mvcc AMBER_OLOG=values AMBER_STATS_FILE=%t.json %run %t add 4 > %t.out
// RUN: FileCheck %s --check-prefix=VALUES < %t.json
// RUN: env AMBER_ENGINE=mvcc AMBER_STATS_FILE=%t.json %run %t add 4 > %t.out
// RUN: FileCheck %s --check-prefix=VALUES < %t.json
// RUN: not --crash env AMBER_OLOG=values %rerun %t kill 6 > %t.out
// RUN: %rerun %t show | FileCheck %s --check-prefix=SHOW
// RUN: not env AMBER_ENGINE=mvcc AMBER_OLOG=bogus %run %t add 1 2>&1 | FileCheck %s --check-prefix=BADOLOG
#include <amber.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct node { struct node *next; long salt; char key[24]; };
struct root { long n; struct node *head; };
static struct root *r;
static int hold, held;
static long salt = 1000; /* volatile input: read inside the region */

static void *holder(void *arg) {
  (void)arg;
  long n = 0;
  AMBER_ATOMIC_ISO(AMBER_SI) {
    n = r->n;
    __atomic_store_n(&held, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&hold, __ATOMIC_SEQ_CST)) {
    }
  }
  return (void *)n;
}

static long count(void) {
  long n = 0;
  AMBER_ATOMIC { n = r->n; }
  return n;
}

#ifndef OTHER
static void add(int k) {
  long n0 = count();
  for (int i = 0; i < k; i++) {
    char key[24] = {0}; /* all 24 bytes are copied: none left to stack garbage, which the pointer check may take for a stack pointer */
    snprintf(key, sizeof key, "key-%ld", n0 + i + 1);
    salt += 7;
    struct node *nd = NULL;
    long n = 0;
    AMBER_ATOMIC {
      nd = malloc(sizeof *nd);
      memcpy(nd->key, key, sizeof key); /* from the stack into the heap */
      nd->salt = salt;
      nd->next = r->head;
      r->head = nd;
      n = ++r->n;
    }
    printf("ack %ld %p %s %ld\n", n, (void *)nd, key, nd->salt);
    fflush(stdout);
  }
}
#else
static void bump(int k) {
  for (int i = 0; i < k; i++) AMBER_ATOMIC { r->n += 2; }
}
#define add bump
#endif

int main(int argc, char **argv) {
  r = amber_root(sizeof *r);
  const char *cmd = argc > 1 ? argv[1] : "show";
  int k = argc > 2 ? atoi(argv[2]) : 0;
  if (!strcmp(cmd, "add")) add(k);
  if (!strcmp(cmd, "kill")) {
    pthread_t h;
    __atomic_store_n(&hold, 1, __ATOMIC_SEQ_CST);
    pthread_create(&h, NULL, holder, NULL);
    while (!__atomic_load_n(&held, __ATOMIC_SEQ_CST)) {
    }
    add(k);
    kill(getpid(), SIGKILL);
  }
  printf("n %ld\n", r->n);
  for (struct node *p = r->head; p; p = p->next) printf("node %p %s %ld\n", (void *)p, p->key, p->salt);
  return 0;
}
// OPS: "olog_op_records": {{[4-9]}}
// OTHER: amber: error: heap {{.*}}: 6 committed transactions after the last checkpoint are operational records (AMBER_OLOG=ops), which only the build that wrote them can re-execute: written by {{.*}}mvcc_oplog.c.tmp (build 0x{{[0-9a-f]+}}) (first: OLog ring {{[0-9]+}} record {{[0-9]+}}, region op id 0x{{[0-9a-f]+}}, no region of this program has that op id); this program, {{.*}}mvcc_oplog.c.tmp.other (build 0x{{[0-9a-f]+}}), is a different program or build. Nothing was changed.
// SHOW: n 10
// SHOW-NEXT: node {{0x[0-9a-f]+}} key-10 1042
// SHOW: node {{0x[0-9a-f]+}} key-5 1007
// SHOW: node {{0x[0-9a-f]+}} key-1 1007
// SHOW-NOT: node
// REPLAY6: "replayed_txns": 6
// VALUES: "olog_op_records": 0
// BADOLOG: amber: error: AMBER_OLOG=bogus is not a record kind; use values (the default) or ops
