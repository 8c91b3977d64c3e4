/* Driven by gdb (test/run/gdb_view.test): what `print *g` shows at stops
 * outside and inside regions.  With an argument it waits on stdin instead,
 * for gdb -p: "ready" once its regions committed; after a line on stdin one
 * more region, the master brought up to date, and code built without the
 * pass reads the heap straight from the window (AMBER_STRICT=0): it must
 * see the file (11), not the view a debugger left behind (1). */
#include <amber.h>
#include <stdio.h>

struct root {
  long runs;
  long vals[4];
};
struct root *g;
static volatile int stops;
long peek_value(const long *p); /* Inputs/peek_lib.c, built without the pass */

__attribute__((noinline)) static void stop_here(void) { stops++; }

int main(int argc, char **argv) {
  g = amber_root(sizeof *g);
  AMBER_ATOMIC {
    g->runs++;
    g->vals[1] = 42;
  }
  stop_here(); /* outside regions: the latest commit */
  AMBER_ATOMIC {
    g->vals[2] = 7;
    stop_here(); /* inside: the region's own write too */
  }
  if (argc > 1) {
    printf("ready\n");
    fflush(stdout);
    char line[16];
    if (!fgets(line, sizeof line, stdin)) return 1;
    AMBER_ATOMIC { g->runs += 10; }
    struct amber_usage u;
    amber_usage(&u); /* writes the master back: current for code built without the pass */
    printf("after detach: runs %ld, read by a library %ld\n", g->runs, peek_value(&g->runs));
    return 0;
  }
  printf("runs %ld vals %ld %ld\n", g->runs, g->vals[1], g->vals[2]);
  return 0;
}
