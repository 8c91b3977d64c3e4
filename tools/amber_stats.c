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
#include <linux/futex.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tx/alloc.h"
#include "amber_tool.h"
#include "base/diag.h"
#include "tx/engine.h"
#include "heap/heap.h"
#include "live.h"
#include "stats.h"

/* ---- a heap ---- */

static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : 0.0; }

/* "live": true/false, and for a live heap its holder and the copy's time. */
static void live_json(const struct amber_view *v) {
  printf(", \"live\": %s", v->live ? "true" : "false");
  if (v->live) printf(", \"live_pid\": %d, \"as_of_ns\": %llu, \"copy_reads\": %d", v->holder, (unsigned long long)v->as_of, v->passes);
}

static int stats_busy(const char *path, const struct amber_view *v, int json);

static int stats_heap(const char *path, int json) {
  struct amber_heap h;
  struct amber_view v;
  int rc = amber_view_open(path, &h, &v, 1);
  if (rc != 0) return v.busy ? stats_busy(path, &v, json) : 2;
  /* The census trusts the page table only as far as the walk checks it;
   * a damaged one is reported (the first problems) and not summarised. */
  if (amber_alloc_validate_image(&h, h.data) != 0) {
    amber_error("heap %s: no statistics for a heap whose allocator metadata is damaged; run amber check %s for every problem", h.path,
                h.path);
    amber_view_close(&h, &v);
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
    live_json(&v);
    printf(", \"file_bytes\": %llu, \"metadata_bytes\": %llu, \"data_bytes\": %llu, \"engine_area_offset\": %llu, "
           "\"engine_area_bytes\": %llu, \"journal_bytes\": %llu, \"journal_entries\": %llu, \"page_bytes\": %u, \"pages\": %llu, \"metadata_pages\": %llu, \"allocatable_pages\": %llu, "
           "\"used_objects\": %llu, \"used_bytes\": %llu, \"slab_pages\": %llu, \"large_pages\": %llu, \"free_pages\": %llu, "
           "\"free_bytes\": %llu, \"largest_free_run_pages\": %llu, \"largest_free_run_bytes\": %llu, \"slab_free_bytes\": %llu, "
           "\"large_objects\": %llu, \"large_requested_bytes\": %llu, \"damaged_descriptors\": %llu, ",
           (unsigned long long)hd->file_size, (unsigned long long)hd->data_offset, (unsigned long long)hd->data_size,
           (unsigned long long)hd->engine_offset, (unsigned long long)hd->engine_size, (unsigned long long)hd->journal_size,
           (unsigned long long)(h.journal_replayed + h.journal_pending), AMBER_PAGE, (unsigned long long)c.pages,
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
    amber_view_close(&h, &v);
    return v.left_out ? AMBER_EXIT_INCOMPLETE : 0;
  }
  printf("heap           %s\n", h.path);
  if (v.live) {
    char lw[256];
    amber_view_live_words(&v, lw, sizeof lw);
    printf("live           %s\n", lw);
  }
  printf("engine         %s (layout version %u)\n", h.engine->name, hd->version);
  printf("state          %s (opened %llu time%s)%s\n", state, (unsigned long long)v.opens, v.opens == 1 ? "" : "s",
         v.left_out ? "; recovery is pending: the figures below leave out the transactions named on the next line"
         : v.pending ? "; recovery is pending: the figures below are what it will leave (computed on a private copy)"
         : v.clean   ? ""
                     : "; no recovery is needed");
  char pend[512];
  amber_pending_words(pend, sizeof pend, h.path, v.pending_txns, v.pending_ckpts, v.left_out);
  if (v.pending_txns || v.pending_ckpts || v.left_out) printf("recovery       %s\n", pend);
  printf("file           %llu bytes: %llu metadata, %llu data area, %llu engine area, %llu sync journal\n",
         (unsigned long long)hd->file_size, (unsigned long long)hd->data_offset, (unsigned long long)hd->data_size,
         (unsigned long long)hd->engine_size, (unsigned long long)hd->journal_size);
  if (h.journal_replayed || h.journal_pending)
    printf("sync journal   %llu entries the next open replays (the figures below include them)\n",
           (unsigned long long)(h.journal_replayed + h.journal_pending));
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
  amber_view_close(&h, &v);
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


/* ---- a running program (amber stats --pid) ---- */

static long futex_op(uint32_t *w, int op, uint32_t v, const struct timespec *ts) { return syscall(SYS_futex, w, op, v, ts, NULL, 0); }

/* Asks process pid for a snapshot (live.h) and copies its JSON into *text
 * (malloc); mono: its CLOCK_MONOTONIC.  0, or 2 after an amber: error:. */
static int live_ask(int pid, char **text, uint64_t *mono, uint64_t *real) {
  char path[128];
  snprintf(path, sizeof path, AMBER_LIVE_FILE_FMT, (unsigned)geteuid(), pid);
  int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (kill(pid, 0) != 0 && errno == ESRCH) {
      amber_error("stats --pid %d: no process %d is running; give the process id of a running program built with amber-cc", pid, pid);
      return 2;
    }
    amber_error("stats --pid %d: process %d publishes no live statistics (%s: %s); it is not a program built with amber-cc, has "
                "not opened its heap yet, runs as another user (run amber as that user), or runs with AMBER_LIVE_STATS=0",
                pid, pid, path, strerror(errno));
    return 2;
  }
  struct amber_live_page *pg = mmap(NULL, AMBER_LIVE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  struct stat sb;
  int bad = fstat(fd, &sb) != 0 || sb.st_size < (off_t)AMBER_LIVE_BYTES;
  close(fd);
  if (pg == MAP_FAILED || bad || memcmp(pg->magic, AMBER_LIVE_MAGIC, sizeof pg->magic) || pg->pid != pid) {
    if (pg != MAP_FAILED) munmap(pg, AMBER_LIVE_BYTES);
    amber_error("stats --pid %d: %s is not a live statistics page of this amber (another version wrote it, or it is damaged); "
                "use the amber that built the program",
                pid, path);
    return 2;
  }
  int rc = 2;
  for (int tries = 0; tries < 5; tries++) {
    uint32_t want = __atomic_add_fetch(&pg->request, 1, __ATOMIC_ACQ_REL);
    futex_op(&pg->request, FUTEX_WAKE, INT32_MAX, NULL);
    struct timespec t0, now, slice = {0, 50 * 1000 * 1000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
      uint32_t got = __atomic_load_n(&pg->served, __ATOMIC_ACQUIRE);
      if ((int32_t)(got - want) >= 0) break;
      clock_gettime(CLOCK_MONOTONIC, &now);
      if (now.tv_sec - t0.tv_sec >= 10) {
        amber_error("stats --pid %d: process %d did not answer within 10 s (is it stopped, e.g. by SIGSTOP or a debugger?); "
                    "try again when it runs",
                    pid, pid);
        munmap(pg, AMBER_LIVE_BYTES);
        return 2;
      }
      futex_op(&pg->served, FUTEX_WAIT, got, &slice);
    }
    uint32_t seq = __atomic_load_n(&pg->seq, __ATOMIC_ACQUIRE);
    if (seq & 1) continue;
    uint32_t len = pg->len;
    if (len >= AMBER_LIVE_BYTES - sizeof *pg) len = 0;
    char *t = malloc(len + 1);
    if (!t) amber_fatal("out of memory");
    memcpy(t, pg->text, len);
    t[len] = 0;
    *mono = pg->mono_ns;
    *real = pg->time_ns;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&pg->seq, __ATOMIC_ACQUIRE) != seq || !len) {
      free(t);
      continue;
    }
    *text = t;
    rc = 0;
    break;
  }
  if (rc) amber_error("stats --pid %d: process %d kept rewriting its statistics while they were read; try again", pid, pid);
  munmap(pg, AMBER_LIVE_BYTES);
  return rc;
}

/* The rows of one snapshot (dotted keys). */
static int live_rows(int pid, const char *text, struct jp *p) {
  memset(p, 0, sizeof *p);
  p->s = text;
  p->end = text + strlen(text);
  if (value(p, "", 0) != 0) {
    amber_error("stats --pid %d: the process published statistics amber cannot read (%s); use the amber that built the program",
                pid, p->err ? p->err : "not JSON");
    return 2;
  }
  return 0;
}

static const char *row_get(const struct jp *p, const char *key) {
  for (size_t i = 0; i < p->n; i++)
    if (!strcmp(p->rows[i].key, key)) return p->rows[i].val;
  return NULL;
}
static double row_num(const struct jp *p, const char *key) {
  const char *v = row_get(p, key);
  return v ? strtod(v, NULL) : 0.0;
}

/* One snapshot's rows, "  key  value", the keys in one column. */
static void print_rows(const struct jp *a) {
  size_t w = 5;
  for (size_t i = 0; i < a->n; i++)
    if (strlen(a->rows[i].key) > w) w = strlen(a->rows[i].key);
  if (w > 40) w = 40;
  for (size_t i = 0; i < a->n; i++) printf("  %-*s  %s\n", (int)w, a->rows[i].key, a->rows[i].val);
}

static void when(uint64_t real_ns, char *buf, size_t len) {
  time_t sec = (time_t)(real_ns / 1000000000u);
  struct tm tm;
  gmtime_r(&sec, &tm);
  strftime(buf, len, "%H:%M:%S", &tm);
}

static void human_rate(double bps, char *buf, size_t len) {
  if (bps >= 1e9) snprintf(buf, len, "%.1f GB/s", bps / 1e9);
  else if (bps >= 1e6) snprintf(buf, len, "%.1f MB/s", bps / 1e6);
  else if (bps >= 1e3) snprintf(buf, len, "%.1f kB/s", bps / 1e3);
  else snprintf(buf, len, "%.0f B/s", bps);
}

/* One --watch line: the rates between snapshots a and b. */
static void watch_line(const struct jp *a, const struct jp *b, double secs, uint64_t real_ns, int json, const char *text) {
  static const char *const reason[] = {"conflict", "validation", "future", "capacity", "upgrade", "irrevocable", "retry", "cancel", "readlog"};
  double d_upd = row_num(b, "tx.update_commits") - row_num(a, "tx.update_commits");
  double commits = (row_num(b, "tx.commits") - row_num(a, "tx.commits")) / secs;
  double aborts = (row_num(b, "tx.aborts") - row_num(a, "tx.aborts")) / secs;
  double fences = row_num(b, "pm.fences") - row_num(a, "pm.fences"), flushes = row_num(b, "pm.flushes") - row_num(a, "pm.flushes");
  double stored = (row_num(b, "tx.stored_bytes") - row_num(a, "tx.stored_bytes")) / secs;
  double flushed = (row_num(b, "pm.flushed_bytes") - row_num(a, "pm.flushed_bytes")) / secs;
  if (json) {
    /* The snapshot with its rates added. */
    size_t n = strlen(text);
    while (n && text[n - 1] != '}') n--;
    fwrite(text, 1, n ? n - 1 : 0, stdout);
    printf(", \"rates\": {\"seconds\": %.3f, \"commits_per_s\": %.1f, \"aborts_per_s\": %.1f", secs, commits, aborts);
    for (size_t i = 0; i < sizeof reason / sizeof *reason; i++) {
      char k[64];
      snprintf(k, sizeof k, "tx.aborts_%s", reason[i]);
      printf(", \"aborts_%s_per_s\": %.1f", reason[i], (row_num(b, k) - row_num(a, k)) / secs);
    }
    printf(", \"fences_per_update_txn\": %.3f, \"flushes_per_update_txn\": %.3f, \"stored_bytes_per_s\": %.0f, "
           "\"flushed_bytes_per_s\": %.0f}}\n",
           d_upd > 0 ? fences / d_upd : 0.0, d_upd > 0 ? flushes / d_upd : 0.0, stored, flushed);
    fflush(stdout);
    return;
  }
  char t[16], sr[32], fr[32], why[256] = "";
  when(real_ns, t, sizeof t);
  human_rate(stored, sr, sizeof sr);
  human_rate(flushed, fr, sizeof fr);
  size_t w = 0;
  for (size_t i = 0; i < sizeof reason / sizeof *reason; i++) {
    char k[64];
    snprintf(k, sizeof k, "tx.aborts_%s", reason[i]);
    double r = (row_num(b, k) - row_num(a, k)) / secs;
    if (r > 0 && w < sizeof why) w += (size_t)snprintf(why + w, sizeof why - w, "%s%s %.0f", w ? ", " : " (", reason[i], r);
  }
  if (w && w < sizeof why) snprintf(why + w, sizeof why - w, ")");
  printf("%s  commits/s %.0f  aborts/s %.0f%s  fences/update %.2f  flushes/update %.2f  written %s  flushed %s", t, commits, aborts,
         why, d_upd > 0 ? fences / d_upd : 0.0, d_upd > 0 ? flushes / d_upd : 0.0, sr, fr);
  if (row_get(b, "engine.tlog_fill"))
    printf("  tlog %.0f%%  olog %.0f%%  clog %.0f%%", 100 * row_num(b, "engine.tlog_fill"), 100 * row_num(b, "engine.olog_fill"),
           100 * row_num(b, "engine.clog_fill"));
  printf("  heap %.0f%%\n", 100 * row_num(b, "alloc.fill"));
  fflush(stdout);
}

static int stats_pid(const char *arg, double watch, long count, int json) {
  char *e;
  long pid = strtol(arg, &e, 10);
  if (*e || pid <= 0 || pid > INT32_MAX) {
    amber_error("stats --pid %s: not a process id; give the number ps or pidof prints", arg);
    return 2;
  }
  char *text;
  uint64_t mono, real;
  int rc = live_ask((int)pid, &text, &mono, &real);
  if (rc) return rc;
  struct jp a;
  if (live_rows((int)pid, text, &a)) return 2;
  if (watch <= 0) {
    if (json) printf("%s\n", text);
    else {
      char t[16];
      when(real, t, sizeof t);
      printf("process %ld (%s), heap %s: live statistics at %s UTC\n", pid, row_get(&a, "program") ? row_get(&a, "program") : "?",
             row_get(&a, "heap") ? row_get(&a, "heap") : "?", t);
      print_rows(&a);
    }
    free_rows(&a);
    free(a.rows);
    free(text);
    return 0;
  }
  for (long i = 0; count <= 0 || i < count; i++) {
    struct timespec ts = {(time_t)watch, (long)((watch - (double)(time_t)watch) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
    char *t2;
    uint64_t mono2, real2;
    if ((rc = live_ask((int)pid, &t2, &mono2, &real2)) != 0) break;
    struct jp b;
    if ((rc = live_rows((int)pid, t2, &b)) != 0) break;
    double secs = mono2 > mono ? (double)(mono2 - mono) / 1e9 : watch;
    watch_line(&a, &b, secs, real2, json, t2);
    free_rows(&a);
    free(a.rows);
    free(text);
    a = b;
    text = t2;
    mono = mono2;
  }
  free_rows(&a);
  free(a.rows);
  free(text);
  return rc;
}

/* A heap its program changed during each read: no copy to count from, so
 * the program's own published counters, said to be so. */
static int stats_busy(const char *path, const struct amber_view *v, int json) {
  char *text;
  uint64_t mono, real;
  if (!v->holder || live_ask(v->holder, &text, &mono, &real) != 0) {
    char who[48] = "a process /proc/locks does not name";
    if (v->holder) snprintf(who, sizeof who, "process %d", v->holder);
    amber_error("stats: heap %s is in use by %s, which changed it during each of %d reads, and its published counters "
                "cannot be read%s; try again when it is less busy, or stop the program",
                path, who, amber_view_copy_tries(), v->holder ? " (above)" : "");
    return 2;
  }
  struct jp a;
  if (live_rows(v->holder, text, &a)) {
    free(text);
    return 2;
  }
  char t[16];
  when(real, t, sizeof t);
  if (json) {
    printf("{\"path\": ");
    amber_stats_json_str(stdout, path);
    printf(", \"live\": true, \"busy\": true, \"live_pid\": %d, \"as_of_ns\": %llu, \"copy_reads\": %d, \"process\": %s}\n",
           v->holder, (unsigned long long)real, amber_view_copy_tries(), text);
  } else {
    printf("heap         %s\n", path);
    printf("live         busy: process %d changed the file during each of %d reads, so these are its own published counters "
           "at %s UTC (amber stats --pid %d), not a count of the file\n",
           v->holder, amber_view_copy_tries(), t, v->holder);
    print_rows(&a);
  }
  free_rows(&a);
  free(a.rows);
  free(text);
  return 0;
}

int amber_stats_live_counters(int pid, const char *const *prefixes, int json, uint64_t *real_ns) {
  char *text;
  uint64_t mono;
  if (!pid || live_ask(pid, &text, &mono, real_ns) != 0) return 2;
  struct jp a;
  if (live_rows(pid, text, &a)) {
    free(text);
    return 2;
  }
  int first = 1;
  if (json) printf(", \"counters\": {");
  for (size_t i = 0; i < a.n; i++) {
    int want = 0;
    for (const char *const *p = prefixes; *p && !want; p++) want = !strncmp(a.rows[i].key, *p, strlen(*p));
    if (!want) continue;
    if (json) {
      printf("%s", first ? "" : ", ");
      amber_stats_json_str(stdout, a.rows[i].key);
      /* A number stays a number; anything else is quoted. */
      char *end;
      strtod(a.rows[i].val, &end);
      if (*a.rows[i].val && !*end) printf(": %s", a.rows[i].val);
      else {
        printf(": ");
        amber_stats_json_str(stdout, a.rows[i].val);
      }
    } else printf("  %-22s %s\n", a.rows[i].key, a.rows[i].val);
    first = 0;
  }
  if (json) printf("}");
  free_rows(&a);
  free(a.rows);
  free(text);
  return 0;
}

int amber_cmd_stats(int argc, char **argv) {
  const char *path = NULL, *pid = NULL;
  int json = 0;
  double watch = 0;
  long count = 0;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) json = 1;
    else if (!strcmp(argv[i], "--pid") && i + 1 < argc) pid = argv[++i];
    else if (!strcmp(argv[i], "--watch") && i + 1 < argc) {
      char *e;
      watch = strtod(argv[++i], &e);
      if (*e || !(watch > 0) || watch > 86400) {
        amber_error("stats --watch %s: not a number of seconds; use e.g. --watch 1", argv[i]);
        return 2;
      }
    } else if (!strcmp(argv[i], "--count") && i + 1 < argc) {
      char *e;
      count = strtol(argv[++i], &e, 10);
      if (*e || count <= 0) {
        amber_error("stats --count %s: not a positive number of lines; use e.g. --count 5", argv[i]);
        return 2;
      }
    }
    else if (argv[i][0] == '-' && argv[i][1]) {
      amber_error("stats: unknown option '%s'; use amber stats HEAP|FILE.json [--json] or amber stats --pid PID [--watch N [--count K]] [--json]", argv[i]);
      return 2;
    } else if (path) {
      amber_error("stats: one file at a time ('%s' and '%s'); use amber stats HEAP|FILE.json [--json]", path, argv[i]);
      return 2;
    } else path = argv[i];
  }
  if (pid && path) {
    amber_error("stats: --pid %s and %s: a process or a file, not both; use amber stats --pid PID or amber stats HEAP", pid, path);
    return 2;
  }
  if ((watch > 0 || count) && !pid) {
    amber_error("stats: --watch and --count apply to a running program; use amber stats --pid PID --watch N [--count K]");
    return 2;
  }
  if (count && !(watch > 0)) {
    amber_error("stats --count %ld needs --watch N (seconds between lines)", count);
    return 2;
  }
  if (pid) return stats_pid(pid, watch, count, json);
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
