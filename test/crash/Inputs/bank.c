/* Crash-test workload: transfers between accounts (the sum never changes)
 * plus allocation churn (each transfer appends a record to a persistent list
 * and frees the oldest beyond 8), so a crash anywhere must leave neither a
 * partial transfer nor a leaked or lost record.
 *
 *   bank run N     do N transfers, printing "ack I" after each commit
 *   bank check     verify; prints "transfers T", "progress: T" (the transfers
 *                  present, for tools/crashtest), "check: ok" or exits 1
 *
 * Built with -DBANK_RETRY (test/crash/crashtest-retry.test), each
 * transfer's first run scribbles over a balance, allocates and links a junk
 * record, then calls amber_retry(): all of it must vanish, in every crash
 * image too (on romulus the writer's rollback restores main from back).
 * With -DBANK_CANCEL (test/crash/crashtest-cancel.test), each transfer is
 * preceded by a region that does the same, frees the oldest record, sets a
 * local and calls amber_cancel(): it must vanish likewise, and the program
 * go on after it with the local as it was.
 * With -DBANK_DEFER=K (test/crash/crashtest-defer.test), the transfers run
 * under amber_defer_durability_begin and are acknowledged K at a time,
 * after amber_wait_durable: a crash may keep any prefix of an
 * unacknowledged batch (a torn batch: docs/engines/mvcc.md), never a gap.
 */
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ACCOUNTS 16
#define KEEP 8
#define START 1000

struct record {
  long seq, from, to, amount;
  struct record *next;
};

struct bank {
  long initialised;
  long balance[ACCOUNTS];
  long transfers;
  long nrecords;
  struct record *oldest, *newest;
};

#ifdef BANK_RETRY
AMBER_UNISOLATED static long runs; /* every run of a transfer's region: not undone */
#endif

/* Transfer seq's accounts and amount: a function of seq alone, so that the
 * check can recompute every balance from the count of transfers present. */
static void transfer_of(long seq, long *from, long *to, long *amount) {
  *from = (seq * 7) % ACCOUNTS;
  *to = (seq * 11 + 3) % ACCOUNTS;
  *amount = seq % 50 + 1;
}

static void transfer(struct bank *b, long seq) {
  long from, to, amount;
  transfer_of(seq, &from, &to, &amount);
#ifdef BANK_CANCEL
  long moved = 0;
  AMBER_ATOMIC {
    struct record *junk = malloc(sizeof *junk);
    junk->seq = -1;
    junk->next = NULL;
    b->balance[from] += 1000000;
    if (b->newest) b->newest->next = junk;
    b->newest = junk;
    if (b->nrecords > 1) {
      struct record *o = b->oldest;
      b->oldest = o->next;
      free(o);
      b->nrecords--;
    }
    moved = amount;
    amber_cancel();
  }
  if (moved) {
    fprintf(stderr, "bank: a cancelled region's assignment to a local survived\n");
    exit(2);
  }
#endif
  AMBER_ATOMIC {
#ifdef BANK_RETRY
    if (runs++ % 2 == 0) {
      struct record *junk = malloc(sizeof *junk);
      junk->seq = -1;
      junk->next = NULL;
      b->balance[from] += 1000000;
      if (b->newest) b->newest->next = junk;
      b->newest = junk;
      amber_retry();
    }
#endif
    struct record *r = malloc(sizeof *r);
    r->seq = seq;
    r->from = from;
    r->to = to;
    r->amount = amount;
    r->next = NULL;
    if (b->newest) b->newest->next = r;
    else b->oldest = r;
    b->newest = r;
    b->nrecords++;
    if (b->nrecords > KEEP) {
      struct record *o = b->oldest;
      b->oldest = o->next;
      free(o);
      b->nrecords--;
    }
    b->balance[from] -= amount;
    b->balance[to] += amount;
    b->transfers = seq;
  }
}

int main(int argc, char **argv) {
  struct bank *b = amber_root(sizeof *b);
  if (!b->initialised) {
    AMBER_ATOMIC {
      for (int i = 0; i < ACCOUNTS; i++) b->balance[i] = START;
      b->initialised = 1;
    }
  }
  if (argc > 2 && !strcmp(argv[1], "run")) {
    long n = atol(argv[2]);
#ifdef BANK_DEFER
    amber_defer_durability_begin();
    long acked = b->transfers;
    for (long i = b->transfers + 1; i <= n; i++) {
      transfer(b, i);
      if (i - acked == BANK_DEFER || i == n) {
        amber_wait_durable(); /* the batch is durable: acknowledge it */
        for (acked++; acked <= i; acked++) printf("ack %ld\n", acked);
        acked = i;
        fflush(stdout);
      }
    }
    amber_defer_durability_end();
#else
    for (long i = b->transfers + 1; i <= n; i++) {
      transfer(b, i);
      printf("ack %ld\n", i);
      fflush(stdout);
    }
#endif
    return 0;
  }
  long sum = 0, count = 0, bytes = 0, last = 0;
  for (int i = 0; i < ACCOUNTS; i++) sum += b->balance[i];
  int ok = sum == ACCOUNTS * START;
  /* Exactly transfers 1..T, in order: each balance is what they give (a
   * lost transfer in the middle, a gap, changes some balance). */
  long expect[ACCOUNTS];
  for (int i = 0; i < ACCOUNTS; i++) expect[i] = START;
  for (long s = 1; s <= b->transfers; s++) {
    long from, to, amount;
    transfer_of(s, &from, &to, &amount);
    expect[from] -= amount;
    expect[to] += amount;
  }
  for (int i = 0; i < ACCOUNTS; i++)
    if (b->balance[i] != expect[i]) ok = 0;
  for (struct record *r = b->oldest; r; r = r->next) {
    count++;
    bytes += 48; /* the size class of struct record */
    if ((last && r->seq != last + 1) || r->seq <= last || r->amount != r->seq % 50 + 1) ok = 0;
    last = r->seq;
    if (!r->next && r != b->newest) ok = 0;
  }
  if (count != b->nrecords || (b->transfers && last != b->transfers)) ok = 0;
  struct amber_usage u;
  amber_usage(&u);
  long root_bytes = 192; /* sizeof(struct bank) (168) rounded to its size class */
  long leaked = (long)u.bytes - bytes - root_bytes;
  printf("transfers %ld\nsum %ld\nrecords %ld\nleaked-bytes %ld\n", b->transfers, sum, count, leaked);
  printf("progress: %ld\n", b->transfers);
  if (leaked != 0) ok = 0;
  printf("check: %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
