/* Operational records: capture and replay of a region's inputs, and the
 * table of the program's regions by op id (op.h). */
#include "op.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"
#include "heap/heap.h"
#include "tx/clones.h"
#include "base/options.h"

/* ---- capture ---- */

/* AMBER_OLOG=ops (opt-in), set by amber_op_scan (an engine that keeps operational
 * records calls it at open; without it no descriptor has AMBER_HINT_OPS). */
int amber_op_capture;

int amber_op_capturing(void) { return amber_op_capture; }

void amber_op_begin_capture(struct amber_thread *t, const struct __amber_region_desc *d, const void *closure) {
  if (!d || d->kind != 1 /* AMBER_KIND_ATOMIC */ || t->fase != AMBER_FASE_NONE ||
      !(__atomic_load_n(&d->runtime_state, __ATOMIC_RELAXED) & AMBER_HINT_OPS))
    return;
  t->op = AMBER_OP_CAPTURE;
  amber_op_put(t, closure, d->closure_size);
}

void amber_op_put_slow(struct amber_thread *t, const void *p, size_t n) {
  if (t->opn + n > amber_opt.olog_inputs) {
    t->op = AMBER_OP_VALUES; /* over the limit: this transaction logs values */
    return;
  }
  size_t cap = t->opcap ? t->opcap : 256;
  while (cap < t->opn + n) cap *= 2;
  if (cap > amber_opt.olog_inputs) cap = amber_opt.olog_inputs; /* the fast path never goes past the limit */
  char *b = realloc(t->opbuf, cap);
  if (!b) amber_fatal("out of memory for a region's inputs (%zu bytes)", cap);
  t->opbuf = b;
  t->opcap = cap;
  memcpy(t->opbuf + t->opn, p, n);
  t->opn += n;
}

/* ---- replay ---- */

_Noreturn void amber_op_diverged(struct amber_thread *t, const char *what) {
  const struct __amber_region_desc *d = t->desc;
  amber_fatal("recovery of heap %s: re-executing region %s (%s:%u) from its operational record, the region %s, which it did not "
              "do when it ran; it depends on something amber does not record. The heap is unchanged: recover it with "
              "AMBER_OLOG=values set for the program that wrote it is not possible after the fact, so report this with the "
              "region's code",
              amber_the_heap.path, d && d->name ? d->name : "?", d && d->file ? d->file : "?", d ? d->line : 0, what);
}

void amber_op_take(struct amber_thread *t, void *dst, size_t n) {
  if (t->oprd + n > t->opn) amber_op_diverged(t, "read more inputs than its record holds");
  memcpy(dst, t->opin + t->oprd, n);
  t->oprd += n;
}

/* ---- the program's regions ---- */

struct op_entry {
  uint64_t op_id;
  struct __amber_region_desc *desc; /* NULL: the id is ambiguous */
};
static struct op_entry *ops;
static size_t nops, capops;
static uint64_t identity;
static int identity_missing, scanned;
static char program[PATH_MAX];
static pthread_mutex_t scan_lock = PTHREAD_MUTEX_INITIALIZER;

/* Code of objects with transactional clones but maybe no region (an
 * amber-compiled library): a region calls their clones directly, by name
 * (pass ABI 6), and replay must run the same code, so their build ids are
 * part of the identity too: the objects any registered function or clone
 * lies in (tx/clones.c, filled by the module constructors before any heap
 * opens). */
static int has_clones(struct dl_phdr_info *info) {
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD) continue;
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    if (amber_clones_within(lo, lo + ph->p_memsz)) return 1;
  }
  return 0;
}

static void add_desc(struct __amber_region_desc *d) {
  if (d->magic != AMBER_DESC_MAGIC || d->abi_version != AMBER_ABI_VERSION) return; /* __amber_run reports it */
  for (size_t i = 0; i < nops; i++)
    if (ops[i].op_id == d->op_id) {
      if (ops[i].desc && ops[i].desc != d) {
        __atomic_fetch_and(&ops[i].desc->runtime_state, ~(uint64_t)AMBER_HINT_OPS, __ATOMIC_RELAXED);
        ops[i].desc = NULL;
      }
      return;
    }
  if (nops == capops) {
    capops = capops ? capops * 2 : 64;
    ops = realloc(ops, capops * sizeof *ops);
    if (!ops) amber_fatal("out of memory for the table of regions");
  }
  ops[nops++] = (struct op_entry){d->op_id, d};
  __atomic_fetch_or(&d->runtime_state, AMBER_HINT_OPS, __ATOMIC_RELAXED);
}

/* The object's "amber_regions" section (from its file's section headers):
 * its address in memory and size, or 0. */
static uint64_t regions_section(const char *path, uint64_t *size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  uint64_t addr = 0;
  Elf64_Ehdr e;
  if (pread(fd, &e, sizeof e, 0) != (ssize_t)sizeof e || memcmp(e.e_ident, ELFMAG, SELFMAG) != 0 ||
      e.e_ident[EI_CLASS] != ELFCLASS64 || e.e_shentsize != sizeof(Elf64_Shdr) || e.e_shnum == 0 || e.e_shnum > 65000 ||
      e.e_shstrndx >= e.e_shnum)
    goto out;
  Elf64_Shdr *sh = malloc((size_t)e.e_shnum * sizeof *sh);
  if (!sh) goto out;
  if (pread(fd, sh, (size_t)e.e_shnum * sizeof *sh, (off_t)e.e_shoff) == (ssize_t)(e.e_shnum * sizeof *sh)) {
    const Elf64_Shdr *ss = &sh[e.e_shstrndx];
    char *names = ss->sh_size < (1u << 24) ? malloc(ss->sh_size + 1) : NULL;
    if (names && pread(fd, names, ss->sh_size, (off_t)ss->sh_offset) == (ssize_t)ss->sh_size) {
      names[ss->sh_size] = 0;
      for (unsigned i = 0; i < e.e_shnum; i++)
        if (sh[i].sh_name < ss->sh_size && !strcmp(names + sh[i].sh_name, "amber_regions") && (sh[i].sh_flags & SHF_ALLOC)) {
          addr = sh[i].sh_addr;
          *size = sh[i].sh_size;
        }
    }
    free(names);
  }
  free(sh);
out:
  close(fd);
  return addr;
}

/* FNV-1a 64 of the object's GNU build id (from its notes, in memory); 0
 * when it has none. */
static uint64_t build_id_hash(struct dl_phdr_info *info) {
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE) continue;
    const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
      const char *name = p + sizeof *n, *desc = name + ((n->n_namesz + 3) & ~3u);
      if (desc + n->n_descsz > end) break;
      if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4) && n->n_descsz) {
        uint64_t h = 0xcbf29ce484222325ull;
        for (unsigned k = 0; k < n->n_descsz; k++) h = (h ^ (unsigned char)desc[k]) * 0x100000001b3ull;
        return h ? h : 1;
      }
      p = desc + ((n->n_descsz + 3) & ~3u);
    }
  }
  return 0;
}

static int scan_object(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  (void)arg;
  const char *path = info->dlpi_name;
  int main_program = !path || !path[0];
  if (main_program) path = program;
  if (!path[0] || path[0] == '[') return 0;
  uint64_t bytes = 0, addr = regions_section(path, &bytes);
  if ((!addr || !bytes) && !has_clones(info)) return 0;
  uint64_t b = build_id_hash(info);
  if (!b) identity_missing = 1;
  identity += b * 0x9e3779b97f4a7c15ull; /* order-independent */
  if (!addr || !bytes) return 0; /* clones only */
  struct __amber_region_desc *d = (struct __amber_region_desc *)(info->dlpi_addr + addr);
  for (uint64_t i = 0; i < bytes / sizeof *d; i++) add_desc(&d[i]);
  return 0;
}

void amber_op_scan(void) {
  pthread_mutex_lock(&scan_lock);
  if (!scanned) {
    if (!strcmp(amber_opt.olog, "ops")) amber_op_capture = 1;
    else if (strcmp(amber_opt.olog, "values") != 0)
      amber_fatal("AMBER_OLOG=%s is not a record kind; use values (the default) or ops", amber_opt.olog);
    ssize_t n = readlink("/proc/self/exe", program, sizeof program - 1);
    program[n > 0 ? n : 0] = 0;
    dl_iterate_phdr(scan_object, NULL);
    if (identity_missing) { /* replay could not tell another build from this one */
      identity = 0;
      for (size_t i = 0; i < nops; i++)
        if (ops[i].desc) __atomic_fetch_and(&ops[i].desc->runtime_state, ~(uint64_t)AMBER_HINT_OPS, __ATOMIC_RELAXED);
    }
    scanned = 1;
  }
  pthread_mutex_unlock(&scan_lock);
}

struct __amber_region_desc *amber_op_find(uint64_t op_id) {
  for (size_t i = 0; i < nops; i++)
    if (ops[i].op_id == op_id) return ops[i].desc;
  return NULL;
}

uint64_t amber_op_identity(void) { return identity; }

const char *amber_op_program(void) { return program; }
