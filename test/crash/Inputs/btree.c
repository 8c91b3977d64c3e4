/* Crash-test workload: a persistent B-tree of minimum degree 2 (order 4: 1 to
 * 3 keys and up to 4 children per node), so nodes split after a few inserts
 * and merge or borrow after a few deletes.
 *
 * Operation i (from 1) is derived from the seed alone: it inserts a key, or
 * (1 in 3, after the first 8) deletes the key of an earlier operation, in
 * one AMBER_ATOMIC region that allocates and frees nodes (malloc/free),
 * keeps a count field and advances the operation counter.  After a crash
 * the tree must hold exactly the key set of the first `ops` operations, and
 * the harness compares `ops` with the acknowledged commits.
 *
 *   btree run N [SEED]  do operations up to N, printing "ack I" after each
 *                       commit; SEED (default 1) is fixed by the first run
 *   btree check         verify every B-tree invariant and the key set;
 *                       prints "progress: P", "keys: K", "nodes: M",
 *                       "height: H", "leaked-bytes: B" and "check: ok", or
 *                       "check: FAILED <why>" and exits 1
 */
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T 2              /* minimum degree */
#define MAXK (2 * T - 1) /* keys per node, at most */
#define KEYSPACE 1024
#define MAXDEPTH 32      /* far above any height KEYSPACE keys can reach */

/* 80 bytes, a size class of the allocator, so the leak check can count
 * bytes.  `tag` is a hash of everything else in use: a torn node shows. */
struct bnode {
  long n;    /* keys in use */
  long leaf; /* 1: no children */
  long keys[MAXK];
  struct bnode *child[2 * T];
  long tag;
};
_Static_assert(sizeof(struct bnode) == 80, "a node is one 80-byte size class");

struct tree {
  long initialised;
  long seed;
  long ops;         /* operations committed */
  long count;       /* keys in the tree */
  long base_bytes;  /* persistent bytes in use before any node existed */
  struct bnode *root; /* NULL when empty; else 1..MAXK keys */
};

static unsigned long mix(unsigned long x) {
  x += 0x9E3779B97F4A7C15ul;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ul;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBul;
  return x ^ (x >> 31);
}

/* ---- the operation sequence ---- */

static long new_key(long s, long i) { return (long)(mix((unsigned long)s * 1000003ul + (unsigned long)i) % KEYSPACE); }
/* The first GROW operations insert, so even a short run splits nodes. */
#define GROW 8
static int op_deletes(long s, long i) { return i > GROW && (mix((unsigned long)s * 7919ul + (unsigned long)i) >> 20) % 3 == 0; }

/* The key operation i works on: a new one for an insert, an earlier
 * operation's key for a delete (so most deletes find their key). */
static long op_key(long s, long i) {
  if (!op_deletes(s, i)) return new_key(s, i);
  long j = 1 + (long)(mix((unsigned long)s * 31337ul + (unsigned long)i) % (unsigned long)(i - 1));
  return new_key(s, j);
}

/* ---- nodes ---- */

static long tag_of(const struct bnode *x) {
  unsigned long h = mix((unsigned long)x->n * 2 + (unsigned long)x->leaf);
  for (long i = 0; i < x->n && i < MAXK; i++) h = mix(h ^ (unsigned long)x->keys[i]);
  if (!x->leaf)
    for (long i = 0; i <= x->n && i <= MAXK; i++) h = mix(h ^ (unsigned long)x->child[i]);
  return (long)h;
}

/* Every function that changes a node seals it before it returns. */
static void seal(struct bnode *x) { x->tag = tag_of(x); }

static struct bnode *new_node(long leaf) {
  struct bnode *x = malloc(sizeof *x);
  memset(x, 0, sizeof *x);
  x->leaf = leaf;
  return x;
}

/* ---- insert (CLRS, splitting full nodes on the way down) ---- */

/* x is not full, x->child[i] is: split it around its middle key. */
static void split_child(struct bnode *x, long i) {
  struct bnode *y = x->child[i], *z = new_node(y->leaf);
  z->n = T - 1;
  for (long j = 0; j < T - 1; j++) z->keys[j] = y->keys[j + T];
  if (!y->leaf)
    for (long j = 0; j < T; j++) z->child[j] = y->child[j + T];
  for (long j = x->n; j > i; j--) x->child[j + 1] = x->child[j];
  x->child[i + 1] = z;
  for (long j = x->n - 1; j >= i; j--) x->keys[j + 1] = x->keys[j];
  x->keys[i] = y->keys[T - 1];
  x->n++;
  y->n = T - 1;
  seal(y);
  seal(z);
  seal(x);
}

static void insert_nonfull(struct bnode *x, long k) {
  long i = x->n - 1;
  if (x->leaf) {
    for (; i >= 0 && k < x->keys[i]; i--) x->keys[i + 1] = x->keys[i];
    x->keys[i + 1] = k;
    x->n++;
    seal(x);
    return;
  }
  while (i >= 0 && k < x->keys[i]) i--;
  i++;
  if (x->child[i]->n == MAXK) {
    split_child(x, i);
    if (k > x->keys[i]) i++;
  }
  insert_nonfull(x->child[i], k);
}

static void insert(struct tree *t, long k) {
  struct bnode *r = t->root;
  if (!r) {
    r = new_node(1);
    r->n = 1;
    r->keys[0] = k;
    seal(r);
    t->root = r;
  } else if (r->n == MAXK) {
    struct bnode *s = new_node(0);
    s->child[0] = r;
    t->root = s;
    split_child(s, 0);
    insert_nonfull(s, k);
  } else {
    insert_nonfull(r, k);
  }
  t->count++;
}

/* ---- delete (CLRS: never descend into a node with only T-1 keys) ---- */

/* Moves x->keys[i] and all of x->child[i+1] into x->child[i]; frees the
 * emptied right child. */
static void merge(struct bnode *x, long i) {
  struct bnode *y = x->child[i], *z = x->child[i + 1];
  y->keys[y->n] = x->keys[i];
  for (long j = 0; j < z->n; j++) y->keys[y->n + 1 + j] = z->keys[j];
  if (!y->leaf)
    for (long j = 0; j <= z->n; j++) y->child[y->n + 1 + j] = z->child[j];
  y->n += 1 + z->n;
  for (long j = i; j < x->n - 1; j++) x->keys[j] = x->keys[j + 1];
  for (long j = i + 1; j < x->n; j++) x->child[j] = x->child[j + 1];
  x->child[x->n] = NULL;
  x->n--;
  free(z);
  seal(y);
  seal(x);
}

/* x->child[i] gets one key from its left sibling through x. */
static void borrow_left(struct bnode *x, long i) {
  struct bnode *c = x->child[i], *l = x->child[i - 1];
  for (long j = c->n - 1; j >= 0; j--) c->keys[j + 1] = c->keys[j];
  if (!c->leaf)
    for (long j = c->n; j >= 0; j--) c->child[j + 1] = c->child[j];
  c->keys[0] = x->keys[i - 1];
  if (!c->leaf) c->child[0] = l->child[l->n];
  x->keys[i - 1] = l->keys[l->n - 1];
  l->child[l->n] = NULL;
  l->n--;
  c->n++;
  seal(c);
  seal(l);
  seal(x);
}

/* x->child[i] gets one key from its right sibling through x. */
static void borrow_right(struct bnode *x, long i) {
  struct bnode *c = x->child[i], *r = x->child[i + 1];
  c->keys[c->n] = x->keys[i];
  if (!c->leaf) c->child[c->n + 1] = r->child[0];
  x->keys[i] = r->keys[0];
  for (long j = 0; j < r->n - 1; j++) r->keys[j] = r->keys[j + 1];
  if (!r->leaf)
    for (long j = 0; j < r->n; j++) r->child[j] = r->child[j + 1];
  r->child[r->n] = NULL;
  r->n--;
  c->n++;
  seal(c);
  seal(r);
  seal(x);
}

static long max_key(struct bnode *x) {
  while (!x->leaf) x = x->child[x->n];
  return x->keys[x->n - 1];
}

static long min_key(struct bnode *x) {
  while (!x->leaf) x = x->child[0];
  return x->keys[0];
}

/* Deletes k, which is in the subtree of x; x has at least T keys or is the
 * root. */
static void delete_from(struct bnode *x, long k) {
  long i = 0;
  while (i < x->n && x->keys[i] < k) i++;
  if (x->leaf) { /* k is here */
    for (long j = i; j < x->n - 1; j++) x->keys[j] = x->keys[j + 1];
    x->n--;
    seal(x);
    return;
  }
  if (i < x->n && x->keys[i] == k) {
    if (x->child[i]->n >= T) {
      long p = max_key(x->child[i]);
      x->keys[i] = p;
      seal(x);
      delete_from(x->child[i], p);
    } else if (x->child[i + 1]->n >= T) {
      long s = min_key(x->child[i + 1]);
      x->keys[i] = s;
      seal(x);
      delete_from(x->child[i + 1], s);
    } else {
      merge(x, i);
      delete_from(x->child[i], k);
    }
    return;
  }
  if (x->child[i]->n == T - 1) {
    if (i > 0 && x->child[i - 1]->n >= T) {
      borrow_left(x, i);
    } else if (i < x->n && x->child[i + 1]->n >= T) {
      borrow_right(x, i);
    } else {
      if (i == x->n) i--; /* the last child merges with its left sibling */
      merge(x, i);
    }
  }
  delete_from(x->child[i], k);
}

static void delete(struct tree *t, long k) {
  struct bnode *r = t->root;
  delete_from(r, k);
  if (r->n == 0) { /* the root shrank away: the tree loses a level */
    t->root = r->leaf ? NULL : r->child[0];
    free(r);
  }
  t->count--;
}

static int contains(const struct bnode *x, long k) {
  while (x) {
    long i = 0;
    while (i < x->n && x->keys[i] < k) i++;
    if (i < x->n && x->keys[i] == k) return 1;
    x = x->leaf ? NULL : x->child[i];
  }
  return 0;
}

/* ---- the workload ---- */

static struct tree *open_tree(long seed) {
  struct tree *t = amber_root(sizeof *t);
  if (!t->initialised) {
    struct amber_usage u;
    amber_usage(&u); /* outside the region: the root alone */
    AMBER_ATOMIC {
      t->seed = seed;
      t->base_bytes = (long)u.bytes;
      t->initialised = 1;
    }
  }
  return t;
}

/* One operation, one transaction.  Inserting a present key or deleting an
 * absent one changes nothing but the operation counter. */
static void apply(struct tree *t, long i) {
  long k = op_key(t->seed, i);
  int del = op_deletes(t->seed, i);
  AMBER_ATOMIC {
    int present = contains(t->root, k);
    if (!del && !present) insert(t, k);
    if (del && present) delete(t, k);
    t->ops = i;
  }
}

/* ---- the check ---- */

struct walk {
  long nodes, keys, leaf_depth;
  char seen[KEYSPACE];
  const char *why;
  long at; /* the key (or count) the failure is about */
};

static int bad(struct walk *w, const char *why, long at) {
  if (!w->why) {
    w->why = why;
    w->at = at;
  }
  return 0;
}

/* Verifies the subtree of x, whose keys must lie strictly between lo and
 * hi.  Returns 0 after recording the first broken invariant in w. */
static int walk(struct walk *w, const struct bnode *x, long lo, long hi, long depth, int is_root) {
  if (depth > MAXDEPTH) return bad(w, "deeper than any B-tree of KEYSPACE keys: a cycle", depth);
  if (++w->nodes > KEYSPACE) return bad(w, "more nodes than keys: a cycle or shared node", w->nodes);
  if (x->n < (is_root ? 1 : T - 1) || x->n > MAXK) return bad(w, "key count out of bounds", x->n);
  if (x->leaf != 0 && x->leaf != 1) return bad(w, "leaf flag neither 0 nor 1", x->leaf);
  if (x->tag != tag_of(x)) return bad(w, "torn node: tag does not match", x->keys[0]);
  for (long i = 0; i < x->n; i++) {
    long k = x->keys[i], below = i ? x->keys[i - 1] : lo;
    if (k <= below || k >= hi) return bad(w, "key out of order (in its node or against a separator)", k);
    if (k < 0 || k >= KEYSPACE) return bad(w, "key out of range", k);
    if (w->seen[k]) return bad(w, "key present twice", k);
    w->seen[k] = 1;
  }
  w->keys += x->n;
  if (x->leaf) {
    for (long i = 0; i <= MAXK; i++)
      if (x->child[i]) return bad(w, "leaf with a child pointer", x->keys[0]);
    if (w->leaf_depth < 0) w->leaf_depth = depth;
    if (depth != w->leaf_depth) return bad(w, "leaves at different depths", depth);
    return 1;
  }
  /* Child i holds the keys between separators i-1 and i. */
  for (long i = 0; i <= x->n; i++) {
    if (!x->child[i]) return bad(w, "internal node with a missing child", x->keys[0]);
    long clo = i == 0 ? lo : x->keys[i - 1], chi = i == x->n ? hi : x->keys[i];
    if (!walk(w, x->child[i], clo, chi, depth + 1, 0)) return 0;
  }
  return 1;
}

static int failed(const char *why, long at) {
  printf("check: FAILED %s (%ld)\n", why, at);
  return 1;
}

static int check(struct tree *t) {
  struct walk w;
  memset(&w, 0, sizeof w);
  w.leaf_depth = -1;
  printf("progress: %ld\n", t->ops);
  if (t->root && !walk(&w, t->root, -1, KEYSPACE, 0, 1)) return failed(w.why, w.at);
  printf("keys: %ld\nnodes: %ld\nheight: %ld\n", w.keys, w.nodes, w.leaf_depth + 1);
  if (w.keys != t->count) return failed("count field differs from the keys", t->count);
  /* The key set of the first `ops` operations, recomputed from the seed. */
  char want[KEYSPACE] = {0};
  for (long i = 1; i <= t->ops; i++) want[op_key(t->seed, i)] = (char)!op_deletes(t->seed, i);
  for (long k = 0; k < KEYSPACE; k++)
    if (w.seen[k] != want[k]) return failed(want[k] ? "key missing" : "key that should be absent", k);
  struct amber_usage u;
  amber_usage(&u);
  long leaked = (long)u.bytes - t->base_bytes - w.nodes * (long)sizeof(struct bnode);
  printf("leaked-bytes: %ld\n", leaked);
  if (leaked != 0) return failed("persistent bytes not reachable from the root", leaked);
  printf("check: ok\n");
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 3 && !strcmp(argv[1], "run")) {
    struct tree *t = open_tree(argc > 3 ? atol(argv[3]) : 1);
    for (long i = t->ops + 1; i <= atol(argv[2]); i++) {
      apply(t, i);
      printf("ack %ld\n", i);
      fflush(stdout);
    }
    return 0;
  }
  if (argc == 2 && !strcmp(argv[1], "check")) return check(open_tree(1));
  fprintf(stderr, "usage: btree run N [SEED] | btree check\n");
  return 2;
}
