/* Sorted linked-list workload (the TimeStone paper's list): one sorted
 * singly linked list of K keys (default 10,000) under a persistent root.
 * Each operation is one region that walks from the head: a lookup, or an
 * insertion or removal (paired by the driver so the size stays K).
 * Driver, options and the baselines' region mapping: bench.h.
 *   list --keys 10000 --update 20 --threads 2 --seconds 1 [--verify] */
#define BENCH_BASE "list"
#include "bench.h"

struct node {
  long key;
  struct node *next;
};
struct list {
  struct bench_hdr h;
  struct node *head;
};

static struct list *lst;

static struct bench_hdr *wl_open(void) {
  lst = bench_root(sizeof *lst);
  return &lst->h;
}

static void wl_init(void) {}

static int wl_lookup(long key) {
  int found = 0;
  BENCH_READ {
    found = 0;
    struct node *n = lst->head;
    while (n && n->key < key) n = n->next;
    if (n && n->key == key) found = 1;
  }
  return found;
}

static int wl_insert(long key) {
  int added = 0;
  BENCH_WRITE {
    added = 0;
    struct node **pp = &lst->head;
    while (*pp && (*pp)->key < key) pp = &(*pp)->next;
    if (!*pp || (*pp)->key != key) {
      struct node *n = malloc(sizeof *n);
      n->key = key;
      n->next = *pp;
      *pp = n;
      lst->h.size++;
      added = 1;
    }
  }
  return added;
}

static int wl_remove(long key) {
  int removed = 0;
  BENCH_WRITE {
    removed = 0;
    struct node **pp = &lst->head;
    while (*pp && (*pp)->key < key) pp = &(*pp)->next;
    if (*pp && (*pp)->key == key) {
      struct node *n = *pp;
      *pp = n->next;
      free(n);
      lst->h.size--;
      removed = 1;
    }
  }
  return removed;
}

/* Strictly increasing keys, all in 0..2K-1. */
static long wl_check(long *bad) {
  long count = 0, last = -1;
  for (struct node *n = lst->head; n; n = n->next) {
    if (n->key <= last || n->key >= 2 * bench_nkeys) ++*bad;
    last = n->key;
    if (++count > 2 * bench_nkeys) { /* a cycle */
      ++*bad;
      break;
    }
  }
  return count;
}

int main(int argc, char **argv) { return bench_main(argc, argv); }
