/* The persistent allocator: slab pages per size class and arena, runs of
 * whole pages, its page table changed only through transactions, and its
 * validation and census for open and amber check. */
#include "alloc.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/crc32c.h"
#include "base/diag.h"
#include "op.h"
#include "heap/heap.h"
#include "heap/window.h"
#include "tx.h"

/* Size classes: multiples of 16 so every object is 16-byte aligned. */
static const uint32_t class_size[] = {16,  32,  48,  64,  80,  96,   112,  128,  160,  192,  224,  256,
                                      320, 384, 448, 512, 640, 768, 896, 1024, 1280, 1536, 1792, 2048};
#define NCLS (sizeof class_size / sizeof class_size[0])

static inline uint32_t slots_of(unsigned cls) { return AMBER_PAGE / class_size[cls]; }

static unsigned class_of(size_t n) {
  unsigned lo = 0, hi = NCLS - 1;
  while (lo < hi) {
    unsigned mid = (lo + hi) / 2;
    if (class_size[mid] >= n) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

static uint64_t pagetab_pages(uint64_t npages) {
  return (npages * sizeof(struct amber_page_desc) + AMBER_PAGE - 1) / AMBER_PAGE;
}

/* From descriptor p of the page table at pt (np descriptors): how many
 * descriptors read as zero (*zero = 1: free, never written; nothing to
 * look at) or may not (*zero = 0), at least 1.  The table is 1/64 of the
 * data area and mostly a hole in the file of a heap that is not full:
 * walks cost what the heap uses. */
static uint64_t desc_run(const struct amber_heap *h, const struct amber_page_desc *pt, uint64_t p, uint64_t np, int *zero) {
  uint64_t n = amber_heap_extent(h, &pt[p], (np - p) * sizeof *pt, zero) / sizeof *pt;
  if (!n) {
    *zero = 0;
    n = 1;
  }
  return n;
}

/* The walks over the page table skip runs of zero descriptors: when
 * descriptor *p is not inside the run looked at last (which ends at
 * *judged) and starts a zero run, moves *p to the run's last descriptor
 * (the loop's p++ passes it) and returns the run's length; else 0:
 * descriptor *p needs a look. */
static uint64_t zero_run(const struct amber_heap *h, const struct amber_page_desc *pt, uint64_t *p, uint64_t np, uint64_t *judged) {
  if (*p < *judged) return 0;
  int zero;
  uint64_t n = desc_run(h, pt, *p, np, &zero);
  *judged = *p + n;
  if (!zero) return 0;
  *p = *judged - 1;
  return n;
}

static uint32_t dh_crc(const struct amber_data_header *dh) {
  return amber_crc32c(0, dh, offsetof(struct amber_data_header, crc));
}

void amber_alloc_format(struct amber_heap *h) {
  struct amber_data_header *dh = amber_heap_dh(h);
  memset(dh, 0, sizeof *dh);
  memcpy(dh->magic, AMBER_DATA_MAGIC, sizeof dh->magic);
  dh->npages = h->hdr.data_size / AMBER_PAGE;
  dh->pagetab_off = AMBER_PAGE;
  dh->first_page = 1 + pagetab_pages(dh->npages);
  dh->desc_size = sizeof(struct amber_page_desc);
  dh->crc = dh_crc(dh);
}

int amber_alloc_validate(struct amber_heap *h) {
  const struct amber_data_header *dh = amber_heap_dh(h);
  uint64_t np = h->hdr.data_size / AMBER_PAGE;
  if (memcmp(dh->magic, AMBER_DATA_MAGIC, sizeof dh->magic) || dh->crc != dh_crc(dh) || dh->npages != np ||
      dh->pagetab_off != AMBER_PAGE || dh->first_page != 1 + pagetab_pages(np) ||
      dh->desc_size != sizeof(struct amber_page_desc))
    return amber_error("heap %s has a corrupt data-area header (allocator geometry, file offset 0x%llx); the file is damaged: "
                       "restore it from a copy (amber check lists every problem)",
                       h->path, (unsigned long long)h->hdr.data_offset);
  /* Before recovery the data area may hold part of a transaction, but the
   * root offset is one aligned word, written once: 0 or final. */
  if (dh->root_off && (dh->root_off < dh->first_page * AMBER_PAGE || dh->root_off >= h->hdr.data_size || dh->root_off % 16))
    return amber_error("heap %s has a corrupt root pointer (offset 0x%llx); the file is damaged: restore it from a copy", h->path,
                       (unsigned long long)dh->root_off);
  return 0;
}

/* ---- the full walk of an image's allocator metadata ---- */

/* Every problem is printed as "amber: error: heap PATH: ..." naming the
 * page and file offset; after `limit` of them only the count goes on. */
struct walk {
  const struct amber_heap *h;
  const char *data;  /* the image: the data area or a twin of it */
  const char *which; /* "" or " (engine twin)" */
  uint64_t file_off; /* file offset of the image; UINT64_MAX when unknown */
  int problems, limit;
};

__attribute__((format(printf, 3, 4))) static void problem(struct walk *w, uint64_t off, const char *fmt, ...) {
  w->problems++;
  if (w->problems > w->limit) return;
  char what[512], where[96] = "";
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (w->file_off != UINT64_MAX) snprintf(where, sizeof where, ", file offset 0x%llx", (unsigned long long)(w->file_off + off));
  amber_error("heap %s: %s (at data offset 0x%llx%s%s); the allocator metadata is damaged: restore the heap from a copy",
              w->h->path, what, (unsigned long long)off, where, w->which);
}

static int all_zero(const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++)
    if (c[i]) return 0;
  return 1;
}

static unsigned bits_set(const struct amber_page_desc *d) {
  unsigned n = 0;
  for (unsigned w = 0; w < AMBER_SLAB_WORDS; w++) n += (unsigned)__builtin_popcountll(d->bitmap[w]);
  return n;
}

/* A slab descriptor as amber_palloc writes it: a known class and arena,
 * no slot beyond the page's slots, at least one slot (an empty slab page is
 * freed with its last object), nothing in the large-object fields. */
static void walk_slab(struct walk *w, uint64_t p, uint64_t off, const struct amber_page_desc *d, size_t *objs, size_t *used) {
  if (d->cls >= NCLS) {
    problem(w, off, "the descriptor of page %llu: a slab of unknown size class %u (classes are 0..%u)", (unsigned long long)p, d->cls,
            (unsigned)NCLS - 1);
    return;
  }
  uint32_t ns = slots_of(d->cls), cs = class_size[d->cls];
  for (uint32_t s = ns; s < 64 * AMBER_SLAB_WORDS; s++)
    if ((d->bitmap[s / 64] >> (s % 64)) & 1) {
      problem(w, off, "page %llu, a slab of class %u (%u-byte objects, %u slots), has slot %u marked allocated",
              (unsigned long long)p, d->cls, cs, ns, s);
      return;
    }
  unsigned n = bits_set(d);
  if (n == 0) problem(w, off, "the descriptor of page %llu: a slab of class %u (%u bytes) with no object allocated", (unsigned long long)p, d->cls, cs);
  if (d->arena >= AMBER_NARENAS)
    problem(w, off, "page %llu, a slab of class %u, belongs to arena %u (arenas are 0..%u)", (unsigned long long)p, d->cls,
            d->arena, AMBER_NARENAS - 1);
  if (d->npages || d->size)
    problem(w, off, "page %llu, a slab of class %u, has large-object fields set (%u pages, %llu bytes)", (unsigned long long)p,
            d->cls, d->npages, (unsigned long long)d->size);
  *objs += n;
  *used += (size_t)n * cs;
}

/* A large-object head as amber_palloc writes it; returns the run's length
 * in pages when the run can be trusted, else 1. */
static uint64_t walk_large(struct walk *w, uint64_t p, uint64_t off, uint64_t np, const struct amber_page_desc *d, size_t *objs,
                           size_t *used) {
  if (d->npages == 0 || d->npages > np - p || d->size <= AMBER_SLAB_MAX ||
      (d->size + AMBER_PAGE - 1) / AMBER_PAGE != d->npages) {
    problem(w, off, "large object at page %llu has a bad run (%u pages for %llu bytes; the heap has %llu pages, objects over %u bytes take "
            "exactly the pages they need)",
            (unsigned long long)p, d->npages, (unsigned long long)d->size, (unsigned long long)np, AMBER_SLAB_MAX);
    return 1;
  }
  if (d->cls || d->arena || !all_zero(d->bitmap, sizeof d->bitmap))
    problem(w, off, "large object at page %llu has slab fields set (class %u, arena %u, %u bitmap bits)", (unsigned long long)p,
            d->cls, d->arena, bits_set(d));
  *objs += 1;
  *used += (size_t)d->npages * AMBER_PAGE;
  return d->npages;
}

/* The root: 0 and 0, or the start of a live allocation made for exactly
 * root_size bytes (amber_root allocates it with that size). */
static void walk_root(struct walk *w, const struct amber_data_header *dh, const struct amber_page_desc *pt, uint64_t np,
                      uint64_t first, const uint8_t *owner) {
  uint64_t ro = dh->root_off, rs = dh->root_size;
  uint64_t at = offsetof(struct amber_data_header, root_off);
  if (!ro) {
    if (rs) problem(w, at, "the data header has no root (offset 0) but a root size of %llu bytes", (unsigned long long)rs);
    return;
  }
  if (ro < first * AMBER_PAGE || ro >= np * AMBER_PAGE || ro % 16 || rs == 0) {
    problem(w, at, "the root pointer (offset 0x%llx, %llu bytes) is not an aligned offset into the allocatable pages 0x%llx..0x%llx",
            (unsigned long long)ro, (unsigned long long)rs, (unsigned long long)(first * AMBER_PAGE),
            (unsigned long long)(np * AMBER_PAGE));
    return;
  }
  uint64_t rp = ro / AMBER_PAGE, in = ro % AMBER_PAGE;
  const struct amber_page_desc *d = &pt[rp];
  int live = 0;
  if (!owner[rp]) live = 0; /* inside a large run, or a page whose descriptor is damaged */
  else if (d->kind == AMBER_PAGE_LARGE) live = in == 0 && d->size == rs;
  else if (d->kind == AMBER_PAGE_SLAB && d->cls < NCLS) {
    uint64_t cs = class_size[d->cls];
    live = in % cs == 0 && ((d->bitmap[in / cs / 64] >> (in / cs % 64)) & 1) && rs <= AMBER_SLAB_MAX && class_of(rs) == d->cls;
  }
  if (!live)
    problem(w, at, "the root object (offset 0x%llx, page %llu, %llu bytes) is not a live allocation of that size (page kind %u, class %u)",
            (unsigned long long)ro, (unsigned long long)rp, (unsigned long long)rs, d->kind, d->cls);
}

/* Walks the data header and page table of `data` against the geometry the
 * heap's (validated) file header implies, never the image's own fields, so
 * damage cannot make the walk leave the image. */
static int walk_image(struct walk *w, size_t *objects, size_t *bytes) {
  const struct amber_heap *h = w->h;
  const struct amber_data_header *dh = (const struct amber_data_header *)w->data;
  uint64_t np = h->hdr.data_size / AMBER_PAGE, first = 1 + pagetab_pages(np);
  if (memcmp(dh->magic, AMBER_DATA_MAGIC, sizeof dh->magic))
    problem(w, 0, "the data header has no \"%s\" magic", AMBER_DATA_MAGIC);
  if (dh->crc != dh_crc(dh))
    problem(w, 0, "the data header's checksum is 0x%08x, expected 0x%08x", dh->crc, dh_crc(dh));
  if (dh->npages != np || dh->pagetab_off != AMBER_PAGE || dh->first_page != first || dh->desc_size != sizeof(struct amber_page_desc))
    problem(w, 0, "the data header's geometry (%llu pages, page table at 0x%llx, first page %llu, %u-byte descriptors) is not the one "
            "the heap's size implies (%llu, 0x%x, %llu, %zu)",
            (unsigned long long)dh->npages, (unsigned long long)dh->pagetab_off, (unsigned long long)dh->first_page, dh->desc_size,
            (unsigned long long)np, AMBER_PAGE, (unsigned long long)first, sizeof(struct amber_page_desc));
  if (!all_zero(w->data + sizeof *dh, AMBER_PAGE - sizeof *dh))
    problem(w, sizeof *dh, "the unused rest of the data header's page is not zero");
  const struct amber_page_desc *pt = (const struct amber_page_desc *)(w->data + AMBER_PAGE);
  uint64_t tab_end = AMBER_PAGE + np * sizeof *pt;
  if (!all_zero(w->data + tab_end, first * AMBER_PAGE - tab_end))
    problem(w, tab_end, "the unused end of the page table (after %llu descriptors) is not zero", (unsigned long long)np);
  /* owner[p]: page p is the head of a trusted slab or large object. */
  uint8_t *owner = calloc(np, 1);
  if (!owner) {
    problem(w, 0, "no memory to walk %llu page descriptors", (unsigned long long)np);
    return w->problems;
  }
  size_t objs = 0, used = 0;
  uint64_t run_end = 0, run_head = 0;
  for (uint64_t p = 0, judged = 0; p < np; p++) {
    /* Zero descriptors are right wherever they are (metadata, inside a
     * large object, free): a run of them needs no look. */
    if (zero_run(h, pt, &p, np, &judged)) continue;
    const struct amber_page_desc *d = &pt[p];
    uint64_t at = AMBER_PAGE + p * sizeof *pt;
    if (p < first) {
      if (!all_zero(d, sizeof *d))
        problem(w, at, "the descriptor of metadata page %llu (the data header or page table) is not empty (kind %u)", (unsigned long long)p,
                d->kind);
      continue;
    }
    if (p < run_end) {
      if (!all_zero(d, sizeof *d))
        problem(w, at, "page %llu lies inside the large object at page %llu (%llu pages) but its descriptor is not empty (kind %u)",
                (unsigned long long)p, (unsigned long long)run_head, (unsigned long long)(run_end - run_head), d->kind);
      continue;
    }
    int before = w->problems;
    switch (d->kind) {
    case AMBER_PAGE_FREE:
      if (!all_zero(d, sizeof *d)) problem(w, at, "free page %llu has a descriptor that is not all zero", (unsigned long long)p);
      break;
    case AMBER_PAGE_SLAB:
      walk_slab(w, p, at, d, &objs, &used);
      owner[p] = w->problems == before;
      break;
    case AMBER_PAGE_LARGE: {
      uint64_t n = walk_large(w, p, at, np, d, &objs, &used);
      if (w->problems == before) {
        owner[p] = 1;
        run_head = p;
        run_end = p + n;
      }
      break;
    }
    default:
      problem(w, at, "page %llu has a descriptor of unknown kind %u (0 free, 1 slab, 2 large)", (unsigned long long)p, d->kind);
    }
  }
  walk_root(w, dh, pt, np, first, owner);
  free(owner);
  if (objects) *objects = objs;
  if (bytes) *bytes = used;
  return w->problems;
}

static void walk_init(struct walk *w, const struct amber_heap *h, const char *data, int limit) {
  memset(w, 0, sizeof *w);
  w->h = h;
  w->data = data;
  w->limit = limit;
  w->which = data == h->data ? "" : " (engine twin)";
  w->file_off = data == h->data ? h->hdr.data_offset : data == h->engine_area ? h->hdr.engine_offset : UINT64_MAX;
}

int amber_alloc_validate_image(const struct amber_heap *h, const char *data) {
  struct walk w;
  walk_init(&w, h, data, 3);
  if (walk_image(&w, NULL, NULL) == 0) return 0;
  return amber_error("heap %s: refusing it: its allocator metadata has %d problem%s (the first shown above); the file is damaged: "
                     "restore it from a copy (amber check lists every problem)",
                     h->path, w.problems, w.problems == 1 ? "" : "s");
}

int amber_alloc_check(const struct amber_heap *h, const char *data, size_t *objects, size_t *bytes) {
  struct walk w;
  walk_init(&w, h, data, 50);
  walk_image(&w, objects, bytes);
  if (w.problems > w.limit)
    amber_error("heap %s: %d more allocator problems not shown", h->path, w.problems - w.limit);
  return w.problems;
}

_Static_assert(NCLS == AMBER_ALLOC_NCLASSES, "alloc.h's AMBER_ALLOC_NCLASSES is the number of size classes");

void amber_alloc_census(const struct amber_heap *h, const char *data, struct amber_alloc_census *c) {
  memset(c, 0, sizeof *c);
  for (unsigned i = 0; i < NCLS; i++) {
    c->cls[i].size = class_size[i];
    c->cls[i].slots = slots_of(i);
  }
  uint64_t np = h->hdr.data_size / AMBER_PAGE, first = 1 + pagetab_pages(np);
  if (first > np) first = np;
  c->pages = np;
  c->meta_pages = first;
  const struct amber_page_desc *pt = (const struct amber_page_desc *)(data + AMBER_PAGE);
  uint64_t run = 0;
  for (uint64_t p = first, judged = first; p < np; p++) {
    uint64_t n = zero_run(h, pt, &p, np, &judged);
    if (n) { /* n free pages */
      c->free_pages += n;
      run += n;
      if (run > c->largest_free_run) c->largest_free_run = run;
      continue;
    }
    const struct amber_page_desc *d = &pt[p];
    if (d->kind == AMBER_PAGE_FREE && all_zero(d, sizeof *d)) {
      c->free_pages++;
      if (++run > c->largest_free_run) c->largest_free_run = run;
      continue;
    }
    run = 0;
    if (d->kind == AMBER_PAGE_SLAB && d->cls < NCLS) {
      uint64_t n = bits_set(d);
      c->slab_pages++;
      c->cls[d->cls].pages++;
      c->cls[d->cls].objects += n;
      c->objects += n;
      c->bytes += n * class_size[d->cls];
      c->arena_pages[d->arena % AMBER_NARENAS]++;
    } else if (d->kind == AMBER_PAGE_LARGE && d->npages && d->npages <= np - p) {
      c->large_objects++;
      c->large_requested += d->size;
      c->large_pages += d->npages;
      c->objects++;
      c->bytes += (uint64_t)d->npages * AMBER_PAGE;
      p += d->npages - 1;
    } else {
      c->damaged++;
    }
  }
}

void amber_alloc_walk(const struct amber_heap *h, const char *data, amber_alloc_walk_fn fn, void *arg) {
  uint64_t np = h->hdr.data_size / AMBER_PAGE, first = 1 + pagetab_pages(np);
  if (first > np) first = np;
  const struct amber_page_desc *pt = (const struct amber_page_desc *)(data + AMBER_PAGE);
  for (uint64_t p = first, judged = first; p < np; p++) {
    if (zero_run(h, pt, &p, np, &judged)) continue;
    const struct amber_page_desc *d = &pt[p];
    if (d->kind == AMBER_PAGE_SLAB && d->cls < NCLS) {
      for (unsigned i = 0; i < slots_of(d->cls) && i < 64 * AMBER_SLAB_WORDS; i++)
        if (d->bitmap[i / 64] >> (i % 64) & 1)
          if (fn(arg, p * AMBER_PAGE + (uint64_t)i * class_size[d->cls], class_size[d->cls], class_size[d->cls])) return;
    } else if (d->kind == AMBER_PAGE_LARGE && d->npages && d->npages <= np - p) {
      if (fn(arg, p * AMBER_PAGE, 0, d->size)) return;
      p += d->npages - 1;
    }
  }
}

/* ---- the process's allocator: volatile indexes ---- */

struct partial_list {
  uint32_t *pages;
  size_t n, cap;
};

struct arena {
  pthread_mutex_t lock;
  struct partial_list partial[NCLS]; /* slab pages that may have a free slot */
};

static struct amber_heap *heap;
static struct amber_page_desc *pagetab; /* canonical addresses */
static uint64_t npages, first_page;
static uint8_t *page_used;   /* volatile: 1 when the page is taken */
/* Volatile: which partial list (arena, class) a page was last pushed on, +1;
 * 0 when on none.  Lists may hold stale entries (pages that were freed and
 * reused); allocation re-reads the page descriptor and drops them. */
static uint16_t *partial_key;
static uint64_t cursor;
static pthread_mutex_t pages_lock = PTHREAD_MUTEX_INITIALIZER;
static struct arena arenas[AMBER_NARENAS];

static void *xcalloc(size_t n, size_t s) {
  void *p = calloc(n, s);
  if (!p) amber_fatal("out of memory for allocator indexes (%zu bytes)", n * s);
  return p;
}

static inline uint16_t list_key(const struct arena *a, unsigned cls) {
  return (uint16_t)((unsigned)(a - arenas) * 32u + cls + 1u);
}

static void partial_push(struct arena *a, unsigned cls, uint32_t page) {
  struct partial_list *l = &a->partial[cls];
  if (partial_key[page] == list_key(a, cls)) return;
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 16;
    l->pages = realloc(l->pages, l->cap * sizeof *l->pages);
    if (!l->pages) amber_fatal("out of memory for allocator indexes");
  }
  l->pages[l->n++] = page;
  partial_key[page] = list_key(a, cls);
}

void amber_alloc_attach(struct amber_heap *h) {
  heap = h;
  struct amber_data_header *dh = amber_heap_dh(h);
  npages = dh->npages;
  first_page = dh->first_page;
  pagetab = (struct amber_page_desc *)(h->data + dh->pagetab_off);
}

void amber_alloc_open(struct amber_heap *h) {
  /* After recovery the data area is the consistent image: the indexes below
   * trust its page table, so a damaged one is refused here. */
  if (amber_alloc_validate_image(h, h->data) != 0) exit(2);
  amber_alloc_attach(h);
  page_used = xcalloc(npages, 1);
  partial_key = xcalloc(npages, sizeof *partial_key);
  for (unsigned i = 0; i < AMBER_NARENAS; i++) pthread_mutex_init(&arenas[i].lock, NULL);
  for (uint64_t p = 0; p < first_page; p++) page_used[p] = 1;
  const struct amber_page_desc *pt = (const struct amber_page_desc *)(h->data + AMBER_PAGE);
  for (uint64_t p = first_page, judged = first_page; p < npages; p++) {
    if (zero_run(h, pt, &p, npages, &judged)) continue; /* free pages */
    struct amber_page_desc *d = &pagetab[p];
    if (d->kind == AMBER_PAGE_SLAB) {
      page_used[p] = 1;
      uint32_t ns = slots_of(d->cls), count = 0;
      for (unsigned w = 0; w < AMBER_SLAB_WORDS; w++) count += (uint32_t)__builtin_popcountll(d->bitmap[w]);
      if (count < ns) partial_push(&arenas[d->arena % AMBER_NARENAS], d->cls, (uint32_t)p);
    } else if (d->kind == AMBER_PAGE_LARGE) {
      for (uint64_t q = p; q < p + d->npages && q < npages; q++) page_used[q] = 1;
      p += d->npages - 1;
    }
  }
  cursor = first_page;
}

void amber_alloc_close(void) {
  for (unsigned i = 0; i < AMBER_NARENAS; i++)
    for (unsigned c = 0; c < NCLS; c++) {
      free(arenas[i].partial[c].pages);
      memset(&arenas[i].partial[c], 0, sizeof arenas[i].partial[c]);
    }
  free(page_used);
  free(partial_key);
  page_used = NULL;
  partial_key = NULL;
  heap = NULL;
  pagetab = NULL;
}

/* Takes k contiguous free pages (volatile claim); returns the first or 0. */
static uint64_t take_pages(uint64_t k) {
  pthread_mutex_lock(&pages_lock);
  uint64_t found = 0;
  for (int pass = 0; pass < 2 && !found; pass++) {
    uint64_t start = pass ? first_page : cursor, end = pass ? cursor + k : npages;
    if (end > npages) end = npages;
    uint64_t run = 0;
    for (uint64_t p = start; p < end; p++) {
      run = page_used[p] ? 0 : run + 1;
      if (run == k) {
        found = p + 1 - k;
        break;
      }
    }
  }
  if (found) {
    memset(page_used + found, 1, k);
    cursor = found + k < npages ? found + k : first_page;
  }
  pthread_mutex_unlock(&pages_lock);
  return found;
}

static void release_pages(uint64_t first, uint64_t k) {
  pthread_mutex_lock(&pages_lock);
  memset(page_used + first, 0, k);
  pthread_mutex_unlock(&pages_lock);
}

static inline char *page_addr(uint64_t p) { return heap->data + p * AMBER_PAGE; }

static void record(struct amber_thread *t, int kind, uint64_t page, uint64_t n) {
  struct amber_alloc_rec *r = amber_tx_push_alloc_rec(t);
  r->kind = kind;
  r->page = page;
  r->npages = n;
}

/* What the running transaction of this thread allocated so far, for the
 * message that says how large a transaction the heap could not hold. */
__thread uint64_t amber_alloc_tx_objects __attribute__((tls_model("initial-exec"))); /* alloc.h */
#define tx_objects amber_alloc_tx_objects
static __thread uint64_t tx_bytes __attribute__((tls_model("initial-exec"))); /* initial-exec: tx/tx.h */

static char *out_of_space(size_t n) {
  amber_fatal("persistent heap %s is full: cannot allocate %zu bytes after the running transaction allocated %llu bytes in %llu "
              "objects; recreate it with a larger AMBER_HEAP_SIZE (now %llu bytes of data area)",
              heap->path, n, (unsigned long long)tx_bytes, (unsigned long long)tx_objects,
              (unsigned long long)heap->hdr.data_size);
}

uint64_t amber_alloc_claim(uint64_t k) {
  uint64_t p = k && k <= npages ? take_pages(k) : 0;
  return p ? p * AMBER_PAGE : 0;
}

void amber_alloc_unclaim(uint64_t off, uint64_t k) { release_pages(off / AMBER_PAGE, k); }

/* A large object of n bytes on the k pages from p: its page descriptor. */
static char *put_large(struct amber_thread *t, uint64_t p, uint64_t k, size_t n) {
  struct amber_page_desc d;
  memset(&d, 0, sizeof d);
  d.kind = AMBER_PAGE_LARGE;
  d.npages = (uint32_t)k;
  d.size = n;
  amber_tx_write(t, &pagetab[p], &d, sizeof d);
  return page_addr(p);
}

/* A free slot of slab page p of class cls, taken (its bitmap word written
 * through the transaction), or NULL when the page has none or is no longer
 * such a slab.  The caller holds what keeps others off the page. */
static char *take_slot(struct amber_thread *t, uint32_t p, unsigned cls) {
  struct amber_page_desc d;
  amber_tx_read(t, &pagetab[p], &d, sizeof d);
  if (d.kind != AMBER_PAGE_SLAB || d.cls != cls) return NULL;
  uint32_t ns = slots_of(cls);
  for (uint32_t w = 0; w * 64 < ns; w++) {
    uint64_t free_bits = ~d.bitmap[w];
    if (w * 64 + 64 > ns) free_bits &= (1ull << (ns - w * 64)) - 1;
    if (!free_bits) continue;
    uint32_t b = (uint32_t)__builtin_ctzll(free_bits);
    uint64_t nw = d.bitmap[w] | (1ull << b);
    amber_tx_write(t, &pagetab[p].bitmap[w], &nw, sizeof nw);
    return page_addr(p) + (size_t)(w * 64 + b) * class_size[cls];
  }
  return NULL;
}

/* The slab page of each class the running transaction of this thread made
 * last (0: none).  It joins its arena's partial list only at commit, so
 * until then only this transaction allocates from it: consecutive small
 * allocations of one transaction share its pages instead of taking a page
 * each.  Reset when the transaction ends either way. */
static __thread uint32_t tx_slab[NCLS] __attribute__((tls_model("initial-exec"))); /* initial-exec: tx/tx.h */

/* amber_palloc at the alias (where the runtime writes the object). */
static char *palloc_alias(struct amber_thread *t, size_t n, int *fresh) {
  *fresh = 1;
  if (n == 0) n = 1;
  tx_objects++;
  tx_bytes += n;
  if (n > AMBER_SLAB_MAX) {
    uint64_t k = (n + AMBER_PAGE - 1) / AMBER_PAGE;
    if (k > npages) return out_of_space(n);
    uint64_t p = take_pages(k);
    if (!p) return out_of_space(n);
    record(t, AMBER_REC_TOOK_PAGES, p, k);
    return put_large(t, p, k, n);
  }
  unsigned cls = class_of(n);
  struct arena *a = &arenas[t->arena];
  pthread_mutex_lock(&a->lock);
  /* An engine whose writers abort may restart the transaction inside the
   * reads and writes below: amber_alloc_abort releases the lock then. */
  t->held_lock = &a->lock;
  struct partial_list *l = &a->partial[cls];
  while (l->n) {
    uint32_t p = l->pages[l->n - 1];
    char *o = take_slot(t, p, cls);
    if (o) {
      t->held_lock = NULL;
      pthread_mutex_unlock(&a->lock);
      *fresh = 0;
      return o;
    }
    /* Full, or no longer a slab of this class: drop it from the list. */
    l->n--;
    if (partial_key[p] == list_key(a, cls)) partial_key[p] = 0;
  }
  t->held_lock = NULL;
  pthread_mutex_unlock(&a->lock);
  if (tx_slab[cls]) {
    char *o = take_slot(t, tx_slab[cls], cls);
    if (o) {
      *fresh = 0;
      return o;
    }
  }
  uint64_t p = take_pages(1);
  if (!p) return out_of_space(n);
  tx_slab[cls] = (uint32_t)p;
  record(t, AMBER_REC_TOOK_PAGES, p, 1);
  struct amber_page_desc d;
  memset(&d, 0, sizeof d);
  d.kind = AMBER_PAGE_SLAB;
  d.cls = (uint8_t)cls;
  d.arena = (uint16_t)t->arena;
  d.bitmap[0] = 1;
  amber_tx_write(t, &pagetab[p], &d, sizeof d);
  record(t, AMBER_REC_NEW_SLAB, p, cls);
  return page_addr(p);
}

/* Replay of an allocation (tx/op.h): the recorded decision, 8 bytes: the
 * object's data-area offset (bits 0-47), the arena (48-61) and whether it
 * took a free page (62).  The page table is written exactly as the
 * allocation wrote it: replay reads the snapshot the allocation read (a
 * committed writer of a page descriptor saw its newest version). */
#define DECISION_OFF ((1ull << 48) - 1)
#define DECISION_FRESH (1ull << 62)
static char *palloc_replay(struct amber_thread *t, size_t n) {
  uint64_t w;
  amber_op_take(t, &w, sizeof w);
  uint64_t off = w & DECISION_OFF, p = off / AMBER_PAGE, in = off % AMBER_PAGE;
  if (n == 0) n = 1;
  if (p < first_page || p >= npages) amber_op_diverged(t, "allocated outside the heap's pages");
  struct amber_page_desc d;
  if (n > AMBER_SLAB_MAX) {
    uint64_t k = (n + AMBER_PAGE - 1) / AMBER_PAGE;
    if (in || p + k > npages) amber_op_diverged(t, "allocated a large object somewhere else");
    return put_large(t, p, k, n);
  }
  unsigned cls = class_of(n);
  amber_tx_read(t, &pagetab[p], &d, sizeof d);
  if (!(w & DECISION_FRESH)) {
    if (d.kind != AMBER_PAGE_SLAB || d.cls != cls) amber_op_diverged(t, "allocated from a page that is not a slab of its size");
    uint32_t slot = (uint32_t)(in / class_size[cls]);
    if (in % class_size[cls] || slot >= slots_of(cls) || ((d.bitmap[slot / 64] >> (slot % 64)) & 1))
      amber_op_diverged(t, "allocated a slot that is not free");
    uint64_t nw = d.bitmap[slot / 64] | (1ull << (slot % 64));
    amber_tx_write(t, &pagetab[p].bitmap[slot / 64], &nw, sizeof nw);
    return page_addr(p) + in;
  }
  if (in || d.kind != AMBER_PAGE_FREE) amber_op_diverged(t, "allocated from a page that is not free");
  memset(&d, 0, sizeof d);
  d.kind = AMBER_PAGE_SLAB;
  d.cls = (uint8_t)cls;
  d.arena = (uint16_t)((w >> 48) & 0x3fff);
  d.bitmap[0] = 1;
  amber_tx_write(t, &pagetab[p], &d, sizeof d);
  return page_addr(p);
}

void *amber_palloc(struct amber_thread *t, size_t n) {
  if (t->op == AMBER_OP_REPLAY) return amber_heap_canonical(palloc_replay(t, n));
  int fresh;
  char *a = palloc_alias(t, n, &fresh);
  if (t->op == AMBER_OP_CAPTURE) {
    uint64_t w = (uint64_t)(a - heap->data) | (uint64_t)t->arena << 48 | (fresh ? DECISION_FRESH : 0);
    amber_op_put(t, &w, sizeof w);
  }
  return amber_heap_canonical(a);
}

/* Locates the live allocation at canonical p: returns its page, or
 * UINT64_MAX. */
static uint64_t locate(struct amber_thread *t, const void *p, struct amber_page_desc *d, uint32_t *slot) {
  uint64_t off = (uint64_t)((const char *)amber_heap_alias(p) - heap->data);
  if (off >= heap->hdr.data_size) return UINT64_MAX;
  uint64_t pg = off / AMBER_PAGE;
  if (pg < first_page) return UINT64_MAX;
  amber_tx_read(t, &pagetab[pg], d, sizeof *d);
  uint64_t in = off % AMBER_PAGE;
  if (d->kind == AMBER_PAGE_LARGE) return in == 0 ? pg : UINT64_MAX;
  if (d->kind != AMBER_PAGE_SLAB || d->cls >= NCLS) return UINT64_MAX;
  uint32_t cs = class_size[d->cls];
  if (in % cs) return UINT64_MAX;
  uint32_t s = (uint32_t)(in / cs);
  if (!((d->bitmap[s / 64] >> (s % 64)) & 1)) return UINT64_MAX;
  *slot = s;
  return pg;
}

size_t amber_palloc_size(struct amber_thread *t, const void *p) {
  struct amber_page_desc d;
  uint32_t slot;
  if (locate(t, p, &d, &slot) == UINT64_MAX) return 0;
  return d.kind == AMBER_PAGE_LARGE ? d.size : class_size[d.cls];
}

void amber_pfree(struct amber_thread *t, void *p) {
  struct amber_page_desc d;
  uint32_t slot = 0;
  uint64_t pg = locate(t, p, &d, &slot);
  if (pg == UINT64_MAX)
    amber_fatal("free(%p): not a live persistent allocation (double free, or a pointer into the middle of an object)", p);
  if (d.kind == AMBER_PAGE_LARGE) {
    struct amber_page_desc z;
    memset(&z, 0, sizeof z);
    amber_tx_write(t, &pagetab[pg], &z, sizeof z);
    record(t, AMBER_REC_FREED_PAGES, pg, d.npages);
    return;
  }
  uint64_t nw = d.bitmap[slot / 64] & ~(1ull << (slot % 64));
  d.bitmap[slot / 64] = nw;
  int empty = 1;
  for (unsigned w = 0; w < AMBER_SLAB_WORDS; w++) empty &= d.bitmap[w] == 0;
  if (empty) {
    /* The page goes back to the page pool with this transaction. */
    struct amber_page_desc z;
    memset(&z, 0, sizeof z);
    amber_tx_write(t, &pagetab[pg], &z, sizeof z);
    record(t, AMBER_REC_FREED_PAGES, pg, 1);
  } else {
    amber_tx_write(t, &pagetab[pg].bitmap[slot / 64], &nw, sizeof nw);
    record(t, AMBER_REC_FREED_SLOT, pg, d.cls);
  }
}

void amber_alloc_commit(struct amber_thread *t) {
  for (size_t i = 0; i < t->nalloc_rec; i++) {
    struct amber_alloc_rec *r = &t->alloc_rec[i];
    if (r->kind == AMBER_REC_FREED_PAGES) {
      release_pages(r->page, r->npages);
    } else if (r->kind == AMBER_REC_FREED_SLOT || r->kind == AMBER_REC_NEW_SLAB) {
      struct arena *a = &arenas[t->arena];
      pthread_mutex_lock(&a->lock);
      partial_push(a, (unsigned)r->npages, (uint32_t)r->page);
      pthread_mutex_unlock(&a->lock);
    }
  }
  t->nalloc_rec = 0;
  memset(tx_slab, 0, sizeof tx_slab);
  tx_objects = tx_bytes = 0;
}

void amber_alloc_abort(struct amber_thread *t) {
  if (t->held_lock) {
    pthread_mutex_unlock(t->held_lock);
    t->held_lock = NULL;
  }
  for (size_t i = 0; i < t->nalloc_rec; i++) {
    struct amber_alloc_rec *r = &t->alloc_rec[i];
    if (r->kind == AMBER_REC_TOOK_PAGES) release_pages(r->page, r->npages);
  }
  t->nalloc_rec = 0;
  memset(tx_slab, 0, sizeof tx_slab);
  tx_objects = tx_bytes = 0;
}
