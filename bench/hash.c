/* Hash-table workload (the TimeStone and Romulus papers' microbenchmark):
 * B buckets (default 1,000) of sorted singly linked lists, K keys preloaded.
 * Each operation is one region: a lookup, or an insertion or removal (paired
 * by the driver so the size stays K).  Driver, options and the baselines'
 * region mapping: bench.h.
 *   hash --keys 1000 --update 20 --threads 2 --seconds 1 [--verify] */
#define BENCH_BASE "hash"
#define BENCH_BUCKETS 1
#include "bench.h"

struct node {
  long key;
  struct node *next;
};
struct table {
  struct bench_hdr h;
  long nbuckets;
  struct node *bucket[];
};

static struct table *tab;

static struct bench_hdr *wl_open(void) {
  tab = bench_root(sizeof *tab + (size_t)bench_nbuckets * sizeof(struct node *));
  if (tab->h.nkeys && tab->nbuckets != bench_nbuckets) {
    fprintf(stderr, "hash: the heap has %ld buckets, not --buckets %ld; use a fresh heap\n", tab->nbuckets, bench_nbuckets);
    exit(2);
  }
  return &tab->h;
}

static void wl_init(void) {
  BENCH_WRITE { tab->nbuckets = bench_nbuckets; }
}

static int wl_lookup(long key) {
  int found = 0;
  BENCH_READ {
    found = 0;
    for (struct node *n = tab->bucket[key % tab->nbuckets]; n && n->key <= key; n = n->next)
      if (n->key == key) found = 1;
  }
  return found;
}

static int wl_insert(long key) {
  int added = 0;
  BENCH_WRITE {
    added = 0;
    struct node **pp = &tab->bucket[key % tab->nbuckets];
    while (*pp && (*pp)->key < key) pp = &(*pp)->next;
    if (!*pp || (*pp)->key != key) {
      struct node *n = malloc(sizeof *n);
      n->key = key;
      n->next = *pp;
      *pp = n;
      tab->h.size++;
      added = 1;
    }
  }
  return added;
}

static int wl_remove(long key) {
  int removed = 0;
  BENCH_WRITE {
    removed = 0;
    struct node **pp = &tab->bucket[key % tab->nbuckets];
    while (*pp && (*pp)->key < key) pp = &(*pp)->next;
    if (*pp && (*pp)->key == key) {
      struct node *n = *pp;
      *pp = n->next;
      free(n);
      tab->h.size--;
      removed = 1;
    }
  }
  return removed;
}

/* Every bucket sorted, every key in its own bucket. */
static long wl_check(long *bad) {
  long count = 0;
  for (long b = 0; b < tab->nbuckets; b++) {
    long last = -1;
    for (struct node *n = tab->bucket[b]; n; n = n->next) {
      if (n->key <= last || n->key % tab->nbuckets != b) ++*bad;
      last = n->key;
      count++;
    }
  }
  return count;
}

int main(int argc, char **argv) { return bench_main(argc, argv); }
