/* The public API of include/amber.h that works on the process's heap
 * (amber_root, amber_usage): it opens the heap at first use. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tx/alloc.h"
#include "amber.h"
#include "base/diag.h"
#include "init.h"
#include "pm/pm.h"
#include "stats.h"
#include "tx/tx.h"

struct root_req {
  size_t size;
  void *result;
  uint64_t held; /* the size of the heap's root, when it is not `size` */
};

static void root_fn(void *arg) {
  struct root_req *r = arg;
  struct amber_thread *t = amber_thread();
  struct amber_data_header *dh = amber_heap_dh(&amber_the_heap);
  uint64_t off, size;
  amber_tx_read(t, &dh->root_off, &off, sizeof off);
  amber_tx_read(t, &dh->root_size, &size, sizeof size);
  if (off) {
    if (size != r->size) {
      r->held = size; /* refused outside the transaction (amber_root) */
      return;
    }
    r->result = amber_heap_canonical(amber_the_heap.data + off);
    return;
  }
  void *obj = amber_palloc(t, r->size);
  char *p = amber_heap_alias(obj);
  /* Reused space may hold old bytes: the root starts zeroed. */
  static const char zero[256];
  for (size_t i = 0; i < r->size; i += sizeof zero)
    amber_tx_write(t, p + i, zero, r->size - i < sizeof zero ? r->size - i : sizeof zero);
  off = (uint64_t)(p - amber_the_heap.data);
  size = r->size;
  amber_tx_write(t, &dh->root_off, &off, sizeof off);
  amber_tx_write(t, &dh->root_size, &size, sizeof size);
  r->result = obj;
}

void *amber_root(size_t size) {
  if (size == 0) amber_fatal("amber_root(0): the root object needs a size; pass sizeof your root struct");
  amber_ensure_init();
  struct amber_data_header *dh = amber_heap_dh(&amber_the_heap);
  /* Fast path: an existing root of the right size needs no transaction.
   * Its two words are read as committed (another thread's running
   * transaction may be creating the root). */
  if (amber_tx_engine->direct_reads) {
    uint64_t root[2]; /* root_off, root_size */
    _Static_assert(offsetof(struct amber_data_header, root_size) == offsetof(struct amber_data_header, root_off) + 8,
                   "root_off and root_size are adjacent");
    amber_tx_read(amber_thread(), &dh->root_off, root, sizeof root);
    if (root[0] && root[1] == size) return amber_heap_canonical(amber_the_heap.data + root[0]);
  }
  struct root_req r = {size, NULL, 0};
  char what[64];
  snprintf(what, sizeof what, "amber_root(%zu bytes)", size);
  amber_tx_run_internal_named(what, root_fn, &r);
  if (r.held) {
    /* The guide promises an untouched heap: undo what the open wrote. */
    int kept = amber_close_unchanged();
    amber_fatal("amber_root(%zu): heap %s holds a root of %llu bytes; pass the size the heap was created with, or start a new heap "
                "file (the heap %s)",
                size, amber_the_heap.path, (unsigned long long)r.held,
                kept == 0 ? "is unchanged" : "was closed cleanly, keeping what the open recovered and this run committed");
  }
  return r.result;
}

void amber_usage(struct amber_usage *out) {
  amber_ensure_init();
  memset(out, 0, sizeof *out);
  out->heap_bytes = amber_the_heap.hdr.data_size;
  /* The allocator's metadata is read from the data area: bring it up to
   * date first (engines that keep committed versions elsewhere). */
  struct amber_thread *t = amber_thread();
  /* The caller's own stores outside regions first (its stray batch: under
   * mvcc they are versions the data area does not have yet, a root made
   * outside regions among them). */
  if (t->depth == 0) amber_tx_batch_commit(t);
  if (amber_tx_engine->sync && t->depth == 0) amber_tx_engine->sync();
  amber_alloc_check(&amber_the_heap, amber_the_heap.data, &out->objects, &out->bytes);
}

/* The thread's stores outside regions: durable, and visible to every
 * thread, when it returns (tx/batch.c).  Nothing to do inside a region
 * (the thread's batch committed when the region began) or before the heap
 * is open (no store can have reached it). */
void amber_sync(void) {
  if (!amber_tx_is_ready()) return;
  struct amber_thread *t = amber_thread();
  if (!t->depth) amber_tx_batch_commit(t);
}

/* Deferred durability (docs/guide.md): a per-thread counter the engine's
 * commit reads; the wait is the engine's (none: commits are durable at
 * return).  Not inside a region: the region's own commit comes later. */
static struct amber_thread *outside_region(const char *fn) {
  struct amber_thread *t = amber_thread();
  if (t->depth)
    amber_fatal("%s called inside a region; call it between regions (the region's commit has not happened yet)", fn);
  return t;
}

void amber_defer_durability_begin(void) { outside_region("amber_defer_durability_begin")->defer_durability++; }

void amber_defer_durability_end(void) {
  struct amber_thread *t = outside_region("amber_defer_durability_end");
  if (t->defer_durability <= 0)
    amber_fatal("amber_defer_durability_end called without a matching amber_defer_durability_begin on this thread");
  t->defer_durability--;
}

void amber_wait_durable(void) {
  if (!amber_tx_is_ready()) return; /* no heap open: nothing committed */
  struct amber_thread *t = outside_region("amber_wait_durable");
  if (amber_tx_engine->wait_durable) amber_tx_engine->wait_durable(t);
}

unsigned long long amber_durable_token(void) {
  if (!amber_tx_is_ready()) return 0;
  struct amber_thread *t = outside_region("amber_durable_token");
  return amber_tx_engine->durable_token ? amber_tx_engine->durable_token(t) : 0;
}

/* Tickets complete in order (pm.h), so any thread may wait for one.  The
 * caller batched the commits itself: its sync does not wait to gather
 * more (docs/engines/msync.md, "Gathering"). */
void amber_wait_token(unsigned long long token) {
  if (!token || !amber_tx_is_ready()) return;
  outside_region("amber_wait_token");
  amber_pm_fence_wait_now(token);
}

int amber_token_durable(unsigned long long token) { return amber_pm_fence_durable(token); }

int amber_is_persistent(const void *p) { return amber_tx_is_ready() && amber_in_heap(p); }

size_t amber_stats_text(char *buf, size_t size, int json) {
  char *text = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&text, &n);
  if (!f) amber_fatal("amber_stats_text: out of memory for the statistics");
  amber_stats_write(f, json != 0);
  if (fclose(f) != 0 || !text) amber_fatal("amber_stats_text: out of memory for the statistics");
  if (size) {
    size_t k = n < size - 1 ? n : size - 1;
    memcpy(buf, text, k);
    buf[k] = 0;
  }
  free(text);
  return n;
}
