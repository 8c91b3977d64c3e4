/* User-facing messages.  Every error starts with "amber: error:", names the
 * file, value or source line at fault, and says what to do. */
#ifndef AMBER_DIAG_H
#define AMBER_DIAG_H

#include <stdnoreturn.h>

/* Prints "amber: error: ..." and exits with status 2. */
noreturn void amber_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "amber: error: ..." and returns -1 (for callers that report upward). */
int amber_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void amber_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Printed only with AMBER_VERBOSE=1. */
void amber_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Internal invariant violated: a bug in amber, not in the user's program. */
#define AMBER_BUG(...) amber_fatal("internal: " __VA_ARGS__)

#endif
