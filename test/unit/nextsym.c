// wrappers/nextsym.c gives dlsym(RTLD_NEXT)'s answer (issue 27 item 5): a
// library standing where libamber stands (first.so, with nextsym.c in it)
// looks up every function libamber used to resolve at load, functions with
// several versions, data, a name a later library (second.so) interposes,
// and a missing name, both ways.
// RUN: %clang -O1 -D_GNU_SOURCE -fPIC -shared -DFIRST %s %S/../../wrappers/nextsym.c -o %t-first.so -ldl
// RUN: %clang -O1 -D_GNU_SOURCE -fPIC -shared -DSECOND %s -o %t-second.so
// RUN: %clang -O1 -D_GNU_SOURCE %s -o %t %t-first.so %t-second.so -ldl -lpthread
// RUN: %t | FileCheck %s
// CHECK: nextsym: {{[0-9]+}} names, 0 differ
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

#if defined(FIRST)
#include "../../wrappers/nextsym.h"

int first_check(const char *name) {
  static int inited;
  if (!inited) inited = amber_nextsym_init((const void *)first_check);
  if (!inited) return printf("nextsym: init refused\n"), 1;
  void *a = amber_nextsym(name), *b = dlsym(RTLD_NEXT, name);
  if (a != b) {
    printf("nextsym: %s: %p, dlsym %p\n", name, a, b);
    return 1;
  }
  return 0;
}
#elif defined(SECOND)
/* Interposes write, as TSan's runtime sits after libamber. */
ssize_t write(int fd, const void *buf, size_t n) { return ((ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write"))(fd, buf, n); }
int second_only = 1;
#else
int first_check(const char *name);

static const char *names[] = {
    "malloc", "calloc", "realloc", "free", "read", "write", "pread", "pread64", "pwrite", "pwrite64", "readv", "writev",
    "send", "sendto", "recv", "recvfrom", "sigaction", "signal", "fork", "_Fork", "sem_post", "memccpy", "memchr", "memcmp",
    "bcmp", "__memcmpeq", "memcpy", "memmove", "memset", "stpcpy", "__stpcpy", "stpncpy", "strcat", "strchr", "strcmp",
    "strcpy", "strcspn", "strlen", "strncat", "strncmp", "strncpy", "strnlen", "strpbrk", "strrchr", "strspn", "strstr",
    "strtok_r", "__strtok_r", "__memcpy_chk", "__memmove_chk", "__memset_chk", "__strcpy_chk", "__strncpy_chk",
    "__strcat_chk", "__strncat_chk", "__stpcpy_chk", "__stpncpy_chk", "__read_chk", "__pread_chk", "__pread64_chk",
    "__recv_chk", "__recvfrom_chk", "vsnprintf", "fflush_unlocked", "fflush", "vfprintf", "fputs", "fputc",
    "pthread_mutex_lock", "pthread_mutex_trylock", "pthread_mutex_timedlock", "pthread_mutex_unlock",
    "pthread_rwlock_rdlock", "pthread_rwlock_wrlock", "pthread_rwlock_trywrlock", "pthread_rwlock_timedwrlock",
    "pthread_rwlock_unlock", "pthread_cond_wait", "pthread_cond_timedwait", "pthread_cond_signal",
    "pthread_cond_broadcast", "pthread_barrier_wait", "sem_wait", "qsort",
    /* several versions in libc (a default and older hidden ones) */
    "pthread_cond_init", "pthread_cond_destroy", "realpath", "sched_getaffinity", "posix_spawn", "glob", "fmemopen",
    "regexec", "timer_create", "pthread_attr_init", "nftw", "memcpy",
    /* data; ld.so's; a later library's; nobody's */
    "environ", "stdout", "_r_debug", "__tls_get_addr", "second_only", "first_check", "no_such_function_anywhere"};

int main(void) {
  int bad = 0, n = (int)(sizeof names / sizeof names[0]);
  for (int i = 0; i < n; i++) bad += first_check(names[i]);
  printf("nextsym: %d names, %d differ\n", n, bad);
  return bad != 0;
}
#endif
