/* Crash-test workload for writes amber does not instrument: each region
 * formats a note into the heap with snprintf (libc code, not compiled by
 * amber-cc), so the engine must commit and roll back writes it never saw
 * (Romulus: commit by comparing the twins).  Notes span two cache lines,
 * so a torn note is visible.
 *
 *   notes run N     N regions, printing "ack I" after each commit
 *   notes check     prints "progress: P" and "check: ok", or
 *                   "check: FAILED why" and exits 1
 */
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 8
#define NOTE 96

struct notes {
  long n; /* notes written */
  char text[SLOTS][NOTE];
};

static void expected(long i, char out[NOTE]) {
  memset(out, 0, NOTE);
  snprintf(out, NOTE, "note %ld: %0*ld", i, 70, i * 7919);
}

int main(int argc, char **argv) {
  struct notes *r = amber_root(sizeof *r);
  if (argc > 2 && !strcmp(argv[1], "run")) {
    long n = atol(argv[2]);
    for (long i = r->n + 1; i <= n; i++) {
      AMBER_ATOMIC {
        snprintf(r->text[i % SLOTS], NOTE, "note %ld: %0*ld", i, 70, i * 7919);
        r->n = i;
      }
      printf("ack %ld\n", i);
      fflush(stdout);
    }
    return 0;
  }
  if (argc != 2 || strcmp(argv[1], "check")) {
    fprintf(stderr, "usage: notes run N | notes check\n");
    return 2;
  }
  char want[NOTE];
  for (long s = 0; s < SLOTS; s++) {
    /* The newest note in slot s among 1..n, if any. */
    long i = r->n - ((r->n - s) % SLOTS + SLOTS) % SLOTS;
    if (i >= 1) {
      expected(i, want);
      if (strncmp(r->text[s], want, NOTE)) {
        printf("progress: %ld\ncheck: FAILED slot %ld holds \"%.20s...\", expected note %ld\n", r->n, s, r->text[s], i);
        return 1;
      }
    } else if (r->text[s][0]) {
      printf("progress: %ld\ncheck: FAILED slot %ld written before its first note\n", r->n, s);
      return 1;
    }
  }
  printf("progress: %ld\ncheck: ok\n", r->n);
  return 0;
}
