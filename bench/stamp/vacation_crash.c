/* vacation_crash.c: STAMP's vacation with its database in the persistent
 * heap, for the kill -9 test (bench/stamp/vacation-crash,
 * test/crash/stamp_vacation.test).  Ours, not STAMP's: it links vacation's
 * objects unmodified (vacation.c built with -Dmain=stamp_vacation_main, so
 * that its checkTables and global_params are reachable and its main is not
 * in the way) and replaces vacation's main:
 *
 *   vacation-crash [-c N -n N -q N -r N -t N -u N]
 *       A heap without a database: builds vacation's manager (its four
 *       red-black trees) inside regions, so that every node is persistent,
 *       the same tables vacation's initializeManager builds (same random
 *       sequence, same ids), publishes it in the heap's root, then runs the
 *       clients (client_run, vacation's transactions) and checkTables.
 *   vacation-crash --check [same options]
 *       A heap with a database (the run above killed in its middle, then
 *       recovered at open): runs only vacation's own checkTables on the
 *       recovered manager.  Exit 0 and "Checking tables... done." when it
 *       holds; an assert of checkTables otherwise.  Without a database yet
 *       (killed during set-up) it says "no database" and exits 2.
 *
 * The options are kept in the root with the manager, and --check uses them.
 * vacation's tables hold function pointers (the trees' compare callbacks,
 * customer.c's compareReservationInfo): amber keeps them as named handles
 * (docs/guide.md 3.2), so a restart of the same binary calls them right. */
#include <amber.h>
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "manager.h"
#include "random.h"
#include "thread.h"
#include "timer.h"
#include "tm.h"

extern double global_params[256]; /* vacation.c */
void checkTables(manager_t *managerPtr); /* vacation.c */

struct vroot {
  manager_t *manager;          /* NULL until set-up has committed */
  double params[256];          /* vacation's global_params for this database */
};

static void set_defaults(void) {
  global_params['c'] = 1;
  global_params['n'] = 10;
  global_params['q'] = 90;
  global_params['r'] = 1 << 16;
  global_params['t'] = 1 << 26;
  global_params['u'] = 80;
}

static bool_t add_customer(manager_t *m, long id, long num, long price) {
  (void)num, (void)price;
  return manager_addCustomer_seq(m, id);
}

/* vacation.c's initializeManager, with each table insert in a region (a
 * region's malloc is persistent), 64 inserts a region. */
static manager_t *build_manager(void) {
  bool_t (*add[])(manager_t *, long, long, long) = {&manager_addCar_seq, &manager_addFlight_seq, &manager_addRoom_seq,
                                                    &add_customer};
  long n = (long)global_params['r'];
  random_t *rnd = random_alloc();
  long *ids = malloc(n * sizeof *ids);
  manager_t *m;
  assert(rnd && ids);
  printf("Initializing manager... ");
  fflush(stdout);
  AMBER_ATOMIC { m = manager_alloc(); }
  assert(m);
  for (long i = 0; i < n; i++) ids[i] = i + 1;
  for (int t = 0; t < 4; t++) {
    for (long i = 0; i < n; i++) {
      long x = random_generate(rnd) % n, y = random_generate(rnd) % n;
      long tmp = ids[x];
      ids[x] = ids[y];
      ids[y] = tmp;
    }
    for (long i = 0; i < n;) {
      long end = i + 64 < n ? i + 64 : n;
      long vals[64][2];
      for (long k = i; k < end; k++) {
        vals[k - i][0] = ((random_generate(rnd) % 5) + 1) * 100;
        vals[k - i][1] = ((random_generate(rnd) % 5) * 10) + 50;
      }
      AMBER_ATOMIC {
        for (long k = i; k < end; k++) assert(add[t](m, ids[k], vals[k - i][0], vals[k - i][1]));
      }
      i = end;
    }
  }
  puts("done.");
  fflush(stdout);
  random_free(rnd);
  free(ids);
  return m;
}

int main(int argc, char **argv) {
  int check = 0, opt;
  set_defaults();
  if (argc > 1 && !strcmp(argv[1], "--check")) {
    check = 1;
    argv[1] = argv[0];
    argv++, argc--;
  }
  while ((opt = getopt(argc, argv, "c:n:q:r:t:u:")) != -1) {
    if (!strchr("cnqrtu", opt)) {
      fprintf(stderr, "usage: vacation-crash [--check] [-c N -n N -q N -r N -t N -u N]\n");
      return 1;
    }
    global_params[(unsigned char)opt] = atol(optarg);
  }
  amber_open(NULL);
  struct vroot *root = amber_root(sizeof *root);
  if (check) {
    if (!root->manager) {
      puts("no database: the run stopped before its set-up committed");
      return 2;
    }
    memcpy(global_params, root->params, sizeof global_params);
    printf("Recovered database: %ld relations\n", (long)global_params['r']);
    checkTables(root->manager);
    return 0;
  }
  if (root->manager) {
    fprintf(stderr, "vacation-crash: the heap already holds a database; check it with --check or remove the heap\n");
    return 1;
  }
  manager_t *m = build_manager();
  AMBER_ATOMIC {
    memcpy(root->params, global_params, sizeof global_params);
    root->manager = m;
  }

  long nclient = (long)global_params['c'], ntx = (long)global_params['t'], nrel = (long)global_params['r'];
  long per = (long)((double)ntx / (double)nclient + 0.5);
  long range = (long)((double)global_params['q'] / 100.0 * (double)nrel + 0.5);
  client_t **clients = malloc(nclient * sizeof *clients);
  assert(clients);
  for (long i = 0; i < nclient; i++) {
    clients[i] = client_alloc(i, m, per, (long)global_params['n'], range, (long)global_params['u']);
    assert(clients[i]);
  }
  thread_startup(nclient);
  printf("Running clients... ");
  fflush(stdout);
  TIMER_T start, stop;
  TIMER_READ(start);
  thread_start(client_run, (void *)clients);
  TIMER_READ(stop);
  puts("done.");
  printf("Time = %0.6lf\n", TIMER_DIFF_SECONDS(start, stop));
  fflush(stdout);
  checkTables(m);
  thread_shutdown();
  return 0;
}
