/* What the interceptors of wrappers/ share: the one shape of an
 * interceptor, the real functions behind them, and the heap window checks
 * (docs/wrappers.md).
 *
 * The shape of an interceptor:
 *
 *   WRAP_REAL(memchr)               once per file, for each real function
 *                                   the file calls by REAL()
 *
 *   void *memchr(const void *s, int c, size_t n) {
 *     if (__builtin_expect(!wrap_touches(s, n), 1))    pass through
 *       return REAL(memchr)(s, c, n);
 *     ... the heap case, through interpose.h ...
 *   }
 *
 *   1. Pass through at once when the runtime is not ready or no argument
 *      touches the heap window: wrap_touches / wrap_in_heap are inline
 *      range checks on the window, which is empty until the heap is open
 *      and recovered, so one check covers both.  Interceptors whose
 *      arguments are not memory test their own condition first, as cheap
 *      (locks.c: amber_fase_on(), one relaxed load; fork.c,
 *      threads.c: amber_interpose_ready()).
 *   2. Otherwise reads of heap memory go through the engine's read path and
 *      writes into the heap run as a transaction of their own (or join the
 *      running one), so code amber never compiled sees committed data and
 *      its writes are crash-safe.
 *
 * The real function: WRAP_REAL(fn) looks up dlsym(RTLD_NEXT, "fn") at the
 * first call that needs it, not at load: a program pays only for the
 * functions it calls (~190 look-ups at load were most of what an amber
 * program that never touches the heap paid to start, issue 27 item 5).
 * The pointer is one per name in libamber (a weak hidden definition in
 * every file that names it, merged by the linker), so an interceptor and
 * real.c's forwarder of the same name share one look-up.  The look-up is
 * not dlsym but nextsym.c's walk of the start-up objects' symbol tables,
 * the same answer without a lock, an allocation or error state, so a
 * first call may come from anywhere: a signal handler, a child after fork,
 * amber's fatal-error and fault-report paths, code holding a lock (dlsym
 * takes the loader's lock, which a thread running a dlopen'ed constructor
 * holds), the allocator that dlsym itself calls (and at start only the
 * allocator is looked up: an amber program that never touches the heap
 * pays one dl_iterate_phdr and four look-ups, issue 27 item 5).  dlsym serves only names no start-up
 * object defines, and calls before libamber's first constructor; where
 * nextsym.c cannot vouch for its answer, core.c resolves the functions
 * those contexts call (an explicit list, with the reason for each group)
 * at load with dlsym instead.  A dlsym result inside libamber itself is
 * refused; while this thread is inside dlsym (which may allocate and so
 * call back into us) TRY_REAL(fn) is NULL unless nextsym.c knows fn, and
 * the caller uses a plain fallback (byte loops; alloc.c drops a free and
 * copies a realloc until the next allocator is known).
 *
 * The runtime is reached only through runtime/interpose.h, included below:
 * no other runtime header is included from wrappers/.
 *
 * libamber's own calls never reach an interceptor: libamber.so is linked
 * with --wrap for every intercepted name (runtime/CMakeLists.txt), so a
 * call to memcpy from runtime or wrapper code goes to __wrap_memcpy
 * (real.c), which calls the C library's.  So a wrapper file calls a libc
 * function it does not itself intercept by its plain name (real.c serves
 * it); REAL() is for the functions the file defines.  Only the program's
 * calls (and other libraries') reach the exported interceptors, including
 * calls made by code the runtime runs: region bodies, thread start
 * routines. */
#ifndef AMBER_WRAP_H
#define AMBER_WRAP_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "interpose.h"

/* ---- the real functions ---- */

/* Returns dlsym(RTLD_NEXT, name)'s answer (nextsym.c's, else dlsym's), or
 * NULL when only dlsym could answer and this thread is already inside it,
 * or when the symbol is missing or is libamber's own (core.c). */
void *amber_wrap_resolve(const char *name);
_Noreturn void amber_wrap_missing(const char *name);

/* REAL(fn) is the next definition of fn, of fn's own type, resolved at its
 * first use (or at load, for core.c's eager list where nextsym.c cannot
 * serve).  TRY_REAL(fn) may be
 * NULL: only while this thread is inside dlsym already, or when fn is
 * missing.  REAL(fn) stops the program with a message when fn cannot be
 * found.
 *
 * Memory order: the pointer is the only thing published.  Acquire on the
 * load pairs with the release store of whichever thread looked it up
 * first: its dlsym synchronised with the loading of the object it found
 * (the loader's lock), so a thread that sees the pointer also sees that
 * object mapped and relocated before it calls into it (libc is so before
 * main anyway; a later RTLD_GLOBAL dlopen's definitions need the chain).
 * Threads that miss at once each call dlsym and store the same address:
 * a race with one outcome, so no compare-and-swap.  On x86-64 both are
 * plain moves. */
#define WRAP_REAL(fn) WRAP_REAL_IN(fn, )
/* The same for a real function every process resolves at start (core.c's
 * resolve_start: the allocator), whose pointer lives with the other
 * variables the start-up code writes (AMBER_START_DATA: one page for all);
 * every other pointer is written at its function's first call and stays in
 * .bss, so a program that never calls it never faults its page in.  Every
 * file naming one of these must use this form: the weak definitions of one
 * name are merged, and must agree on the section. */
#define WRAP_REAL_START(fn) WRAP_REAL_IN(fn, AMBER_START_DATA)
#define WRAP_REAL_IN(fn, SECTION)                                              \
  extern __typeof__(fn) *amber_real_##fn __attribute__((visibility("hidden"))); \
  __attribute__((weak, visibility("hidden"))) SECTION __typeof__(fn) *amber_real_##fn; \
  /* name: #fn, or the same bytes kept elsewhere (core.c's start-up names) */ \
  __attribute__((unused)) static inline __typeof__(fn) *resolve_real_##fn(const char *name) { \
    __typeof__(fn) *f = __atomic_load_n(&amber_real_##fn, __ATOMIC_ACQUIRE);   \
    if (__builtin_expect(f != NULL, 1)) return f;                              \
    f = (__typeof__(fn) *)amber_wrap_resolve(name);                            \
    if (f) __atomic_store_n(&amber_real_##fn, f, __ATOMIC_RELEASE);            \
    return f;                                                                  \
  }                                                                            \
  __attribute__((unused)) static inline __typeof__(fn) *try_real_##fn(void) { return resolve_real_##fn(#fn); } \
  __attribute__((unused)) static inline __typeof__(fn) *get_real_##fn(void) {  \
    __typeof__(fn) *f = try_real_##fn();                                       \
    if (__builtin_expect(f == NULL, 0)) amber_wrap_missing(#fn);               \
    return f;                                                                  \
  }
#define REAL(fn) (get_real_##fn())
#define TRY_REAL(fn) (try_real_##fn())

/* ---- the heap window ---- */

/* [p, p + n) overlaps the heap window (n > 0). */
static inline int wrap_touches(const void *p, size_t n) {
  uintptr_t b = __atomic_load_n(&__amber_heap_base, __ATOMIC_RELAXED);
  uintptr_t s = __atomic_load_n(&__amber_heap_size, __ATOMIC_RELAXED);
  uintptr_t a = (uintptr_t)p;
  return s && n && a < b + s && (a + n > b || a + n < a);
}

/* A string (of unknown length) starts in the heap window. */
static inline int wrap_in_heap(const void *p) {
  return (uintptr_t)p - __atomic_load_n(&__amber_heap_base, __ATOMIC_RELAXED) <
         __atomic_load_n(&__amber_heap_size, __ATOMIC_RELAXED);
}

/* ---- the allocator family (alloc.c) ---- */

/* The code at return address ra is a module allocating for itself (libc,
 * the dynamic loader, the C++ and unwinding runtimes, libamber and its
 * libraries). */
__attribute__((visibility("hidden"))) int amber_wrap_internal_caller(const void *ra);
/* An allocation by the caller at return address ra is persistent: a heap is
 * open, the thread runs a region, and the caller is the program's code (or
 * a library's) rather than such a module.  One relaxed load while no heap
 * is open. */
static inline int wrap_persistent_call(const void *ra) {
  return __atomic_load_n(&__amber_heap_size, __ATOMIC_RELAXED) && amber_interpose_in_region() && !amber_wrap_internal_caller(ra);
}

/* ---- the heap, for interceptors that touch it (core.c, on interpose.h) ---- */

/* Whole operations (each one transaction when the heap is involved). */
/* Copies n bytes at src into volatile dst. */
void amber_wrap_read(void *dst, const void *src, size_t n);
/* Writes n bytes of volatile src to dst in the heap, one transaction. */
void amber_wrap_write(const char *what, void *dst, const void *src, size_t n);
/* A volatile copy of the string at s (at most max bytes, then a NUL), from
 * malloc; *len gets its length.  NULL when out of memory. */
char *amber_wrap_strndup(const char *s, size_t max, size_t *len);
/* Stops the program: fn() found no memory for a volatile copy of heap
 * memory at addr (n bytes; 0: unknown). */
_Noreturn void amber_wrap_nomem(const char *fn, const void *addr, size_t n);

/* The fortified variants (_FORTIFY_SOURCE) that are intercepted too. */
void *__memcpy_chk(void *dst, const void *src, size_t n, size_t dstlen);
void *__memmove_chk(void *dst, const void *src, size_t n, size_t dstlen);
void *__memset_chk(void *dst, int c, size_t n, size_t dstlen);
char *__strcpy_chk(char *dst, const char *src, size_t dstlen);
char *__strncpy_chk(char *dst, const char *src, size_t n, size_t dstlen);
char *__strcat_chk(char *dst, const char *src, size_t dstlen);
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen);
size_t __fread_chk(void *ptr, size_t ptrlen, size_t size, size_t n, FILE *f);
char *__fgets_chk(char *s, size_t size, int n, FILE *f);
size_t __fread_unlocked_chk(void *ptr, size_t ptrlen, size_t size, size_t n, FILE *f);
char *__fgets_unlocked_chk(char *s, size_t size, int n, FILE *f);
struct sockaddr;
ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags);
ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags, struct sockaddr *from, unsigned *fromlen);
ssize_t __getdelim(char **lineptr, size_t *n, int delim, FILE *f);
int __printf_chk(int flag, const char *fmt, ...);
int __vprintf_chk(int flag, const char *fmt, va_list ap);
int __fprintf_chk(FILE *f, int flag, const char *fmt, ...);
int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap);
int __dprintf_chk(int fd, int flag, const char *fmt, ...);
int __vdprintf_chk(int fd, int flag, const char *fmt, va_list ap);
int __sprintf_chk(char *s, int flag, size_t slen, const char *fmt, ...);
int __vsprintf_chk(char *s, int flag, size_t slen, const char *fmt, va_list ap);
int __snprintf_chk(char *s, size_t maxlen, int flag, size_t slen, const char *fmt, ...);
int __vsnprintf_chk(char *s, size_t maxlen, int flag, size_t slen, const char *fmt, va_list ap);
int __asprintf_chk(char **strp, int flag, const char *fmt, ...);
int __vasprintf_chk(char **strp, int flag, const char *fmt, va_list ap);
_Noreturn void __chk_fail(void);

/* signals.c: the fatal-signal handler (with AMBER_STATS / _FILE), at heap
 * open; and the heap-fault handler of a forked child. */
void amber_wrap_signals_install(void);
void amber_wrap_signals_forked(void);
/* fork.c: in a forked child, a fault at addr is a touch of the parent's
 * heap: prints the error and returns 1; else 0. */
int amber_wrap_fork_fault(int sig, void *addr);

/* memmove as byte loops, for while the real functions are being resolved
 * (real.c). */
void *amber_wrap_plain_move(void *dst, const void *src, size_t n);

#endif
