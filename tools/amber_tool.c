/* Helpers shared by the amber tool's commands. */
#include "amber_tool.h"

#include <ctype.h>
#include <string.h>

#include "check.h"
#include "engine/registry.h"
#include "tx/engine.h"

int amber_view_open(const char *path, struct amber_heap *h, struct amber_view *v) {
  memset(v, 0, sizeof *v);
  if (amber_engine_heap_open(path, AMBER_OPEN_PRIVATE | AMBER_OPEN_LOCK, h) != 0) return -1;
  v->clean = h->status->clean == AMBER_CLEAN;
  v->opens = h->status->opens;
  v->engine_state = h->status->engine_state;
  v->pending = amber_check_recover_private(h, v->engine_state);
  v->pending_txns = h->pending_txns;
  v->pending_ckpts = h->pending_ckpts;
  v->left_out = h->pending_left_out;
  return 0;
}

int amber_state_tag(uint64_t w, char tag[5]) {
  memset(tag, 0, 5);
  if (w >> 32 || !w) return 0;
  for (int i = 0; i < 4; i++) {
    unsigned char c = (unsigned char)(w >> (8 * (3 - i)));
    if (!isupper(c)) {
      memset(tag, 0, 5);
      return 0;
    }
    tag[i] = (char)c;
  }
  return 1;
}
