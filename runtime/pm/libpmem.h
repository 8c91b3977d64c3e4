/* libpmem, loaded at run time only when a heap needs it (the pmem and fence
 * backends, and the auto-flush question on a DAX file): linking it would
 * make every amber program, one that never opens a heap included, load it
 * and its dependencies (libndctl, libdaxctl, libudev, libkmod, libcrypto,
 * ...) and run their constructors at start-up (issue 27, item 5). */
#ifndef AMBER_PM_LIBPMEM_H
#define AMBER_PM_LIBPMEM_H

#include <stddef.h>

/* Set by amber_pmem_load: libpmem's functions of the same names. */
extern void (*amber_pmem_flush)(const void *addr, size_t len);
extern void (*amber_pmem_drain)(void);
extern int (*amber_pmem_has_auto_flush)(void);

/* Loads libpmem.so.1 once (thread-safe).  why: what needs it, for the
 * error when it cannot be loaded (fatal: amber: error: naming the library
 * and the package). */
void amber_pmem_load(const char *why);

#endif
