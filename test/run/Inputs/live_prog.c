/* Watched while it runs (test/run/live_stats.test, live_heap.test,
 * dump.test): N regions (argv[1], default 50) on a root and a list of
 * objects it allocates (100 bytes and one of 5000), "ready" on stdout, then
 * it waits for its stdin to close before it ends. */
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
  struct node *next;
  long n;
  char text[84];
};
struct root {
  long runs;
  struct node *list;
  char *big;
  char tag[16];
};

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 50;
  struct root *r = amber_root(sizeof *r);
  AMBER_ATOMIC {
    strcpy(r->tag, "amber-live-tag");
    r->big = malloc(5000);
    memset(r->big, 'B', 5000);
  }
  for (int i = 0; i < n; i++) AMBER_ATOMIC {
      r->runs++;
      if (i < 3) {
        struct node *x = malloc(sizeof *x);
        x->next = r->list;
        x->n = i;
        snprintf(x->text, sizeof x->text, "node %d", i);
        r->list = x;
      }
    }
  printf("ready %ld\n", r->runs);
  fflush(stdout);
  while (getchar() != EOF) {
  }
  return 0;
}
