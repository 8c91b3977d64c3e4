/* outside_overhead: what the range checks the pass puts on loads and stores
 * outside regions cost a program that never touches persistent memory
 * (DESIGN.md §3 point 4; the target is under 5 %).
 *
 * No regions, no amber.h: the same file is built with plain clang and with
 * amber-cc, and the two timings compared (docs/pass.md, "Outside regions",
 * gives the commands and the last figures).  Five kernels over malloc'd memory, each in its own noinline
 * function so the pass sees only pointer arguments (nothing it could prove
 * volatile):
 *   sum     sum of a 256 KiB int array, 50 times (vectorised loads)
 *   chase   pointer chasing through 64 Ki shuffled list nodes (latency)
 *   hash    open-addressing table of 64 Ki slots: inserts, lookups, deletes
 *   sort    bottom-up merge sort of 32 Ki ints (loads and stores, branches)
 *   matmul  128 x 128 double matrix product (vectorised loads and stores)
 * Each kernel runs --reps times per trial; the best of 5 trials counts.
 * Prints one JSON line: nanoseconds per kernel, their total, a checksum
 * (the same for every build: the kernels compute the same thing).
 *
 *   outside_overhead [--reps N] [--only KERNEL|none] [--cpu-time]
 * --reps: default 20 (1 for a quick check); --only: run that kernel alone,
 * or none (the set-up alone), e.g. to count instructions under valgrind;
 * --cpu-time: time with the thread's CPU clock instead of CLOCK_MONOTONIC
 * (steadier on a machine shared with other work).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static clockid_t clock_id = CLOCK_MONOTONIC;
static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(clock_id, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t xorshift(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* ---- sum ---- */
#define SUM_N (1u << 16)
NOINLINE static uint64_t k_sum(const int *a, size_t n) {
  uint64_t s = 0;
  for (size_t i = 0; i < n; i++) s += (uint64_t)(unsigned)a[i];
  return s;
}

/* ---- chase ---- */
#define CHASE_N (1u << 16)
struct node {
  struct node *next;
  long val;
};
NOINLINE static long k_chase(const struct node *n) {
  long s = 0;
  for (; n; n = n->next) s += n->val;
  return s;
}

/* ---- hash ---- */
#define HASH_SLOTS (1u << 16)
struct slot {
  uint64_t key; /* 0: empty, 1: deleted */
  uint64_t val;
};
static inline uint64_t mix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  return k;
}
NOINLINE static int h_insert(struct slot *t, uint64_t key, uint64_t val) {
  for (uint64_t i = mix(key);; i++) {
    struct slot *s = &t[i & (HASH_SLOTS - 1)];
    if (s->key <= 1 || s->key == key) {
      int fresh = s->key != key;
      s->key = key;
      s->val = val;
      return fresh;
    }
  }
}
NOINLINE static uint64_t h_lookup(const struct slot *t, uint64_t key) {
  for (uint64_t i = mix(key);; i++) {
    const struct slot *s = &t[i & (HASH_SLOTS - 1)];
    if (s->key == key) return s->val;
    if (s->key == 0) return 0;
  }
}
NOINLINE static void h_delete(struct slot *t, uint64_t key) {
  for (uint64_t i = mix(key);; i++) {
    struct slot *s = &t[i & (HASH_SLOTS - 1)];
    if (s->key == key) {
      s->key = 1;
      return;
    }
    if (s->key == 0) return;
  }
}
NOINLINE static uint64_t k_hash(struct slot *t, const uint64_t *keys, size_t n) {
  uint64_t s = 0;
  memset(t, 0, HASH_SLOTS * sizeof *t);
  for (size_t i = 0; i < n / 2; i++) s += (uint64_t)h_insert(t, keys[i], i);
  for (size_t i = 0; i < n; i++) s += h_lookup(t, keys[i]);
  for (size_t i = 0; i < n / 4; i++) h_delete(t, keys[i]);
  for (size_t i = 0; i < n; i++) s += h_lookup(t, keys[i]);
  return s;
}

/* ---- sort ---- */
#define SORT_N (1u << 15)
NOINLINE static void k_sort(int *a, int *tmp, size_t n) {
  for (size_t w = 1; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
      while (i < mid) tmp[k++] = a[i++];
      while (j < hi) tmp[k++] = a[j++];
    }
    memcpy(a, tmp, n * sizeof *a);
  }
}

/* ---- matmul ---- */
#define MM_N 128
NOINLINE static void k_matmul(double *c, const double *a, const double *b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < n; j++) c[i * n + j] = 0;
    for (size_t k = 0; k < n; k++) {
      double x = a[i * n + k];
      for (size_t j = 0; j < n; j++) c[i * n + j] += x * b[k * n + j];
    }
  }
}

int main(int argc, char **argv) {
  long reps = 20;
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = strtol(argv[++i], NULL, 10);
      if (reps < 1) reps = 1;
    } else if (!strcmp(argv[i], "--cpu-time")) {
      clock_id = CLOCK_THREAD_CPUTIME_ID;
    } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
      only = argv[++i];
      if (strcmp(only, "sum") && strcmp(only, "chase") && strcmp(only, "hash") && strcmp(only, "sort") &&
          strcmp(only, "matmul") && strcmp(only, "none")) {
        fprintf(stderr, "%s: --only %s: not a kernel\n", argv[0], only);
        return 2;
      }
    } else {
      fprintf(stderr, "usage: %s [--reps N] [--only sum|chase|hash|sort|matmul|none] [--cpu-time]\n", argv[0]);
      return 2;
    }
  }

  int *arr = malloc(SUM_N * sizeof *arr);
  struct node *nodes = malloc(CHASE_N * sizeof *nodes);
  uint32_t *perm = malloc(CHASE_N * sizeof *perm);
  struct slot *table = malloc(HASH_SLOTS * sizeof *table);
  uint64_t *keys = malloc(HASH_SLOTS / 2 * sizeof *keys);
  int *src = malloc(SORT_N * sizeof *src), *sorted = malloc(SORT_N * sizeof *sorted),
      *tmp = malloc(SORT_N * sizeof *tmp);
  double *ma = malloc(MM_N * MM_N * sizeof *ma), *mb = malloc(MM_N * MM_N * sizeof *mb),
         *mc = malloc(MM_N * MM_N * sizeof *mc);
  if (!arr || !nodes || !perm || !table || !keys || !src || !sorted || !tmp || !ma || !mb || !mc) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  for (size_t i = 0; i < SUM_N; i++) arr[i] = (int)(xorshift() & 0xffff);
  for (uint32_t i = 0; i < CHASE_N; i++) perm[i] = i;
  for (uint32_t i = CHASE_N - 1; i > 0; i--) {
    uint32_t j = (uint32_t)(xorshift() % (i + 1)), x = perm[i];
    perm[i] = perm[j];
    perm[j] = x;
  }
  for (uint32_t i = 0; i < CHASE_N; i++) {
    nodes[perm[i]].val = (long)i;
    nodes[perm[i]].next = i + 1 < CHASE_N ? &nodes[perm[i + 1]] : NULL;
  }
  for (size_t i = 0; i < HASH_SLOTS / 2; i++) keys[i] = (xorshift() | 2) & ~(uint64_t)0 >> 1;
  for (size_t i = 0; i < SORT_N; i++) src[i] = (int)(xorshift() % 1000000);
  for (size_t i = 0; i < MM_N * MM_N; i++) {
    ma[i] = (double)(xorshift() % 100) / 10.0;
    mb[i] = (double)(xorshift() % 100) / 10.0;
  }

  enum { SUM, CHASE, HASH, SORT, MATMUL, NK };
  static const char *const name[NK] = {"sum", "chase", "hash", "sort", "matmul"};
  uint64_t best[NK], check = 0;
  for (int k = 0; k < NK; k++) best[k] = UINT64_MAX;
  for (int trial = 0; trial < 5; trial++) {
    for (int k = 0; k < NK; k++) {
      if (only && strcmp(only, name[k])) {
        best[k] = 0;
        continue;
      }
      uint64_t c = 0, t0 = now_ns();
      for (long r = 0; r < reps; r++) {
        switch (k) {
        case SUM:
          for (int x = 0; x < 50; x++) {
            __asm__ volatile("" : : "r"(arr) : "memory"); /* sum again, really */
            c += k_sum(arr, SUM_N);
          }
          break;
        case CHASE: c += (uint64_t)k_chase(&nodes[perm[0]]); break;
        case HASH: c += k_hash(table, keys, HASH_SLOTS / 2); break;
        case SORT:
          memcpy(sorted, src, SORT_N * sizeof *src);
          k_sort(sorted, tmp, SORT_N);
          c += (uint64_t)sorted[SORT_N / 2] + (uint64_t)sorted[SORT_N - 1];
          break;
        case MATMUL:
          k_matmul(mc, ma, mb, MM_N);
          c += (uint64_t)mc[(size_t)r % (MM_N * MM_N)];
          break;
        }
      }
      uint64_t dt = now_ns() - t0;
      if (dt < best[k]) best[k] = dt;
      if (trial == 0) check = check * 31 + c;
    }
  }
  for (size_t i = 1; i < SORT_N; i++)
    if (sorted[i - 1] > sorted[i]) {
      fprintf(stderr, "sort: not sorted at %zu\n", i);
      return 1;
    }
  uint64_t total = 0;
  printf("{\"bench\": \"outside_overhead\", \"reps\": %ld, \"clock\": \"%s\"", reps,
         clock_id == CLOCK_MONOTONIC ? "wall" : "cpu");
  for (int k = 0; k < NK; k++) {
    printf(", \"%s_ns\": %llu", name[k], (unsigned long long)best[k]);
    total += best[k];
  }
  printf(", \"total_ns\": %llu, \"checksum\": %llu}\n", (unsigned long long)total, (unsigned long long)check);
  free(arr);
  free(nodes);
  free(perm);
  free(table);
  free(keys);
  free(src);
  free(sorted);
  free(tmp);
  free(ma);
  free(mb);
  free(mc);
  return 0;
}
