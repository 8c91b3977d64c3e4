/* User-facing messages: amber: error:, warning, info and bug reports, and
 * the exit they imply. */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "options.h"

static void vprint(const char *prefix, const char *fmt, va_list ap) {
  char buf[4096]; /* a message may name three paths (a heap and two programs) */
  int n = snprintf(buf, sizeof buf, "amber: %s", prefix);
  if (n < 0) n = 0;
  int m = vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
  size_t len = (size_t)n + (m > 0 ? (size_t)m : 0);
  if (len > sizeof buf - 2) len = sizeof buf - 2;
  buf[len++] = '\n';
  /* One write so messages from several threads do not interleave. */
  ssize_t w = write(2, buf, len);
  (void)w;
}

/* What the program printed before the error reaches its file first, where
 * that is safe: a stream another thread holds is left alone (waiting for it
 * could hang the exit), and only stdout and stderr are flushed (fflush(NULL)
 * would lock every stream).  glibc's stream locks are recursive, so a fatal
 * error raised inside this thread's own stdio call does not deadlock here. */
static void flush_program_output(void) {
  FILE *streams[2] = {stdout, stderr};
  for (int i = 0; i < 2; i++) {
    if (!streams[i] || ftrylockfile(streams[i]) != 0) continue;
    fflush_unlocked(streams[i]);
    funlockfile(streams[i]);
  }
}

noreturn void amber_fatal(const char *fmt, ...) {
  flush_program_output();
  va_list ap;
  va_start(ap, fmt);
  vprint("error: ", fmt, ap);
  va_end(ap);
  _exit(2);
}

int amber_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprint("error: ", fmt, ap);
  va_end(ap);
  return -1;
}

void amber_warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprint("warning: ", fmt, ap);
  va_end(ap);
}

void amber_info(const char *fmt, ...) {
  if (!amber_opt.verbose) return;
  va_list ap;
  va_start(ap, fmt);
  vprint("", fmt, ap);
  va_end(ap);
}
