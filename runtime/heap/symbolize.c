/* llvm-symbolizer at fault time (symbolize.h).
 *
 * One run for all frames: the frames go to its standard input as
 * `"MODULE" 0xADDRESS` lines, its answers come back through a pipe as
 * "function\nfile:line:col\n\n" per frame (--no-inlines: one record each).
 * This runs in the SIGSEGV handler of a process about to end, so it uses
 * no allocation and no stdio: the pipes are put on the child's descriptors
 * 0, 1 and 2 by dup2 around a posix_spawn without file actions or
 * attributes (whose setup would allocate), and the parent's own descriptors
 * are put back right after.  The child gets an empty environment (no
 * LD_PRELOAD of libamber into it).  It is given about two seconds, then
 * killed; whatever it did not answer keeps the module+offset form. */
#include "symbolize.h"
#include "sigline.h"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Set at open; read by the handler. */
static char symbolizer[PATH_MAX], exe[PATH_MAX];

const char *amber_symbolize_exe(void) { return exe[0] ? exe : NULL; }

void amber_symbolize_prepare(void) {
  ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[k > 0 ? k : 0] = 0;
  static const char *const where[] = {"/usr/bin/llvm-symbolizer-16", "/usr/lib/llvm-16/bin/llvm-symbolizer"};
  for (size_t i = 0; i < sizeof where / sizeof where[0]; i++)
    if (access(where[i], X_OK) == 0) {
      strncpy(symbolizer, where[i], sizeof symbolizer - 1);
      return;
    }
}

/* Static: the handler may run on a small alternate stack. */
static char in[16384], out[32768];

static void add(size_t *n, const char *s) {
  while (*s && *n < sizeof in - 1) in[(*n)++] = *s++;
}

static void add_hex(size_t *n, uintptr_t v) {
  char d[19];
  add(n, amber_sigline_hex_text(d, v));
}

static long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Runs the symbolizer on in[0, len); its output in out, NUL-terminated. */
static size_t run(size_t len) {
  int pin[2], pout[2];
  if (pipe2(pin, O_CLOEXEC) != 0) return 0;
  if (pipe2(pout, O_CLOEXEC) != 0) {
    close(pin[0]), close(pin[1]);
    return 0;
  }
  int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  int saved[3], from[3] = {pin[0], pout[1], null};
  for (int i = 0; i < 3; i++) saved[i] = fcntl(i, F_DUPFD_CLOEXEC, 3);
  for (int i = 0; i < 3; i++)
    if (from[i] >= 0) dup2(from[i], i);
  char *argv[] = {symbolizer, "--no-inlines", NULL};
  char *envp[] = {NULL};
  pid_t pid;
  int spawned = posix_spawn(&pid, symbolizer, NULL, NULL, argv, envp) == 0;
  for (int i = 0; i < 3; i++) {
    if (saved[i] >= 0) dup2(saved[i], i), close(saved[i]);
    else close(i);
  }
  close(pin[0]), close(pout[1]);
  if (null >= 0) close(null);
  size_t got = 0;
  if (spawned) {
    for (size_t done = 0; done < len;) {
      ssize_t w = write(pin[1], in + done, len - done);
      if (w <= 0) break;
      done += (size_t)w;
    }
  }
  close(pin[1]);
  if (spawned) {
    long deadline = now_ms() + 2000;
    for (;;) {
      long left = deadline - now_ms();
      struct pollfd p = {pout[0], POLLIN, 0};
      if (left <= 0 || poll(&p, 1, (int)left) <= 0) {
        kill(pid, SIGKILL);
        break;
      }
      ssize_t r = read(pout[0], out + got, sizeof out - 1 - got);
      if (r <= 0) break;
      got += (size_t)r;
      if (got == sizeof out - 1) break;
    }
    waitpid(pid, NULL, 0);
  }
  close(pout[0]);
  out[got] = 0;
  return got;
}

/* Copies the line at *p (without its newline) into dst, and moves *p past
 * it; "??" and a line number 0 count as unknown (left empty). */
static void take_line(char **p, char *dst, size_t cap) {
  char *e = strchr(*p, '\n');
  size_t k = e ? (size_t)(e - *p) : strlen(*p);
  dst[0] = 0;
  if (k && k < cap && strncmp(*p, "??", 2) != 0) {
    memcpy(dst, *p, k);
    dst[k] = 0;
    char *c = strchr(dst, ':');
    if (c && !strncmp(c, ":0", 2) && (c[2] == ':' || c[2] == 0)) dst[0] = 0;
  }
  *p += k + (e != NULL);
}

void amber_symbolize(struct amber_sym_frame *f, int n) {
  if (!symbolizer[0] || n <= 0) return;
  size_t len = 0;
  for (int i = 0; i < n; i++) {
    if (!f[i].module || !f[i].module[0] || strchr(f[i].module, '"')) continue;
    add(&len, "\"");
    add(&len, f[i].module);
    add(&len, "\" ");
    add_hex(&len, f[i].va);
    add(&len, "\n");
  }
  if (!len || len >= sizeof in - 1 || !run(len)) return;
  char *p = out;
  for (int i = 0; i < n && *p; i++) {
    if (!f[i].module || !f[i].module[0] || strchr(f[i].module, '"')) continue;
    take_line(&p, f[i].func, sizeof f[i].func);
    char where[sizeof f[i].where];
    take_line(&p, where, sizeof where);
    /* "file:line:col" with --no-inlines; a ":0" column says nothing. */
    size_t k = strlen(where);
    if (k > 2 && !strcmp(where + k - 2, ":0")) where[k - 2] = 0;
    memcpy(f[i].where, where, sizeof where);
    while (*p == '\n') p++; /* the blank line that ends a record */
  }
}
