/* Hash-table workload (the TimeStone and Romulus papers' microbenchmark):
 * B buckets of sorted lists, K keys preloaded, each operation one region:
 * a lookup, or (update_pct of the time) a removal paired with an insertion
 * (two regions), keeping the size stable.
 *
 *   hash [--buckets B] [--keys K] [--update PCT] [--threads T] [--seconds S]
 *        [--seed N]
 * Prints one JSON line; with --verify checks the table afterwards. */
#include <amber.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

struct node {
  long key;
  struct node *next;
};
struct table {
  long nbuckets, size;
  struct node *bucket[];
};

static struct table *tab;
static long nkeys = 1000, nbuckets = 1000, update_pct = 20, nthreads = 1;
static double seconds = 1.0;
static unsigned long seed = 1;
static volatile int stop;

static int lookup(long key) {
  int found = 0;
  AMBER_ATOMIC {
    found = 0;
    for (struct node *n = tab->bucket[key % tab->nbuckets]; n && n->key <= key; n = n->next)
      if (n->key == key) found = 1;
  }
  return found;
}

static int insert(long key) {
  int added = 0;
  AMBER_ATOMIC {
    added = 0;
    struct node **pp = &tab->bucket[key % tab->nbuckets];
    while (*pp && (*pp)->key < key) pp = &(*pp)->next;
    if (!*pp || (*pp)->key != key) {
      struct node *n = malloc(sizeof *n);
      n->key = key;
      n->next = *pp;
      *pp = n;
      tab->size++;
      added = 1;
    }
  }
  return added;
}

static int removekey(long key) {
  int removed = 0;
  AMBER_ATOMIC {
    removed = 0;
    struct node **pp = &tab->bucket[key % tab->nbuckets];
    while (*pp && (*pp)->key < key) pp = &(*pp)->next;
    if (*pp && (*pp)->key == key) {
      struct node *n = *pp;
      *pp = n->next;
      free(n);
      tab->size--;
      removed = 1;
    }
  }
  return removed;
}

static inline uint64_t rnd(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

struct worker {
  pthread_t th;
  uint64_t ops, seed;
};

static void *run(void *arg) {
  struct worker *w = arg;
  uint64_t s = w->seed;
  while (!stop) {
    long key = (long)(rnd(&s) % (uint64_t)(2 * nkeys));
    if ((long)(rnd(&s) % 100) < update_pct) {
      /* Keep the size stable: every removal is paired with an insertion. */
      if (removekey(key)) {
        while (w->ops++, !insert((long)(rnd(&s) % (uint64_t)(2 * nkeys)))) {
        }
      } else if (insert(key)) {
        while (w->ops++, !removekey((long)(rnd(&s) % (uint64_t)(2 * nkeys)))) {
        }
      }
    } else {
      lookup(key);
    }
    w->ops++; /* operations = regions run */
  }
  return NULL;
}

int main(int argc, char **argv) {
  int verify = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--buckets") && i + 1 < argc) nbuckets = atol(argv[++i]);
    else if (!strcmp(argv[i], "--keys") && i + 1 < argc) nkeys = atol(argv[++i]);
    else if (!strcmp(argv[i], "--update") && i + 1 < argc) update_pct = atol(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) nthreads = atol(argv[++i]);
    else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = atof(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoul(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--verify")) verify = 1;
    else {
      fprintf(stderr, "usage: %s [--buckets B] [--keys K] [--update PCT] [--threads T] [--seconds S] [--seed N] [--verify]\n", argv[0]);
      return 2;
    }
  }
  tab = amber_root(sizeof *tab + (size_t)nbuckets * sizeof(struct node *));
  if (!tab->nbuckets) {
    AMBER_ATOMIC { tab->nbuckets = nbuckets; }
    uint64_t s = seed * 7919 + 1;
    while (tab->size < nkeys) insert((long)(rnd(&s) % (uint64_t)(2 * nkeys)));
  }
  struct worker *w = calloc((size_t)nthreads, sizeof *w);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long i = 0; i < nthreads; i++) {
    w[i].seed = seed * 1000003 + (uint64_t)i * 7777 + 1;
    pthread_create(&w[i].th, NULL, run, &w[i]);
  }
  struct timespec d = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
  nanosleep(&d, NULL);
  stop = 1;
  uint64_t ops = 0;
  for (long i = 0; i < nthreads; i++) {
    pthread_join(w[i].th, NULL);
    ops += w[i].ops;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double el = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  struct amber_usage u;
  amber_usage(&u);
  printf("{\"workload\": \"hash-%ldb-%ldk\", \"threads\": %ld, \"update_pct\": %ld, \"ops\": %llu, \"seconds\": %.3f, "
         "\"throughput\": %.0f, \"peak_rss_bytes\": %ld, \"heap_bytes\": %zu}\n",
         nbuckets, nkeys, nthreads, update_pct, (unsigned long long)ops, el, (double)ops / el, ru.ru_maxrss * 1024L, u.bytes);
  if (verify) {
    long count = 0, bad = 0;
    for (long b = 0; b < tab->nbuckets; b++) {
      long last = -1;
      for (struct node *n = tab->bucket[b]; n; n = n->next) {
        if (n->key <= last || n->key % tab->nbuckets != b) bad++;
        last = n->key;
        count++;
      }
    }
    /* Every node is one 16-byte object; the rest is the root's table. */
    size_t root = ((sizeof *tab + (size_t)tab->nbuckets * sizeof(struct node *)) + 4095) / 4096 * 4096;
    if (sizeof *tab + (size_t)tab->nbuckets * sizeof(struct node *) <= 2048) root = u.bytes - (size_t)count * 16;
    long leaked = (long)u.bytes - (long)root - count * 16;
    if (leaked) bad++;
    printf("verify: size %ld counted %ld bad %ld leaked-bytes %ld: %s\n", tab->size, count, bad, leaked,
           count == tab->size && !bad && count == nkeys ? "ok" : "FAILED");
    return count == tab->size && !bad && count == nkeys ? 0 : 1;
  }
  return 0;
}
