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

#define MAXRANGES 1024
struct ranges {
  size_t n;
  struct {
    uintptr_t lo, hi;
  } r[MAXRANGES];
};
static struct ranges *code_ranges;
static unsigned long long seen_adds = ~0ull, seen_subs = ~0ull;

static int add_ranges(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct ranges *rs = arg;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || rs->n >= MAXRANGES) continue;
    rs->r[rs->n].lo = info->dlpi_addr + ph->p_vaddr;
    rs->r[rs->n].hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
    rs->n++;
  }
  seen_adds = info->dlpi_adds;
  seen_subs = info->dlpi_subs;
  return 0;
}

static int read_counts(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  unsigned long long *c = arg;
  c[0] = info->dlpi_adds;
  c[1] = info->dlpi_subs;
  return 1;
}

/* Rescans when the loader's object list changed since the last scan (or
 * always, `force`).  Takes lock. */
static void refresh_ranges(int force) {
  unsigned long long c[2] = {0, 0};
  if (!force) {
    dl_iterate_phdr(read_counts, c);
    if (c[0] == __atomic_load_n(&seen_adds, __ATOMIC_RELAXED) && c[1] == __atomic_load_n(&seen_subs, __ATOMIC_RELAXED))
      return;
  }
  pthread_mutex_lock(&lock);
  struct ranges *rs = arena_alloc(sizeof *rs);
  rs->n = 0;
  dl_iterate_phdr(add_ranges, rs);
  __atomic_store_n(&code_ranges, rs, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&lock);
}

static int in_ranges(uint64_t v) {
  const struct ranges *rs = __atomic_load_n(&code_ranges, __ATOMIC_ACQUIRE);
  if (!rs) return 0;
  for (size_t i = 0; i < rs->n; i++)
    if (v - rs->r[i].lo < rs->r[i].hi - rs->r[i].lo) return 1;
  return 0;
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
    if (!__atomic_load_n(&code_ranges, __ATOMIC_ACQUIRE)) refresh_ranges(1);
    if (!in_ranges(v)) {
      refresh_ranges(0); /* a library loaded since the last scan */
      if (!in_ranges(v)) return v; /* data, not code */
    }
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
    if (!plain_value(w) && (map_get(by_addr, w) || in_ranges(w))) return 1;
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
