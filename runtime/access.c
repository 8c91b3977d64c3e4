/* The access callbacks the pass emits inside regions and transactional
 * clones.  Persistent addresses go through the engine; others are accessed
 * directly and undo-logged while the transaction may still abort. */
#include <string.h>

#include "diag.h"
#include "tx.h"

static inline void check_span(const void *p, size_t n) {
  if (__builtin_expect(!amber_in_heap((const char *)p + n - 1), 0))
    amber_fatal("access of %zu bytes at %p runs past the end of the persistent heap", n, p);
}

/* A persistent store outside any region (reached through code the pass
 * instrumented but did not place in a region): its own small transaction. */
struct lone_store {
  void *p;
  const void *src;
  size_t n;
};
static void lone_store_fn(void *arg) {
  struct lone_store *s = arg;
  amber_tx_write(amber_thread(), s->p, s->src, s->n);
}

static inline void do_load(const void *p, void *dst, size_t n) {
  if (amber_in_heap(p)) {
    check_span(p, n);
    if (amber_eng->direct_reads) {
      memcpy(dst, p, n);
      return;
    }
    /* Outside regions too: the engine knows where the latest committed
     * version is (it may not be in the data area yet). */
    amber_tx_read(amber_thread(), p, dst, n);
    return;
  }
  memcpy(dst, p, n);
}

static inline void do_store(void *p, const void *src, size_t n) {
  struct amber_thread *t = amber_thread();
  if (amber_in_heap(p)) {
    check_span(p, n);
    t->stored_bytes += n;
    if (t->depth) {
      amber_tx_write(t, p, src, n);
    } else {
      struct lone_store s = {p, src, n};
      amber_tx_run_internal(lone_store_fn, &s);
    }
    return;
  }
  if (amber_tx_may_abort(t)) amber_tx_undo_volatile(t, p, n);
  memcpy(p, src, n);
}

#define LOADSTORE(N, T)                                                        \
  T __amber_load##N(const void *p) {                                           \
    T v;                                                                       \
    do_load(p, &v, N);                                                         \
    return v;                                                                  \
  }                                                                            \
  void __amber_store##N(void *p, T v) { do_store(p, &v, N); }
LOADSTORE(1, uint8_t)
LOADSTORE(2, uint16_t)
LOADSTORE(4, uint32_t)
LOADSTORE(8, uint64_t)

void __amber_loadn(void *dst, const void *src, size_t n) {
  if (n) do_load(src, dst, n);
}
void __amber_storen(void *dst, const void *src, size_t n) {
  if (n) do_store(dst, src, n);
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
 * transaction, so it stays atomic against every other one. */
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
    if (old == r->expected) do_store(r->p, &nv, r->n);
  } else {
    nv = apply_op(old, r->v, r->op, r->n);
    do_store(r->p, &nv, r->n);
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
    if (amber_tx_may_abort(t)) amber_tx_undo_volatile(t, p, N);               \
    T cur = __atomic_load_n((T *)p, __ATOMIC_SEQ_CST);                         \
    while (!__atomic_compare_exchange_n((T *)p, &cur, (T)apply_op(cur, v, op, N), 0, \
                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {  \
    }                                                                          \
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
    if (amber_tx_may_abort(t)) amber_tx_undo_volatile(t, p, N);               \
    __atomic_compare_exchange_n((T *)p, &expected, desired, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
    return expected;                                                           \
  }
CAS(1, uint8_t)
CAS(2, uint16_t)
CAS(4, uint32_t)
CAS(8, uint64_t)
