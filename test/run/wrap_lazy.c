// The real functions behind libamber's interceptors are looked up at their
// first use, in the start-up objects' own symbol tables (wrappers/nextsym.c),
// not with dlsym (issue 27 item 5: ~190 dlsym at load, then 84, were most of
// what a program that never touches the heap paid to start).  This program
// defines dlsym itself, ahead of libc's for libamber's calls, so it sees
// every look-up libamber makes through it:
//   - at load: none;
//   - eight threads calling 24 sampled functions at once, each for the
//     first time: every call gives the right result, still no dlsym, and
//     a second round neither;
//   - a signal handler calling 31 functions, each possibly for the first
//     time (strfry, which is not async-signal-safe, certainly): right
//     results; the look-up takes no lock and allocates nothing, so it may
//     run there (with dlsym it may not: an interrupted dlsym or malloc on
//     the same thread).  Were a look-up to fall back to dlsym, this dlsym
//     raises the signal inside it and the handler runs there too.
// RUN: %clang -O0 -fno-builtin -pthread %s -o %t %libamber
// RUN: %run %t | FileCheck %s
// CHECK: at load: 0 look-ups through dlsym
// CHECK-NEXT: handler at first use: 31 functions right, 0 look-ups through dlsym
// CHECK-NEXT: first use, 8 threads: 24 sampled functions right, 0 look-ups through dlsym
// CHECK-NEXT: second round: 0 look-ups through dlsym
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ---- this program's dlsym ---- */

#define MAXLOOK 4096
static const char *looked[MAXLOOK]; /* names libamber asked for, in order */
static int nlooked, at_load = -1;    /* at_load: how many before main */
static int armed;

static void *(*real_dlsym)(void *, const char *);
static void *libc;

/* libamber's dlsym(RTLD_NEXT, name) asks for the definition after its own:
 * libc's here.  Forwarding RTLD_NEXT as is would name this program as the
 * caller. */
void *dlsym(void *h, const char *name) {
  if (!real_dlsym) {
    real_dlsym = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!real_dlsym) real_dlsym = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    if (!real_dlsym) abort();
  }
  if (h == RTLD_NEXT) {
    if (!libc) libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    h = libc;
  }
  int i = __atomic_fetch_add(&nlooked, 1, __ATOMIC_RELAXED);
  if (i < MAXLOOK) looked[i] = name;
  if (__atomic_load_n(&armed, __ATOMIC_ACQUIRE)) raise(SIGUSR1);
  return real_dlsym(h, name);
}

/* ---- the handler: async-signal-safe functions, and strfry ---- */

static int handled, handler_bad;
static int pipefd[2];

static void on_usr1(int sig) {
  (void)sig;
  char s[] = "abc";
  int bad = strlen(strfry(s)) != 3; /* not async-signal-safe, and never called before */
  char a[64], b[64], c[64];
  memset(a, 'x', sizeof a);
  a[10] = 0;
  memcpy(b, a, 11);
  memmove(b + 1, b, 11);
  bad |= strlen(b) != 11 || strnlen(b, 5) != 5 || strcmp(a, "xxxxxxxxxx") != 0 || strncmp(b, "xxx", 3) != 0;
  bad |= memcmp(a, b, 5) != 0 || memchr(a, 0, 64) != a + 10 || strchr(a, 0) != a + 10 || strrchr(b, 'x') != b + 10;
  strcpy(c, "ab");
  strcat(c, "cd");
  strncat(c, "efgh", 2);
  bad |= strcmp(c, "abcdef") != 0 || strspn(c, "ba") != 2 || strcspn(c, "d") != 3 || strpbrk(c, "fe") != c + 4;
  bad |= strstr(c, "cde") != c + 2;
  strncpy(b, c, sizeof b);
  bad |= stpcpy(a, "xy") != a + 2 || stpncpy(a, "xyz", 5) != a + 3 || memccpy(b, c, 'c', 6) != b + 3;
  char tok[] = "p q", *save, *t = strtok_r(tok, " ", &save);
  bad |= !t || strcmp(t, "p") != 0;
  bad |= write(pipefd[1], "h", 1) != 1 || read(pipefd[0], a, 1) != 1 || a[0] != 'h';
  struct sigaction old;
  bad |= sigaction(SIGUSR2, NULL, &old) != 0;
  if (bad) __atomic_store_n(&handler_bad, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&handled, 1, __ATOMIC_RELAXED);
}

/* ---- the sampled functions: none on the eager list ---- */

static const char *sampled[] = {"strcasestr", "memmem",       "strverscmp",    "strtod",
                                "atoi",       "qsort_r",      "bsearch",       "strcoll",
                                "strxfrm",    "index",        "rindex",        "memrchr",
                                "rawmemchr",  "strchrnul",    "strsep",        "mempcpy",
                                "strcasecmp", "strncasecmp",  "memfrob",       "explicit_bzero",
                                "bzero",      "aligned_alloc", "posix_memalign", "malloc_usable_size"};
#define NSAMPLED (int)(sizeof sampled / sizeof sampled[0])

static int cmp_int(const void *a, const void *b, void *arg) {
  (void)arg;
  return *(const int *)a - *(const int *)b;
}
static int cmp_int2(const void *a, const void *b) { return cmp_int(a, b, NULL); }

/* Calls every sampled function once; 1 when every result is right. */
static int call_sampled(void) {
  int ok = 1;
  char s[] = "Hello, World", buf[32];
  ok &= strcasestr(s, "WORLD") == s + 7;
  ok &= memmem(s, sizeof s, "lo", 2) == s + 3;
  ok &= strverscmp("a9", "a10") < 0;
  ok &= strtod("2.5", NULL) == 2.5;
  ok &= atoi("42") == 42;
  int v[] = {3, 1, 2};
  qsort_r(v, 3, sizeof v[0], cmp_int, NULL);
  ok &= v[0] == 1 && v[2] == 3;
  int key = 2;
  ok &= bsearch(&key, v, 3, sizeof v[0], cmp_int2) == &v[1];
  ok &= strcoll("a", "b") < 0;
  ok &= strxfrm(buf, "abc", sizeof buf) == 3;
  ok &= index(s, 'o') == s + 4 && rindex(s, 'o') == s + 8;
  ok &= memrchr(s, 'l', sizeof s) == s + 10 && rawmemchr(s, 'W') == s + 7 && strchrnul(s, 'z') == s + 12;
  char list[] = "a,b", *p = list;
  ok &= strcmp(strsep(&p, ","), "a") == 0;
  ok &= mempcpy(buf, "xy", 2) == buf + 2;
  ok &= strcasecmp("ABC", "abc") == 0 && strncasecmp("ABx", "aby", 2) == 0;
  char frob[] = {'a' ^ 42, 0};
  ok &= memfrob(frob, 1) == frob && frob[0] == 'a';
  explicit_bzero(buf, 4);
  bzero(buf + 4, 4);
  ok &= buf[0] == 0 && buf[7] == 0;
  void *a = aligned_alloc(64, 64), *m = NULL;
  ok &= a && ((unsigned long)a & 63) == 0 && posix_memalign(&m, 64, 64) == 0 && m;
  ok &= malloc_usable_size(a) >= 64;
  free(a);
  free(m);
  return ok;
}

static pthread_barrier_t start;
static int results_bad;

/* All start at once: the first uses race. */
static void *worker(void *arg) {
  (void)arg;
  pthread_barrier_wait(&start);
  if (!call_sampled()) __atomic_store_n(&results_bad, 1, __ATOMIC_RELAXED);
  return NULL;
}

static void round_of(int threads) {
  pthread_t t[8];
  pthread_barrier_init(&start, NULL, (unsigned)threads);
  for (int i = 0; i < threads; i++)
    if (pthread_create(&t[i], NULL, worker, NULL) != 0) abort();
  for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
  pthread_barrier_destroy(&start);
}

int main(void) {
  at_load = __atomic_load_n(&nlooked, __ATOMIC_RELAXED);
  printf("at load: %d look-ups through dlsym\n", at_load);
  for (int i = 0; i < at_load && i < MAXLOOK; i++) printf("  %s\n", looked[i]);
  fflush(stdout);
  if (pipe(pipefd) != 0) return 1;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGUSR1, &sa, NULL) != 0) return 1;
  __atomic_store_n(&armed, 1, __ATOMIC_RELEASE);

  int before = __atomic_load_n(&nlooked, __ATOMIC_RELAXED);
  raise(SIGUSR1);
  int after = __atomic_load_n(&nlooked, __ATOMIC_RELAXED);
  printf("handler at first use: 31 functions %s, %d look-ups through dlsym\n", handled >= 1 && !handler_bad ? "right" : "WRONG",
         after - before);

  before = after;
  round_of(8);
  after = __atomic_load_n(&nlooked, __ATOMIC_RELAXED);
  printf("first use, 8 threads: %d sampled functions %s, %d look-ups through dlsym\n", NSAMPLED, results_bad ? "WRONG" : "right",
         after - before);
  for (int i = before; i < after && i < MAXLOOK; i++) printf("  %s\n", looked[i]);
  round_of(8);
  printf("second round: %d look-ups through dlsym\n", __atomic_load_n(&nlooked, __ATOMIC_RELAXED) - after);
  return 0;
}
