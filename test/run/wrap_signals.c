// A fatal signal (SIGSEGV, SIGABRT, ...) ends the process as it would
// without amber (killed by that signal), after printing and writing the
// statistics (AMBER_STATS, AMBER_STATS_FILE); the heap is left for recovery,
// which keeps every committed region.  A handler the program installs is
// respected: it runs instead, sigaction/signal report what the program set,
// and SIG_DFL set by the program brings the statistics back.  Both engines.
// RUN: %amber_cc -O2 %s -o %t
// RUN: rm -f %t.json
// RUN: env AMBER_STATS_FILE=%t.json not --crash %run %t segv
// RUN: FileCheck %s --check-prefix=JSON --input-file %t.json
// RUN: %rerun %t show | FileCheck %s --check-prefix=SHOW
// RUN: %amber check %t.heap
// RUN: env AMBER_STATS=1 not --crash %run %t abort 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: rm -f %t.json
// RUN: env AMBER_STATS=1 AMBER_STATS_FILE=%t.json not %run %t own 2>&1 | FileCheck %s --check-prefix=OWN
// RUN: not test -e %t.json
// RUN: env AMBER_STATS=1 not --crash %run %t query 2>&1 | FileCheck %s --check-prefixes=QUERY,STATS
// RUN: rm -f %t.json
// RUN: env AMBER_ENGINE=mvcc AMBER_STATS_FILE=%t.json not --crash %run %t segv
// RUN: FileCheck %s --check-prefix=JSON --input-file %t.json
// RUN: env AMBER_ENGINE=mvcc AMBER_STATS=1 not --crash %run %t query 2>&1 | FileCheck %s --check-prefixes=QUERY,STATS
#include <amber.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct root {
  long n;
};

static void own(int sig) {
  static const char msg[] = "own handler ran\n";
  ssize_t w = write(1, msg, sizeof msg - 1);
  (void)w;
  _exit(sig == SIGSEGV ? 3 : 4);
}

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  if (!strcmp(argv[1], "show")) {
    printf("n %ld\n", r->n);
    return 0;
  }
  for (int i = 0; i < 3; i++)
    AMBER_ATOMIC { r->n++; }
  fflush(stdout);
  if (!strcmp(argv[1], "segv")) *(volatile long *)(uintptr_t)(argc - 2) = 1; /* NULL */
  if (!strcmp(argv[1], "abort")) abort();
  if (!strcmp(argv[1], "own")) {
    struct sigaction a;
    memset(&a, 0, sizeof a);
    a.sa_handler = own;
    sigaction(SIGSEGV, &a, NULL);
    *(volatile long *)(uintptr_t)(argc - 2) = 1;
  }
  if (!strcmp(argv[1], "query")) {
    struct sigaction old;
    sigaction(SIGSEGV, NULL, &old);
    printf("initially %s\n", old.sa_handler == SIG_DFL ? "SIG_DFL" : "something else");
    void (*prev)(int) = signal(SIGSEGV, own);
    printf("signal replaced %s\n", prev == SIG_DFL ? "SIG_DFL" : "something else");
    prev = signal(SIGSEGV, SIG_DFL);
    printf("then replaced %s\n", prev == own ? "own" : "something else");
    sigaction(SIGSEGV, NULL, &old);
    printf("now %s\n", old.sa_handler == SIG_DFL ? "SIG_DFL" : "something else");
    fflush(stdout);
    raise(SIGSEGV);
  }
  return 0;
}
// JSON: "update_commits": {{[1-9]}}
// SHOW: n 3
// QUERY: initially SIG_DFL
// QUERY-NEXT: signal replaced SIG_DFL
// QUERY-NEXT: then replaced own
// QUERY-NEXT: now SIG_DFL
// STATS: amber stats
// STATS: commits
// OWN: own handler ran
// OWN-NOT: amber stats
