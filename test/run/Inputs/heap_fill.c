/* A program that fills its heap: each region allocates and writes 16 KiB
 * and counts, and "ack N" is printed once region N committed.  "show"
 * prints the count; "truncate" commits once, truncates its own heap file
 * under itself and commits again; "own" installs a SIGBUS handler and
 * faults outside the heap (a truncated mapping of a file of its own);
 * "raise" sends itself SIGBUS. */
#include <amber.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct root {
  long n;
  void *last;
};

static void own(int sig) {
  static const char msg[] = "own handler ran\n";
  ssize_t w = write(1, msg, sizeof msg - 1);
  (void)w;
  _exit(sig == SIGBUS ? 3 : 4);
}

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  const char *mode = argc > 1 ? argv[1] : "fill";
  if (!strcmp(mode, "show")) {
    printf("n %ld\n", r->n);
    return 0;
  }
  if (!strcmp(mode, "truncate")) {
    AMBER_ATOMIC { r->n++; }
    printf("ack %ld\n", r->n);
    fflush(stdout);
    if (truncate(getenv("AMBER_HEAP"), 65536) != 0) return 1;
    AMBER_ATOMIC { r->n++; }
    printf("ack %ld\n", r->n);
    return 0;
  }
  if (!strcmp(mode, "own")) {
    struct sigaction a;
    memset(&a, 0, sizeof a);
    a.sa_handler = own;
    sigaction(SIGBUS, &a, NULL);
    char path[] = "/tmp/amber-heap-fill-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || ftruncate(fd, 8192) != 0) return 1;
    volatile char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    unlink(path);
    if (p == MAP_FAILED || ftruncate(fd, 0) != 0) return 1;
    p[4096] = 1; /* past the end of the file: SIGBUS, not in the heap */
    return 0;
  }
  if (!strcmp(mode, "raise")) {
    raise(SIGBUS);
    return 0;
  }
  for (long i = 0; i < 100000; i++) {
    AMBER_ATOMIC {
      char *p = malloc(16384);
      memset(p, 1, 16384);
      *(void **)p = r->last;
      r->last = p;
      r->n++;
    }
    printf("ack %ld\n", r->n);
    fflush(stdout);
  }
  return 0;
}
