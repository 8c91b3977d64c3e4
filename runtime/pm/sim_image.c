/* The crash simulator's crash side: which post-crash images a crash point
 * can leave, writing them as heap files, and running the checker on each.
 *
 * Runs in the crashing process (AMBER_CRASH_AT) or in a child forked at the
 * crash point (AMBER_SIM_WALK), with the model frozen.  It must never call
 * exit(): the program's atexit handlers (heap close) belong to the parent.
 * Failures here print "amber: error:" and _exit. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/options.h"
#include "sim.h"

#define LINE 64u
#define PAGE 4096u
#define OUT_MAX 2000

static void die(const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = snprintf(buf, sizeof buf, "amber: error: crash simulator: ");
  n += vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
  va_end(ap);
  if (n > (int)sizeof buf - 2) n = (int)sizeof buf - 2;
  buf[n++] = '\n';
  if (write(2, buf, (size_t)n) < 0) {
  }
  _exit(3);
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) die("out of memory");
  return p;
}

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* ---- the point's pending lines ---- */

static struct sim_line **lines;
static size_t nlines;
static uint64_t *nonzero_pages; /* pages of the durable image that are not all zero */
static size_t nnonzero;

static int newest_first(const void *a, const void *b) {
  const struct sim_line *x = *(struct sim_line *const *)a, *y = *(struct sim_line *const *)b;
  uint64_t sx = x->st[x->n - 1].seq, sy = y->st[y->n - 1].seq;
  return sx < sy ? 1 : sx > sy ? -1 : 0;
}

static void collect(void) {
  struct sim_model *m = &amber_sim;
  lines = xmalloc(m->used * sizeof *lines + 1);
  nlines = 0;
  for (size_t i = 0; i < m->tabcap; i++)
    if (m->tab[i] && m->tab[i]->n) lines[nlines++] = m->tab[i];
  qsort(lines, nlines, sizeof *lines, newest_first);
  static const unsigned char zero[PAGE];
  nonzero_pages = xmalloc((m->file_size / PAGE) * sizeof *nonzero_pages + 1);
  nnonzero = 0;
  for (uint64_t pg = 0; pg < m->file_size / PAGE; pg++)
    if (memcmp(m->durable + pg * PAGE, zero, PAGE)) nonzero_pages[nnonzero++] = pg;
}

/* ---- writing an image ---- */

static void pwrite_all(int fd, const void *buf, size_t len, uint64_t off, const char *path) {
  const char *p = buf;
  while (len) {
    ssize_t w = pwrite(fd, p, len, (off_t)off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) die("cannot write crash image %s: %s; check the space in AMBER_SIM_DIR", path, strerror(errno));
    p += w;
    len -= (size_t)w;
    off += (uint64_t)w;
  }
}

/* The durable image with, for each line i, its first prefix[i] pending
 * stores (eADR: the first `global` stores in store order, prefix NULL). */
static void write_image(const char *path, const uint32_t *prefix, const struct sim_store *const *order, uint64_t global) {
  struct sim_model *m = &amber_sim;
  /* A heap's copy: 0600 like the heap, and a new file of this process's
   * own, never one planted at its name (the default directory, /dev/shm, is
   * everyone's; in a sticky directory unlink removes only our own file). */
  unlink(path);
  int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) die("cannot create crash image %s: %s; set AMBER_SIM_DIR to a writable directory", path, strerror(errno));
  if (ftruncate(fd, (off_t)m->file_size) != 0) die("cannot size crash image %s: %s", path, strerror(errno));
  for (size_t i = 0; i < nnonzero; i++)
    pwrite_all(fd, m->durable + nonzero_pages[i] * PAGE, PAGE, nonzero_pages[i] * PAGE, path);
  for (size_t i = 0; i < nlines; i++) {
    const struct sim_line *l = lines[i];
    unsigned char buf[LINE];
    memcpy(buf, m->durable + l->idx * LINE, LINE);
    uint32_t k = 0;
    for (uint32_t s = 0; s < l->n; s++) {
      int take = prefix ? s < prefix[i] : l->st[s].seq <= (global ? order[global - 1]->seq : 0);
      if (!take) continue;
      memcpy(buf + l->st[s].word * 8, &l->st[s].val, 8);
      k++;
    }
    if (k) pwrite_all(fd, buf, LINE, l->idx * LINE, path);
  }
  close(fd);
}

/* ---- running the checker ---- */

static void child_env(const char *image, int nested) {
  setenv("AMBER_HEAP", image, 1);
  unsetenv("AMBER_CRASH_AT");
  unsetenv("AMBER_SIM_DURABLE");
  unsetenv("AMBER_STATS");
  unsetenv("AMBER_STATS_FILE");
  if (!nested) {
    setenv("AMBER_PM", "none", 1);
    setenv("AMBER_PM_POWER_LOSS_OK", "1", 1); /* an image is checked, not kept: none is meant */
    unsetenv("AMBER_SIM_WALK");
    return;
  }
  setenv("AMBER_PM", "sim", 1);
  setenv("AMBER_SIM_WALK", "1", 1);
  setenv("AMBER_SIM_NESTED", "1", 1);
  char stride[32];
  snprintf(stride, sizeof stride, "%llu", (unsigned long long)amber_opt.sim_recovery_stride);
  setenv("AMBER_SIM_STRIDE", stride, 1);
  setenv("AMBER_SIM_BOUND", "1", 1);
  setenv("AMBER_SIM_SAMPLES", "2", 1);
  setenv("AMBER_SIM_LINES", "4", 1);
  setenv("AMBER_SIM_RECOVERY", "0", 1);
  setenv("AMBER_SIM_JOBS", "1", 1);
}

/* The checker's output, read line by line as it comes: a nested walker's
 * own lines are forwarded at once (it may print thousands), the rest is
 * kept, cut at OUT_MAX, for the image's result line. */
struct capture {
  const char *tag;
  char line[4096];
  size_t ll;
  char out[OUT_MAX + 8];
  size_t o;
};

static void take_line(struct capture *c, const char *s, size_t len) {
  const char *tag = c->tag;
  /* A nested walker's own lines, with this image's tag in front. */
  static const struct {
    const char *from, *to, *sep;
  } fwd[] = {{"amber-sim: image ", "amber-sim: image ", "/"},  {"amber-sim: images ", "amber-sim: images ", "/"},
             {"amber-sim: lint - ", "amber-sim: lint ", " "},  {"amber-sim: plant - ", "amber-sim: plant ", " "},
             {"amber-sim: point ", "amber-sim: point ", "/"}};
  if (len > 11 && !strncmp(s, "amber-sim: ", 11)) {
    for (size_t k = 0; k < sizeof fwd / sizeof fwd[0]; k++) {
      size_t f = strlen(fwd[k].from);
      if (len <= f || strncmp(s, fwd[k].from, f)) continue;
      if (k == 4 && !memmem(s, len, " failed ", 8)) break; /* only failed points */
      amber_sim_say("%s%s%s%.*s\n", fwd[k].to, tag, fwd[k].sep, (int)(len - f), s + f);
      break;
    }
    return;
  }
  if (c->o && c->o + 3 < OUT_MAX) {
    memcpy(c->out + c->o, " | ", 3);
    c->o += 3;
  }
  for (size_t i = 0; i < len && c->o < OUT_MAX; i++) c->out[c->o++] = s[i];
}

static void take_bytes(struct capture *c, const char *buf, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (buf[i] == '\n' || c->ll == sizeof c->line) {
      take_line(c, c->line, c->ll);
      c->ll = 0;
      if (buf[i] == '\n') continue;
    }
    c->line[c->ll++] = buf[i];
  }
}

/* Runs the checker on `image`, its stdout and stderr into `c`.  Returns the
 * exit status, -SIG when killed, or INT32_MIN on timeout. */
static int run_checker(const char *image, int nested, struct capture *c) {
  int p[2];
  if (pipe(p) != 0) die("cannot make a pipe: %s", strerror(errno));
  pid_t pid = fork();
  if (pid < 0) die("cannot fork a checker: %s", strerror(errno));
  if (pid == 0) {
    setpgid(0, 0);
    dup2(p[1], 1);
    dup2(p[1], 2);
    close(p[0]);
    close(p[1]);
    child_env(image, nested);
    execl("/bin/sh", "sh", "-c", amber_opt.sim_check, (char *)NULL);
    _exit(127);
  }
  close(p[1]);
  /* A nested walker checks many images of its own, each under the
   * timeout: it gets twenty times as long before it counts as hung. */
  time_t limit = (time_t)(amber_opt.sim_timeout ? amber_opt.sim_timeout : 60) * (nested ? 20 : 1);
  time_t deadline = time(NULL) + limit;
  int timed_out = 0;
  for (;;) {
    struct pollfd pf = {.fd = p[0], .events = POLLIN};
    int left = (int)(deadline - time(NULL));
    if (left <= 0 || poll(&pf, 1, left * 1000) == 0) {
      timed_out = 1;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      break;
    }
    char buf[4096];
    ssize_t r = read(p[0], buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    take_bytes(c, buf, (size_t)r);
  }
  if (c->ll) take_line(c, c->line, c->ll);
  close(p[0]);
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  kill(-pid, SIGKILL); /* anything the checker left behind */
  if (timed_out) return -2147483647 - 1;
  if (WIFSIGNALED(st)) return -WTERMSIG(st);
  return WEXITSTATUS(st);
}

/* The image's result line. */
static void report(const char *kind, int rc, struct capture *c) {
  c->out[c->o] = 0;
  char rcs[32];
  if (rc == -2147483647 - 1) snprintf(rcs, sizeof rcs, "timeout");
  else snprintf(rcs, sizeof rcs, "%d", rc);
  amber_sim_say("amber-sim: image %s %s rc=%s out=%s\n", c->tag, kind, rcs, c->out);
}

/* ---- choosing the images ---- */

struct point {
  uint64_t n;
  uint64_t total; /* legal images, saturated at UINT64_MAX */
  uint64_t checked;
  char dir[512];
  int keep;
  struct capture *cap;
};

static void one_image(struct point *pt, const char *kind, const uint32_t *prefix, const struct sim_store *const *order,
                      uint64_t global) {
  char path[700], tag[64];
  pt->checked++;
  snprintf(path, sizeof path, "%s/amber-sim-%d-%llu-%llu.heap", pt->dir, (int)getpid(), (unsigned long long)pt->n,
           (unsigned long long)pt->checked);
  snprintf(tag, sizeof tag, "%llu.%llu", (unsigned long long)pt->n, (unsigned long long)pt->checked);
  write_image(path, prefix, order, global);
  if (!amber_opt.sim_check[0]) {
    amber_sim_say("amber-sim: image %s %s rc=none out=%s\n", tag, kind, path);
    return;
  }
  int nested = !amber_opt.sim_nested && pt->checked <= amber_opt.sim_recovery;
  struct capture *c = pt->cap;
  memset(c, 0, sizeof *c);
  c->tag = tag;
  int rc = run_checker(path, nested, c);
  report(kind, rc, c);
  if (!pt->keep) unlink(path);
}

static void set_all(uint32_t *prefix, int full) {
  for (size_t i = 0; i < nlines; i++) prefix[i] = full ? lines[i]->n : 0;
}

static void header(struct point *pt, uint64_t count, const char *mode) {
  amber_sim_say("amber-sim: images %llu %llu %llu %s\n", (unsigned long long)pt->n, (unsigned long long)count,
                (unsigned long long)pt->total, mode);
}

static void per_line_images(struct point *pt, uint32_t *prefix) {
  uint64_t cap = amber_opt.sim_lines;
  char kind[64];
  for (size_t i = 0; i < nlines && i < cap; i++) {
    set_all(prefix, 0);
    prefix[i] = lines[i]->n;
    snprintf(kind, sizeof kind, "line-new:%llu", (unsigned long long)(lines[i]->idx * LINE));
    one_image(pt, kind, prefix, NULL, 0);
    if (nlines < 2) continue;
    set_all(prefix, 1);
    prefix[i] = 0;
    snprintf(kind, sizeof kind, "line-old:%llu", (unsigned long long)(lines[i]->idx * LINE));
    one_image(pt, kind, prefix, NULL, 0);
  }
}

static uint64_t targeted_count(void) {
  uint64_t per = nlines < amber_opt.sim_lines ? nlines : amber_opt.sim_lines;
  return 2 + per * (nlines >= 2 ? 2 : 1);
}

static void line_model(struct point *pt) {
  uint32_t *prefix = xmalloc((nlines + 1) * sizeof *prefix);
  pt->total = 1;
  for (size_t i = 0; i < nlines; i++) {
    uint64_t k = lines[i]->n + 1ull;
    pt->total = pt->total > UINT64_MAX / k ? UINT64_MAX : pt->total * k;
  }
  if (pt->total <= amber_opt.sim_bound) {
    header(pt, pt->total, "exhaustive");
    for (uint64_t i = 0; i < pt->total; i++) {
      uint64_t x = i;
      for (size_t j = 0; j < nlines; j++) {
        prefix[j] = (uint32_t)(x % (lines[j]->n + 1ull));
        x /= lines[j]->n + 1ull;
      }
      one_image(pt, i == 0 ? "all-old" : i == pt->total - 1 ? "all-new" : "enum", prefix, NULL, 0);
    }
  } else {
    header(pt, targeted_count() + amber_opt.sim_samples, "sampled");
    set_all(prefix, 0);
    one_image(pt, "all-old", prefix, NULL, 0);
    set_all(prefix, 1);
    one_image(pt, "all-new", prefix, NULL, 0);
    per_line_images(pt, prefix);
    uint64_t rng = amber_opt.sim_seed ^ (pt->n * 0xD1B54A32D192ED03ull);
    for (uint64_t s = 0; s < amber_opt.sim_samples; s++) {
      for (size_t j = 0; j < nlines; j++) prefix[j] = (uint32_t)(splitmix(&rng) % (lines[j]->n + 1ull));
      one_image(pt, "random", prefix, NULL, 0);
    }
  }
  free(prefix);
}

static int by_seq(const void *a, const void *b) {
  uint64_t x = (*(const struct sim_store *const *)a)->seq, y = (*(const struct sim_store *const *)b)->seq;
  return x < y ? -1 : x > y;
}

/* eADR: the caches are durable, so a crash keeps a prefix of the global
 * store order. */
static void eadr_model(struct point *pt) {
  uint64_t k = 0;
  for (size_t i = 0; i < nlines; i++) k += lines[i]->n;
  const struct sim_store **order = xmalloc((k + 1) * sizeof *order);
  uint64_t j = 0;
  for (size_t i = 0; i < nlines; i++)
    for (uint32_t s = 0; s < lines[i]->n; s++) order[j++] = &lines[i]->st[s];
  qsort(order, k, sizeof *order, by_seq);
  pt->total = k + 1;
  if (pt->total <= amber_opt.sim_bound) {
    header(pt, pt->total, "eadr");
    for (uint64_t g = 0; g <= k; g++) one_image(pt, g == 0 ? "all-old" : g == k ? "all-new" : "enum", NULL, order, g);
  } else {
    header(pt, 2 + amber_opt.sim_samples, "eadr-sampled");
    one_image(pt, "all-old", NULL, order, 0);
    one_image(pt, "all-new", NULL, order, k);
    uint64_t rng = amber_opt.sim_seed ^ (pt->n * 0xD1B54A32D192ED03ull);
    for (uint64_t s = 0; s < amber_opt.sim_samples; s++) one_image(pt, "random", NULL, order, splitmix(&rng) % (k + 1));
  }
  free(order);
}

void amber_sim_point(uint64_t n) {
  struct point pt;
  memset(&pt, 0, sizeof pt);
  pt.n = n;
  const char *dir = amber_opt.sim_dir[0] ? amber_opt.sim_dir : secure_getenv("TMPDIR");
  snprintf(pt.dir, sizeof pt.dir, "%s", dir && dir[0] ? dir : "/dev/shm");
  pt.keep = amber_opt.sim_keep || !amber_opt.sim_check[0];
  pt.cap = xmalloc(sizeof *pt.cap);
  collect();
  if (amber_opt.sim_eadr) eadr_model(&pt);
  else line_model(&pt);
  free(pt.cap);
  free(lines);
  free(nonzero_pages);
}
