/* counter: a persistent run counter and a persistent log of runs.  Each run
 * adds one in a transaction; kill it at any point and the next run finds
 * either the old or the new count, never a half-done update.  Built by
 * examples/cmake/CMakeLists.txt (find_package(amber), amber_instrument). */
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>

struct entry { long run; struct entry *next; };
struct root { long runs; struct entry *log; };

int main(void) {
  struct root *r = amber_root(sizeof *r); /* zeroed on the first run */
  AMBER_ATOMIC {                          /* one durable transaction */
    struct entry *e = malloc(sizeof *e);  /* persistent: inside a region */
    e->run = ++r->runs;
    e->next = r->log;
    r->log = e;
  }
  long logged = 0;
  for (struct entry *e = r->log; e; e = e->next) logged++;
  printf("run %ld (%ld logged)\n", r->runs, logged);
  return 0;
}
