/* Helpers shared by the amber tool's commands (tools/amber*.c). */
#ifndef AMBER_TOOL_H
#define AMBER_TOOL_H

#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "heap/heap.h"

/* The usage synopsis on stderr (the caller exits 2). */
void amber_tool_usage(void);

/* A heap opened for reading: what the file says, and what recovery would
 * make of it. */
struct amber_view {
  int clean;             /* the file's clean word: closed cleanly */
  int pending;           /* recovery was pending; it ran on the private copy */
  uint64_t opens;        /* times a program opened the heap */
  uint64_t engine_state; /* the file's engine state word, before recovery */
  /* What recovery had still to apply: committed transactions whose records
   * are not in the data area yet, checkpoint copies not written back; and
   * how many of those transactions the view leaves out (records only the
   * program that wrote them can apply): then the view is incomplete. */
  uint64_t pending_txns, pending_ckpts, left_out;
  /* A heap a running program has open (it holds the heap's lock): the
   * view is of a stable copy of the file (live.c in tools), never of the
   * file itself, and no lock is taken on it. */
  int live;
  int holder;       /* the process holding the lock (from /proc/locks); 0 when unknown */
  uint64_t as_of;   /* CLOCK_REALTIME ns when the copy was last found equal to the file */
  int passes;       /* reads of the file it took */
  int src_fd;       /* the heap file itself (durability); -1 unless live */
  int busy;         /* live, and the program changed the file during each read: no copy (amber_view_open failed, busy_ok) */
};

/* The reads amber_view_open makes of a live heap (AMBER_LIVE_COPY_TRIES). */
int amber_view_copy_tries(void);

/* Opens `path` with the heap's lock and copy-on-write mappings of the
 * read-only file, and runs the engine's recovery on them, so what the
 * caller reads is what the next program will find; the file itself is
 * never written (amber check does the same).  Returns 0, or -1 after an
 * amber: error: (the heap is refused, as a program would refuse it).
 * busy_ok: the caller shows something of a busy heap without a copy (info,
 * stats): then a live heap that never stood still fails without a
 * message, v->busy set. */
int amber_view_open(const char *path, struct amber_heap *h, struct amber_view *v, int busy_ok);
/* Unmaps the view's heap (and closes the live file). */
void amber_view_close(struct amber_heap *h, struct amber_view *v);

/* Whether a running program holds path's lock (a shared-lock probe that
 * takes nothing when it fails); *holder: its pid, 0 when unknown. */
int amber_heap_is_live(const char *path, int *holder);
/* "live: open by process P; read-only view of a copy as of HH:MM:SS UTC"
 * for the views' first lines. */
void amber_view_live_words(const struct amber_view *v, char *buf, size_t len);

/* The engine state word is engine-defined (docs/format.md lists the
 * values).  When its four low bytes spell capital letters (romulus: IDLE,
 * MUTA(TING), COPY(ING)), copies them into tag and returns 1; else 0. */
int amber_state_tag(uint64_t w, char tag[5]);

int amber_cmd_stats(int argc, char **argv);
/* For amber info on a busy heap: the running program's published counters
 * whose keys start with one of `prefixes` (NULL-terminated), as
 * "  key  value" lines, or with json as `, "counters": {...}` members; its
 * time in *real_ns.  Returns 0, or 2 after an amber: error:. */
int amber_stats_live_counters(int pid, const char *const *prefixes, int json, uint64_t *real_ns);
int amber_cmd_ordo(int argc, char **argv);
/* amber ordo HEAP [--json] (tools/amber_ordo_heap.c). */
int amber_cmd_ordo_heap(const char *path, int json);
int amber_cmd_plant_sites(int argc, char **argv);
/* amber path PROGRAM (tools/amber_path.c). */
int amber_cmd_path(int argc, char **argv);
/* amber dump HEAP ... (tools/amber_dump.c). */
int amber_cmd_dump(int argc, char **argv);

#endif
