/* PMDK baseline: bench/bst.c ported to libpmemobj.  The same unbalanced
 * binary search tree (PMEMoid children; a node with two children takes its
 * in-order neighbour's key, successor or predecessor by key parity, and the
 * neighbour is unlinked), the same driver (../bench.h), each update one
 * TX_BEGIN/TX_END transaction with TX_ADD of every persistent word it
 * changes, run under the driver's spinning reader-writer lock (writer side);
 * lookups take the reader side and no transaction.
 *   PMEM_IS_PMEM_FORCE=1 pmdk-bst --pool /dev/shm/x.pool --keys 10000 ...
 * The pool is created when missing (64 MiB) and opened otherwise. */
#define AMBER_BENCH_PMDK 1
#define BENCH_BASE "bst"
#include "../bench.h"

#include "pool.h"

struct pnode {
  long key;
  PMEMoid child[2]; /* [0] smaller keys, [1] larger keys */
};
struct proot {
  struct bench_hdr h;
  PMEMoid root;
};

static struct proot *root;
#define NODE(oid) ((struct pnode *)pmemobj_direct(oid))
#define LAYOUT "amber-bench-bst"

static struct bench_hdr *wl_open(void) {
  pop = pmdk_open_pool(LAYOUT, 64 << 20);
  root = pmemobj_direct(pmemobj_root(pop, sizeof *root));
  return &root->h;
}

static void wl_init(void) {}

static int wl_lookup(long key) {
  int found = 0;
  BENCH_READ {
    PMEMoid o = root->root;
    while (!OID_IS_NULL(o) && NODE(o)->key != key) o = NODE(o)->child[key > NODE(o)->key];
    found = !OID_IS_NULL(o);
  }
  return found;
}

static int wl_insert(long key) {
  volatile int added = 0;
  BENCH_WRITE {
    TX_BEGIN(pop) {
      PMEMoid *pp = &root->root;
      while (!OID_IS_NULL(*pp) && NODE(*pp)->key != key) pp = &NODE(*pp)->child[key > NODE(*pp)->key];
      if (OID_IS_NULL(*pp)) {
        /* A new object needs no TX_ADD: an abort frees it. */
        PMEMoid o = pmemobj_tx_alloc(sizeof(struct pnode), 1);
        struct pnode *n = NODE(o);
        n->key = key;
        n->child[0] = n->child[1] = OID_NULL;
        pmemobj_tx_add_range_direct(pp, sizeof *pp);
        *pp = o;
        pmemobj_tx_add_range_direct(&root->h.size, sizeof root->h.size);
        root->h.size++;
        BENCH_STORED(sizeof *n + sizeof *pp + sizeof root->h.size);
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
      PMEMoid *pp = &root->root;
      while (!OID_IS_NULL(*pp) && NODE(*pp)->key != key) pp = &NODE(*pp)->child[key > NODE(*pp)->key];
      if (!OID_IS_NULL(*pp)) {
        PMEMoid o = *pp;
        struct pnode *n = NODE(o);
        if (!OID_IS_NULL(n->child[0]) && !OID_IS_NULL(n->child[1])) {
          /* Two children: replace the key by its neighbour's and unlink that. */
          int d = (int)(key & 1); /* 1: successor (leftmost of right), 0: predecessor */
          PMEMoid *qp = &n->child[d];
          while (!OID_IS_NULL(NODE(*qp)->child[!d])) qp = &NODE(*qp)->child[!d];
          PMEMoid q = *qp;
          pmemobj_tx_add_range_direct(&n->key, sizeof n->key);
          n->key = NODE(q)->key;
          pmemobj_tx_add_range_direct(qp, sizeof *qp);
          *qp = NODE(q)->child[d];
          pmemobj_tx_free(q);
          BENCH_STORED(sizeof n->key + sizeof *qp);
        } else {
          pmemobj_tx_add_range_direct(pp, sizeof *pp);
          *pp = OID_IS_NULL(n->child[0]) ? n->child[1] : n->child[0];
          pmemobj_tx_free(o);
          BENCH_STORED(sizeof *pp);
        }
        pmemobj_tx_add_range_direct(&root->h.size, sizeof root->h.size);
        root->h.size--;
        BENCH_STORED(sizeof root->h.size);
        removed = 1;
      }
    }
    TX_ONABORT { tx_failed(); }
    TX_END
  }
  return removed;
}

/* In-order walk with an explicit stack: keys strictly increasing, all in
 * 0..2K-1; a walk longer than the key space means a cycle. */
static long wl_check(long *bad) {
  long count = 0, last = -1, top = 0, cap = 64;
  struct pnode **stack = calloc((size_t)cap, sizeof *stack);
  struct pnode *n = NODE(root->root);
  while (n || top) {
    while (n) {
      if (top == cap) stack = realloc(stack, (size_t)(cap *= 2) * sizeof *stack);
      stack[top++] = n;
      n = NODE(n->child[0]);
    }
    n = stack[--top];
    if (n->key <= last || n->key >= 2 * bench_nkeys) ++*bad;
    last = n->key;
    if (++count > 2 * bench_nkeys) {
      ++*bad;
      break;
    }
    n = NODE(n->child[1]);
  }
  free(stack);
  return count;
}

int main(int argc, char **argv) {
  int rc = bench_main(argc, argv);
  pmemobj_close(pop);
  return rc;
}
