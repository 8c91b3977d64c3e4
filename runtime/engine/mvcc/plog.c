/* The mvcc engine's persistent state (issue [6/7], value mode): the engine
 * area's header, the master timestamp table and the per-thread OLog rings
 * (docs/format.md, docs/engines/mvcc.md).
 *
 *   [0, 4096)            struct mv_area
 *   [mts_off, ...)       one u64 per block: the commit timestamp of the
 *                        version the master (data area) holds; 0 = older
 *                        than every logged version
 *   [logs_off, ...)      max_threads slots of 4096 + olog_bytes: two ring
 *                        headers (alternating), then the ring of records
 *   [clog_off, ...)      the CLog: two headers, then the ring (clog.c)
 *
 * Invariant: every acknowledged commit with cts >= c (the durable checkpoint
 * boundary, clog.c) has its record in its ring.  A record is recycled only
 * once a durable checkpoint round's boundary is above its cts. */
#include <stdlib.h>
#include <string.h>

#include "base/crc32c.h"
#include "base/diag.h"
#include "heap/heap.h"
#include "base/options.h"
#include "pm/pm.h"
#include "mvcc.h"

static uint64_t page_up(uint64_t x) { return (x + AMBER_PAGE - 1) & ~(uint64_t)(AMBER_PAGE - 1); }

uint64_t mv_layout(uint64_t data_size, uint64_t block, uint64_t threads, uint64_t olog, uint64_t clog, uint64_t *mts_off,
                   uint64_t *logs_off, uint64_t *clog_off) {
  uint64_t m = AMBER_PAGE;
  uint64_t l = page_up(m + (data_size / block) * 8);
  uint64_t c = l + threads * (AMBER_PAGE + olog);
  if (mts_off) *mts_off = m;
  if (logs_off) *logs_off = l;
  if (clog_off) *clog_off = c;
  return c + AMBER_PAGE + clog;
}

uint32_t mv_area_crc(const struct mv_area *a) { return amber_crc32c(0, a, offsetof(struct mv_area, crc)); }

/* ---- ring headers ---------------------------------------------------- */

static uint32_t hdr_crc(const struct mv_ring_hdr *r) { return amber_crc32c(0, r, offsetof(struct mv_ring_hdr, crc)); }

static char *slot_base(uint32_t i) { return mv.area + mv.logs_off + (uint64_t)i * (AMBER_PAGE + mv.olog_bytes); }
static struct mv_ring_hdr *ring_hdr(uint32_t i, int which) { return (struct mv_ring_hdr *)(slot_base(i) + which * 64); }
char *mv_ring_bytes(uint32_t i) { return slot_base(i) + AMBER_PAGE; }

/* The ring's durable tail: the valid header with the larger position. */
int mv_ring_read_tail(uint32_t i, uint64_t *pos, uint64_t *seq, uint64_t *c, int *other_bad) {
  int best = -1, bad = 0;
  for (int w = 0; w < 2; w++) {
    const struct mv_ring_hdr *r = ring_hdr(i, w);
    if (r->crc != hdr_crc(r) || r->magic != MV_RING_MAGIC) {
      bad++;
      continue;
    }
    if (best < 0 || r->tail > ring_hdr(i, best)->tail) best = w;
  }
  if (other_bad) *other_bad = bad > 0;
  if (best < 0) return -1;
  *pos = ring_hdr(i, best)->tail;
  *seq = ring_hdr(i, best)->seq;
  if (c) *c = ring_hdr(i, best)->c;
  return best;
}

uint64_t mv_ring_file_off(uint32_t i, uint64_t pos) {
  return mv.heap->hdr.engine_offset + (uint64_t)(mv_ring_bytes(i) - mv.area) + pos % mv.olog_bytes;
}

static void put_hdr(struct mv_ring_hdr *r, uint64_t pos, uint64_t seq, uint64_t c) {
  struct mv_ring_hdr n;
  memset(&n, 0, sizeof n);
  n.magic = MV_RING_MAGIC;
  n.tail = pos;
  n.seq = seq;
  n.c = c;
  n.crc = hdr_crc(&n);
  memcpy(r, &n, sizeof n);
  amber_pm_wrote(r, sizeof n);
  amber_pm_flush(r, sizeof n, AMBER_PM_LOG);
}

/* A new heap's rings: both headers of every ring empty, one fence. */
void mv_rings_format(void) {
  for (uint32_t i = 0; i < mv.max_threads; i++) {
    put_hdr(ring_hdr(i, 0), 0, 1, 0);
    put_hdr(ring_hdr(i, 1), 0, 1, 0);
  }
  amber_pm_fence(AMBER_PM_LOG);
}

/* Persists a new tail, overwriting the older header (the other stays valid
 * if this write tears).  One flush, one fence (category log). */
void mv_ring_write_tail(uint32_t i, uint64_t pos, uint64_t seq, uint64_t c) {
  uint64_t p0, s0;
  int cur = mv_ring_read_tail(i, &p0, &s0, NULL, NULL);
  put_hdr(ring_hdr(i, cur == 0 ? 1 : 0), pos, seq, c);
  amber_pm_fence(AMBER_PM_LOG);
}

/* ---- records --------------------------------------------------------- */

uint32_t mv_rec_crc(const struct mv_rec *r) {
  uint32_t c = amber_crc32c(0, r, offsetof(struct mv_rec, crc));
  return amber_crc32c(c, (const char *)r + sizeof *r, r->len - sizeof *r);
}

const struct mv_rec *mv_rec_at(uint32_t ring, uint64_t *ppos, uint64_t seq) {
  uint64_t off = *ppos % mv.olog_bytes;
  if (mv.olog_bytes - off < sizeof(struct mv_rec)) { /* a tail too short for a record: the next lap */
    *ppos += mv.olog_bytes - off;
    off = 0;
  }
  const struct mv_rec *r = (const struct mv_rec *)(mv_ring_bytes(ring) + off);
  if ((r->magic != MV_REC_MAGIC && r->magic != MV_PAD_MAGIC) || r->seq != seq || !mv_rec_shape_ok(r, mv.olog_bytes - off))
    return NULL;
  if (r->crc != mv_rec_crc(r)) return NULL; /* torn: the end of the ring */
  return r;
}

const struct mv_rec *mv_ring_later_at(uint32_t i, uint64_t off, uint64_t seq) {
  const struct mv_rec *r = (const struct mv_rec *)(mv_ring_bytes(i) + off);
  if ((r->magic != MV_REC_MAGIC && r->magic != MV_PAD_MAGIC) || r->seq < seq || r->seq - seq >= mv_oq_n() ||
      !mv_rec_shape_ok(r, mv.olog_bytes - off) || r->crc != mv_rec_crc(r))
    return NULL;
  return r;
}

/* Records are appended in sequence order, each made durable (fenced)
 * before the next is written, so an intact record with a larger sequence
 * number proves that every smaller one was complete: a record that fails
 * its checksum before it was damaged later, not torn by a crash.  (Under
 * deferred durability a later record may be written before an earlier one
 * is durable: it then names that one, which scan.c's deferred_tail tells
 * apart.) */
uint64_t mv_ring_later(uint32_t i, uint64_t seq, uint64_t *lo, uint64_t *hi, uint64_t *clo, uint64_t *chi) {
  uint64_t n = 0;
  *lo = *clo = UINT64_MAX;
  *hi = *chi = 0;
  for (uint64_t off = 0; off + sizeof(struct mv_rec) <= mv.olog_bytes; off += 8) {
    const struct mv_rec *r = mv_ring_later_at(i, off, seq);
    if (!r) continue;
    n++;
    if (r->seq < *lo) *lo = r->seq;
    if (r->seq > *hi) *hi = r->seq;
    if (r->magic == MV_REC_MAGIC) {
      if (r->cts < *clo) *clo = r->cts;
      if (r->cts > *chi) *chi = r->cts;
    }
  }
  return n;
}

/* The bytes of the running transaction's value record, without the
 * trailer (mv_cdep_bytes(m->ncdep), added by the caller). */
uint64_t mv_rec_size(struct mv_thread *m) {
  uint64_t n = sizeof(struct mv_rec);
  for (uint64_t pos = m->txstart; pos < m->head; pos++) {
    const struct mv_copy *x = mv_slot(m, pos);
    if (x->hi > x->lo) n += sizeof(struct mv_range) + ((x->hi - x->lo + 7u) & ~7u);
  }
  return n;
}

/* Room for a record of n bytes at the head (with a pad record if it would
 * cross the ring's end). */
static int room(struct mv_thread *m, uint64_t n) {
  uint64_t off = m->ohead % mv.olog_bytes, need = n;
  if (mv.olog_bytes - off < n) need += mv.olog_bytes - off;
  return mv.olog_bytes - (m->ohead - m->otail) >= need;
}

/* Recycles the records older than the durable checkpoint boundary: the
 * master and the CLog hold their effects. */
void mv_olog_recycle(struct mv_thread *m) {
  uint64_t t = m->otail, s = m->oseq_tail, c = __atomic_load_n(&mv.c, __ATOMIC_ACQUIRE);
  while (m->oq_head != m->oq_tail) {
    struct mv_oq *q = &m->oq[m->oq_tail % mv_oq_n()];
    if (q->cts >= c) break;
    t = q->olog_end;
    s = q->seq + 1;
    m->oq_tail++;
  }
  if (t == m->otail) return;
  mv_ring_write_tail(m->ring_id, t, s, c);
  m->n_recycled += s - m->oseq_tail;
  m->otail = t;
  m->oseq_tail = s;
}

/* Between two transactions of m, its ring past the high-water mark: recycle
 * what the durable boundary allows, and when that is not enough, a
 * checkpoint round now (unless another thread runs one: then it moves the
 * boundary), so that a commit seldom finds its ring full and runs the round
 * itself, holding its blocks' locks (other threads wait on them) while it
 * runs.  Nothing a commit relies on changes: the round and the recycling
 * are the ones mv_olog_reserve runs, at a point where m holds no version
 * and no lock. */
void mv_olog_make_room(struct mv_thread *m) {
  mv_olog_recycle(m);
  if (!mv_olog_high(m)) return;
  if (mv_checkpoint(m, 0)) mv_olog_recycle(m);
}

int mv_olog_reserve(struct mv_thread *m, uint64_t n) {
  if (n + sizeof(struct mv_rec) > mv.olog_bytes) return -1;
  if (m->oq_head - m->oq_tail >= mv_oq_n() - 1 || !room(m, n)) {
    mv_olog_recycle(m);
    if (m->oq_head - m->oq_tail >= mv_oq_n() - 1 || !room(m, n)) {
      __atomic_add_fetch(&mv.olog_full_rounds, 1, __ATOMIC_RELAXED);
      mv_checkpoint(m, 0);
      mv_olog_recycle(m);
    }
  }
  /* Nothing live, and the record fits neither before the ring's end nor
   * behind the pad that would fill it (pad and record together exceed the
   * ring): only a commit of this thread could move the head, and this one
   * would wait for itself.  Move the (empty) ring to the next lap instead:
   * the tail first, durably (mv_ring_write_tail fences), then records from
   * there.  Every record before it was recycled (cts < c), so c stays the
   * boundary they were recycled under; the bytes skipped hold only older
   * laps' records, whose sequence numbers are below the tail's. */
  if (m->oq_head == m->oq_tail && !room(m, n)) {
    uint64_t lap = (m->ohead / mv.olog_bytes + 1) * mv.olog_bytes;
    mv_ring_write_tail(m->ring_id, lap, m->oseq_tail, __atomic_load_n(&mv.c, __ATOMIC_ACQUIRE));
    m->otail = m->ohead = lap;
  }
  return m->oq_head - m->oq_tail < mv_oq_n() - 1 && room(m, n) ? 1 : 0;
}

static void put(struct mv_thread *m, struct mv_rec *r, uint64_t seq) {
  /* The length is read before the flush: on AMD a written-back line
   * leaves the cache (clwb as clflushopt), and reading r->len after it
   * missed to memory on every update (84 % of this function's samples at
   * hash-1k, 2 % updates, perf). */
  uint32_t len = r->len;
  r->seq = seq;
  r->crc = mv_rec_crc(r);
  amber_pm_wrote(r, len);
  amber_pm_flush(r, len, AMBER_PM_LOG);
  m->olog_bytes_written += len;
}

/* The record's body, value mode: every byte range it wrote, per block. */
static void values_body(struct mv_thread *m, struct mv_rec *r) {
  r->kind = MV_REC_VALUES;
  char *w = (char *)r + sizeof *r;
  for (uint64_t pos = m->txstart; pos < m->head; pos++) {
    const struct mv_copy *x = mv_slot(m, pos);
    if (x->hi <= x->lo) continue;
    struct mv_range *g = (struct mv_range *)w;
    g->off = (mv_ctl_blk(x->ctl) << mv.shift) + x->lo;
    g->len = x->hi - x->lo;
    g->pad = 0;
    memcpy(w + sizeof *g, x->data + x->lo, g->len);
    uint32_t padded = (g->len + 7u) & ~7u;
    memset(w + sizeof *g + g->len, 0, padded - g->len);
    w += sizeof *g + padded;
    r->nranges++;
  }
}

/* The record's body, operational: the op id, then the input stream. */
static void op_body(struct mv_rec *r, uint64_t op_id, const char *in, uint32_t nin) {
  r->kind = MV_REC_OP;
  r->reserved = nin;
  char *w = (char *)r + sizeof *r;
  memcpy(w, &op_id, sizeof op_id);
  memcpy(w + sizeof op_id, in, nin);
  memset(w + sizeof op_id + nin, 0, ((nin + 7u) & ~7u) - nin);
}

/* Appends the running transaction's record (values, or with `in` an
 * operational one) of n bytes, its conditional dependencies' trailer
 * included (m->ncdep of them), and makes it durable with one fence; with `defer`, the
 * fence's second half is the caller's: returns its ticket
 * (amber_pm_fence_wait; 0: durable already).  The caller reserved the
 * room. */
uint64_t mv_olog_append(struct mv_thread *m, uint64_t cts, uint64_t n, uint64_t op_id, const char *in, uint32_t nin, int defer) {
  uint64_t off = m->ohead % mv.olog_bytes;
  if (mv.olog_bytes - off < n) { /* pad to the ring's end */
    uint64_t rest = mv.olog_bytes - off;
    if (rest >= sizeof(struct mv_rec)) {
      /* Deferred durability: the ring's earlier records durable first, so
       * that a pad (which names no earlier record) after a broken record
       * is still damage (scan.c). */
      amber_pm_fence_wait(m->own_ticket);
      struct mv_rec *p = (struct mv_rec *)(mv_ring_bytes(m->ring_id) + off);
      memset(p, 0, sizeof *p);
      p->magic = MV_PAD_MAGIC;
      p->len = (uint32_t)rest;
      put(m, p, m->oseq_head++);
      /* Its own fence: a record is durable before the next is written, so
       * recovery can take an intact later record as proof (mv_ring_later). */
      amber_pm_fence(AMBER_PM_LOG);
    } /* else too short for a header: readers skip it (mv_rec_at) */
    m->ohead += rest;
    off = 0;
  }
  struct mv_rec *r = (struct mv_rec *)(mv_ring_bytes(m->ring_id) + off);
  r->magic = MV_REC_MAGIC;
  r->len = (uint32_t)n;
  r->cts = cts;
  r->local = m->local;
  r->dep = m->dep;
  r->dep_ring = (uint16_t)m->dep_ring;
  r->ncdep = (uint8_t)m->ncdep;
  r->nranges = 0;
  r->reserved = 0;
  if (in) op_body(r, op_id, in, nin);
  else values_body(m, r);
  if (m->ncdep) { /* the trailer: commit ts, then rings, padded to 8 */
    char *t = (char *)r + n - mv_cdep_bytes(m->ncdep);
    memset(t, 0, mv_cdep_bytes(m->ncdep));
    memcpy(t, m->cdep, 8u * m->ncdep);
    memcpy(t + 8u * m->ncdep, m->cdep_ring, 2u * m->ncdep);
  }
  uint64_t seq = m->oseq_head++;
  put(m, r, seq);
  m->ohead += n;
  uint64_t ticket = 0;
  if (defer) ticket = amber_pm_fence_publish(AMBER_PM_LOG);
  else amber_pm_fence(AMBER_PM_LOG);
  struct mv_oq *q = &m->oq[m->oq_head++ % mv_oq_n()];
  q->olog_end = m->ohead;
  q->seq = seq;
  q->cts = cts;
  if (in) m->op_records++;
  return ticket;
}

/* ---- the writer note ---------------------------------------------------
 * Who may have written the operational records of a ring: the program, its
 * identity (tx/op.h) and its ORDO boundary, which replay's visibility rule
 * needs.  Written when a process takes the ring, before its first record. */

static struct mv_writer *writer_at(uint32_t i) { return (struct mv_writer *)(slot_base(i) + 128); }
#define MV_WRITER_PATH (AMBER_PAGE - 128 - sizeof(struct mv_writer))

static uint32_t writer_crc(const struct mv_writer *w) {
  uint32_t c = amber_crc32c(0, w, offsetof(struct mv_writer, crc));
  return amber_crc32c(c, w->path, w->len);
}

void mv_writer_note(uint32_t i, uint64_t identity, uint64_t boundary, const char *path) {
  struct mv_writer *w = writer_at(i);
  size_t len = strlen(path);
  if (len > MV_WRITER_PATH) len = MV_WRITER_PATH;
  if (w->magic == MV_WRITER_MAGIC && w->identity == identity && w->boundary == boundary && w->len == len &&
      !memcmp(w->path, path, len) && w->crc == writer_crc(w))
    return; /* already this program's note */
  w->magic = MV_WRITER_MAGIC;
  w->identity = identity;
  w->boundary = boundary;
  w->len = (uint32_t)len;
  memcpy(w->path, path, len);
  w->crc = writer_crc(w);
  amber_pm_wrote(w, sizeof *w + len);
  amber_pm_flush(w, sizeof *w + len, AMBER_PM_LOG);
  amber_pm_fence(AMBER_PM_LOG);
}

const struct mv_writer *mv_writer_read(uint32_t i) {
  const struct mv_writer *w = writer_at(i);
  if (w->magic != MV_WRITER_MAGIC || w->len > MV_WRITER_PATH || w->crc != writer_crc(w)) return NULL;
  return w;
}

/* ---- the master's timestamps ----------------------------------------- */

/* Invariant: a block's timestamp only grows (two write-backs of one block
 * may reach this point in either order). */
void mv_mts_raise(uint64_t blk, uint64_t ts) {
  uint64_t *p = mv.mts + blk, cur = __atomic_load_n(p, __ATOMIC_ACQUIRE);
  while (cur < ts && !__atomic_compare_exchange_n(p, &cur, ts, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
  }
  amber_pm_wrote(p, sizeof *p);
  amber_pm_flush(p, sizeof *p, AMBER_PM_DATA);
}
