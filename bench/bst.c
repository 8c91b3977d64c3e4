/* Binary-search-tree workload: an unbalanced (external-free, internal) BST
 * of K keys (default 10,000) inserted in random order, so its depth stays
 * logarithmic in expectation.  Each operation is one region: a lookup, or an
 * insertion or removal (paired by the driver so the size stays K).  Removing
 * a node with two children moves its in-order neighbour's key into it and
 * unlinks the neighbour; successor and predecessor alternate (by key parity)
 * so the tree does not drift to one side.
 * Driver, options and the baselines' region mapping: bench.h.
 *   bst --keys 10000 --update 20 --threads 2 --seconds 1 [--verify] */
#define BENCH_BASE "bst"
#include "bench.h"

struct node {
  long key;
  struct node *child[2]; /* [0] smaller keys, [1] larger keys */
};
struct tree {
  struct bench_hdr h;
  struct node *root;
};

static struct tree *tr;

static struct bench_hdr *wl_open(void) {
  tr = bench_root(sizeof *tr);
  return &tr->h;
}

static void wl_init(void) {}

static int wl_lookup(long key) {
  int found = 0;
  BENCH_READ {
    found = 0;
    struct node *n = tr->root;
    while (n && n->key != key) n = n->child[key > n->key];
    if (n) found = 1;
  }
  return found;
}

static int wl_insert(long key) {
  int added = 0;
  BENCH_WRITE {
    added = 0;
    struct node **pp = &tr->root;
    while (*pp && (*pp)->key != key) pp = &(*pp)->child[key > (*pp)->key];
    if (!*pp) {
      struct node *n = malloc(sizeof *n);
      n->key = key;
      n->child[0] = n->child[1] = NULL;
      *pp = n;
      tr->h.size++;
      added = 1;
    }
  }
  return added;
}

static int wl_remove(long key) {
  int removed = 0;
  BENCH_WRITE {
    removed = 0;
    struct node **pp = &tr->root;
    while (*pp && (*pp)->key != key) pp = &(*pp)->child[key > (*pp)->key];
    if (*pp) {
      struct node *n = *pp;
      if (n->child[0] && n->child[1]) {
        /* Two children: replace the key by its neighbour's and unlink that. */
        int d = (int)(key & 1); /* 1: successor (leftmost of right), 0: predecessor */
        struct node **qp = &n->child[d];
        while ((*qp)->child[!d]) qp = &(*qp)->child[!d];
        struct node *q = *qp;
        n->key = q->key;
        *qp = q->child[d];
        free(q);
      } else {
        *pp = n->child[0] ? n->child[0] : n->child[1];
        free(n);
      }
      tr->h.size--;
      removed = 1;
    }
  }
  return removed;
}

/* In-order walk with an explicit stack: keys strictly increasing, all in
 * 0..2K-1; a walk longer than the key space means a cycle. */
static long wl_check(long *bad) {
  long count = 0, last = -1, top = 0, cap = 64;
  struct node **stack = calloc((size_t)cap, sizeof *stack);
  struct node *n = tr->root;
  while (n || top) {
    while (n) {
      if (top == cap) stack = realloc(stack, (size_t)(cap *= 2) * sizeof *stack);
      stack[top++] = n;
      n = n->child[0];
    }
    n = stack[--top];
    if (n->key <= last || n->key >= 2 * bench_nkeys) ++*bad;
    last = n->key;
    if (++count > 2 * bench_nkeys) {
      ++*bad;
      break;
    }
    n = n->child[1];
  }
  free(stack);
  return count;
}

int main(int argc, char **argv) { return bench_main(argc, argv); }
