// Threads created and ended in a loop reuse thread states (bounded by the
// threads alive at once), and their statistics still add up exactly.  On
// romulus: the count is romulus' 4 fences per update transaction, and incr
// reads the counter in place (romulus' direct reads).
// RUN: rm -f %t.heap && %unit_cc %s -o %t %unit_libs
// RUN: env AMBER_HEAP=%t.heap AMBER_HEAP_SIZE=4M AMBER_ENGINE=romulus %t
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#include "amber.h"
#include "pm/pm.h"
#include "tx/tx.h"

#define ROUNDS 300
static long *counter;

static void incr(void *arg) {
  long v = *counter + 1;
  amber_tx_write(amber_thread(), counter, &v, sizeof v);
}

static void *worker(void *arg) {
  amber_tx_run_internal(incr, NULL);
  return NULL;
}

int main(void) {
  counter = amber_heap_alias(amber_root(sizeof *counter)); /* runtime code: the engine takes alias addresses */
  struct amber_pm_counters before, after;
  amber_pm_counters_sum(&before);
  for (int i = 0; i < ROUNDS; i++) {
    pthread_t th;
    assert(pthread_create(&th, NULL, worker, NULL) == 0);
    assert(pthread_join(th, NULL) == 0);
  }
  amber_pm_counters_sum(&after);
  uint64_t fences = 0;
  for (int c = 0; c < AMBER_PM_NCAT; c++) fences += after.fences[c] - before.fences[c];
  printf("counter %ld, thread states %u, fences %llu\n", *counter, amber_thread_states(), (unsigned long long)fences);
  assert(*counter == ROUNDS);
  assert(amber_thread_states() <= 3);
  assert(fences == 4 * ROUNDS); /* romulus: 4 per update transaction */
  return 0;
}
