/* The access callbacks the pass emits inside regions and transactional
 * clones, and on the cold side of its range checks outside regions.
 * Persistent addresses go through the engine, at their alias (the program
 * passes canonical ones; engines work on the alias); others are accessed
 * directly and undo-logged while the transaction may still abort. */
#include <string.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/shared.h"
#include "heap/heap.h"
#include "tx/op.h"
#include "tx/ptrcheck.h"
#include "heap/window.h"
#include "tx/tx.h"
#include "code.h"

static inline void check_span(const void *p, size_t n) {
  if (__builtin_expect(!amber_in_heap((const char *)p + n - 1), 0))
    amber_fatal("access of %zu bytes at %p runs past the end of the persistent heap", n, p);
}

/* A persistent store outside any region inside a lock-delimited section
 * (AMBER_FASE=locks): it joins the section's transaction. */
struct lone_store {
  void *p;
  const void *src;
  size_t n;
};
static void lone_store_fn(void *arg) {
  struct lone_store *s = arg;
  amber_tx_write(amber_thread(), s->p, s->src, s->n);
}

/* In a transaction of an engine with direct_reads the data area is the
 * transaction's view, read in place.  Outside transactions (the cold side
 * of the pass's range check on a load, libc readers outside regions) the
 * engine answers with the latest committed value: the data area may hold a
 * running writer's stores (romulus), or not yet the newest commit (mvcc). */
static inline void do_load(const void *p, void *dst, size_t n) {
  if (amber_in_heap(p)) {
    check_span(p, n);
    struct amber_thread *t = amber_thread();
    /* The thread's open stray batch is its view (tx/batch.c). */
    if (__builtin_expect(t->batch, 0) && !t->depth) amber_tx_batch_poll(t);
    if (amber_tx_engine->direct_reads && (t->depth || t->batch)) {
      amber_tx_touch(t);
      memcpy(dst, amber_heap_alias(p), n);
      return;
    }
    amber_tx_read(t, amber_heap_alias(p), dst, n);
    return;
  }
  /* Ordinary memory: replay returns the recorded bytes; in a transaction
   * the engine isolates the read, and capture records what it returned. */
  struct amber_thread *t = amber_self;
  if (t && t->depth) {
    if (__builtin_expect(t->op == AMBER_OP_REPLAY, 0)) {
      amber_op_take(t, dst, n);
      return;
    }
    amber_tx_vread(t, p, dst, n);
    if (t->op == AMBER_OP_CAPTURE) amber_op_put(t, dst, n);
    return;
  }
  amber_shared_load(dst, p, n); /* maybe a program's atomic (base/shared.h) */
}

/* A store into the heap, at the canonical address p. */
static __attribute__((noinline)) void store_heap(struct amber_thread *t, void *p, const void *src, size_t n) {
  check_span(p, n);
  t->stored_bytes += n;
  if (t->depth) {
    amber_tx_write(t, amber_heap_alias(p), src, n);
  } else if (__builtin_expect(t->fase != AMBER_FASE_NONE, 0)) {
    struct lone_store s = {amber_heap_alias(p), src, n};
    amber_tx_run_internal(lone_store_fn, &s);
  } else {
    /* Outside regions: the thread's stray batch (tx/batch.c). */
    amber_tx_batch_store(t, amber_heap_alias(p), src, n);
  }
  /* After the store: it may have committed the batch and opened another
   * (tx/batch.c), whose commit checks it. */
  amber_ptrcheck_note(t, p, src, n, t->store_site);
}

/* Inlined into each sized entry (n a constant there): a store of ordinary
 * memory inside a transaction, the most frequent (labyrinth's private grid),
 * is its undo record and the store itself, without a call.  order: the C
 * memory order the program's store needs in ordinary memory (base/shared.h):
 * __ATOMIC_RELAXED for its plain stores, its own for its atomics,
 * __ATOMIC_SEQ_CST where the caller does not know which it was. */
static inline __attribute__((always_inline)) void do_store(void *p, const void *src, size_t n, int order) {
  struct amber_thread *t = amber_thread();
  if (amber_in_heap(p)) {
    store_heap(t, p, src, n);
    return;
  }
  if (__builtin_expect(t->op == AMBER_OP_REPLAY, 0)) return; /* the program's volatile state is not there */
  if (t->depth) {
    if (n <= 8) amber_tx_vclaim_small(t, p, n);
    else amber_tx_vclaim(t, p, n);
    /* The engine's claim before the bytes, for whoever reads them under it:
     * mvcc's readers (mv_vread, the pass's inline loads) read a lock-table
     * word (acquire), the bytes, an acquire fence and the word again, and
     * take the bytes only if the word is unchanged: if they read this
     * store's bytes, the word must read as taken (mv_vwrite's CAS).  That
     * needs a release operation between the CAS and this store, which the
     * store itself was when every store was seq_cst; a relaxed one (the
     * program's plain store, or its relaxed atomic) needs this fence (C11
     * 7.17.4: the fence synchronizes with the reader's acquire fence
     * through the store it reads).  On x86-64 only a compiler barrier. */
    __atomic_thread_fence(__ATOMIC_RELEASE);
  }
  amber_shared_store_order(p, src, n, order); /* base/shared.h: the order's argument */
}

/* What the pass's inline loads may do in the calling frame (ABI 5,
 * amber_interface.h).  AMBER_READS_DIRECT exactly when do_load would read
 * heap bytes in place (direct_reads, in a transaction) and ordinary memory
 * in place with no more than the program's own load: the engine guards no
 * volatile reads (romulus: its lock already keeps writers out of a
 * reader's way, and a writer's way), no operational record captures or
 * replays the region's inputs.  The mvcc engine's state otherwise
 * (docs/engines/mvcc.md, "Inline loads"; while an operational record
 * captures the region's inputs, its ordinary-memory loads take the
 * callback, which captures them).  Never
 * in a lock-delimited section (whose transaction ends at an unlock, maybe
 * inside this frame).  The answer stays true until the frame that asked is
 * left: the transaction it saw ends only when the outermost region's
 * function returns, or by the jump of a restart, retry or cancel past that
 * frame; nested regions join it (flat), and an irrevocable call either
 * restarts a reader (a jump) or keeps a writer, which reads in place too
 * (romulus; under mvcc an irrevocable transaction starts so, and its state
 * says AMBER_READS_CALL).  A frame that asked outside a transaction gets
 * AMBER_READS_CALL and calls the runtime for every load, the nested
 * regions it may open included. */
static const struct __amber_reads reads_call = {.mode = AMBER_READS_CALL};
static const struct __amber_reads reads_direct = {.mode = AMBER_READS_DIRECT};
static inline const struct __amber_reads *read_state_ask(struct amber_thread *t) {
  if (!t || !t->depth || t->fase != AMBER_FASE_NONE || t->op == AMBER_OP_REPLAY) return &reads_call;
  /* The frame is about to read in place: the transaction begins first
   * (tx/tx.h, amber_tx_touch), and vguard and the engine's read state
   * (mvcc's snapshot) are its own. */
  amber_tx_touch(t);
  const struct __amber_reads *r = &reads_call;
  if (amber_tx_engine->direct_reads) {
    if (t->op == AMBER_OP_OFF && !(t->vguard & AMBER_VGUARD_READS)) r = &reads_direct;
  } else if (t->engine_reads) {
    r = t->engine_reads;
  }
  /* Kept for the transaction's other frames: by the contract above the
   * answer stays true until the transaction ends or restarts, where tx.c
   * forgets it (amber_tx_forget_reads).  Something that changes during
   * the transaction (an operational capture given up, amber_op_giveup)
   * only ever makes a fresh answer less restrictive, never the kept one
   * wrong. */
  t->reads = r;
  return r;
}

/* A region's frames each ask once (a clone per function): after the
 * transaction's first, two loads. */
const struct __amber_reads *__amber_read_state(void) {
  struct amber_thread *t = amber_self;
  if (__builtin_expect(t != NULL, 1)) {
    const struct __amber_reads *r = t->reads;
    if (__builtin_expect(r != NULL, 1)) return r;
  }
  return read_state_ask(t);
}
_Static_assert(AMBER_CODE_HANDLE_TAG == AMBER_CODE_TAG, "the pass's code handle tag is the heap format's");

/* The order of an atomic or volatile store (pass ABI 7): the pass passes
 * __ATOMIC_RELAXED, __ATOMIC_RELEASE or __ATOMIC_SEQ_CST; anything else is
 * taken as the strongest. */
static inline int store_order(int order) {
  return order == __ATOMIC_RELAXED || order == __ATOMIC_RELEASE ? order : __ATOMIC_SEQ_CST;
}

/* __amber_storeN / __amber_storen / __amber_storep: the program's plain
 * stores (non-atomic, non-volatile), relaxed in ordinary memory;
 * __amber_atomic_storeN / __amber_atomic_storep: its atomic stores, in
 * their order, and its volatile ones, seq_cst (base/shared.h). */
#define LOADSTORE(N, T)                                                        \
  T __amber_load##N(const void *p) {                                           \
    T v;                                                                       \
    do_load(p, &v, N);                                                         \
    return v;                                                                  \
  }                                                                            \
  void __amber_store##N(void *p, T v) { do_store(p, &v, N, __ATOMIC_RELAXED); } \
  void __amber_atomic_store##N(void *p, T v, int order) { do_store(p, &v, N, store_order(order)); }
LOADSTORE(1, uint8_t)
LOADSTORE(2, uint16_t)
LOADSTORE(4, uint32_t)
LOADSTORE(8, uint64_t)

void __amber_loadn(void *dst, const void *src, size_t n) {
  if (n) do_load(src, dst, n);
}
/* Also the libc wrappers' copies (entry/libc.c, wrappers/sort.c): the
 * program's memcpy, memset, ... are plain stores too. */
void __amber_storen(void *dst, const void *src, size_t n) {
  if (n) do_store(dst, src, n, __ATOMIC_RELAXED);
}

/* Pointer-typed accesses: only a store into the heap may turn a code
 * address into a handle (entry/code.c); a load turns a handle back,
 * wherever it came from. */
uint64_t __amber_loadp(const void *p) {
  uint64_t v;
  do_load(p, &v, 8);
  return amber_code_from_handle(v);
}
static inline __attribute__((always_inline)) void do_storep(void *p, uint64_t v, int order) {
  if (amber_in_heap(p)) v = amber_code_to_handle(v, p);
  do_store(p, &v, 8, order);
}
void __amber_storep(void *p, uint64_t v) { do_storep(p, v, __ATOMIC_RELAXED); }
void __amber_atomic_storep(void *p, uint64_t v, int order) { do_storep(p, v, store_order(order)); }

/* ---- the cold side of the range checks outside regions ---- */
#if defined(__x86_64__) && !__has_attribute(preserve_most)
#error "the amber runtime needs the preserve_most calling convention (clang) on x86-64: the pass calls __amber_outside_* with it"
#endif

/* A forked child must not use its parent's heap (wrappers/fork.c): the
 * engine may answer a load from DRAM without touching the inaccessible
 * mapping, so the cold side refuses it itself. */
static void outside_usable(const void *p) {
  if (__builtin_expect(amber_heap_forked, 0)) amber_heap_forked_fatal("touched", p);
}

/* A store outside regions under the pointer check: its site named for the
 * batch's commit (tx/ptrcheck.c). */
static void sited_store(void *p, const void *src, size_t n, const char *site) {
  struct amber_thread *t = amber_thread();
  t->store_site = site;
  do_store(p, src, n, __ATOMIC_SEQ_CST);
  t->store_site = NULL;
}
static void *sited_copy(void *(*copy)(void *, const void *, size_t), void *dst, const void *src, size_t n,
                        const char *site) {
  struct amber_thread *t = amber_thread();
  t->store_site = site;
  copy(dst, src, n);
  t->store_site = NULL;
  return dst;
}

/* The outside stores reach ordinary memory only where a shared range check
 * sent a run with a heap access to the cold side (docs/pass.md, "One branch
 * per run"), and do not say what the program's store was (plain, volatile,
 * or a relaxed atomic: its release and seq_cst ones come as
 * __amber_outside_rmwN, Outside.cpp): seq_cst, the order that keeps them all. */
#define OUTSIDE_LOADSTORE(N, T)                                                \
  AMBER_OUTSIDE_CC amber_word_t __amber_outside_load##N(const void *p) {      \
    T v;                                                                       \
    outside_usable(p);                                                         \
    do_load(p, &v, N);                                                         \
    return (amber_word_t){v, 0};                                               \
  }                                                                            \
  AMBER_OUTSIDE_CC void __amber_outside_store##N(void *p, T v, const char *site) { \
    __amber_stray_store(site, p);                                              \
    if (N == 8 && __builtin_expect(amber_ptrcheck_on() != AMBER_PTRCHECK_OFF, 0)) { \
      sited_store(p, &v, N, site);                                             \
      return;                                                                  \
    }                                                                          \
    do_store(p, &v, N, __ATOMIC_SEQ_CST);                                      \
  }
OUTSIDE_LOADSTORE(1, uint8_t)
OUTSIDE_LOADSTORE(2, uint16_t)
OUTSIDE_LOADSTORE(4, uint32_t)
OUTSIDE_LOADSTORE(8, uint64_t)

AMBER_OUTSIDE_CC void __amber_outside_loadn(void *dst, const void *src, size_t n) {
  outside_usable(src);
  if (n) do_load(src, dst, n);
}
AMBER_OUTSIDE_CC void __amber_outside_storen(void *dst, const void *src, size_t n, const char *site) {
  if (!n) return;
  __amber_stray_store(site, dst);
  if (__builtin_expect(amber_ptrcheck_on() != AMBER_PTRCHECK_OFF, 0)) sited_store(dst, src, n, site);
  else do_store(dst, src, n, __ATOMIC_SEQ_CST);
}
AMBER_OUTSIDE_CC amber_word_t __amber_outside_loadp(const void *p) {
  outside_usable(p);
  return (amber_word_t){__amber_loadp(p), 0};
}
AMBER_OUTSIDE_CC void __amber_outside_storep(void *p, uint64_t v, const char *site) {
  __amber_stray_store(site, p);
  if (amber_in_heap(p)) v = amber_code_to_handle(v, p);
  if (__builtin_expect(amber_ptrcheck_on() != AMBER_PTRCHECK_OFF, 0)) {
    sited_store(p, &v, 8, site); /* the pointer check names the site */
    return;
  }
  do_store(p, &v, 8, __ATOMIC_SEQ_CST);
}
AMBER_OUTSIDE_CC void __amber_outside_memcpy(void *dst, const void *src, size_t n, const char *site) {
  if (n) __amber_stray_store(site, dst);
  if (__builtin_expect(amber_ptrcheck_on() != AMBER_PTRCHECK_OFF, 0)) sited_copy(__amber_memcpy, dst, src, n, site);
  else __amber_memcpy(dst, src, n);
}
AMBER_OUTSIDE_CC void __amber_outside_memmove(void *dst, const void *src, size_t n, const char *site) {
  if (n) __amber_stray_store(site, dst);
  if (__builtin_expect(amber_ptrcheck_on() != AMBER_PTRCHECK_OFF, 0)) sited_copy(__amber_memmove, dst, src, n, site);
  else __amber_memmove(dst, src, n);
}
AMBER_OUTSIDE_CC void __amber_outside_memset(void *dst, int c, size_t n, const char *site) {
  if (n) __amber_stray_store(site, dst);
  __amber_memset(dst, c, n);
}

/* Inside a transaction an atomic RMW is an ordinary read-then-write: the
 * transaction already orders it against every other transaction.  Outside
 * the heap it stays a real atomic (other threads may use it without amber). */
static uint64_t apply_op(uint64_t old, uint64_t v, int op, unsigned bytes) {
  unsigned bits = bytes * 8;
  uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
  int64_t so = (int64_t)(old << (64 - bits)) >> (64 - bits);
  int64_t sv = (int64_t)(v << (64 - bits)) >> (64 - bits);
  uint64_t r;
  switch (op) {
  case 0: r = v; break;
  case 1: r = old + v; break;
  case 2: r = old - v; break;
  case 3: r = old & v; break;
  case 4: r = ~(old & v); break;
  case 5: r = old | v; break;
  case 6: r = old ^ v; break;
  case 7: r = so > sv ? old : v; break;
  case 8: r = so < sv ? old : v; break;
  case 9: r = (old & mask) > (v & mask) ? old : v; break;
  case 10: r = (old & mask) < (v & mask) ? old : v; break;
  case 15: r = (old & mask) >= (v & mask) ? 0 : old + 1; break;
  case 16: r = (old & mask) == 0 || (old & mask) > (v & mask) ? v : old - 1; break;
  case 11:
  case 12:
  case 13:
  case 14:
    if (bytes == 8) {
      double a, b;
      memcpy(&a, &old, 8);
      memcpy(&b, &v, 8);
      a = op == 11 ? a + b : op == 12 ? a - b : op == 13 ? (a > b || b != b ? a : b) : (a < b || b != b ? a : b);
      memcpy(&r, &a, 8);
    } else if (bytes == 4) {
      float a, b;
      uint32_t o32 = (uint32_t)old, v32 = (uint32_t)v, r32;
      memcpy(&a, &o32, 4);
      memcpy(&b, &v32, 4);
      a = op == 11 ? a + b : op == 12 ? a - b : op == 13 ? (a > b || b != b ? a : b) : (a < b || b != b ? a : b);
      memcpy(&r32, &a, 4);
      r = r32;
    } else {
      amber_fatal("atomic floating-point operation %d on %u bytes is not supported inside regions", op, bytes);
    }
    break;
  default:
    amber_fatal("atomic operation %d inside a region is not supported by this runtime; rebuild with a matching amber", op);
  }
  return r & mask;
}

/* A read-modify-write on the heap outside any region runs as one small
 * transaction, so it stays atomic against every other one; the thread's
 * stray batch commits first (amber_tx_run_internal): an atomic may release
 * what the thread stored before it to another thread. */
struct lone_rmw {
  void *p;
  uint64_t v, expected, old;
  int op; /* -1: compare-and-exchange */
  unsigned n;
};
static void lone_rmw_fn(void *arg) {
  struct lone_rmw *r = arg;
  uint64_t old = 0, nv;
  do_load(r->p, &old, r->n);
  if (r->op < 0) {
    nv = r->v;
    if (old == r->expected) do_store(r->p, &nv, r->n, __ATOMIC_SEQ_CST); /* the heap: the engine's order */
  } else {
    nv = apply_op(old, r->v, r->op, r->n);
    do_store(r->p, &nv, r->n, __ATOMIC_SEQ_CST);
  }
  r->old = old;
}
static uint64_t heap_rmw(void *p, uint64_t v, uint64_t expected, int op, unsigned n) {
  struct lone_rmw r = {p, v, expected, 0, op, n};
  if (amber_thread()->depth) lone_rmw_fn(&r);
  else amber_tx_run_internal(lone_rmw_fn, &r);
  return r.old;
}

/* Volatile locations stay real atomics (threads outside amber may use
 * them); a transaction that may abort undo-logs the old value first. */
#define RMW(N, T)                                                              \
  T __amber_rmw##N(void *p, T v, int op) {                                     \
    if (amber_in_heap(p)) return (T)heap_rmw(p, v, 0, op, N);                  \
    struct amber_thread *t = amber_thread();                                   \
    T cur;                                                                     \
    if (t->op == AMBER_OP_REPLAY) {                                            \
      amber_op_take(t, &cur, N);                                               \
      return cur;                                                              \
    }                                                                          \
    if (t->depth) amber_tx_vclaim(t, p, N);                                    \
    cur = __atomic_load_n((T *)p, __ATOMIC_SEQ_CST);                           \
    while (!__atomic_compare_exchange_n((T *)p, &cur, (T)apply_op(cur, v, op, N), 0, \
                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {  \
    }                                                                          \
    if (t->op == AMBER_OP_CAPTURE) amber_op_put(t, &cur, N);                  \
    return cur;                                                                \
  }
RMW(1, uint8_t)
RMW(2, uint16_t)
RMW(4, uint32_t)
RMW(8, uint64_t)

#define CAS(N, T)                                                              \
  T __amber_cas##N(void *p, T expected, T desired) {                           \
    if (amber_in_heap(p)) return (T)heap_rmw(p, desired, expected, -1, N);    \
    struct amber_thread *t = amber_thread();                                   \
    if (t->op == AMBER_OP_REPLAY) {                                            \
      amber_op_take(t, &expected, N);                                          \
      return expected;                                                         \
    }                                                                          \
    if (t->depth) amber_tx_vclaim(t, p, N);                                    \
    __atomic_compare_exchange_n((T *)p, &expected, desired, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
    if (t->op == AMBER_OP_CAPTURE) amber_op_put(t, &expected, N);             \
    return expected;                                                           \
  }
CAS(1, uint8_t)
CAS(2, uint16_t)
CAS(4, uint32_t)
CAS(8, uint64_t)

#define OUTSIDE_ATOMICS(N, T)                                                  \
  AMBER_OUTSIDE_CC amber_word_t __amber_outside_rmw##N(void *p, T v, int op, const char *site) { \
    __amber_stray_store(site, p);                                              \
    return (amber_word_t){__amber_rmw##N(p, v, op), 0};                        \
  }                                                                            \
  AMBER_OUTSIDE_CC amber_word_t __amber_outside_cas##N(void *p, T expected, T desired, const char *site) { \
    __amber_stray_store(site, p);                                              \
    return (amber_word_t){__amber_cas##N(p, expected, desired), 0};            \
  }
OUTSIDE_ATOMICS(1, uint8_t)
OUTSIDE_ATOMICS(2, uint16_t)
OUTSIDE_ATOMICS(4, uint32_t)
OUTSIDE_ATOMICS(8, uint64_t)
