// libc string, memory and I/O functions called on persistent buffers by code
// amber never compiled (Inputs/wrap_helper.c, plain clang) and by printf
// outside regions go through libamber's interceptors (wrappers/): writes
// into the heap are transactions (romulus sees no page written behind its
// back, a kill -9 right after keeps them, amber check finds the twins
// equal), and heap strings read by libc show the committed data.  Both
// engines.
// RUN: %clang -O1 -fno-builtin -c %S/Inputs/wrap_helper.c -o %t.helper.o
// RUN: %amber_cc -O2 %s %t.helper.o -o %t
// RUN: %run %t write %t.in 2>&1 | FileCheck %s --check-prefix=WRITE
// RUN: %rerun %t show 2>&1 | FileCheck %s --check-prefix=SHOW
// RUN: %amber check %t.heap
// RUN: not --crash %rerun %t crash
// RUN: %rerun %t crashed 2>&1 | FileCheck %s --check-prefix=CRASHED
// RUN: %amber check %t.heap
// RUN: env AMBER_ENGINE=mvcc %run %t write %t.in 2>&1 | FileCheck %s --check-prefix=WRITE
// RUN: env %rerun %t show 2>&1 | FileCheck %s --check-prefix=SHOW
// RUN: env AMBER_ENGINE=mvcc %run %t region 2>&1 | FileCheck %s --check-prefix=REGION
// RUN: %run %t region 2>&1 | FileCheck %s --check-prefix=REGION
#include <amber.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

size_t u_strlen(const char *s);
int u_strcmp(const char *a, const char *b);
int u_strncmp(const char *a, const char *b, size_t n);
int u_memcmp(const void *a, const void *b, size_t n);
void *u_memchr(const void *s, int c, size_t n);
char *u_strchr(const char *s, int c);
char *u_strrchr(const char *s, int c);
void *u_memcpy(void *d, const void *s, size_t n);
void *u_memmove(void *d, const void *s, size_t n);
void *u_memset(void *d, int c, size_t n);
char *u_strcpy(char *d, const char *s);
char *u_strncpy(char *d, const char *s, size_t n);
char *u_strcat(char *d, const char *s);
char *u_strncat(char *d, const char *s, size_t n);
char *u_strdup(const char *s);
ssize_t u_read(int fd, void *b, size_t n);
ssize_t u_write(int fd, const void *b, size_t n);
ssize_t u_pread(int fd, void *b, size_t n, off_t o);
ssize_t u_pwrite(int fd, const void *b, size_t n, off_t o);
size_t u_fread(void *b, size_t s, size_t n, FILE *f);
size_t u_fwrite(const void *b, size_t s, size_t n, FILE *f);
char *u_fgets(char *s, int n, FILE *f);
int u_puts(const char *s);
int u_fputs(const char *s, FILE *f);
int u_printf(const char *fmt, ...);
int u_sprintf(char *d, const char *fmt, ...);
int u_snprintf(char *d, size_t n, const char *fmt, ...);

struct root {
  char name[64], copy[64], ncpy[16], moved[32], fmt[128], small[8];
  unsigned char block[256];
  char rd[16], prd[16], line[64], frd[16];
  char tmp[32];
  int count;
};

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  if (!strcmp(argv[1], "write")) {
    FILE *in = fopen(argv[2], "w");
    fputs("file data for read\nsecond line\n", in);
    fclose(in);
    u_strcpy(r->name, "hello");
    u_strcat(r->name, ", persistent");
    u_strncat(r->name, " world!!!", 6);
    u_memcpy(r->copy, r->name, u_strlen(r->name) + 1);
    u_strncpy(r->ncpy, "abcdefghijklmnopqrstuvwxyz", sizeof r->ncpy - 1);
    u_memset(r->block, 0xab, sizeof r->block);
    u_memset(r->block + 100, 0, 28);
    u_strcpy(r->moved, "0123456789");
    u_memmove(r->moved + 2, r->moved, 10); /* overlapping, inside the heap */
    u_memset(r->moved + 12, 0, 1);
    u_sprintf(r->fmt, "%s|%5.3s|%ld|%c|%n", r->name, r->copy, 42L, 'z', &r->count);
    u_snprintf(r->small, sizeof r->small, "%s", r->name); /* truncated */
    int fd = open(argv[2], O_RDONLY);
    long got = u_read(fd, r->rd, 9);
    got += u_pread(fd, r->prd, 4, 5);
    close(fd);
    FILE *f = fopen(argv[2], "r");
    u_fgets(r->line, sizeof r->line, f);
    got += (long)u_fread(r->frd, 1, 6, f);
    fclose(f);
    printf("first run done, read %ld\n", got);
    return 0;
  }
  if (!strcmp(argv[1], "show")) {
    printf("name [%s] len %zu\n", r->name, u_strlen(r->name));
    u_printf("copy [%s] ncpy [%s]\n", r->copy, r->ncpy);
    u_printf("moved [%s] fmt [%s] count %d small [%s]\n", r->moved, r->fmt, r->count, r->small);
    u_printf("rd [%s] prd [%s] frd [%s]\n", r->rd, r->prd, r->frd);
    u_fputs(r->line, stdout);
    u_puts(r->name);
    u_fwrite(r->copy, 1, 5, stdout);
    u_fwrite("\n", 1, 1, stdout);
    fflush(stdout);
    u_write(1, r->name, 5);
    u_write(1, "\n", 1);
    long zeros = 0, abs = 0;
    for (int i = 0; i < 256; i++) {
      zeros += r->block[i] == 0;
      abs += r->block[i] == 0xab;
    }
    char *dup = u_strdup(r->name);
    char *w = u_strrchr(r->name, 'w');
    printf("block zeros %ld ab %ld cmp %d %d %d %d dup [%s] chr %ld %ld %ld\n", zeros, abs, u_strcmp(r->name, r->copy),
           u_strcmp(r->name, "hello") > 0, u_memcmp(r->block, r->block + 128, 100) == 0, u_strncmp(r->ncpy, "abcdefgXYZ", 7),
           dup, (long)(u_strchr(r->name, ',') - r->name), w ? (long)(w - r->name) : -1L,
           (long)((char *)u_memchr(r->block, 0, 256) - (char *)r->block));
    free(dup);
    return 0;
  }
  if (!strcmp(argv[1], "crash")) {
    u_strcpy(r->name, "written by a library, then kill -9");
    raise(SIGKILL);
  }
  if (!strcmp(argv[1], "crashed")) {
    printf("after crash [%s]\n", r->name);
    return 0;
  }
  if (!strcmp(argv[1], "region")) {
    /* printf inside a region reads the transaction's own uncommitted
     * write (under mvcc it is not in the data area before the commit). */
    AMBER_ATOMIC {
      strcpy(r->tmp, "in-region");
      printf("region sees [%s]\n", r->tmp);
    }
    printf("after [%s]\n", r->tmp);
    return 0;
  }
  return 2;
}
// WRITE-NOT: written outside
// WRITE: first run done, read 19
// WRITE-NOT: written outside
// SHOW: name [hello, persistent world] len 23
// SHOW-NEXT: copy [hello, persistent world] ncpy [abcdefghijklmno]
// SHOW-NEXT: moved [010123456789] fmt [hello, persistent world|  hel|42|z|] count 35 small [hello, ]
// SHOW-NEXT: rd [file data] prd [data] frd [second]
// SHOW-NEXT: file data for read
// SHOW-NEXT: hello, persistent world
// SHOW-NEXT: hello
// SHOW-NEXT: hello
// SHOW-NEXT: block zeros 28 ab 228 cmp 0 1 1 0 dup [hello, persistent world] chr 5 18 100
// SHOW-NOT: written outside
// CRASHED-NOT: written outside
// CRASHED: after crash [written by a library, then kill -9]
// REGION: region sees [in-region]
// REGION-NEXT: after [in-region]
