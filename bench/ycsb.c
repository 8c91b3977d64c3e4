/* YCSB workloads A-F on the B+-tree of bench/bptree.h.
 *
 * Load: R records (--records, default 100,000), record i under the key
 * ykey(i) (a bijection of 64-bit words, so keys are scattered over the whole
 * long range), each value a separately allocated blob of uniformly random
 * length 8..100 bytes holding a pattern of its key and a seed.  Run: --threads
 * T for --seconds S, each operation one region (BENCH_READ for reads and
 * scans, BENCH_WRITE for updates, inserts and read-modify-writes):
 *   a: 50 % read, 50 % update            b: 95 % read, 5 % update
 *   c: 100 % read                        d: 95 % read latest, 5 % insert
 *   e: 95 % scan (1..100 records), 5 % insert
 *   f: 50 % read, 50 % read-modify-write
 * Records are chosen zipfian (theta 0.99, bench.h's generator, ranks
 * scattered over the records present when the run began); d reads the
 * latest records: rank r is record next-1-r, next counting every record ever
 * inserted.  A read and a scan sum the bytes of the values they visit; an
 * update replaces the value by a new blob of new random length and seed and
 * frees the old one; a read-modify-write reads the value and writes a new one
 * whose seed is the old seed plus one; an insert adds record `next`.
 * --fanout F (default 16: nodes of about 280 bytes, a few cache lines).
 *
 * --preload-only runs the load only: the root remembers it (hdr.nkeys = R),
 * so a second process on the same heap runs the measured phase only.
 * Prints one JSON line with bench.h's fields (keys = R, dist zipf or latest,
 * update_pct = the write percentage, update_pairs = update_ops = write
 * regions) and "fanout".  --verify then checks the tree's invariants, that
 * records 0..next-1 are all present and nothing else, every value's length
 * and bytes, and that the heap holds exactly the tree's nodes and values
 * beyond what it held besides them after the load (no leak).
 *   ycsb --workload a --records 100000 --threads 2 --seconds 1 [--verify] */
#define BENCH_NO_DRIVER
#include <limits.h>

#include "bench.h"
#include "bptree.h"

#define VAL_MIN 8
#define VAL_MAX 100
#define SCAN_MAX 100

struct blob {
  uint32_t len, seed;
  unsigned char data[]; /* len bytes of blob_pattern(key, seed) */
};

struct yroot {
  struct bench_hdr h; /* nkeys = R once loaded; size = records present */
  struct bpt tree;
  long next;                         /* records 0..next-1 exist */
  long load_objects, load_bytes;     /* the tree's own nodes and values after the load */
};

static struct yroot *yr;
static long records = 100000, fanout = 16, brk;
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

/* In a region: a new value for key. */
static struct blob *blob_new(long key, uint32_t seed, uint32_t len) {
  unsigned char buf[VAL_MAX];
  blob_pattern(buf, key, seed, len);
  struct blob *b = malloc(sizeof *b + len);
  b->len = len;
  b->seed = seed;
  memcpy(b->data, buf, len);
  return b;
}

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
    uintptr_t *v = bpt_find(&yr->tree, key);
    found = v != NULL;
    s = v ? blob_sum((struct blob *)*v) : 0;
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
    uintptr_t *v = bpt_find(&yr->tree, ykey(rec));
    found = v != NULL;
    s = v ? blob_sum((struct blob *)*v) : 0;
  }
  *sum += s;
  return found;
}

static int op_scan(long start, long count, uint64_t *sum) {
  int found = 0;
  uint64_t s = 0;
  BENCH_READ {
    struct bpt_iter it;
    long seen = 0;
    s = 0;
    bpt_seek(&yr->tree, start, &it);
    found = bpt_more(&it) && it.x->key[it.i] == start;
    for (; seen < count && bpt_more(&it); bpt_next(&it), seen++) s += blob_sum((struct blob *)bpt_slot(&yr->tree, it.x)[it.i]);
  }
  *sum += s;
  return found;
}

static int op_update(long key, uint32_t seed, uint32_t len) {
  int found = 0;
  BENCH_WRITE {
    uintptr_t *v = bpt_find(&yr->tree, key);
    found = v != NULL;
    if (v) {
      struct blob *old = (struct blob *)*v;
      *v = (uintptr_t)blob_new(key, seed, len);
      free(old);
    }
  }
  return found;
}

static int op_rmw(long key, uint32_t len, uint64_t *sum) {
  int found = 0;
  uint64_t s = 0;
  BENCH_WRITE {
    uintptr_t *v = bpt_find(&yr->tree, key);
    found = v != NULL;
    s = 0;
    if (v) {
      struct blob *old = (struct blob *)*v;
      s = blob_sum(old);
      *v = (uintptr_t)blob_new(key, old->seed + 1, len);
      free(old);
    }
  }
  *sum += s;
  return found;
}

/* Adds record next. */
static void op_insert(uint32_t seed, uint32_t len) {
  BENCH_WRITE {
    long key = ykey(yr->next);
    if (bpt_insert(&yr->tree, key, (uintptr_t)blob_new(key, seed, len))) {
      yr->next++;
      yr->h.size++;
    }
  }
}

/* ---- the run phase: shared with the PMDK port ---------------------------- */
#include "ycsb_run.h"

/* ---- checking ------------------------------------------------------------ */
/* The tree's own objects and bytes: its nodes and every value. */
static void tree_usage(long *objects, long *bytes) {
  long nodes = 0, b = 0, count = 0;
  bpt_usage(&yr->tree, yr->tree.root, 0, bench_obj_bytes, &nodes, &b);
  struct bpt_iter it;
  for (bpt_seek(&yr->tree, LONG_MIN, &it); bpt_more(&it) && count <= yr->next; bpt_next(&it), count++) {
    const struct blob *v = (const struct blob *)bpt_slot(&yr->tree, it.x)[it.i];
    b += (long)bench_obj_bytes((void *)v, sizeof *v + (v->len <= VAL_MAX ? v->len : 0));
  }
  *objects = nodes + count;
  *bytes = b;
}

/* Every record 0..next-1 present with a value of the right length and
 * bytes; returns the entries counted. */
static long check_records(long *bad) {
  long count = bpt_check(&yr->tree, yr->next + 1, bad);
  unsigned char buf[VAL_MAX];
  for (long rec = 0; rec < yr->next; rec++) {
    long key = ykey(rec);
    uintptr_t *v = bpt_find(&yr->tree, key);
    const struct blob *b = v ? (const struct blob *)*v : NULL;
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

/* --break N (tests only): break one thing before --verify, to show it is
 * caught.  1: a value byte; 2: a value's length; 3: a record leaves the tree
 * (its value freed, the counts not told); 4: a record leaves the tree and the
 * counts, but its value is not freed (a leak and nothing else). */
static void break_one(long what) {
  BENCH_WRITE {
    long key = ykey(yr->next - 1);
    uintptr_t *v = bpt_find(&yr->tree, key);
    struct blob *b = (struct blob *)*v;
    uintptr_t old = 0;
    if (what == 1) b->data[b->len / 2] ^= 0x40;
    else if (what == 2) b->len = VAL_MAX + 1;
    else if (what == 3) {
      bpt_remove(&yr->tree, key, &old);
      free((void *)old);
    } else if (what == 4) {
      bpt_remove(&yr->tree, key, &old);
      yr->next--;
      yr->h.size--;
    }
  }
}

/* ---- main ---------------------------------------------------------------- */
static void usage_exit(const char *prog) {
  fprintf(stderr,
          "usage: %s [--workload a|b|c|d|e|f] [--records R] [--fanout F] [--threads T] [--seconds S]\n"
          "          [--seed N] [--theta X] [--preload-only] [--verify] [--break N]\n",
          prog);
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
    else if (!strcmp(a, "--break")) brk = atol(v), i++;
    else if (!strcmp(a, "--workload") && v[0] >= 'a' && v[0] <= 'f' && !v[1]) workload = v[0], i++;
    else usage_exit(argv[0]);
  }
  if (records < 1 || fanout < BPT_MIN_FANOUT || fanout > BPT_MAX_FANOUT || bench_nthreads < 1 || bench_seconds < 0 ||
      bench_theta <= 0 || bench_theta >= 1 || brk < 0 || brk > 4)
    usage_exit(argv[0]);

  yr = bench_root(sizeof *yr);
  if (!yr->h.nkeys) {
    /* Load in this process (a later run on the same heap skips it). */
    BENCH_WRITE {
      if (!yr->tree.root) bpt_init(&yr->tree, fanout);
    }
    if (yr->tree.fanout != fanout) {
      fprintf(stderr, "bench: the heap holds a tree of fan-out %ld, not --fanout %ld; use a fresh heap\n", yr->tree.fanout, fanout);
      return 2;
    }
    uint64_t s = bench_seed * 7919 + 1;
    for (long rec = 0; rec < yr->next; rec++) bench_rnd(&s), bench_rnd(&s); /* a load that died half-way goes on */
    while (yr->next < records) op_insert((uint32_t)bench_rnd(&s), rnd_len(&s));
    long to = 0, tb = 0;
    tree_usage(&to, &tb);
    size_t o, b;
    bench_usage(&o, &b);
    BENCH_WRITE {
      yr->load_objects = to;
      yr->load_bytes = tb;
      yr->h.objects = o;
      yr->h.bytes = b;
      yr->h.nkeys = records;
    }
  } else if (yr->h.nkeys != records) {
    fprintf(stderr, "bench: the heap holds %ld records, not --records %ld; use a fresh heap\n", yr->h.nkeys, records);
    return 2;
  } else if (yr->tree.fanout != fanout) {
    fprintf(stderr, "bench: the heap holds a tree of fan-out %ld, not --fanout %ld; use a fresh heap\n", yr->tree.fanout, fanout);
    return 2;
  }
  if (bench_preload_only) return 0;

  size_t objects, bytes;
  uint64_t inserts = ycsb_measure(records, fanout, &objects, &bytes);
  if (!bench_verify) return 0;

  if (brk) {
    break_one(brk);
    bench_usage(&objects, &bytes);
  }
  long bad = 0, count = check_records(&bad);
  long to = 0, tb = 0;
  tree_usage(&to, &tb);
  /* What the heap holds besides the tree's nodes and values is as after the load. */
  long leaked_objects = ((long)objects - to) - ((long)yr->h.objects - yr->load_objects);
  long leaked = ((long)bytes - tb) - ((long)yr->h.bytes - yr->load_bytes);
  long inserted = yr->next - records;
  int ok = !bad && count == yr->next && count == yr->h.size && inserted >= (long)inserts && !leaked && !leaked_objects;
  printf("verify: records %ld inserted %ld counted %ld bad %ld leaked-bytes %ld leaked-objects %ld: %s\n", records, inserted, count,
         bad, leaked, leaked_objects, ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
