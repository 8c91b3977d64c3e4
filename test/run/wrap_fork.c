// fork() while the heap is open: a child that execs, or exits without
// touching the heap, is fine and leaves the heap alone (no statistics, no
// clean close from the child); a child that touches the heap (a plain load,
// a region, a libc call on heap memory) stops with an amber: error: and
// status 2.  The parent goes on using the heap.  Both engines.
// RUN: %clang -O1 -fno-builtin -c %S/Inputs/wrap_helper.c -o %t.helper.o
// RUN: %amber_cc -O2 %s %t.helper.o -o %t
// RUN: env AMBER_STATS=1 %run %t 2>&1 | FileCheck %s
// RUN: %rerun %t 2>&1 | FileCheck %s --check-prefix=AGAIN
// RUN: %amber check %t.heap
// RUN: env AMBER_ENGINE=mvcc AMBER_STATS=1 %run %t 2>&1 | FileCheck %s
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

size_t u_strlen(const char *s);

struct root {
  long n;
  char name[32];
};
static struct root *r;

static int child(const char *what) {
  fflush(NULL);
  pid_t p = fork();
  if (p == 0) {
    if (!strcmp(what, "exec")) execl("/bin/sh", "sh", "-c", "exit 0", (char *)NULL);
    if (!strcmp(what, "load")) printf("child read %ld\n", r->n);
    if (!strcmp(what, "region")) AMBER_ATOMIC { r->n = 99; }
    if (!strcmp(what, "libc")) printf("child strlen %zu\n", u_strlen(r->name));
    if (!strcmp(what, "quiet")) exit(0);
    _exit(7);
  }
  int st = 0;
  waitpid(p, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(void) {
  r = amber_root(sizeof *r);
  AMBER_ATOMIC {
    r->n++;
    strcpy(r->name, "parent");
  }
  const char *kinds[] = {"exec", "quiet", "load", "region", "libc"};
  for (int i = 0; i < 5; i++) {
    int st = child(kinds[i]);
    printf("child %s: status %d\n", kinds[i], st);
    fflush(stdout);
  }
  AMBER_ATOMIC { r->n++; }
  printf("parent n %ld name %s\n", r->n, r->name);
  fflush(stdout); /* before the statistics, printed at exit */
  return 0;
}
// CHECK: child exec: status 0
// CHECK: child quiet: status 0
// CHECK: amber: error: fork() in a process with an open amber heap: the child (pid {{[0-9]+}}) touched heap {{.*}} memory at 0x{{[0-9a-f]+}}. A forked child must not use its parent's heap
// CHECK: child load: status 2
// CHECK: amber: error: fork() in a process with an open amber heap: the child (pid {{[0-9]+}}) ran an AMBER region on heap
// CHECK: child region: status 2
// CHECK: amber: error: fork() in a process with an open amber heap: the child (pid {{[0-9]+}}) called strlen() on heap {{.*}} memory at 0x
// CHECK: child libc: status 2
// CHECK: parent n 2 name parent
// CHECK: amber stats
// CHECK-NOT: amber stats
// AGAIN: parent n 4 name parent
