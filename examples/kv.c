/* kv: a persistent key-value store in plain C with amber.
 *
 * The store is a chained hash table that lives in the persistent heap.  Each
 * insert is one AMBER_ATOMIC region: after a crash (kill -9, segfault, power
 * loss on real persistent memory) the table holds every insert that finished
 * and no part of the one that did not.
 *
 *   amber-cc -O2 examples/kv.c -o kv
 *   ./kv ...                  the heap: /dev/shm/amber-<uid>/kv.heap (the
 *                             private default; AMBER_HEAP names another)
 *   ./kv insert 1000          keys 0..999, one transaction each; prints
 *                             "ack KEY" after each commit
 *   ./kv insert 500 1000      keys 1000..1499
 *   ./kv get 42               prints "42 VALUE" (exit 1 if absent)
 *   ./kv check [LO HI]        walks the whole table; with LO HI also requires
 *                             every key in LO..HI to be present
 *
 * `kv check` prints "keys: N", "max-key: K" (-1 when empty), "leaked-bytes: N"
 * and "check: ok", or "check: FAILED <why>" and exits 1.
 */
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBUCKETS 1024
#define PAYLOAD 40

/* 64 bytes, one cache line.  The payload is derived from the key, so a node
 * that was only partly written (a torn node) is detectable by `kv check`. */
struct node {
  long key;
  long value;
  char payload[PAYLOAD];
  struct node *next;
};

/* The root object: amber_root() returns it zeroed on the first run and the
 * same object on every later run. */
struct kv {
  long count;              /* number of distinct keys in the table */
  long initialized;        /* set once, together with base_bytes */
  size_t base_bytes;       /* persistent bytes in use before any node existed */
  struct node *bucket[NBUCKETS];
};

static unsigned bucket_of(long key) { return (unsigned long)key % NBUCKETS; }

static long value_of(long key) { return key * 7 + 1; }

static void payload_of(long key, char out[PAYLOAD]) {
  unsigned long x = (unsigned long)key * 0x9E3779B97F4A7C15ul + 1;
  for (int i = 0; i < PAYLOAD; i++) {
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ul;
    out[i] = (char)('a' + (x >> 40) % 26);
  }
}

static struct kv *open_store(void) {
  struct kv *kv = amber_root(sizeof *kv);
  if (!kv->initialized) {
    /* First run: remember what the heap held before the first node (the root
     * itself), so `check` can tell reachable bytes from leaked ones. */
    struct amber_usage u;
    amber_usage(&u);
    AMBER_ATOMIC {
      kv->base_bytes = u.bytes;
      kv->initialized = 1;
    }
  }
  return kv;
}

/* Insert or update one key: one transaction.  Returns 0, or -1 when malloc
 * fails (amber itself stops the program with an error when the heap is full,
 * but the check keeps the code correct with any allocator). */
static int put(struct kv *kv, long key, long value) {
  char payload[PAYLOAD];
  int full = 0;
  payload_of(key, payload);

  AMBER_ATOMIC {
    struct node **head = &kv->bucket[bucket_of(key)];
    struct node *n = *head;
    while (n && n->key != key)
      n = n->next;
    if (n) {
      n->value = value;                /* update: the count stays */
    } else if ((n = malloc(sizeof *n)) == NULL) {
      full = 1;                        /* `full` is read after the region */
    } else {
      n->key = key;
      n->value = value;
      memcpy(n->payload, payload, PAYLOAD);
      n->next = *head;
      *head = n;                       /* publish the node ... */
      kv->count++;                     /* ... and count it, atomically */
    }
  }
  return full ? -1 : 0;
}

/* Reads outside regions see committed data. */
static struct node *lookup(struct kv *kv, long key) {
  struct node *n = kv->bucket[bucket_of(key)];
  while (n && n->key != key)
    n = n->next;
  return n;
}

static int cmd_insert(struct kv *kv, long count, long start) {
  for (long key = start; key < start + count; key++) {
    if (put(kv, key, value_of(key)) != 0) {
      fprintf(stderr, "kv: persistent heap full after %ld keys\n", kv->count);
      return 1;
    }
    printf("ack %ld\n", key);   /* committed and durable: acknowledge it */
    fflush(stdout);
  }
  return 0;
}

static int cmd_get(struct kv *kv, long key) {
  struct node *n = lookup(kv, key);
  if (!n) {
    printf("%ld not found\n", key);
    return 1;
  }
  printf("%ld %ld\n", key, n->value);
  return 0;
}

static int failed(const char *why, long key) {
  printf("check: FAILED %s (key %ld)\n", why, key);
  return 1;
}

static int cmd_check(struct kv *kv, int has_range, long lo, long hi) {
  char want[PAYLOAD];
  long nodes = 0, max_key = -1;

  for (unsigned b = 0; b < NBUCKETS; b++) {
    for (struct node *n = kv->bucket[b]; n; n = n->next) {
      if (++nodes > kv->count)
        return failed("more nodes than count (or a cycle)", n->key);
      if (bucket_of(n->key) != b)
        return failed("key in the wrong bucket", n->key);
      payload_of(n->key, want);
      if (n->value != value_of(n->key) || memcmp(n->payload, want, PAYLOAD))
        return failed("torn node: value or payload does not match", n->key);
      if (n->key > max_key)
        max_key = n->key;
    }
  }
  printf("keys: %ld\n", nodes);
  printf("max-key: %ld\n", max_key);
  if (nodes != kv->count)
    return failed("count differs from the number of nodes", kv->count);

  if (has_range) {
    for (long key = lo; key <= hi; key++)
      if (!lookup(kv, key))
        return failed("acknowledged key missing", key);
    printf("range: %ld..%ld present\n", lo, hi);
  }

  /* Every live persistent byte is the root's or a reachable node's. */
  struct amber_usage u;
  amber_usage(&u);
  long leaked = (long)u.bytes - (long)kv->base_bytes - nodes * (long)sizeof(struct node);
  printf("leaked-bytes: %ld\n", leaked);
  if (leaked != 0)
    return failed("persistent bytes not reachable from the root", leaked);

  printf("check: ok\n");
  return 0;
}

static int usage(void) {
  fprintf(stderr, "usage: kv insert N [START] | kv get KEY | kv check [LO HI]\n");
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return usage();
  struct kv *kv = open_store();
  if (!strcmp(argv[1], "insert") && (argc == 3 || argc == 4))
    return cmd_insert(kv, atol(argv[2]), argc == 4 ? atol(argv[3]) : 0);
  if (!strcmp(argv[1], "get") && argc == 3)
    return cmd_get(kv, atol(argv[2]));
  if (!strcmp(argv[1], "check") && (argc == 2 || argc == 4))
    return cmd_check(kv, argc == 4, argc == 4 ? atol(argv[2]) : 0,
                     argc == 4 ? atol(argv[3]) : -1);
  return usage();
}
