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
#include <unistd.h>

#include "wrap.h"

#define HIDDEN __attribute__((visibility("hidden")))

/* Straight to the C library: __wrap_NAME(params) returns NAME(args). */
#define FORWARD(ret, name, params, args)                                       \
  WRAP_REAL(name)                                                              \
  HIDDEN ret __wrap_##name params;                                             \
  HIDDEN ret __wrap_##name params { return REAL(name) args; }

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
FORWARD(ssize_t, __read_chk, (int fd, void *b, size_t n, size_t l), (fd, b, n, l))
FORWARD(ssize_t, __pread_chk, (int fd, void *b, size_t n, off_t o, size_t l), (fd, b, n, o, l))
FORWARD(ssize_t, __pread64_chk, (int fd, void *b, size_t n, off64_t o, size_t l), (fd, b, n, o, l))
FORWARD(size_t, __fread_chk, (void *b, size_t bl, size_t s, size_t n, FILE *f), (b, bl, s, n, f))
FORWARD(char *, __fgets_chk, (char *s, size_t l, int n, FILE *f), (s, l, n, f))

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
FORWARD(int, pthread_mutex_lock, (pthread_mutex_t *m), (m))
FORWARD(int, pthread_mutex_trylock, (pthread_mutex_t *m), (m))
FORWARD(int, pthread_mutex_timedlock, (pthread_mutex_t *m, const struct timespec *t), (m, t))
FORWARD(int, pthread_mutex_unlock, (pthread_mutex_t *m), (m))
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
