/* Source lines for the strict-mode fault report: llvm-symbolizer (from
 * llvm-16-tools) run at fault time on each frame's module and address.
 * Without it, or when it does not answer in time, the report keeps its
 * module+offset form. */
#ifndef AMBER_HEAP_SYMBOLIZE_H
#define AMBER_HEAP_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

struct amber_sym_frame {
  const char *module; /* the frame's object file (the loader's string) */
  uintptr_t va;       /* the address to look up, as the file numbers it */
  char func[128];     /* out: the function ("" when unknown) */
  char where[256];    /* out: "file:line:col" ("" when unknown) */
};

/* At heap open (not in a handler): finds the symbolizer. */
void amber_symbolize_prepare(void);

/* The program's own file, absolute (the loader names it as it was started,
 * maybe relative); NULL when unknown. */
const char *amber_symbolize_exe(void);

/* From the fault handler: fills func and where of frames [0, n), running
 * the symbolizer once, for at most about two seconds.  Async-signal-safe
 * system calls only (pipe2, dup, posix_spawn without attributes, poll,
 * read, write, waitpid); no allocation. */
void amber_symbolize(struct amber_sym_frame *f, int n);

#endif
