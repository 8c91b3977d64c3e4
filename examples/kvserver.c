/* kvserver: a Redis-protocol (RESP2) key-value server on a persistent heap.
 *
 * Ordinary C: sockets, one epoll loop per worker thread, malloc, strcmp,
 * snprintf.  What makes it durable is only that each command runs as one
 * AMBER_ATOMIC region on a persistent hash table (chained, with Redis-style
 * incremental resize: a growing table moves a few buckets per write
 * command).  A command's reply is built inside its region in the worker's
 * AMBER_UNISOLATED scratch buffer and sent once the region's commit is
 * durable (deferred durability and a syncer thread: "Durable replies"
 * below), so a client hears "+OK" only for a write that is durable; a command whose
 * bytes have not all arrived never starts, so a client that disconnects
 * mid-command leaves nothing in the heap.
 *
 *   amber-cc -O2 examples/kvserver.c -o kvserver -lpthread
 *   ./kvserver --port 6380 --heap /dev/shm/kv.heap --threads 4
 *   redis-cli -p 6380 set greeting hello
 *
 * Commands: GET, SET key value [NX|XX] (EX/PX/... answer an error: no
 * expiry), DEL, EXISTS, INCR, INCRBY, DECR, DECRBY, MGET, MSET, APPEND,
 * STRLEN, DBSIZE, KEYS pattern (glob), FLUSHDB, PING, ECHO, INFO (amber's
 * statistics, amber_stats_text), COMMAND (an empty list), CONFIG GET (what
 * redis-benchmark asks), CLIENT (accepted), HELLO [2|3] (RESP3 as far as
 * these commands need: its null), SELECT 0, QUIT, SHUTDOWN, as RESP arrays
 * or as inline commands (a line of words, as typed into telnet).  bench/README.md
 * "kvserver" and docs/guide.md section 12 show it driven by redis-cli,
 * redis-benchmark and redis-py.
 */
#define _GNU_SOURCE
#include <amber.h>
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAGIC 0x6b76736572766531ull /* "kvserve1" */
#define FIRST_BUCKETS 64
#define MAX_BULK (512L * 1024 * 1024) /* Redis's proto-max-bulk-len */
#define MAX_ARGS (1024 * 1024)
#define REHASH_STEPS 4
#define MAX_THREADS 256
#define SCRATCH 16384

/* ---------------------------------------------------------------------------
 * The persistent data: everything reachable from the root. */
struct entry {
  struct entry *next;
  uint64_t hash;
  char *val; /* persistent, vcap bytes */
  uint32_t klen, vlen, vcap;
  char key[]; /* klen bytes */
};

struct table {
  struct entry **b; /* size buckets (a power of two), or NULL */
  uint64_t size;
  uint64_t unused; /* was the table's key count: see keys_total */
};

struct db {
  uint64_t magic;
  struct table t[2]; /* t[1] is the table t[0] is moving to */
  int64_t rehash;    /* the next bucket of t[0] to move; -1: not resizing */
  int64_t unused;    /* was the key count: see keys_total */
};

/* The number of keys: not in the heap, counted again at start (count_keys)
 * and kept by the workers after each write's commit (the command's
 * `delta`).  Persistent counters, written by every command that adds or
 * removes a key, made every two such commands conflict (one block for
 * all: about 11 % of SETs aborted at 2 workers, mvcc) and cost a version
 * of that block in every commit (bench/README.md, "kvserver's key
 * count").  Regions read it without isolation (AMBER_UNISOLATED): DBSIZE
 * and INFO answer a count that other workers' commits may move at any
 * moment anyway, and a resize starts when it says the table is full. */
AMBER_UNISOLATED static long long keys_total;

/* A command's reply as its region builds it (in a worker's unisolated
 * scratch: see `scratch`), and the keys it added less those it removed,
 * for keys_total once it commits.  A re-run starts both again. */
struct reply {
  char *p;
  size_t cap, n;
  int resp3; /* the client said HELLO 3: nil is "_" */
  long long delta;
};

static struct db *db;

static uint64_t hash_of(const char *k, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)k[i]) * 1099511628211ull;
  h ^= h >> 31;
  h *= 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

/* All of the following run inside regions (the pass's transactional clones):
 * no libc call but the memory and string functions amber handles, so no
 * region is irrevocable.
 *
 * During a resize, t[0]'s buckets below db->rehash have moved to t[1]; their
 * slots still hold what they held and are never read again (clearing each
 * would be one more persistent write per moved bucket).  So every walk of
 * t[0] starts at live0(). */
static uint64_t live0(void) { return db->rehash >= 0 ? (uint64_t)db->rehash : 0; }

static struct entry *lookup(const char *k, size_t n, uint64_t h) {
  int64_t r = db->rehash;
  for (int i = 0; i < (r >= 0 ? 2 : 1); i++) {
    struct table *t = &db->t[i];
    if (!t->b) continue;
    uint64_t b = h & (t->size - 1);
    if (i == 0 && r >= 0 && b < (uint64_t)r) continue; /* moved */
    for (struct entry *e = t->b[b]; e; e = e->next)
      if (e->hash == h && e->klen == n && memcmp(e->key, k, n) == 0) return e;
  }
  return NULL;
}

/* Moves up to REHASH_STEPS buckets of t[0] to t[1]; finishes the resize
 * when t[0] is empty.  t[1] has twice the buckets, so bucket r's chain goes
 * to r and r + size; it is split keeping its order, and an entry's `next`
 * is written only where its successor changes (most chains are one entry:
 * then only t[1]'s bucket is written).  Every write is a new version of a
 * block, its bytes in the commit's log record and a checkpoint entry later,
 * so rewriting every moved entry's `next` (Redis's way) cost more than the
 * move itself. */
static void rehash_step(void) {
  int64_t r = db->rehash;
  if (r < 0) return;
  struct table *from = &db->t[0], *to = &db->t[1];
  uint64_t size = from->size;
  struct entry **fb = from->b, **tb = to->b;
  int buckets = 0, empty = 0;
  while (buckets < REHASH_STEPS && (uint64_t)r < size && empty < 10 * REHASH_STEPS) {
    struct entry *e = fb[r];
    if (!e) {
      empty++;
      r++;
      continue;
    }
    struct entry *head[2] = {NULL, NULL}, *tail[2] = {NULL, NULL};
    for (; e; e = e->next) { /* only entries behind e are written */
      int d = (e->hash & size) != 0;
      if (!tail[d]) head[d] = e;
      else if (tail[d]->next != e) tail[d]->next = e;
      tail[d] = e;
    }
    for (int d = 0; d < 2; d++) {
      if (!head[d]) continue;
      struct entry **dst = &tb[(uint64_t)r + (d ? size : 0)];
      if (tail[d]->next != *dst) tail[d]->next = *dst; /* entries inserted into t[1] meanwhile */
      *dst = head[d];
    }
    r++;
    buckets++;
  }
  db->rehash = r;
  if ((uint64_t)r >= size) { /* every bucket moved */
    free(from->b);
    db->t[0] = *to;
    memset(to, 0, sizeof *to);
    db->rehash = -1;
  }
}

/* Starts a resize to twice the buckets when the table is full (no room for
 * the new array: the table stays as it is, only its chains grow). */
static void maybe_grow(void) {
  if (db->rehash >= 0 || (uint64_t)__atomic_load_n(&keys_total, __ATOMIC_RELAXED) < db->t[0].size) return;
  uint64_t n = db->t[0].size * 2;
  struct entry **b = calloc(n, sizeof *b);
  if (!b) return;
  db->t[1].b = b;
  db->t[1].size = n;
  db->rehash = 0;
}

/* A new entry for key k with value v; NULL when the heap is full. */
static struct entry *insert(const char *k, size_t kn, uint64_t h, const char *v, size_t vn, struct reply *r) {
  maybe_grow();
  struct entry *e = malloc(sizeof *e + kn);
  if (!e) return NULL;
  char *val = malloc(vn ? vn : 1);
  if (!val) {
    free(e);
    return NULL;
  }
  memcpy(e->key, k, kn);
  memcpy(val, v, vn);
  e->klen = (uint32_t)kn;
  e->vlen = e->vcap = (uint32_t)vn;
  e->val = val;
  e->hash = h;
  struct table *t = &db->t[db->rehash >= 0 ? 1 : 0];
  struct entry **head = &t->b[h & (t->size - 1)];
  e->next = *head;
  *head = e;
  r->delta++;
  return e;
}

/* Replaces e's value; -1 when the heap is full (e unchanged). */
static int set_value(struct entry *e, const char *v, size_t vn) {
  if (vn > e->vcap) {
    char *val = malloc(vn);
    if (!val) return -1;
    free(e->val);
    e->val = val;
    e->vcap = (uint32_t)vn;
  }
  memcpy(e->val, v, vn);
  /* Only when it changes: a store is a new version of the entry's block
   * (and its bytes in the commit's log record), a load is not. */
  if (e->vlen != vn) e->vlen = (uint32_t)vn;
  return 0;
}

static int remove_key(const char *k, size_t n, uint64_t h, struct reply *r) {
  int64_t rh = db->rehash;
  for (int i = 0; i < (rh >= 0 ? 2 : 1); i++) {
    struct table *t = &db->t[i];
    if (!t->b) continue;
    uint64_t b = h & (t->size - 1);
    if (i == 0 && rh >= 0 && b < (uint64_t)rh) continue; /* moved */
    for (struct entry **p = &t->b[b]; *p; p = &(*p)->next) {
      struct entry *e = *p;
      if (e->hash == h && e->klen == n && memcmp(e->key, k, n) == 0) {
        *p = e->next;
        free(e->val);
        free(e);
        r->delta--;
        return 1;
      }
    }
  }
  return 0;
}

/* The keys in the table, walked once at start (keys_total). */
static long long count_keys(void) {
  long long n = 0;
  AMBER_ATOMIC {
    n = 0;
    for (int i = 0; i < 2; i++) {
      uint64_t live = i ? 0 : live0();
      for (uint64_t b = live; db->t[i].b && b < db->t[i].size; b++)
        for (struct entry *e = db->t[i].b[b]; e; e = e->next) n++;
    }
  }
  return n;
}

/* Redis's glob (KEYS): * ? [abc] [^a-z] and \x. */
static int glob(const char *p, size_t pn, const char *s, size_t sn) {
  while (pn) {
    switch (*p) {
    case '*':
      while (pn > 1 && p[1] == '*') p++, pn--;
      if (pn == 1) return 1;
      for (size_t i = 0; i <= sn; i++)
        if (glob(p + 1, pn - 1, s + i, sn - i)) return 1;
      return 0;
    case '?':
      if (!sn) return 0;
      s++, sn--;
      break;
    case '[': {
      if (!sn) return 0;
      p++, pn--;
      int neg = pn && *p == '^', match = 0;
      if (neg) p++, pn--;
      while (pn && *p != ']') {
        if (*p == '\\' && pn >= 2) {
          p++, pn--;
          match |= *p == *s;
        } else if (pn >= 3 && p[1] == '-' && p[2] != ']') {
          char lo = p[0], hi = p[2];
          if (lo > hi) {
            char x = lo;
            lo = hi;
            hi = x;
          }
          match |= *s >= lo && *s <= hi;
          p += 2, pn -= 2;
        } else {
          match |= *p == *s;
        }
        p++, pn--;
      }
      if (neg) match = !match;
      if (!match) return 0;
      s++, sn--;
      if (!pn) return 1; /* unterminated class: Redis accepts it */
      break;
    }
    case '\\':
      if (pn >= 2) p++, pn--;
      /* fallthrough */
    default:
      if (!sn || *p != *s) return 0;
      s++, sn--;
      break;
    }
    p++, pn--;
  }
  return sn == 0;
}

/* Integers as Redis keeps them: decimal strings of a signed 64-bit value,
 * no spaces, no leading '+' or zeros.  Own code (not strtoll) so regions stay
 * revocable. */
static int parse_ll(const char *s, size_t n, long long *out) {
  if (n == 0 || n > 20) return -1;
  size_t i = 0;
  int neg = 0;
  if (s[0] == '-') {
    neg = 1;
    i = 1;
    if (n == 1) return -1;
  }
  if (s[i] == '0' && n > i + 1) return -1;
  unsigned long long v = 0;
  for (; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    unsigned d = (unsigned)(s[i] - '0');
    if (v > (ULLONG_MAX - d) / 10) return -1;
    v = v * 10 + d;
  }
  if (neg) {
    if (v > (unsigned long long)LLONG_MAX + 1) return -1;
    *out = v == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN : -(long long)v;
  } else {
    if (v > (unsigned long long)LLONG_MAX) return -1;
    *out = (long long)v;
  }
  if (neg && *out == 0) return -1; /* "-0" */
  return 0;
}

static size_t format_ll(long long v, char *buf) {
  char tmp[24];
  size_t n = 0;
  unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
  do {
    tmp[n++] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  size_t len = 0;
  if (v < 0) buf[len++] = '-';
  while (n) buf[len++] = tmp[--n];
  return len;
}

/* ---------------------------------------------------------------------------
 * Replies, built in the connection's output buffer.  A reply that does not
 * fit only counts its bytes (need); the caller grows the buffer and runs
 * the (read-only) command again. */

static void put(struct reply *r, const void *s, size_t n) {
  if (r->n + n <= r->cap) memcpy(r->p + r->n, s, n);
  r->n += n;
}
static void put_str(struct reply *r, const char *s) { put(r, s, strlen(s)); }
static void put_prefixed(struct reply *r, char c, long long v) {
  char b[32];
  b[0] = c;
  size_t n = 1 + format_ll(v, b + 1);
  b[n++] = '\r';
  b[n++] = '\n';
  put(r, b, n);
}
static void put_int(struct reply *r, long long v) { put_prefixed(r, ':', v); }
static void put_bulk(struct reply *r, const char *s, size_t n) {
  put_prefixed(r, '$', (long long)n);
  put(r, s, n);
  put(r, "\r\n", 2);
}
static void put_nil(struct reply *r) {
  if (r->resp3) put(r, "_\r\n", 3);
  else put(r, "$-1\r\n", 5);
}

enum cmd {
  C_UNKNOWN, C_GET, C_SET, C_DEL, C_EXISTS, C_INCR, C_INCRBY, C_DECR, C_DECRBY, C_MGET, C_MSET, C_APPEND, C_STRLEN,
  C_DBSIZE, C_KEYS, C_FLUSHDB, C_PING, C_ECHO, C_INFO, C_COMMAND, C_CONFIG, C_CLIENT, C_HELLO, C_SELECT, C_QUIT,
  C_SHUTDOWN,
};

static const struct {
  const char *name;
  enum cmd id;
  int arity; /* Redis's convention: n exact, -n at least n (the name counts) */
  int writes;
} commands[] = {
    {"get", C_GET, 2, 0},         {"set", C_SET, -3, 1},        {"del", C_DEL, -2, 1},
    {"exists", C_EXISTS, -2, 0},  {"incr", C_INCR, 2, 1},       {"incrby", C_INCRBY, 3, 1},
    {"decr", C_DECR, 2, 1},       {"decrby", C_DECRBY, 3, 1},   {"mget", C_MGET, -2, 0},
    {"mset", C_MSET, -3, 1},      {"append", C_APPEND, 3, 1},   {"strlen", C_STRLEN, 2, 0},
    {"dbsize", C_DBSIZE, 1, 0},   {"keys", C_KEYS, 2, 0},       {"flushdb", C_FLUSHDB, -1, 1},
    {"ping", C_PING, -1, 0},      {"echo", C_ECHO, 2, 0},       {"info", C_INFO, -1, 0},
    {"command", C_COMMAND, -1, 0}, {"config", C_CONFIG, -2, 0}, {"client", C_CLIENT, -2, 0},
    {"hello", C_HELLO, -1, 0},    {"select", C_SELECT, 2, 0},   {"quit", C_QUIT, -1, 0},
    {"shutdown", C_SHUTDOWN, -1, 0},
};

#define ERR_NOT_INT "-ERR value is not an integer or out of range\r\n"
#define ERR_OOM "-OOM the persistent heap is full (set a larger AMBER_HEAP_SIZE for a new heap)\r\n"
#define ERR_BIG "-ERR string exceeds maximum allowed size (4 GiB)\r\n"

/* The body of a data command's region.  Returns 0, or -1 when the heap was
 * full: the caller cancels the region, so nothing of the command stays. */
static int run_data(enum cmd id, int argc, char **argv, size_t *len, long long by, int setmode, struct reply *r) {
  switch (id) {
  case C_GET: {
    struct entry *e = lookup(argv[1], len[1], hash_of(argv[1], len[1]));
    if (e) put_bulk(r, e->val, e->vlen);
    else put_nil(r);
    return 0;
  }
  case C_SET: {
    uint64_t h = hash_of(argv[1], len[1]);
    rehash_step();
    struct entry *e = lookup(argv[1], len[1], h);
    if ((setmode == 1 && e) || (setmode == 2 && !e)) {
      put_nil(r); /* NX on an existing key, XX on a missing one */
      return 0;
    }
    if (e ? set_value(e, argv[2], len[2]) : (insert(argv[1], len[1], h, argv[2], len[2], r) ? 0 : -1)) return -1;
    put(r, "+OK\r\n", 5);
    return 0;
  }
  case C_MSET:
    rehash_step();
    for (int i = 1; i + 1 < argc; i += 2) {
      uint64_t h = hash_of(argv[i], len[i]);
      struct entry *e = lookup(argv[i], len[i], h);
      if (e ? set_value(e, argv[i + 1], len[i + 1]) : (insert(argv[i], len[i], h, argv[i + 1], len[i + 1], r) ? 0 : -1))
        return -1;
    }
    put(r, "+OK\r\n", 5);
    return 0;
  case C_DEL: {
    rehash_step();
    long long n = 0;
    for (int i = 1; i < argc; i++) n += remove_key(argv[i], len[i], hash_of(argv[i], len[i]), r);
    put_int(r, n);
    return 0;
  }
  case C_EXISTS: {
    long long n = 0;
    for (int i = 1; i < argc; i++) n += lookup(argv[i], len[i], hash_of(argv[i], len[i])) != NULL;
    put_int(r, n);
    return 0;
  }
  case C_INCR:
  case C_INCRBY:
  case C_DECR:
  case C_DECRBY: {
    uint64_t h = hash_of(argv[1], len[1]);
    rehash_step();
    struct entry *e = lookup(argv[1], len[1], h);
    long long v = 0;
    if (e && parse_ll(e->val, e->vlen, &v) != 0) {
      put_str(r, ERR_NOT_INT);
      return 0;
    }
    if ((by > 0 && v > LLONG_MAX - by) || (by < 0 && v < LLONG_MIN - by)) {
      put_str(r, "-ERR increment or decrement would overflow\r\n");
      return 0;
    }
    v += by;
    char b[24];
    size_t n = format_ll(v, b);
    if (e ? set_value(e, b, n) : (insert(argv[1], len[1], h, b, n, r) ? 0 : -1)) return -1;
    put_int(r, v);
    return 0;
  }
  case C_MGET:
    put_prefixed(r, '*', argc - 1);
    for (int i = 1; i < argc; i++) {
      struct entry *e = lookup(argv[i], len[i], hash_of(argv[i], len[i]));
      if (e) put_bulk(r, e->val, e->vlen);
      else put_nil(r);
    }
    return 0;
  case C_APPEND: {
    uint64_t h = hash_of(argv[1], len[1]);
    rehash_step();
    struct entry *e = lookup(argv[1], len[1], h);
    if (!e) {
      if (!insert(argv[1], len[1], h, argv[2], len[2], r)) return -1;
      put_int(r, (long long)len[2]);
      return 0;
    }
    size_t n = (size_t)e->vlen + len[2];
    if (n > UINT32_MAX) {
      put_str(r, ERR_BIG);
      return 0;
    }
    if (n > e->vcap) {
      size_t cap = e->vcap * 2 > n ? e->vcap * 2 : n;
      if (cap > UINT32_MAX) cap = n;
      char *val = realloc(e->val, cap);
      if (!val) return -1;
      e->val = val;
      e->vcap = (uint32_t)cap;
    }
    memcpy(e->val + e->vlen, argv[2], len[2]);
    e->vlen = (uint32_t)n;
    put_int(r, (long long)n);
    return 0;
  }
  case C_STRLEN: {
    struct entry *e = lookup(argv[1], len[1], hash_of(argv[1], len[1]));
    put_int(r, e ? e->vlen : 0);
    return 0;
  }
  case C_DBSIZE:
  case C_INFO: /* the key count for INFO's keyspace section */
    put_int(r, __atomic_load_n(&keys_total, __ATOMIC_RELAXED));
    return 0;
  case C_KEYS: {
    long long n = 0;
    for (int pass = 0; pass < 2; pass++) {
      if (pass) put_prefixed(r, '*', n);
      for (int i = 0; i < (db->rehash >= 0 ? 2 : 1); i++)
        for (uint64_t b = i ? 0 : live0(); db->t[i].b && b < db->t[i].size; b++)
          for (struct entry *e = db->t[i].b[b]; e; e = e->next)
            if (glob(argv[1], len[1], e->key, e->klen)) {
              if (pass) put_bulk(r, e->key, e->klen);
              else n++;
            }
    }
    return 0;
  }
  case C_FLUSHDB:
    for (int i = 0; i < 2; i++) {
      uint64_t live = i ? 0 : live0();
      for (uint64_t b = 0; db->t[i].b && b < db->t[i].size; b++) {
        struct entry *e = db->t[i].b[b];
        if (!e) continue;
        while (b >= live && e) { /* below live0(): moved to t[1], freed there */
          struct entry *next = e->next;
          free(e->val);
          free(e);
          r->delta--;
          e = next;
        }
        db->t[i].b[b] = NULL;
      }
    }
    if (db->rehash >= 0) {
      free(db->t[1].b);
      memset(&db->t[1], 0, sizeof db->t[1]);
      db->rehash = -1;
    }
    put(r, "+OK\r\n", 5);
    return 0;
  default:
    return 0;
  }
}

/* Each worker's reply scratch: a region writes its reply here first.
 * AMBER_UNISOLATED (docs/guide.md 2.6): these stores are plain, neither
 * isolated nor undone (a re-run writes the reply again from its start), so
 * a read-only command stays a reader (romulus) and a commit does not wait
 * for other threads' regions (mvcc's privatization safety for ordinary
 * stores).  Each worker uses only its own row. */
AMBER_UNISOLATED static char scratch[MAX_THREADS][SCRATCH];
AMBER_UNISOLATED static struct reply replies[MAX_THREADS]; /* where it stands */

/* ---------------------------------------------------------------------------
 * Connections: ordinary memory, used outside regions except the output
 * buffer a region writes its reply into. */
struct conn {
  int fd;
  int worker; /* its row of scratch */
  int closing; /* close once the output is sent */
  int resp3;   /* HELLO 3 switched it to RESP3 */
  char *in;
  size_t inlen, incap;
  char *out;
  size_t outlen, outoff, outcap;
  /* out[outoff, sendable) may go now: its commits are durable.  The
   * replies up to held_len wait for durability token held_tok. */
  size_t sendable, held_len;
  unsigned long long held_tok;
  int held; /* in its worker's held list */
  char **argv;
  size_t *len;
  size_t argcap;
};

static void out_reserve(struct conn *c, size_t more) {
  if (c->outoff && c->outoff == c->outlen) c->outoff = c->outlen = c->sendable = c->held_len = 0;
  if (c->outlen + more <= c->outcap) return;
  if (c->outoff) {
    memmove(c->out, c->out + c->outoff, c->outlen - c->outoff);
    c->outlen -= c->outoff;
    c->sendable -= c->outoff;
    c->held_len = c->held_len > c->outoff ? c->held_len - c->outoff : 0;
    c->outoff = 0;
    if (c->outlen + more <= c->outcap) return;
  }
  size_t cap = c->outcap ? c->outcap : 4096;
  while (cap < c->outlen + more) cap *= 2;
  char *p = realloc(c->out, cap);
  if (!p) {
    fprintf(stderr, "kvserver: out of memory for a reply of %zu bytes\n", more);
    exit(1);
  }
  c->out = p;
  c->outcap = cap;
}

static void out_str(struct conn *c, const char *s, size_t n) {
  out_reserve(c, n);
  memcpy(c->out + c->outlen, s, n);
  c->outlen += n;
}
#define OUT_LIT(c, s) out_str((c), (s), sizeof(s) - 1)

static int lower_eq(const char *s, size_t n, const char *lit) {
  return strlen(lit) == n && strncasecmp(s, lit, n) == 0;
}

/* INFO: a Redis-style text of sections; amber's statistics become
 * "amber_NAME:VALUE" lines (amber_stats_text's text, one line each). */
static void info_reply(struct conn *c, long long keys) {
  size_t cap = 8192;
  char *buf = NULL;
  for (;;) {
    buf = realloc(buf, cap);
    if (!buf) exit(1);
    size_t n = amber_stats_text(buf, cap, 0);
    if (n < cap) break;
    cap = n + 1;
  }
  size_t tcap = cap * 2 + 512, tn = 0;
  char *text = malloc(tcap);
  if (!text) exit(1);
  tn += (size_t)snprintf(text + tn, tcap - tn, "# Server\r\nredis_version:7.0.0-kvserver\r\nkvserver:amber\r\n"
                                               "process_id:%ld\r\n# Amber\r\n", (long)getpid());
  for (char *line = buf, *nl; *line; line = nl ? nl + 1 : line + strlen(line)) {
    nl = strchr(line, '\n');
    size_t n = nl ? (size_t)(nl - line) : strlen(line);
    while (n && *line == ' ') line++, n--;
    if (!n) continue;
    /* "name words     value": the name ends at the first run of two spaces */
    size_t k = 0;
    while (k < n && !(line[k] == ' ' && k + 1 < n && line[k + 1] == ' ')) k++;
    size_t v = k;
    while (v < n && line[v] == ' ') v++;
    if (line == buf) { /* the heading: "amber stats (engine E, pm P)" */
      tn += (size_t)snprintf(text + tn, tcap - tn, "amber_stats:%.*s\r\n", (int)n, line);
      continue;
    }
    if (k == n) { /* "name words N more words": the name ends before the first digit */
      k = 0;
      while (k < n && !(line[k] >= '0' && line[k] <= '9')) k++;
      v = k;
      while (k && line[k - 1] == ' ') k--;
      if (!k) continue;
    }
    tn += (size_t)snprintf(text + tn, tcap - tn, "amber_");
    for (size_t i = 0; i < k; i++) text[tn++] = line[i] == ' ' || line[i] == ':' || line[i] == '-' ? '_' : line[i];
    text[tn++] = ':';
    /* redis-py splits a value with both ',' and '=' into a dict: keep '=' out */
    for (size_t i = v; i < n; i++) text[tn++] = line[i] == '=' ? ' ' : line[i];
    text[tn++] = '\r';
    text[tn++] = '\n';
  }
  tn += (size_t)snprintf(text + tn, tcap - tn, "# Keyspace\r\ndb0:keys=%lld,expires=0,avg_ttl=0\r\n", keys);
  char head[32];
  int hn = snprintf(head, sizeof head, "$%zu\r\n", tn);
  out_str(c, head, (size_t)hn);
  out_str(c, text, tn);
  OUT_LIT(c, "\r\n");
  free(text);
  free(buf);
}

/* The regions.  Three sites, because an engine learns per site: romulus
 * starts a site that once wrote as a writer from then on, so read-only
 * commands get their own site (they then run beside each other), and the
 * rare read whose reply outgrows the scratch (it writes the ordinary output
 * buffer) a third.  Each returns the reply's length, or (size_t)-1 when the
 * heap was full and the region cancelled. */
static size_t region_write(enum cmd id, int argc, char **argv, size_t *len, long long by, int setmode, struct reply *r) {
  size_t produced = (size_t)-1; /* stays so when the region cancels */
  AMBER_ATOMIC {
    r->n = 0; /* unisolated: a re-run must start the reply again itself */
    r->delta = 0;
    if (run_data(id, argc, argv, len, by, setmode, r) != 0) amber_cancel(); /* nothing of the command stays */
    produced = r->n;
  }
  /* Committed (a cancelled region left produced at -1): its keys count. */
  if (produced != (size_t)-1 && r->delta) __atomic_add_fetch(&keys_total, r->delta, __ATOMIC_RELAXED);
  return produced;
}

/* A read command's reply, from the start (a re-run starts it again). */
static size_t read_reply(enum cmd id, int argc, char **argv, size_t *len, struct reply *r) {
  r->n = 0;
  run_data(id, argc, argv, len, 0, 0, r);
  return r->n;
}

static size_t region_read(enum cmd id, int argc, char **argv, size_t *len, struct reply *r) {
  size_t produced = 0;
  AMBER_ATOMIC { produced = read_reply(id, argc, argv, len, r); }
  return produced;
}

static size_t region_read_big(enum cmd id, int argc, char **argv, size_t *len, struct reply *r) {
  size_t produced = 0;
  AMBER_ATOMIC { produced = read_reply(id, argc, argv, len, r); }
  return produced;
}

/* One complete command (argc >= 1). */
static void execute(struct conn *c, int argc, char **argv, size_t *len) {
  size_t ci, nc = sizeof commands / sizeof commands[0];
  for (ci = 0; ci < nc; ci++)
    if (lower_eq(argv[0], len[0], commands[ci].name)) break;
  char msg[256];
  if (ci == nc) {
    int n = snprintf(msg, sizeof msg, "-ERR unknown command '%.*s'\r\n", len[0] > 64 ? 64 : (int)len[0], argv[0]);
    for (int i = 1; i < n - 2; i++)
      if (msg[i] == '\r' || msg[i] == '\n') msg[i] = ' ';
    out_str(c, msg, (size_t)n);
    return;
  }
  int arity = commands[ci].arity;
  if ((arity > 0 && argc != arity) || (arity < 0 && argc < -arity) ||
      (commands[ci].id == C_MSET && argc % 2 == 0)) {
    int n = snprintf(msg, sizeof msg, "-ERR wrong number of arguments for '%s' command\r\n", commands[ci].name);
    out_str(c, msg, (size_t)n);
    return;
  }
  enum cmd id = commands[ci].id;
  long long by = 0;
  int setmode = 0; /* 1: NX, 2: XX */
  switch (id) {
  case C_PING:
    if (argc > 2) break;
    if (argc == 2) {
      int n = snprintf(msg, sizeof msg, "$%zu\r\n", len[1]);
      out_str(c, msg, (size_t)n);
      out_str(c, argv[1], len[1]);
      OUT_LIT(c, "\r\n");
    } else {
      OUT_LIT(c, "+PONG\r\n");
    }
    return;
  case C_ECHO: {
    int n = snprintf(msg, sizeof msg, "$%zu\r\n", len[1]);
    out_str(c, msg, (size_t)n);
    out_str(c, argv[1], len[1]);
    OUT_LIT(c, "\r\n");
    return;
  }
  case C_COMMAND:
    OUT_LIT(c, "*0\r\n"); /* redis-cli and redis-benchmark need no command table */
    return;
  case C_CONFIG:
    /* CONFIG GET save / appendonly (redis-benchmark): durability comes from
     * the regions, not from snapshots or an AOF. */
    if (argc == 3 && lower_eq(argv[1], len[1], "get")) {
      const char *v = lower_eq(argv[2], len[2], "appendonly") ? "no" : "";
      int n = snprintf(msg, sizeof msg, "*2\r\n$%zu\r\n", len[2]);
      out_str(c, msg, (size_t)n);
      out_str(c, argv[2], len[2]);
      n = snprintf(msg, sizeof msg, "\r\n$%zu\r\n%s\r\n", strlen(v), v);
      out_str(c, msg, (size_t)n);
      return;
    }
    OUT_LIT(c, "-ERR kvserver supports only CONFIG GET\r\n");
    return;
  case C_CLIENT:
    OUT_LIT(c, "+OK\r\n"); /* SETNAME, SETINFO: accepted, not kept */
    return;
  case C_HELLO: {
    /* HELLO [2|3] [AUTH u p] [SETNAME n]: RESP3 differs from RESP2 here only
     * in its null ("_") and this map (redis-py 5+ asks for RESP3) */
    int proto = c->resp3 ? 3 : 2;
    if (argc >= 2) {
      if (lower_eq(argv[1], len[1], "2")) proto = 2;
      else if (lower_eq(argv[1], len[1], "3")) proto = 3;
      else {
        OUT_LIT(c, "-NOPROTO unsupported protocol version: kvserver speaks RESP2 and RESP3\r\n");
        return;
      }
    }
    c->resp3 = proto == 3;
    if (c->resp3) OUT_LIT(c, "%3\r\n");
    else OUT_LIT(c, "*6\r\n");
    OUT_LIT(c, "$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$14\r\n7.0.0-kvserver\r\n$5\r\nproto\r\n");
    if (c->resp3) OUT_LIT(c, ":3\r\n");
    else OUT_LIT(c, ":2\r\n");
    return;
  }
  case C_SELECT:
    if (lower_eq(argv[1], len[1], "0")) OUT_LIT(c, "+OK\r\n");
    else OUT_LIT(c, "-ERR kvserver has one database: SELECT 0 only\r\n");
    return;
  case C_QUIT:
    OUT_LIT(c, "+OK\r\n");
    c->closing = 1;
    return;
  case C_SHUTDOWN:
    kill(getpid(), SIGTERM);
    c->closing = 1;
    return;
  case C_SET:
    for (int i = 3; i < argc; i++) {
      if (lower_eq(argv[i], len[i], "nx") && setmode != 2) setmode = 1;
      else if (lower_eq(argv[i], len[i], "xx") && setmode != 1) setmode = 2;
      else if (lower_eq(argv[i], len[i], "ex") || lower_eq(argv[i], len[i], "px") || lower_eq(argv[i], len[i], "exat") ||
               lower_eq(argv[i], len[i], "pxat") || lower_eq(argv[i], len[i], "keepttl")) {
        OUT_LIT(c, "-ERR SET with an expiry (EX, PX, EXAT, PXAT, KEEPTTL) is not supported by kvserver\r\n");
        return;
      } else {
        OUT_LIT(c, "-ERR syntax error\r\n");
        return;
      }
    }
    break;
  case C_INCR:
    by = 1;
    break;
  case C_DECR:
    by = -1;
    break;
  case C_INCRBY:
  case C_DECRBY:
    if (parse_ll(argv[2], len[2], &by) != 0 || (id == C_DECRBY && by == LLONG_MIN)) {
      OUT_LIT(c, ERR_NOT_INT);
      return;
    }
    if (id == C_DECRBY) by = -by;
    break;
  case C_FLUSHDB:
    if (argc > 2 || (argc == 2 && !lower_eq(argv[1], len[1], "sync") && !lower_eq(argv[1], len[1], "async"))) {
      OUT_LIT(c, "-ERR syntax error\r\n");
      return;
    }
    break;
  default:
    break;
  }
  for (int i = 1; i < argc; i++)
    if (len[i] > UINT32_MAX) {
      OUT_LIT(c, ERR_BIG);
      return;
    }
  /* The command's region: one of three sites (below), each answering into
   * the worker's scratch or, for a reply too long for it, straight into the
   * output buffer (a read-only command then runs again there). */
  size_t room = 0;
  for (;;) {
    char *to = scratch[c->worker];
    size_t cap = SCRATCH;
    if (room) {
      out_reserve(c, room);
      to = c->out + c->outlen;
      cap = c->outcap - c->outlen;
    }
    struct reply *r = &replies[c->worker];
    *r = (struct reply){to, cap, 0, c->resp3, 0};
    size_t produced = commands[ci].writes ? region_write(id, argc, argv, len, by, setmode, r)
                      : room                ? region_read_big(id, argc, argv, len, r)
                                            : region_read(id, argc, argv, len, r);
    if (produced == (size_t)-1) {
      OUT_LIT(c, ERR_OOM);
      return;
    }
    if (produced <= cap) {
      if (id == C_INFO) {
        /* the region answered the key count (":N\r\n"): INFO's own text replaces it */
        long long keys = 0;
        parse_ll(to + 1, produced - 3, &keys);
        info_reply(c, keys);
        return;
      }
      if (to != c->out + c->outlen) out_str(c, to, produced);
      else c->outlen += produced;
      return;
    }
    if (commands[ci].writes) {
      fprintf(stderr, "kvserver: internal error: a reply of a write command did not fit (%zu bytes)\n", produced);
      abort();
    }
    room = produced;
  }
}

/* RESP parsing.  Returns 1 with a whole command, 0 when more bytes are
 * needed, -1 on a protocol error (msg says which). */
static int parse_number(const char *p, const char *end, long long *v, const char **after) {
  const char *nl = memchr(p, '\r', (size_t)(end - p));
  if (!nl || nl + 1 >= end) return (end - p) > 32 ? -1 : 0;
  if (nl[1] != '\n') return -1;
  if (parse_ll(p, (size_t)(nl - p), v) != 0) return -1;
  *after = nl + 2;
  return 1;
}

static void arg_room(struct conn *c, size_t n) {
  if (n <= c->argcap) return;
  size_t cap = n < 16 ? 16 : n;
  char **a = realloc(c->argv, cap * sizeof *a);
  size_t *l = realloc(c->len, cap * sizeof *l);
  if (!a || !l) exit(1);
  c->argv = a;
  c->len = l;
  c->argcap = cap;
}

static int hexval(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

static int is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f'; }

/* An inline command (what telnet or `nc` sends: `SET a b\r\n`), split as
 * Redis's sdssplitargs does: words separated by blanks, "double quotes"
 * with \n \r \t \b \a \\ \" and \xHH escapes, 'single quotes' with \'.
 * The words are decoded in place (never longer than the line): the line
 * is consumed with the command. */
#define MAX_INLINE (64 * 1024) /* Redis's PROTO_INLINE_MAX_SIZE */
static int parse_inline(struct conn *c, char *in, size_t inlen, int *argc, size_t *consumed, const char **msg) {
  char *nl = memchr(in, '\n', inlen);
  if (!nl) {
    if (inlen > MAX_INLINE) {
      *msg = "-ERR Protocol error: too big inline request\r\n";
      return -1;
    }
    return 0;
  }
  char *p = in, *end = nl;
  if (end > in && end[-1] == '\r') end--;
  int n = 0;
  for (;;) {
    while (p < end && is_space(*p)) p++;
    if (p == end) break;
    char *w = p, *o = p;
    int dq = 0, sq = 0;
    for (;;) {
      if (dq) {
        if (p == end) goto unbalanced;
        if (*p == '\\' && p + 3 < end && p[1] == 'x' && hexval(p[2]) >= 0 && hexval(p[3]) >= 0) {
          *o++ = (char)(hexval(p[2]) * 16 + hexval(p[3]));
          p += 4;
        } else if (*p == '\\' && p + 1 < end) {
          char e = p[1];
          *o++ = e == 'n' ? '\n' : e == 'r' ? '\r' : e == 't' ? '\t' : e == 'b' ? '\b' : e == 'a' ? '\a' : e;
          p += 2;
        } else if (*p == '"') {
          if (p + 1 < end && !is_space(p[1])) goto unbalanced; /* a closing quote must end the word */
          p++;
          break;
        } else {
          *o++ = *p++;
        }
      } else if (sq) {
        if (p == end) goto unbalanced;
        if (*p == '\\' && p + 1 < end && p[1] == '\'') {
          *o++ = '\'';
          p += 2;
        } else if (*p == '\'') {
          if (p + 1 < end && !is_space(p[1])) goto unbalanced;
          p++;
          break;
        } else {
          *o++ = *p++;
        }
      } else {
        if (p == end || is_space(*p)) break;
        if (*p == '"') dq = 1, p++;
        else if (*p == '\'') sq = 1, p++;
        else *o++ = *p++;
      }
    }
    arg_room(c, (size_t)n + 1);
    c->argv[n] = w;
    c->len[n++] = (size_t)(o - w);
  }
  *argc = n; /* an empty line: nothing to run, as in Redis */
  *consumed = (size_t)(nl + 1 - in);
  return 1;
unbalanced:
  *msg = "-ERR Protocol error: unbalanced quotes in request\r\n";
  return -1;
}

static int parse(struct conn *c, char *in, size_t inlen, int *argc, size_t *consumed, const char **msg) {
  const char *p = in, *end = in + inlen;
  if (p == end) return 0;
  if (*p != '*') return parse_inline(c, in, inlen, argc, consumed, msg);
  long long n;
  int r = parse_number(p + 1, end, &n, &p);
  if (r <= 0) {
    *msg = "-ERR Protocol error: invalid multibulk length\r\n";
    return r;
  }
  if (n > MAX_ARGS) {
    *msg = "-ERR Protocol error: invalid multibulk length\r\n";
    return -1;
  }
  if (n <= 0) { /* Redis ignores empty arrays */
    *argc = 0;
    *consumed = (size_t)(p - in);
    return 1;
  }
  arg_room(c, (size_t)n);
  for (long long i = 0; i < n; i++) {
    if (p == end) return 0;
    if (*p != '$') {
      *msg = "-ERR Protocol error: expected '$'\r\n";
      return -1;
    }
    long long bl;
    r = parse_number(p + 1, end, &bl, &p);
    if (r < 0 || (r == 1 && (bl < 0 || bl > MAX_BULK))) {
      *msg = "-ERR Protocol error: invalid bulk length\r\n";
      return -1;
    }
    if (r == 0) return 0;
    if ((size_t)(end - p) < (size_t)bl + 2) return 0;
    if (p[bl] != '\r' || p[bl + 1] != '\n') {
      *msg = "-ERR Protocol error: a bulk string does not end with CRLF\r\n";
      return -1;
    }
    c->argv[i] = (char *)p;
    c->len[i] = (size_t)bl;
    p += bl + 2;
  }
  *argc = (int)n;
  *consumed = (size_t)(p - in);
  return 1;
}

/* ---------------------------------------------------------------------------
 * Worker threads: one epoll each, sharing the listening socket. */
static int listen_fd;

/* ---------------------------------------------------------------------------
 * Durable replies.  A write's reply goes out only once its commit is
 * durable, yet a worker never waits for a sync: each epoll pass runs every
 * whole command of every ready connection (each its own region, returning
 * before its commit is durable: deferred durability), then holds the
 * replies with the pass's durability token and asks the syncer for it.
 * The syncer thread waits for the newest token asked (one sync covers
 * every worker's passes so far: group commit), then wakes the workers
 * whose tokens are durable (an eventfd in their epoll set), which send the
 * replies.  So while a sync runs, the workers go on reading and executing
 * the commands that arrive, and the next sync takes all of them
 * (docs/guide.md, "Durability tokens"). */
struct worker {
  int ep, wake;        /* its epoll set; its eventfd, written by the syncer */
  struct conn **held;  /* connections with replies waiting for a token */
  int nheld, capheld;
  unsigned long long want; /* under sync_lock: the token it asked for; 0: none */
};
static struct worker *workers;
static int nworkers;
static pthread_mutex_t sync_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sync_cond = PTHREAD_COND_INITIALIZER;

static void *syncer(void *arg) {
  (void)arg;
  pthread_mutex_lock(&sync_lock);
  for (;;) {
    unsigned long long top = 0;
    for (int w = 0; w < nworkers; w++)
      if (workers[w].want > top) top = workers[w].want;
    if (!top) {
      pthread_cond_wait(&sync_cond, &sync_lock);
      continue;
    }
    pthread_mutex_unlock(&sync_lock);
    amber_wait_token(top); /* tokens complete in order: every smaller one too */
    pthread_mutex_lock(&sync_lock);
    for (int w = 0; w < nworkers; w++)
      if (workers[w].want && workers[w].want <= top) {
        workers[w].want = 0;
        uint64_t one = 1;
        if (write(workers[w].wake, &one, sizeof one) < 0 && errno != EAGAIN) perror("kvserver: eventfd");
      }
  }
  return NULL;
}

static void conn_close(struct worker *wk, struct conn *c) {
  if (c->held)
    for (int i = 0; i < wk->nheld; i++)
      if (wk->held[i] == c) {
        wk->held[i] = wk->held[--wk->nheld];
        break;
      }
  epoll_ctl(wk->ep, EPOLL_CTL_DEL, c->fd, NULL);
  close(c->fd);
  free(c->in);
  free(c->out);
  free(c->argv);
  free(c->len);
  free(c);
}

/* Sends what it may; 0, or -1 when the connection is gone. */
static int flush_out(int ep, struct conn *c) {
  while (c->outoff < c->sendable) {
    ssize_t n = send(c->fd, c->out + c->outoff, c->sendable - c->outoff, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n <= 0) return -1;
    c->outoff += (size_t)n;
  }
  struct epoll_event ev = {.events = EPOLLIN | (c->outoff < c->sendable ? EPOLLOUT : 0), .data.ptr = c};
  epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
  if (c->outoff == c->outlen) c->outoff = c->outlen = c->sendable = c->held_len = 0;
  return 0;
}
/* Reads what arrived and runs every whole command; -1: close it now. */
static int on_input(struct conn *c) {
  for (;;) {
    if (c->incap - c->inlen < 16384) {
      size_t cap = c->incap ? c->incap * 2 : 16384;
      char *p = realloc(c->in, cap);
      if (!p) return -1;
      c->in = p;
      c->incap = cap;
    }
    size_t room = c->incap - c->inlen;
    ssize_t n = recv(c->fd, c->in + c->inlen, room, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n <= 0) return -1; /* closed (perhaps mid-command: that command never ran) */
    c->inlen += (size_t)n;
    if ((size_t)n < room) break; /* drained */
  }
  size_t off = 0;
  while (!c->closing) {
    int argc;
    size_t used;
    const char *msg = NULL;
    int r = parse(c, c->in + off, c->inlen - off, &argc, &used, &msg);
    if (r < 0) {
      out_str(c, msg, strlen(msg));
      c->closing = 1;
      break;
    }
    if (r == 0) {
      break;
    }
    off += used;
    if (argc > 0) execute(c, argc, c->argv, c->len);
  }
  memmove(c->in, c->in + off, c->inlen - off);
  c->inlen -= off;
  return 0;
}

/* Sends c's replies up to its mark once the mark's token is durable (token
 * 0: they depend on no commit that is not); closes c when it is done. */
static void release(struct worker *wk, struct conn *c) {
  if (c->held_len > c->sendable && amber_token_durable(c->held_tok)) c->sendable = c->held_len;
  if (c->outoff == c->sendable && !(c->closing && c->sendable == c->outlen)) return;
  if (flush_out(wk->ep, c) != 0 || (c->closing && c->outoff == c->outlen)) conn_close(wk, c);
}

static void *worker(void *arg) {
  int self = (int)(intptr_t)arg;
  struct worker *wk = &workers[self];
  int ep = wk->ep;
  struct epoll_event ev = {.events = EPOLLIN | EPOLLEXCLUSIVE, .data.ptr = NULL};
  struct epoll_event wev = {.events = EPOLLIN, .data.ptr = wk};
  if (epoll_ctl(ep, EPOLL_CTL_ADD, listen_fd, &ev) != 0 || epoll_ctl(ep, EPOLL_CTL_ADD, wk->wake, &wev) != 0) {
    perror("kvserver: epoll");
    exit(1);
  }
  struct epoll_event evs[64];
  struct conn *ready[64];
  amber_defer_durability_begin(); /* commits return before they are durable: see "Durable replies" */
  for (;;) {
    int n = epoll_wait(ep, evs, 64, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      perror("kvserver: epoll_wait");
      exit(1);
    }
    int nready = 0, woken = 0;
    for (int i = 0; i < n; i++) {
      struct conn *c = evs[i].data.ptr;
      if ((void *)c == (void *)wk) {
        uint64_t k;
        if (read(wk->wake, &k, sizeof k) < 0 && errno != EAGAIN) perror("kvserver: eventfd");
        woken = 1;
        continue;
      }
      if (!c) {
        int fd;
        while ((fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
          int one = 1;
          setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          c = calloc(1, sizeof *c);
          if (!c) {
            close(fd);
            continue;
          }
          c->fd = fd;
          c->worker = self;
          struct epoll_event cev = {.events = EPOLLIN, .data.ptr = c};
          epoll_ctl(ep, EPOLL_CTL_ADD, fd, &cev);
        }
        continue;
      }
      if ((evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) && on_input(c) != 0) {
        conn_close(wk, c); /* the peer left: nobody to answer */
        continue;
      }
      ready[nready++] = c;
    }
    /* Nothing below acknowledges a commit that is not durable: this pass's
     * replies wait for its token (what amber_wait_durable would wait for). */
    unsigned long long tok = nready ? amber_durable_token() : 0;
    for (int i = 0; i < nready; i++) {
      struct conn *c = ready[i];
      if (c->outlen > c->held_len) {
        c->held_len = c->outlen;
        c->held_tok = tok;
      }
      if (!c->held) {
        if (wk->nheld == wk->capheld) {
          wk->capheld = wk->capheld ? wk->capheld * 2 : 64;
          wk->held = realloc(wk->held, (size_t)wk->capheld * sizeof *wk->held);
          if (!wk->held) {
            fprintf(stderr, "kvserver: out of memory\n");
            exit(1);
          }
        }
        wk->held[wk->nheld++] = c;
        c->held = 1;
      }
    }
    if (!nready && !woken) continue;
    unsigned long long need = 0;
    for (int i = 0; i < wk->nheld;) {
      struct conn *c = wk->held[i];
      int before = wk->nheld;
      release(wk, c);
      if (wk->nheld < before) continue; /* closed: another took its slot */
      if (c->held_len > c->sendable) {
        if (c->held_tok > need) need = c->held_tok;
        i++;
        continue;
      }
      c->held = 0;
      wk->held[i] = wk->held[--wk->nheld];
    }
    if (need) {
      pthread_mutex_lock(&sync_lock);
      if (need > wk->want) wk->want = need;
      pthread_cond_signal(&sync_cond);
      pthread_mutex_unlock(&sync_lock);
    }
  }
  return NULL;
}

static void usage(FILE *f) {
  fprintf(f, "usage: kvserver [--port N] [--bind ADDR] [--heap PATH] [--threads N] [--port-file FILE]\n"
             "A Redis-protocol (RESP2) key-value server whose data lives in an amber persistent heap:\n"
             "every command is one AMBER_ATOMIC region, answered after it commits.\n"
             "  --port N          TCP port (default 6380; 0 picks a free one)\n"
             "  --bind ADDR       IPv4 address to listen on (default 127.0.0.1)\n"
             "  --heap PATH       the heap file (default: AMBER_HEAP, else amber's default)\n"
             "  --threads N       worker threads, one epoll loop each (default 4, at most 256)\n"
             "  --port-file FILE  write the port there once listening (for --port 0)\n"
             "Stops cleanly on SIGINT, SIGTERM or the SHUTDOWN command.\n");
}

int main(int argc, char **argv) {
  int port = 6380, threads = 4;
  const char *heap = NULL, *bind_addr = "127.0.0.1", *port_file = NULL;
  static const struct option opts[] = {{"port", required_argument, 0, 'p'},      {"bind", required_argument, 0, 'b'},
                                       {"heap", required_argument, 0, 'H'},      {"threads", required_argument, 0, 't'},
                                       {"port-file", required_argument, 0, 'f'}, {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  int o;
  while ((o = getopt_long(argc, argv, "p:b:H:t:f:h", opts, NULL)) != -1) {
    switch (o) {
    case 'p': port = atoi(optarg); break;
    case 'b': bind_addr = optarg; break;
    case 'H': heap = optarg; break;
    case 't': threads = atoi(optarg); break;
    case 'f': port_file = optarg; break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (optind != argc || port < 0 || port > 65535 || threads < 1 || threads > MAX_THREADS) {
    usage(stderr);
    return 2;
  }
  amber_open(heap);
  db = amber_root(sizeof *db);
  if (db->magic != MAGIC) {
    int ok = 0;
    AMBER_ATOMIC {
      if (db->magic != MAGIC) {
        db->t[0].b = calloc(FIRST_BUCKETS, sizeof *db->t[0].b);
        if (db->t[0].b) {
          db->t[0].size = FIRST_BUCKETS;
          db->rehash = -1;
          db->magic = MAGIC;
        }
      }
      ok = db->magic == MAGIC;
    }
    if (!ok) {
      fprintf(stderr, "kvserver: the persistent heap has no room for the table\n");
      return 1;
    }
  }
  keys_total = count_keys();
  signal(SIGPIPE, SIG_IGN);
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, NULL); /* workers inherit it; main waits for them */

  listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  if (inet_pton(AF_INET, bind_addr, &sa.sin_addr) != 1) {
    fprintf(stderr, "kvserver: --bind %s: not an IPv4 address\n", bind_addr);
    return 2;
  }
  if (bind(listen_fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(listen_fd, 511) != 0) {
    fprintf(stderr, "kvserver: cannot listen on %s:%d: %s\n", bind_addr, port, strerror(errno));
    return 1;
  }
  socklen_t sl = sizeof sa;
  getsockname(listen_fd, (struct sockaddr *)&sa, &sl);
  port = ntohs(sa.sin_port);
  workers = calloc((size_t)threads, sizeof *workers);
  nworkers = threads;
  for (int i = 0; workers && i < threads; i++) {
    workers[i].ep = epoll_create1(EPOLL_CLOEXEC);
    workers[i].wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (workers[i].ep < 0 || workers[i].wake < 0) {
      perror("kvserver: epoll_create1/eventfd");
      return 1;
    }
  }
  pthread_t st;
  if (!workers || pthread_create(&st, NULL, syncer, NULL) != 0) {
    fprintf(stderr, "kvserver: cannot start the syncer thread\n");
    return 1;
  }
  pthread_detach(st);
  for (int i = 0; i < threads; i++) {
    pthread_t t;
    if (pthread_create(&t, NULL, worker, (void *)(intptr_t)i) != 0) {
      fprintf(stderr, "kvserver: cannot start thread %d\n", i);
      return 1;
    }
    pthread_detach(t);
  }
  if (port_file) {
    char tmp[4096], dst[4096]; /* written whole, then renamed: a reader never sees half */
    snprintf(tmp, sizeof tmp, "%s.tmp", port_file);
    snprintf(dst, sizeof dst, "%s", port_file);
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%d\n", port) < 0 || fclose(f) != 0 || rename(tmp, dst) != 0) {
      fprintf(stderr, "kvserver: cannot write --port-file %s: %s\n", port_file, strerror(errno));
      return 1;
    }
  }
  fprintf(stderr, "kvserver: listening on %s:%d (%d threads, %lld keys)\n", bind_addr, port, threads, keys_total);
  int sig;
  sigwait(&stop, &sig);
  fprintf(stderr, "kvserver: stopping (%s)\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
  /* exit closes the heap: running regions get AMBER_EXIT_WAIT to end; a
   * command cut off there never answered, and recovery drops it. */
  exit(0);
}
