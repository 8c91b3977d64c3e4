// Two threads take turns; each takes new_time of the other's last value and
// checks that it compares certainly greater (cmp_time == 1), across cores.
// RUN: %unit_cc %s -o %t %unit_libs
// RUN: %t
// RUN: env AMBER_ORDO_BOUNDARY=1 %t
// RUN: env AMBER_ORDO_BOUNDARY=5000 %t
// RUN: env AMBER_CLOCK=logical %t
#include <assert.h>
#include <pthread.h>

#include "ordo/ordo.h"

enum { ROUNDS = 2000 };
static _Alignas(64) amber_time_t last;
static _Alignas(64) int turn;

static void *player(void *arg) {
  int me = (int)(long)arg;
  amber_time_t mine = 0;
  for (int i = 0; i < ROUNDS; i++) {
    while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != me) __builtin_ia32_pause();
    amber_time_t theirs = __atomic_load_n(&last, __ATOMIC_RELAXED);
    amber_time_t t = amber_ordo_new_time(theirs);
    assert(amber_ordo_cmp_time(t, theirs) == 1);
    assert(amber_ordo_cmp_time(theirs, t) == -1);
    if (mine) assert(amber_ordo_cmp_time(t, mine) == 1);
    mine = t;
    __atomic_store_n(&last, t, __ATOMIC_RELAXED);
    __atomic_store_n(&turn, 1 - me, __ATOMIC_RELEASE);
  }
  return NULL;
}

int main(void) {
  last = amber_ordo_get_time();
  pthread_t a, b;
  pthread_create(&a, NULL, player, (void *)0L);
  pthread_create(&b, NULL, player, (void *)1L);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return 0;
}
