/* Crash-test workload: a sorted persistent singly linked list.
 *
 * Operation i (from 1) is derived from the seed alone: it inserts or removes
 * one key of a small key space, in one AMBER_ATOMIC region that also
 * allocates (malloc) or frees the node, keeps a count field and advances the
 * operation counter.  So after a crash the heap must hold exactly the key set
 * that the first `ops` operations produce, for some `ops` that the harness
 * compares with the acknowledged commits.
 *
 * The root also keeps the keys of the last RECENT operations, sorted.  Every
 * third operation sorts them with libc's qsort (run by libamber in the
 * region's transaction) and formats the smallest with snprintf, which amber
 * never instrumented: that region runs irrevocably (romulus commits it by
 * comparing its twin copies), so the walk covers that commit path too.  They
 * work on a volatile copy, and the region stores the result itself.
 *
 *   list run N [SEED]   do operations up to N, printing "ack I" after each
 *                       commit; SEED (default 1) is fixed by the first run
 *   list check          verify; prints "progress: P" (operations present),
 *                       "keys: K", "leaked-bytes: B" and "check: ok", or
 *                       "check: FAILED <why>" and exits 1
 */
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEYSPACE 48
#define RECENT 4

/* One cache line (64 bytes, a size class of the allocator, so the leak check
 * can count bytes).  `tag` is derived from the key: a torn node shows. */
struct node {
  long key;
  long tag;
  struct node *next;
  long pad[5];
};
_Static_assert(sizeof(struct node) == 64, "a node is one 64-byte size class");

struct list {
  long initialised;
  long seed;
  long ops;          /* operations committed */
  long count;        /* nodes in the list */
  long base_bytes;   /* persistent bytes in use before any node existed */
  struct node *head; /* sorted, strictly increasing keys */
  long recent[RECENT]; /* keys of the last RECENT operations (-1: none), sorted */
};

static unsigned long mix(unsigned long x) {
  x += 0x9E3779B97F4A7C15ul;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ul;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBul;
  return x ^ (x >> 31);
}

/* Operation i of seed s: its key, and whether it inserts (2 in 3) or removes. */
static long op_key(long s, long i) { return (long)(mix((unsigned long)s * 1000003ul + (unsigned long)i) % KEYSPACE); }
static int op_inserts(long s, long i) { return (mix((unsigned long)s * 7919ul + (unsigned long)i) >> 20) % 3 != 0; }
static long tag_of(long key) { return (long)mix((unsigned long)key ^ 0x5eedul); }

static struct list *open_list(long seed) {
  struct list *l = amber_root(sizeof *l);
  if (!l->initialised) {
    struct amber_usage u;
    amber_usage(&u); /* outside the region: the root alone */
    AMBER_ATOMIC {
      for (int i = 0; i < RECENT; i++) l->recent[i] = -1;
      l->seed = seed;
      l->base_bytes = (long)u.bytes;
      l->initialised = 1;
    }
  }
  return l;
}

static int cmp_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return x < y ? -1 : x > y;
}

/* Instrumented: every store goes through amber. */
static void insertion_sort(long *v, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
      long t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
}

/* The key operation i - RECENT worked on leaves the recent window. */
static long leaving_key(long s, long i) { return i > RECENT ? op_key(s, i - RECENT) : -1; }

/* One operation, one transaction.  Inserting a present key or removing an
 * absent one changes nothing but the operation counter. */
static void apply(struct list *l, long i) {
  long key = op_key(l->seed, i), old = leaving_key(l->seed, i);
  int ins = op_inserts(l->seed, i);
  AMBER_ATOMIC {
    struct node **p = &l->head;
    while (*p && (*p)->key < key) p = &(*p)->next;
    int present = *p && (*p)->key == key;
    if (ins && !present) {
      struct node *n = malloc(sizeof *n);
      memset(n, 0, sizeof *n);
      n->key = key;
      n->tag = tag_of(key);
      n->next = *p;
      *p = n;
      l->count++;
    } else if (!ins && present) {
      struct node *n = *p;
      *p = n->next;
      free(n);
      l->count--;
    }
    for (int j = 0; j < RECENT; j++)
      if (l->recent[j] == old) {
        l->recent[j] = key;
        break;
      }
    if (i % 3 == 0) {
      long sorted[RECENT];
      memcpy(sorted, l->recent, sizeof sorted);
      char tag[24];
      qsort(sorted, RECENT, sizeof(long), cmp_long);
      snprintf(tag, sizeof tag, "%ld", sorted[0]); /* irrevocable */
      memcpy(l->recent, sorted, sizeof sorted);
    } else
      insertion_sort(l->recent, RECENT);
    l->ops = i;
  }
}

static int failed(const char *why, long key) {
  printf("check: FAILED %s (key %ld)\n", why, key);
  return 1;
}

/* The key set after the first `ops` operations, recomputed from the seed. */
static void expected(const struct list *l, char want[KEYSPACE]) {
  memset(want, 0, KEYSPACE);
  for (long i = 1; i <= l->ops; i++) want[op_key(l->seed, i)] = (char)op_inserts(l->seed, i);
}

static int check(struct list *l) {
  char want[KEYSPACE], seen[KEYSPACE] = {0};
  long nodes = 0, last = -1;
  printf("progress: %ld\n", l->ops);
  for (struct node *n = l->head; n; n = n->next) {
    /* Strictly increasing keys below KEYSPACE bound the walk: no cycle. */
    if (++nodes > KEYSPACE) return failed("more nodes than keys: a cycle", n->key);
    if (n->key < 0 || n->key >= KEYSPACE) return failed("key out of range", n->key);
    if (n->key <= last) return failed("not sorted", n->key);
    if (n->tag != tag_of(n->key)) return failed("torn node: tag does not match", n->key);
    seen[n->key] = 1;
    last = n->key;
  }
  printf("keys: %ld\n", nodes);
  if (nodes != l->count) return failed("count field differs from the nodes", l->count);
  expected(l, want);
  for (long k = 0; k < KEYSPACE; k++)
    if (seen[k] != want[k]) return failed(want[k] ? "key missing" : "key that should be absent", k);
  long recent[RECENT];
  for (long j = 0; j < RECENT; j++) recent[j] = l->ops - j >= 1 ? op_key(l->seed, l->ops - j) : -1;
  qsort(recent, RECENT, sizeof(long), cmp_long);
  for (long j = 0; j < RECENT; j++)
    if (l->recent[j] != recent[j]) return failed("recent keys differ (an irrevocable region lost or partial)", l->recent[j]);
  struct amber_usage u;
  amber_usage(&u);
  long leaked = (long)u.bytes - l->base_bytes - nodes * (long)sizeof(struct node);
  printf("leaked-bytes: %ld\n", leaked);
  if (leaked != 0) return failed("persistent bytes not reachable from the root", leaked);
  printf("check: ok\n");
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 3 && !strcmp(argv[1], "run")) {
    struct list *l = open_list(argc > 3 ? atol(argv[3]) : 1);
    for (long i = l->ops + 1; i <= atol(argv[2]); i++) {
      apply(l, i);
      printf("ack %ld\n", i);
      fflush(stdout);
    }
    return 0;
  }
  if (argc == 2 && !strcmp(argv[1], "check")) return check(open_list(1));
  fprintf(stderr, "usage: list run N [SEED] | list check\n");
  return 2;
}
