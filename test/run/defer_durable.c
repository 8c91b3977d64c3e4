// Deferred durability (amber_defer_durability_begin/end, amber_wait_durable;
// docs/guide.md "Deferred durability"), under the crash simulator's model of
// the msync backend with a power failure: the heap that comes back is the
// durable image (AMBER_SIM_DURABLE), only what the group commit's syncs made
// durable.  The program commits 10 regions under the scope, waits, commits
// 10 more without waiting and is killed.
//  * mvcc: the 10 waited for always come back; in the pessimistic image
//    (nothing written back early) none of the 10 others does (their commits
//    returned before any sync: the scope defers); with pages written back
//    early at random (AMBER_SIM_WRITEBACK=50), a later record of the batch
//    can survive an earlier one: recovery takes it for a batch the crash
//    tore, not damage, and keeps a prefix of the batch in commit order.
//  * acknowledged damage: both batches waited for (acknowledged), then one
//    record of the second batch damaged on the medium: recovery cannot tell
//    it from a batch the crash tore and drops it with the later ones (a
//    prefix of the batch stays), with an amber: warning that names the heap
//    and the count; the pessimistic image above, a plain unwritten end,
//    gets no warning.
//  * tokens (amber_durable_token, amber_wait_token on another thread,
//    amber_token_durable): the same as "write", the first 10 waited for by
//    a second thread through the main thread's token: they come back; the
//    token is not durable before that wait (pessimistic image: nothing
//    written back early) and is after it.
//  * romulus (no tickets): commits stay durable at return, all 20 come back.
//  * misuse: amber_defer_durability_end without a begin, and a call inside
//    a region, are errors.
// RUN: %amber_cc -O2 %s -o %t
// RUN: rm -f %t.durable
// RUN: not --crash env AMBER_ENGINE=mvcc AMBER_PM=sim AMBER_SIM_MSYNC=1 AMBER_SIM_DURABLE=%t.durable %run %t write | FileCheck %s --check-prefix=WRITE
// RUN: env AMBER_HEAP=%t.durable AMBER_PM=none AMBER_PM_POWER_LOSS_OK=1 AMBER_STATS_FILE=%t.json %t read 2>&1 | FileCheck %s --check-prefix=PESSIMISTIC --implicit-check-not=warning:
// RUN: %amber check %t.durable | FileCheck %s --check-prefix=HEAP
// RUN: sh -c 'for s in 1 2 3 4 5 6 7 8; do rm -f %t.d$s; env AMBER_ENGINE=mvcc AMBER_PM=sim AMBER_SIM_MSYNC=1 AMBER_SIM_WRITEBACK=50 AMBER_SIM_SEED=$s AMBER_SIM_DURABLE=%t.d$s %run %t write >/dev/null 2>&1; env AMBER_HEAP=%t.d$s AMBER_PM=none AMBER_PM_POWER_LOSS_OK=1 %t read || exit 1; %amber check %t.d$s >/dev/null || exit 1; done' | FileCheck %s --check-prefix=SEEDS
// RUN: rm -f %t.token
// RUN: not --crash env AMBER_ENGINE=mvcc AMBER_PM=sim AMBER_SIM_MSYNC=1 AMBER_SIM_DURABLE=%t.token %run %t write-token | FileCheck %s --check-prefix=TOKEN
// RUN: env AMBER_HEAP=%t.token AMBER_PM=none AMBER_PM_POWER_LOSS_OK=1 %t read 2>&1 | FileCheck %s --check-prefix=PESSIMISTIC --implicit-check-not=warning:
// RUN: rm -f %t.acked
// (The damaged record must lie in its ring: AMBER_PM_JOURNAL=0, syncs in
// place.  With the sync journal the records reach the image through it,
// and damage there is run/sync_journal_replay.c's.)
// RUN: not --crash env AMBER_ENGINE=mvcc AMBER_PM=sim AMBER_SIM_MSYNC=1 AMBER_PM_JOURNAL=0 AMBER_SIM_DURABLE=%t.acked %run %t write-acked | FileCheck %s --check-prefix=ACKED
// RUN: %python %S/Inputs/damage_record.py %t.acked 8
// RUN: env AMBER_HEAP=%t.acked AMBER_PM=none AMBER_PM_POWER_LOSS_OK=1 %t read 2>&1 | FileCheck %s --check-prefix=DAMAGED
// RUN: rm -f %t.durable
// RUN: not --crash env AMBER_ENGINE=romulus AMBER_PM=sim AMBER_SIM_MSYNC=1 AMBER_SIM_DURABLE=%t.durable %run %t write | FileCheck %s --check-prefix=WRITE
// RUN: env AMBER_HEAP=%t.durable AMBER_PM=none AMBER_PM_POWER_LOSS_OK=1 %t read | FileCheck %s --check-prefix=SYNC
// RUN: not %run %t unbalanced 2>&1 | FileCheck %s --check-prefix=UNBALANCED
// RUN: not %run %t inside 2>&1 | FileCheck %s --check-prefix=INSIDE

// WRITE: waited 10
// WRITE-NEXT: deferred 10
// PESSIMISTIC: acknowledged 10 of 10; not waited for: 0 of 10, a prefix
// HEAP: consistent
// TOKEN: token set, durable 0
// TOKEN-NEXT: waited 10 on another thread, durable 1
// TOKEN-NEXT: deferred 10
// ACKED: waited 10
// ACKED-NEXT: waited 20
// DAMAGED: amber: warning: heap {{.*}}.acked: recovery dropped 7 OLog records, 7 of them in a deferred-durability batch the crash tore: a torn batch was never acknowledged, but damage to a batch that was made durable and acknowledged looks the same
// DAMAGED: acknowledged 10 of 10; not waited for: 2 of 10, a prefix
// SEEDS-COUNT-8: acknowledged 10 of 10; not waited for: {{[0-9]+}} of 10, a prefix
// SYNC: acknowledged 10 of 10; not waited for: 10 of 10, a prefix
// UNBALANCED: amber: error: amber_defer_durability_end called without a matching amber_defer_durability_begin
// INSIDE: amber: error: amber_wait_durable called inside a region

#include <amber.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

struct root {
  long n[20];
};

static void *waiter(void *arg) {
  amber_wait_token(*(unsigned long long *)arg);
  return NULL;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "unbalanced")) {
    amber_defer_durability_end();
    return 0;
  }
  struct root *r = amber_root(sizeof *r);
  if (!strcmp(mode, "inside")) {
    AMBER_ATOMIC { amber_wait_durable(); }
    return 0;
  }
  if (!strcmp(mode, "write-token")) {
    amber_defer_durability_begin();
    for (int i = 0; i < 10; i++) AMBER_ATOMIC { r->n[i] = i + 1; }
    unsigned long long tok = amber_durable_token();
    printf("token %s, durable %d\n", tok ? "set" : "0", amber_token_durable(tok));
    pthread_t t;
    pthread_create(&t, NULL, waiter, &tok);
    pthread_join(t, NULL);
    printf("waited 10 on another thread, durable %d\n", amber_token_durable(tok));
    for (int i = 10; i < 20; i++) AMBER_ATOMIC { r->n[i] = i + 1; }
    printf("deferred 10\n");
    fflush(stdout);
    raise(SIGKILL);
  }
  if (!strcmp(mode, "write-acked")) { /* both batches acknowledged */
    amber_defer_durability_begin();
    for (int i = 0; i < 20; i++) {
      AMBER_ATOMIC { r->n[i] = i + 1; }
      if (i == 9 || i == 19) {
        amber_wait_durable();
        printf("waited %d\n", i + 1);
      }
    }
    fflush(stdout);
    raise(SIGKILL);
  }
  if (!strcmp(mode, "write")) {
    amber_defer_durability_begin();
    for (int i = 0; i < 10; i++) AMBER_ATOMIC { r->n[i] = i + 1; }
    amber_wait_durable();
    printf("waited 10\n");
    for (int i = 10; i < 20; i++) AMBER_ATOMIC { r->n[i] = i + 1; }
    printf("deferred 10\n");
    fflush(stdout);
    raise(SIGKILL); /* the power failure: the durable image is what is left */
  }
  int acked = 0, later = 0, prefix = 1;
  AMBER_ATOMIC {
    acked = later = 0;
    prefix = 1;
    for (int i = 0; i < 10; i++) acked += r->n[i] == i + 1;
    for (int i = 10; i < 20; i++) {
      if (r->n[i] == i + 1) {
        prefix &= later == i - 10;
        later++;
      } else if (r->n[i]) {
        prefix = 0;
      }
    }
  }
  printf("acknowledged %d of 10; not waited for: %d of 10, %s\n", acked, later, prefix ? "a prefix" : "NOT a prefix");
  return acked == 10 && prefix ? 0 : 1;
}
