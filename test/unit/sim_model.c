// The crash simulator's model on a fake heap: per-line prefixes, per-thread
// fences, eADR prefixes, untracked stores, lint counters, sampling.  Each
// scenario runs in its own process and crashes with amber_sim_point; the
// kept image files are read back.
// RUN: %unit_cc %s -o %t %unit_libs
// RUN: rm -rf %t.d && mkdir %t.d
// RUN: env AMBER_PM=sim AMBER_SIM_DIR=%t.d %t prefix | FileCheck %s --check-prefix=PREFIX
// PREFIX: amber-sim: images 99 3 3 exhaustive
// PREFIX: amber-sim: lint - tx=0 redundant-flush=0 empty-fence=0 unflushed-at-commit=0 undurable-at-quiesce=0 untracked=0
// RUN: env AMBER_PM=sim AMBER_SIM_DIR=%t.d %t threads | FileCheck %s --check-prefix=THREADS
// THREADS: amber-sim: images 1 2 2 exhaustive
// THREADS: amber-sim: images 2 1 1 exhaustive
// The msync backend's model (AMBER_SIM_MSYNC=1): the same per-line prefixes
// and per-thread fences, durability through the backend's group commit.
// RUN: env AMBER_PM=sim AMBER_SIM_MSYNC=1 AMBER_SIM_DIR=%t.d %t prefix | FileCheck %s --check-prefix=PREFIX
// RUN: env AMBER_PM=sim AMBER_SIM_MSYNC=1 AMBER_SIM_DIR=%t.d %t threads | FileCheck %s --check-prefix=THREADS
// RUN: env AMBER_PM=sim AMBER_SIM_MSYNC=1 AMBER_SIM_DIR=%t.d %t lint | FileCheck %s --check-prefix=LINT
// RUN: not env AMBER_PM=sim AMBER_SIM_MSYNC=1 AMBER_SIM_EADR=1 %t prefix 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: amber: error: AMBER_SIM_MSYNC=1 and AMBER_SIM_EADR=1 model two different media
// RUN: env AMBER_PM=sim AMBER_SIM_DIR=%t.d AMBER_SIM_EADR=1 %t eadr | FileCheck %s --check-prefix=EADR
// EADR: amber-sim: images 99 4 4 eadr
// RUN: env AMBER_PM=sim AMBER_SIM_DIR=%t.d %t untracked | FileCheck %s --check-prefix=UNTRACKED
// UNTRACKED: amber-sim: images 99 2 2 exhaustive
// UNTRACKED: untracked=1
// RUN: env AMBER_PM=sim AMBER_SIM_DIR=%t.d %t lint | FileCheck %s --check-prefix=LINT
// LINT: amber-sim: lint - tx=1 redundant-flush=1 empty-fence=1 unflushed-at-commit=1 undurable-at-quiesce=1 untracked=0
// RUN: env AMBER_PM=sim AMBER_SIM_DIR=%t.d AMBER_SIM_BOUND=4 AMBER_SIM_SAMPLES=2 %t sampled | FileCheck %s --check-prefix=SAMPLED
// SAMPLED: amber-sim: images 99 10 8 sampled
#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "heap/heap.h"
#include "base/options.h"
#include "pm/pm.h"
#include "pm/sim.h"

#define DATA (1u << 20)
static struct amber_heap h;
static uint64_t *word; /* the data area as words */

static void attach(void) {
  amber_options_load();
  amber_pm_init();
  h.meta = mmap(NULL, AMBER_META_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  h.data = mmap(NULL, DATA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert(h.meta != MAP_FAILED && h.data != MAP_FAILED);
  h.hdr.data_offset = AMBER_META_SIZE;
  h.hdr.data_size = DATA;
  h.hdr.file_size = AMBER_META_SIZE + DATA;
  snprintf(h.path, sizeof h.path, "fake");
  amber_heap_pm_attach(&h);
  word = (uint64_t *)h.data;
}

static void store(unsigned w, uint64_t v) {
  word[w] = v;
  amber_pm_wrote(&word[w], 8);
}

/* Word w of the data area in kept image i of point n. */
static uint64_t image_word(uint64_t n, int i, unsigned w) {
  char path[600];
  snprintf(path, sizeof path, "%s/amber-sim-%d-%llu-%d.heap", getenv("AMBER_SIM_DIR"), (int)getpid(),
           (unsigned long long)n, i);
  int fd = open(path, O_RDONLY);
  assert(fd >= 0);
  uint64_t v;
  assert(pread(fd, &v, 8, AMBER_META_SIZE + 8 * w) == 8);
  close(fd);
  return v;
}

static void crash(uint64_t n) {
  fflush(stdout);
  amber_sim_adopt_untracked();
  amber_sim_point(n);
}

static void *other_flush(void *arg) {
  amber_pm_flush(&word[0], 8, AMBER_PM_DATA);
  if (arg) amber_pm_fence(AMBER_PM_DATA);
  return NULL;
}

int main(int argc, char **argv) {
  const char *s = argc > 1 ? argv[1] : "";
  attach();
  if (!strcmp(s, "prefix")) {
    store(0, 1);
    store(0, 2);            /* line 0: two pending stores */
    store(8, 7);            /* line 1: durable */
    amber_pm_persist(&word[8], 8, AMBER_PM_DATA);
    crash(99);
    int seen[3] = {0, 0, 0};
    for (int i = 1; i <= 3; i++) {
      uint64_t v = image_word(99, i, 0);
      assert(v <= 2);
      seen[v]++;
      assert(image_word(99, i, 8) == 7);
    }
    assert(seen[0] == 1 && seen[1] == 1 && seen[2] == 1);
  } else if (!strcmp(s, "threads")) {
    store(0, 5);
    pthread_t t;
    pthread_create(&t, NULL, other_flush, NULL); /* flushed by another thread, */
    pthread_join(t, NULL);
    amber_pm_fence(AMBER_PM_DATA);             /* so this fence does not order it */
    crash(1);
    assert(image_word(1, 1, 0) + image_word(1, 2, 0) == 5);
    pthread_create(&t, NULL, other_flush, (void *)1); /* its own fence does */
    pthread_join(t, NULL);
    crash(2);
    assert(image_word(2, 1, 0) == 5);
  } else if (!strcmp(s, "eadr")) {
    store(0, 1);  /* line 0 */
    store(16, 1); /* line 2 */
    store(1, 3);  /* line 0 again */
    crash(99);
    /* Prefixes of the global order only: never line 0's second store
     * without line 2's. */
    int seen = 0;
    for (int i = 1; i <= 4; i++) {
      uint64_t a0 = image_word(99, i, 0), c = image_word(99, i, 16), a1 = image_word(99, i, 1);
      int k = a0 == 0 && c == 0 && a1 == 0 ? 0 : a0 == 1 && c == 0 && a1 == 0 ? 1 : a0 == 1 && c == 1 && a1 == 0 ? 2
              : a0 == 1 && c == 1 && a1 == 3 ? 3 : -1;
      assert(k >= 0);
      seen |= 1 << k;
    }
    assert(seen == 15);
  } else if (!strcmp(s, "untracked")) {
    word[16] = 9; /* nobody reports this store */
    crash(99);
    assert(image_word(99, 1, 16) + image_word(99, 2, 16) == 9);
  } else if (!strcmp(s, "lint")) {
    amber_pm_flush(&word[64], 8, AMBER_PM_DATA); /* clean line: redundant */
    amber_pm_fence(AMBER_PM_DATA);                 /* nothing to order */
    store(0, 1);
    amber_pm_quiesce(AMBER_QUIESCE_TX);            /* left unflushed */
    amber_pm_quiesce(AMBER_QUIESCE_CLOSE);         /* not durable */
  } else if (!strcmp(s, "sampled")) {
    store(0, 1);
    store(8, 1);
    store(16, 1); /* 8 images > bound 4: 2 + 3*2 targeted + 2 random */
    crash(99);
    assert(image_word(99, 1, 0) == 0 && image_word(99, 2, 8) == 1); /* all-old, all-new */
  } else {
    fprintf(stderr, "unknown scenario\n");
    return 2;
  }
  printf("%s: ok\n", s);
  return 0;
}
