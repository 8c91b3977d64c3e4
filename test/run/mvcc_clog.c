// mvcc engine checkpoints (issue [6/7] parts 3-6): with a small TLog and a
// small CLog, TLog reclamation runs checkpoint rounds (versions go to the
// CLog) and the CLog is drained into the master, while the assertion mode
// checks the invariant before and after every round: master + CLog hold the
// exact state as of the durable boundary c, and with the OLog the latest
// committed state.  Then kill -9 with data spread over the master, the CLog
// and the OLog: recovery rebuilds exactly the acknowledged state; a second
// open replays nothing.  Last, the assertion mode catches a master changed
// behind the engine's back (a byte recovery would lose).
// RUN: %amber_cc -O2 %s -o %t
// RUN: rm -f %t.heap
// RUN: env AMBER_ENGINE=mvcc AMBER_MVCC_TLOG=256K AMBER_MVCC_CLOG=128K AMBER_MVCC_ASSERT=1 AMBER_STATS_FILE=%t.json %run %t run 3000 > %t.out
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// RUN: FileCheck %s --check-prefix=ROUNDS < %t.json
// RUN: not --crash env AMBER_MVCC_TLOG=256K AMBER_MVCC_ASSERT=1 %rerun %t kill 2500 > %t.out
// RUN: FileCheck %s --check-prefix=KILLED < %t.out
// RUN: env AMBER_STATS_FILE=%t.json %rerun %t check 5500 | FileCheck %s --check-prefix=CHECK
// RUN: FileCheck %s --check-prefix=REPLAYED < %t.json
// RUN: env AMBER_STATS_FILE=%t.json %rerun %t check 5500 | FileCheck %s --check-prefix=CHECK
// RUN: FileCheck %s --check-prefix=NOREPLAY < %t.json
// RUN: %amber check %t.heap
// RUN: env AMBER_ENGINE=mvcc %run %t run 10
// RUN: not env AMBER_MVCC_ASSERT=1 %rerun %t poke 2>&1 | FileCheck %s --check-prefix=POKE
// RUN: env AMBER_ENGINE=mvcc %run %t run 10
// RUN: %rerun %t poke 2>&1 | FileCheck %s --check-prefix=NOASSERT

// OUT: 3000 transactions, sum ok
// ROUNDS: "checkpoint_rounds": {{[1-9][0-9]*}}, "clog_entries": {{[1-9][0-9]*}}, "clog_written_back": {{[1-9][0-9]*}}, "invariant_checks": {{[1-9][0-9]*}}
// KILLED: 2500 transactions, sum ok
// KILLED-NOT: 2501
// CHECK: 5500 transactions, state ok
// REPLAYED: "replayed_txns": {{[1-9][0-9]*}}
// NOREPLAY: "replayed_txns": 0,
// POKE: amber: error: AMBER_MVCC_ASSERT: the mvcc durability invariant does not hold (before a checkpoint round): block {{[0-9]+}} {{.*}} differs, as recovery would rebuild it, from its latest committed version
// NOASSERT: poked
#include <amber.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 4096 /* slots of 16 bytes: 1024 blocks of 64 */
struct slot { long v, gen; };
struct root { long done; struct slot s[N]; };

static unsigned long mix(unsigned long x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}

/* Transaction i moves 1 from slot a(i) to slot b(i) and stamps both. */
static void step(struct root *r, long i) {
  unsigned long a = mix((unsigned long)i) % N, b = mix((unsigned long)i + 7777) % N;
  AMBER_ATOMIC {
    r->s[a].v -= 1;
    r->s[b].v += 1;
    r->s[a].gen = i;
    r->s[b].gen = i;
    r->done = i + 1;
  }
}

/* The state after `upto` transactions, computed without the heap. */
static int same_as_model(struct root *r, long upto) {
  static struct slot m[N];
  memset(m, 0, sizeof m);
  for (long i = 0; i < upto; i++) {
    unsigned long a = mix((unsigned long)i) % N, b = mix((unsigned long)i + 7777) % N;
    m[a].v -= 1;
    m[b].v += 1;
    m[a].gen = i;
    m[b].gen = i;
  }
  long sum = 0;
  for (int k = 0; k < N; k++) {
    if (r->s[k].v != m[k].v || r->s[k].gen != m[k].gen) {
      printf("slot %d: %ld/%ld, expected %ld/%ld\n", k, r->s[k].v, r->s[k].gen, m[k].v, m[k].gen);
      return 0;
    }
    sum += r->s[k].v;
  }
  return sum == 0 && r->done == upto;
}

/* The file offset of p in the heap's mapping (/proc/self/maps). */
static long file_offset(const void *p, char *path, size_t cap) {
  FILE *f = fopen("/proc/self/maps", "r");
  char line[4096];
  while (f && fgets(line, sizeof line, f)) {
    unsigned long lo, hi, off;
    char file[3000] = "";
    if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %2999s", &lo, &hi, &off, file) >= 3 && (unsigned long)p >= lo &&
        (unsigned long)p < hi && file[0] == '/') {
      snprintf(path, cap, "%s", file);
      fclose(f);
      return (long)(off + ((unsigned long)p - lo));
    }
  }
  if (f) fclose(f);
  return -1;
}

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  long n = argc > 2 ? atol(argv[2]) : 0;
  if (!strcmp(argv[1], "run") || !strcmp(argv[1], "kill")) {
    long first = r->done;
    for (long i = first; i < first + n; i++) step(r, i);
    long sum = 0;
    for (int k = 0; k < N; k++) sum += r->s[k].v;
    printf("%ld transactions, sum %s\n", n, sum == 0 && r->done == first + n ? "ok" : "WRONG");
    fflush(stdout);
    if (!strcmp(argv[1], "kill")) kill(getpid(), SIGKILL);
    return 0;
  }
  if (!strcmp(argv[1], "check")) {
    printf("%ld transactions, state %s\n", r->done, same_as_model(r, n) ? "ok" : "WRONG");
    return 0;
  }
  /* poke (on a heap closed cleanly, so no log holds s[0]): v is committed
   * in a version, not yet in the master; then gen's bytes in the master
   * change behind the engine.  Recovery would rebuild the block from the
   * master with v laid over it, so it would get gen wrong. */
  AMBER_ATOMIC { r->s[0].v = 41; }
  char path[3000];
  long off = file_offset(&r->s[0].gen, path, sizeof path);
  int fd = off < 0 ? -1 : open(path, O_RDWR);
  long bad = 99;
  if (fd < 0 || pwrite(fd, &bad, sizeof bad, off) != (ssize_t)sizeof bad) {
    printf("cannot poke the heap file\n");
    return 1;
  }
  close(fd);
  printf("poked\n");
  return 0;
}
