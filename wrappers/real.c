/* libamber's own calls to the functions it intercepts.
 *
 * libamber.so is linked with --wrap=NAME for every intercepted NAME
 * (AMBER_INTERCEPTED in runtime/CMakeLists.txt): a call to NAME from any of
 * its object files (the runtime, the engines, wrappers/ itself, and calls
 * the compiler emits, such as memcpy for a struct copy) goes to __wrap_NAME
 * here, which calls the C library's NAME.  So the runtime writing a heap
 * block with memcpy is never taken for the program doing it, and the
 * interceptors cannot recurse into themselves.  The exported NAME (the
 * interceptor) serves everybody else.
 *
 * Keep this file and AMBER_INTERCEPTED in step: a name in the list without
 * a __wrap_ here is a link error (-z defs); an interceptor missing from
 * the list would see libamber's own calls. */
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <inttypes.h>
#include <stdlib.h>

#include "glibc.h"
#include "wrap.h"

#define HIDDEN __attribute__((visibility("hidden")))

/* Straight to the C library: __wrap_NAME(params) returns NAME(args). */
#define FORWARD(ret, name, params, args)                                       \
  WRAP_REAL(name)                                                              \
  HIDDEN ret __wrap_##name params;                                             \
  HIDDEN ret __wrap_##name params { return REAL(name) args; }

/* The same, placed with the code every start runs (runtime/base/diag.h):
 * the module constructor's clone registration (entry/clones.c) takes its
 * lock through these in every program, and elsewhere in .text they cost a
 * page fault before main (issue 27 item 5). */
#define FORWARD_START(ret, name, params, args)                                 \
  WRAP_REAL(name)                                                              \
  HIDDEN ret __wrap_##name params;                                             \
  HIDDEN AMBER_START_TEXT ret __wrap_##name params { return REAL(name) args; }

/* The same, for a variadic NAME through its va_list variant VNAME. */
#define FORWARD_V(name, vname, params, fixed, last)                            \
  HIDDEN int __wrap_##name params;                                             \
  HIDDEN int __wrap_##name params {                                            \
    va_list ap;                                                                \
    va_start(ap, last);                                                        \
    int r = REAL(vname) fixed;                                                 \
    va_end(ap);                                                                \
    return r;                                                                  \
  }

/* While dlsym runs on this thread (TRY_REAL is NULL): byte loops the
 * compiler cannot turn back into calls (memmove semantics; mem.c uses it
 * too). */
void *amber_wrap_plain_move(void *dst, const void *src, size_t n) {
  volatile unsigned char *d = dst;
  const volatile unsigned char *s = src;
  if (d < s)
    for (size_t i = 0; i < n; i++) d[i] = s[i];
  else
    for (size_t i = n; i-- > 0;) d[i] = s[i];
  return dst;
}

WRAP_REAL(memcpy)
WRAP_REAL(memmove)
WRAP_REAL(memset)
WRAP_REAL(strlen)
HIDDEN void *__wrap_memcpy(void *d, const void *s, size_t n);
HIDDEN void *__wrap_memmove(void *d, const void *s, size_t n);
HIDDEN void *__wrap_memset(void *d, int c, size_t n);
HIDDEN size_t __wrap_strlen(const char *s);

HIDDEN void *__wrap_memcpy(void *d, const void *s, size_t n) {
  __typeof__(memcpy) *f = TRY_REAL(memcpy);
  return f ? f(d, s, n) : amber_wrap_plain_move(d, s, n);
}

HIDDEN void *__wrap_memmove(void *d, const void *s, size_t n) {
  __typeof__(memmove) *f = TRY_REAL(memmove);
  return f ? f(d, s, n) : amber_wrap_plain_move(d, s, n);
}

HIDDEN void *__wrap_memset(void *d, int c, size_t n) {
  __typeof__(memset) *f = TRY_REAL(memset);
  if (f) return f(d, c, n);
  volatile unsigned char *p = d;
  for (size_t i = 0; i < n; i++) p[i] = (unsigned char)c;
  return d;
}

HIDDEN size_t __wrap_strlen(const char *s) {
  __typeof__(strlen) *f = TRY_REAL(strlen);
  if (f) return f(s);
  const volatile char *p = s;
  size_t n = 0;
  while (p[n]) n++;
  return n;
}

FORWARD(int, memcmp, (const void *a, const void *b, size_t n), (a, b, n))
FORWARD(int, bcmp, (const void *a, const void *b, size_t n), (a, b, n))
FORWARD(int, __memcmpeq, (const void *a, const void *b, size_t n), (a, b, n))
FORWARD(void *, memchr, (const void *s, int c, size_t n), (s, c, n))
FORWARD(size_t, strnlen, (const char *s, size_t n), (s, n))
FORWARD(int, strcmp, (const char *a, const char *b), (a, b))
FORWARD(int, strncmp, (const char *a, const char *b, size_t n), (a, b, n))
FORWARD(char *, strchr, (const char *s, int c), (s, c))
FORWARD(char *, strrchr, (const char *s, int c), (s, c))
FORWARD(char *, strcpy, (char *d, const char *s), (d, s))
FORWARD(char *, strncpy, (char *d, const char *s, size_t n), (d, s, n))
FORWARD(char *, strcat, (char *d, const char *s), (d, s))
FORWARD(char *, strncat, (char *d, const char *s, size_t n), (d, s, n))
FORWARD(char *, strdup, (const char *s), (s))
FORWARD(char *, strndup, (const char *s, size_t n), (s, n))
FORWARD(void *, __memcpy_chk, (void *d, const void *s, size_t n, size_t l), (d, s, n, l))
FORWARD(void *, __memmove_chk, (void *d, const void *s, size_t n, size_t l), (d, s, n, l))
FORWARD(void *, __memset_chk, (void *d, int c, size_t n, size_t l), (d, c, n, l))
FORWARD(char *, __strcpy_chk, (char *d, const char *s, size_t l), (d, s, l))
FORWARD(char *, __strncpy_chk, (char *d, const char *s, size_t n, size_t l), (d, s, n, l))
FORWARD(char *, __strcat_chk, (char *d, const char *s, size_t l), (d, s, l))

/* strsearch.c, collate.c, strtok.c, strcopy.c */
FORWARD(char *, strstr, (const char *h, const char *n), (h, n))
FORWARD(char *, strcasestr, (const char *h, const char *n), (h, n))
FORWARD(void *, memmem, (const void *h, size_t hl, const void *n, size_t nl), (h, hl, n, nl))
FORWARD(size_t, strspn, (const char *s, const char *a), (s, a))
FORWARD(size_t, strcspn, (const char *s, const char *r), (s, r))
FORWARD(char *, strpbrk, (const char *s, const char *a), (s, a))
FORWARD(char *, strchrnul, (const char *s, int c), (s, c))
FORWARD(char *, index, (const char *s, int c), (s, c))
FORWARD(char *, rindex, (const char *s, int c), (s, c))
FORWARD(void *, rawmemchr, (const void *s, int c), (s, c))
FORWARD(void *, memrchr, (const void *s, int c, size_t n), (s, c, n))
FORWARD(char *, basename, (const char *s), (s))
FORWARD(int, strcasecmp, (const char *a, const char *b), (a, b))
FORWARD(int, strncasecmp, (const char *a, const char *b, size_t n), (a, b, n))
FORWARD(int, strcasecmp_l, (const char *a, const char *b, locale_t l), (a, b, l))
FORWARD(int, strncasecmp_l, (const char *a, const char *b, size_t n, locale_t l), (a, b, n, l))
FORWARD(int, strcoll, (const char *a, const char *b), (a, b))
FORWARD(int, strcoll_l, (const char *a, const char *b, locale_t l), (a, b, l))
FORWARD(int, strverscmp, (const char *a, const char *b), (a, b))
FORWARD(size_t, strxfrm, (char *d, const char *s, size_t n), (d, s, n))
FORWARD(size_t, strxfrm_l, (char *d, const char *s, size_t n, locale_t l), (d, s, n, l))
FORWARD(char *, strtok, (char *s, const char *d), (s, d))
FORWARD(char *, strtok_r, (char *s, const char *d, char **p), (s, d, p))
FORWARD(char *, __strtok_r, (char *s, const char *d, char **p), (s, d, p))
FORWARD(char *, strsep, (char **p, const char *d), (p, d))
FORWARD(char *, stpcpy, (char *d, const char *s), (d, s))
FORWARD(char *, __stpcpy, (char *d, const char *s), (d, s))
FORWARD(char *, stpncpy, (char *d, const char *s, size_t n), (d, s, n))
FORWARD(char *, __stpncpy, (char *d, const char *s, size_t n), (d, s, n))
FORWARD(void *, mempcpy, (void *d, const void *s, size_t n), (d, s, n))
FORWARD(void *, __mempcpy, (void *d, const void *s, size_t n), (d, s, n))
FORWARD(void *, memccpy, (void *d, const void *s, int c, size_t n), (d, s, c, n))
FORWARD(void, bcopy, (const void *s, void *d, size_t n), (s, d, n))
FORWARD(void, bzero, (void *d, size_t n), (d, n))
FORWARD(void, explicit_bzero, (void *d, size_t n), (d, n))
FORWARD(void *, memfrob, (void *s, size_t n), (s, n))
FORWARD(char *, strfry, (char *s), (s))
FORWARD(char *, strerror_r, (int e, char *b, size_t n), (e, b, n))
FORWARD(int, __xpg_strerror_r, (int e, char *b, size_t n), (e, b, n))
FORWARD(char *, __stpcpy_chk, (char *d, const char *s, size_t l), (d, s, l))
FORWARD(char *, __stpncpy_chk, (char *d, const char *s, size_t n, size_t l), (d, s, n, l))
FORWARD(void *, __mempcpy_chk, (void *d, const void *s, size_t n, size_t l), (d, s, n, l))
FORWARD(char *, __strncat_chk, (char *d, const char *s, size_t n, size_t l), (d, s, n, l))
FORWARD(void, __explicit_bzero_chk, (void *d, size_t n, size_t l), (d, n, l))

/* convert.c, sort.c */
FORWARD(int, atoi, (const char *s), (s))
FORWARD(long, atol, (const char *s), (s))
FORWARD(long long, atoll, (const char *s), (s))
FORWARD(double, atof, (const char *s), (s))
FORWARD(long, strtol, (const char *s, char **e, int b), (s, e, b))
FORWARD(unsigned long, strtoul, (const char *s, char **e, int b), (s, e, b))
FORWARD(long long, strtoll, (const char *s, char **e, int b), (s, e, b))
FORWARD(unsigned long long, strtoull, (const char *s, char **e, int b), (s, e, b))
FORWARD(long long, strtoq, (const char *s, char **e, int b), (s, e, b))
FORWARD(unsigned long long, strtouq, (const char *s, char **e, int b), (s, e, b))
FORWARD(intmax_t, strtoimax, (const char *s, char **e, int b), (s, e, b))
FORWARD(uintmax_t, strtoumax, (const char *s, char **e, int b), (s, e, b))
FORWARD(long, strtol_l, (const char *s, char **e, int b, locale_t l), (s, e, b, l))
FORWARD(unsigned long, strtoul_l, (const char *s, char **e, int b, locale_t l), (s, e, b, l))
FORWARD(long long, strtoll_l, (const char *s, char **e, int b, locale_t l), (s, e, b, l))
FORWARD(unsigned long long, strtoull_l, (const char *s, char **e, int b, locale_t l), (s, e, b, l))
FORWARD(long, __isoc23_strtol, (const char *s, char **e, int b), (s, e, b))
FORWARD(unsigned long, __isoc23_strtoul, (const char *s, char **e, int b), (s, e, b))
FORWARD(long long, __isoc23_strtoll, (const char *s, char **e, int b), (s, e, b))
FORWARD(unsigned long long, __isoc23_strtoull, (const char *s, char **e, int b), (s, e, b))
FORWARD(intmax_t, __isoc23_strtoimax, (const char *s, char **e, int b), (s, e, b))
FORWARD(uintmax_t, __isoc23_strtoumax, (const char *s, char **e, int b), (s, e, b))
FORWARD(long, __isoc23_strtol_l, (const char *s, char **e, int b, locale_t l), (s, e, b, l))
FORWARD(unsigned long, __isoc23_strtoul_l, (const char *s, char **e, int b, locale_t l), (s, e, b, l))
FORWARD(long long, __isoc23_strtoll_l, (const char *s, char **e, int b, locale_t l), (s, e, b, l))
FORWARD(unsigned long long, __isoc23_strtoull_l, (const char *s, char **e, int b, locale_t l), (s, e, b, l))
FORWARD(double, strtod, (const char *s, char **e), (s, e))
FORWARD(float, strtof, (const char *s, char **e), (s, e))
FORWARD(long double, strtold, (const char *s, char **e), (s, e))
FORWARD(double, strtod_l, (const char *s, char **e, locale_t l), (s, e, l))
FORWARD(float, strtof_l, (const char *s, char **e, locale_t l), (s, e, l))
FORWARD(long double, strtold_l, (const char *s, char **e, locale_t l), (s, e, l))
FORWARD(_Float32, strtof32, (const char *s, char **e), (s, e))
FORWARD(_Float64, strtof64, (const char *s, char **e), (s, e))
FORWARD(_Float32x, strtof32x, (const char *s, char **e), (s, e))
FORWARD(_Float64x, strtof64x, (const char *s, char **e), (s, e))
FORWARD(_Float32, strtof32_l, (const char *s, char **e, locale_t l), (s, e, l))
FORWARD(_Float64, strtof64_l, (const char *s, char **e, locale_t l), (s, e, l))
FORWARD(_Float32x, strtof32x_l, (const char *s, char **e, locale_t l), (s, e, l))
FORWARD(_Float64x, strtof64x_l, (const char *s, char **e, locale_t l), (s, e, l))
FORWARD(void, qsort, (void *b, size_t n, size_t s, int (*c)(const void *, const void *)), (b, n, s, c))
FORWARD(void, qsort_r, (void *b, size_t n, size_t s, int (*c)(const void *, const void *, void *), void *a), (b, n, s, c, a))
FORWARD(void *, bsearch, (const void *k, const void *b, size_t n, size_t s, int (*c)(const void *, const void *)), (k, b, n, s, c))

FORWARD(ssize_t, read, (int fd, void *b, size_t n), (fd, b, n))
FORWARD(ssize_t, pread, (int fd, void *b, size_t n, off_t o), (fd, b, n, o))
FORWARD(ssize_t, pread64, (int fd, void *b, size_t n, off64_t o), (fd, b, n, o))
FORWARD(ssize_t, write, (int fd, const void *b, size_t n), (fd, b, n))
FORWARD(ssize_t, pwrite, (int fd, const void *b, size_t n, off_t o), (fd, b, n, o))
FORWARD(ssize_t, pwrite64, (int fd, const void *b, size_t n, off64_t o), (fd, b, n, o))
#undef fread_unlocked
#undef fwrite_unlocked
#undef fputs_unlocked
FORWARD(size_t, fread, (void *b, size_t s, size_t n, FILE *f), (b, s, n, f))
FORWARD(size_t, fread_unlocked, (void *b, size_t s, size_t n, FILE *f), (b, s, n, f))
FORWARD(size_t, fwrite, (const void *b, size_t s, size_t n, FILE *f), (b, s, n, f))
FORWARD(size_t, fwrite_unlocked, (const void *b, size_t s, size_t n, FILE *f), (b, s, n, f))
FORWARD(char *, fgets, (char *s, int n, FILE *f), (s, n, f))
FORWARD(int, puts, (const char *s), (s))
FORWARD(int, fputs, (const char *s, FILE *f), (s, f))
FORWARD(int, fputs_unlocked, (const char *s, FILE *f), (s, f))
#undef putc
#undef putchar
#undef putc_unlocked
#undef putchar_unlocked
#undef fputc_unlocked
FORWARD(int, putc, (int c, FILE *f), (c, f))
FORWARD(int, fputc, (int c, FILE *f), (c, f))
FORWARD(int, putchar, (int c), (c))
FORWARD(int, putc_unlocked, (int c, FILE *f), (c, f))
FORWARD(int, fputc_unlocked, (int c, FILE *f), (c, f))
FORWARD(int, putchar_unlocked, (int c), (c))
FORWARD(int, fflush, (FILE *f), (f))
FORWARD(int, fflush_unlocked, (FILE *f), (f))
FORWARD(void, perror, (const char *s), (s))
FORWARD(ssize_t, __read_chk, (int fd, void *b, size_t n, size_t l), (fd, b, n, l))
FORWARD(ssize_t, __pread_chk, (int fd, void *b, size_t n, off_t o, size_t l), (fd, b, n, o, l))
FORWARD(ssize_t, __pread64_chk, (int fd, void *b, size_t n, off64_t o, size_t l), (fd, b, n, o, l))
FORWARD(size_t, __fread_chk, (void *b, size_t bl, size_t s, size_t n, FILE *f), (b, bl, s, n, f))
FORWARD(char *, __fgets_chk, (char *s, size_t l, int n, FILE *f), (s, l, n, f))
#undef fgets_unlocked
FORWARD(char *, fgets_unlocked, (char *s, int n, FILE *f), (s, n, f))
FORWARD(size_t, __fread_unlocked_chk, (void *b, size_t bl, size_t s, size_t n, FILE *f), (b, bl, s, n, f))
FORWARD(char *, __fgets_unlocked_chk, (char *s, size_t l, int n, FILE *f), (s, l, n, f))
FORWARD(ssize_t, getline, (char **l, size_t *n, FILE *f), (l, n, f))
FORWARD(ssize_t, getdelim, (char **l, size_t *n, int d, FILE *f), (l, n, d, f))
FORWARD(ssize_t, __getdelim, (char **l, size_t *n, int d, FILE *f), (l, n, d, f))
FORWARD(ssize_t, readv, (int fd, const struct iovec *v, int n), (fd, v, n))
FORWARD(ssize_t, writev, (int fd, const struct iovec *v, int n), (fd, v, n))
FORWARD(ssize_t, preadv, (int fd, const struct iovec *v, int n, off_t o), (fd, v, n, o))
FORWARD(ssize_t, pwritev, (int fd, const struct iovec *v, int n, off_t o), (fd, v, n, o))
FORWARD(ssize_t, preadv64, (int fd, const struct iovec *v, int n, off64_t o), (fd, v, n, o))
FORWARD(ssize_t, pwritev64, (int fd, const struct iovec *v, int n, off64_t o), (fd, v, n, o))
FORWARD(ssize_t, send, (int fd, const void *b, size_t n, int fl), (fd, b, n, fl))
FORWARD(ssize_t, sendto, (int fd, const void *b, size_t n, int fl, const struct sockaddr *a, socklen_t l), (fd, b, n, fl, a, l))
FORWARD(ssize_t, recv, (int fd, void *b, size_t n, int fl), (fd, b, n, fl))
FORWARD(ssize_t, recvfrom, (int fd, void *b, size_t n, int fl, struct sockaddr *a, socklen_t *l), (fd, b, n, fl, a, l))
FORWARD(ssize_t, __recv_chk, (int fd, void *b, size_t n, size_t bl, int fl), (fd, b, n, bl, fl))
FORWARD(ssize_t, __recvfrom_chk, (int fd, void *b, size_t n, size_t bl, int fl, struct sockaddr *a, socklen_t *l), (fd, b, n, bl, fl, a, l))
FORWARD(int, setvbuf, (FILE *f, char *b, int m, size_t n), (f, b, m, n))
FORWARD(void, setbuf, (FILE *f, char *b), (f, b))
FORWARD(void, setbuffer, (FILE *f, char *b, size_t n), (f, b, n))

/* The scanf family: <stdio.h> renames the C names to glibc's __isoc99_
 * ones, so both are forwarded by symbol name, each to its own. */
#define FORWARD_SCAN(sym, vsym, vtype, params, fixed, last)                           \
  HIDDEN int __wrap_##sym params;                      \
  HIDDEN int __wrap_##sym params {                                             \
    static void *f;                                                            \
    void *g = __atomic_load_n(&f, __ATOMIC_ACQUIRE);                           \
    if (!g) {                                                                  \
      if (!(g = amber_wrap_resolve(#vsym))) amber_wrap_missing(#vsym);   \
      __atomic_store_n(&f, g, __ATOMIC_RELEASE);                               \
    }                                                                          \
    va_list ap;                                                                \
    va_start(ap, last);                                                        \
    int r = ((vtype *)g) fixed;                                              \
    va_end(ap);                                                                \
    return r;                                                                  \
  }
#define FORWARD_VSCAN(sym, vtype, params, args)                                       \
  HIDDEN int __wrap_##sym params;                      \
  HIDDEN int __wrap_##sym params {                                             \
    static void *f;                                                            \
    void *g = __atomic_load_n(&f, __ATOMIC_ACQUIRE);                           \
    if (!g) {                                                                  \
      if (!(g = amber_wrap_resolve(#sym))) amber_wrap_missing(#sym);     \
      __atomic_store_n(&f, g, __ATOMIC_RELEASE);                               \
    }                                                                          \
    return ((vtype *)g) args;                                                \
  }
typedef int vscan_str(const char *s, const char *fmt, va_list ap);
typedef int vscan_file(FILE *f, const char *fmt, va_list ap);
FORWARD_SCAN(sscanf, vsscanf, vscan_str, (const char *s, const char *fmt, ...), (s, fmt, ap), fmt)
FORWARD_SCAN(fscanf, vfscanf, vscan_file, (FILE *s, const char *fmt, ...), (s, fmt, ap), fmt)
FORWARD_SCAN(scanf, vfscanf, vscan_file, (const char *fmt, ...), (stdin, fmt, ap), fmt)
FORWARD_VSCAN(vsscanf, vscan_str, (const char *s, const char *fmt, va_list ap), (s, fmt, ap))
FORWARD_VSCAN(vfscanf, vscan_file, (FILE *s, const char *fmt, va_list ap), (s, fmt, ap))
FORWARD_SCAN(__isoc99_sscanf, __isoc99_vsscanf, vscan_str, (const char *s, const char *fmt, ...), (s, fmt, ap), fmt)
FORWARD_SCAN(__isoc99_fscanf, __isoc99_vfscanf, vscan_file, (FILE *s, const char *fmt, ...), (s, fmt, ap), fmt)
FORWARD_SCAN(__isoc99_scanf, __isoc99_vfscanf, vscan_file, (const char *fmt, ...), (stdin, fmt, ap), fmt)
FORWARD_VSCAN(__isoc99_vsscanf, vscan_str, (const char *s, const char *fmt, va_list ap), (s, fmt, ap))
FORWARD_VSCAN(__isoc99_vfscanf, vscan_file, (FILE *s, const char *fmt, va_list ap), (s, fmt, ap))
HIDDEN int __wrap_vscanf(const char *fmt, va_list ap);
HIDDEN int __wrap_vscanf(const char *fmt, va_list ap) { return __wrap_vfscanf(stdin, fmt, ap); }
HIDDEN int __wrap___isoc99_vscanf(const char *fmt, va_list ap);
HIDDEN int __wrap___isoc99_vscanf(const char *fmt, va_list ap) { return __wrap___isoc99_vfscanf(stdin, fmt, ap); }

FORWARD(int, vfprintf, (FILE *f, const char *fmt, va_list ap), (f, fmt, ap))
FORWARD(int, vprintf, (const char *fmt, va_list ap), (fmt, ap))
FORWARD(int, vdprintf, (int fd, const char *fmt, va_list ap), (fd, fmt, ap))
FORWARD(int, vsprintf, (char *s, const char *fmt, va_list ap), (s, fmt, ap))
FORWARD(int, vsnprintf, (char *s, size_t n, const char *fmt, va_list ap), (s, n, fmt, ap))
FORWARD(int, vasprintf, (char **s, const char *fmt, va_list ap), (s, fmt, ap))
FORWARD(int, __vfprintf_chk, (FILE *f, int fl, const char *fmt, va_list ap), (f, fl, fmt, ap))
FORWARD(int, __vprintf_chk, (int fl, const char *fmt, va_list ap), (fl, fmt, ap))
FORWARD(int, __vdprintf_chk, (int fd, int fl, const char *fmt, va_list ap), (fd, fl, fmt, ap))
FORWARD(int, __vsprintf_chk, (char *s, int fl, size_t l, const char *fmt, va_list ap), (s, fl, l, fmt, ap))
FORWARD(int, __vsnprintf_chk, (char *s, size_t n, int fl, size_t l, const char *fmt, va_list ap), (s, n, fl, l, fmt, ap))
FORWARD(int, __vasprintf_chk, (char **s, int fl, const char *fmt, va_list ap), (s, fl, fmt, ap))
FORWARD_V(printf, vfprintf, (const char *fmt, ...), (stdout, fmt, ap), fmt)
FORWARD_V(fprintf, vfprintf, (FILE *f, const char *fmt, ...), (f, fmt, ap), fmt)
FORWARD_V(dprintf, vdprintf, (int fd, const char *fmt, ...), (fd, fmt, ap), fmt)
FORWARD_V(sprintf, vsprintf, (char *s, const char *fmt, ...), (s, fmt, ap), fmt)
FORWARD_V(snprintf, vsnprintf, (char *s, size_t n, const char *fmt, ...), (s, n, fmt, ap), fmt)
FORWARD_V(asprintf, vasprintf, (char **s, const char *fmt, ...), (s, fmt, ap), fmt)
FORWARD_V(__printf_chk, __vfprintf_chk, (int fl, const char *fmt, ...), (stdout, fl, fmt, ap), fmt)
FORWARD_V(__fprintf_chk, __vfprintf_chk, (FILE *f, int fl, const char *fmt, ...), (f, fl, fmt, ap), fmt)
FORWARD_V(__dprintf_chk, __vdprintf_chk, (int fd, int fl, const char *fmt, ...), (fd, fl, fmt, ap), fmt)
FORWARD_V(__sprintf_chk, __vsprintf_chk, (char *s, int fl, size_t l, const char *fmt, ...), (s, fl, l, fmt, ap), fmt)
FORWARD_V(__snprintf_chk, __vsnprintf_chk, (char *s, size_t n, int fl, size_t l, const char *fmt, ...), (s, n, fl, l, fmt, ap), fmt)
FORWARD_V(__asprintf_chk, __vasprintf_chk, (char **s, int fl, const char *fmt, ...), (s, fl, fmt, ap), fmt)

FORWARD(pid_t, fork, (void), ())
#if __GLIBC_PREREQ(2, 34)
FORWARD(pid_t, _Fork, (void), ())
#endif
FORWARD(int, sigaction, (int sig, const struct sigaction *a, struct sigaction *o), (sig, a, o))
FORWARD(sighandler_t, signal, (int sig, sighandler_t h), (sig, h))
FORWARD_START(int, pthread_mutex_lock, (pthread_mutex_t *m), (m))
FORWARD(int, pthread_mutex_trylock, (pthread_mutex_t *m), (m))
FORWARD(int, pthread_mutex_timedlock, (pthread_mutex_t *m, const struct timespec *t), (m, t))
FORWARD_START(int, pthread_mutex_unlock, (pthread_mutex_t *m), (m))
FORWARD(int, pthread_rwlock_wrlock, (pthread_rwlock_t *l), (l))
FORWARD(int, pthread_rwlock_trywrlock, (pthread_rwlock_t *l), (l))
FORWARD(int, pthread_rwlock_timedwrlock, (pthread_rwlock_t *l, const struct timespec *t), (l, t))
FORWARD(int, pthread_rwlock_unlock, (pthread_rwlock_t *l), (l))
FORWARD(int, pthread_cond_wait, (pthread_cond_t *c, pthread_mutex_t *m), (c, m))
FORWARD(int, pthread_cond_timedwait, (pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t), (c, m, t))
FORWARD(int, pthread_create, (pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg), (t, a, fn, arg))
FORWARD(int, pthread_join, (pthread_t t, void **r), (t, r))
FORWARD(int, pthread_cond_signal, (pthread_cond_t *c), (c))
FORWARD(int, pthread_cond_broadcast, (pthread_cond_t *c), (c))
FORWARD(int, pthread_rwlock_rdlock, (pthread_rwlock_t *l), (l))
FORWARD(int, pthread_barrier_wait, (pthread_barrier_t *b), (b))
FORWARD(int, sem_post, (sem_t *s), (s))
FORWARD(int, sem_wait, (sem_t *s), (s))

WRAP_REAL(pthread_exit)
HIDDEN _Noreturn void __wrap_pthread_exit(void *r);
HIDDEN _Noreturn void __wrap_pthread_exit(void *r) {
  REAL(pthread_exit)(r);
  __builtin_unreachable();
}
