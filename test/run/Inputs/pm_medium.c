/* One update transaction on the heap's root, then the count: for the
 * medium tests (pm_medium_disk.test, pm_medium_shm.test). */
#include <amber.h>
#include <stdio.h>

int main(void) {
  long *n = amber_root(sizeof(long));
  AMBER_ATOMIC { *n += 1; }
  printf("count %ld\n", *n);
  return 0;
}
