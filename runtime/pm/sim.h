/* The crash simulator (AMBER_PM=sim), internal interface.  docs/crashtest.md
 * states the persistence model and the options.
 *
 * Model: `durable` is the heap file as the media holds it.  Each cache line
 * of the file has a list of pending stores (8-byte words, in global store
 * order) not yet durable.  A flush by thread T records (line, newest seq);
 * a fence by T makes those prefixes durable.  At a crash each line may hold
 * any prefix of its pending stores. */
#ifndef AMBER_SIM_H
#define AMBER_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "msync.h"
#include "pm.h"

struct sim_store {
  uint64_t seq;
  uint64_t val;
  uint32_t tid;
  uint8_t word; /* 0..7 within the line */
};

struct sim_line {
  uint64_t idx;         /* file offset / 64 */
  uint64_t flushed_seq; /* newest store covered by a flush not yet fenced */
  uint32_t flushed_tid; /* the thread of that flush */
  uint64_t journaled;   /* AMBER_SIM_MSYNC: newest store a sync made durable through the sync journal */
  uint32_t n, cap;
  struct sim_store *st; /* pending, oldest first */
};

/* The model, shared by sim.c (recording) and sim_image.c (crash images). */
struct sim_model {
  uint64_t file_size;
  unsigned char *durable;  /* file_size bytes */
  struct {
    unsigned char *addr;
    uint64_t len, file_off;
  } reg[AMBER_PM_MAX_REGIONS];
  int nreg;
  struct sim_line **tab;   /* open addressing by idx */
  size_t tabcap, used;
  uint64_t seq;
};

extern struct sim_model amber_sim;

/* Called by pm.c. */
void amber_sim_init(void);
void amber_sim_attach(const char *path, uint64_t file_size, const struct amber_pm_region *reg, int nreg);
void amber_sim_flush(const void *addr, size_t len);
void amber_sim_fence(void);
/* AMBER_SIM_MSYNC: after the fence's group commit (msync.c) returned. */
void amber_sim_fence_done(void);
/* AMBER_SIM_MSYNC: the msync backend's sync journal in the model
 * (msync.h): ranges are line indexes, the journal's bytes become durable
 * at once, and a journaled range counts as durable at a fence's return. */
extern const struct amber_msync_journal_ops amber_sim_journal_ops;
/* One line to stdout with one write(2), so lines of the program, of walk
 * children and of checkers never interleave mid-line. */
void amber_sim_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Adopts stores nobody reported (memory that differs from the model) as
 * pending stores.  Call with the heap quiet: the walk does it in the
 * program before forking, since a child sees the shared mapping change. */
void amber_sim_adopt_untracked(void);

/* Current contents of file offset `off` in the process's mapping. */
const unsigned char *amber_sim_mem(uint64_t off);

/* sim_image.c: enumerate, write and check the images of crash point n
 * (called with the model frozen: in the crashing process or a fork). */
void amber_sim_point(uint64_t n);

#endif
