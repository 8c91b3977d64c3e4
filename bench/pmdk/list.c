/* PMDK baseline: bench/list.c ported to libpmemobj.  The same sorted singly
 * linked list (PMEMoid links), the same driver (../bench.h), each update one
 * TX_BEGIN/TX_END transaction with TX_ADD of every persistent word it
 * changes, run under the driver's spinning reader-writer lock (writer side);
 * lookups take the reader side and no transaction.
 *   PMEM_IS_PMEM_FORCE=1 pmdk-list --pool /dev/shm/x.pool --keys 10000 ...
 * The pool is created when missing (64 MiB) and opened otherwise. */
#define AMBER_BENCH_PMDK 1
#define BENCH_BASE "list"
#include "../bench.h"

#include "pool.h"

struct pnode {
  long key;
  PMEMoid next;
};
struct proot {
  struct bench_hdr h;
  PMEMoid head;
};

static struct proot *root;
#define NODE(oid) ((struct pnode *)pmemobj_direct(oid))
#define LAYOUT "amber-bench-list"

static struct bench_hdr *wl_open(void) {
  pop = pmdk_open_pool(LAYOUT, 64 << 20);
  root = pmemobj_direct(pmemobj_root(pop, sizeof *root));
  return &root->h;
}

static void wl_init(void) {}

static int wl_lookup(long key) {
  int found = 0;
  BENCH_READ {
    PMEMoid o = root->head;
    while (!OID_IS_NULL(o) && NODE(o)->key < key) o = NODE(o)->next;
    found = !OID_IS_NULL(o) && NODE(o)->key == key;
  }
  return found;
}

static int wl_insert(long key) {
  volatile int added = 0;
  BENCH_WRITE {
    TX_BEGIN(pop) {
      PMEMoid *pp = &root->head;
      while (!OID_IS_NULL(*pp) && NODE(*pp)->key < key) pp = &NODE(*pp)->next;
      if (OID_IS_NULL(*pp) || NODE(*pp)->key != key) {
        /* A new object needs no TX_ADD: an abort frees it. */
        PMEMoid o = pmemobj_tx_alloc(sizeof(struct pnode), 1);
        struct pnode *n = NODE(o);
        n->key = key;
        n->next = *pp;
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
      PMEMoid *pp = &root->head;
      while (!OID_IS_NULL(*pp) && NODE(*pp)->key < key) pp = &NODE(*pp)->next;
      if (!OID_IS_NULL(*pp) && NODE(*pp)->key == key) {
        PMEMoid o = *pp;
        pmemobj_tx_add_range_direct(pp, sizeof *pp);
        *pp = NODE(o)->next;
        pmemobj_tx_free(o);
        pmemobj_tx_add_range_direct(&root->h.size, sizeof root->h.size);
        root->h.size--;
        BENCH_STORED(sizeof *pp + sizeof root->h.size);
        removed = 1;
      }
    }
    TX_ONABORT { tx_failed(); }
    TX_END
  }
  return removed;
}

/* Strictly increasing keys, all in 0..2K-1. */
static long wl_check(long *bad) {
  long count = 0, last = -1;
  for (PMEMoid o = root->head; !OID_IS_NULL(o); o = NODE(o)->next) {
    if (NODE(o)->key <= last || NODE(o)->key >= 2 * bench_nkeys) ++*bad;
    last = NODE(o)->key;
    if (++count > 2 * bench_nkeys) { /* a cycle */
      ++*bad;
      break;
    }
  }
  return count;
}

int main(int argc, char **argv) {
  int rc = bench_main(argc, argv);
  pmemobj_close(pop);
  return rc;
}
