/* glibc entry points that programs reach but <string.h>, <stdlib.h> and
 * <inttypes.h> do not declare here (names the headers redirect to under
 * other feature macros or glibc versions, GNU aliases, fortified forms),
 * for the interceptors that define them and for real.c. */
#ifndef AMBER_WRAP_GLIBC_H
#define AMBER_WRAP_GLIBC_H

#include <inttypes.h>
#include <locale.h>
#include <stddef.h>

/* <string.h> without _GNU_SOURCE: the XSI strerror_r. */
int __xpg_strerror_r(int err, char *buf, size_t n);
/* GNU aliases. */
char *__stpcpy(char *dst, const char *src);
char *__stpncpy(char *dst, const char *src, size_t n);
void *__mempcpy(void *dst, const void *src, size_t n);
/* _FORTIFY_SOURCE. */
char *__stpcpy_chk(char *dst, const char *src, size_t dstlen);
char *__stpncpy_chk(char *dst, const char *src, size_t n, size_t dstlen);
void *__mempcpy_chk(void *dst, const void *src, size_t n, size_t dstlen);
char *__strncat_chk(char *dst, const char *src, size_t n, size_t dstlen);
void __explicit_bzero_chk(void *dst, size_t n, size_t dstlen);
/* BSD names of strtoll and strtoull. */
long long strtoq(const char *s, char **end, int base);
unsigned long long strtouq(const char *s, char **end, int base);
/* glibc 2.38's C2x forms (0b prefixes), which its headers name instead of
 * strtol & co. under C2x or _GNU_SOURCE; absent from older glibc, and so
 * resolved only when called, which only a program built against 2.38 does. */
long __isoc23_strtol(const char *s, char **end, int base);
unsigned long __isoc23_strtoul(const char *s, char **end, int base);
long long __isoc23_strtoll(const char *s, char **end, int base);
unsigned long long __isoc23_strtoull(const char *s, char **end, int base);
intmax_t __isoc23_strtoimax(const char *s, char **end, int base);
uintmax_t __isoc23_strtoumax(const char *s, char **end, int base);
long __isoc23_strtol_l(const char *s, char **end, int base, locale_t loc);
unsigned long __isoc23_strtoul_l(const char *s, char **end, int base, locale_t loc);
long long __isoc23_strtoll_l(const char *s, char **end, int base, locale_t loc);
unsigned long long __isoc23_strtoull_l(const char *s, char **end, int base, locale_t loc);

#endif
