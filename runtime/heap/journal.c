/* The sync journal's head, entries and replay (journal.h).  Why replaying
 * an epoch's entries in order is exact: docs/engines/msync.md, "The sync
 * journal". */
#include "journal.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/diag.h"
#include "heap.h"

/* The mapping that holds file offset off .. off+len, or NULL. */
static char *at(struct amber_heap *h, uint64_t off, uint64_t len) {
  const struct amber_header *hd = &h->hdr;
  if (off + len < off) return NULL;
  if (off >= AMBER_STATUS_OFFSET && off + len <= AMBER_META_SIZE) return (char *)h->meta + off;
  if (off >= hd->data_offset && off + len <= hd->data_offset + hd->data_size) return h->data + (off - hd->data_offset);
  if (h->engine_area && off >= hd->engine_offset && off + len <= hd->engine_offset + hd->engine_size)
    return h->engine_area + (off - hd->engine_offset);
  return NULL;
}

int amber_journal_replay(struct amber_heap *h) {
  h->journal_replayed = h->journal_pending = 0;
  if (!h->journal) return 0;
  const char *j = h->journal;
  uint64_t size = h->hdr.journal_size, epoch;
  if (amber_journal_head_read(j, &epoch, &h->journal_slot) != 0)
    return amber_error("heap %s: neither head of its sync journal (file offset %llu) is valid; the file is damaged: restore it "
                       "from a copy",
                       h->path, (unsigned long long)h->hdr.journal_offset);
  h->journal_epoch = epoch;
  int apply = h->writable || h->private_map;
  uint64_t n = 0;
  uint64_t pos = AMBER_JOURNAL_PAGE;
  for (; pos + sizeof(struct amber_journal_entry) <= size; n++) {
    const struct amber_journal_entry *e = (const void *)(j + pos);
    /* The first entry that is not the next one of this epoch ends it: a
     * sync the crash cut short, or an older epoch's bytes. */
    if (!amber_journal_entry_ok(e, size - pos, epoch) || e->seq != n) break;
    char *dst = at(h, e->off, e->len);
    if (!dst)
      return amber_error("heap %s: sync journal entry %llu (file offset %llu) names bytes %llu..%llu, outside the heap's "
                         "areas; the file is damaged: restore it from a copy",
                         h->path, (unsigned long long)n, (unsigned long long)(h->hdr.journal_offset + pos),
                         (unsigned long long)e->off, (unsigned long long)(e->off + e->len));
    if (apply) memcpy(dst, e + 1, e->len);
    pos += amber_journal_entry_size(e->len);
  }
  /* Torn or damaged?  Syncs are written one after the other, each durable
   * before the next starts, so an intact entry of a sync that started
   * after entry n (its sync_first above n) proves entry n's sync was
   * complete: entry n was damaged since, and the commits after it would
   * be lost.  Only entries of entry n's own sync may follow a tear.
   * Holes in the file read as zeros and hold no entry: skipped, so a
   * journal never written (any heap off the msync backend) costs no page
   * faults here. */
  uint64_t data_end = 0; /* journal offset where the data segment holding `at` ends */
  for (uint64_t at = pos + 8; at + sizeof(struct amber_journal_entry) <= size; at += 8) {
    if (at >= data_end) {
      off_t d = lseek(h->fd, (off_t)(h->hdr.journal_offset + at), SEEK_DATA);
      if (d < 0 && errno == ENXIO) break; /* only a hole after at */
      if (d < 0) {
        data_end = size; /* the file system cannot tell: read it all */
      } else {
        off_t e = lseek(h->fd, d, SEEK_HOLE);
        data_end = e < 0 ? size : (uint64_t)e - h->hdr.journal_offset;
        uint64_t from = ((uint64_t)d - h->hdr.journal_offset) & ~(uint64_t)7;
        /* An entry may start up to one header before the segment. */
        if (from > at + sizeof(struct amber_journal_entry)) at = from - sizeof(struct amber_journal_entry);
      }
    }
    const struct amber_journal_entry *e = (const void *)(j + at);
    if (e->sync_first <= n || e->seq <= n || !amber_journal_entry_ok(e, size - at, epoch)) continue;
    return amber_error("heap %s: sync journal entry %llu (file offset %llu) is damaged, but entry %llu of a later sync (file "
                       "offset %llu) is intact: commits made durable there would be lost; restore the heap from a copy",
                       h->path, (unsigned long long)n, (unsigned long long)(h->hdr.journal_offset + pos),
                       (unsigned long long)e->seq, (unsigned long long)(h->hdr.journal_offset + at));
  }
  if (!n) return 0;
  if (!apply || h->private_map) {
    if (apply) h->journal_replayed = n;
    else h->journal_pending = n;
    return 0;
  }
  /* The entries are in place and durable before the epoch moves past
   * them: from then on they are never applied again. */
  if (fdatasync(h->fd) != 0)
    return amber_error("heap %s: cannot sync its replayed sync journal (%s); check the disk", h->path, strerror(errno));
  int next = h->journal_slot ^ 1;
  amber_journal_head_write(h->journal, next, epoch + 1);
  if (msync(h->journal, AMBER_PAGE, MS_SYNC) != 0)
    return amber_error("heap %s: cannot sync its sync journal's head (%s); check the disk", h->path, strerror(errno));
  h->journal_slot = next;
  h->journal_epoch = epoch + 1;
  h->journal_replayed = n;
  amber_info("heap %s: replayed %llu sync journal entr%s (commits the last run made durable there)", h->path,
             (unsigned long long)n, n == 1 ? "y" : "ies");
  return 0;
}
