/* pmdk/bptree.h: ../bptree.h ported to libpmemobj, shared by pmdk/bptree.c
 * and pmdk/ycsb.c.  The same B+-tree (fan-out F chosen at run time, 4..1024;
 * insertion with splits, removal with borrow from or merge with a sibling
 * and root collapse, lookup, scans along the leaf chain; the same minimums
 * and the same node layout and size), with every link a pool offset (0 for
 * none) instead of a pointer: a node's next leaf, an inner node's children,
 * the tree's root.  Leaf values are 8-byte words (pmdk/ycsb.c stores its
 * values' pool offsets in them).
 *
 * The updates run inside the caller's TX_BEGIN/TX_END (one per operation,
 * under the driver's writer lock): each snapshots every persistent range of
 * an existing node with pmemobj_tx_add_range_direct before changing it,
 * allocates with pmemobj_tx_alloc (a new node is not snapshotted: an abort
 * frees it) and frees with pmemobj_tx_free, and counts every byte it stores
 * with BENCH_STORED (a new node's initialisation included).  Lookups and
 * scans read without a transaction, under the reader lock.
 *
 * Before any of it: pbt_attach(pop, pmemobj_root(pop, ...)) once the pool is
 * open. */
#ifndef AMBER_PMDK_BPTREE_H
#define AMBER_PMDK_BPTREE_H

#include <libpmemobj.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define BPT_MIN_FANOUT 4
#define BPT_MAX_FANOUT 1024
#define BPT_MAX_DEPTH 64 /* with at least 2 children per inner node, enough for any pool */
#define PBT_TYPE_NODE 1  /* pmemobj type numbers of the tree's nodes */

struct pbt_node {
  int leaf;      /* 1: leaf (values), 0: inner node (children) */
  int n;         /* keys held */
  uint64_t next; /* leaves: the next leaf's pool offset, 0 at the end */
  long key[];    /* F+1 keys, then F+1 slots (pbt_slot) */
};

/* Lives in the pool (inside the program's root object). */
struct pbt {
  long fanout;
  uint64_t root; /* pool offset; never 0 once pbt_init ran */
};

/* The pool's mapping (offsets are relative to it) and its id (an offset and
 * the id make the PMEMoid pmemobj_tx_free wants). */
static char *pbt_base;
static uint64_t pbt_uuid_lo;

static inline void pbt_attach(PMEMobjpool *pop, PMEMoid root) {
  pbt_base = (char *)pop;
  pbt_uuid_lo = root.pool_uuid_lo;
}
static inline void *pbt_ptr(uint64_t off) { return off ? pbt_base + off : NULL; }
static inline uint64_t pbt_off(const void *p) { return p ? (uint64_t)((const char *)p - pbt_base) : 0; }
static inline PMEMoid pbt_oid(const void *p) {
  PMEMoid o = {pbt_uuid_lo, pbt_off(p)};
  return o;
}

static inline size_t pbt_node_size(long f) {
  return sizeof(struct pbt_node) + (size_t)(f + 1) * (sizeof(long) + sizeof(uint64_t));
}
/* Leaves: values[0..n-1]; inner nodes: children[0..n] (pool offsets). */
static inline uint64_t *pbt_slot(const struct pbt *t, struct pbt_node *x) { return (uint64_t *)(x->key + t->fanout + 1); }
static inline struct pbt_node *pbt_child(const struct pbt *t, struct pbt_node *x, int i) {
  return (struct pbt_node *)pbt_ptr(pbt_slot(t, x)[i]);
}
static inline int pbt_leaf_min(const struct pbt *t) { return (int)(t->fanout / 2); }
static inline int pbt_inner_min(const struct pbt *t) { return (int)((t->fanout + 1) / 2); } /* children */

/* In a transaction: stores v into the persistent lvalue lv of an existing
 * object (snapshotted first), or of one allocated in this transaction
 * (PBT_INIT: nothing to snapshot).  Both count the bytes stored. */
#define PBT_SET(lv, v)                                         \
  do {                                                         \
    pmemobj_tx_add_range_direct(&(lv), sizeof(lv));            \
    BENCH_STORED(sizeof(lv));                                  \
    (lv) = (v);                                                \
  } while (0)
#define PBT_INIT(lv, v)       \
  do {                        \
    BENCH_STORED(sizeof(lv)); \
    (lv) = (v);               \
  } while (0)

/* In a transaction: snapshots n bytes at p of an existing object (none when
 * n is 0) and counts them as stored. */
static inline void pbt_touch(void *p, size_t n) {
  if (!n) return;
  pmemobj_tx_add_range_direct(p, n);
  BENCH_STORED(n);
}

/* In a transaction: a new node, its header initialised. */
static inline struct pbt_node *pbt_new_node(const struct pbt *t, int leaf) {
  struct pbt_node *x = pmemobj_direct(pmemobj_tx_alloc(pbt_node_size(t->fanout), PBT_TYPE_NODE));
  PBT_INIT(x->leaf, leaf);
  PBT_INIT(x->n, 0);
  PBT_INIT(x->next, 0);
  return x;
}
static inline void pbt_free(struct pbt_node *x) { pmemobj_tx_free(pbt_oid(x)); }

/* In a transaction, t in the pool: an empty tree (one empty leaf) of fan-out f. */
static inline void pbt_init(struct pbt *t, long f) {
  PBT_SET(t->fanout, f);
  struct pbt_node *x = pbt_new_node(t, 1);
  PBT_SET(t->root, pbt_off(x));
}

/* First index i in x->key[0..n-1] with key < x->key[i] (upper bound). */
static inline int pbt_upper(const struct pbt_node *x, long key) {
  int lo = 0, hi = x->n;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (key < x->key[mid]) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
/* First index i with x->key[i] >= key (lower bound). */
static inline int pbt_lower(const struct pbt_node *x, long key) {
  int lo = 0, hi = x->n;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (x->key[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static inline struct pbt_node *pbt_find_leaf(const struct pbt *t, long key) {
  struct pbt_node *x = pbt_ptr(t->root);
  while (!x->leaf) x = pbt_child(t, x, pbt_upper(x, key));
  return x;
}

/* The value slot of key, or NULL when absent (a store through it replaces
 * the value: PBT_SET, in a transaction). */
static inline uint64_t *pbt_find(const struct pbt *t, long key) {
  struct pbt_node *x = pbt_find_leaf(t, key);
  int i = pbt_lower(x, key);
  return i < x->n && x->key[i] == key ? &pbt_slot(t, x)[i] : NULL;
}

/* Range scans along the leaf chain:
 *   for (pbt_seek(t, start, &it); pbt_more(&it); pbt_next(&it)) use it.x->key[it.i], pbt_slot(t, it.x)[it.i] */
struct pbt_iter {
  struct pbt_node *x;
  int i;
};
static inline int pbt_more(struct pbt_iter *it) {
  while (it->x && it->i >= it->x->n) {
    it->x = pbt_ptr(it->x->next);
    it->i = 0;
  }
  return it->x != NULL;
}
static inline void pbt_seek(const struct pbt *t, long start, struct pbt_iter *it) {
  it->x = pbt_find_leaf(t, start);
  it->i = pbt_lower(it->x, start);
}
static inline void pbt_next(struct pbt_iter *it) { it->i++; }

/* In a transaction: opens a gap at key i and slot si of x (x->n keys, nslots
 * slots), which the caller then fills (key and slot both).  An existing node
 * (old) has the shifted ranges, gap included, snapshotted; the bytes are
 * counted either way, the gap's included. */
static inline void pbt_open(const struct pbt *t, struct pbt_node *x, int i, int si, int nslots, int old) {
  uint64_t *s = pbt_slot(t, x);
  size_t kb = (size_t)(x->n - i + 1) * sizeof(long), sb = (size_t)(nslots - si + 1) * sizeof(uint64_t);
  if (old) {
    pbt_touch(&x->key[i], kb);
    pbt_touch(&s[si], sb);
  } else {
    BENCH_STORED(kb + sb);
  }
  memmove(&x->key[i + 1], &x->key[i], (size_t)(x->n - i) * sizeof(long));
  memmove(&s[si + 1], &s[si], (size_t)(nslots - si) * sizeof(uint64_t));
}
/* In a transaction: closes the gap at key i and slot si of an existing node. */
static inline void pbt_close(const struct pbt *t, struct pbt_node *x, int i, int si, int nslots) {
  uint64_t *s = pbt_slot(t, x);
  size_t kb = (size_t)(x->n - i - 1) * sizeof(long), sb = (size_t)(nslots - si - 1) * sizeof(uint64_t);
  pbt_touch(&x->key[i], kb);
  pbt_touch(&s[si], sb);
  memmove(&x->key[i], &x->key[i + 1], kb);
  memmove(&s[si], &s[si + 1], sb);
}
/* In a transaction: copies n entries into the fresh node dst (or, old, an
 * existing one: snapshotted first). */
static inline void pbt_copy(void *dst, const void *src, size_t n, int old) {
  if (old) pbt_touch(dst, n);
  else BENCH_STORED(n);
  memcpy(dst, src, n);
}

/* In a transaction, t in the pool: inserts key -> val; 0 (and nothing
 * changed) when key is present. */
static inline int pbt_insert(struct pbt *t, long key, uint64_t val) {
  struct pbt_node *path[BPT_MAX_DEPTH];
  int idx[BPT_MAX_DEPTH], d = 0;
  struct pbt_node *x = pbt_ptr(t->root);
  while (!x->leaf) {
    int i = pbt_upper(x, key);
    path[d] = x;
    idx[d++] = i;
    x = pbt_child(t, x, i);
  }
  int i = pbt_lower(x, key);
  if (i < x->n && x->key[i] == key) return 0;
  pbt_open(t, x, i, i, x->n, 1);
  x->key[i] = key;
  pbt_slot(t, x)[i] = val;
  PBT_SET(x->n, x->n + 1);
  if (x->n <= t->fanout) return 1;
  /* The leaf overflowed (F+1 entries): the upper half moves to a new right
   * neighbour whose first key becomes the separator. */
  struct pbt_node *r = pbt_new_node(t, 1);
  int keep = (x->n + 1) / 2;
  PBT_INIT(r->n, x->n - keep);
  pbt_copy(r->key, &x->key[keep], (size_t)r->n * sizeof(long), 0);
  pbt_copy(pbt_slot(t, r), &pbt_slot(t, x)[keep], (size_t)r->n * sizeof(uint64_t), 0);
  PBT_SET(x->n, keep);
  PBT_INIT(r->next, x->next);
  PBT_SET(x->next, pbt_off(r));
  long sep = r->key[0];
  /* Insert (sep, r) into the parents, splitting those that overflow. */
  while (d > 0) {
    struct pbt_node *p = path[--d];
    int at = idx[d];
    pbt_open(t, p, at, at + 1, p->n + 1, 1);
    p->key[at] = sep;
    pbt_slot(t, p)[at + 1] = pbt_off(r);
    PBT_SET(p->n, p->n + 1);
    if (p->n + 1 <= t->fanout) return 1;
    /* F+1 children: the left keeps ceil((F+1)/2), the middle key goes up. */
    struct pbt_node *q = pbt_new_node(t, 0);
    int lc = (p->n + 2) / 2; /* children kept */
    sep = p->key[lc - 1];
    PBT_INIT(q->n, p->n - lc);
    pbt_copy(q->key, &p->key[lc], (size_t)q->n * sizeof(long), 0);
    pbt_copy(pbt_slot(t, q), &pbt_slot(t, p)[lc], (size_t)(q->n + 1) * sizeof(uint64_t), 0);
    PBT_SET(p->n, lc - 1);
    r = q;
  }
  /* The root split: a new root above it. */
  struct pbt_node *nr = pbt_new_node(t, 0);
  PBT_INIT(nr->n, 1);
  PBT_INIT(nr->key[0], sep);
  PBT_INIT(pbt_slot(t, nr)[0], t->root);
  PBT_INIT(pbt_slot(t, nr)[1], pbt_off(r));
  PBT_SET(t->root, pbt_off(nr));
  return 1;
}

/* In a transaction, t in the pool: removes key; 1 when it was present, its
 * value in *val.  An underfull node borrows from a sibling (left first) when
 * that one can spare an entry, else merges with it; a root inner node left
 * with one child is replaced by it. */
static inline int pbt_remove(struct pbt *t, long key, uint64_t *val) {
  struct pbt_node *path[BPT_MAX_DEPTH];
  int idx[BPT_MAX_DEPTH], d = 0;
  struct pbt_node *x = pbt_ptr(t->root);
  while (!x->leaf) {
    int i = pbt_upper(x, key);
    path[d] = x;
    idx[d++] = i;
    x = pbt_child(t, x, i);
  }
  int i = pbt_lower(x, key);
  if (i >= x->n || x->key[i] != key) return 0;
  if (val) *val = pbt_slot(t, x)[i];
  pbt_close(t, x, i, i, x->n);
  PBT_SET(x->n, x->n - 1);
  /* x is underfull when it is below its minimum and not the root. */
  while (d > 0) {
    int min = x->leaf ? pbt_leaf_min(t) : pbt_inner_min(t) - 1; /* in keys */
    if (x->n >= min) return 1;
    struct pbt_node *p = path[--d];
    int at = idx[d];
    uint64_t *ps = pbt_slot(t, p);
    struct pbt_node *l = at > 0 ? pbt_ptr(ps[at - 1]) : NULL;
    struct pbt_node *r = at < p->n ? pbt_ptr(ps[at + 1]) : NULL;
    uint64_t *xs = pbt_slot(t, x);
    if (l && l->n > min) {
      /* Borrow l's last entry. */
      uint64_t *ls = pbt_slot(t, l);
      if (x->leaf) {
        pbt_open(t, x, 0, 0, x->n, 1);
        x->key[0] = l->key[l->n - 1];
        xs[0] = ls[l->n - 1];
        PBT_SET(p->key[at - 1], x->key[0]);
      } else {
        pbt_open(t, x, 0, 0, x->n + 1, 1);
        x->key[0] = p->key[at - 1];
        xs[0] = ls[l->n];
        PBT_SET(p->key[at - 1], l->key[l->n - 1]);
      }
      PBT_SET(x->n, x->n + 1);
      PBT_SET(l->n, l->n - 1);
      return 1;
    }
    if (r && r->n > min) {
      /* Borrow r's first entry. */
      uint64_t *rs = pbt_slot(t, r);
      if (x->leaf) {
        PBT_SET(x->key[x->n], r->key[0]);
        PBT_SET(xs[x->n], rs[0]);
        pbt_close(t, r, 0, 0, r->n);
        PBT_SET(p->key[at], r->key[0]);
      } else {
        PBT_SET(x->key[x->n], p->key[at]);
        PBT_SET(xs[x->n + 1], rs[0]);
        PBT_SET(p->key[at], r->key[0]);
        pbt_close(t, r, 0, 0, r->n + 1);
      }
      PBT_SET(x->n, x->n + 1);
      PBT_SET(r->n, r->n - 1);
      return 1;
    }
    /* Merge with a sibling that has exactly the minimum: the right node of
     * the pair goes into the left one and leaves the parent. */
    int li = l ? at - 1 : at; /* the pair is children li, li+1 of p */
    struct pbt_node *a = l ? l : x, *b = l ? x : r;
    uint64_t *as = pbt_slot(t, a), *bs = pbt_slot(t, b);
    if (a->leaf) {
      pbt_copy(&a->key[a->n], b->key, (size_t)b->n * sizeof(long), 1);
      pbt_copy(&as[a->n], bs, (size_t)b->n * sizeof(uint64_t), 1);
      PBT_SET(a->n, a->n + b->n);
      PBT_SET(a->next, b->next);
    } else {
      PBT_SET(a->key[a->n], p->key[li]);
      pbt_copy(&a->key[a->n + 1], b->key, (size_t)b->n * sizeof(long), 1);
      pbt_copy(&as[a->n + 1], bs, (size_t)(b->n + 1) * sizeof(uint64_t), 1);
      PBT_SET(a->n, a->n + b->n + 1);
    }
    pbt_free(b);
    pbt_close(t, p, li, li + 1, p->n + 1);
    PBT_SET(p->n, p->n - 1);
    x = p;
  }
  /* x is the root. */
  if (!x->leaf && x->n == 0) {
    PBT_SET(t->root, pbt_slot(t, x)[0]);
    pbt_free(x);
  }
  return 1;
}

/* ---- checking (outside transactions, on a quiescent tree) --------------- */
/* Usable bytes of the pool object at p. */
static inline long pbt_obj_bytes(const void *p) { return (long)pmemobj_alloc_usable_size(pbt_oid(p)); }

/* Adds the nodes reachable from x to *nodes and their usable bytes to *bytes
 * (silently stops below BPT_MAX_DEPTH). */
static inline void pbt_usage(const struct pbt *t, struct pbt_node *x, int dep, long *nodes, long *bytes) {
  if (!x || dep >= BPT_MAX_DEPTH) return;
  ++*nodes;
  *bytes += pbt_obj_bytes(x);
  if (!x->leaf && x->n >= 0 && x->n < t->fanout)
    for (int i = 0; i <= x->n; i++) pbt_usage(t, pbt_child(t, x, i), dep + 1, nodes, bytes);
}

struct pbt_stats {
  long entries, nodes, leaves, height;
  long bad;              /* broken invariants */
  struct pbt_node *prev; /* last leaf seen in key order */
  long last;             /* its last key */
  int have_last;
};

static inline void pbt_bad(struct pbt_stats *s, const char *what, const struct pbt_node *x) {
  if (s->bad++ < 10) fprintf(stderr, "bptree: %s (node at offset %llu)\n", what, (unsigned long long)pbt_off(x));
}

/* Walks the subtree at x at depth dep; every key must lie in [lo, hi), an
 * absent bound given by has_lo / has_hi = 0. */
static inline void pbt_check_node(const struct pbt *t, struct pbt_node *x, int dep, long lo, int has_lo, long hi, int has_hi,
                                  struct pbt_stats *s) {
  if (dep >= BPT_MAX_DEPTH) {
    pbt_bad(s, "deeper than any tree can be (a cycle?)", x);
    return;
  }
  s->nodes++;
  int root = pbt_off(x) == t->root;
  if (x->leaf != 0 && x->leaf != 1) pbt_bad(s, "bad node kind", x);
  if (x->n < 0 || x->n > (x->leaf ? t->fanout : t->fanout - 1)) {
    pbt_bad(s, "entry count out of range", x);
    return;
  }
  if (!root && x->n < (x->leaf ? pbt_leaf_min(t) : pbt_inner_min(t) - 1)) pbt_bad(s, "underfull node", x);
  if (root && !x->leaf && x->n < 1) pbt_bad(s, "inner root with one child", x);
  for (int i = 0; i < x->n; i++) {
    if (i > 0 && x->key[i] <= x->key[i - 1]) pbt_bad(s, "keys not increasing within a node", x);
    if ((has_lo && x->key[i] < lo) || (has_hi && x->key[i] >= hi)) pbt_bad(s, "key outside its separators' range", x);
  }
  if (x->leaf) {
    if (s->height < 0) s->height = dep;
    else if (s->height != dep) pbt_bad(s, "leaves at different depths", x);
    if (s->prev && s->prev->next != pbt_off(x)) pbt_bad(s, "leaf chain skips or reorders a leaf", x);
    if (x->n && s->have_last && x->key[0] <= s->last) pbt_bad(s, "keys not increasing across leaves", x);
    if (x->n) {
      s->last = x->key[x->n - 1];
      s->have_last = 1;
    }
    s->prev = x;
    s->leaves++;
    s->entries += x->n;
    return;
  }
  for (int i = 0; i <= x->n; i++) {
    struct pbt_node *c = pbt_child(t, x, i);
    if (!c) {
      pbt_bad(s, "null child", x);
      continue;
    }
    pbt_check_node(t, c, dep + 1, i > 0 ? x->key[i - 1] : lo, i > 0 || has_lo, i < x->n ? x->key[i] : hi, i < x->n || has_hi, s);
  }
}

/* Every invariant of ../bptree.h's header comment: returns the entries
 * counted and adds the broken ones to *bad (naming the first ten on stderr).
 * max_entries bounds the chain walk (a cycle). */
static inline long pbt_check(const struct pbt *t, long max_entries, long *bad) {
  struct pbt_stats s = {0, 0, 0, -1, 0, NULL, 0, 0};
  if (t->fanout < BPT_MIN_FANOUT || t->fanout > BPT_MAX_FANOUT || !t->root) {
    ++*bad;
    return 0;
  }
  pbt_check_node(t, pbt_ptr(t->root), 0, 0, 0, 0, 0, &s);
  if (s.prev && s.prev->next) pbt_bad(&s, "the last leaf has a next leaf", s.prev);
  /* The chain on its own, from the leftmost leaf: every key once, in order. */
  struct pbt_node *x = pbt_ptr(t->root);
  for (int dep = 0; !x->leaf && dep < BPT_MAX_DEPTH; dep++) x = pbt_child(t, x, 0);
  long chained = 0, last = 0;
  int have = 0;
  for (; x && chained <= max_entries; x = pbt_ptr(x->next)) {
    for (int i = 0; i < x->n && i <= t->fanout; i++, chained++) {
      if (have && x->key[i] <= last) pbt_bad(&s, "leaf chain out of order", x);
      last = x->key[i];
      have = 1;
    }
  }
  if (chained != s.entries) pbt_bad(&s, "leaf chain and tree hold different entry counts", pbt_ptr(t->root));
  *bad += s.bad;
  return s.entries;
}

#endif /* AMBER_PMDK_BPTREE_H */
