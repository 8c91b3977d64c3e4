// mvcc engine durability (issue [6/7]) with value records (AMBER_OLOG=values;
// test/run/mvcc_oplog.c does it with operational records): every
// acknowledged commit survives kill -9 and is recovered from the OLog at the
// next open;
// a clean close leaves nothing to replay.  A forced schedule keeps the
// versions out of the master: a second thread stays inside a read-only
// transaction, so nothing can be written back, and the process kills itself
// with every commit only in DRAM and in the OLog.  Recovery must apply
// exactly those records, reproduce the allocated nodes at their addresses
// with the keys copied from a stack buffer, and running it again (on the
// recovered heap) applies nothing.
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: rm -f %t.heap
// RUN: not env AMBER_ENGINE=mvcc AMBER_BLOCK=100 %run %t 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: env AMBER_ENGINE=mvcc AMBER_OLOG=values AMBER_STATS_FILE=%t.json %run %t add 5 > %t.out
// RUN: FileCheck %s --check-prefix=FIRST < %t.out
// RUN: FileCheck %s --check-prefix=NOREPLAY < %t.json
// RUN: not --crash env AMBER_OLOG=values AMBER_STATS_FILE=%t.json %rerun %t kill 7 > %t.out
// RUN: FileCheck %s --check-prefix=KILLED < %t.out
// RUN: %amber info %t.heap | FileCheck %s --check-prefix=DIRTY
// RUN: env AMBER_STATS_FILE=%t.json %rerun %t show > %t.out
// RUN: FileCheck %s --check-prefix=SHOW < %t.out
// RUN: FileCheck %s --check-prefix=REPLAY7 < %t.json
// RUN: env AMBER_STATS_FILE=%t.json %rerun %t show > %t.out
// RUN: FileCheck %s --check-prefix=SHOW < %t.out
// RUN: FileCheck %s --check-prefix=NOREPLAY < %t.json
// RUN: %amber check %t.heap
#include <amber.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct node { struct node *next; char key[24]; };
struct root { long n; struct node *head; };
static struct root *r;
static int hold, held;

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

/* Persistent data is read inside regions: outside them, this engine's
 * master may lag behind the newest commit while the holder runs. */
static long count(void) {
  long n = 0;
  AMBER_ATOMIC { n = r->n; }
  return n;
}

static void add(int k) {
  long n0 = count();
  for (int i = 0; i < k; i++) {
    char key[24] = {0}; /* all 24 bytes are copied: none left to stack garbage, which the pointer check may take for a stack pointer */
    snprintf(key, sizeof key, "key-%ld", n0 + i + 1);
    struct node *nd = NULL;
    long n = 0;
    AMBER_ATOMIC {
      nd = malloc(sizeof *nd);
      memcpy(nd->key, key, sizeof key); /* from the stack into the heap */
      nd->next = r->head;
      r->head = nd;
      n = ++r->n;
    }
    printf("ack %ld %p %s\n", n, (void *)nd, key);
    fflush(stdout);
  }
}

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
  for (struct node *p = r->head; p; p = p->next) printf("node %p %s\n", (void *)p, p->key);
  return 0;
}
// BLOCK: amber: error: AMBER_BLOCK=100 for new heap {{.*}}: the mvcc block size must be a power of two between 16 and 4096 bytes
// FIRST: ack 5 [[A5:0x[0-9a-f]+]] key-5
// FIRST: n 5
// NOREPLAY: "replayed_txns": 0
// KILLED: ack 6 [[A6:0x[0-9a-f]+]] key-6
// KILLED: ack 12 [[A12:0x[0-9a-f]+]] key-12
// KILLED-NOT: n 12
// DIRTY: dirty
// SHOW: n 12
// SHOW-NEXT: node {{0x[0-9a-f]+}} key-12
// SHOW: node {{0x[0-9a-f]+}} key-6
// SHOW: node {{0x[0-9a-f]+}} key-1
// SHOW-NOT: node
// REPLAY7: "replayed_txns": 7
