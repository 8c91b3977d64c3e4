/* Lazy, idempotent initialisation of the process's heap: options, backend,
 * open or create, recovery, allocator indexes.  It runs at the heap's first
 * use: amber_root, the first region (tx/tx.c's opener), amber_usage. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tx/alloc.h"
#include "amber.h"
#include "base/diag.h"
#include "engine/registry.h"
#include "tx/engine.h"
#include "tx/fase.h"
#include "tx/ptrcheck.h"
#include "base/options.h"
#include "ordo/ordo.h"
#include "heap/fault.h"
#include "heap/owner.h"
#include "heap/ordo_record.h"
#include "heap/ordo_cache.h"
#include "pm/durability.h"
#include "pm/pm.h"
#include "heap/window.h"
#include "stats.h"
#include "heap/strict.h"
#include "init.h"
#include "live.h"
#include "interpose.h"
#include "tx/op.h"
#include "tx/tx.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The heap amber_open named before the open (init reads it), or "". */
static char open_path[PATH_MAX];
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;

/* What opening a clean heap writes (its status words and ORDO record), as
 * they were before, and the persistence counters once the open was done:
 * a refused amber_root puts the heap back exactly as it was when nothing
 * was persisted since (amber_close_unchanged). */
static struct {
  int valid;
  unsigned char status[sizeof(struct amber_status)];
  unsigned char ordo[2 * AMBER_ORDO_SLOT];
  struct amber_pm_counters after_open;
} before_open;

static uint64_t pm_events(const struct amber_pm_counters *c) {
  uint64_t n = 0;
  for (int i = 0; i < AMBER_PM_NCAT; i++) n += c->flushes[i] + c->fences[i];
  return n;
}

static void close_at_exit(void) {
  /* Before the close starts: a region that starts on another thread from
   * now on waits for the process to end (heap/window.c): first off the
   * fast path, which does not look (tx/tx.h). */
  amber_tx_fast_off();
  amber_heap_exit_begins();
  if (!__atomic_load_n(&amber_heap_closed, __ATOMIC_ACQUIRE)) amber_close();
}

static void init(void) {
  amber_tx_opening = 1; /* recovery and the root's creation run transactions here */
  /* Creating, opening and recovering the heap touch its pages: a page the
   * file cannot give is an amber: error: (heap/fault.c), until the
   * interceptors' handler takes over below. */
  amber_heap_fault_guard(1);
  amber_options_load();
  amber_pm_init();
  amber_ordo_cache_load(); /* this boot's TSC frequency, when an earlier process measured it */
  amber_ordo_init(); /* AMBER_CLOCK, AMBER_ORDO_BOUNDARY: fail before any heap is touched */
  amber_fase_init();  /* AMBER_FASE: likewise */
  amber_ptrcheck_init(); /* AMBER_CHECK_POINTERS: likewise */
  amber_stats_check_file(); /* AMBER_STATS_FILE: likewise */
  if (amber_opt.exit_wait > 3600000)
    amber_fatal("AMBER_EXIT_WAIT=%llu is more than an hour; give the milliseconds the close at exit waits for running "
                "transactions, e.g. 5000 (the default)",
                (unsigned long long)amber_opt.exit_wait);
  char path[PATH_MAX];
  int env_named = amber_opt.heap_set && amber_opt.heap[0];
  pthread_mutex_lock(&open_lock);
  int named = env_named || open_path[0];
  if (amber_opt.heap_shared && !named)
    amber_fatal("AMBER_HEAP_SHARED=1 applies to a heap AMBER_HEAP or amber_open names, and neither does (the private "
                "default is never shared); set AMBER_HEAP to the shared heap's path");
  if (env_named) {
    snprintf(path, sizeof path, "%s", amber_opt.heap);
    if (open_path[0] && strcmp(open_path, path))
      amber_info("amber_open(\"%s\"): AMBER_HEAP=%s takes precedence", open_path, path);
  } else if (open_path[0]) {
    snprintf(path, sizeof path, "%s", open_path);
  } else {
    char legacy[PATH_MAX];
    struct stat lsb;
    if (amber_heap_default_path(path, sizeof path, legacy, sizeof legacy) != 0) exit(2);
    /* Migration: a default heap made before the name was unique per
     * executable stays in use, never a silently empty new one. */
    if (lstat(path, &lsb) != 0 && errno == ENOENT && lstat(legacy, &lsb) == 0) {
      amber_warn("using %s: it has the old default name, which every program of this base name shares; to make it this "
                 "program's own heap (its new default, unique per executable) run: mv %s %s, or set AMBER_HEAP to keep "
                 "sharing it",
                 legacy, legacy, path);
      snprintf(path, sizeof path, "%s", legacy);
    }
  }
  pthread_mutex_unlock(&open_lock);
  unsigned mode = 0;
  if (amber_opt.heap_mode_set && amber_opt.heap_mode[0] && amber_heap_mode_parse(amber_opt.heap_mode, &mode) != 0) exit(2);
  if ((mode & 022) && !amber_opt.heap_shared)
    amber_fatal("AMBER_HEAP_MODE=%s lets %s write a new heap, and such a heap is opened only as a deliberately shared one: set "
                "AMBER_HEAP to its path and AMBER_HEAP_SHARED=1 too, or use a mode without group or other write (e.g. 0640)",
                amber_opt.heap_mode, mode & 002 ? "every user" : "the group");
  /* Invariant: a heap is written only when this user alone can write it
   * (file and directory), unless AMBER_HEAP_SHARED=1 says it is shared. */
  int trust = (amber_opt.heap_shared ? 0 : AMBER_OPEN_OWNED) | (named ? 0 : AMBER_OPEN_NOFOLLOW);

  const struct amber_engine *want = NULL;
  if (amber_opt.engine_set && amber_opt.engine[0]) {
    want = amber_engine_by_name(amber_opt.engine);
    if (!want) {
      if (!strcmp(amber_opt.engine, "htm"))
        amber_fatal("AMBER_ENGINE=%s: that engine is not built yet; use mvcc or romulus", amber_opt.engine);
      amber_fatal("AMBER_ENGINE=%s is not an engine; use mvcc (default) or romulus", amber_opt.engine);
    }
  }
  if (access(path, F_OK) != 0) {
    /* Not even a new heap goes where someone else could swap it. */
    if ((trust & AMBER_OPEN_OWNED) && amber_heap_check_dir(path) != 0) exit(2);
    struct amber_create_args a = {
        .data_size = amber_opt.heap_size,
        .base = amber_opt.base,
        .engine = want ? want->id : AMBER_ENGINE_DEFAULT,
        .reserve = amber_opt.heap_reserve,
        .mode = mode,
        .journal_size = amber_opt.journal_size,
    };
    if (amber_engine_heap_create(path, &a) < 0) exit(2);
    amber_info("created heap %s (%llu bytes, engine %s)", path, (unsigned long long)a.data_size,
               amber_engine_by_id(a.engine)->name);
  }
  struct amber_heap *h = &amber_the_heap;
  int window = amber_opt.strict ? 0 : AMBER_OPEN_WINDOW_READ;
  if (amber_engine_heap_open(path, AMBER_OPEN_WRITE | AMBER_OPEN_AT_BASE | AMBER_OPEN_LOCK | window | trust, h) != 0) exit(2);
  __amber_heap_delta = (intptr_t)((uintptr_t)h->data - (uintptr_t)h->window);
  if (amber_opt.heap_size_set && amber_opt.heap_size != h->hdr.data_size) {
    amber_heap_unmap(h);
    amber_fatal("heap %s holds %llu bytes but AMBER_HEAP_SIZE=%llu; unset AMBER_HEAP_SIZE or use a new heap file", path,
                (unsigned long long)h->hdr.data_size, (unsigned long long)amber_opt.heap_size);
  }
  if (want && want != h->engine) {
    amber_heap_unmap(h);
    amber_fatal("heap %s was created for engine %s but AMBER_ENGINE=%s; unset AMBER_ENGINE or use a new heap file", path,
                h->engine->name, want->name);
  }
  if (amber_opt.base_set && amber_opt.base != h->hdr.base) {
    amber_heap_unmap(h);
    amber_fatal("heap %s lives at base 0x%llx but AMBER_BASE=0x%llx; AMBER_BASE only applies to new heaps: unset it",
                path, (unsigned long long)h->hdr.base, (unsigned long long)amber_opt.base);
  }
  /* From here on the heap may be written: everything above only read it. */
  before_open.valid = h->status->clean == AMBER_CLEAN;
  memcpy(before_open.status, (char *)h->meta + AMBER_STATUS_OFFSET, sizeof before_open.status);
  memcpy(before_open.ordo, (char *)h->meta + AMBER_ORDO_OFFSET, sizeof before_open.ordo);
  amber_heap_pm_attach(h);
  amber_tx_engine = h->engine;
  amber_ordo_record_attach(h); /* the clock, before anything takes a timestamp */
  amber_tx_engine->recover(h);
  amber_heap_set_clean(h, 0);
  amber_alloc_open(h);
  amber_tx_engine->open(h);
  amber_pm_quiesce(AMBER_QUIESCE_OPEN);
  amber_pm_counters_sum(&before_open.after_open);
  char durability[256];
  amber_pm_describe_open(durability, sizeof durability);
  amber_info("opened heap %s at 0x%llx (%llu bytes, engine %s, owner uid %u, mode %04o%s); %s", path,
             (unsigned long long)h->hdr.base, (unsigned long long)h->hdr.data_size, amber_tx_engine->name, h->owner_uid,
             h->mode, amber_opt.heap_shared ? ", shared: AMBER_HEAP_SHARED=1" : "", durability);
  amber_strict_open(h);
  amber_heap_fault_guard(0);
  amber_interpose_heap_opened(); /* the interceptors' fatal-signal handlers, SIGBUS's among them */
  /* Base first: a check that sees the new size also sees the new base
   * (initialisation normally runs before main, with one thread). */
  __atomic_store_n(&__amber_heap_base, (uintptr_t)h->window, __ATOMIC_RELEASE);
  __atomic_store_n(&__amber_heap_size, h->hdr.data_size, __ATOMIC_RELEASE);
  atexit(close_at_exit);
  amber_live_start(); /* after the close's atexit: its page goes first at exit */
  /* Last: other threads' first regions wait in pthread_once until here. */
  __atomic_store_n(&amber_tx_ready, 1, __ATOMIC_RELEASE);
  /* Regions' fast boundary (tx/tx.h, amber_tx_region_fast) from here on. */
  __atomic_store_n(&amber_tx_fast, amber_tx_engine->lazy_begin && !amber_op_capture, __ATOMIC_RELEASE);
  amber_tx_opening = 0;
}

/* ---- one runtime per process (docs/guide.md, "Linking the runtime into the
 * program") ----
 *
 * A program linked with `amber-cc -static-libamber` carries the runtime
 * (lib/libamber_rt.o) and exports its names, so the loader binds every
 * reference in the process (the program's, its shared objects', libc's to
 * the interposed allocator) to the program's copy: the executable comes
 * first in the global look-up scope.  A libamber.so loaded beside it, the
 * dependency of a shared object built with amber-cc, is then never called:
 * it defers (dormant: its constructors return at once, it opens no heap).
 * One case is refused instead of deferred: a libamber.so that the user
 * preloaded (LD_PRELOAD, tools/amber-run's AMBER_LIB) and that is another
 * build than the program's (another version, build tree or flavour, such as
 * the ThreadSanitizer build): the user asked for that runtime and would not
 * get it.  The same build preloaded (the test suite's %run) defers. */

/* Defined only by linked_in.c in the program's copy; the weak reference
 * costs libamber.so one symbol look-up at load. */
extern const char __amber_linked_in[] __attribute__((weak));
/* Defined by the linker script of lib/libamber_rt.o around the runtime's
 * code (runtime/libamber_rt.lds); 0 in libamber.so. */
extern const char amber_rt_text_start[] __attribute__((weak, visibility("hidden")));
extern const char amber_rt_text_end[] __attribute__((weak, visibility("hidden")));

#ifndef AMBER_RUNTIME_ID
#define AMBER_RUNTIME_ID "amber (unknown build)"
#endif
#define AMBER_STR2(x) #x
#define AMBER_STR(x) AMBER_STR2(x)
static const char runtime_id[] = AMBER_RUNTIME_ID " ABI " AMBER_STR(AMBER_ABI_VERSION);

AMBER_START_DATA static int dormant = -1;

/* The dormant copy may come last in the load order, with no C library after
 * it for its own calls to the functions it intercepts (wrappers/real.c finds
 * those after libamber): until it knows it is not dormant, it calls none of
 * them (byte loops here; getenv, stat, dladdr, readlink are not
 * intercepted).  The refusal below happens only where it was preloaded,
 * ahead of the C library. */
static int same_str(const char *a, const char *b) {
  while (*a && *a == *b) a++, b++;
  return *a == *b;
}

/* Is the LD_PRELOAD entry [entry, entry + n) the file `self`? */
static int same_file(const char *entry, size_t n, const char *self) {
  char buf[PATH_MAX];
  int slash = 0;
  if (n == 0 || n >= sizeof buf) return 0;
  for (size_t i = 0; i < n; i++) slash |= (buf[i] = entry[i]) == '/';
  buf[n] = 0;
  if (!slash) {
    const char *base = self;
    for (const char *c = self; *c; c++)
      if (*c == '/') base = c + 1;
    return same_str(buf, base);
  }
  struct stat a, b;
  return stat(buf, &a) == 0 && stat(self, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static int preloaded(const char *self) {
  const char *p = getenv("LD_PRELOAD");
  while (p && *p) {
    size_t n = 0;
    while (p[n] && p[n] != ' ' && p[n] != ':') n++;
    if (same_file(p, n, self)) return 1;
    p += n;
    while (*p == ' ' || *p == ':') p++;
  }
  return 0;
}

AMBER_START_TEXT int amber_runtime_linked_in(const void *pc) {
  uintptr_t a = (uintptr_t)pc, lo = (uintptr_t)amber_rt_text_start;
  return lo && a - lo < (uintptr_t)amber_rt_text_end - lo;
}

AMBER_START_TEXT int amber_runtime_dormant(void) {
  if (amber_rt_text_start || !__amber_linked_in) return 0; /* the program's copy, or libamber.so alone */
  if (dormant >= 0) return dormant;
  dormant = 1;
  Dl_info self;
  const char *path = dladdr((void *)amber_runtime_dormant, &self) && self.dli_fname ? self.dli_fname : "libamber.so";
  if (!same_str(__amber_linked_in, runtime_id) && preloaded(path)) {
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    amber_fatal("two amber runtimes in one process: %s has the runtime linked into it (amber-cc -static-libamber: %s), and "
                "LD_PRELOAD loads %s (%s); a process runs one runtime: run the program without preloading %s, or relink "
                "it with amber-cc -shared-libamber to choose its runtime at run time",
                n > 0 ? exe : "the program", __amber_linked_in, path, runtime_id, path);
  }
  return 1;
}

/* libamber.so (and a static link that uses the process layer) registers the
 * opener before any program code runs. */
AMBER_CTOR AMBER_START_TEXT static void register_opener(void) {
  if (amber_runtime_dormant()) return;
  amber_tx_set_opener(amber_ensure_init);
  /* AMBER_RECOVER_ONLY=1 (what `amber recover HEAP --with PROGRAM` sets):
   * this build recovers the heap (re-executing its own operational records,
   * which only it can), closes it cleanly and ends before any program code
   * runs.  Every object is loaded and relocated by now, so the regions its
   * records name are found (amber_op_scan); replay reads only recorded
   * volatile inputs, never the program's state, so main need not run. */
  static const char recover_only[] AMBER_START_RODATA = "AMBER_RECOVER_ONLY"; /* beside this code: no .rodata page */
  const char *only = secure_getenv(recover_only); /* options load lazily: a glance, not the table */
  if (!only || !strcmp(only, "0")) return;
  amber_options_load();
  if (!amber_opt.recover_only) return;
  amber_ensure_init();
  uint64_t n = amber_the_heap.pending_txns;
  if (amber_close() != 0) amber_fatal("heap %s: recovered, but the close left it dirty (see above)", amber_the_heap.path);
  fprintf(stderr, "amber: heap %s: recovered by this build (%llu committed transactions applied) and closed cleanly\n",
          amber_the_heap.path, (unsigned long long)n);
  _exit(0);
}

void amber_ensure_init(void) {
  if (__builtin_expect(amber_tx_is_ready(), 1) || amber_tx_opening) return;
  pthread_once(&once, init);
}

AMBER_START_TEXT void __amber_module_init(uint32_t abi_version) {
  if (abi_version != AMBER_ABI_VERSION)
    amber_fatal("this program was compiled for amber ABI %u but the loaded runtime implements ABI %u; rebuild it with this amber's amber-cc",
                abi_version, AMBER_ABI_VERSION);
  /* Nothing is opened here: the heap opens at its first use (amber_root,
   * a region, amber_usage), so a program that never uses one opens none
   * and recovery runs when a program first needs the heap. */
}

int amber_open(const char *path) {
  if (path && !path[0]) amber_fatal("amber_open(\"\"): name a heap file, or pass NULL for the default heap");
  if (path && strlen(path) >= sizeof open_path)
    amber_fatal("amber_open: a heap path of %zu bytes is longer than the %zu the runtime takes", strlen(path),
                sizeof open_path - 1);
  struct amber_thread *t = amber_tx_is_ready() ? amber_thread() : NULL;
  if (t && t->depth) amber_fatal("amber_open called inside a region; call it before the program's first region");
  pthread_mutex_lock(&open_lock);
  if (path && !open_path[0] && !amber_tx_is_ready()) snprintf(open_path, sizeof open_path, "%s", path);
  pthread_mutex_unlock(&open_lock);
  amber_ensure_init();
  /* A second name for the one heap of the process: the file itself decides
   * (a link or another spelling of the same path is the same heap). */
  if (path && !(amber_opt.heap_set && amber_opt.heap[0])) {
    struct stat a, b;
    if (stat(path, &a) != 0 || fstat(amber_the_heap.fd, &b) != 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino)
      amber_fatal("amber_open(\"%s\"): this process already uses heap %s (opened by an earlier amber_open or its first use); "
                  "a process uses one heap: call amber_open before any region or amber_root",
                  path, amber_the_heap.path);
  }
  return 0;
}

int amber_close(void) {
  if (!amber_tx_is_ready() || __atomic_load_n(&amber_heap_closed, __ATOMIC_ACQUIRE)) return 0;
  amber_tx_fast_off(); /* the heap closes below, whichever way */
  /* The closing thread's stores outside regions commit with the close;
   * other threads' open batches are asked to commit at their next store,
   * and otherwise count as running transactions (the wait below). */
  amber_tx_batch_sync();
  amber_tx_batch_please();
  amber_stats_at_exit();
  if (amber_thread()->depth > 0) {
    /* exit() from inside a region: that region never committed, and its
     * thread holds the engine's locks.  Leave the heap as a crash would;
     * recovery at the next open rolls the region back. */
    if (amber_thread()->fase == AMBER_FASE_OPEN && !amber_thread()->desc)
      amber_warn("exit inside a lock-delimited section (AMBER_FASE=locks): its stores are rolled back at the next open");
    else
      amber_warn("exit inside an AMBER region (%s): the region is rolled back at the next open",
                 amber_thread()->desc ? amber_thread()->desc->name : "runtime");
    __atomic_store_n(&amber_heap_closed, 1, __ATOMIC_RELEASE);
    return -1;
  }
  struct amber_heap *h = &amber_the_heap;
  /* Invariant: the heap is marked clean only when the engine says nothing
   * is left to recover; otherwise it stays dirty with its logs, as after a
   * crash, and the next open recovers every committed transaction. */
  int left = amber_tx_engine->close(h, amber_opt.exit_wait);
  __atomic_store_n(&amber_heap_closed, 1, __ATOMIC_RELEASE);
  if (left) {
    if (left > 0)
      amber_warn("heap %s left dirty: %d transaction%s still running on other threads after AMBER_EXIT_WAIT=%llu ms; "
                 "the next open recovers it as after a crash: every committed transaction is kept, one still running "
                 "never happened",
                 h->path, left, left > 1 ? "s were" : " was", (unsigned long long)amber_opt.exit_wait);
    return -1;
  }
  amber_ordo_record_detach(h);
  amber_heap_set_clean(h, 1);
  amber_pm_journal_close();
  amber_pm_quiesce(AMBER_QUIESCE_CLOSE);
  return 0;
}

int amber_close_unchanged(void) {
  if (!amber_tx_is_ready() || amber_heap_closed) return -1;
  struct amber_thread *self = amber_thread();
  int others = 0;
  for (struct amber_thread *t = amber_threads(); t; t = t->next_thread) others += t != self;
  struct amber_pm_counters now;
  amber_pm_counters_sum(&now);
  /* The engine's close may persist (a last checkpoint round), so it is
   * left out, which is sound only while no other thread can be inside a
   * transaction: this thread is the only one that used the heap. */
  if (!before_open.valid || others || self->depth > 0 || pm_events(&now) != pm_events(&before_open.after_open))
  {
    amber_close(); /* keeps what the open recovered and this run committed */
    return -1;
  }
  /* Nothing was persisted since the open, so the data and the logs are as
   * the open found them; only the open's own words changed.  The ORDO
   * record's floor goes back too: no timestamp issued since reached the
   * heap. */
  amber_tx_fast_off();
  amber_heap_closed = 1;
  struct amber_heap *h = &amber_the_heap;
  char *st = (char *)h->meta + AMBER_STATUS_OFFSET, *ordo = (char *)h->meta + AMBER_ORDO_OFFSET;
  memcpy(ordo, before_open.ordo, sizeof before_open.ordo);
  amber_pm_wrote(ordo, sizeof before_open.ordo);
  amber_pm_persist(ordo, sizeof before_open.ordo, AMBER_PM_HEADER);
  memcpy(st, before_open.status, sizeof before_open.status);
  amber_pm_wrote(st, sizeof before_open.status);
  amber_pm_persist(st, sizeof before_open.status, AMBER_PM_HEADER);
  amber_pm_journal_close();
  amber_pm_quiesce(AMBER_QUIESCE_CLOSE);
  return 0;
}
