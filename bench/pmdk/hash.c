/* PMDK baseline: bench/hash.c ported to libpmemobj.  The same table (B
 * buckets of sorted lists, PMEMoid links), the same driver (../bench.h), each
 * update one TX_BEGIN/TX_END transaction with TX_ADD of every persistent word
 * it changes, run under the driver's spinning reader-writer lock (writer
 * side); lookups take the reader side and no transaction.
 *   PMEM_IS_PMEM_FORCE=1 pmdk-hash --pool /dev/shm/x.pool --keys 1000 ...
 * The pool is created when missing (64 MiB) and opened otherwise. */
#define AMBER_BENCH_PMDK 1
#define BENCH_BASE "hash"
#define BENCH_BUCKETS 1
#include "../bench.h"

#include "pool.h"

struct pnode {
  long key;
  PMEMoid next;
};
struct proot {
  struct bench_hdr h;
  long nbuckets;
  PMEMoid bucket[];
};

static struct proot *root;
#define NODE(oid) ((struct pnode *)pmemobj_direct(oid))
#define LAYOUT "amber-bench-hash"

static struct bench_hdr *wl_open(void) {
  pop = pmdk_open_pool(LAYOUT, 64 << 20);
  root = pmemobj_direct(pmemobj_root(pop, sizeof *root + (size_t)bench_nbuckets * sizeof(PMEMoid)));
  if (root->h.nkeys && root->nbuckets != bench_nbuckets) {
    fprintf(stderr, "pmdk-hash: the pool has %ld buckets, not --buckets %ld\n", root->nbuckets, bench_nbuckets);
    exit(2);
  }
  return &root->h;
}

static void wl_init(void) {
  BENCH_WRITE {
    TX_BEGIN(pop) {
      pmemobj_tx_add_range_direct(&root->nbuckets, sizeof root->nbuckets);
      root->nbuckets = bench_nbuckets;
    }
    TX_ONABORT { tx_failed(); }
    TX_END
  }
}

static int wl_lookup(long key) {
  int found = 0;
  BENCH_READ {
    for (PMEMoid o = root->bucket[key % root->nbuckets]; !OID_IS_NULL(o); o = NODE(o)->next) {
      struct pnode *n = NODE(o);
      if (n->key >= key) {
        found = n->key == key;
        break;
      }
    }
  }
  return found;
}

static int wl_insert(long key) {
  volatile int added = 0;
  BENCH_WRITE {
    TX_BEGIN(pop) {
      PMEMoid *pp = &root->bucket[key % root->nbuckets];
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
      PMEMoid *pp = &root->bucket[key % root->nbuckets];
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

static long wl_check(long *bad) {
  long count = 0;
  for (long b = 0; b < root->nbuckets; b++) {
    long last = -1;
    for (PMEMoid o = root->bucket[b]; !OID_IS_NULL(o); o = NODE(o)->next) {
      if (NODE(o)->key <= last || NODE(o)->key % root->nbuckets != b) ++*bad;
      last = NODE(o)->key;
      count++;
    }
  }
  return count;
}

int main(int argc, char **argv) {
  int rc = bench_main(argc, argv);
  pmemobj_close(pop);
  return rc;
}
