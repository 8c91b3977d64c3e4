// mvcc keeps a commit's new versions in DRAM while an older transaction
// still runs (the data area keeps the old bytes until reclamation writes
// them back).  libc reading a heap string outside regions (printf's %s,
// puts, fwrite, write, and the str* / mem* functions of code amber never
// compiled) goes through libamber's interceptors, which read through the
// engine: they show the latest commit, not the stale data area.  No timing:
// the reader thread holds its region open until main is done.
// RUN: %clang -O1 -fno-builtin -c %S/Inputs/wrap_helper.c -o %t.helper.o
// RUN: %amber_cc -O2 %s %t.helper.o -o %t -pthread
// RUN: env AMBER_ENGINE=mvcc %run %t 2>/dev/null | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc AMBER_ISOLATION=si %run %t 2>/dev/null | FileCheck %s
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

size_t u_strlen(const char *s);
int u_strcmp(const char *a, const char *b);
int u_memcmp(const void *a, const void *b, size_t n);
void *u_memcpy(void *d, const void *s, size_t n);
char *u_strdup(const char *s);
int u_puts(const char *s);
size_t u_fwrite(const void *b, size_t s, size_t n, FILE *f);
ssize_t u_write(int fd, const void *b, size_t n);
int u_printf(const char *fmt, ...);

struct root {
  char name[64];
  long seen;
};
static struct root *r;
static int started, done;

static void *old_reader(void *arg) {
  (void)arg;
  long n = 0;
  AMBER_ATOMIC_ISO(AMBER_SI) {
    n = (long)r->name[0];
    __atomic_store_n(&started, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
    }
  }
  r->seen = n;
  return NULL;
}

int main(void) {
  r = amber_root(sizeof *r);
  const char *v1 = "version one", *v2 = "VERSION TWO!";
  AMBER_ATOMIC { strcpy(r->name, v1); }
  pthread_t t;
  pthread_create(&t, NULL, old_reader, NULL);
  while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE)) {
  }
  AMBER_ATOMIC { strcpy(r->name, v2); } /* newer than the reader's snapshot */
  printf("printf [%s] [%.7s] [%-14s]\n", r->name, r->name, r->name);
  u_printf("u_printf [%s]\n", r->name);
  u_puts(r->name);
  u_fwrite(r->name, 1, 12, stdout);
  u_fwrite("\n", 1, 1, stdout);
  fflush(stdout);
  u_write(1, r->name, 12);
  u_write(1, "\n", 1);
  char copy[64];
  u_memcpy(copy, r->name, 13);
  char *dup = u_strdup(r->name);
  printf("strlen %zu strcmp %d memcmp %d copy [%s] dup [%s]\n", u_strlen(r->name), u_strcmp(r->name, v2),
         u_memcmp(r->name, v2, 13), copy, dup);
  __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
  pthread_join(t, NULL);
  printf("reader saw %c\n", (int)r->seen);
  return 0;
}
// CHECK: printf [VERSION TWO!] [VERSION] [VERSION TWO!  ]
// CHECK-NEXT: u_printf [VERSION TWO!]
// CHECK-NEXT: VERSION TWO!
// CHECK-NEXT: VERSION TWO!
// CHECK-NEXT: VERSION TWO!
// CHECK-NEXT: strlen 12 strcmp 0 memcmp 0 copy [VERSION TWO!] dup [VERSION TWO!]
// CHECK-NEXT: reader saw v
