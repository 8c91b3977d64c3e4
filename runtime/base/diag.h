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

/* What every process runs at start, even one that never touches the heap
 * (libamber's constructors and what they call, the module constructor's
 * calls), and the variables they write: kept together, so that loading
 * them faults in a page or two rather than one per file (issue 27 item 5;
 * the linker gathers .text.startup at the start of .text, and amber_start
 * is one section of its own). */
#define AMBER_START_TEXT __attribute__((section(".text.startup")))
#define AMBER_START_DATA __attribute__((section("amber_start")))
/* The constants that code reads (the names it looks up), placed with the
 * code where the runtime is linked into the program (libamber_rt.lds). */
#define AMBER_START_RODATA __attribute__((section("amber_start_ro")))

/* The runtime's constructors run before every module constructor (the
 * pass's, priority 101) and the program's own: in libamber.so because the
 * library is initialised before the program, and in a program that has the
 * runtime linked into it (lib/libamber_rt.o, amber-cc -static-libamber)
 * because of these priorities.  AMBER_CTOR_FIRST (wrappers/core.c's
 * resolve_start: the objects the real functions are found in) before the
 * others. */
#define AMBER_CTOR_FIRST __attribute__((constructor(99)))
#define AMBER_CTOR __attribute__((constructor(100)))

#endif
