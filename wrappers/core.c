/* The interceptors' common part: resolving the real functions, the hook the
 * runtime calls at heap open, and whole heap reads and writes for code amber
 * never compiled (docs/wrappers.md). */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "glibc.h"
#include "nextsym.h"
#include "wrap.h"

/* dlsym may allocate, and so call back into us.  Initial-exec: no
 * __tls_get_addr call, which a sanitizer intercepts and cannot serve before
 * it is initialised, when glibc's dlsym in TSan's start-up frees through our
 * free() (libamber is loaded at start-up, so its TLS is static). */
static __thread int resolving __attribute__((tls_model("initial-exec")));

/* libamber's own image (the linker's __ehdr_start is its ELF header, at the
 * start of its first segment): an address in one of its segments. */
extern const ElfW(Ehdr) __ehdr_start __attribute__((visibility("hidden")));
AMBER_START_TEXT static int in_libamber(uintptr_t a) {
  const ElfW(Ehdr) *e = &__ehdr_start;
  const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)e + e->e_phoff);
  uintptr_t bias = 0;
  int first = 1;
  for (int i = 0; i < e->e_phnum; i++) {
    if (ph[i].p_type != PT_LOAD) continue;
    if (first) bias = (uintptr_t)e - (ph[i].p_vaddr - ph[i].p_offset), first = 0;
    if (a - (bias + ph[i].p_vaddr) < ph[i].p_memsz) return 1;
  }
  return 0;
}

AMBER_START_TEXT void *amber_wrap_resolve(const char *name) {
  /* The start-up objects' own tables first: no lock, no allocation, so any
   * context may (nextsym.h); dlsym for what they lack (objects dlopen'ed
   * later) and before resolve_start has run. */
  void *f = amber_nextsym(name);
  if (f) return f;
  if (resolving) return NULL;
  resolving = 1;
  f = dlsym(RTLD_NEXT, name);
  resolving = 0;
  /* Never an amber runtime's interceptor: not this one, nor a dormant
   * libamber.so behind a program that has the runtime linked in. */
  return f && (in_libamber((uintptr_t)f) || amber_nextsym_in_runtime(f)) ? NULL : f;
}

_Noreturn void amber_wrap_missing(const char *name) {
  if (resolving)
    amber_fatal("%s() was called while this thread was looking up another C library function (from a signal handler that "
                "interrupted the look-up?), and libamber could not find it without dlsym (wrappers/nextsym.c: it is not in "
                "an object loaded at start-up); call only async-signal-safe functions in signal handlers",
                name);
  amber_fatal("cannot find the C library's %s() behind libamber's interceptor; is libamber loaded before libc (LD_PRELOAD)?", name);
}

/* ---- the eager list: real functions that must never wait for dlsym ----
 *
 * Every real function is looked up at its first use (wrap.h), through
 * nextsym.c's look-up in the tables of the objects loaded at start-up,
 * which takes no lock, allocates nothing and keeps no error state: safe in
 * every context below.  Where that look-up is not available (see
 * amber_nextsym_init: not x86-64, an object without a GNU hash table), a
 * look-up is dlsym, which takes the dynamic loader's lock and may
 * allocate, so it is neither async-signal-safe nor safe where that lock
 * or the allocator's can be awaited: the names below are then looked up
 * at load (resolve_start), as they all were before issue 27 item 5.  One
 * group per reason; a name may have several.  What is not here and is
 * called from such a place is a bug: add it to the group that says why. */

/* The allocator: glibc's loader and dlerror call these from inside dlsym,
 * and free/realloc never look their next definition up (alloc.c). */
#define EAGER_ALLOC(X) X(malloc) X(calloc) X(realloc) X(free)

/* What a signal handler, or the child of a multi-threaded fork, may call:
 * the POSIX async-signal-safe functions libamber intercepts (signal-
 * safety(7)), their fortified forms, the system-call wrappers beside them,
 * and the comparisons a compiler emits for memcmp (bcmp, __memcmpeq).  A
 * program's handler calling one first must not run dlsym: it may have
 * interrupted dlsym or malloc on the same thread. */
#define EAGER_SIGNAL_SAFE(X)                                                                                   \
  X(read) X(write) X(pread) X(pread64) X(pwrite) X(pwrite64) X(readv) X(writev) X(send) X(sendto) X(recv)       \
  X(recvfrom) X(sigaction) X(signal) X(fork) X(sem_post)                                                       \
  X(memccpy) X(memchr) X(memcmp) X(bcmp) X(__memcmpeq) X(memcpy) X(memmove) X(memset) X(stpcpy) X(__stpcpy)  \
  X(stpncpy) X(strcat) X(strchr) X(strcmp) X(strcpy) X(strcspn) X(strlen) X(strncat) X(strncmp) X(strncpy)     \
  X(strnlen) X(strpbrk) X(strrchr) X(strspn) X(strstr) X(strtok_r) X(__strtok_r)                               \
  X(__memcpy_chk) X(__memmove_chk) X(__memset_chk) X(__strcpy_chk) X(__strncpy_chk) X(__strcat_chk)            \
  X(__strncat_chk) X(__stpcpy_chk) X(__stpncpy_chk) X(__read_chk) X(__pread_chk) X(__pread64_chk)             \
  X(__recv_chk) X(__recvfrom_chk)
#if __GLIBC_PREREQ(2, 34)
#define EAGER_FORK(X) X(_Fork)
#else
#define EAGER_FORK(X)
#endif

/* amber's own fatal-error path (base/diag.c: snprintf, vsnprintf, write,
 * fflush_unlocked; it may run with any lock held) and its signal handlers'
 * (wrappers/signals.c, heap/strict.c, heap/symbolize.c, heap/fault.c,
 * heap/sigline.c, stats.c's report at a fatal signal into its fmemopen
 * stream: fprintf, fputs, fputc), beyond the group above. */
#define EAGER_FATAL(X) X(vsnprintf) X(fflush_unlocked) X(fflush) X(vfprintf) X(fputs) X(fputc)

/* Called with a lock held: the unlock, the waits that release and retake
 * it, and (so that no order matters) the locks themselves, the program's
 * (locks.c) and the runtime's (real.c).  A thread inside dlopen holds the
 * loader's lock while it runs the new object's constructors; one of them
 * waiting for a lock whose holder is in dlsym deadlocks.  For the same
 * reason qsort: tx/unisolated.c sorts under the lock module constructors
 * take (__amber_register_unisolated), beside memcpy and calloc above. */
#define EAGER_LOCKS(X)                                                                                          \
  X(pthread_mutex_lock) X(pthread_mutex_trylock) X(pthread_mutex_timedlock) X(pthread_mutex_unlock)           \
  X(pthread_rwlock_rdlock) X(pthread_rwlock_wrlock) X(pthread_rwlock_trywrlock) X(pthread_rwlock_timedwrlock) \
  X(pthread_rwlock_unlock) X(pthread_cond_wait) X(pthread_cond_timedwait) X(pthread_cond_signal)              \
  X(pthread_cond_broadcast) X(pthread_barrier_wait) X(sem_wait) X(qsort)

#define EAGER(X) EAGER_ALLOC(X) EAGER_REST(X)
#define EAGER_REST(X) EAGER_SIGNAL_SAFE(X) EAGER_FORK(X) EAGER_FATAL(X) EAGER_LOCKS(X)

EAGER_ALLOC(WRAP_REAL_START)
EAGER_REST(WRAP_REAL)

/* Priority 99 (AMBER_CTOR_FIRST): before libamber's other constructors
 * (100) and the program's module constructors (101), which matters where
 * the runtime is linked into the program (amber-cc -static-libamber).  Notes the objects after libamber (one
 * dl_iterate_phdr, a few hundred instructions) and resolves the allocator
 * there: free and realloc never resolve themselves (alloc.c: until this
 * runs, which allocator owns a pointer is unknown), so a free is dropped
 * until then.  Only where nextsym.c cannot serve, the whole eager list,
 * with 84 dlsym. */
#define RESOLVE(fn) (void)try_real_##fn();
/* The allocator's names beside the start-up code (AMBER_START_RODATA), not
 * among the other strings: a page of .rodata less to fault in at every
 * start.  One member per name, named as the function. */
#define NAME_MEMBER(fn) char fn[sizeof #fn];
#define NAME_VALUE(fn) #fn,
static const struct { EAGER_ALLOC(NAME_MEMBER) } alloc_names AMBER_START_RODATA = {EAGER_ALLOC(NAME_VALUE)};
#define RESOLVE_NAMED(fn) (void)resolve_real_##fn(alloc_names.fn);
AMBER_CTOR_FIRST AMBER_START_TEXT static void resolve_start(void) {
  if (amber_runtime_dormant()) return; /* the program's own runtime serves (runtime/init.c) */
  if (amber_nextsym_init(&__ehdr_start)) {
    EAGER_ALLOC(RESOLVE_NAMED)
  } else {
    EAGER(RESOLVE)
  }
}

/* The fatal-signal handlers go in when the heap opens. */
AMBER_CTOR AMBER_START_TEXT static void register_heap_open(void) {
  if (!amber_runtime_dormant()) amber_interpose_on_heap_open(amber_wrap_signals_install);
}

/* ---- whole operations on the heap, on interpose.h's reading and writing ---- */

struct copy_req {
  void *dst;
  const void *src;
  size_t n;
};

static void read_fn(void *arg) {
  struct copy_req *r = arg;
  amber_interpose_load(r->dst, r->src, r->n);
}

void amber_wrap_read(void *dst, const void *src, size_t n) {
  if (!n) return;
  if (!wrap_touches(src, n)) {
    memmove(dst, src, n); /* the C library's (--wrap, real.c) */
    return;
  }
  amber_interpose_check_usable("read", src);
  struct copy_req r = {dst, src, n};
  amber_interpose_read_tx(read_fn, &r);
}

static void write_fn(void *arg) {
  struct copy_req *r = arg;
  __amber_memmove(r->dst, r->src, r->n);
}

void amber_wrap_write(const char *what, void *dst, const void *src, size_t n) {
  if (!n) return;
  struct copy_req r = {dst, src, n};
  amber_interpose_write_tx(what, dst, write_fn, &r);
}

struct str_req {
  const char *s;
  size_t max, len, cap;
  char *buf;
};

static void str_fn(void *arg) {
  struct str_req *r = arg;
  r->len = amber_interpose_strnlen_tx(r->s, r->max);
  if (r->len < r->cap) amber_interpose_load(r->buf, r->s, r->len);
}

char *amber_wrap_strndup(const char *s, size_t max, size_t *len) {
  struct str_req r = {s, max, 0, 256, NULL};
  for (;;) {
    char *nb = realloc(r.buf, r.cap);
    if (!nb) {
      free(r.buf);
      return NULL;
    }
    r.buf = nb;
    amber_interpose_read_tx(str_fn, &r);
    if (r.len < r.cap) break;
    r.cap = r.len + 1; /* it grew meanwhile, or was longer than the guess */
  }
  r.buf[r.len] = 0;
  if (len) *len = r.len;
  return r.buf;
}

_Noreturn void amber_wrap_nomem(const char *fn, const void *addr, size_t n) {
  if (n)
    amber_fatal("%s() on heap memory at %p: out of memory for a volatile copy of %zu bytes; free some memory or pass a smaller buffer",
                fn, addr, n);
  amber_fatal("%s() on heap memory at %p: out of memory for a volatile copy; free some memory or pass a smaller buffer", fn, addr);
}
