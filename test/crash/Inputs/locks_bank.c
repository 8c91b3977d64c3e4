/* Crash-test workload for lock-delimited sections (AMBER_FASE=locks): a
 * lock-based bank with no AMBER_* annotation at all.  Its only amber call is
 * amber_root (where the persistent data lives); its atomicity comes from
 * its pthread locks alone: under AMBER_FASE=locks each outermost
 * lock ... unlock is one failure-atomic section.  Without AMBER_FASE=locks
 * every store is its own transaction, so a crash between a debit and its
 * credit breaks the total (crashtest-locks.test shows the walk finds it).
 *
 *   locks_bank run N         N transfers, one thread: bank lock, then the two
 *                            account locks in order (nested), "ack I" after
 *                            the outermost unlock
 *   locks_bank threads T N   T threads x N transfers under the account locks
 *                            alone (taken in order), a persistent operation
 *                            count under an rwlock write lock, a read-locked
 *                            audit inside sections, and a condition-variable
 *                            handshake; prints "threads: ok" when the totals
 *                            hold
 *   locks_bank check         verify: the balances are exactly those of
 *                            transfers 1..T replayed (so the sum holds and
 *                            no transfer is partial); prints "progress: T"
 *                            and "check: ok", or exits 1
 */
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ACCOUNTS 8
#define START 1000

struct bank {
  long balance[ACCOUNTS];
  long transfers; /* sequence number of the last transfer (run mode) */
  long ops;       /* transfers of threads mode, under the rwlock */
  long initialised;
};

static struct bank *b;
static pthread_mutex_t bank_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t acct_lock[ACCOUNTS];
static pthread_rwlock_t ops_lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_rwlock_t audit_lock = PTHREAD_RWLOCK_INITIALIZER;

static void plan(long seq, long *from, long *to, long *amount) {
  *from = (seq * 5) % ACCOUNTS;
  *to = (seq * 3 + 1) % ACCOUNTS;
  if (*to == *from) *to = (*to + 1) % ACCOUNTS;
  *amount = seq % 40 + 1;
}

static void lock_pair(long x, long y) {
  long lo = x < y ? x : y, hi = x < y ? y : x;
  pthread_mutex_lock(&acct_lock[lo]);
  pthread_mutex_lock(&acct_lock[hi]);
}

static void unlock_pair(long x, long y) {
  pthread_mutex_unlock(&acct_lock[x]);
  pthread_mutex_unlock(&acct_lock[y]);
}

static void transfer(long seq) {
  long from, to, amount;
  plan(seq, &from, &to, &amount);
  pthread_mutex_lock(&bank_lock);
  lock_pair(from, to);
  b->balance[from] -= amount;
  b->balance[to] += amount;
  unlock_pair(from, to); /* nested: the section goes on */
  b->transfers = seq;
  pthread_mutex_unlock(&bank_lock); /* outermost: durable here */
}

/* ---- threads mode ---- */

static long nper;
static pthread_mutex_t go_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go_cond = PTHREAD_COND_INITIALIZER;
static int go;

static void *worker(void *arg) {
  long id = (long)arg;
  unsigned seed = (unsigned)id * 2654435761u + 1;
  /* Wait for the start signal: the wait ends and restarts a section. */
  pthread_mutex_lock(&go_lock);
  while (!go) pthread_cond_wait(&go_cond, &go_lock);
  pthread_mutex_unlock(&go_lock);
  for (long i = 0; i < nper; i++) {
    long from = rand_r(&seed) % ACCOUNTS, to = rand_r(&seed) % ACCOUNTS, amount = rand_r(&seed) % 50 + 1;
    if (from == to) to = (to + 1) % ACCOUNTS;
    lock_pair(from, to);
    b->balance[from] -= amount;
    /* A read lock inside the section: its release must not end it. */
    pthread_rwlock_rdlock(&audit_lock);
    pthread_rwlock_unlock(&audit_lock);
    b->balance[to] += amount;
    unlock_pair(from, to);
    pthread_rwlock_wrlock(&ops_lock);
    b->ops++;
    pthread_rwlock_unlock(&ops_lock);
  }
  return NULL;
}

static int threads(int n, long per) {
  nper = per;
  pthread_t th[64];
  if (n > 64) n = 64;
  long ops0 = b->ops;
  for (long i = 0; i < n; i++) pthread_create(&th[i], NULL, worker, (void *)i);
  pthread_mutex_lock(&go_lock);
  go = 1;
  pthread_cond_broadcast(&go_cond);
  pthread_mutex_unlock(&go_lock);
  for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
  long sum = 0;
  for (int i = 0; i < ACCOUNTS; i++) sum += b->balance[i];
  printf("sum %ld\nops %ld\n", sum, b->ops - ops0);
  int ok = sum == ACCOUNTS * START && b->ops - ops0 == n * per;
  printf("threads: %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  for (int i = 0; i < ACCOUNTS; i++) pthread_mutex_init(&acct_lock[i], NULL);
  b = amber_root(sizeof *b);
  if (argc > 2 && strcmp(argv[1], "check")) {
    pthread_mutex_lock(&bank_lock);
    if (!b->initialised) {
      for (int i = 0; i < ACCOUNTS; i++) b->balance[i] = START;
      b->initialised = 1;
    }
    pthread_mutex_unlock(&bank_lock);
  }
  if (argc > 2 && !strcmp(argv[1], "run")) {
    long n = atol(argv[2]);
    for (long i = b->transfers + 1; i <= n; i++) {
      transfer(i);
      printf("ack %ld\n", i);
      fflush(stdout);
    }
    return 0;
  }
  if (argc > 3 && !strcmp(argv[1], "threads")) return threads(atoi(argv[2]), atol(argv[3]));
  /* check: replay transfers 1..T from the starting balances (all zero
   * when the crash came before the first section committed). */
  long want[ACCOUNTS], sum = 0;
  int ok = b->initialised == 1 || (b->initialised == 0 && b->transfers == 0);
  for (int i = 0; i < ACCOUNTS; i++) want[i] = b->initialised ? START : 0;
  for (long s = 1; s <= b->transfers; s++) {
    long from, to, amount;
    plan(s, &from, &to, &amount);
    want[from] -= amount;
    want[to] += amount;
  }
  for (int i = 0; i < ACCOUNTS; i++) {
    sum += b->balance[i];
    if (b->balance[i] != want[i]) ok = 0;
  }
  printf("transfers %ld\nsum %ld\n", b->transfers, sum);
  printf("progress: %ld\n", b->transfers);
  printf("check: %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
