/* amber check (check.h).  Opening the heap already validated what every
 * program validates (header and its checksum, file size, status word,
 * ORDO slots, engine state word, data-header geometry); this adds what a
 * program does not look at on each open: every unused byte that must be
 * zero, the ORDO records' fields, the status words, then, on what recovery
 * leaves, the engine's structures and the allocator's page table and root. */
#include "check.h"

#include <stdio.h>
#include <string.h>

#include "tx/alloc.h"
#include "base/crc32c.h"
#include "base/diag.h"
#include "tx/engine.h"
#include "engine/registry.h"
#include "heap/heap.h"
#include "heap/ordo_record.h"
#include "heap/owner.h"

#define DAMAGED "the heap file is damaged: restore it from a copy"

static int zero_run(const struct amber_heap *h, uint64_t from, uint64_t to, const char *what) {
  const unsigned char *m = h->meta;
  for (uint64_t i = from; i < to; i++)
    if (m[i]) {
      amber_error("heap %s: %s is not zero (byte 0x%02x at file offset 0x%llx); " DAMAGED, h->path, what, m[i],
                  (unsigned long long)i);
      return 1;
    }
  return 0;
}

static int slot_empty(const struct amber_ordo_record *r, size_t n) {
  const unsigned char *c = (const unsigned char *)r;
  for (size_t i = 0; i < n; i++)
    if (c[i]) return 0;
  return 1;
}

static int slot_valid(const struct amber_ordo_record *r) {
  return r->magic == AMBER_ORDO_MAGIC && r->crc == amber_crc32c(0, r, offsetof(struct amber_ordo_record, crc));
}

static int check_ordo(const struct amber_heap *h) {
  int bad = 0;
  const struct amber_ordo_record *s[2];
  int valid[2];
  for (int i = 0; i < 2; i++) {
    s[i] = (const struct amber_ordo_record *)((const char *)h->meta + AMBER_ORDO_OFFSET + (uint64_t)i * AMBER_ORDO_SLOT);
    valid[i] = slot_valid(s[i]);
  }
  for (int i = 0; i < 2; i++) {
    uint64_t off = AMBER_ORDO_OFFSET + (uint64_t)i * AMBER_ORDO_SLOT;
    if (valid[i]) {
      if (s[i]->mode != 1 && s[i]->mode != 2) {
        amber_error("heap %s: ORDO record slot %d (file offset 0x%llx) has clock mode %u (1 tsc, 2 logical); " DAMAGED, h->path, i,
                    (unsigned long long)off, s[i]->mode);
        bad++;
      }
      const struct amber_ordo_provenance *p = &s[i]->how;
      if (p->how > AMBER_ORDO_HOW_MAX || (p->flags & ~AMBER_ORDO_PROVISIONAL) ||
          (p->check_flags & ~(AMBER_ORDO_CHECK_DONE | AMBER_ORDO_CHECK_CLEAN)) || (p->how && s[i]->boundary == 0)) {
        amber_error("heap %s: ORDO record slot %d (file offset 0x%llx) says how its boundary was obtained with values no amber writes (how %u, flags 0x%x, check flags 0x%x, boundary %llu); " DAMAGED,
                    h->path, i, (unsigned long long)off, p->how, p->flags, p->check_flags, (unsigned long long)s[i]->boundary);
        bad++;
      }
      if (s[i]->reserved || s[i]->fp.pad) {
        amber_error("heap %s: ORDO record slot %d (file offset 0x%llx) has reserved fields set; " DAMAGED, h->path, i,
                    (unsigned long long)off);
        bad++;
      }
    } else if (!slot_empty(s[i], sizeof *s[i])) {
      /* A write goes to the slot that is not current, so a crash in the
       * middle of one leaves exactly this: legal, and harmless. */
      amber_warn("heap %s: ORDO record slot %d (file offset 0x%llx) fails its checksum: an interrupted write, or damage; %s", h->path, i,
                 (unsigned long long)off, valid[!i] ? "the other slot is used" : "the heap has no ORDO record");
    }
    char what[64];
    snprintf(what, sizeof what, "the unused end of ORDO record slot %d", i);
    bad += zero_run(h, off + sizeof *s[i], off + AMBER_ORDO_SLOT, what);
  }
  /* Each write takes the other slot and the next number. */
  if (valid[0] && valid[1] && s[0]->seq + 1 != s[1]->seq && s[1]->seq + 1 != s[0]->seq) {
    amber_error("heap %s: the two ORDO record slots (file offset 0x%x) hold writes %llu and %llu, which are not consecutive; " DAMAGED,
                h->path, AMBER_ORDO_OFFSET, (unsigned long long)s[0]->seq, (unsigned long long)s[1]->seq);
    bad++;
  }
  return bad;
}

int amber_check_meta(const struct amber_heap *h) {
  int bad = 0;
  bad += zero_run(h, sizeof(struct amber_header), AMBER_STATUS_OFFSET, "the unused end of the header page");
  const struct amber_status *st = h->status;
  for (unsigned i = 0; i < sizeof st->reserved / sizeof st->reserved[0]; i++)
    if (st->reserved[i]) {
      amber_error("heap %s: reserved status word %u (file offset 0x%llx) is 0x%llx, not 0; " DAMAGED, h->path, i,
                  (unsigned long long)(AMBER_STATUS_OFFSET + offsetof(struct amber_status, reserved) + 8 * i),
                  (unsigned long long)st->reserved[i]);
      bad++;
    }
  bad += zero_run(h, AMBER_STATUS_OFFSET + sizeof *st, AMBER_ORDO_OFFSET, "the unused end of the status page");
  bad += check_ordo(h);
  bad += zero_run(h, AMBER_ORDO_OFFSET + 2 * AMBER_ORDO_SLOT, AMBER_CODENAMES_OFFSET, "the unused metadata area before the code name table");
  /* The code name table (heap/codenames.c) ends at its first invalid
   * record: a torn append leaves bytes there that the next one overwrites. */
  return bad;
}

int amber_check_recovered(struct amber_heap *h, size_t *objects, size_t *bytes) {
  int bad = h->engine->check(h);
  bad += amber_alloc_check(h, h->data, objects, bytes);
  return bad;
}

int amber_check_recover_private(struct amber_heap *h, uint64_t state_before) {
  h->recovery_work = 0;
  h->engine->recover(h);
  return h->status->engine_state != state_before || h->recovery_work;
}

int amber_check_path_report(const char *path, int quiet, struct amber_check_report *r) {
  memset(r, 0, sizeof *r);
  struct amber_heap h;
  if (amber_engine_heap_open(path, AMBER_OPEN_PRIVATE | AMBER_OPEN_LOCK, &h) != 0) return r->status = 2;
  int bad = amber_check_meta(&h);
  uint64_t clean = h.status->clean, state = h.status->engine_state;
  int pending = amber_check_recover_private(&h, state);
  if (pending && clean == AMBER_CLEAN) {
    amber_error("heap %s: marked cleanly closed, but its %s engine state word (file offset 0x%llx, 0x%llx) says recovery is pending; "
                "the status page is damaged: run amber recover on a copy and compare, or restore the heap from a copy",
                h.path, h.engine->name, (unsigned long long)(AMBER_STATUS_OFFSET + offsetof(struct amber_status, engine_state)),
                (unsigned long long)state);
    bad++;
  }
  if (clean != AMBER_CLEAN && !quiet)
    printf("%s: not closed cleanly (a program crashed, was killed, or is still running)%s\n", h.path,
           pending ? "; recovery is pending: checking the state recovery will produce, computed on a private copy (the file is not changed)"
                   : "; no recovery is needed");
  size_t objs = 0, used = 0;
  bad += amber_check_recovered(&h, &objs, &used);
  const struct amber_data_header *dh = amber_heap_dh(&h);
  r->pending_txns = h.pending_txns;
  r->pending_ckpts = h.pending_ckpts;
  r->left_out = h.pending_left_out;
  char pend[512];
  amber_pending_words(pend, sizeof pend, h.path, r->pending_txns, r->pending_ckpts, r->left_out);
  if (bad) {
    amber_error("heap %s is damaged: %d problem%s (listed above); restore it from a copy. Until then, do not run programs on it: "
                "what they write may be lost",
                h.path, bad, bad == 1 ? "" : "s");
  } else if (!quiet) {
    /* Invariant: "consistent" only when nothing committed was left out. */
    if (r->left_out) printf("%s: incomplete: no damage found, but committed work is missing from what was checked: %s (", h.path, pend);
    else if (r->pending_txns || r->pending_ckpts) printf("%s: consistent after recovery: %s (", h.path, pend);
    else printf("%s: consistent (", h.path);
    printf("%s engine, %zu objects, %zu bytes in use of %llu", h.engine->name, objs, used, (unsigned long long)h.hdr.data_size);
    if (dh->root_off) printf(", root at offset 0x%llx, %llu bytes)\n", (unsigned long long)dh->root_off, (unsigned long long)dh->root_size);
    else printf(", no root)\n");
  }
  /* Read-only, any heap this user can open: whose it is, for the reader to
   * judge (a program opens only its own, docs/guide.md, Security). */
  char who[160];
  amber_heap_owner_text(h.owner_uid, h.mode, who, sizeof who);
  if (!quiet) printf("%s: owner %s\n", h.path, who);
  r->owner_uid = h.owner_uid;
  r->mode = h.mode;
  r->problems = bad;
  r->clean = clean == AMBER_CLEAN;
  r->pending = pending;
  r->engine = h.engine->name;
  r->objects = objs;
  r->bytes = used;
  r->data_size = h.hdr.data_size;
  r->root_off = dh->root_off;
  r->root_size = dh->root_size;
  amber_heap_unmap(&h);
  return r->status = bad ? 1 : r->left_out ? 3 : 0;
}

void amber_pending_json(FILE *f, uint64_t txns, uint64_t ckpts, uint64_t left_out) {
  fprintf(f, ", \"pending_txns\": %llu, \"pending_checkpoints\": %llu, \"pending_left_out\": %llu, \"complete\": %s",
          (unsigned long long)txns, (unsigned long long)ckpts, (unsigned long long)left_out, left_out ? "false" : "true");
}

void amber_pending_words(char *buf, size_t n, const char *path, uint64_t txns, uint64_t ckpts, uint64_t left_out) {
  if (left_out)
    snprintf(buf, n,
             "recovery has %llu committed transaction%s and %llu checkpoint cop%s to apply; %llu of those transactions are left "
             "out here (operational records only the program that wrote them re-executes: amber recover %s --with PROGRAM)",
             (unsigned long long)txns, txns == 1 ? "" : "s", (unsigned long long)ckpts, ckpts == 1 ? "y" : "ies",
             (unsigned long long)left_out, path);
  else if (txns || ckpts)
    snprintf(buf, n, "recovery has %llu committed transaction%s and %llu checkpoint cop%s to apply (applied here on a private copy)",
             (unsigned long long)txns, txns == 1 ? "" : "s", (unsigned long long)ckpts, ckpts == 1 ? "y" : "ies");
  else snprintf(buf, n, "nothing for recovery to apply");
}
