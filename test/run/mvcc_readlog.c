// mvcc engine, SER and LIN: a region not known to write reads without the
// read log (docs/engines/mvcc.md, "Read logs"); the first time it writes,
// its commit restarts it with the log (aborts_readlog), once per region,
// and from then on it logs from its start.  Regions here:
//   look: runs 50 times reading heap and ordinary words (and a vector of
//     ordinary words through __amber_loadn), then 1 time in 10 writes the
//     heap: exactly one readlog restart (and no upgrade restart).
//   vonly: first writes only ordinary memory (the commit_ordinary path):
//     one more restart.
//   nested: an outer region whose nested region writes: the outer
//     descriptor learns (one restart), the nested one needs none.
//   skew: two threads, write skew on two heap words read without the log
//     by a region that committed without writing before and never wrote:
//     SER and LIN must still refuse it (the first writing attempts
//     restart and validate).  A region's first run logs its reads, so a
//     region that writes from its first run never restarts for this.
//   vskew: the same over ordinary words read by vectorised loads (the
//     runtime's whole-word path in mv_vread must log them).
// Under SI nothing is logged and nothing restarts for it, but a region
// that committed without writing starts recently (docs/engines/mvcc.md,
// "Recent starts"), so its first write restarts it once with the clock
// (aborts_stale): that restart may end round 0's skew.
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: env AMBER_ENGINE=mvcc %run %t 2 | FileCheck %s --check-prefixes=CHECK,LOG
// RUN: env AMBER_ENGINE=mvcc %rerun %t 3 | FileCheck %s --check-prefixes=CHECK,LOG
// RUN: env AMBER_ENGINE=mvcc %rerun %t 1 | FileCheck %s --check-prefixes=CHECK,SI
// CHECK: look: sum 3942 heap 5 upgrades 0
// LOG-NEXT: look: readlog +1
// SI-NEXT: look: readlog +0
// CHECK-NEXT: look again: readlog +0
// CHECK-NEXT: vonly: g 2
// LOG-NEXT: vonly: readlog +1
// SI-NEXT: vonly: readlog +0
// CHECK-NEXT: nested: heap 2
// LOG-NEXT: nested: readlog +1
// SI-NEXT: nested: readlog +0
// LOG-NEXT: skew: rounds 20 anomalies 0 readlog yes
// SI-NEXT: skew: rounds 20 anomalies {{19|20}} readlog no
// LOG-NEXT: vskew: rounds 20 anomalies 0
// SI-NEXT: vskew: rounds 20 anomalies 20
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 20

struct root {
  long word[8];
  long writes, nested;
  long flag[ROUNDS + 1][2][16]; /* each flag in a 64-byte block of its own; the last row stays 0 */
};
static struct root *r;
static long ord[8] __attribute__((aligned(64))) = {1, 2, 3, 4, 5, 6, 7, 8};
static long g;
static int iso;
AMBER_UNISOLATED static int arrived[2], finished[2];
static int round_, vec;
static long oflag[ROUNDS + 1][8] __attribute__((aligned(64))); /* the flags at 0 and 4; the last row stays 0 */

static unsigned long long stat_of(const char *key) {
  char buf[8192], pat[64];
  amber_stats_text(buf, sizeof buf, 1);
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  const char *p = strstr(buf, pat);
  if (!p) {
    fprintf(stderr, "mvcc_readlog: no %s in the statistics\n", key);
    exit(1);
  }
  return strtoull(p + strlen(pat), NULL, 10);
}

/* noinline: a vectorisable loop over a pointer the pass cannot prove
 * private (its loads go through __amber_loadn or inline). */
__attribute__((noinline)) static long sum8(const long *a) {
  long s = 0;
  for (int i = 0; i < 8; i++) s += a[i];
  return s;
}

static long look(int i) {
  long s = 0;
  AMBER_ATOMIC_ISO(iso) {
    s = sum8(ord) + r->word[i % 8];
    if (i >= 50 && i % 10 == 0) r->writes++;
  }
  return s;
}

static void *doctor(void *arg) {
  long id = (long)arg;
  long *mine = vec ? &oflag[round_][4 * id] : &r->flag[round_][id][0];
  const long *a = &r->flag[round_][0][0], *b = &r->flag[round_][1][0];
  AMBER_ATOMIC_ISO(iso) {
    long on_call = vec ? sum8(oflag[round_]) : *a + *b;
    __atomic_store_n(&arrived[id], 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&arrived[1 - id], __ATOMIC_ACQUIRE) && !__atomic_load_n(&finished[1 - id], __ATOMIC_ACQUIRE)) {
    }
    if (on_call >= 2) *mine = 0;
  }
  __atomic_store_n(&finished[id], 1, __ATOMIC_RELEASE);
  return NULL;
}

int main(int argc, char **argv) {
  iso = argc > 1 ? atoi(argv[1]) : 2;
  setvbuf(stdout, NULL, _IONBF, 0);
  r = amber_root(sizeof *r);
  AMBER_ATOMIC {
    for (int k = 0; k < 8; k++) r->word[k] = k;
    r->writes = r->nested = 0;
    for (int k = 0; k < ROUNDS; k++) r->flag[k][0][0] = r->flag[k][1][0] = 1;
  }
  /* look: 50 read-only runs, then writes at 50, 60, 70, 80, 90. */
  unsigned long long rl = stat_of("aborts_readlog");
  long total = 0;
  for (int i = 0; i < 100; i++) total += look(i);
  long heap = 0;
  AMBER_ATOMIC { heap = r->writes; }
  printf("look: sum %ld heap %ld upgrades %llu\n", total, heap, stat_of("aborts_upgrade"));
  printf("look: readlog +%llu\n", stat_of("aborts_readlog") - rl);
  rl = stat_of("aborts_readlog");
  for (int i = 50; i < 100; i++) look(i);
  printf("look again: readlog +%llu\n", stat_of("aborts_readlog") - rl);

  /* vonly: ordinary memory only. */
  rl = stat_of("aborts_readlog");
  for (int i = 0; i < 20; i++) {
    AMBER_ATOMIC_ISO(iso) {
      long s = sum8(ord) + r->word[1];
      if (i >= 10 && i % 4 == 0) g += s != 0;
    }
  }
  printf("vonly: g %ld\n", g);
  printf("vonly: readlog +%llu\n", stat_of("aborts_readlog") - rl);

  /* nested: the writes are the nested region's. */
  rl = stat_of("aborts_readlog");
  for (int i = 0; i < 20; i++) {
    AMBER_ATOMIC_ISO(iso) {
      long s = r->word[2];
      if (i >= 10 && i % 4 == 0) {
        AMBER_ATOMIC { r->nested += s == 2; }
      }
    }
  }
  long n = 0;
  AMBER_ATOMIC { n = r->nested; }
  printf("nested: heap %ld\n", n);
  printf("nested: readlog +%llu\n", stat_of("aborts_readlog") - rl);

  /* skew: the doctors' region first commits without writing (the flags
   * of the last row are off), so it reads without the log afterwards. */
  for (round_ = ROUNDS; round_ <= ROUNDS; round_++) {
    arrived[0] = arrived[1] = finished[0] = finished[1] = 0;
    pthread_t t[2];
    for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, doctor, (void *)i);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  }
  rl = stat_of("aborts_readlog");
  int anomalies = 0;
  for (round_ = 0; round_ < ROUNDS; round_++) {
    arrived[0] = arrived[1] = finished[0] = finished[1] = 0;
    pthread_t t[2];
    for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, doctor, (void *)i);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    long left = 0;
    AMBER_ATOMIC { left = r->flag[round_][0][0] + r->flag[round_][1][0]; }
    anomalies += left == 0;
  }
  printf("skew: rounds %d anomalies %d readlog %s\n", ROUNDS, anomalies, stat_of("aborts_readlog") - rl ? "yes" : "no");

  vec = 1;
  for (int k = 0; k < ROUNDS; k++) oflag[k][0] = oflag[k][4] = 1;
  anomalies = 0;
  for (round_ = 0; round_ < ROUNDS; round_++) {
    arrived[0] = arrived[1] = finished[0] = finished[1] = 0;
    pthread_t t[2];
    for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, doctor, (void *)i);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    anomalies += oflag[round_][0] + oflag[round_][4] == 0;
  }
  printf("vskew: rounds %d anomalies %d\n", ROUNDS, anomalies);
  return 0;
}
