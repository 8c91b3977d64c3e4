/* soak: multi-threaded crash-test workload for tools/soak.
 *
 * T threads share one persistent bank.  Every transaction of thread t (its
 * seq-th, counted from 1) does, in one AMBER_ATOMIC region:
 *   - a transfer between two accounts chosen from (t, seq): the sum of the
 *     balances never changes, and every balance is a function of the
 *     per-thread counts, so a partial or lost transfer is detectable;
 *   - the thread's persistent counter: th[t].count = seq, and the shared
 *     total: total++;
 *   - allocation churn: a record of a size chosen from (t, seq), its payload
 *     derived from (t, seq), appended to one shared FIFO; records beyond KEEP
 *     are freed from its head, usually by another thread than their
 *     allocator;
 *   - every BLOB_EVERY-th transaction: realloc of the thread's blob to a size
 *     chosen from (t, seq) (16 B to several pages), refilled from (t, seq).
 * After each commit the thread acknowledges it with one write(2) of
 * "ack THREAD SEQ\n" (one write per line, so lines of threads never mix).
 *
 *   soak run [THREADS [PER_THREAD]]  THREADS (default 4) threads; each does
 *                                    PER_THREAD more transactions (default 0:
 *                                    until killed)
 *   soak check                       verifies everything below; prints
 *                                    "threads N", "progress THREAD COUNT" for
 *                                    each thread, "transactions N",
 *                                    "records N", "leaked-bytes: N" and
 *                                    "check: ok", or "check: FAILED why"
 *                                    (exit 1); it writes nothing (on a heap
 *                                    no run initialised: "threads 0", and
 *                                    the root must be the only object)
 *
 * The check requires: every balance equal to the one the counts imply (so
 * the sum too); total = sum of counts; the FIFO holds exactly the last
 * min(total, KEEP) commits, each thread's records consecutive and ending at
 * its count, every record's size and payload intact; every blob the size
 * and contents of its thread's last blob transaction; and the heap's usage
 * equal to the root plus the reachable records and blobs (nothing leaked,
 * nothing lost).
 */
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXT 64
#define ACCOUNTS 32
#define START 1000000L
#define KEEP 48
#define BLOB_EVERY 5
#define MAGIC 0x6b616f73726562ffL /* marks a root made by this program */

struct record {
  long thread, seq, size;
  struct record *next;
  unsigned char payload[]; /* size - sizeof(struct record) bytes */
};

struct thread_state {
  long count;      /* transactions committed by this thread */
  long blob_seq;   /* seq of the transaction that last wrote the blob */
  long blob_size;
  unsigned char *blob;
};

struct soak {
  long magic;
  long nthreads;   /* most threads any run has used */
  size_t base_bytes, base_objects; /* heap usage before the first record */
  long total;      /* sum of the counts */
  long balance[ACCOUNTS];
  struct record *head, *tail;
  long nrecords;
  struct thread_state th[MAXT];
};

static struct soak *root;

static unsigned long mix(unsigned long x) {
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ul;
  x ^= x >> 27;
  x *= 0x81dadef4bc2dd44dul;
  x ^= x >> 33;
  return x;
}

static unsigned long hash3(long t, long seq, long k) {
  return mix(mix(mix((unsigned long)t + 0x9e3779b97f4a7c15ul) ^ (unsigned long)seq) ^ (unsigned long)k);
}

struct transfer { long from, to, amount; };

static struct transfer transfer_of(long t, long seq) {
  struct transfer x;
  x.from = hash3(t, seq, 1) % ACCOUNTS;
  x.to = (x.from + 1 + hash3(t, seq, 2) % (ACCOUNTS - 1)) % ACCOUNTS;
  x.amount = hash3(t, seq, 3) % 1000 + 1;
  return x;
}

/* Record sizes span several slab classes (40..520 bytes). */
static long record_size(long t, long seq) { return sizeof(struct record) + hash3(t, seq, 4) % 481; }

/* Blob sizes span slab classes and multi-page runs (16..12000 bytes). */
static long blob_size(long t, long seq) {
  unsigned long h = hash3(t, seq, 5);
  return h % 4 == 0 ? 2049 + (long)(h >> 8) % 9952 : 16 + (long)(h >> 8) % 2033;
}

static unsigned char byte_of(long t, long seq, long i) {
  return (unsigned char)(hash3(t, seq, 6) >> ((i % 7) * 8)) ^ (unsigned char)i;
}

/* The allocator's size classes (runtime/tx/alloc.c): objects up to 2048 bytes
 * take their class, larger ones a run of whole 4 KiB pages. */
static const long class_size[] = {16,  32,  48,  64,  80,  96,   112,  128,  160,  192,  224,  256,
                                  320, 384, 448, 512, 640, 768, 896, 1024, 1280, 1536, 1792, 2048};

static long usage_of(long n) {
  if (n > 2048) return (n + 4095) / 4096 * 4096;
  for (unsigned i = 0; i < sizeof class_size / sizeof class_size[0]; i++)
    if (class_size[i] >= n) return class_size[i];
  return -1;
}

static void fill(unsigned char *p, long n, long t, long seq) {
  for (long i = 0; i < n; i++) p[i] = byte_of(t, seq, i);
}

static long bad_bytes(const unsigned char *p, long n, long t, long seq) {
  long bad = 0;
  for (long i = 0; i < n; i++) bad += p[i] != byte_of(t, seq, i);
  return bad;
}

/* One transaction of thread t. */
static void step(long t, long seq) {
  struct transfer x = transfer_of(t, seq);
  long rsize = record_size(t, seq);
  long bsize = seq % BLOB_EVERY == 0 ? blob_size(t, seq) : 0;
  AMBER_ATOMIC {
    struct soak *s = root;
    struct record *r = malloc(rsize);
    r->thread = t;
    r->seq = seq;
    r->size = rsize;
    r->next = NULL;
    fill(r->payload, rsize - (long)sizeof *r, t, seq);
    if (s->tail) s->tail->next = r;
    else s->head = r;
    s->tail = r;
    s->nrecords++;
    while (s->nrecords > KEEP) {
      struct record *o = s->head;
      s->head = o->next;
      free(o);
      s->nrecords--;
    }
    s->balance[x.from] -= x.amount;
    s->balance[x.to] += x.amount;
    if (bsize) {
      struct thread_state *ts = &s->th[t];
      ts->blob = realloc(ts->blob, bsize);
      fill(ts->blob, bsize, t, seq);
      ts->blob_size = bsize;
      ts->blob_seq = seq;
    }
    s->th[t].count = seq;
    s->total++;
  }
}

static long per_thread;

static void *worker(void *arg) {
  long t = (long)arg;
  long seq = root->th[t].count; /* only this thread changes it */
  for (long i = 0; per_thread == 0 || i < per_thread; i++) {
    step(t, ++seq);
    char line[64];
    int n = snprintf(line, sizeof line, "ack %ld %ld\n", t, seq);
    if (write(1, line, n) != n) {
      perror("soak: write");
      exit(3);
    }
  }
  return NULL;
}

static int run(long threads) {
  if (threads < 1 || threads > MAXT) {
    fprintf(stderr, "soak: error: THREADS must be 1..%d\n", MAXT);
    return 2;
  }
  if (threads > root->nthreads) {
    AMBER_ATOMIC { root->nthreads = threads; }
  }
  pthread_t tid[MAXT];
  for (long t = 0; t < threads; t++)
    if (pthread_create(&tid[t], NULL, worker, (void *)t) != 0) {
      fprintf(stderr, "soak: error: pthread_create failed\n");
      return 2;
    }
  for (long t = 0; t < threads; t++)
    pthread_join(tid[t], NULL);
  return 0;
}

static char why[512];

#define FAIL(...) \
  do { if (!why[0]) snprintf(why, sizeof why, __VA_ARGS__); } while (0)

static int check(void) {
  struct soak *s = root;
  long nt = s->nthreads;
  long bytes = 0, objects = 0; /* reachable records and blobs */
  if (nt < 0 || nt > MAXT) {
    printf("check: FAILED nthreads %ld out of range\n", nt);
    return 1;
  }
  printf("threads %ld\n", nt);
  long sum_counts = 0;
  for (long t = 0; t < MAXT; t++) {
    long c = s->th[t].count;
    if (t < nt) printf("progress %ld %ld\n", t, c);
    if (c < 0) FAIL("thread %ld count %ld", t, c);
    else if (t >= nt && (c || s->th[t].blob)) FAIL("unused thread slot %ld has count %ld", t, c);
    sum_counts += c;
  }
  printf("transactions %ld\n", s->total);
  if (s->total != sum_counts) FAIL("total %ld but the counts add up to %ld", s->total, sum_counts);
  if (why[0]) goto out;

  /* Balances: recomputed from every committed transfer. */
  long expect[ACCOUNTS], sum = 0;
  for (int a = 0; a < ACCOUNTS; a++) expect[a] = START;
  for (long t = 0; t < nt; t++)
    for (long q = 1; q <= s->th[t].count; q++) {
      struct transfer x = transfer_of(t, q);
      expect[x.from] -= x.amount;
      expect[x.to] += x.amount;
    }
  for (int a = 0; a < ACCOUNTS; a++) {
    sum += s->balance[a];
    if (s->balance[a] != expect[a])
      FAIL("account %d holds %ld, the committed transfers give %ld", a, s->balance[a], expect[a]);
  }
  if (sum != ACCOUNTS * START) FAIL("balances sum to %ld, not %ld", sum, ACCOUNTS * START);

  /* The FIFO: the last min(total, KEEP) commits. */
  long walked = 0;
  long last[MAXT] = {0};
  struct record *prev = NULL;
  for (struct record *r = s->head; r; prev = r, r = r->next) {
    if (++walked > KEEP) {
      FAIL("the record list is longer than %d (cycle?)", KEEP);
      break;
    }
    long t = r->thread, q = r->seq;
    if (t < 0 || t >= nt || q < 1 || q > s->th[t].count) {
      FAIL("record %ld: thread %ld seq %ld was never committed", walked, t, q);
      break;
    }
    if (last[t] && q != last[t] + 1)
      FAIL("thread %ld: record seq %ld follows seq %ld", t, q, last[t]);
    last[t] = q;
    if (r->size != record_size(t, q)) FAIL("record %ld.%ld: size %ld, not %ld", t, q, r->size, record_size(t, q));
    else if (bad_bytes(r->payload, r->size - (long)sizeof *r, t, q))
      FAIL("record %ld.%ld: torn payload (%ld bad bytes)", t, q, bad_bytes(r->payload, r->size - (long)sizeof *r, t, q));
    bytes += usage_of(r->size);
    objects++;
  }
  printf("records %ld\n", walked);
  if (s->tail != prev) FAIL("tail does not point at the last record");
  if (walked != s->nrecords) FAIL("nrecords %ld, the list has %ld", s->nrecords, walked);
  if (walked != (s->total < KEEP ? s->total : KEEP))
    FAIL("%ld records for %ld transactions (expected the last %ld)", walked, s->total,
         s->total < KEEP ? s->total : KEEP);
  for (long t = 0; t < nt; t++)
    if (last[t] && last[t] != s->th[t].count)
      FAIL("thread %ld: newest record is seq %ld, count is %ld", t, last[t], s->th[t].count);

  /* Blobs: the last BLOB_EVERY-th transaction of each thread. */
  for (long t = 0; t < nt; t++) {
    struct thread_state *ts = &s->th[t];
    long bseq = ts->count - ts->count % BLOB_EVERY;
    if (ts->blob_seq != bseq) {
      FAIL("thread %ld: blob written by seq %ld, expected %ld", t, ts->blob_seq, bseq);
      continue;
    }
    if (!bseq) {
      if (ts->blob || ts->blob_size) FAIL("thread %ld: blob before its first blob transaction", t);
      continue;
    }
    if (!ts->blob || ts->blob_size != blob_size(t, bseq)) {
      FAIL("thread %ld: blob %p size %ld, expected size %ld", t, (void *)ts->blob, ts->blob_size, blob_size(t, bseq));
      continue;
    }
    long bad = bad_bytes(ts->blob, ts->blob_size, t, bseq);
    if (bad) FAIL("thread %ld: blob of seq %ld torn (%ld bad bytes)", t, bseq, bad);
    bytes += usage_of(ts->blob_size);
    objects++;
  }

out:;
  struct amber_usage u;
  amber_usage(&u);
  long leaked = (long)u.bytes - (long)s->base_bytes - bytes;
  long leaked_objects = (long)u.objects - (long)s->base_objects - objects;
  printf("leaked-bytes: %ld\n", why[0] ? 0 : leaked);
  if (!why[0] && (leaked || leaked_objects))
    FAIL("heap usage %zu bytes in %zu objects, reachable %ld bytes in %ld objects (plus the root)", u.bytes, u.objects,
         bytes + (long)s->base_bytes, objects + (long)s->base_objects);
  if (why[0]) {
    printf("check: FAILED %s\n", why);
    return 1;
  }
  printf("check: ok\n");
  return 0;
}

/* A root no run has initialised (the first run was killed before its first
 * transaction): all zero, and the root the only object.  Writes nothing. */
static int check_new(void) {
  static const struct soak zero;
  if (memcmp(root, &zero, sizeof zero) != 0) {
    printf("check: FAILED the root was not made by soak (no magic, not zero)\n");
    return 1;
  }
  struct amber_usage u;
  amber_usage(&u);
  long leaked = (long)u.bytes - usage_of(sizeof *root);
  printf("threads 0\ntransactions 0\nrecords 0\nleaked-bytes: %ld\n", leaked);
  if (leaked || u.objects != 1) {
    printf("check: FAILED uninitialised heap holds %zu bytes in %zu objects; expected only the root (%ld bytes)\n",
           u.bytes, u.objects, usage_of(sizeof *root));
    return 1;
  }
  printf("check: ok\n");
  return 0;
}

int main(int argc, char **argv) {
  root = amber_root(sizeof *root);
  if (argc == 2 && !strcmp(argv[1], "check")) return root->magic == MAGIC ? check() : check_new();
  if (argc < 2 || strcmp(argv[1], "run") || argc > 4) {
    fprintf(stderr, "usage: soak run [THREADS [PER_THREAD]] | soak check\n");
    return 2;
  }
  if (root->magic != MAGIC) {
    static const struct soak zero;
    if (memcmp(root, &zero, sizeof zero) != 0) {
      fprintf(stderr, "soak: error: the root was not made by soak\n");
      return 2;
    }
    struct amber_usage u;
    amber_usage(&u);
    AMBER_ATOMIC {
      for (int a = 0; a < ACCOUNTS; a++) root->balance[a] = START;
      root->base_bytes = u.bytes;
      root->base_objects = u.objects;
      root->magic = MAGIC;
    }
  }
  per_thread = argc > 3 ? atol(argv[3]) : 0;
  return run(argc > 2 ? atol(argv[2]) : 4);
}
