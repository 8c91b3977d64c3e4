/* Damage-test and fuzzing workload with a varied page table: objects of
 * many size classes and large runs of pages, allocated and freed in turns.
 *
 *   mix run N     N steps (each: free one object, allocate one), "ack I" each
 *   mix check     verifies every object's bytes and the heap usage; prints
 *                 "transfers N" (steps done) and "check: ok", or exits 1
 * (the same report as test/crash/Inputs/bank.c, so the same drivers run it).
 */
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 48

struct mix {
  long steps;
  unsigned char *obj[SLOTS];
  size_t size[SLOTS];
};

static const size_t sizes[] = {8, 40, 100, 200, 500, 1000, 2000, 2049, 5000, 9000, 24, 64, 300, 17000};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static unsigned char pattern(long step) { return (unsigned char)(step * 37 + 11); }

static size_t rounded(size_t n) {
  static const size_t cls[] = {16,  32,  48,  64,  80,  96,   112,  128,  160,  192,  224,  256,
                               320, 384, 448, 512, 640, 768, 896, 1024, 1280, 1536, 1792, 2048};
  if (n > 2048) return (n + 4095) / 4096 * 4096;
  for (unsigned i = 0;; i++)
    if (cls[i] >= n) return cls[i];
}

static void step(struct mix *m, long s) {
  int k = (int)((s * 7) % SLOTS);
  size_t n = sizes[s % NSIZES];
  AMBER_ATOMIC {
    if (m->obj[k]) free(m->obj[k]);
    unsigned char *p = malloc(n);
    memset(p, pattern(s), n);
    m->obj[k] = p;
    m->size[k] = n;
    m->steps = s;
  }
}

int main(int argc, char **argv) {
  struct mix *m = amber_root(sizeof *m);
  if (argc > 2 && !strcmp(argv[1], "run")) {
    long n = atol(argv[2]);
    for (long s = m->steps + 1; s <= n; s++) {
      step(m, s);
      printf("ack %ld\n", s);
      fflush(stdout);
    }
    return 0;
  }
  int ok = 1;
  size_t bytes = rounded(sizeof *m), objects = 1;
  for (int k = 0; k < SLOTS; k++) {
    if (!m->obj[k]) continue;
    /* Slot k was last written by the latest step s <= steps with s*7 % SLOTS == k. */
    long s = m->steps;
    while (s > 0 && (s * 7) % SLOTS != k) s--;
    if (s <= 0 || m->size[k] != sizes[s % NSIZES]) {
      ok = 0;
      continue;
    }
    for (size_t i = 0; i < m->size[k]; i++)
      if (m->obj[k][i] != pattern(s)) {
        ok = 0;
        break;
      }
    bytes += rounded(m->size[k]);
    objects++;
  }
  struct amber_usage u;
  amber_usage(&u);
  if (u.bytes != bytes || u.objects != objects) ok = 0;
  printf("transfers %ld\nobjects %zu (heap says %zu)\nbytes %zu (heap says %zu)\n", m->steps, objects, u.objects, bytes, u.bytes);
  printf("check: %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
