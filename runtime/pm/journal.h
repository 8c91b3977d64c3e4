/* The sync journal's on-media format (docs/format.md, "Sync journal"):
 * its head slots and entries, their checksums.  The msync backend writes
 * it (pm/msync.c, docs/engines/msync.md, "The sync journal"); every open
 * replays it (heap/journal.c).  Part of the heap layout: a change here
 * changes AMBER_FORMAT_VERSION (heap/format.h). */
#ifndef AMBER_PM_JOURNAL_H
#define AMBER_PM_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#define AMBER_JOURNAL_PAGE 4096u /* the head page; entries start after it */
/* The sync journal (docs/format.md, "Sync journal"; written by the msync
 * backend, runtime/pm/msync.c, replayed at open by heap/journal.c).  Its
 * first page holds two head slots, AMBER_JOURNAL_SLOT bytes apart: the
 * valid one with the larger epoch is current.  Entries follow from
 * AMBER_JOURNAL_PAGE, 8-byte aligned, each a header and `len` bytes to copy to
 * file offset `off`; an epoch's entries are numbered 0, 1, 2, ... and the
 * first that is not valid ends it. */
#define AMBER_JOURNAL_MAGIC "AMBRJNL" /* 8 bytes with the NUL */
#define AMBER_JOURNAL_ENTRY_MAGIC 0x544e454au /* "JENT" */
#define AMBER_JOURNAL_SLOT 64u
#define AMBER_JOURNAL_MAX (1ull << 30)
struct amber_journal_head {
  char magic[8];  /* AMBER_JOURNAL_MAGIC */
  uint64_t epoch; /* entries of other epochs are void */
  uint32_t pad;   /* 0 */
  uint32_t crc;   /* crc32c of the 20 bytes before it */
};
struct amber_journal_entry {
  uint32_t magic; /* AMBER_JOURNAL_ENTRY_MAGIC */
  uint32_t len;   /* bytes that follow (then zeros to 8-byte alignment) */
  uint64_t epoch; /* the head's epoch when written */
  uint64_t seq;   /* 0, 1, 2, ... within the epoch */
  uint64_t off;   /* file offset the bytes belong at */
  uint32_t sync_first; /* seq of the first entry its sync wrote */
  uint32_t crc;   /* crc32c of the 36 bytes before it, then of the bytes */
};

uint32_t amber_journal_head_crc(const struct amber_journal_head *h);
uint32_t amber_journal_entry_crc(const struct amber_journal_entry *e, const void *bytes);
/* The current head of the journal mapped at j: 0 with *epoch and *slot
 * (both slots blank: epoch 0, slot 0); -1 when neither slot is valid and
 * the head page is not blank (damage). */
int amber_journal_head_read(const char *j, uint64_t *epoch, int *slot);
/* Stores epoch into head slot `slot` of j (the caller persists the line). */
void amber_journal_head_write(char *j, int slot, uint64_t epoch);
/* Bytes an entry of len bytes takes, header included. */
static inline uint64_t amber_journal_entry_size(uint64_t len) {
  return sizeof(struct amber_journal_entry) + ((len + 7u) & ~(uint64_t)7u);
}
/* Whether the entry at e (room bytes to the journal's end) is intact and
 * of this epoch (its number not checked). */
int amber_journal_entry_ok(const struct amber_journal_entry *e, uint64_t room, uint64_t epoch);

#endif
