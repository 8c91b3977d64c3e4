/* amber check: verification of every structure of a heap file, without
 * writing it (docs/format.md lists the structures). */
#ifndef AMBER_CHECK_H
#define AMBER_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct amber_heap;

/* The metadata outside the data area of an open heap, as found in the file
 * (before any recovery): header page, status words, ORDO record slots,
 * unused bytes.  Prints each problem; returns their number. */
int amber_check_meta(const struct amber_heap *h);

/* What recovery leaves: the engine's own structures (engine->check) and the
 * allocator's metadata of the data area.  Call it after engine->recover.
 * Prints each problem; returns their number; fills objects/bytes. */
int amber_check_recovered(struct amber_heap *h, size_t *objects, size_t *bytes);

/* Runs the engine's recovery on a heap opened with AMBER_OPEN_PRIVATE (its
 * copy-on-write mappings take the writes; the file never sees them), so
 * that what the caller reads is what the next program will find.  Returns
 * whether recovery had work to do: the engine state word moved from
 * `state_before` (the file's, read before), or the engine said so. */
int amber_check_recover_private(struct amber_heap *h, uint64_t state_before);

/* The exit status of a command that showed an incomplete view (committed
 * transactions left out): info, stats and check (docs/guide.md, EXIT STATUS). */
#define AMBER_EXIT_INCOMPLETE 3

/* The pending counts as JSON keys (`, "pending_txns": N, ...`) and as words
 * for a summary line. */
void amber_pending_json(FILE *f, uint64_t txns, uint64_t ckpts, uint64_t left_out);
void amber_pending_words(char *buf, size_t n, const char *path, uint64_t txns, uint64_t ckpts, uint64_t left_out);

/* amber check's findings (amber check --json). */
struct amber_check_report {
  int status;         /* the exit status: 0 consistent, 1 damaged, 2 unusable, 3 incomplete */
  int problems;       /* problems found (each printed on stderr) */
  int clean;          /* the file says it was closed cleanly */
  int pending;        /* recovery was pending (it ran on the private copy) */
  const char *engine; /* NULL when the heap could not be opened */
  size_t objects, bytes;
  uint64_t data_size, root_off, root_size;
  unsigned owner_uid, mode; /* the file's owner and permissions */
  uint64_t pending_txns, pending_ckpts, left_out; /* struct amber_view's */
};

/* The whole of `amber check PATH`: opens the heap read-only (validation),
 * checks its metadata, runs recovery on a private copy-on-write mapping
 * when a crash left it pending (the file is never written), checks the
 * result, and prints a summary; fills `r`.  With `quiet`, nothing goes to
 * stdout (the problems still go to stderr).  Returns the exit status: 0
 * consistent, 1 damaged, 2 unusable (refused at open), 3 incomplete (no
 * damage found, but committed transactions recovery has to apply were left
 * out: the tool cannot apply them). */
int amber_check_path_report(const char *path, int quiet, struct amber_check_report *r);

#endif
