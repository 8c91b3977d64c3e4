/* The sync journal's head and entries (journal.h). */
#include "journal.h"

#include <string.h>

#include "base/crc32c.h"

uint32_t amber_journal_head_crc(const struct amber_journal_head *h) {
  return amber_crc32c(0, h, offsetof(struct amber_journal_head, crc));
}

uint32_t amber_journal_entry_crc(const struct amber_journal_entry *e, const void *bytes) {
  return amber_crc32c(amber_crc32c(0, e, offsetof(struct amber_journal_entry, crc)), bytes, e->len);
}

static int head_valid(const struct amber_journal_head *h) {
  return !memcmp(h->magic, AMBER_JOURNAL_MAGIC, sizeof h->magic) && h->pad == 0 && h->crc == amber_journal_head_crc(h);
}

static int blank(const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++)
    if (c[i]) return 0;
  return 1;
}

int amber_journal_head_read(const char *j, uint64_t *epoch, int *slot) {
  const struct amber_journal_head *a = (const void *)j, *b = (const void *)(j + AMBER_JOURNAL_SLOT);
  int va = head_valid(a), vb = head_valid(b);
  if (!va && !vb) {
    *epoch = 0;
    *slot = 0;
    return blank(j, 2 * AMBER_JOURNAL_SLOT) ? 0 : -1;
  }
  *slot = va && (!vb || a->epoch >= b->epoch) ? 0 : 1;
  *epoch = *slot ? b->epoch : a->epoch;
  return 0;
}

void amber_journal_head_write(char *j, int slot, uint64_t epoch) {
  struct amber_journal_head h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, AMBER_JOURNAL_MAGIC, sizeof h.magic);
  h.epoch = epoch;
  h.crc = amber_journal_head_crc(&h);
  memcpy(j + (size_t)slot * AMBER_JOURNAL_SLOT, &h, sizeof h);
}

int amber_journal_entry_ok(const struct amber_journal_entry *e, uint64_t room, uint64_t epoch) {
  return room >= sizeof *e && e->magic == AMBER_JOURNAL_ENTRY_MAGIC && e->epoch == epoch && e->len &&
         e->len <= room - sizeof *e && e->sync_first <= e->seq && e->crc == amber_journal_entry_crc(e, e + 1);
}
