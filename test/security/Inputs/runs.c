// Counts its runs in its heap and commits a note naming the user of the
// first run (the secret another user must not read).
#include <amber.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct root {
  long runs;
  char note[64];
};

int main(void) {
  struct root *r = amber_root(sizeof *r);
  /* Zeroed: the whole array is committed, and stack garbage after the
   * string (a pointer into ld.so's data, found by AMBER_CHECK_POINTERS)
   * must not reach the heap. */
  char note[64] = {0};
  snprintf(note, sizeof note, "secret-of-uid-%u", (unsigned)getuid());
  AMBER_ATOMIC {
    if (!r->runs) memcpy(r->note, note, sizeof note);
    r->runs++;
  }
  printf("run %ld (uid %u, heap made by %s)\n", r->runs, (unsigned)getuid(), r->note);
  return 0;
}
