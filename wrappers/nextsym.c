/* dlsym(RTLD_NEXT, name) without dlsym (nextsym.h).
 *
 * Why it gives dlsym's answer: glibc's RTLD_NEXT from an object loaded at
 * start-up searches the executable's lookup scope after that object
 * (elf/dl-sym.c, do_sym), and for start-up objects that scope is the
 * loader's list order (rtld.c even moves ld.so's own entry to where the
 * scope has it); dl_iterate_phdr walks that list.  The vDSO is in the
 * list but in no scope: skipped.  Objects dlopen'ed later come after every
 * start-up object in the global scope, so a name found here is the one
 * dlsym would find; one not found here is left to dlsym.  In an object, a
 * symbol qualifies as in glibc's do_lookup_x / check_match for an
 * unversioned look-up: defined, of a data or function type, global, weak
 * or unique; not of a hidden (non-default) version, unless it is the only
 * version there.  test/unit/nextsym.c compares the answers with dlsym's.
 *
 * Nothing here calls a function libamber intercepts (libamber's own calls
 * to those go through wrappers/real.c, which asks this file): byte loops,
 * no struct copies the compiler could turn into memcpy. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/auxv.h>

#include "nextsym.h"

/* base/diag.h's, here too: this file includes nothing of the runtime (the
 * unit test compiles it alone). */
#ifndef AMBER_START_TEXT
#define AMBER_START_TEXT __attribute__((section(".text.startup")))
#define AMBER_START_DATA __attribute__((section("amber_start")))
#define AMBER_START_RODATA __attribute__((section("amber_start_ro")))
#endif

struct obj {
  uintptr_t bias;
  const ElfW(Sym) *sym;
  const char *str;
  const ElfW(Half) *versym; /* NULL: no versions */
  const ElfW(Addr) *bloom;
  const uint32_t *buckets, *chain; /* chain indexed from symoffset */
  uint32_t nbuckets, symoffset, bloom_mask, bloom_shift;
};

#define MAX_OBJS 24 /* objects loaded at start after libamber; more: dlsym */
/* The first few (libc, and the handful most programs link) with the other
 * variables start-up writes; the rest, which only programs linking many
 * libraries note, in .bss: the start page stays small enough to share the
 * program's own data page (issue 27 item 5). */
#define START_OBJS 6
AMBER_START_DATA static struct obj objs[START_OBJS];
static struct obj more_objs[MAX_OBJS - START_OBJS];
AMBER_START_DATA static int nobjs;
AMBER_START_TEXT static inline struct obj *obj_at(int k) { return k < START_OBJS ? &objs[k] : &more_objs[k - START_OBJS]; }
AMBER_START_DATA static int ready; /* objs[0, nobjs) are complete (release / acquire) */

/* Objects after self that are amber runtimes (they define
 * __amber_module_init): a libamber.so left dormant behind a program that has
 * the runtime linked in (runtime/init.c).  Their interceptors are not the
 * next definition: skipped, and amber_nextsym_in_runtime tells the caller's
 * dlsym fallback. */
#define MAX_RUNTIMES 4
static struct dl_phdr_info runtimes[MAX_RUNTIMES]; /* written only where one is found */
AMBER_START_DATA static int nruntimes;

struct walk {
  uintptr_t self, vdso;
  int after_self, ok;
};

AMBER_START_TEXT static int contains(const struct dl_phdr_info *info, uintptr_t a) {
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *p = &info->dlpi_phdr[i];
    if (p->p_type == PT_LOAD && a - (info->dlpi_addr + p->p_vaddr) < p->p_memsz) return 1;
  }
  return 0;
}

/* glibc relocates the d_ptr entries of a writable dynamic section in place
 * (elf/get-dynamic-info.h); a read-only one keeps file addresses. */
AMBER_START_TEXT static uintptr_t dyn_ptr(uintptr_t bias, ElfW(Addr) p) { return p < bias ? bias + p : p; }

static void *lookup(const struct obj *o, const char *name, uint32_t h);
static uint32_t hash(const char *name);

AMBER_START_TEXT static int note(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct walk *w = arg;
  if (!w->ok) return 1;
  if (!w->after_self) {
    w->after_self = contains(info, w->self);
    return 0;
  }
  if (w->vdso && contains(info, w->vdso)) return 0;
  const ElfW(Dyn) *dyn = NULL;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
  if (!dyn) return 0; /* defines nothing dynamically */
  if (nobjs == MAX_OBJS) {
    w->ok = 0;
    return 1;
  }
  struct obj *o = obj_at(nobjs);
  uintptr_t b = info->dlpi_addr, gnu = 0;
  o->bias = b;
  o->sym = NULL;
  o->str = NULL;
  o->versym = NULL;
  for (; dyn->d_tag != DT_NULL; dyn++) {
    if (dyn->d_tag == DT_SYMTAB) o->sym = (const ElfW(Sym) *)dyn_ptr(b, dyn->d_un.d_ptr);
    else if (dyn->d_tag == DT_STRTAB) o->str = (const char *)dyn_ptr(b, dyn->d_un.d_ptr);
    else if (dyn->d_tag == DT_VERSYM) o->versym = (const ElfW(Half) *)dyn_ptr(b, dyn->d_un.d_ptr);
    else if (dyn->d_tag == DT_GNU_HASH) gnu = dyn_ptr(b, dyn->d_un.d_ptr);
  }
  if (!o->sym || !o->str || !gnu) {
    w->ok = 0; /* a SysV hash table only, say: dlsym's job */
    return 1;
  }
  const uint32_t *g = (const uint32_t *)gnu;
  o->nbuckets = g[0];
  o->symoffset = g[1];
  uint32_t bloom_size = g[2];
  o->bloom_shift = g[3];
  if (!o->nbuckets || !bloom_size || (bloom_size & (bloom_size - 1))) {
    w->ok = 0;
    return 1;
  }
  o->bloom_mask = bloom_size - 1;
  o->bloom = (const ElfW(Addr) *)(g + 4);
  o->buckets = (const uint32_t *)(o->bloom + bloom_size);
  o->chain = o->buckets + o->nbuckets;
  /* The name beside the start-up code, not among the other strings: a
   * page of .rodata less to fault in at every start. */
  static const char module_init[] AMBER_START_RODATA = "__amber_module_init";
  if (lookup(o, module_init, hash(module_init))) {
    if (nruntimes == MAX_RUNTIMES) {
      w->ok = 0;
      return 1;
    }
    runtimes[nruntimes++] = *info;
    return 0;
  }
  nobjs++;
  return 0;
}

AMBER_START_TEXT int amber_nextsym_in_runtime(const void *f) {
  for (int k = 0; k < __atomic_load_n(&nruntimes, __ATOMIC_ACQUIRE) && k < MAX_RUNTIMES; k++)
    if (contains(&runtimes[k], (uintptr_t)f)) return 1;
  return 0;
}

AMBER_START_TEXT int amber_nextsym_init(const void *self) {
#if defined(__x86_64__) && defined(__GLIBC__)
  if (__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) return 1;
  struct walk w = {(uintptr_t)self, (uintptr_t)getauxval(AT_SYSINFO_EHDR), 0, 1};
  nobjs = nruntimes = 0;
  dl_iterate_phdr(note, &w);
  if (!w.ok || !w.after_self) return 0;
  __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
  return 1;
#else
  (void)self;
  return 0; /* IFUNC resolvers take arguments elsewhere: dlsym's job */
#endif
}

AMBER_START_TEXT static int same(const char *a, const char *b) {
  while (*a && *a == *b) a++, b++;
  return *a == *b;
}

AMBER_START_TEXT static int qualifies(const ElfW(Sym) *s) {
  unsigned type = ELF64_ST_TYPE(s->st_info), bind = ELF64_ST_BIND(s->st_info);
  if (s->st_shndx == SHN_UNDEF || s->st_value == 0) return 0;
  if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT && type != STT_NOTYPE && type != STT_COMMON) return 0;
  return bind == STB_GLOBAL || bind == STB_WEAK || bind == STB_GNU_UNIQUE;
}

AMBER_START_TEXT static void *value(const struct obj *o, const ElfW(Sym) *s) {
  uintptr_t a = o->bias + s->st_value;
  if (ELF64_ST_TYPE(s->st_info) == STT_GNU_IFUNC) return ((void *(*)(void))a)(); /* as ld.so's elf_ifunc_invoke on x86-64 */
  return (void *)a;
}

AMBER_START_TEXT static void *lookup(const struct obj *o, const char *name, uint32_t h) {
  ElfW(Addr) word = o->bloom[(h / (8 * sizeof(ElfW(Addr)))) & o->bloom_mask];
  ElfW(Addr) bits = ((ElfW(Addr))1 << (h % (8 * sizeof(ElfW(Addr))))) |
                    ((ElfW(Addr))1 << ((h >> o->bloom_shift) % (8 * sizeof(ElfW(Addr)))));
  if ((word & bits) != bits) return NULL;
  uint32_t i = o->buckets[h % o->nbuckets];
  if (i < o->symoffset) return NULL;
  const ElfW(Sym) *only = NULL;
  int versions = 0;
  for (;; i++) {
    uint32_t h2 = o->chain[i - o->symoffset];
    const ElfW(Sym) *s = &o->sym[i];
    if ((h2 | 1) == (h | 1) && qualifies(s) && same(o->str + s->st_name, name)) {
      ElfW(Half) v = o->versym ? o->versym[i] : 1;
      if ((v & 0x7fff) < 2 || !(v & 0x8000)) return value(o, s); /* unversioned, or the default version */
      only = s;
      versions++;
    }
    if (h2 & 1) break;
  }
  return versions == 1 ? value(o, only) : NULL;
}

AMBER_START_TEXT static uint32_t hash(const char *name) {
  uint32_t h = 5381;
  for (const unsigned char *c = (const unsigned char *)name; *c; c++) h = h * 33 + *c;
  return h;
}

AMBER_START_TEXT void *amber_nextsym(const char *name) {
  if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) return NULL;
  uint32_t h = hash(name);
  for (int k = 0; k < nobjs; k++) {
    void *f = lookup(obj_at(k), name, h);
    if (f) return f;
  }
  return NULL;
}
