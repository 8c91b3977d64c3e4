// The ORDO record in the heap: measured once and kept, re-measured when the
// CPU fingerprint changes, overridden (not overwritten) by
// AMBER_ORDO_BOUNDARY, monotonic across a simulated reboot, and a heap whose
// two record slots are both damaged is refused.
// RUN: %unit_cc %s -o %t %unit_libs
// RUN: rm -f %t.heap && %t %t.heap
// RUN: rm -f %t.heap && env AMBER_CLOCK=logical %t %t.heap
// RUN: rm -f %t.heap && env AMBER_ORDO_BOUNDARY=77 %t %t.heap env
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "engine/registry.h"
#include "heap/heap.h"
#include "base/options.h"
#include "ordo/ordo.h"
#include "heap/ordo_record.h"
#include "pm/pm.h"

static struct amber_heap h;

static const struct amber_ordo_record *attach(const char *path) {
  if (h.meta) amber_heap_unmap(&h);
  assert(amber_engine_heap_open(path, AMBER_OPEN_WRITE, &h) == 0);
  amber_ordo_record_attach(&h);
  const struct amber_ordo_record *r = amber_ordo_record_current(&h);
  assert(r && r->magic == AMBER_ORDO_MAGIC && r->mode == (uint32_t)amber_ordo_clk.mode);
  return r;
}

/* Rewrites the current record as a crash-free writer would, with changes. */
static void patch(struct amber_ordo_record *r) {
  amber_ordo_record_seal(r);
  memcpy((void *)amber_ordo_record_current(&h), r, sizeof *r);
}

int main(int argc, char **argv) {
  const char *path = argv[1];
  int env = argc > 2;
  amber_options_load();
  amber_pm_init();
  struct amber_create_args a = {2u << 20, 0x500000000000ull, AMBER_ENGINE_ROMULUS, 0};
  assert(amber_engine_heap_create(path, &a) == 0);
  int tsc = (amber_ordo_init(), amber_ordo_clk.mode == AMBER_ORDO_TSC);

  /* First open: measured (or from the variable) and stored. */
  const struct amber_ordo_record *r = attach(path);
  assert(r->seq == 1);
  uint64_t measured = r->boundary;
  if (tsc) {
    assert(amber_ordo_clk.source == (env ? AMBER_ORDO_SRC_ENV : AMBER_ORDO_SRC_MEASURED));
    assert(env ? amber_ordo_clk.boundary == 77 && measured == 0 : measured == amber_ordo_clk.boundary && measured > 0);
    if (!env) assert(r->fp.ncpus > 0 && r->fp.tsc_khz > 0);
  } else {
    assert(amber_ordo_clk.source == AMBER_ORDO_SRC_LOGICAL && amber_ordo_clk.boundary == 0);
  }
  amber_time_t t1 = amber_ordo_new_time(amber_ordo_get_time());

  /* Second open: the stored boundary is used, time goes on. */
  r = attach(path);
  assert(r->seq == 2 && r->boundary == measured);
  if (tsc && !env) assert(amber_ordo_clk.source == AMBER_ORDO_SRC_RECORD);
  assert(amber_ordo_cmp_time(amber_ordo_new_time(amber_ordo_get_time()), t1) == 1);

  /* Another machine (one CPU more): re-measured, fingerprint rewritten. */
  if (tsc && !env) {
    struct amber_ordo_record p = *r;
    uint32_t real = p.fp.ncpus;
    p.fp.ncpus = real + 1;
    p.boundary = 999999;
    patch(&p);
    r = attach(path);
    assert(amber_ordo_clk.source == AMBER_ORDO_SRC_MEASURED && r->fp.ncpus == real);
    assert(r->boundary == amber_ordo_clk.boundary && r->boundary != 999999);
  }

  /* A reboot: another boot id and a floor far ahead of this TSC.  Time must
   * resume past the floor. */
  struct amber_ordo_record p = *r;
  memset(p.boot_id, 0x5a, sizeof p.boot_id);
  p.floor = amber_ordo_get_time() + (1ull << 40);
  patch(&p);
  r = attach(path);
  assert(amber_ordo_cmp_time(amber_ordo_get_time(), p.floor) == 1);
  assert(r->floor > p.floor);

  /* A clean close records the floor again. */
  uint64_t seq = r->seq;
  amber_ordo_record_detach(&h);
  r = amber_ordo_record_current(&h);
  assert(r->seq == seq + 1 && amber_ordo_cmp_time(amber_ordo_new_time(r->floor), r->floor) == 1);

  /* Both slots damaged: the heap is refused, not silently reset. */
  char *slots = (char *)h.meta + AMBER_ORDO_OFFSET;
  slots[8] ^= 1;
  slots[AMBER_ORDO_SLOT + 8] ^= 1;
  amber_heap_unmap(&h);
  fprintf(stderr, "expect an error about the ORDO record:\n");
  assert(amber_engine_heap_open(path, 0, &h) == -1);
  /* One damaged slot (a torn write) is fine: the other is current. */
  FILE *f = fopen(path, "r+b");
  char c;
  fseek(f, AMBER_ORDO_OFFSET + 8, SEEK_SET);
  c = (char)fgetc(f);
  fseek(f, AMBER_ORDO_OFFSET + 8, SEEK_SET);
  fputc(c ^ 1, f);
  fclose(f);
  assert(amber_engine_heap_open(path, 0, &h) == 0);
  amber_heap_unmap(&h);
  return 0;
}
