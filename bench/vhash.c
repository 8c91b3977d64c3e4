/* Hash-table workload on ORDINARY memory (issue [1d/7]): bench/hash.c's
 * table (B buckets of sorted singly linked lists, K keys) with the table,
 * its header and every node in volatile memory, obtained outside regions as
 * STAMP's programs do, so every access a region makes is to ordinary memory.
 * Regions are the same BENCH_READ / BENCH_WRITE (AMBER_ATOMIC under
 * amber-cc; one mutex with -DAMBER_BENCH_VOLATILE -DAMBER_BENCH_MUTEX).
 *
 * Inside an amber region malloc is a persistent allocation, so regions never
 * allocate: each thread has a pool of free nodes (a list), filled with plain
 * malloc outside regions; an insertion pops its node from the inserting
 * thread's pool, a removal pushes the node onto the removing thread's pool.
 * Each pool is touched only by its owner, but nodes move between pools
 * through the table.
 *
 * --verify checks, besides bench/hash.c's invariants (sorted buckets, each
 * key in its bucket, size exactly K), that no node is lost or duplicated:
 * every node ever made is found exactly once, in the table or in a pool.
 * A lost update (two regions on one bucket both committed as if alone)
 * breaks one of these.  The structure does not survive the process: every
 * run preloads (--preload-only preloads and exits).
 *   vhash --keys 1000 --update 20 --threads 2 --seconds 1 [--verify] */
#define BENCH_BASE "vhash"
#define BENCH_BUCKETS 1
#define BENCH_WL_EXTRA
#include "bench.h"

struct node {
  long key;
  struct node *next;
  long id; /* 0..made-1, set once outside regions: --verify's visit mark */
};
struct table {
  struct bench_hdr h;
  long nbuckets;
  struct node *bucket[];
};
/* One thread's free nodes, a cache line of its own (threads never share). */
struct pool {
  struct node *free;
  long count;
  char pad[64 - sizeof(struct node *) - sizeof(long)];
};

static struct table *tab;
static struct pool *pools; /* npools: the preloading thread's and one per worker */
static long npools, next_pool, made;
static __thread struct pool *my_pool;
enum { REFILL = 64 }; /* nodes per refill of an empty pool */

/* Ordinary memory only: `(malloc)` escapes bench.h's counting macro of the
 * volatile builds, and outside regions amber's malloc is libc's.  Never
 * called inside a region. */
static void *ordinary_calloc(size_t n, size_t size) {
  void *p = (calloc)(n, size);
  if (!p) abort();
  return p;
}

static void pool_refill(struct pool *p) {
  long first = __atomic_fetch_add(&made, REFILL, __ATOMIC_RELAXED);
  struct node *slab = ordinary_calloc(REFILL, sizeof *slab);
  for (long i = 0; i < REFILL; i++) {
    slab[i].id = first + i;
    slab[i].next = p->free;
    p->free = &slab[i];
  }
  p->count += REFILL;
}

/* The calling thread's pool, assigned outside regions on its first call. */
static struct pool *pool_self(void) {
  if (!my_pool) {
    long i = __atomic_fetch_add(&next_pool, 1, __ATOMIC_RELAXED);
    if (i >= npools) {
      fprintf(stderr, "vhash: more threads than pools\n");
      abort();
    }
    my_pool = &pools[i];
  }
  return my_pool;
}

static struct bench_hdr *wl_open(void) {
  tab = ordinary_calloc(1, sizeof *tab + (size_t)bench_nbuckets * sizeof(struct node *));
  npools = bench_nthreads + 1;
  pools = ordinary_calloc((size_t)npools, sizeof *pools);
  return &tab->h;
}

static void wl_init(void) {
  BENCH_WRITE { tab->nbuckets = bench_nbuckets; }
}

static void wl_extra(char *buf, size_t n) { snprintf(buf, n, ", \"memory\": \"volatile\""); }

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
  struct pool *p = pool_self();
  for (;;) {
    int added = 0, empty = 0;
    BENCH_WRITE {
      added = empty = 0;
      struct node **pp = &tab->bucket[key % tab->nbuckets];
      while (*pp && (*pp)->key < key) pp = &(*pp)->next;
      if (!*pp || (*pp)->key != key) {
        struct node *n = p->free;
        if (!n) {
          empty = 1; /* refilled below, outside the region */
        } else {
          p->free = n->next;
          p->count--;
          n->key = key;
          n->next = *pp;
          *pp = n;
          tab->h.size++;
          added = 1;
        }
      }
    }
    if (!empty) return added;
    pool_refill(p);
  }
}

static int wl_remove(long key) {
  struct pool *p = pool_self();
  int removed = 0;
  BENCH_WRITE {
    removed = 0;
    struct node **pp = &tab->bucket[key % tab->nbuckets];
    while (*pp && (*pp)->key < key) pp = &(*pp)->next;
    if (*pp && (*pp)->key == key) {
      struct node *n = *pp;
      *pp = n->next;
      n->next = p->free;
      p->free = n;
      p->count++;
      tab->h.size--;
      removed = 1;
    }
  }
  return removed;
}

/* Marks n visited; 0 when it cannot be a node we made or was seen before
 * (a duplicate, or a cycle: the caller stops walking that list). */
static int visit(unsigned char *seen, struct node *n, long *bad) {
  if (n->id < 0 || n->id >= made || seen[n->id]) {
    ++*bad;
    return 0;
  }
  seen[n->id] = 1;
  return 1;
}

/* Every bucket sorted, every key in its own bucket; every node made is in
 * exactly one place, the table or one pool, and each pool's count is its
 * length.  Returns the table's node count. */
static long wl_check(long *bad) {
  unsigned char *seen = ordinary_calloc((size_t)made + 1, 1);
  long count = 0, pooled = 0;
  for (long b = 0; b < tab->nbuckets; b++) {
    long last = -1;
    for (struct node *n = tab->bucket[b]; n && visit(seen, n, bad); n = n->next) {
      if (n->key <= last || n->key % tab->nbuckets != b) ++*bad;
      last = n->key;
      count++;
    }
  }
  for (long i = 0; i < npools; i++) {
    long len = 0;
    for (struct node *n = pools[i].free; n && visit(seen, n, bad); n = n->next) len++;
    if (len != pools[i].count) ++*bad;
    pooled += len;
  }
  long lost = made - count - pooled;
  printf("verify: nodes made %ld in-table %ld pooled %ld lost %ld\n", made, count, pooled, lost);
  if (lost) ++*bad;
  (free)(seen); /* ordinary, not counted by the volatile builds */
  return count;
}

int main(int argc, char **argv) { return bench_main(argc, argv); }
