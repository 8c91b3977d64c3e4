/* Code addresses in persistent data (docs/guide.md, "Function pointers in
 * the heap").  A code address stored into the heap becomes a handle,
 * AMBER_CODE_TAG << 48 | hash48(symbol name), whose name goes to the heap's
 * code name table (heap/codenames.c); a pointer load turns a handle back
 * into the function's address in this process.  Names come from the code
 * tables the pass emits per module (functions whose address is taken), then
 * from the dynamic loader (dladdr when storing, dlsym when loading).  A
 * handle that no longer names a function stays a handle: calling it faults
 * on a non-canonical address, and amber_code_fault names the function. */
#include "code.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "amber_interface.h"
#include "base/diag.h"
#include "heap/codenames.h"
#include "heap/sigline.h"
#include "heap/window.h"

/* One known function: its address in this process, its handle and name. */
struct entry {
  uint64_t addr, handle;
  const char *name;
  const void *ensured_meta; /* the heap metadata mapping whose table has the name */
};

/* Open addressing, key 0 empty; readers run without the lock, so a grown
 * map replaces the old one, which is kept (readers may hold it). */
struct map {
  size_t cap, used;
  struct {
    uint64_t key;
    struct entry *e;
  } slot[];
};
static struct map *by_addr, *by_handle;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The runtime's volatile metadata never comes from the program's malloc. */
static void *arena_alloc(size_t n) {
  static char *cur;
  static size_t left;
  n = (n + 15) & ~(size_t)15;
  if (n > left) {
    size_t chunk = n > 65536 ? n : 65536;
    void *p = mmap(NULL, chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) amber_fatal("out of memory for the table of code addresses");
    cur = p;
    left = chunk;
  }
  void *r = cur;
  cur += n;
  left -= n;
  return r;
}

static inline size_t slot_of(uint64_t key, size_t cap) {
  return (size_t)((key >> 2) * 0x9E3779B97F4A7C15ull >> 17) & (cap - 1);
}

static struct entry *map_get(struct map *m, uint64_t key) {
  if (!m) return NULL;
  for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
    uint64_t k = __atomic_load_n(&m->slot[i].key, __ATOMIC_ACQUIRE);
    if (k == key) return m->slot[i].e;
    if (!k) return NULL;
  }
}

/* Under lock.  Keeps the first entry of a key. */
static void map_put(struct map **mp, uint64_t key, struct entry *e) {
  struct map *m = *mp;
  if (!m || 2 * (m->used + 1) > m->cap) {
    size_t cap = m ? 2 * m->cap : 256;
    struct map *n = arena_alloc(sizeof *n + cap * sizeof n->slot[0]);
    memset(n, 0, sizeof *n + cap * sizeof n->slot[0]);
    n->cap = cap;
    if (m)
      for (size_t i = 0; i < m->cap; i++)
        if (m->slot[i].key) {
          size_t j = slot_of(m->slot[i].key, cap);
          while (n->slot[j].key) j = (j + 1) & (cap - 1);
          n->slot[j].key = m->slot[i].key;
          n->slot[j].e = m->slot[i].e;
          n->used++;
        }
    __atomic_store_n(mp, n, __ATOMIC_RELEASE);
    m = n;
  }
  size_t j = slot_of(key, m->cap);
  for (;; j = (j + 1) & (m->cap - 1)) {
    if (m->slot[j].key == key) return;
    if (!m->slot[j].key) break;
  }
  m->slot[j].e = e;
  __atomic_store_n(&m->slot[j].key, key, __ATOMIC_RELEASE);
  m->used++;
}

/* Under lock. */
static struct entry *add_entry(uint64_t addr, const char *name) {
  struct entry *e = arena_alloc(sizeof *e);
  e->addr = addr;
  e->handle = amber_codenames_handle(name, strlen(name));
  e->name = name;
  e->ensured_meta = NULL;
  map_put(&by_addr, addr, e);
  map_put(&by_handle, e->handle, e);
  return e;
}

/* ---- the executable segments of the loaded objects ---- */

/* Whether a value not in the code tables is a code address: it is when it
 * lies in a loaded object's executable PT_LOAD segment.  The segments are a
 * snapshot from dl_iterate_phdr, sorted, replaced whole when the loader's
 * dlpi_adds/dlpi_subs counters say an object came or went.  Those counters
 * can only be read through dl_iterate_phdr, which takes the loader's global
 * lock, and most pointers stored into the heap are not code (labyrinth
 * pushes grid-cell pointers into a persistent queue): so a value first goes
 * through _dl_find_object (glibc >= 2.35), which looks it up among the
 * loaded objects' mappings without any lock.  A value in no object's
 * mapping is in no executable segment: data, answered without the loader's
 * lock or ours.  A value inside some object (a code address, a pointer to a
 * module's global) still re-reads the counters first, so the snapshot it
 * is compared with is current (`maybe_code`). */
#define MAXRANGES 1024
struct ranges {
  unsigned long long adds, subs; /* the loader's counters when it was taken */
  size_t n;
  struct {
    uintptr_t lo, hi;
  } r[MAXRANGES];
};
static struct ranges *code_ranges;

static int add_ranges(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct ranges *rs = arg;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || !ph->p_memsz || rs->n >= MAXRANGES) continue;
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
    size_t j = rs->n++; /* insertion keeps r sorted by lo (a few dozen segments) */
    for (; j > 0 && rs->r[j - 1].lo > lo; j--) rs->r[j] = rs->r[j - 1];
    rs->r[j].lo = lo;
    rs->r[j].hi = hi;
  }
  /* The counters as of this walk (under the loader's lock, as every dlpi_
   * field), published with the segments they describe. */
  rs->adds = info->dlpi_adds;
  rs->subs = info->dlpi_subs;
  return 0;
}

static int read_counts(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  unsigned long long *c = arg;
  c[0] = info->dlpi_adds;
  c[1] = info->dlpi_subs;
  return 1;
}

/* Rescans when the loader's object list changed since the snapshot was
 * taken (or always, `force`).  The counters are compared with those stored
 * in the snapshot itself, not in variables of their own: a reader that saw
 * new counters with an older snapshot would miss the object just loaded.
 * Both counters only grow, so equal counters mean no object came or went
 * since the snapshot's walk.  Takes lock. */
static void refresh_ranges(int force) {
  unsigned long long c[2] = {0, 0};
  if (!force) {
    const struct ranges *cur = __atomic_load_n(&code_ranges, __ATOMIC_ACQUIRE);
    dl_iterate_phdr(read_counts, c);
    if (cur && c[0] == cur->adds && c[1] == cur->subs) return;
  }
  pthread_mutex_lock(&lock);
  struct ranges *rs = arena_alloc(sizeof *rs);
  rs->n = 0;
  rs->adds = rs->subs = ~0ull; /* no object reported: never matches */
  dl_iterate_phdr(add_ranges, rs);
  __atomic_store_n(&code_ranges, rs, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&lock);
}

/* Readers take no lock: a snapshot is never changed after its release
 * store above, and old ones stay (arena memory), so a reader holding one
 * reads a consistent, maybe older, array. */
static int in_ranges(uint64_t v) {
  const struct ranges *rs = __atomic_load_n(&code_ranges, __ATOMIC_ACQUIRE);
  if (!rs) return 0;
  size_t lo = 0, hi = rs->n; /* the last segment starting at or below v */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (rs->r[mid].lo <= v) lo = mid + 1;
    else hi = mid;
  }
  /* Segments do not overlap: each object's mapping is reserved whole, its
   * gaps included. */
  return lo > 0 && v < rs->r[lo - 1].hi;
}

/* Whether v, in neither code table, may be a code address: it lies in an
 * executable segment of an object loaded now.
 *
 * The lock-free reject, and why it is sound: _dl_find_object reads the
 * loader's table of object mappings under its own version protocol (the
 * loader publishes an update with release stores and the reader retries on
 * a version change: elf/dl-find_object.c), and it finds every object whose
 * dlopen (or initial load) completed before the call.  A program holding
 * a code address v got it after the object was loaded: from its own
 * relocations, from dlsym, or from a thread that did, through whatever
 * synchronises the two threads (a data race on the pointer itself would be
 * the program's undefined behaviour); so that load happens before this
 * call, and v is found.  Only a concurrent dlclose of v's object can make
 * v unfound, and then v names code that is going away: storing it into the
 * heap is the program's use after dlclose, and treating it as data keeps
 * the raw value, as a store racing with the unload before this change
 * could also do.  An executable segment lies inside its object's mapping
 * (dlfo_map_start .. dlfo_map_end spans every PT_LOAD), so "in no mapping"
 * implies "in no executable segment".
 *
 * A value inside a mapping re-reads the loader's counters (its lock) and
 * rescans when an object came or went, so that it is compared with the
 * segments of the objects loaded now (a snapshot older than a dlclose could
 * name an unloaded library's text, maybe reused by another mapping). */
static int maybe_code(uint64_t v) {
#ifdef DLFO_EH_SEGMENT_TYPE /* <dlfcn.h> of glibc >= 2.35, which has _dl_find_object */
  struct dl_find_object fo;
  if (_dl_find_object((void *)(uintptr_t)v, &fo) != 0) return 0; /* in no loaded object: data */
#endif
  refresh_ranges(0);
  return in_ranges(v);
}

/* Values that are certainly not code: null and small integers, heap
 * addresses, non-canonical values (handles among them). */
static inline int plain_value(uint64_t v) {
  return v < 65536 || amber_in_heap((const void *)(uintptr_t)v) || v >= 0x800000000000ull;
}

/* ---- the pass's code tables ---- */

void __amber_register_code(const struct __amber_code *table, size_t n) {
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < n; i++)
    if (table[i].fn && table[i].name && !map_get(by_addr, (uint64_t)(uintptr_t)table[i].fn))
      add_entry((uint64_t)(uintptr_t)table[i].fn, table[i].name);
  pthread_mutex_unlock(&lock);
  refresh_ranges(1); /* the module may have been dlopened */
}

/* ---- store: code address to handle ---- */

/* The entry of code address v, named by the dynamic loader.  Not the start
 * of a named function: an amber: error when `strict` (a pointer-typed
 * store), else NULL (a word of a memcpy, maybe any data). */
static struct entry *learn_address(uint64_t v, const void *where, int strict) {
  Dl_info di;
  memset(&di, 0, sizeof di);
  int found = dladdr((void *)(uintptr_t)v, &di) != 0;
  if (!found || !di.dli_sname || (uint64_t)(uintptr_t)di.dli_saddr != v) {
    if (!strict) return NULL;
    const char *mod = found && di.dli_fname ? di.dli_fname : "an unknown module";
    if (found && di.dli_sname)
      amber_fatal("a code address 0x%llx (%s+0x%llx in %s) was stored into the persistent heap at %p, but it is not the "
                  "start of a named function, so no later run could find it again; store only pointers to functions "
                  "(docs/guide.md, \"Function pointers in the heap\")",
                  (unsigned long long)v, di.dli_sname, (unsigned long long)(v - (uint64_t)(uintptr_t)di.dli_saddr), mod,
                  where);
    amber_fatal("a code address 0x%llx (in %s) was stored into the persistent heap at %p, but it has no symbol name a "
                "later run could find it by; take the function's address in code compiled with amber-cc, or export it "
                "(docs/guide.md, \"Function pointers in the heap\")",
                (unsigned long long)v, mod, where);
  }
  pthread_mutex_lock(&lock);
  struct entry *e = map_get(by_addr, v);
  if (!e) {
    size_t len = strlen(di.dli_sname);
    char *name = arena_alloc(len + 1);
    memcpy(name, di.dli_sname, len + 1);
    e = add_entry(v, name);
  }
  pthread_mutex_unlock(&lock);
  return e;
}

static uint64_t to_handle(uint64_t v, const void *where, int strict) {
  if (plain_value(v)) return v;
  struct entry *e = map_get(__atomic_load_n(&by_addr, __ATOMIC_ACQUIRE), v);
  if (!e) {
    if (!maybe_code(v)) return v; /* data, not code */
    e = learn_address(v, where, strict);
    if (!e) return v;
  }
  const void *meta = amber_the_heap.meta;
  if (__atomic_load_n(&e->ensured_meta, __ATOMIC_ACQUIRE) != meta) {
    if (amber_codenames_add(&amber_the_heap, e->handle, e->name) != 0)
      amber_fatal("the function pointer to %s stored at %p cannot be kept in the persistent heap (above)", e->name,
                  where);
    __atomic_store_n(&e->ensured_meta, meta, __ATOMIC_RELEASE);
  }
  return e->handle;
}

uint64_t amber_code_to_handle(uint64_t v, const void *where) { return to_handle(v, where, 1); }

/* ---- load: handle to code address ---- */

uint64_t amber_code_from_handle_slow(uint64_t h) {
  struct entry *e = map_get(__atomic_load_n(&by_handle, __ATOMIC_ACQUIRE), h);
  if (e) return e->addr;
  uint32_t len = 0;
  const char *name = amber_codenames_find(&amber_the_heap, h, &len);
  if (!name) return h;
  char buf[AMBER_CODE_MAX_NAME + 1];
  memcpy(buf, name, len);
  buf[len] = 0;
  void *addr = dlsym(RTLD_DEFAULT, buf);
  if (!addr) return h; /* gone: calling it faults, amber_code_fault names it */
  pthread_mutex_lock(&lock);
  e = map_get(by_handle, h);
  if (!e) {
    char *copy = arena_alloc(len + 1);
    memcpy(copy, buf, len + 1);
    e = arena_alloc(sizeof *e);
    e->addr = (uint64_t)(uintptr_t)addr;
    e->handle = h;
    e->name = copy;
    e->ensured_meta = amber_the_heap.meta;
    map_put(&by_addr, e->addr, e);
    map_put(&by_handle, h, e);
  }
  pthread_mutex_unlock(&lock);
  return e->addr;
}

/* ---- copies between the heap and ordinary memory ---- */

void amber_code_fix_loaded(void *dst, const void *src, size_t n) {
  size_t skip = (8 - ((uintptr_t)src & 7)) & 7;
  for (size_t i = skip; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, (char *)dst + i, 8);
    if (amber_codenames_is_handle(w)) {
      w = amber_code_from_handle(w);
      memcpy((char *)dst + i, &w, 8);
    }
  }
}

int amber_code_may_hold(const void *src, const void *dst, size_t n) {
  if (!__atomic_load_n(&by_addr, __ATOMIC_ACQUIRE)) return 0; /* no code table, no dladdr-only pointers yet */
  size_t skip = (8 - ((uintptr_t)dst & 7)) & 7;
  for (size_t i = skip; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, (const char *)src + i, 8);
    if (!plain_value(w) && (map_get(by_addr, w) || maybe_code(w))) return 1;
  }
  return 0;
}

void amber_code_fix_stored(void *buf, const void *dst, size_t n) {
  size_t skip = (8 - ((uintptr_t)dst & 7)) & 7;
  for (size_t i = skip; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, (char *)buf + i, 8);
    uint64_t h = to_handle(w, (const char *)dst + i, 0); /* bytes of any type: only function starts */
    if (h != w) memcpy((char *)buf + i, &h, 8);
  }
}

/* ---- the call of a handle whose function is gone ---- */

void amber_code_fault(const siginfo_t *si, void *uc) {
#if defined(__x86_64__)
  /* A jump to a non-canonical address is a general-protection fault: the
   * kernel's SIGSEGV with si_code SI_KERNEL and no address. */
  if (!uc || si->si_code != SI_KERNEL) return;
  const ucontext_t *u = uc;
  uint64_t h = 0;
  for (int i = 0; i < NGREG && !h; i++)
    if (amber_codenames_is_handle((uint64_t)u->uc_mcontext.gregs[i])) h = (uint64_t)u->uc_mcontext.gregs[i];
  if (!h) return;
  uint32_t len = 0;
  const char *name = amber_codenames_find(amber_the_heap.meta ? &amber_the_heap : NULL, h, &len);
  struct amber_sigline l = {.n = 0};
  amber_sigline_put(&l, "amber: error: called a function pointer read from the persistent heap whose function ");
  if (name) {
    char nm[256];
    size_t k = len < sizeof nm - 1 ? len : sizeof nm - 1;
    memcpy(nm, name, k);
    nm[k] = 0;
    amber_sigline_put(&l, nm);
  } else {
    amber_sigline_put(&l, "(unknown: not in this heap's code name table)");
  }
  amber_sigline_put(&l, " does not exist in this program (handle ");
  amber_sigline_hex(&l, h);
  amber_sigline_put(&l, ")");
  amber_sigline_flush(&l);
  amber_sigline_put(&l, "amber: note: the program that stored it had that function; a rebuild removed or renamed it, "
                        "or this program does not link that code: keep the function (same name, address taken), or "
                        "clear the pointer (docs/guide.md, \"Function pointers in the heap\")");
  amber_sigline_flush(&l);
  Dl_info di;
  uintptr_t pc = (uintptr_t)u->uc_mcontext.gregs[REG_RIP];
  if (dladdr((void *)pc, &di) && di.dli_sname) {
    amber_sigline_put(&l, "amber: note: the call is in ");
    amber_sigline_put(&l, di.dli_sname);
    amber_sigline_put(&l, " at ");
    amber_sigline_hex(&l, pc);
    amber_sigline_flush(&l);
  }
  _exit(2);
#else
  (void)si;
  (void)uc;
#endif
}
