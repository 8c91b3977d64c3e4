/* bptree.h: a B+-tree of long keys and pointer-sized values with a fan-out
 * chosen at run time, shared by bench/bptree.c and bench/ycsb.c.
 *
 * Fan-out F (4..1024): an inner node has at most F children (F-1 separator
 * keys), a leaf at most F entries.  Every node but the root holds at least
 * half: a leaf F/2 entries, an inner node (F+1)/2 children; the root is a
 * leaf (possibly empty) or an inner node with at least 2 children.  Keys
 * equal to a separator live in the right subtree: every key under child i
 * lies in [sep[i-1], sep[i]).  Leaves are chained in key order.
 *
 * Leaves and inner nodes are one allocation size (bpt_node_size), with room
 * for one entry more than they may keep: an insertion goes in first and the
 * node splits after, a removal merges or borrows after.  The functions here
 * only touch memory; the caller wraps each operation in one region (the
 * B+-tree code runs inside it and returns normally).  Nodes come from
 * malloc/free, i.e. the persistent heap under amber-cc and the counted
 * wrappers of bench.h in the volatile build. */
#ifndef AMBER_BPTREE_H
#define AMBER_BPTREE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BPT_MIN_FANOUT 4
#define BPT_MAX_FANOUT 1024
#define BPT_MAX_DEPTH 64 /* with at least 2 children per inner node, enough for any heap */

struct bpt_node {
  int leaf; /* 1: leaf (vals), 0: inner node (children) */
  int n;    /* keys held */
  struct bpt_node *next; /* leaves: the next leaf in key order, NULL at the end */
  long key[];            /* F+1 keys, then F+1 slots (bpt_slot) */
};

struct bpt {
  long fanout;
  struct bpt_node *root; /* never NULL once bpt_init ran */
};

static inline size_t bpt_node_size(long f) {
  return sizeof(struct bpt_node) + (size_t)(f + 1) * (sizeof(long) + sizeof(uintptr_t));
}
/* Leaves: vals[0..n-1]; inner nodes: children[0..n] (as uintptr_t). */
static inline uintptr_t *bpt_slot(const struct bpt *t, struct bpt_node *x) { return (uintptr_t *)(x->key + t->fanout + 1); }
static inline struct bpt_node *bpt_child(const struct bpt *t, struct bpt_node *x, int i) {
  return (struct bpt_node *)bpt_slot(t, x)[i];
}
static inline int bpt_leaf_min(const struct bpt *t) { return (int)(t->fanout / 2); }
static inline int bpt_inner_min(const struct bpt *t) { return (int)((t->fanout + 1) / 2); } /* children */

static inline struct bpt_node *bpt_new_node(const struct bpt *t, int leaf) {
  struct bpt_node *x = malloc(bpt_node_size(t->fanout));
  x->leaf = leaf;
  x->n = 0;
  x->next = NULL;
  return x;
}

/* In a region: an empty tree (one empty leaf) of fan-out f. */
static inline void bpt_init(struct bpt *t, long f) {
  t->fanout = f;
  t->root = bpt_new_node(t, 1);
}

/* First index i in x->key[0..n-1] with key < x->key[i] (upper bound): the
 * child to descend into, or in a leaf the position after an equal key. */
static inline int bpt_upper(const struct bpt_node *x, long key) {
  int lo = 0, hi = x->n;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (key < x->key[mid]) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
/* First index i with x->key[i] >= key (lower bound). */
static inline int bpt_lower(const struct bpt_node *x, long key) {
  int lo = 0, hi = x->n;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (x->key[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static inline struct bpt_node *bpt_find_leaf(const struct bpt *t, long key) {
  struct bpt_node *x = t->root;
  while (!x->leaf) x = bpt_child(t, x, bpt_upper(x, key));
  return x;
}

/* The value slot of key, or NULL when absent (a store through it replaces the
 * value; in a region, as usual). */
static inline uintptr_t *bpt_find(const struct bpt *t, long key) {
  struct bpt_node *x = bpt_find_leaf(t, key);
  int i = bpt_lower(x, key);
  return i < x->n && x->key[i] == key ? &bpt_slot(t, x)[i] : NULL;
}

/* Range scans along the leaf chain:
 *   for (bpt_seek(t, start, &it); bpt_more(&it); bpt_next(&it)) use it.x->key[it.i], bpt_slot(t, it.x)[it.i]
 * visits the entries with keys >= start in order. */
struct bpt_iter {
  struct bpt_node *x;
  int i;
};
static inline int bpt_more(struct bpt_iter *it) {
  while (it->x && it->i >= it->x->n) {
    it->x = it->x->next;
    it->i = 0;
  }
  return it->x != NULL;
}
static inline void bpt_seek(const struct bpt *t, long start, struct bpt_iter *it) {
  it->x = bpt_find_leaf(t, start);
  it->i = bpt_lower(it->x, start);
}
static inline void bpt_next(struct bpt_iter *it) { it->i++; }

/* Opens a gap at position i of x's keys and of its slots (slot index si). */
static inline void bpt_open(const struct bpt *t, struct bpt_node *x, int i, int si, int nslots) {
  memmove(&x->key[i + 1], &x->key[i], (size_t)(x->n - i) * sizeof(long));
  uintptr_t *s = bpt_slot(t, x);
  memmove(&s[si + 1], &s[si], (size_t)(nslots - si) * sizeof(uintptr_t));
}
/* Closes the gap at key i and slot si. */
static inline void bpt_close(const struct bpt *t, struct bpt_node *x, int i, int si, int nslots) {
  memmove(&x->key[i], &x->key[i + 1], (size_t)(x->n - i - 1) * sizeof(long));
  uintptr_t *s = bpt_slot(t, x);
  memmove(&s[si], &s[si + 1], (size_t)(nslots - si - 1) * sizeof(uintptr_t));
}

/* Inserts key -> val; 0 (and nothing changed) when key is present. */
static inline int bpt_insert(struct bpt *t, long key, uintptr_t val) {
  struct bpt_node *path[BPT_MAX_DEPTH];
  int idx[BPT_MAX_DEPTH], d = 0;
  struct bpt_node *x = t->root;
  while (!x->leaf) {
    int i = bpt_upper(x, key);
    path[d] = x;
    idx[d++] = i;
    x = bpt_child(t, x, i);
  }
  int i = bpt_lower(x, key);
  if (i < x->n && x->key[i] == key) return 0;
  bpt_open(t, x, i, i, x->n);
  x->key[i] = key;
  bpt_slot(t, x)[i] = val;
  x->n++;
  if (x->n <= t->fanout) return 1;
  /* The leaf overflowed (F+1 entries): the upper half moves to a new right
   * neighbour whose first key becomes the separator. */
  struct bpt_node *r = bpt_new_node(t, 1);
  int keep = (x->n + 1) / 2;
  r->n = x->n - keep;
  memcpy(r->key, &x->key[keep], (size_t)r->n * sizeof(long));
  memcpy(bpt_slot(t, r), &bpt_slot(t, x)[keep], (size_t)r->n * sizeof(uintptr_t));
  x->n = keep;
  r->next = x->next;
  x->next = r;
  long sep = r->key[0];
  /* Insert (sep, r) into the parents, splitting those that overflow. */
  while (d > 0) {
    struct bpt_node *p = path[--d];
    int at = idx[d];
    bpt_open(t, p, at, at + 1, p->n + 1);
    p->key[at] = sep;
    bpt_slot(t, p)[at + 1] = (uintptr_t)r;
    p->n++;
    if (p->n + 1 <= t->fanout) return 1;
    /* F+1 children: the left keeps ceil((F+1)/2), the middle key goes up. */
    struct bpt_node *q = bpt_new_node(t, 0);
    int lc = (p->n + 2) / 2; /* children kept */
    sep = p->key[lc - 1];
    q->n = p->n - lc;
    memcpy(q->key, &p->key[lc], (size_t)q->n * sizeof(long));
    memcpy(bpt_slot(t, q), &bpt_slot(t, p)[lc], (size_t)(q->n + 1) * sizeof(uintptr_t));
    p->n = lc - 1;
    r = q;
  }
  /* The root split: a new root above it. */
  struct bpt_node *nr = bpt_new_node(t, 0);
  nr->n = 1;
  nr->key[0] = sep;
  bpt_slot(t, nr)[0] = (uintptr_t)t->root;
  bpt_slot(t, nr)[1] = (uintptr_t)r;
  t->root = nr;
  return 1;
}

/* Removes key; 1 when it was present, its value in *val.  An underfull node
 * borrows from a sibling (left first) when that one can spare an entry, else
 * merges with it; a root inner node left with one child is replaced by it. */
static inline int bpt_remove(struct bpt *t, long key, uintptr_t *val) {
  struct bpt_node *path[BPT_MAX_DEPTH];
  int idx[BPT_MAX_DEPTH], d = 0;
  struct bpt_node *x = t->root;
  while (!x->leaf) {
    int i = bpt_upper(x, key);
    path[d] = x;
    idx[d++] = i;
    x = bpt_child(t, x, i);
  }
  int i = bpt_lower(x, key);
  if (i >= x->n || x->key[i] != key) return 0;
  if (val) *val = bpt_slot(t, x)[i];
  bpt_close(t, x, i, i, x->n);
  x->n--;
  /* x is underfull when it is below its minimum and not the root. */
  while (d > 0) {
    int min = x->leaf ? bpt_leaf_min(t) : bpt_inner_min(t) - 1; /* in keys */
    if (x->n >= min) return 1;
    struct bpt_node *p = path[--d];
    int at = idx[d];
    uintptr_t *ps = bpt_slot(t, p);
    struct bpt_node *l = at > 0 ? (struct bpt_node *)ps[at - 1] : NULL;
    struct bpt_node *r = at < p->n ? (struct bpt_node *)ps[at + 1] : NULL;
    uintptr_t *xs = bpt_slot(t, x);
    if (l && l->n > min) {
      /* Borrow l's last entry. */
      uintptr_t *ls = bpt_slot(t, l);
      if (x->leaf) {
        bpt_open(t, x, 0, 0, x->n);
        x->key[0] = l->key[l->n - 1];
        xs[0] = ls[l->n - 1];
        p->key[at - 1] = x->key[0];
      } else {
        bpt_open(t, x, 0, 0, x->n + 1);
        x->key[0] = p->key[at - 1];
        xs[0] = ls[l->n];
        p->key[at - 1] = l->key[l->n - 1];
      }
      x->n++;
      l->n--;
      return 1;
    }
    if (r && r->n > min) {
      /* Borrow r's first entry. */
      uintptr_t *rs = bpt_slot(t, r);
      if (x->leaf) {
        x->key[x->n] = r->key[0];
        xs[x->n] = rs[0];
        bpt_close(t, r, 0, 0, r->n);
        p->key[at] = r->key[0];
      } else {
        x->key[x->n] = p->key[at];
        xs[x->n + 1] = rs[0];
        p->key[at] = r->key[0];
        bpt_close(t, r, 0, 0, r->n + 1);
      }
      x->n++;
      r->n--;
      return 1;
    }
    /* Merge with a sibling that has exactly the minimum: the right node of
     * the pair goes into the left one and leaves the parent. */
    int li = l ? at - 1 : at; /* the pair is children li, li+1 of p */
    struct bpt_node *a = l ? l : x, *b = l ? x : r;
    uintptr_t *as = bpt_slot(t, a), *bs = bpt_slot(t, b);
    if (a->leaf) {
      memcpy(&a->key[a->n], b->key, (size_t)b->n * sizeof(long));
      memcpy(&as[a->n], bs, (size_t)b->n * sizeof(uintptr_t));
      a->n += b->n;
      a->next = b->next;
    } else {
      a->key[a->n] = p->key[li];
      memcpy(&a->key[a->n + 1], b->key, (size_t)b->n * sizeof(long));
      memcpy(&as[a->n + 1], bs, (size_t)(b->n + 1) * sizeof(uintptr_t));
      a->n += b->n + 1;
    }
    free(b);
    bpt_close(t, p, li, li + 1, p->n + 1);
    p->n--;
    x = p;
  }
  /* x is the root. */
  if (!x->leaf && x->n == 0) {
    t->root = bpt_child(t, x, 0);
    free(x);
  }
  return 1;
}

/* ---- checking (outside regions, on a quiescent tree) -------------------- */
/* Adds the nodes reachable from x to *nodes and the heap bytes obj_bytes says
 * they occupy to *bytes (silently stops below BPT_MAX_DEPTH). */
static inline void bpt_usage(const struct bpt *t, struct bpt_node *x, int dep, size_t (*obj_bytes)(void *, size_t), long *nodes,
                             long *bytes) {
  if (!x || dep >= BPT_MAX_DEPTH) return;
  ++*nodes;
  *bytes += (long)obj_bytes(x, bpt_node_size(t->fanout));
  if (!x->leaf && x->n >= 0 && x->n < t->fanout)
    for (int i = 0; i <= x->n; i++) bpt_usage(t, bpt_child(t, x, i), dep + 1, obj_bytes, nodes, bytes);
}

struct bpt_stats {
  long entries, nodes, leaves, height;
  long bad;              /* broken invariants */
  struct bpt_node *prev; /* last leaf seen in key order */
  long last;             /* its last key */
  int have_last;
};

static inline void bpt_bad(struct bpt_stats *s, const char *what, const struct bpt_node *x) {
  if (s->bad++ < 10) fprintf(stderr, "bptree: %s (node %p)\n", what, (const void *)x);
}

/* Walks the subtree at x at depth dep; every key must lie in [lo, hi), an
 * absent bound given by has_lo / has_hi = 0. */
static inline void bpt_check_node(const struct bpt *t, struct bpt_node *x, int dep, long lo, int has_lo, long hi, int has_hi,
                           struct bpt_stats *s) {
  if (dep >= BPT_MAX_DEPTH) {
    bpt_bad(s, "deeper than any tree can be (a cycle?)", x);
    return;
  }
  s->nodes++;
  int root = x == t->root;
  if (x->leaf != 0 && x->leaf != 1) bpt_bad(s, "bad node kind", x);
  if (x->n < 0 || x->n > (x->leaf ? t->fanout : t->fanout - 1)) {
    bpt_bad(s, "entry count out of range", x);
    return;
  }
  if (!root && x->n < (x->leaf ? bpt_leaf_min(t) : bpt_inner_min(t) - 1)) bpt_bad(s, "underfull node", x);
  if (root && !x->leaf && x->n < 1) bpt_bad(s, "inner root with one child", x);
  for (int i = 0; i < x->n; i++) {
    if (i > 0 && x->key[i] <= x->key[i - 1]) bpt_bad(s, "keys not increasing within a node", x);
    if ((has_lo && x->key[i] < lo) || (has_hi && x->key[i] >= hi)) bpt_bad(s, "key outside its separators' range", x);
  }
  if (x->leaf) {
    if (s->height < 0) s->height = dep;
    else if (s->height != dep) bpt_bad(s, "leaves at different depths", x);
    /* The chain must reach the leaves in the same order as the walk. */
    if (s->prev && s->prev->next != x) bpt_bad(s, "leaf chain skips or reorders a leaf", x);
    if (x->n && s->have_last && x->key[0] <= s->last) bpt_bad(s, "keys not increasing across leaves", x);
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
    struct bpt_node *c = bpt_child(t, x, i);
    if (!c) {
      bpt_bad(s, "null child", x);
      continue;
    }
    bpt_check_node(t, c, dep + 1, i > 0 ? x->key[i - 1] : lo, i > 0 || has_lo, i < x->n ? x->key[i] : hi, i < x->n || has_hi, s);
  }
}

/* Every invariant of the header comment: returns the entries counted and
 * adds the broken ones to *bad (naming the first ten on stderr).
 * max_entries bounds the chain walk (a cycle). */
static inline long bpt_check(const struct bpt *t, long max_entries, long *bad) {
  struct bpt_stats s = {0, 0, 0, -1, 0, NULL, 0, 0};
  if (t->fanout < BPT_MIN_FANOUT || t->fanout > BPT_MAX_FANOUT || !t->root) {
    ++*bad;
    return 0;
  }
  bpt_check_node(t, t->root, 0, 0, 0, 0, 0, &s);
  if (s.prev && s.prev->next) bpt_bad(&s, "the last leaf has a next leaf", s.prev);
  /* The chain on its own, from the leftmost leaf: every key once, in order. */
  struct bpt_node *x = t->root;
  for (int dep = 0; !x->leaf && dep < BPT_MAX_DEPTH; dep++) x = bpt_child(t, x, 0);
  long chained = 0, last = 0;
  int have = 0;
  for (; x && chained <= max_entries; x = x->next) {
    for (int i = 0; i < x->n && i <= t->fanout; i++, chained++) {
      if (have && x->key[i] <= last) bpt_bad(&s, "leaf chain out of order", x);
      last = x->key[i];
      have = 1;
    }
  }
  if (chained != s.entries) bpt_bad(&s, "leaf chain and tree hold different entry counts", t->root);
  *bad += s.bad;
  return s.entries;
}

#endif /* AMBER_BPTREE_H */
