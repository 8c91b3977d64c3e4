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

noreturn void amber_fatal(const char *fmt, ...) {
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
