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

static void transfer(struct bank *b, long seq) {
  long from = (seq * 7) % ACCOUNTS, to = (seq * 11 + 3) % ACCOUNTS, amount = seq % 50 + 1;
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
    for (long i = b->transfers + 1; i <= n; i++) {
      transfer(b, i);
      printf("ack %ld\n", i);
      fflush(stdout);
    }
    return 0;
  }
  long sum = 0, count = 0, bytes = 0, last = 0;
  for (int i = 0; i < ACCOUNTS; i++) sum += b->balance[i];
  int ok = sum == ACCOUNTS * START;
  for (struct record *r = b->oldest; r; r = r->next) {
    count++;
    bytes += 48; /* the size class of struct record */
    if (r->seq <= last || r->amount != r->seq % 50 + 1) ok = 0;
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
