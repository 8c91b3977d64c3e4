/* B+-tree workload: K keys (default 10,000) in a B+-tree of fan-out F
 * (--fanout, default 8; 8 and 64 are the benchmarked ones), nodes sized from
 * F at run time and allocated with malloc (the persistent heap under amber).
 * Each operation is one region: a lookup, or an insertion (splits) or a
 * removal (borrow from or merge with a sibling, root collapse), paired by the
 * driver so the size stays K.  The tree: bench/bptree.h.  The workload is
 * named by its fan-out (bptree-8, bptree-64), and the JSON line adds
 * "fanout".  --verify checks every B+-tree invariant (bptree.h), that each
 * leaf value is the one inserted with its key, and that the heap grew by
 * exactly the nodes the tree gained since the preload.
 * Driver, options and the baselines' region mapping: bench.h.
 *   bptree --fanout 64 --keys 10000 --update 20 --threads 2 --seconds 1 [--verify] */
#define BENCH_BASE "bptree"
#define BENCH_WL_OPTION
#define BENCH_WL_USAGE "[--fanout F] [--break N]"
#define BENCH_WL_NAME
#define BENCH_WL_EXTRA
#define BENCH_WL_HEAP
#include <limits.h>

#include "bench.h"
#include "bptree.h"

struct root {
  struct bench_hdr h;
  struct bpt tree;
  long pre_nodes, pre_bytes; /* the tree's nodes and their heap bytes right after the preload */
};

static struct root *rt;
static long fanout = 8, brk;

/* The value stored with a key (checked by --verify). */
static inline uintptr_t value_of(long key) { return (uintptr_t)key * 2654435761u + 1; }

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
  if (!strcmp(opt, "--break")) {
    brk = strtol(val, &end, 10);
    if (*end || brk < 1 || brk > 8) {
      fprintf(stderr, "bptree: --break must be 1..8\n");
      exit(2);
    }
    return 1;
  }
  return 0;
}

static void wl_name(char *buf, size_t n) { snprintf(buf, n, "%s-%ld", BENCH_BASE, fanout); }
static void wl_extra(char *buf, size_t n) { snprintf(buf, n, ", \"fanout\": %ld", fanout); }

static struct bench_hdr *wl_open(void) {
  rt = bench_root(sizeof *rt);
  if (rt->h.nkeys && rt->tree.fanout != fanout) {
    fprintf(stderr, "bench: the heap holds a tree of fan-out %ld, not --fanout %ld; use a fresh heap\n", rt->tree.fanout, fanout);
    exit(2);
  }
  return &rt->h;
}

static void wl_init(void) {
  /* A preload that died half-way left a tree: the preload goes on with it. */
  BENCH_WRITE {
    if (!rt->tree.root) bpt_init(&rt->tree, fanout);
  }
  if (rt->tree.fanout != fanout) {
    fprintf(stderr, "bench: the heap holds a tree of fan-out %ld, not --fanout %ld; use a fresh heap\n", rt->tree.fanout, fanout);
    exit(2);
  }
}

static int wl_lookup(long key) {
  int found = 0;
  BENCH_READ {
    uintptr_t *v = bpt_find(&rt->tree, key);
    found = v && *v == value_of(key);
  }
  return found;
}

static int wl_insert(long key) {
  int added = 0;
  BENCH_WRITE {
    added = bpt_insert(&rt->tree, key, value_of(key));
    if (added) rt->h.size++;
  }
  return added;
}

static int wl_remove(long key) {
  int removed = 0;
  BENCH_WRITE {
    removed = bpt_remove(&rt->tree, key, NULL);
    if (removed) rt->h.size--;
  }
  return removed;
}

static void count_nodes(long *nodes, long *bytes) {
  *nodes = *bytes = 0;
  bpt_usage(&rt->tree, rt->tree.root, 0, bench_obj_bytes, nodes, bytes);
}

static void wl_preloaded(void) {
  long n, b;
  count_nodes(&n, &b);
  BENCH_WRITE {
    rt->pre_nodes = n;
    rt->pre_bytes = b;
  }
}

static void wl_heap_delta(long *objects, long *bytes) {
  long n, b;
  count_nodes(&n, &b);
  *objects = n - rt->pre_nodes;
  *bytes = b - rt->pre_bytes;
}

/* --break N (tests only): break one invariant before --verify checks, to
 * show that it is caught.  The tree must have inner nodes two levels deep
 * (10,000 keys do for fan-outs up to 64).  1: two keys of a leaf swapped;
 * 2: the root's first separator lowered onto a key of its left subtree;
 * 3: the leaf chain skips the second leaf; 4: the first leaf underfull;
 * 5: the root's first child replaced by its own first child (leaves at two
 * depths); 6: a value changed; 7: the size counter off by one; 8: the root's
 * last subtree unlinked but not freed (a leak). */
static void break_tree(void) {
  BENCH_WRITE {
    struct bpt *t = &rt->tree;
    struct bpt_node *r = t->root, *first = bpt_find_leaf(t, LONG_MIN), *c0 = bpt_child(t, r, 0);
    if (brk == 1) {
      long k = first->key[0];
      first->key[0] = first->key[1];
      first->key[1] = k;
    } else if (brk == 2) {
      struct bpt_node *x = c0;
      while (!x->leaf) x = bpt_child(t, x, x->n);
      r->key[0] = x->key[x->n - 1];
    } else if (brk == 3) {
      first->next = first->next->next;
    } else if (brk == 4) {
      first->n = bpt_leaf_min(t) - 1;
    } else if (brk == 5) {
      bpt_slot(t, r)[0] = (uintptr_t)bpt_child(t, c0, 0);
    } else if (brk == 6) {
      bpt_slot(t, first)[0] ^= 1;
    } else if (brk == 7) {
      rt->h.size++;
    } else if (brk == 8) {
      r->n--;
    }
  }
}

/* Every B+-tree invariant (bptree.h), keys in 0..2K-1, each value the one
 * inserted with its key; a range scan from the smallest key sees them all. */
static long wl_check(long *bad) {
  if (brk) break_tree();
  long count = bpt_check(&rt->tree, 2 * bench_nkeys, bad);
  struct bpt_iter it;
  long scanned = 0, last = -1;
  for (bpt_seek(&rt->tree, 0, &it); bpt_more(&it) && scanned <= 2 * bench_nkeys; bpt_next(&it), scanned++) {
    long k = it.x->key[it.i];
    if (k <= last || k >= 2 * bench_nkeys) ++*bad;
    if (bpt_slot(&rt->tree, it.x)[it.i] != value_of(k) && ++*bad <= 10) fprintf(stderr, "bptree: wrong value for key %ld\n", k);
    last = k;
  }
  if (scanned != count) ++*bad;
  return count;
}

int main(int argc, char **argv) { return bench_main(argc, argv); }
