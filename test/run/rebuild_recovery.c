// Recovery after a rebuild (issue 18 [2/7] part 3).  A process commits six
// nodes and kills itself while every one of them is only in the OLog (a
// second thread holds a snapshot, so nothing is written back); then the
// program is rebuilt at the same path with one line changed (-DVARIANT).
//
// Value records (the default): the rebuilt program, another program using
// the heap (-DREADER) and `amber recover` each recover every acknowledged
// commit; before that, check, info and stats count the six pending
// transactions and exit 0.
//
// Operational records (AMBER_OLOG=ops): check, info and stats count them,
// leave them out, never say "consistent" and exit 3; `amber recover` and
// the rebuilt program refuse the heap with one error naming the heap, the
// writer and its build, the op id and what to do, and leave the file
// unchanged; `amber recover HEAP --with OLD-BUILD` recovers everything, and
// the rebuilt program then opens the heap.
//
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: %amber_cc -O2 %s -o %t.d/prog -pthread
// RUN: cp %t.d/prog %t.d/old
// RUN: %amber_cc -O2 -DREADER %s -o %t.d/reader -pthread
//
// ---- value records (default) ----
// RUN: rm -f %t.heap
// RUN: env AMBER_ENGINE=mvcc %run %t.d/prog add 4 > %t.out
// RUN: not --crash %rerun %t.d/prog kill 6 > %t.out
// RUN: grep ^ack %t.out | awk '{print "node", $3, $4, $5}' | sort > %t.acked
// RUN: sh -c '%amber check %t.heap > %t.chk; echo "status $?" >> %t.chk'
// RUN: FileCheck %s --check-prefix=VCHECK < %t.chk
// RUN: %amber check %t.heap --json | %python -c "import json,sys; o=json.load(sys.stdin); assert o['status']==0 and o['result']=='consistent' and o['pending_txns']==6 and o['pending_left_out']==0 and o['complete'], o"
// RUN: %amber info %t.heap --json | %python -c "import json,sys; o=json.load(sys.stdin); assert o['pending_txns']==6 and o['pending_left_out']==0 and o['complete'], o"
// RUN: %amber info %t.heap | FileCheck %s --check-prefix=VINFO
// RUN: %amber stats %t.heap --json | %python -c "import json,sys; o=json.load(sys.stdin); assert o['pending_txns']==6 and o['pending_left_out']==0 and o['used_objects']==11, o"
// RUN: %amber stats %t.heap | FileCheck %s --check-prefix=VINFO
// RUN: cp %t.heap %t.copy1 && cp %t.heap %t.copy2
// The rebuilt program (same path, one line changed):
// RUN: %amber_cc -O2 -DVARIANT %s -o %t.d/prog -pthread
// RUN: %rerun %t.d/prog show > %t.show
// RUN: FileCheck %s --check-prefix=SHOWV2 < %t.show
// RUN: grep ^node %t.show | sort | comm -23 %t.acked - > %t.missing
// RUN: not grep . %t.missing
// Another program using the heap:
// RUN: env AMBER_HEAP=%t.copy1 LD_PRELOAD=%libamber %t.d/reader > %t.show
// RUN: FileCheck %s --check-prefix=READER < %t.show
// RUN: grep ^node %t.show | sort | comm -23 %t.acked - > %t.missing
// RUN: not grep . %t.missing
// amber recover, then the rebuilt program:
// RUN: %amber recover %t.copy2 | FileCheck %s --check-prefix=VRECOVER
// RUN: %amber check %t.copy2 | FileCheck %s --check-prefix=CLEAN
// RUN: env AMBER_HEAP=%t.copy2 LD_PRELOAD=%libamber %t.d/prog show > %t.show
// RUN: grep ^node %t.show | sort | comm -23 %t.acked - > %t.missing
// RUN: not grep . %t.missing
//
// ---- operational records (AMBER_OLOG=ops) ----
// RUN: cp %t.d/old %t.d/prog
// RUN: rm -f %t.heap
// RUN: env AMBER_ENGINE=mvcc AMBER_OLOG=ops AMBER_STATS_FILE=%t.json %run %t.d/prog add 4 > %t.out
// RUN: FileCheck %s --check-prefix=OPS < %t.json
// RUN: not --crash env AMBER_OLOG=ops %rerun %t.d/prog kill 6 > %t.out
// RUN: grep ^ack %t.out | awk '{print "node", $3, $4, $5}' | sort > %t.acked
// RUN: cp %t.heap %t.before
// RUN: sh -c '%amber check %t.heap > %t.chk 2>&1; echo "status $?" >> %t.chk'
// RUN: FileCheck %s --check-prefix=OCHECK < %t.chk
// RUN: sh -c '%amber check %t.heap --json 2>/dev/null > %t.chk.json; test $? = 3'
// RUN: %python -c "import json,sys; o=json.load(open(sys.argv[1])); assert o['status']==3 and o['result']=='incomplete' and o['pending_txns']==6 and o['pending_left_out']==6 and not o['complete'], o" %t.chk.json
// RUN: sh -c '%amber info %t.heap --json 2>/dev/null > %t.info.json; test $? = 3'
// RUN: %python -c "import json,sys; o=json.load(open(sys.argv[1])); assert o['pending_txns']==6 and o['pending_left_out']==6 and not o['complete'], o" %t.info.json
// RUN: sh -c '%amber stats %t.heap 2>/dev/null > %t.stats; test $? = 3'
// RUN: FileCheck %s --check-prefix=OSTATS < %t.stats
// RUN: not %amber recover %t.heap 2>&1 | FileCheck %s --check-prefix=ORECOVER
// RUN: cmp %t.heap %t.before
// The rebuilt program: one clear error, the heap unchanged.
// RUN: %amber_cc -O2 -DVARIANT %s -o %t.d/prog -pthread
// RUN: not %rerun %t.d/prog show > %t.show 2> %t.err
// RUN: FileCheck %s --check-prefix=OREBUILT < %t.err
// RUN: cmp %t.heap %t.before
// The build that wrote them recovers the heap without running its main:
// RUN: %amber recover %t.heap --with %t.d/old 2>&1 | FileCheck %s --check-prefix=OWITH
// RUN: %amber check %t.heap | FileCheck %s --check-prefix=CLEAN
// RUN: %rerun %t.d/prog show > %t.show
// RUN: FileCheck %s --check-prefix=SHOWV2 < %t.show
// RUN: grep ^node %t.show | sort | comm -23 %t.acked - > %t.missing
// RUN: not grep . %t.missing
// A program that is not the writer is refused by --with, the heap unchanged:
// RUN: rm -f %t.heap
// RUN: env AMBER_ENGINE=mvcc AMBER_OLOG=ops %run %t.d/old add 1 > %t.out
// RUN: not --crash env AMBER_OLOG=ops %rerun %t.d/old kill 2 > %t.out
// RUN: cp %t.heap %t.before
// RUN: not %amber recover %t.heap --with %t.d/prog 2>&1 | FileCheck %s --check-prefix=OWRONG
// RUN: cmp %t.heap %t.before
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

#ifndef READER
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
      memcpy(nd->key, key, sizeof key);
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
static void add(int k) { (void)k; }
#endif

int main(int argc, char **argv) {
#ifdef VARIANT
  printf("build v2\n"); /* the one changed line */
#else
  printf("build v1\n");
#endif
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
  printf("n %ld\n", count());
  for (struct node *p = r->head; p; p = p->next) printf("node %p %s %ld\n", (void *)p, p->key, p->salt);
  return 0;
}
// VCHECK: .heap: consistent after recovery: recovery has 6 committed transactions and {{[0-9]+}} checkpoint copies to apply (applied here on a private copy) (mvcc engine, 11 objects
// VCHECK: status 0
// VINFO: recovery {{ *}}recovery has 6 committed transactions and {{[0-9]+}} checkpoint copies to apply (applied here on a private copy)
// SHOWV2: build v2
// SHOWV2-NEXT: n 10
// READER: build v1
// READER-NEXT: n 10
// VRECOVER: .copy2: recovered (6 committed transactions applied)
// CLEAN: .{{heap|copy2}}: consistent (mvcc engine, 11 objects
// OPS: "olog_op_records": {{[4-9]}}
// OCHECK: amber: warning: heap {{.*}}.heap: 6 of the 6 committed transactions to recover are operational records (AMBER_OLOG=ops) that only {{.*}}/prog (build 0x{{[0-9a-f]+}}) can re-execute (amber recover {{.*}}.heap --with PROGRAM); what follows leaves out all 6
// OCHECK: .heap: incomplete: no damage found, but committed work is missing from what was checked: recovery has 6 committed transactions and {{[0-9]+}} checkpoint copies to apply; 6 of those transactions are left out here (operational records only the program that wrote them re-executes: amber recover {{.*}}.heap --with PROGRAM)
// OCHECK-NOT: consistent
// OCHECK: status 3
// OSTATS: state {{ *}}dirty (opened 2 times); recovery is pending: the figures below leave out the transactions named on the next line
// OSTATS-NEXT: recovery {{ *}}recovery has 6 committed transactions and {{[0-9]+}} checkpoint copies to apply; 6 of those transactions are left out here
// ORECOVER: amber: error: heap {{.*}}.heap: 6 of the 6 committed transactions to recover are operational records (AMBER_OLOG=ops) written by {{.*}}/prog (build 0x{{[0-9a-f]+}}), and the amber tool cannot re-execute a program's regions; nothing was changed. Recover it with that build: amber recover {{.*}}.heap --with PROGRAM (the same build; a rebuilt program is refused)
// OREBUILT: amber: error: heap {{.*}}.heap: 6 committed transactions after the last checkpoint are operational records (AMBER_OLOG=ops), which only the build that wrote them can re-execute: written by [[PROG:[^ ]*/prog]] (build 0x{{[0-9a-f]+}}) (first: OLog ring {{[0-9]+}} record {{[0-9]+}}, region op id 0x{{[0-9a-f]+}}, here region add#0 ({{.*}}rebuild_recovery.c:{{[0-9]+}})); this program, [[PROG]] (build 0x{{[0-9a-f]+}}), is a different build at the same path (rebuilt since). Nothing was changed. Recover the heap with the writer's build first: amber recover {{.*}}.heap --with OLD, OLD being that build (a copy kept from before the rebuild, or the same source built again without the change); then run this one. Value records (the default, AMBER_OLOG unset) recover in any build{{$}}
// OREBUILT-NOT: amber: error
// OWITH: amber: heap {{.*}}.heap: recovered by this build (6 committed transactions applied) and closed cleanly
// OWITH: .heap: recovered by {{.*}}/old
// OWRONG: amber: error: heap {{.*}}.heap: 2 committed transactions {{.*}} is a different program or build
// OWRONG: amber: error: recover --with {{.*}}/prog: it did not recover heap
