/* amber stats HEAP [--json]: what a heap holds, for an operator: sizes,
 * used and free space, live objects by size class, root, arenas, engine
 * area, clean/dirty state.  Read-only (amber_view_open: recovery, when a
 * crash left it pending, runs on a private copy).
 *
 * amber stats FILE.json [--json]: the statistics a program wrote at exit
 * (AMBER_STATS_FILE), one table per JSON object in the file.
 *
 * Which of the two a file is, is decided by its content: a heap starts
 * with the heap magic (runtime/heap/format.h), a statistics file with '{'. */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tx/alloc.h"
#include "amber_tool.h"
#include "base/diag.h"
#include "tx/engine.h"
#include "heap/heap.h"
#include "stats.h"

/* ---- a heap ---- */

static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : 0.0; }

static int stats_heap(const char *path, int json) {
  struct amber_heap h;
  struct amber_view v;
  if (amber_view_open(path, &h, &v) != 0) return 2;
  /* The census trusts the page table only as far as the walk checks it;
   * a damaged one is reported (the first problems) and not summarised. */
  if (amber_alloc_validate_image(&h, h.data) != 0) {
    amber_error("heap %s: no statistics for a heap whose allocator metadata is damaged; run amber check %s for every problem", h.path,
                h.path);
    amber_heap_unmap(&h);
    return 1;
  }
  struct amber_alloc_census c;
  amber_alloc_census(&h, h.data, &c);
  const struct amber_header *hd = &h.hdr;
  const struct amber_data_header *dh = amber_heap_dh(&h);
  uint64_t alloc_pages = c.pages - c.meta_pages, slab_free = 0;
  for (unsigned i = 0; i < AMBER_ALLOC_NCLASSES; i++) slab_free += (c.cls[i].pages * c.cls[i].slots - c.cls[i].objects) * c.cls[i].size;
  unsigned arenas = 0;
  for (unsigned i = 0; i < AMBER_NARENAS; i++) arenas += c.arena_pages[i] != 0;
  char tag[5];
  int tagged = amber_state_tag(v.engine_state, tag);
  const char *state = v.clean ? "clean" : "dirty";
  if (json) {
    printf("{\"path\": ");
    amber_stats_json_str(stdout, h.path);
    printf(", \"version\": %u, \"engine\": \"%s\", \"state\": \"%s\", \"recovery_pending\": %s, \"opens\": %llu, "
           "\"engine_state_word\": \"0x%llx\", \"engine_state_tag\": ",
           hd->version, h.engine->name, state, v.pending ? "true" : "false", (unsigned long long)v.opens,
           (unsigned long long)v.engine_state);
    if (tagged) printf("\"%s\"", tag);
    else printf("null");
    amber_pending_json(stdout, v.pending_txns, v.pending_ckpts, v.left_out);
    printf(", \"file_bytes\": %llu, \"metadata_bytes\": %llu, \"data_bytes\": %llu, \"engine_area_offset\": %llu, "
           "\"engine_area_bytes\": %llu, \"page_bytes\": %u, \"pages\": %llu, \"metadata_pages\": %llu, \"allocatable_pages\": %llu, "
           "\"used_objects\": %llu, \"used_bytes\": %llu, \"slab_pages\": %llu, \"large_pages\": %llu, \"free_pages\": %llu, "
           "\"free_bytes\": %llu, \"largest_free_run_pages\": %llu, \"largest_free_run_bytes\": %llu, \"slab_free_bytes\": %llu, "
           "\"large_objects\": %llu, \"large_requested_bytes\": %llu, \"damaged_descriptors\": %llu, ",
           (unsigned long long)hd->file_size, (unsigned long long)hd->data_offset, (unsigned long long)hd->data_size,
           (unsigned long long)hd->engine_offset, (unsigned long long)hd->engine_size, AMBER_PAGE, (unsigned long long)c.pages,
           (unsigned long long)c.meta_pages, (unsigned long long)alloc_pages, (unsigned long long)c.objects,
           (unsigned long long)c.bytes, (unsigned long long)c.slab_pages, (unsigned long long)c.large_pages,
           (unsigned long long)c.free_pages, (unsigned long long)(c.free_pages * AMBER_PAGE),
           (unsigned long long)c.largest_free_run, (unsigned long long)(c.largest_free_run * AMBER_PAGE),
           (unsigned long long)slab_free, (unsigned long long)c.large_objects, (unsigned long long)c.large_requested,
           (unsigned long long)c.damaged);
    printf("\"roots\": %d, \"root_offset\": %llu, \"root_bytes\": %llu, ", dh->root_off ? 1 : 0, (unsigned long long)dh->root_off,
           (unsigned long long)dh->root_size);
    printf("\"threads\": {\"persistent_table\": false, \"entries_in_use\": 0, \"log_areas\": null}, \"arenas\": %u, "
           "\"arenas_in_use\": %u, \"arena_slab_pages\": [",
           AMBER_NARENAS, arenas);
    for (unsigned i = 0; i < AMBER_NARENAS; i++) printf("%s%llu", i ? ", " : "", (unsigned long long)c.arena_pages[i]);
    printf("], \"classes\": [");
    for (unsigned i = 0; i < AMBER_ALLOC_NCLASSES; i++)
      printf("%s{\"size\": %u, \"slab_pages\": %llu, \"objects\": %llu, \"slots\": %llu, \"bytes\": %llu}", i ? ", " : "",
             c.cls[i].size, (unsigned long long)c.cls[i].pages, (unsigned long long)c.cls[i].objects,
             (unsigned long long)(c.cls[i].pages * c.cls[i].slots), (unsigned long long)(c.cls[i].objects * c.cls[i].size));
    printf("]}\n");
    amber_heap_unmap(&h);
    return v.left_out ? AMBER_EXIT_INCOMPLETE : 0;
  }
  printf("heap           %s\n", h.path);
  printf("engine         %s (layout version %u)\n", h.engine->name, hd->version);
  printf("state          %s (opened %llu time%s)%s\n", state, (unsigned long long)v.opens, v.opens == 1 ? "" : "s",
         v.left_out ? "; recovery is pending: the figures below leave out the transactions named on the next line"
         : v.pending ? "; recovery is pending: the figures below are what it will leave (computed on a private copy)"
         : v.clean   ? ""
                     : "; no recovery is needed");
  char pend[512];
  amber_pending_words(pend, sizeof pend, h.path, v.pending_txns, v.pending_ckpts, v.left_out);
  if (v.pending_txns || v.pending_ckpts || v.left_out) printf("recovery       %s\n", pend);
  printf("file           %llu bytes: %llu metadata, %llu data area, %llu engine area\n", (unsigned long long)hd->file_size,
         (unsigned long long)hd->data_offset, (unsigned long long)hd->data_size, (unsigned long long)hd->engine_size);
  printf("data area      %llu pages of %u bytes: %llu allocator metadata (data header, page table), %llu allocatable\n",
         (unsigned long long)c.pages, AMBER_PAGE, (unsigned long long)c.meta_pages, (unsigned long long)alloc_pages);
  printf("used           %llu objects, %llu bytes (%.1f%% of allocatable) in %llu pages: %llu slab, %llu large\n",
         (unsigned long long)c.objects, (unsigned long long)c.bytes, pct(c.bytes, alloc_pages * AMBER_PAGE),
         (unsigned long long)(c.slab_pages + c.large_pages), (unsigned long long)c.slab_pages, (unsigned long long)c.large_pages);
  printf("free           %llu pages (%llu bytes); largest free run %llu pages (%llu bytes); %llu bytes free in slab pages\n",
         (unsigned long long)c.free_pages, (unsigned long long)(c.free_pages * AMBER_PAGE), (unsigned long long)c.largest_free_run,
         (unsigned long long)(c.largest_free_run * AMBER_PAGE), (unsigned long long)slab_free);
  if (dh->root_off)
    printf("roots          1: offset 0x%llx, %llu bytes\n", (unsigned long long)dh->root_off, (unsigned long long)dh->root_size);
  else printf("roots          0 (no program called amber_root yet)\n");
  printf("threads        no thread table in layout version %u; per-thread log areas: none the %s engine exposes\n", hd->version,
         h.engine->name);
  printf("arenas         %u of %u hold slab pages (a thread allocates from arena thread-number mod %u)", arenas, AMBER_NARENAS,
         AMBER_NARENAS);
  for (unsigned i = 0, first = 1; i < AMBER_NARENAS; i++)
    if (c.arena_pages[i]) {
      printf("%s%u: %llu", first ? ": " : ", ", i, (unsigned long long)c.arena_pages[i]);
      first = 0;
    }
  printf("\n");
  printf("engine area    %llu bytes at file offset 0x%llx; state word 0x%llx%s%s%s\n", (unsigned long long)hd->engine_size,
         (unsigned long long)hd->engine_offset, (unsigned long long)v.engine_state, tagged ? " (\"" : "", tagged ? tag : "",
         tagged ? "\")" : "");
  if (c.damaged) printf("damaged        %llu page descriptors not counted; run amber check\n", (unsigned long long)c.damaged);
  if (c.slab_pages) {
    printf("\n%10s %10s %10s %10s %12s %6s\n", "class", "pages", "objects", "slots", "bytes", "fill");
    for (unsigned i = 0; i < AMBER_ALLOC_NCLASSES; i++) {
      if (!c.cls[i].pages) continue;
      uint64_t slots = c.cls[i].pages * c.cls[i].slots;
      printf("%10u %10llu %10llu %10llu %12llu %5.1f%%\n", c.cls[i].size, (unsigned long long)c.cls[i].pages,
             (unsigned long long)c.cls[i].objects, (unsigned long long)slots, (unsigned long long)(c.cls[i].objects * c.cls[i].size),
             pct(c.cls[i].objects, slots));
    }
  }
  if (c.large_objects)
    printf("%s%10s %10llu %10llu %10s %12llu (%llu bytes requested)\n", c.slab_pages ? "" : "\n", "large",
           (unsigned long long)c.large_pages, (unsigned long long)c.large_objects, "-",
           (unsigned long long)(c.large_pages * AMBER_PAGE), (unsigned long long)c.large_requested);
  amber_heap_unmap(&h);
  return v.left_out ? AMBER_EXIT_INCOMPLETE : 0;
}

/* ---- a statistics file (JSON) ---- */

/* A minimal JSON reader: nested objects and arrays become dotted keys
 * ("a.b", "a[2]"), every leaf one row. */
struct row {
  char *key, *val;
};

struct jp {
  const char *s, *end, *err;
  struct row *rows;
  size_t n, cap;
};

static void ws(struct jp *p) {
  while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')) p->s++;
}

static void add_row(struct jp *p, const char *key, const char *val, size_t vlen) {
  if (p->n == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 64;
    p->rows = realloc(p->rows, p->cap * sizeof *p->rows);
    if (!p->rows) amber_fatal("out of memory reading a statistics file");
  }
  p->rows[p->n].key = strdup(key);
  p->rows[p->n].val = strndup(val, vlen);
  if (!p->rows[p->n].key || !p->rows[p->n].val) amber_fatal("out of memory reading a statistics file");
  p->n++;
}

/* A string at p->s (the opening quote); its decoded text in *out (malloc). */
static int string(struct jp *p, char **out) {
  size_t cap = 32, n = 0;
  char *b = malloc(cap);
  if (!b) amber_fatal("out of memory reading a statistics file");
  p->s++;
  while (p->s < p->end && *p->s != '"') {
    char c = *p->s++;
    if ((unsigned char)c < 0x20) {
      p->err = "a control character inside a string";
      free(b);
      return -1;
    }
    if (c == '\\') {
      if (p->s >= p->end) break;
      c = *p->s++;
      switch (c) {
      case 'n': c = '\n'; break;
      case 't': c = '\t'; break;
      case 'r': c = '\r'; break;
      case 'b': c = '\b'; break;
      case 'f': c = '\f'; break;
      case 'u':
        /* Kept as written: the table shows it, --json passes it on. */
        if (n + 2 >= cap) b = realloc(b, cap *= 2);
        if (!b) amber_fatal("out of memory reading a statistics file");
        b[n++] = '\\';
        break;
      case '"': case '\\': case '/': break;
      default:
        p->err = "an unknown escape in a string";
        free(b);
        return -1;
      }
    }
    if (n + 2 >= cap) b = realloc(b, cap *= 2);
    if (!b) amber_fatal("out of memory reading a statistics file");
    b[n++] = c;
  }
  if (p->s >= p->end) {
    p->err = "a string that does not end";
    free(b);
    return -1;
  }
  p->s++;
  b[n] = 0;
  *out = b;
  return 0;
}

static int value(struct jp *p, const char *key, int depth);

static int members(struct jp *p, const char *key, int depth, int array) {
  char close = array ? ']' : '}';
  p->s++;
  ws(p);
  if (p->s < p->end && *p->s == close) {
    p->s++;
    add_row(p, key, array ? "[]" : "{}", 2);
    return 0;
  }
  for (size_t i = 0;; i++) {
    ws(p);
    if (p->s >= p->end) {
      p->err = array ? "the file ends inside an array" : "the file ends inside an object";
      return -1;
    }
    char *sub;
    if (array) {
      if (asprintf(&sub, "%s[%zu]", key, i) < 0) amber_fatal("out of memory reading a statistics file");
    } else {
      if (p->s >= p->end || *p->s != '"') {
        p->err = "an object member without a quoted name";
        return -1;
      }
      char *name;
      if (string(p, &name)) return -1;
      int r = asprintf(&sub, "%s%s%s", key, *key ? "." : "", name);
      free(name);
      if (r < 0) amber_fatal("out of memory reading a statistics file");
      ws(p);
      if (p->s >= p->end || *p->s != ':') {
        free(sub);
        p->err = "a member name not followed by ':'";
        return -1;
      }
      p->s++;
    }
    int r = value(p, sub, depth + 1);
    free(sub);
    if (r) return -1;
    ws(p);
    if (p->s < p->end && *p->s == ',') {
      p->s++;
      continue;
    }
    if (p->s < p->end && *p->s == close) {
      p->s++;
      return 0;
    }
    p->err = array ? "an array element not followed by ',' or ']'" : "an object member not followed by ',' or '}'";
    return -1;
  }
}

static int value(struct jp *p, const char *key, int depth) {
  ws(p);
  if (depth > 32) {
    p->err = "values nested more than 32 deep";
    return -1;
  }
  if (p->s >= p->end) {
    p->err = "the file ends where a value should be";
    return -1;
  }
  char c = *p->s;
  if (c == '{' || c == '[') return members(p, key, depth, c == '[');
  if (c == '"') {
    char *s;
    if (string(p, &s)) return -1;
    add_row(p, key, s, strlen(s));
    free(s);
    return 0;
  }
  const char *b = p->s;
  while (p->s < p->end && (strchr("+-.eE", *p->s) || (*p->s >= '0' && *p->s <= '9') || (*p->s >= 'a' && *p->s <= 'z'))) p->s++;
  size_t n = (size_t)(p->s - b);
  char *e;
  char tmp[64];
  int ok = n > 0 && n < sizeof tmp;
  if (ok) {
    memcpy(tmp, b, n);
    tmp[n] = 0;
    ok = !strcmp(tmp, "true") || !strcmp(tmp, "false") || !strcmp(tmp, "null") || ((tmp[0] == '-' || (tmp[0] >= '0' && tmp[0] <= '9')) && (strtod(tmp, &e), *e == 0));
  }
  if (!ok) {
    p->s = b;
    p->err = "a value that is not a string, number, object, array, true, false or null";
    return -1;
  }
  add_row(p, key, b, n);
  return 0;
}

static void free_rows(struct jp *p) {
  for (size_t i = 0; i < p->n; i++) {
    free(p->rows[i].key);
    free(p->rows[i].val);
  }
  p->n = 0;
}

static int line_of(const char *text, const char *at) {
  int l = 1;
  for (const char *c = text; c < at; c++) l += *c == '\n';
  return l;
}

static int stats_file(const char *path, int fd, int json) {
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    amber_error("cannot stat %s: %s; pass a readable statistics file", path, strerror(errno));
    return 2;
  }
  if (sb.st_size > (64 << 20)) {
    amber_error("%s is too large for a statistics file (AMBER_STATS_FILE writes one line); pass the file a program wrote", path);
    return 2;
  }
  char *text = malloc((size_t)sb.st_size + 1);
  if (!text) amber_fatal("out of memory reading %s", path);
  ssize_t got = pread(fd, text, (size_t)sb.st_size, 0);
  if (got < 0) {
    amber_error("cannot read %s: %s; pass a readable statistics file", path, strerror(errno));
    free(text);
    return 2;
  }
  text[got] = 0;
  struct jp p = {text, text + got, NULL, NULL, 0, 0};
  /* Every record first (a file of JSON lines holds several), so that a
   * damaged one prints nothing but the error. */
  struct rec {
    size_t first, last; /* rows */
    const char *start, *end;
  } *recs = NULL;
  size_t nrec = 0;
  int rc = 0;
  for (;;) {
    ws(&p);
    if (p.s >= p.end) break;
    const char *start = p.s;
    size_t first = p.n;
    if (*p.s != '{' || value(&p, "", 0) != 0) {
      amber_error("%s, line %d: not a statistics file: %s; amber stats reads a heap or the JSON that AMBER_STATS_FILE writes", path,
                  line_of(text, p.s), p.err ? p.err : "a JSON object was expected");
      rc = 2;
      break;
    }
    recs = realloc(recs, (nrec + 1) * sizeof *recs);
    if (!recs) amber_fatal("out of memory reading %s", path);
    recs[nrec++] = (struct rec){first, p.n, start, p.s};
  }
  if (!rc && !nrec) {
    amber_error("%s is empty: no statistics in it; a program writes them at exit when AMBER_STATS_FILE names the file", path);
    rc = 2;
  }
  for (size_t r = 0; !rc && r < nrec; r++) {
    if (json) {
      fwrite(recs[r].start, 1, (size_t)(recs[r].end - recs[r].start), stdout);
      fputc('\n', stdout);
      continue;
    }
    size_t w = 5;
    for (size_t i = recs[r].first; i < recs[r].last; i++)
      if (strlen(p.rows[i].key) > w) w = strlen(p.rows[i].key);
    if (w > 40) w = 40;
    if (nrec > 1) printf("%s%s, record %zu of %zu\n", r ? "\n" : "", path, r + 1, nrec);
    else printf("%s\n", path);
    for (size_t i = recs[r].first; i < recs[r].last; i++) printf("  %-*s  %s\n", (int)w, p.rows[i].key, p.rows[i].val);
  }
  free(recs);
  free_rows(&p);
  free(p.rows);
  free(text);
  return rc;
}

int amber_cmd_stats(int argc, char **argv) {
  const char *path = NULL;
  int json = 0;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) json = 1;
    else if (argv[i][0] == '-' && argv[i][1]) {
      amber_error("stats: unknown option '%s'; use amber stats HEAP|FILE.json [--json]", argv[i]);
      return 2;
    } else if (path) {
      amber_error("stats: one file at a time ('%s' and '%s'); use amber stats HEAP|FILE.json [--json]", path, argv[i]);
      return 2;
    } else path = argv[i];
  }
  if (!path) {
    amber_tool_usage();
    return 2;
  }
  /* O_NONBLOCK: a FIFO must not block here (the heap open refuses it). */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    amber_error("cannot open %s: %s; pass a heap file or a statistics file written by AMBER_STATS_FILE", path, strerror(errno));
    return 2;
  }
  struct stat sb;
  memset(&sb, 0, sizeof sb);
  char head[256];
  ssize_t n = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) ? pread(fd, head, sizeof head, 0) : 0;
  int rc;
  ssize_t lead = 0;
  while (lead < n && (head[lead] == ' ' || head[lead] == '\t' || head[lead] == '\r' || head[lead] == '\n')) lead++;
  if (lead < n && head[lead] == '{') {
    rc = stats_file(path, fd, json);
    close(fd);
    return rc;
  }
  close(fd);
  if (n >= (ssize_t)sizeof AMBER_MAGIC && !memcmp(head, AMBER_MAGIC, sizeof AMBER_MAGIC)) return stats_heap(path, json);
  if (!S_ISREG(sb.st_mode)) return stats_heap(path, json); /* refused there, with the reason */
  amber_error("%s is neither an amber heap (it does not start with the heap magic) nor a statistics file (a JSON object, as "
              "AMBER_STATS_FILE writes); pass one of those",
              path);
  return 2;
}
