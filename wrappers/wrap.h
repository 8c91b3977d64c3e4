/* What the interceptors of wrappers/ share (docs/wrappers.md).
 *
 * Every interceptor has the same shape:
 *
 *   1. the arguments do not touch the heap window (or no heap is open): call
 *      the real function at once;
 *   2. otherwise reads of heap memory go through the engine's read path and
 *      writes into the heap run as a transaction of their own (or join the
 *      running one), so code amber never compiled sees committed data and
 *      its writes are crash-safe.
 *
 * The real function comes from dlsym(RTLD_NEXT, name), resolved once; a
 * result that points back at the interceptor is refused, and while dlsym
 * runs (it may allocate) a thread gets a plain fallback instead.
 *
 * libamber's own calls never reach an interceptor: libamber.so is linked
 * with --wrap for every intercepted name (runtime/CMakeLists.txt), so a
 * call to memcpy from runtime or wrapper code goes to __wrap_memcpy
 * (real.c), which calls the C library's.  Only the program's calls (and
 * other libraries') reach the exported interceptors, including calls made
 * by code the runtime runs: region bodies, thread start routines. */
#ifndef AMBER_WRAP_H
#define AMBER_WRAP_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "heap/window.h"

/* ---- the real functions ---- */

/* Returns dlsym(RTLD_NEXT, name), or NULL while this thread is already
 * inside dlsym, or when the symbol is missing or is `self`. */
void *amber_wrap_resolve(const char *name, void *self);

/* REAL(fn) is the next definition of fn, of fn's own type, resolved on its
 * first use (all of them are resolved when libamber is loaded, before any
 * heap is open).  TRY_REAL(fn) may be NULL: only while this thread is inside
 * dlsym already; the mem and str interceptors then use a plain loop.
 * REAL(fn) stops the program with a message when fn cannot be found. */
#define WRAP_REAL(fn)                                                          \
  static __typeof__(fn) *real_##fn;                                            \
  __attribute__((unused)) static inline __typeof__(fn) *try_real_##fn(void) {  \
    __typeof__(fn) *f = __atomic_load_n(&real_##fn, __ATOMIC_ACQUIRE);        \
    if (__builtin_expect(f != NULL, 1)) return f;                              \
    f = (__typeof__(fn) *)amber_wrap_resolve(#fn, (void *)fn);                 \
    if (f) __atomic_store_n(&real_##fn, f, __ATOMIC_RELEASE);                  \
    return f;                                                                  \
  }                                                                            \
  __attribute__((unused)) static inline __typeof__(fn) *get_real_##fn(void) {  \
    __typeof__(fn) *f = try_real_##fn();                                       \
    if (__builtin_expect(f == NULL, 0)) amber_wrap_missing(#fn);               \
    return f;                                                                  \
  }
#define REAL(fn) (get_real_##fn())
#define TRY_REAL(fn) (try_real_##fn())
_Noreturn void amber_wrap_missing(const char *name);

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

/* ---- the heap, for interceptors that touch it ---- */

/* Heap memory is never read by the real functions: the canonical window is
 * inaccessible to code amber did not instrument (strict mode, runtime/
 * strict.c), and may be stale.  Interceptors read it with the functions
 * below, through the engine or in place at the alias. */

/* Stops the program when an interceptor touches the heap where it may not:
 * in a child forked from the process that has the heap open, or after
 * amber_close().  `fn` names the libc function, `addr` the address. */
void amber_wrap_check_usable(const char *fn, const void *addr);

/* Runs fn(arg) as a transaction that reads (and perhaps writes) the heap:
 * joins the running transaction when the thread is in one (the read-only
 * case never upgrades it), else runs a transaction of its own (read: only
 * when the engine's committed state is not in place).  fn may be
 * run more than once (the engine re-runs aborted transactions): it must
 * only read the heap and write the heap or its own output. */
void amber_wrap_read_tx(void (*fn)(void *), void *arg);
void amber_wrap_write_tx(const char *what, const void *addr, void (*fn)(void *), void *arg);

/* Inside amber_wrap_*_tx: copies n bytes at src (heap or not) to volatile
 * dst, heap bytes through the engine. */
void amber_wrap_load(void *dst, const void *src, size_t n);
/* Inside amber_wrap_read_tx: the length of the string at s, at most max,
 * reading heap bytes through the engine. */
size_t amber_wrap_strnlen_tx(const char *s, size_t max);

/* Whole operations (each one transaction when the heap is involved). */
/* Copies n bytes at src into volatile dst. */
void amber_wrap_read(void *dst, const void *src, size_t n);
/* Writes n bytes of volatile src to dst in the heap, one transaction. */
void amber_wrap_write(const char *what, void *dst, const void *src, size_t n);
/* A volatile copy of the string at s (at most max bytes, then a NUL), from
 * malloc; *len gets its length.  NULL when out of memory. */
char *amber_wrap_strndup(const char *s, size_t max, size_t *len);

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

/* Called by the runtime's initialisation (runtime/init.c) once the heap is
 * open, before the heap window is published. */
void amber_wrappers_heap_open(void);
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
