/* amber dump HEAP: the root and every live object (data offset, address,
 * size class, size), filtered by size and address; --at ADDR --len N: bytes
 * as hex and text.  Read-only, like info and stats (amber_view_open: a
 * crashed heap is shown as recovery leaves it, a live one through a stable
 * copy of its file). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amber_tool.h"
#include "base/diag.h"
#include "base/options.h"
#include "heap/heap.h"
#include "stats.h"
#include "tx/alloc.h"
#include "tx/engine.h"

#define DUMP_MAX_LEN (1u << 20)

struct filter {
  const struct amber_heap *h;
  uint64_t min, max;   /* sizes */
  uint64_t from, to;   /* data offsets, [from, to) */
  int json;
  uint64_t shown, objects, bytes;
};

static int show(void *arg, uint64_t off, uint32_t cls, uint64_t size) {
  struct filter *f = arg;
  f->objects++;
  f->bytes += size;
  if (size < f->min || size > f->max || off < f->from || off >= f->to) return 0;
  f->shown++;
  uint64_t addr = f->h->hdr.base + off;
  if (f->json) {
    printf("{\"object\": %llu, \"offset\": %llu, \"address\": \"0x%llx\", \"class\": ", (unsigned long long)f->shown,
           (unsigned long long)off, (unsigned long long)addr);
    if (cls) printf("%u", cls);
    else printf("\"large\"");
    printf(", \"size\": %llu}\n", (unsigned long long)size);
  } else {
    char c[16];
    if (cls) snprintf(c, sizeof c, "%u", cls);
    else snprintf(c, sizeof c, "large");
    printf("%12llx  0x%-14llx %6s %12llu\n", (unsigned long long)off, (unsigned long long)addr, c, (unsigned long long)size);
  }
  return 0;
}

/* ADDR: an address in the heap's window, or a data offset below its size. */
static int parse_where(const struct amber_heap *h, const char *opt, const char *s, uint64_t *off, int end) {
  char *e;
  errno = 0;
  unsigned long long v = strtoull(s, &e, 0);
  uint64_t base = h->hdr.base, size = h->hdr.data_size;
  if (errno || *e || !*s || s[0] == '-') {
    amber_error("dump %s %s: not an address; give an address in the heap (0x%llx to 0x%llx) or a data offset (0 to 0x%llx)", opt,
                s, (unsigned long long)base, (unsigned long long)(base + size), (unsigned long long)size);
    return -1;
  }
  if (v >= base && v <= base + size) *off = v - base;
  else if (v <= size) *off = v;
  else {
    amber_error("dump %s %s: outside heap %s, whose data area is 0x%llx to 0x%llx (data offsets 0 to 0x%llx); give an address "
                "or offset inside it",
                opt, s, h->path, (unsigned long long)base, (unsigned long long)(base + size), (unsigned long long)size);
    return -1;
  }
  if (!end && *off == size) {
    amber_error("dump %s %s: the end of heap %s's data area; give an address inside it", opt, s, h->path);
    return -1;
  }
  return 0;
}

static int parse_size(const char *opt, const char *s, uint64_t *v) {
  if (amber_options_parse_size(s, v) != 0 || s[0] == '-') {
    amber_error("dump %s %s: not a size; give bytes, e.g. 64, 4K or 1M", opt, s);
    return -1;
  }
  return 0;
}

static void bytes_at(const struct amber_heap *h, uint64_t off, uint64_t len, int json) {
  const unsigned char *p = (const unsigned char *)h->data + off;
  uint64_t base = h->hdr.base;
  if (json) {
    printf("{\"offset\": %llu, \"address\": \"0x%llx\", \"len\": %llu, \"hex\": \"", (unsigned long long)off,
           (unsigned long long)(base + off), (unsigned long long)len);
    for (uint64_t i = 0; i < len; i++) printf("%02x", p[i]);
    printf("\", \"text\": \"");
    for (uint64_t i = 0; i < len; i++) putchar(p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\' ? p[i] : '.');
    printf("\"}\n");
    return;
  }
  for (uint64_t row = 0; row < len; row += 16) {
    printf("0x%llx  ", (unsigned long long)(base + off + row));
    for (uint64_t i = row; i < row + 16; i++) {
      if (i < len) printf("%02x ", p[i]);
      else printf("   ");
      if (i == row + 7) putchar(' ');
    }
    printf(" |");
    for (uint64_t i = row; i < row + 16 && i < len; i++) putchar(p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '.');
    printf("|\n");
  }
}

int amber_cmd_dump(int argc, char **argv) {
  const char *path = NULL, *at = NULL, *len_s = NULL, *min_s = NULL, *max_s = NULL, *from_s = NULL, *to_s = NULL;
  int json = 0;
  static const char use[] = "use amber dump HEAP [--min N] [--max N] [--from ADDR] [--to ADDR] [--json], or amber dump HEAP "
                            "--at ADDR [--len N] [--json]";
  for (int i = 0; i < argc; i++) {
    const char **slot = !strcmp(argv[i], "--at")     ? &at
                        : !strcmp(argv[i], "--len")  ? &len_s
                        : !strcmp(argv[i], "--min")  ? &min_s
                        : !strcmp(argv[i], "--max")  ? &max_s
                        : !strcmp(argv[i], "--from") ? &from_s
                        : !strcmp(argv[i], "--to")   ? &to_s
                                                     : NULL;
    if (slot) {
      if (i + 1 >= argc) {
        amber_error("dump: %s needs a value; %s", argv[i], use);
        return 2;
      }
      *slot = argv[++i];
    } else if (!strcmp(argv[i], "--json")) json = 1;
    else if (argv[i][0] == '-' && argv[i][1]) {
      amber_error("dump: unknown option '%s'; %s", argv[i], use);
      return 2;
    } else if (path) {
      amber_error("dump: one heap at a time ('%s' and '%s'); %s", path, argv[i], use);
      return 2;
    } else path = argv[i];
  }
  if (!path) {
    amber_error("dump: no heap named; %s", use);
    return 2;
  }
  if (len_s && !at) {
    amber_error("dump: --len %s needs --at ADDR (where the bytes start)", len_s);
    return 2;
  }
  if (at && (min_s || max_s || from_s || to_s)) {
    amber_error("dump: --at shows bytes, --min/--max/--from/--to filter the object list: one or the other; %s", use);
    return 2;
  }
  uint64_t len = 64, min = 0, max = UINT64_MAX;
  if (len_s && parse_size("--len", len_s, &len)) return 2;
  if (len_s && (len == 0 || len > DUMP_MAX_LEN)) {
    amber_error("dump --len %s: give 1 to %u bytes", len_s, DUMP_MAX_LEN);
    return 2;
  }
  if ((min_s && parse_size("--min", min_s, &min)) || (max_s && parse_size("--max", max_s, &max))) return 2;
  if (min > max) {
    amber_error("dump --min %s --max %s: no size is in that range; give --min no larger than --max", min_s, max_s);
    return 2;
  }
  struct amber_heap h;
  struct amber_view v;
  if (amber_view_open(path, &h, &v, 0) != 0) return 2;
  int rc = v.left_out ? AMBER_EXIT_INCOMPLETE : 0;
  char lw[256] = "";
  if (v.live) amber_view_live_words(&v, lw, sizeof lw);
  if (at) {
    uint64_t off;
    if (parse_where(&h, "--at", at, &off, 0)) {
      amber_view_close(&h, &v);
      return 2;
    }
    if (len > h.hdr.data_size - off) {
      amber_error("dump --at %s --len %s: runs past the end of heap %s's data area (0x%llx bytes left there); give a shorter --len",
                  at, len_s, h.path, (unsigned long long)(h.hdr.data_size - off));
      amber_view_close(&h, &v);
      return 2;
    }
    if (!json && v.live) printf("# %s\n", lw);
    bytes_at(&h, off, len, json);
    amber_view_close(&h, &v);
    return rc;
  }
  struct filter f = {&h, min, max, 0, h.hdr.data_size, json, 0, 0, 0};
  if ((from_s && parse_where(&h, "--from", from_s, &f.from, 1)) || (to_s && parse_where(&h, "--to", to_s, &f.to, 1))) {
    amber_view_close(&h, &v);
    return 2;
  }
  if (amber_alloc_validate_image(&h, h.data) != 0) {
    amber_error("heap %s: no object list for a heap whose allocator metadata is damaged; run amber check %s for every problem", h.path,
                h.path);
    amber_view_close(&h, &v);
    return 1;
  }
  const struct amber_data_header *dh = amber_heap_dh(&h);
  if (json) {
    printf("{\"heap\": ");
    amber_stats_json_str(stdout, h.path);
    printf(", \"engine\": \"%s\", \"base\": \"0x%llx\", \"data_bytes\": %llu, \"live\": %s", h.engine->name,
           (unsigned long long)h.hdr.base, (unsigned long long)h.hdr.data_size, v.live ? "true" : "false");
    if (v.live) printf(", \"live_pid\": %d, \"as_of_ns\": %llu", v.holder, (unsigned long long)v.as_of);
    printf(", \"root\": ");
    if (dh->root_off)
      printf("{\"offset\": %llu, \"address\": \"0x%llx\", \"size\": %llu}", (unsigned long long)dh->root_off,
             (unsigned long long)(h.hdr.base + dh->root_off), (unsigned long long)dh->root_size);
    else printf("null");
    printf("}\n");
  } else {
    printf("heap %s (engine %s, base 0x%llx, %llu bytes)\n", h.path, h.engine->name, (unsigned long long)h.hdr.base,
           (unsigned long long)h.hdr.data_size);
    if (v.live) printf("%s\n", lw);
    if (dh->root_off)
      printf("root   offset 0x%llx, address 0x%llx, %llu bytes\n", (unsigned long long)dh->root_off,
             (unsigned long long)(h.hdr.base + dh->root_off), (unsigned long long)dh->root_size);
    else printf("root   none (no program called amber_root yet)\n");
    printf("%12s  %-16s %6s %12s\n", "offset", "address", "class", "size");
  }
  amber_alloc_walk(&h, h.data, show, &f);
  if (json)
    printf("{\"objects\": %llu, \"bytes\": %llu, \"shown\": %llu}\n", (unsigned long long)f.objects, (unsigned long long)f.bytes,
           (unsigned long long)f.shown);
  else
    printf("%llu live objects, %llu bytes; %llu shown\n", (unsigned long long)f.objects, (unsigned long long)f.bytes,
           (unsigned long long)f.shown);
  amber_view_close(&h, &v);
  return rc;
}
