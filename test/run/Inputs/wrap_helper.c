/* Compiled WITHOUT the amber pass (and with -fno-builtin, so the compiler
 * keeps every libc call): stands for a library amber never saw, whose libc
 * calls on persistent buffers only libamber's interceptors (wrappers/) see. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

size_t u_strlen(const char *s) { return strlen(s); }
int u_strcmp(const char *a, const char *b) { return strcmp(a, b); }
int u_strncmp(const char *a, const char *b, size_t n) { return strncmp(a, b, n); }
int u_memcmp(const void *a, const void *b, size_t n) { return memcmp(a, b, n); }
void *u_memchr(const void *s, int c, size_t n) { return memchr(s, c, n); }
char *u_strchr(const char *s, int c) { return strchr(s, c); }
char *u_strrchr(const char *s, int c) { return strrchr(s, c); }
void *u_memcpy(void *d, const void *s, size_t n) { return memcpy(d, s, n); }
void *u_memmove(void *d, const void *s, size_t n) { return memmove(d, s, n); }
void *u_memset(void *d, int c, size_t n) { return memset(d, c, n); }
char *u_strcpy(char *d, const char *s) { return strcpy(d, s); }
char *u_strncpy(char *d, const char *s, size_t n) { return strncpy(d, s, n); }
char *u_strcat(char *d, const char *s) { return strcat(d, s); }
char *u_strncat(char *d, const char *s, size_t n) { return strncat(d, s, n); }
char *u_strdup(const char *s) { return strdup(s); }
ssize_t u_read(int fd, void *b, size_t n) { return read(fd, b, n); }
ssize_t u_write(int fd, const void *b, size_t n) { return write(fd, b, n); }
ssize_t u_pread(int fd, void *b, size_t n, off_t o) { return pread(fd, b, n, o); }
ssize_t u_pwrite(int fd, const void *b, size_t n, off_t o) { return pwrite(fd, b, n, o); }
size_t u_fread(void *b, size_t s, size_t n, FILE *f) { return fread(b, s, n, f); }
size_t u_fwrite(const void *b, size_t s, size_t n, FILE *f) { return fwrite(b, s, n, f); }
char *u_fgets(char *s, int n, FILE *f) { return fgets(s, n, f); }
int u_puts(const char *s) { return puts(s); }
int u_fputs(const char *s, FILE *f) { return fputs(s, f); }
int u_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = vprintf(fmt, ap);
  va_end(ap);
  return r;
}
int u_sprintf(char *d, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = vsprintf(d, fmt, ap);
  va_end(ap);
  return r;
}
int u_snprintf(char *d, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = vsnprintf(d, n, fmt, ap);
  va_end(ap);
  return r;
}
/* A plain store: no interceptor can see it. */
void u_poke(char *p, char c) { *p = c; }
