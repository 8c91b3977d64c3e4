/* hashmap: a persistent hash map that grows, one insertion per region.
 *
 * A chained hash table whose bucket array doubles when the map holds as
 * many keys as buckets: the insertion that crosses the threshold allocates
 * the new array, moves every entry and frees the old array inside its own
 * AMBER_ATOMIC region, so a crash (kill -9 included) leaves the map as it
 * was before that insertion or after it, never half resized.  Same command
 * line as examples/kv.c, so tools/crash-kill drives it
 * (`tools/crash-kill --kv BUILD/hashmap`, tools/hashmap-soak):
 *
 *   ./hashmap insert N [START]   keys START..START+N-1, one region each;
 *                                prints "ack KEY" after each commit
 *   ./hashmap get KEY            prints "KEY VALUE" (exit 1 if absent)
 *   ./hashmap check [LO HI]      walks the map: "keys: N", "max-key: K",
 *                                "buckets: B", "resizes: R", with LO HI
 *                                "range: LO..HI present", "leaked-bytes: N",
 *                                then "check: ok" or "check: FAILED why"
 */
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_BUCKETS 1024
#define PAYLOAD 32

/* 64 bytes; the payload is derived from the key (a torn entry shows). */
struct entry {
  long key;
  long value;
  char payload[PAYLOAD];
  struct entry *next;
  long hash;
};

struct map {
  long count;
  long initialized;
  size_t base_bytes; /* heap bytes in use before the first entry (the root) */
  size_t nbuckets;   /* a power of two */
  struct entry **buckets;
  long resizes;
};

static unsigned long hash_of(long key) {
  unsigned long x = (unsigned long)key * 0x9E3779B97F4A7C15ul;
  return x ^ (x >> 31);
}
static long value_of(long key) { return key * 7 + 1; }
static void payload_of(long key, char out[PAYLOAD]) {
  unsigned long x = (unsigned long)key * 0xBF58476D1CE4E5B9ul + 3;
  for (int i = 0; i < PAYLOAD; i++) {
    x ^= x >> 27;
    x *= 0x94D049BB133111EBul;
    out[i] = (char)('a' + (x >> 40) % 26);
  }
}

static struct map *open_map(void) {
  struct map *m = amber_root(sizeof *m);
  if (!m->initialized) {
    struct amber_usage u;
    amber_usage(&u);
    AMBER_ATOMIC {
      m->buckets = calloc(FIRST_BUCKETS, sizeof *m->buckets);
      m->nbuckets = m->buckets ? FIRST_BUCKETS : 0;
      m->base_bytes = u.bytes;
      m->initialized = 1;
    }
    if (!m->buckets) {
      fprintf(stderr, "hashmap: no room for %d buckets\n", FIRST_BUCKETS);
      exit(1);
    }
  }
  return m;
}

/* Inside the caller's region: twice the buckets, every entry moved. */
static int grow(struct map *m) {
  size_t nb = m->nbuckets * 2;
  struct entry **nbk = calloc(nb, sizeof *nbk);
  if (!nbk) return -1;
  for (size_t b = 0; b < m->nbuckets; b++) {
    struct entry *e = m->buckets[b];
    while (e) {
      struct entry *next = e->next;
      size_t i = (unsigned long)e->hash & (nb - 1);
      e->next = nbk[i];
      nbk[i] = e;
      e = next;
    }
  }
  free(m->buckets);
  m->buckets = nbk;
  m->nbuckets = nb;
  m->resizes++;
  return 0;
}

/* One region: insert or update key, growing first when the map is full. */
static int put(struct map *m, long key) {
  char payload[PAYLOAD];
  payload_of(key, payload);
  unsigned long h = hash_of(key);
  int full = 0;
  AMBER_ATOMIC {
    struct entry *e = m->buckets[h & (m->nbuckets - 1)];
    while (e && e->key != key) e = e->next;
    if (e) {
      e->value = value_of(key);
    } else if ((size_t)m->count + 1 > m->nbuckets && grow(m) != 0) {
      full = 1;
    } else if ((e = malloc(sizeof *e)) == NULL) {
      full = 1;
    } else {
      struct entry **head = &m->buckets[h & (m->nbuckets - 1)];
      e->key = key;
      e->value = value_of(key);
      e->hash = (long)h;
      memcpy(e->payload, payload, PAYLOAD);
      e->next = *head;
      *head = e;
      m->count++;
    }
  }
  return full ? -1 : 0;
}

static struct entry *lookup(struct map *m, long key) {
  struct entry *e = m->buckets[hash_of(key) & (m->nbuckets - 1)];
  while (e && e->key != key) e = e->next;
  return e;
}

static int failed(const char *why, long key) {
  printf("check: FAILED %s (key %ld)\n", why, key);
  return 1;
}

static int cmd_check(struct map *m, int has_range, long lo, long hi) {
  char want[PAYLOAD];
  long n = 0, max_key = -1;
  for (size_t b = 0; b < m->nbuckets; b++) {
    for (struct entry *e = m->buckets[b]; e; e = e->next) {
      if (++n > m->count) return failed("more entries than count (or a cycle)", e->key);
      if ((unsigned long)e->hash != hash_of(e->key) || ((unsigned long)e->hash & (m->nbuckets - 1)) != b)
        return failed("entry in the wrong bucket", e->key);
      payload_of(e->key, want);
      if (e->value != value_of(e->key) || memcmp(e->payload, want, PAYLOAD))
        return failed("torn entry: value or payload does not match", e->key);
      if (e->key > max_key) max_key = e->key;
    }
  }
  printf("keys: %ld\n", n);
  printf("max-key: %ld\n", max_key);
  printf("buckets: %zu\n", m->nbuckets);
  printf("resizes: %ld\n", m->resizes);
  if (n != m->count) return failed("count differs from the entries found", m->count);
  if (m->count > (long)m->nbuckets) return failed("more keys than buckets: a resize is missing", m->count);
  if (has_range) {
    for (long k = lo; k <= hi; k++)
      if (!lookup(m, k)) return failed("acknowledged key missing", k);
    printf("range: %ld..%ld present\n", lo, hi);
  }
  struct amber_usage u;
  amber_usage(&u);
  long leaked = (long)u.bytes - (long)m->base_bytes - n * (long)sizeof(struct entry) -
                (long)(m->nbuckets * sizeof *m->buckets);
  printf("leaked-bytes: %ld\n", leaked);
  if (leaked != 0) return failed("persistent bytes not reachable from the root", leaked);
  printf("check: ok\n");
  return 0;
}

static int usage(void) {
  fprintf(stderr, "usage: hashmap insert N [START] | hashmap get KEY | hashmap check [LO HI]\n");
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage();
  struct map *m = open_map();
  if (!strcmp(argv[1], "insert") && (argc == 3 || argc == 4)) {
    long count = atol(argv[2]), start = argc == 4 ? atol(argv[3]) : 0;
    for (long k = start; k < start + count; k++) {
      if (put(m, k) != 0) {
        fprintf(stderr, "hashmap: persistent heap full after %ld keys\n", m->count);
        return 1;
      }
      printf("ack %ld\n", k);
      fflush(stdout);
    }
    return 0;
  }
  if (!strcmp(argv[1], "get") && argc == 3) {
    long key = atol(argv[2]);
    struct entry *e = lookup(m, key);
    if (!e) {
      printf("%ld not found\n", key);
      return 1;
    }
    printf("%ld %ld\n", key, e->value);
    return 0;
  }
  if (!strcmp(argv[1], "check") && (argc == 2 || argc == 4))
    return cmd_check(m, argc == 4, argc == 4 ? atol(argv[2]) : 0, argc == 4 ? atol(argv[3]) : -1);
  return usage();
}
