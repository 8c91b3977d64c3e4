/* Live statistics: a running program's counters, for `amber stats --pid`.
 * The program publishes a page, /dev/shm/amber-<uid>/live-<pid>.stats
 * (mode 0600, removed at exit), that a small thread fills with the
 * statistics as JSON when a reader asks: the reader adds 1 to `request`
 * and wakes it (a futex on the shared page), the thread writes `text`
 * between two increments of `seq` (odd while it writes) and sets `served`
 * to the request it saw.  Nobody asking, the thread sleeps: the program's
 * transactions never see it.  AMBER_LIVE_STATS=0: no page, no thread. */
#ifndef AMBER_LIVE_H
#define AMBER_LIVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define AMBER_LIVE_MAGIC "AMBLIVE1"
#define AMBER_LIVE_BYTES (128u * 1024u)
#define AMBER_LIVE_DIR_FMT "/dev/shm/amber-%u"
#define AMBER_LIVE_FILE_FMT "/dev/shm/amber-%u/live-%d.stats"

struct amber_live_page {
  char magic[8];
  int32_t pid;      /* the publishing process */
  uint32_t request; /* readers: += 1, then FUTEX_WAKE */
  uint32_t served;  /* the publisher: the request it answered, then FUTEX_WAKE */
  uint32_t seq;     /* odd while text is being written */
  uint32_t len;     /* bytes of JSON in text */
  uint32_t pad;
  uint64_t time_ns; /* CLOCK_REALTIME of the snapshot */
  uint64_t mono_ns; /* CLOCK_MONOTONIC of the snapshot */
  char text[];      /* one JSON object, NUL-terminated */
};

/* After the heap opened (init.c): publish the page and start the thread,
 * unless AMBER_LIVE_STATS=0.  A page that cannot be made costs a line
 * under AMBER_VERBOSE, never the program. */
void amber_live_start(void);

/* Writes the live statistics JSON (keys grouped tx, pm, engine, alloc) to f. */
void amber_live_write(FILE *f);

#endif
