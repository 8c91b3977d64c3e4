/* PMDK baseline: bench/ycsb.c (YCSB A-F on the B+-tree) ported to
 * libpmemobj.  The same records, keys, values, operation mixes, zipfian and
 * latest choices, options, JSON line and --verify checks as ../ycsb.c (read
 * its header comment); the tree is pmdk/bptree.h (links as pool offsets), each
 * value a separately allocated pool object whose pool offset is the leaf's
 * value word.  Each update, insert and read-modify-write is one
 * TX_BEGIN/TX_END transaction under the driver's spinning reader-writer lock
 * (writer side), with pmemobj_tx_add_range_direct of every persistent range it
 * changes, pmemobj_tx_alloc / pmemobj_tx_free for nodes and values; reads and
 * scans take the reader side and no transaction.  stored_bytes counts the
 * bytes the measured phase's transactions store (new values and nodes
 * included).
 *   PMEM_IS_PMEM_FORCE=1 pmdk-ycsb --pool /dev/shm/x.pool --workload a --records 100000 ...
 * The pool is created when missing (512 MiB, as bench/run gives the amber
 * heap: about 3.5 million records of about 150 pool bytes each, for YCSB D
 * and E add records for as long as they run) and opened otherwise. */
#define AMBER_BENCH_PMDK 1
#define BENCH_NO_DRIVER
#include "../bench.h"
#define PMDK_NAME "pmdk-ycsb"
#include "pool.h"

#include <limits.h>

#include "bptree.h"

#define VAL_MIN 8
#define VAL_MAX 100
#define SCAN_MAX 100
#define TYPE_BLOB 2
#define POOL_SIZE ((size_t)512 << 20) /* as bench/run's amber heap for YCSB */
#define LAYOUT "amber-bench-ycsb"

struct blob {
  uint32_t len, seed;
  unsigned char data[]; /* len bytes of blob_pattern(key, seed) */
};

struct yroot {
  struct bench_hdr h; /* nkeys = R once loaded; size = records present */
  struct pbt tree;
  long next;                     /* records 0..next-1 exist */
  long load_objects, load_bytes; /* the tree's own nodes and values after the load */
};

static struct yroot *yr;
static long records = 100000, fanout = 16;
static int workload = 'a';
static uint64_t zipf_n; /* records when the run began: the zipfian's item count */

/* A bijection of 64-bit words (splitmix64's finaliser): the key of record i. */
static inline long ykey(long rec) {
  uint64_t z = (uint64_t)rec;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return (long)(z ^ (z >> 31));
}

static inline void blob_pattern(unsigned char *out, long key, uint32_t seed, uint32_t len) {
  uint64_t h = (uint64_t)key ^ ((uint64_t)seed * 0x9e3779b97f4a7c15ull);
  for (uint32_t j = 0; j < len; j++) {
    if (j % 8 == 0) h = h * 6364136223846793005ull + 1442695040888963407ull;
    out[j] = (unsigned char)(h >> (8 * (j % 8)));
  }
}

/* In a transaction: a new value for key; its pool offset. */
static uint64_t blob_new(long key, uint32_t seed, uint32_t len) {
  unsigned char buf[VAL_MAX];
  blob_pattern(buf, key, seed, len);
  struct blob *b = pmemobj_direct(pmemobj_tx_alloc(sizeof *b + len, TYPE_BLOB));
  b->len = len;
  b->seed = seed;
  memcpy(b->data, buf, len);
  BENCH_STORED(sizeof *b + len); /* a new object: nothing to snapshot */
  return pbt_off(b);
}
static inline const struct blob *blob_at(uint64_t off) { return pbt_ptr(off); }

static inline uint64_t blob_sum(const struct blob *b) {
  uint64_t s = 0;
  for (uint32_t j = 0; j < b->len; j++) s += b->data[j];
  return s;
}

/* ---- the operations, one region each ------------------------------------ */
static inline uint32_t rnd_len(uint64_t *s) { return VAL_MIN + (uint32_t)(bench_rnd(s) % (VAL_MAX - VAL_MIN + 1)); }

/* Returns 1 when found; *sum gets the value's byte sum. */
static int op_read(long key, uint64_t *sum) {
  int found = 0;
  uint64_t s = 0;
  BENCH_READ {
    uint64_t *v = pbt_find(&yr->tree, key);
    found = v != NULL;
    s = v ? blob_sum(blob_at(*v)) : 0;
  }
  *sum += s;
  return found;
}

/* Reads record next-1-rank, next read in the region. */
static int op_read_latest(uint64_t rank, uint64_t *sum) {
  int found = 0;
  uint64_t s = 0;
  BENCH_READ {
    long n = yr->next;
    long rec = n - 1 - (long)(rank < (uint64_t)n ? rank : (uint64_t)n - 1);
    uint64_t *v = pbt_find(&yr->tree, ykey(rec));
    found = v != NULL;
    s = v ? blob_sum(blob_at(*v)) : 0;
  }
  *sum += s;
  return found;
}

static int op_scan(long start, long count, uint64_t *sum) {
  int found = 0;
  uint64_t s = 0;
  BENCH_READ {
    struct pbt_iter it;
    long seen = 0;
    pbt_seek(&yr->tree, start, &it);
    found = pbt_more(&it) && it.x->key[it.i] == start;
    for (; seen < count && pbt_more(&it); pbt_next(&it), seen++) s += blob_sum(blob_at(pbt_slot(&yr->tree, it.x)[it.i]));
  }
  *sum += s;
  return found;
}

static int op_update(long key, uint32_t seed, uint32_t len) {
  volatile int found = 0;
  BENCH_WRITE {
    TX_BEGIN(pop) {
      uint64_t *v = pbt_find(&yr->tree, key);
      if (v) {
        uint64_t old = *v;
        PBT_SET(*v, blob_new(key, seed, len));
        pmemobj_tx_free(pbt_oid(pbt_ptr(old)));
        found = 1;
      }
    }
    TX_ONABORT { tx_failed(); }
    TX_END
  }
  return found;
}

static int op_rmw(long key, uint32_t len, uint64_t *sum) {
  volatile int found = 0;
  volatile uint64_t s = 0;
  BENCH_WRITE {
    TX_BEGIN(pop) {
      uint64_t *v = pbt_find(&yr->tree, key);
      if (v) {
        uint64_t old = *v;
        s = blob_sum(blob_at(old));
        PBT_SET(*v, blob_new(key, blob_at(old)->seed + 1, len));
        pmemobj_tx_free(pbt_oid(pbt_ptr(old)));
        found = 1;
      }
    }
    TX_ONABORT { tx_failed(); }
    TX_END
  }
  *sum += s;
  return found;
}

/* Adds record next. */
static void op_insert(uint32_t seed, uint32_t len) {
  BENCH_WRITE {
    TX_BEGIN(pop) {
      long key = ykey(yr->next);
      uint64_t b = blob_new(key, seed, len);
      if (pbt_insert(&yr->tree, key, b)) {
        PBT_SET(yr->next, yr->next + 1);
        PBT_SET(yr->h.size, yr->h.size + 1);
      } else {
        pmemobj_tx_free(pbt_oid(pbt_ptr(b)));
      }
    }
    TX_ONABORT { tx_failed(); }
    TX_END
  }
}

/* ---- the run phase: shared with the amber driver ---------------------------- */
#include "../ycsb_run.h"

/* ---- checking ------------------------------------------------------------ */
/* The tree's own objects and bytes: its nodes and every value. */
static void tree_usage(long *objects, long *bytes) {
  long nodes = 0, b = 0, count = 0;
  pbt_usage(&yr->tree, pbt_ptr(yr->tree.root), 0, &nodes, &b);
  struct pbt_iter it;
  for (pbt_seek(&yr->tree, LONG_MIN, &it); pbt_more(&it) && count <= yr->next; pbt_next(&it), count++)
    b += pbt_obj_bytes(blob_at(pbt_slot(&yr->tree, it.x)[it.i]));
  *objects = nodes + count;
  *bytes = b;
}

/* Every record 0..next-1 present with a value of the right length and
 * bytes; returns the entries counted. */
static long check_records(long *bad) {
  long count = pbt_check(&yr->tree, yr->next + 1, bad);
  unsigned char buf[VAL_MAX];
  for (long rec = 0; rec < yr->next; rec++) {
    long key = ykey(rec);
    uint64_t *v = pbt_find(&yr->tree, key);
    const struct blob *b = v ? blob_at(*v) : NULL;
    if (!b) {
      if (++*bad <= 10) fprintf(stderr, "ycsb: record %ld (key %ld) missing\n", rec, key);
      continue;
    }
    if (b->len < VAL_MIN || b->len > VAL_MAX) {
      if (++*bad <= 10) fprintf(stderr, "ycsb: record %ld: value length %u\n", rec, b->len);
      continue;
    }
    blob_pattern(buf, key, b->seed, b->len);
    if (memcmp(buf, b->data, b->len) && ++*bad <= 10) fprintf(stderr, "ycsb: record %ld: value bytes differ\n", rec);
  }
  return count;
}

/* ---- main ---------------------------------------------------------------- */
static void usage_exit(const char *prog) {
  fprintf(stderr,
          "usage: %s [--workload a|b|c|d|e|f] [--records R] [--fanout F] [--threads T] [--seconds S]\n"
          "          [--seed N] [--theta X] [--preload-only] [--verify] [--pool FILE]\n",
          prog);
  exit(2);
}

static void wrong_fanout(void) {
  fprintf(stderr, "bench: the heap holds a tree of fan-out %ld, not --fanout %ld; use a fresh heap\n", yr->tree.fanout, fanout);
  exit(2);
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--preload-only")) bench_preload_only = 1;
    else if (!strcmp(a, "--verify")) bench_verify = 1;
    else if (!v) usage_exit(argv[0]);
    else if (!strcmp(a, "--records")) records = atol(v), i++;
    else if (!strcmp(a, "--fanout")) fanout = atol(v), i++;
    else if (!strcmp(a, "--threads")) bench_nthreads = atol(v), i++;
    else if (!strcmp(a, "--seconds")) bench_seconds = atof(v), i++;
    else if (!strcmp(a, "--seed")) bench_seed = strtoul(v, NULL, 0), i++;
    else if (!strcmp(a, "--theta")) bench_theta = atof(v), i++;
    else if (!strcmp(a, "--pool")) bench_pool = v, i++;
    else if (!strcmp(a, "--workload") && v[0] >= 'a' && v[0] <= 'f' && !v[1]) workload = v[0], i++;
    else usage_exit(argv[0]);
  }
  if (records < 1 || fanout < BPT_MIN_FANOUT || fanout > BPT_MAX_FANOUT || bench_nthreads < 1 || bench_seconds < 0 ||
      bench_theta <= 0 || bench_theta >= 1)
    usage_exit(argv[0]);

  pop = pmdk_open_pool(LAYOUT, POOL_SIZE);
  PMEMoid ro = pmemobj_root(pop, sizeof *yr);
  yr = pmemobj_direct(ro);
  pbt_attach(pop, ro);
  if (!yr->h.nkeys) {
    /* Load in this process (a later run on the same pool skips it). */
    BENCH_WRITE {
      TX_BEGIN(pop) {
        if (!yr->tree.root) pbt_init(&yr->tree, fanout);
      }
      TX_ONABORT { tx_failed(); }
      TX_END
    }
    if (yr->tree.fanout != fanout) wrong_fanout();
    uint64_t s = bench_seed * 7919 + 1;
    for (long rec = 0; rec < yr->next; rec++) bench_rnd(&s), bench_rnd(&s); /* a load that died half-way goes on */
    while (yr->next < records) op_insert((uint32_t)bench_rnd(&s), rnd_len(&s));
    long to = 0, tb = 0;
    tree_usage(&to, &tb);
    size_t o, b;
    bench_usage(&o, &b);
    BENCH_WRITE {
      TX_BEGIN(pop) {
        PBT_SET(yr->load_objects, to);
        PBT_SET(yr->load_bytes, tb);
        PBT_SET(yr->h.objects, o);
        PBT_SET(yr->h.bytes, b);
        PBT_SET(yr->h.nkeys, records);
      }
      TX_ONABORT { tx_failed(); }
      TX_END
    }
  } else if (yr->h.nkeys != records) {
    fprintf(stderr, "bench: the heap holds %ld records, not --records %ld; use a fresh heap\n", yr->h.nkeys, records);
    return 2;
  } else if (yr->tree.fanout != fanout) {
    wrong_fanout();
  }
  if (bench_preload_only) {
    pmemobj_close(pop);
    return 0;
  }

  size_t objects, bytes;
  uint64_t inserts = ycsb_measure(records, fanout, &objects, &bytes);
  int rc = 0;
  if (bench_verify) {
    long bad = 0, count = check_records(&bad);
    long to = 0, tb = 0;
    tree_usage(&to, &tb);
    /* What the pool holds besides the tree's nodes and values is as after the load. */
    long leaked_objects = ((long)objects - to) - ((long)yr->h.objects - yr->load_objects);
    long leaked = ((long)bytes - tb) - ((long)yr->h.bytes - yr->load_bytes);
    long inserted = yr->next - records;
    int ok = !bad && count == yr->next && count == yr->h.size && inserted >= (long)inserts && !leaked && !leaked_objects;
    printf("verify: records %ld inserted %ld counted %ld bad %ld leaked-bytes %ld leaked-objects %ld: %s\n", records, inserted,
           count, bad, leaked, leaked_objects, ok ? "ok" : "FAILED");
    rc = ok ? 0 : 1;
  }
  pmemobj_close(pop);
  return rc;
}
