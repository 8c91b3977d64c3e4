/* bench/startup's programs (issue 27, item 5): what a process costs to
 * start, exit, and in between open (or create) its heap and run one region.
 *
 *   -DEMPTY  an empty main
 *   else     amber_root, then one region that increments a counter in it;
 *            with -DPLAIN (plain clang) the same work on calloc'd memory.
 */
#ifdef EMPTY
int main(void) { return 0; }
#else
#include <stdio.h>
#ifdef PLAIN
#include <stdlib.h>
#define AMBER_ATOMIC
static void *amber_root(size_t n) { return calloc(1, n); }
#else
#include <amber.h>
#endif

struct root {
  long runs;
};

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  if (!r) return 1;
  AMBER_ATOMIC { r->runs++; }
  if (argc > 1) printf("%ld\n", r->runs); /* --print: the tests check the work was done */
  (void)argv;
  return 0;
}
#endif
