/* PMDK baseline: bench/bptree.c ported to libpmemobj.  The same B+-tree
 * (fan-out F at run time, --fanout, default 8; splits, borrow/merge, root
 * collapse; pmdk/bptree.h, links as pool offsets), the same driver
 * (../bench.h), each update one TX_BEGIN/TX_END transaction with
 * pmemobj_tx_add_range_direct of every persistent range it changes, run under
 * the driver's spinning reader-writer lock (writer side); lookups take the
 * reader side and no transaction.  Named bptree-F with a "fanout" field like
 * the amber build; --verify checks the same invariants, values and heap
 * bytes (nodes gained since the preload allowed for).
 *   PMEM_IS_PMEM_FORCE=1 pmdk-bptree --pool /dev/shm/x.pool --fanout 64 --keys 10000 ...
 * The pool is created when missing (64 MiB) and opened otherwise. */
#define AMBER_BENCH_PMDK 1
#define BENCH_BASE "bptree"
#define BENCH_WL_OPTION
#define BENCH_WL_USAGE "[--fanout F]"
#define BENCH_WL_NAME
#define BENCH_WL_EXTRA
#define BENCH_WL_HEAP
#include "../bench.h"

#include "pool.h"

#include "bptree.h"

struct proot {
  struct bench_hdr h;
  struct pbt tree;
  long pre_nodes, pre_bytes; /* the tree's nodes and their usable bytes right after the preload */
};

static struct proot *root;
static long fanout = 8;
#define LAYOUT "amber-bench-bptree"

/* The value stored with a key (checked by --verify). */
static inline uint64_t value_of(long key) { return (uint64_t)key * 2654435761u + 1; }

static int wl_option(const char *opt, const char *val) {
  char *end;
  if (!strcmp(opt, "--fanout")) {
    fanout = strtol(val, &end, 10);
    if (*end || fanout < BPT_MIN_FANOUT || fanout > BPT_MAX_FANOUT) {
      fprintf(stderr, "bptree: --fanout must be %d..%d\n", BPT_MIN_FANOUT, BPT_MAX_FANOUT);
      exit(2);
    }
    return 1;
  }
  return 0;
}

static void wl_name(char *buf, size_t n) { snprintf(buf, n, "%s-%ld", BENCH_BASE, fanout); }
static void wl_extra(char *buf, size_t n) { snprintf(buf, n, ", \"fanout\": %ld", fanout); }

static void wrong_fanout(void) {
  fprintf(stderr, "bench: the heap holds a tree of fan-out %ld, not --fanout %ld; use a fresh heap\n", root->tree.fanout, fanout);
  exit(2);
}

static struct bench_hdr *wl_open(void) {
  pop = pmdk_open_pool(LAYOUT, 64 << 20);
  PMEMoid r = pmemobj_root(pop, sizeof *root);
  root = pmemobj_direct(r);
  pbt_attach(pop, r);
  if (root->h.nkeys && root->tree.fanout != fanout) wrong_fanout();
  return &root->h;
}

static void wl_init(void) {
  /* A preload that died half-way left a tree: the preload goes on with it. */
  BENCH_WRITE {
    TX_BEGIN(pop) {
      if (!root->tree.root) pbt_init(&root->tree, fanout);
    }
    TX_ONABORT { tx_failed(); }
    TX_END
  }
  if (root->tree.fanout != fanout) wrong_fanout();
}

static int wl_lookup(long key) {
  int found = 0;
  BENCH_READ {
    uint64_t *v = pbt_find(&root->tree, key);
    found = v && *v == value_of(key);
  }
  return found;
}

static int wl_insert(long key) {
  volatile int added = 0;
  BENCH_WRITE {
    TX_BEGIN(pop) {
      if (pbt_insert(&root->tree, key, value_of(key))) {
        PBT_SET(root->h.size, root->h.size + 1);
        added = 1;
      }
    }
    TX_ONABORT { tx_failed(); }
    TX_END
  }
  return added;
}

static int wl_remove(long key) {
  volatile int removed = 0;
  BENCH_WRITE {
    TX_BEGIN(pop) {
      if (pbt_remove(&root->tree, key, NULL)) {
        PBT_SET(root->h.size, root->h.size - 1);
        removed = 1;
      }
    }
    TX_ONABORT { tx_failed(); }
    TX_END
  }
  return removed;
}

static void count_nodes(long *nodes, long *bytes) {
  *nodes = *bytes = 0;
  pbt_usage(&root->tree, pbt_ptr(root->tree.root), 0, nodes, bytes);
}

static void wl_preloaded(void) {
  long n, b;
  count_nodes(&n, &b);
  BENCH_WRITE {
    TX_BEGIN(pop) {
      PBT_SET(root->pre_nodes, n);
      PBT_SET(root->pre_bytes, b);
    }
    TX_ONABORT { tx_failed(); }
    TX_END
  }
}

static void wl_heap_delta(long *objects, long *bytes) {
  long n, b;
  count_nodes(&n, &b);
  *objects = n - root->pre_nodes;
  *bytes = b - root->pre_bytes;
}

/* Every B+-tree invariant (pmdk/bptree.h), keys in 0..2K-1, each value the
 * one inserted with its key; a range scan from the smallest key sees them all. */
static long wl_check(long *bad) {
  const struct pbt *t = &root->tree;
  long count = pbt_check(t, 2 * bench_nkeys, bad);
  struct pbt_iter it;
  long scanned = 0, last = -1;
  for (pbt_seek(t, 0, &it); pbt_more(&it) && scanned <= 2 * bench_nkeys; pbt_next(&it), scanned++) {
    long k = it.x->key[it.i];
    if (k <= last || k >= 2 * bench_nkeys) ++*bad;
    if (pbt_slot(t, it.x)[it.i] != value_of(k) && ++*bad <= 10) fprintf(stderr, "bptree: wrong value for key %ld\n", k);
    last = k;
  }
  if (scanned != count) ++*bad;
  return count;
}

int main(int argc, char **argv) {
  int rc = bench_main(argc, argv);
  pmemobj_close(pop);
  return rc;
}
