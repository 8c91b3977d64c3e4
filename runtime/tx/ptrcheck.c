/* The pointer check, AMBER_CHECK_POINTERS (docs/guide.md, "Pointers to
 * volatile memory"): the program's stores into the heap whose words look
 * like pointers out of it are candidates (entry/access.c records them,
 * after the cheap filter of ptrcheck.h); at the commit of their
 * transaction, each candidate word that still holds its value and points
 * into volatile memory (tx/vmaps.c; code is the function-pointer handles'
 * business, not this check's) is reported with the region's file:line. */
#include "ptrcheck.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/options.h"
#include "tx.h"
#include "vmaps.h"

int amber_ptrcheck_mode;
uint64_t amber_ptrcheck_lo = 0x400000u;

void amber_ptrcheck_init(void) {
  const char *v = amber_opt.check_pointers;
  int mode;
  if (!v || !v[0] || !strcmp(v, "off") || !strcmp(v, "0")) mode = AMBER_PTRCHECK_OFF;
  else if (!strcmp(v, "warn")) mode = AMBER_PTRCHECK_WARN;
  else if (!strcmp(v, "error") || !strcmp(v, "1")) mode = AMBER_PTRCHECK_ERROR;
  else
    amber_fatal("AMBER_CHECK_POINTERS=%s is not a checking mode; use off (the default), warn or error "
                "(docs/options.md)", v);
  if (mode != AMBER_PTRCHECK_OFF) {
    uint64_t lo = amber_vmaps_lowest();
    if (lo > 0x400000u && lo < AMBER_PTRCHECK_TOP) __atomic_store_n(&amber_ptrcheck_lo, lo, __ATOMIC_RELAXED);
  }
  __atomic_store_n(&amber_ptrcheck_mode, mode, __ATOMIC_RELAXED);
}

static void push(struct amber_thread *t, uintptr_t p, uint64_t v, const char *site) {
  if (t->nptrc == t->capptrc) {
    size_t c = t->capptrc ? t->capptrc * 2 : 64;
    struct amber_ptrcand *q = realloc(t->ptrc, c * sizeof *q);
    if (!q) amber_fatal("out of memory for the pointer check's candidates (%zu entries); AMBER_CHECK_POINTERS=off", c);
    t->ptrc = q;
    t->capptrc = c;
  }
  t->ptrc[t->nptrc++] = (struct amber_ptrcand){p, v, site};
}

void amber_ptrcheck_note_slow(struct amber_thread *t, uintptr_t p, const void *src, size_t n, const char *site) {
  /* Every 8-byte-aligned word the store covers whole. */
  uintptr_t first = (p + 7) & ~(uintptr_t)7;
  for (uintptr_t a = first; a + 8 <= p + n; a += 8) {
    uint64_t v;
    memcpy(&v, (const char *)src + (a - p), 8);
    if (amber_ptrcheck_maybe(v)) push(t, a, v, site);
  }
}

/* What v points into, in words for the message; 0 when not volatile. */
static int describe(uintptr_t v, const struct amber_thread *self, char *out, size_t len) {
  for (struct amber_thread *s = amber_threads(); s; s = s->next_thread) {
    uintptr_t lo = __atomic_load_n(&s->stack_lo, __ATOMIC_RELAXED), hi = __atomic_load_n(&s->stack_hi, __ATOMIC_RELAXED);
    if (lo && v >= lo && v < hi) {
      snprintf(out, len, "the stack of thread %u%s", s->index, s == self ? ", the committing thread" : "");
      return 1;
    }
  }
  char mod[256];
  switch (amber_vmaps_find(v, mod, sizeof mod)) {
  case AMBER_VMAP_BRK: snprintf(out, len, "libc heap: memory malloc'd outside any region"); return 1;
  case AMBER_VMAP_ANON:
    snprintf(out, len, "libc heap or mmap: anonymous memory, e.g. a large block malloc'd outside any region");
    return 1;
  case AMBER_VMAP_STACK: snprintf(out, len, "the stack of the main thread"); return 1;
  case AMBER_VMAP_DATA:
    snprintf(out, len, "data of %s: a global or static variable, or a constant", mod[0] ? mod : "a module");
    return 1;
  case AMBER_VMAP_NONE: break;
  }
  return 0;
}

/* Who committed: "region NAME (FILE:LINE)", "stores outside regions at
 * SITE", or the transaction's name. */
static void who(const struct amber_thread *t, const struct amber_ptrcand *c, char *out, size_t len) {
  if (t->desc)
    snprintf(out, len, "region %s (%s:%u)", t->desc->name ? t->desc->name : "?", t->desc->file ? t->desc->file : "?",
             t->desc->line);
  else if (t->batch)
    snprintf(out, len, "the stores outside regions at %s (committed as one batch)", c->site ? c->site : "an unknown site");
  else if (!t->what && t->fase != AMBER_FASE_OPEN)
    snprintf(out, len, "a libc function (asprintf, getline, strtok_r, ...), free or realloc called outside regions");
  else
    snprintf(out, len, "%s", amber_tx_name(t));
}

/* Warn mode reports each site once: a region's descriptor, a stray
 * site's string, or an internal transaction's name. */
#define SEEN_MAX 256
static const void *seen[SEEN_MAX];
static size_t nseen;
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static int first_time(const void *key) {
  int first = 1;
  pthread_mutex_lock(&seen_lock);
  for (size_t i = 0; i < nseen; i++)
    if (seen[i] == key) first = 0;
  if (first && nseen < SEEN_MAX) seen[nseen++] = key;
  pthread_mutex_unlock(&seen_lock);
  return first;
}

/* The word at canonical address p as t's transaction leaves it.  Its
 * region's depth is back to 0 when it commits: the engines that tell the
 * transaction's view by depth (romulus) see it raised for the read. */
static uint64_t read_own(struct amber_thread *t, uintptr_t p) {
  uint64_t v = 0;
  int depth = t->depth;
  if (!depth && !t->batch) t->depth = 1;
  amber_tx_read(t, amber_heap_alias((const void *)p), &v, 8);
  t->depth = depth;
  return v;
}

void amber_ptrcheck_commit(struct amber_thread *t) {
  size_t n = t->nptrc;
  t->nptrc = 0;
  int errors = 0;
  for (size_t i = 0; i < n; i++) {
    struct amber_ptrcand *c = &t->ptrc[i];
    char what[512];
    if (!describe((uintptr_t)c->value, t, what, sizeof what)) continue;
    uint64_t cur = read_own(t, c->addr);
    if (cur != c->value) continue; /* overwritten later in the transaction */
    const void *key = t->desc ? (const void *)t->desc : t->batch ? (const void *)c->site : (const void *)t->what;
    if (amber_ptrcheck_on() == AMBER_PTRCHECK_WARN && !first_time(key)) continue;
    char by[512];
    who(t, c, by, sizeof by);
    unsigned long long off = (unsigned long long)(c->addr - __amber_heap_base);
    if (amber_ptrcheck_on() == AMBER_PTRCHECK_WARN) {
      amber_warn("%s left a persistent pointer at heap+0x%llx to volatile memory (%s): 0x%llx, which the next run "
                 "cannot have; allocate what it points to inside a region (malloc there is persistent), or keep the "
                 "pointer out of persistent memory (reported once per site; AMBER_CHECK_POINTERS, docs/guide.md)",
                 by, off, what, (unsigned long long)cur);
      continue;
    }
    amber_error("%s left a persistent pointer at heap+0x%llx to volatile memory (%s): 0x%llx, which the next run "
                "cannot have; allocate what it points to inside a region (malloc there is persistent), or keep the "
                "pointer out of persistent memory",
                by, off, what, (unsigned long long)cur);
    if (++errors == 4) break;
  }
  if (errors)
    amber_fatal("stopped by the pointer check (AMBER_CHECK_POINTERS=error) before the commit: the heap keeps "
                "nothing of this transaction; AMBER_CHECK_POINTERS=warn reports and goes on, off checks nothing "
                "(docs/guide.md, \"Pointers to volatile memory\")");
}
