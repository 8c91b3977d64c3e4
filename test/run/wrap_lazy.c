// The real functions behind libamber's interceptors are looked up with
// dlsym at their first use, except core.c's eager list, looked up at load
// (issue 27 item 5: ~190 look-ups at load were most of what a program that
// never touches the heap paid to start).  This program defines dlsym
// itself, ahead of libc's for libamber's calls, so it sees every look-up:
//   - at load: the eager list (the allocator, write, memcpy, sigaction, the
//     lock family, ...), and none of the sampled functions;
//   - eight threads calling 24 sampled functions at once, each for the
//     first time: every one is looked up by its own name (at most once per
//     thread that raced for it), every call gives the right result, and a
//     second round of calls looks nothing up;
//   - inside every look-up after load, this dlsym raises SIGUSR1 on its own
//     thread, and the handler calls 30 async-signal-safe functions through
//     the interceptors: all on the eager list, so none needs a look-up of
//     its own while the thread is inside dlsym (which it may not);
//   - "unsafe": a handler that calls a function that is not
//     async-signal-safe and not yet resolved gets an amber: error: saying
//     so, not a wrong "cannot find" message or a hang.
// RUN: %clang -O0 -fno-builtin -pthread %s -o %t %libamber
// RUN: %run %t | FileCheck %s
// RUN: not %run %t unsafe 2>&1 | FileCheck %s --check-prefix=UNSAFE
// CHECK: at load: malloc free write memcpy sigaction pthread_mutex_unlock looked up
// CHECK-NEXT: at load: no sampled function looked up
// CHECK-NEXT: first use, 8 threads: 24 of 24 sampled functions looked up by name, each at most 8 times, results right
// CHECK-NEXT: handler inside dlsym: ran at every look-up, 30 functions right each time
// CHECK-NEXT: second round: 0 look-ups
// UNSAFE: amber: error: strfry() was called while this thread was looking up another C library function (from a signal handler that interrupted the look-up?), and it is not one libamber resolves at load
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
static int armed, unsafe;

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

static int looked_up(const char *name, int from, int to) {
  int n = 0;
  for (int i = from; i < to && i < MAXLOOK; i++) n += looked[i] && !strcmp(looked[i], name);
  return n;
}

/* ---- the handler: async-signal-safe functions only, all eager ---- */

static int handled, handler_bad;
static int pipefd[2];

static void on_usr1(int sig) {
  (void)sig;
  if (unsafe) {
    char s[] = "abc";
    strfry(s); /* not async-signal-safe, and never called before */
  }
  char a[64], b[64], c[64];
  int bad = 0;
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

int main(int argc, char **argv) {
  at_load = __atomic_load_n(&nlooked, __ATOMIC_RELAXED);
  unsafe = argc > 1 && !strcmp(argv[1], "unsafe");
  if (pipe(pipefd) != 0) return 1;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGUSR1, &sa, NULL) != 0) return 1;

  const char *eager[] = {"malloc", "free", "write", "memcpy", "sigaction", "pthread_mutex_unlock"};
  int eager_ok = 1;
  for (int i = 0; i < 6; i++) eager_ok &= looked_up(eager[i], 0, at_load) == 1;
  printf("at load: malloc free write memcpy sigaction pthread_mutex_unlock %s\n", eager_ok ? "looked up" : "NOT all looked up");
  int early = 0;
  for (int i = 0; i < NSAMPLED; i++)
    if (looked_up(sampled[i], 0, at_load)) printf("at load: %s looked up\n", sampled[i]), early = 1;
  if (!early) printf("at load: no sampled function looked up\n");
  fflush(stdout);

  __atomic_store_n(&armed, 1, __ATOMIC_RELEASE);
  int before = __atomic_load_n(&nlooked, __ATOMIC_RELAXED);
  round_of(8);
  int after = __atomic_load_n(&nlooked, __ATOMIC_RELAXED);
  int found = 0, most = 0;
  for (int i = 0; i < NSAMPLED; i++) {
    int n = looked_up(sampled[i], before, after);
    if (n) found++;
    else printf("first use: %s NOT looked up\n", sampled[i]);
    if (n > most) most = n;
  }
  printf("first use, 8 threads: %d of %d sampled functions looked up by name, each at most %d times, results %s\n", found,
         NSAMPLED, most <= 8 ? 8 : most, results_bad ? "WRONG" : "right");
  printf("handler inside dlsym: %s, 30 functions %s each time\n",
         handled == after - before ? "ran at every look-up" : "MISSED look-ups", handler_bad ? "WRONG" : "right");
  round_of(8);
  printf("second round: %d look-ups\n", __atomic_load_n(&nlooked, __ATOMIC_RELAXED) - after);
  return 0;
}
