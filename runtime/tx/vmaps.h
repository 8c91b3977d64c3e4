/* The process's volatile mappings, for the pointer check (tx/ptrcheck.c):
 * what a word that looks like a pointer points into. */
#ifndef AMBER_TX_VMAPS_H
#define AMBER_TX_VMAPS_H

#include <stddef.h>
#include <stdint.h>

enum amber_vmap_kind {
  AMBER_VMAP_NONE,  /* not mapped, or memory the check leaves alone (code, shared files, the heap, vDSO) */
  AMBER_VMAP_BRK,   /* [heap]: libc's malloc arena */
  AMBER_VMAP_ANON,  /* anonymous private memory: malloc's large blocks and thread arenas, mmap, thread stacks */
  AMBER_VMAP_STACK, /* [stack]: the main thread's stack */
  AMBER_VMAP_DATA,  /* a module's data: writable (.data, .bss) or read-only (constants, string literals) */
};

/* What address v is in: its kind and, for AMBER_VMAP_DATA, the module's
 * path (copied into name, of size len).  Parses /proc/self/maps at the first
 * call, and again when v is mapped but not in the table (mincore says so),
 * or when the table is old and v is found: a stale entry only names a
 * kind, and the check it serves is rare.  Thread-safe. */
enum amber_vmap_kind amber_vmaps_find(uintptr_t v, char *name, size_t len);
/* The lowest address mapped now, the heap's window aside (the table built
 * if it was not): the executable's image.  New mappings come above it
 * (mmap top-down below the libraries, brk up from the image). */
uintptr_t amber_vmaps_lowest(void);

#endif
