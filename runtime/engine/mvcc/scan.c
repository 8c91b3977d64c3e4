/* Reading the mvcc logs for recovery, and telling a crash's torn write
 * from damage to the file (docs/engines/mvcc.md, "Torn tail or damage").
 *
 * A crash can leave exactly one incomplete thing per log: the record an
 * OLog ring was appending (each record is fenced before the next one is
 * written; under deferred durability, a batch of records whose later ones
 * each name their predecessor: deferred_tail), the entries of a checkpoint
 * round whose boundary never became durable (they all have cts >= c), one
 * undo entry of an irrevocable transaction (each is fenced), and the one
 * log header being rewritten (the other stays valid).  Anything else that fails its checksum was damaged
 * after it was written, and recovery would silently drop what depends on
 * it.  So the scan records, besides what recovery uses:
 *   - an OLog ring whose chain of records from its durable tail ends before
 *     an intact record with a later sequence number (mv_ring_later): the
 *     records from the break on were committed and acknowledged;
 *   - a CLog entry in [tail, head) of the current header that is missing or
 *     not below c (the header's head covers only durable rounds), and an
 *     intact entry below c after a broken one beyond head;
 *   - a ring whose header says it recycled records under a boundary newer
 *     than the CLog's c (the CLog header was rolled back by damage: records
 *     between the two are gone), and a block named by a CLog entry or a
 *     value record whose master timestamp is not below c.
 * mv_logs_damage prints each as an amber: error: naming the ring or entry,
 * its file offset and the transactions at stake; recovery refuses to start
 * when there is any, so nothing is written. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "heap/heap.h"
#include "mvcc.h"

static void grow(void **p, size_t *cap, size_t n, size_t elem, const char *what) {
  if (n < *cap) return;
  *cap = *cap ? *cap * 2 : 1024;
  *p = realloc(*p, *cap * elem);
  if (!*p) amber_fatal("mvcc recovery: out of memory for %zu %s", *cap, what);
}

static int by_cts(const void *a, const void *b) {
  const struct mv_found *x = a, *y = b;
  if (x->r->cts != y->r->cts) return x->r->cts < y->r->cts ? -1 : 1;
  if (x->ring != y->ring) return x->ring < y->ring ? -1 : 1;
  return x->r->seq < y->r->seq ? -1 : x->r->seq > y->r->seq;
}

static int by_blk_cts(const void *a, const void *b) {
  const struct mv_ckpt_found *x = a, *y = b;
  if (x->blk != y->blk) return x->blk < y->blk ? -1 : 1;
  if (x->cts != y->cts) return x->cts < y->cts ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Is the ring position free of anything a writer could have started: an
 * older lap's intact record, or bytes never written? */
static int clean_end(uint32_t i, uint64_t pos, uint64_t seq) {
  uint64_t off = pos % mv.olog_bytes;
  if (mv.olog_bytes - off < sizeof(struct mv_rec)) return 1;
  const struct mv_rec *r = (const struct mv_rec *)(mv_ring_bytes(i) + off);
  static const struct mv_rec zero;
  if (!memcmp(r, &zero, sizeof zero)) return 1;
  return (r->magic == MV_REC_MAGIC || r->magic == MV_PAD_MAGIC) && r->seq < seq && mv_rec_shape_ok(r, mv.olog_bytes - off) &&
         r->crc == mv_rec_crc(r);
}

static int damage(struct mv_logs *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int damage(struct mv_logs *L, const char *fmt, ...) {
  L->damaged++;
  if (!L->report) return 0;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  amber_error("heap %s: %s; this is damage to the file, not a write a crash interrupted. Recovery would drop committed data, "
              "so it does not start and nothing was changed: restore the heap from a copy",
              mv.heap->path, msg);
  return 0;
}

static void add_drop(struct mv_logs *L, const struct mv_rec *r, uint32_t ring) {
  if (L->ndropped == L->capdrop) {
    L->capdrop = L->capdrop ? L->capdrop * 2 : 16;
    L->drop = realloc(L->drop, L->capdrop * sizeof *L->drop);
    if (!L->drop) amber_fatal("mvcc recovery: out of memory for dropped records");
  }
  L->drop[L->ndropped++] = (struct mv_found){.r = r, .ring = ring};
}

/* Deferred durability (docs/engines/mvcc.md): a thread may write records
 * before its earlier ones are durable, and one sync makes them durable in
 * no order, so a crash can leave a broken record followed by intact later
 * ones of the same ring.  Each such later record names its predecessor, of
 * its own ring, as a conditional dependency (it was written while that one
 * was not durable: txn.c), and none was acknowledged (the thread's wait
 * covers its newest record's ticket, which is above the broken one's).
 * When every intact record after the break (within what the ring holds)
 * names its own ring so, they are that torn batch: dropped (and erased by
 * recovery) and 1 is returned; else 0 (damage).  A pad record names
 * nothing: it is written only once the ring's earlier records are durable
 * (plog.c). */
static int deferred_tail(struct mv_logs *L, uint32_t i, uint64_t seq) {
  size_t first = L->ndropped;
  for (uint64_t off = 0; off + sizeof(struct mv_rec) <= mv.olog_bytes; off += 8) {
    const struct mv_rec *r = mv_ring_later_at(i, off, seq);
    if (!r) continue;
    int own = 0;
    for (unsigned k = 0; r->magic == MV_REC_MAGIC && k < r->ncdep; k++) {
      uint32_t g;
      own |= mv_rec_cdep(r, k, &g) && g == i;
    }
    if (!own) {
      L->ndropped = first;
      return 0;
    }
    add_drop(L, r, i);
  }
  return 1;
}

/* Ring i from its durable tail: the records in order while they have the
 * expected sequence number and checksum; then whether the break is a torn
 * tail or damage. */
static void scan_ring(struct mv_logs *L, uint32_t i, size_t *cap) {
  uint64_t pos, seq, tail_seq, rc = 0;
  int other_bad = 0;
  L->end_pos[i] = L->end_seq[i] = 0;
  if (mv_ring_read_tail(i, &pos, &seq, &rc, &other_bad) < 0) return;
  tail_seq = seq;
  if (rc > L->ring_c_max) {
    L->ring_c_max = rc;
    L->ring_c_ring = i;
  }
  for (;;) {
    const struct mv_rec *r = mv_rec_at(i, &pos, seq);
    if (!r) break;
    if (r->magic == MV_REC_MAGIC) {
      grow((void **)&L->rec, cap, L->nrec, sizeof *L->rec, "OLog records");
      L->rec[L->nrec++] = (struct mv_found){r, i, 0};
    }
    pos += r->len;
    seq++;
  }
  L->end_pos[i] = pos;
  L->end_seq[i] = seq;
  if (!L->detect || clean_end(i, pos, seq)) return;
  uint64_t lo, hi, clo, chi;
  uint64_t n = mv_ring_later(i, seq, &lo, &hi, &clo, &chi);
  if (!n) return; /* a torn last record: its commit was never acknowledged */
  size_t before = L->ndropped;
  if (deferred_tail(L, i, seq)) { /* a deferred batch the crash tore: never acknowledged */
    L->ntorn += L->ndropped - before; /* or damage to an acknowledged one: recovery warns */
    return;
  }
  char range[160] = "";
  if (clo <= chi)
    snprintf(range, sizeof range, ", commit timestamps %llu to %llu", (unsigned long long)clo, (unsigned long long)chi);
  uint64_t k = seq - tail_seq + 1;
  damage(L,
         "OLog ring %u: its %llu%s record from the durable tail (sequence number %llu, file offset 0x%llx) is missing or "
         "fails its checksum, yet %llu intact records with later sequence numbers (%llu to %llu%s) follow it%s. The "
         "transactions at stake: that record's and every later one of this ring, up to %llu committed transactions",
         i, (unsigned long long)k, k % 10 == 1 && k % 100 != 11 ? "st" : k % 10 == 2 && k % 100 != 12 ? "nd" : k % 10 == 3 && k % 100 != 13 ? "rd" : "th",
         (unsigned long long)seq, (unsigned long long)mv_ring_file_off(i, pos), (unsigned long long)n, (unsigned long long)lo,
         (unsigned long long)hi, range,
         other_bad ? " (one of the ring's two headers fails its checksum: the tail was read from the other, older one)" : "",
         (unsigned long long)(hi - seq + 1));
}

/* The CLog from its tail: [tail, head) must be whole and below c; beyond
 * head, an irrevocable transaction's undo entries (below c, each fenced)
 * or a round that never became durable (cts >= c, ignored). */
static void scan_clog(struct mv_logs *L) {
  uint64_t t = 0, h = 0;
  if (mv_clog_read(&L->c, &t, &h, NULL) < 0) return;
  if (L->detect && (h < t || h - t > mv.clog_n)) {
    damage(L, "the CLog header's live entries [%llu, %llu) do not fit its %llu slots", (unsigned long long)t, (unsigned long long)h,
           (unsigned long long)mv.clog_n);
    h = t;
  }
  size_t capck = 0;
  uint64_t i = t;
  for (; i - t < mv.clog_n; i++) {
    const struct mv_ckpt *e = mv_ckpt_at(i);
    if (i < h && (!e || e->cts >= L->c)) {
      if (!L->detect) break;
      damage(L,
             "CLog entry %llu (file offset 0x%llx) of a durable checkpoint round (the CLog header's entries %llu to %llu, "
             "boundary %llu) is %s. The transactions at stake: every commit below the boundary to the block %s",
             (unsigned long long)i, (unsigned long long)mv_ckpt_file_off(i), (unsigned long long)t, (unsigned long long)(h - 1),
             (unsigned long long)L->c, e ? "not below the boundary" : "missing or fails its checksum",
             e ? "it names" : "it held (its block index is not trustworthy)");
      continue;
    }
    if (!e) break;
    if (e->cts >= L->c) continue; /* a round that never became durable */
    if (L->detect && mv.mts[e->blk] && mv.mts[e->blk] >= L->c)
      damage(L,
             "the master timestamp of block %llu (data offset 0x%llx) is %llu, not below the CLog's checkpoint boundary %llu; "
             "the CLog header or the master timestamp table was damaged. The transactions at stake: those that wrote the block",
             (unsigned long long)e->blk, (unsigned long long)(e->blk << mv.shift), (unsigned long long)mv.mts[e->blk],
             (unsigned long long)L->c);
    grow((void **)&L->ck, &capck, L->nck, sizeof *L->ck, "CLog entries");
    L->ck[L->nck++] = (struct mv_ckpt_found){e->blk, e->cts, e->seq, (const char *)(e + 1)};
  }
  /* An irrevocable transaction's undo entries may go on past a link entry
   * into spill segments of free heap pages ("Large transactions"): the
   * link was fenced with the entry after it, and each entry before the
   * next, as in the ring. */
  struct mv_spill s;
  int spilled = 0;
  const struct mv_ckpt *where = i - t < mv.clog_n ? mv_ckpt_slot(i) : NULL;
  while (where && i >= h && mv_ckpt_link(where, i, &s)) {
    spilled = 1;
    where = NULL;
    for (i++; i - s.first < s.n; i++) {
      where = mv_spill_entry(&s, i);
      const struct mv_ckpt *e = mv_ckpt_in(where, i);
      if (!e || e->cts >= L->c) break; /* a link, the torn or unwritten end */
      grow((void **)&L->ck, &capck, L->nck, sizeof *L->ck, "CLog entries");
      L->ck[L->nck++] = (struct mv_ckpt_found){e->blk, e->cts, e->seq, (const char *)(e + 1)};
    }
    if (i - s.first >= s.n) where = NULL;
  }
  L->clog_end = i;
  if (L->detect && spilled && i - s.first < s.n) {
    for (uint64_t j = i + 1; j - s.first < s.n; j++) {
      const struct mv_ckpt *e = mv_ckpt_in(mv_spill_entry(&s, j), j);
      if (!e || e->cts >= L->c) continue;
      damage(L,
             "undo entry %llu of an irrevocable or large transaction (in a spill segment at data offset 0x%llx) is missing or "
             "fails its checksum, yet entry %llu after it is intact. The transactions at stake: that transaction, which "
             "recovery must undo",
             (unsigned long long)i, (unsigned long long)(s.off + (i - s.first) * mv.clog_entry), (unsigned long long)j);
      break;
    }
  }
  if (L->detect && !spilled && i > h && i - t < mv.clog_n) {
    /* Beyond head each undo entry was fenced before the next was written. */
    for (uint64_t j = i + 1; j - t < mv.clog_n; j++) {
      const struct mv_ckpt *e = mv_ckpt_at(j);
      if (!e || e->cts >= L->c) continue;
      damage(L,
             "CLog entry %llu (file offset 0x%llx), an irrevocable transaction's undo entry, is missing or fails its "
             "checksum, yet entry %llu after it is intact. The transactions at stake: the irrevocable transaction, which "
             "recovery must undo",
             (unsigned long long)i, (unsigned long long)mv_ckpt_file_off(i), (unsigned long long)j);
      break;
    }
  }
  if (L->detect && L->ring_c_max > L->c)
    damage(L,
           "OLog ring %u recycled records below checkpoint boundary %llu, but the CLog's current header holds boundary %llu "
           "(its other header %s): the records between the two are gone. The transactions at stake: every commit with "
           "timestamp from %llu to %llu",
           L->ring_c_ring, (unsigned long long)L->ring_c_max, (unsigned long long)L->c,
           "was rolled back or damaged", (unsigned long long)L->c, (unsigned long long)L->ring_c_max);
}

/* Blocks that value records from c on write must not have a master newer
 * than c (the invariant's first part). */
static void check_record_blocks(struct mv_logs *L) {
  for (size_t k = 0; k < L->nrec; k++) {
    const struct mv_rec *r = L->rec[k].r;
    if (r->cts < L->c || r->kind != MV_REC_VALUES) continue;
    const char *w = (const char *)r + sizeof *r, *end = mv_rec_body_end(r);
    for (uint32_t g = 0; g < r->nranges && w + sizeof(struct mv_range) <= end; g++) {
      const struct mv_range *x = (const struct mv_range *)w;
      uint64_t blk = x->off >> mv.shift;
      if (blk < mv.nblocks && mv.mts[blk] && mv.mts[blk] >= L->c) {
        damage(L,
               "the master timestamp of block %llu (data offset 0x%llx) is %llu, not below the CLog's checkpoint boundary "
               "%llu, which OLog ring %u record with sequence number %llu writes; the CLog header or the master timestamp "
               "table was damaged. The transactions at stake: those that wrote the block",
               (unsigned long long)blk, (unsigned long long)x->off, (unsigned long long)mv.mts[blk], (unsigned long long)L->c,
               L->rec[k].ring, (unsigned long long)r->seq);
        return;
      }
      w += sizeof *x + ((x->len + 7u) & ~7u);
    }
  }
}

/* The index in L->rec of the intact record of ring `ring` with commit ts
 * `cts`, or -1.  L->rec is sorted by (cts, ring, seq). */
static long find_record(const struct mv_logs *L, uint64_t cts, uint32_t ring) {
  size_t lo = 0, hi = L->nrec;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const struct mv_found *f = &L->rec[mid];
    if (f->r->cts < cts || (f->r->cts == cts && f->ring < ring)) lo = mid + 1;
    else hi = mid;
  }
  return lo < L->nrec && L->rec[lo].r->cts == cts && L->rec[lo].ring == ring ? (long)lo : -1;
}

static int have_record(const struct mv_logs *L, uint64_t cts, uint32_t ring) { return find_record(L, cts, ring) >= 0; }

static int by_dep(const void *a, const void *b) {
  const struct mv_found *x = *(const struct mv_found *const *)a, *y = *(const struct mv_found *const *)b;
  if (x->r->dep_ring != y->r->dep_ring) return x->r->dep_ring < y->r->dep_ring ? -1 : 1;
  if (x->r->dep != y->r->dep) return x->r->dep < y->r->dep ? -1 : 1;
  return x->r->cts < y->r->cts ? -1 : x->r->cts > y->r->cts;
}

/* Cross-ring dependencies (docs/engines/mvcc.md): a record that read or
 * overwrote another ring's version committed at dep >= c proves that the
 * other ring's record of dep was durable before this one was written (a
 * commit is visible only once its record is), and it stays until c passes
 * it.  So when no intact record of that ring has that commit ts, damage
 * took it: typically the ring's last record, which alone looks exactly
 * like a crash's torn write. */
static void check_dependencies(struct mv_logs *L) {
  const struct mv_found **miss = NULL;
  size_t n = 0, cap = 0;
  for (size_t k = 0; k < L->nrec; k++) {
    const struct mv_rec *r = L->rec[k].r;
    if (!r->dep || r->dep < L->c) continue; /* none, or in the master and the CLog */
    if (r->dep_ring < mv.max_threads && have_record(L, r->dep, r->dep_ring)) continue;
    grow((void **)&miss, &cap, n, sizeof *miss, "dependent records");
    miss[n++] = &L->rec[k];
  }
  if (n > 1) qsort(miss, n, sizeof *miss, by_dep);
  for (size_t k = 0; k < n;) {
    const struct mv_rec *r = miss[k]->r;
    size_t e = k + 1;
    while (e < n && miss[e]->r->dep_ring == r->dep_ring && miss[e]->r->dep == r->dep) e++;
    uint32_t a = r->dep_ring;
    /* Short enough for one message line (base/diag.c: 1 KiB). */
    char where[200] = "";
    if (a >= mv.max_threads)
      snprintf(where, sizeof where, " (the record names ring %u; the heap has %u)", a, mv.max_threads);
    else if (!clean_end(a, L->end_pos[a], L->end_seq[a]))
      snprintf(where, sizeof where,
               ": ring %u's records end at sequence number %llu (file offset 0x%llx) with a broken record, which looks like "
               "a crash's torn write but was complete",
               a, (unsigned long long)L->end_seq[a], (unsigned long long)mv_ring_file_off(a, L->end_pos[a]));
    const struct mv_rec *last = miss[e - 1]->r;
    damage(L,
           "OLog ring %u's record with sequence number %llu (commit ts %llu, file offset 0x%llx) read or overwrote a version "
           "that ring %u committed at ts %llu (checkpoint boundary %llu), but ring %u holds no intact record with commit ts "
           "%llu; a commit is visible only once its record is durable, so damage took that record%s. At stake: the "
           "transaction committed at %llu and every later record that read its effects, at least %zu (commit ts %llu to %llu)",
           miss[k]->ring, (unsigned long long)r->seq, (unsigned long long)r->cts,
           (unsigned long long)mv_ring_file_off(miss[k]->ring, (uint64_t)((const char *)r - mv_ring_bytes(miss[k]->ring))), a,
           (unsigned long long)r->dep, (unsigned long long)L->c, a, (unsigned long long)r->dep, where,
           (unsigned long long)r->dep, e - k, (unsigned long long)r->cts, (unsigned long long)last->cts);
    k = e;
  }
  free(miss);
}

/* Early lock release (docs/engines/mvcc.md): a record that lists a
 * conditional dependency (a commit of another ring whose record was not yet
 * durable when this transaction read or overwrote its version) was
 * acknowledged only once that dependency was durable too.  So when no live
 * record of the dependency's ring has its commit ts (and it is not below
 * c, in the master), neither was acknowledged: the record is dropped, and
 * so is every record that depends on a dropped one.  Dependencies commit
 * before their dependents, so one pass in commit-ts order settles each
 * record after its dependencies.  Dropped records leave L->rec for
 * L->drop (recovery erases them before it writes anything else). */

static void drop_unacknowledged(struct mv_logs *L) {
  for (size_t k = 0; k < L->nrec; k++) {
    const struct mv_rec *r = L->rec[k].r; /* .dropped is 0: scan_ring found it */
    if (r->magic != MV_REC_MAGIC || r->cts < L->c) continue;
    for (unsigned i = 0; i < r->ncdep; i++) {
      uint32_t ring;
      uint64_t d = mv_rec_cdep(r, i, &ring);
      if (!d || d < L->c) continue; /* none, or in the master and the CLog */
      long j = ring < mv.max_threads ? find_record(L, d, ring) : -1;
      if (j < 0 || L->rec[j].dropped) {
        L->rec[k].dropped = 1;
        break;
      }
    }
  }
  size_t out = 0;
  for (size_t k = 0; k < L->nrec; k++) {
    if (!L->rec[k].dropped) {
      L->rec[out++] = L->rec[k];
      continue;
    }
    add_drop(L, L->rec[k].r, L->rec[k].ring);
  }
  L->nrec = out;
}

void mv_logs_scan(struct mv_logs *L, int detect, int report) {
  memset(L, 0, sizeof *L);
  L->detect = detect;
  L->report = report;
  size_t cap = 0;
  L->end_pos = calloc(mv.max_threads, sizeof *L->end_pos);
  L->end_seq = calloc(mv.max_threads, sizeof *L->end_seq);
  if (!L->end_pos || !L->end_seq) amber_fatal("mvcc recovery: out of memory");
  for (uint32_t i = 0; i < mv.max_threads; i++) scan_ring(L, i, &cap);
  if (L->nrec > 1) qsort(L->rec, L->nrec, sizeof *L->rec, by_cts);
  scan_clog(L);
  drop_unacknowledged(L);
  if (detect) {
    check_record_blocks(L);
    check_dependencies(L);
  }
  if (L->nck > 1) qsort(L->ck, L->nck, sizeof *L->ck, by_blk_cts);
}

void mv_logs_free(struct mv_logs *L) {
  free(L->rec);
  free(L->drop);
  free(L->ck);
  free(L->end_pos);
  free(L->end_seq);
}

int mv_logs_damage(void) {
  struct mv_logs L;
  mv_logs_scan(&L, 1, 1);
  int n = L.damaged;
  mv_logs_free(&L);
  return n;
}
