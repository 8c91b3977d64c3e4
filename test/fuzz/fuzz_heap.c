/* libFuzzer target: a heap file from a fuzzed description, opened the way a
 * program opens it at start, recovered, and checked (issue [3/7], part 7).
 *
 * Why the input is a description and not the file.  A heap file is at least
 * 2 MiB (64 KiB of metadata, a 1 MiB data area, its 1 MiB romulus twin), so
 * mutating whole files would spend nearly every mutation on data pages that
 * no validation reads, and libFuzzer's -max_len would have to be huge.  What
 * open, recovery and check interpret is small: the header, the status page
 * (clean word, romulus state word), the two ORDO record slots, the data
 * header and the page table of each twin.  So the input is:
 *
 *   byte 0      which base image (real heaps, see below), modulo their count
 *   byte 1      flags, applied after the patches:
 *                 1  re-seal the header CRC        2  re-seal main's data-header CRC
 *                 4  re-seal the twin's data-header CRC
 *                 8  re-seal ORDO slot 0 (magic + CRC)   16  re-seal ORDO slot 1
 *                 32 copy main's data header and page table over the twin's
 *                    (keeps an idle heap's twins equal so damage reaches the
 *                    deeper checks instead of the twin comparison)
 *                 64, 128: file length: 64 shorten, 128 lengthen, both: set,
 *                    by / to the amount in bytes 2-3 (x 64 bytes)
 *   bytes 2-3   that amount (little-endian)
 *   then patches, until the input ends:
 *     byte t    region = t & 7, n = t >> 3
 *     offset    2 bytes (3 for region 7), taken modulo the region's length
 *     n == 0:   one byte XORed in (a bit flip when it has one bit set)
 *     n > 0:    n bytes written
 *   regions (located with the base image's geometry): 0 header fields
 *   (first 128 bytes), 1 status words, 2 ORDO slots, 3 main's data header,
 *   4 main's page table, 5 the twin's data header and page table, 6 the
 *   romulus state word (the patch's first byte picks IDLE, MUTATING,
 *   COPYING or the raw bytes), 7 anywhere in the file.  On an mvcc base,
 *   5 is its OLog ring slots and 6 its CLog slot (flag 32 does nothing).
 * The CRC re-seal flags let the fuzzer get past the checksums to the checks
 * behind them; the fix-ups never apply to an image that lacks the field.
 *
 * Base images: every file in the directory named by AMBER_FUZZ_IMAGES (real
 * heaps the test makes by running a workload: cleanly closed, and crash
 * images left by AMBER_CRASH_AT in the MUTATING and COPYING states), plus a
 * fresh heap made at start, so the target also runs with no images at all.
 *
 * Each run writes the image to a memfd and then:
 *   1. opens it with AMBER_OPEN_PRIVATE, runs amber check's metadata check,
 *      recovery (on the private mapping) and the recovered-state check;
 *   2. opens it as a program does (AMBER_OPEN_WRITE; not at the fixed base),
 *      attaches the ORDO clock, recovers, marks it dirty, validates the page
 *      table and builds the allocator's indexes, as init.c does.  Without
 *      AMBER_OPEN_OWNED: this is the open of a heap someone else crafted
 *      that the user let in with AMBER_HEAP_SHARED=1 (issue [1c/7] part 5),
 *      where only the structural checks stand between the file and the
 *      program;
 *   3. checks the file the program left, as step 1.
 * Oracle: no crash, sanitizer report, hang, exit or amber_fatal (this file
 * replaces diag.c: amber_fatal aborts); every refusal printed an error; the
 * program never opens what the read-only open refuses; a heap amber check
 * passes is accepted by the program; recovery on the file equals recovery
 * on the private copy; a heap that passed amber check still passes it after
 * the program's open; when only an mvcc base's log bytes were patched and
 * amber check passes, recovery leaves the data area the undamaged base
 * recovers to, or the one it recovers to with one ring's last record torn
 * (a crash leaves that too): a silently shortened log is a finding.
 *
 * AMBER_FUZZ_VERBOSE=1 prints the runtime's messages.
 */
#include <fcntl.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tx/alloc.h"
#include "check.h"
#include "base/crc32c.h"
#include "base/diag.h"
#include "tx/engine.h"
#include "heap/format.h"
#include "engine/registry.h"
#include "heap/heap.h"
#include "base/options.h"
#include "ordo/ordo.h"
#include "heap/ordo_record.h"
#include "pm/pm.h"
#include "engine/mvcc/mvcc.h"

/* ---- diag.c, for the fuzzer ---- */

static unsigned long errors; /* amber_error calls since the last reset */
static int verbose;

static void say(const char *kind, const char *fmt, va_list ap) {
  if (!verbose) return;
  fprintf(stderr, "amber: %s", kind);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
}

noreturn void amber_fatal(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "fuzz_heap: amber_fatal reached (bad input must be refused with amber_error): ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  abort();
}

int amber_error(const char *fmt, ...) {
  errors++;
  va_list ap;
  va_start(ap, fmt);
  say("error: ", fmt, ap);
  va_end(ap);
  return -1;
}

void amber_warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  say("warning: ", fmt, ap);
  va_end(ap);
}

void amber_info(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  say("", fmt, ap);
  va_end(ap);
}

/* ---- base images ---- */

struct base {
  unsigned char *bytes;
  size_t len;
  struct amber_header hdr; /* as found (regions are located with it) */
  int has_hdr;
  int mvcc;                /* an mvcc heap: regions 5 and 6 are its OLog rings and its CLog */
  uint64_t logs_lo, logs_hi, clog_lo, clog_hi; /* their file offsets */
  /* The data areas recovery may leave when only log bytes are damaged:
   * the base's own, and the base's with the last record of one ring torn
   * (a crash leaves that too: docs/engines/mvcc.md).  NULL: not computed. */
  unsigned char **ok_data;
  unsigned nok;
};

#define MAX_BASES 32
#define MAX_BASE_LEN (16u << 20)
static struct base bases[MAX_BASES];
static unsigned nbases;
static int mfd = -1;
static char path[64];

static void add_base(unsigned char *bytes, size_t len) {
  if (nbases == MAX_BASES) {
    free(bytes);
    return;
  }
  struct base *b = &bases[nbases++];
  b->bytes = bytes;
  b->len = len;
  if (len >= sizeof b->hdr) {
    memcpy(&b->hdr, bytes, sizeof b->hdr);
    b->has_hdr = !memcmp(b->hdr.magic, AMBER_MAGIC, 8) && b->hdr.data_offset == AMBER_META_SIZE &&
                 b->hdr.data_size >= AMBER_MIN_DATA && b->hdr.data_size <= len && b->hdr.engine_offset <= len &&
                 b->hdr.engine_size <= len - b->hdr.engine_offset;
    if (b->has_hdr && b->hdr.engine == AMBER_ENGINE_MVCC && b->hdr.engine_size >= sizeof(struct mv_area)) {
      const struct mv_area *a = (const struct mv_area *)(bytes + b->hdr.engine_offset);
      if (a->logs_off <= a->clog_off && a->clog_off <= b->hdr.engine_size) {
        b->mvcc = 1;
        b->logs_lo = b->hdr.engine_offset + a->logs_off;
        b->logs_hi = b->clog_lo = b->hdr.engine_offset + a->clog_off;
        b->clog_hi = b->hdr.engine_offset + b->hdr.engine_size;
      }
    }
  }
}

static unsigned char *slurp(const char *p, size_t *len) {
  int fd = open(p, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat sb;
  unsigned char *buf = NULL;
  if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 && (size_t)sb.st_size <= MAX_BASE_LEN) {
    buf = malloc((size_t)sb.st_size);
    if (buf && pread(fd, buf, (size_t)sb.st_size, 0) != sb.st_size) {
      free(buf);
      buf = NULL;
    }
    *len = (size_t)sb.st_size;
  }
  close(fd);
  return buf;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void load_bases(void) {
  /* A fresh heap, made by the runtime itself. */
  char tmp[128];
  const char *dir = getenv("TMPDIR");
  snprintf(tmp, sizeof tmp, "%s/amber-fuzz-%d.heap", dir && *dir ? dir : "/tmp", (int)getpid());
  unlink(tmp);
  struct amber_create_args a = {AMBER_MIN_DATA, 0x550000000000ull, AMBER_ENGINE_ROMULUS, 0, 0, 2 * AMBER_PAGE};
  if (amber_engine_heap_create(tmp, &a) != 0) {
    fprintf(stderr, "fuzz_heap: cannot create a fresh heap at %s\n", tmp);
    abort();
  }
  size_t len;
  unsigned char *fresh = slurp(tmp, &len);
  unlink(tmp);
  if (!fresh) abort();
  add_base(fresh, len);
  /* Real images, in name order so an input means the same base each run. */
  const char *imgs = getenv("AMBER_FUZZ_IMAGES");
  DIR *d = imgs && *imgs ? opendir(imgs) : NULL;
  if (!d) return;
  char *names[MAX_BASES];
  unsigned n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < MAX_BASES)
    if (e->d_name[0] != '.') names[n++] = strdup(e->d_name);
  closedir(d);
  qsort(names, n, sizeof *names, by_name);
  for (unsigned i = 0; i < n; i++) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", imgs, names[i]);
    unsigned char *b = slurp(p, &len);
    if (b) add_base(b, len);
    free(names[i]);
  }
}

/* The data area a private open and recovery leave of the image in the
 * memfd, or NULL when it is refused. */
static unsigned char *recovered_data(void) {
  struct amber_heap p;
  if (amber_engine_heap_open(path, AMBER_OPEN_PRIVATE, &p) != 0) return NULL;
  p.engine->recover(&p);
  unsigned char *d = malloc(p.hdr.data_size);
  if (!d) abort();
  memcpy(d, p.data, p.hdr.data_size);
  amber_heap_unmap(&p);
  return d;
}

static void put_base(const struct base *b, const unsigned char *bytes) {
  if (ftruncate(mfd, (off_t)b->len) != 0 || pwrite(mfd, bytes, b->len, 0) != (ssize_t)b->len) abort();
}

/* For an mvcc base: ok_data (struct base). */
static void mvcc_outcomes(struct base *b) {
  put_base(b, b->bytes);
  b->ok_data = calloc(1 + 4096, sizeof *b->ok_data);
  if (!b->ok_data) abort();
  struct amber_heap p;
  if (amber_engine_heap_open(path, AMBER_OPEN_PRIVATE, &p) != 0) {
    fprintf(stderr, "fuzz_heap: an mvcc base image is refused\n");
    abort();
  }
  /* Where each ring's last record is (the open attached the engine). */
  uint64_t last[4096];
  uint32_t rings = mv.max_threads < 4096 ? mv.max_threads : 4096;
  for (uint32_t i = 0; i < rings; i++) {
    uint64_t pos, seq;
    last[i] = UINT64_MAX;
    if (mv_ring_read_tail(i, &pos, &seq, NULL, NULL) < 0) continue;
    for (const struct mv_rec *r; (r = mv_rec_at(i, &pos, seq)); pos += r->len, seq++)
      if (r->magic == MV_REC_MAGIC) last[i] = mv_ring_file_off(i, pos) + offsetof(struct mv_rec, crc);
  }
  amber_heap_unmap(&p);
  b->ok_data[b->nok++] = recovered_data();
  unsigned char *copy = malloc(b->len);
  if (!copy) abort();
  for (uint32_t i = 0; i < rings; i++) {
    if (last[i] == UINT64_MAX) continue;
    memcpy(copy, b->bytes, b->len);
    copy[last[i]] ^= 1;
    put_base(b, copy);
    unsigned char *d = recovered_data();
    if (d) b->ok_data[b->nok++] = d;
  }
  free(copy);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  verbose = getenv("AMBER_FUZZ_VERBOSE") && atoi(getenv("AMBER_FUZZ_VERBOSE"));
  /* The runtime's options: no flushing (the file is a memfd), no
   * measurement of the ORDO boundary at every open. */
  setenv("AMBER_PM", "none", 1);
  setenv("AMBER_ORDO_BOUNDARY", "1000", 1);
  unsetenv("AMBER_CRASH_AT");
  unsetenv("AMBER_PLANT");
  amber_options_load();
  amber_pm_init();
  amber_ordo_init();
  load_bases();
  mfd = memfd_create("amber-fuzz-heap", MFD_CLOEXEC);
  if (mfd < 0) abort();
  snprintf(path, sizeof path, "/proc/self/fd/%d", mfd);
  unsigned nmv = 0;
  for (unsigned k = 0; k < nbases; k++)
    if (bases[k].mvcc) {
      mvcc_outcomes(&bases[k]);
      nmv++;
    }
  fprintf(stderr, "fuzz_heap: %u base images (%u mvcc)\n", nbases, nmv);
  return 0;
}

/* ---- building the image ---- */

struct region {
  uint64_t off, len;
};

static struct region region_of(const struct base *b, unsigned r) {
  struct region g = {0, b->len};
  if (!b->has_hdr && r != 7) r = 7;
  uint64_t D = b->hdr.data_offset, E = b->hdr.engine_offset, np = b->hdr.data_size / AMBER_PAGE;
  uint64_t first = 1 + (np * sizeof(struct amber_page_desc) + AMBER_PAGE - 1) / AMBER_PAGE;
  switch (r) {
  case 0: g = (struct region){0, 128}; break;
  case 1: g = (struct region){AMBER_STATUS_OFFSET, sizeof(struct amber_status)}; break;
  case 2: g = (struct region){AMBER_ORDO_OFFSET, 2 * AMBER_ORDO_SLOT}; break;
  case 3: g = (struct region){D, sizeof(struct amber_data_header)}; break;
  case 4: g = (struct region){D + AMBER_PAGE, np * sizeof(struct amber_page_desc)}; break;
  case 5: g = (struct region){E, first * AMBER_PAGE}; break;
  case 6: g = (struct region){AMBER_STATUS_OFFSET + offsetof(struct amber_status, engine_state), 8}; break;
  }
  if (b->mvcc && r == 5) g = (struct region){b->logs_lo, b->logs_hi - b->logs_lo};
  if (b->mvcc && r == 6) g = (struct region){b->clog_lo, b->clog_hi - b->clog_lo};
  if (g.off > b->len) g = (struct region){0, b->len};
  if (g.off + g.len > b->len) g.len = b->len - g.off;
  return g;
}

static void put(uint64_t off, const void *p, size_t n, uint64_t flen) {
  if (off >= flen) return;
  if (n > flen - off) n = (size_t)(flen - off);
  if (pwrite(mfd, p, n, (off_t)off) != (ssize_t)n) abort();
}

static int get(uint64_t off, void *p, size_t n, uint64_t flen) {
  if (off > flen || n > flen - off) return -1;
  return pread(mfd, p, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

static void reseal(const struct base *b, unsigned flags, uint64_t flen) {
  if (flags & 1) {
    struct amber_header h;
    if (get(0, &h, sizeof h, flen) == 0) {
      h.crc = amber_crc32c(0, &h, offsetof(struct amber_header, crc));
      put(0, &h, sizeof h, flen);
    }
  }
  if (!b->has_hdr) return;
  for (int twin = 0; twin < 2; twin++) {
    uint64_t at = twin ? b->hdr.engine_offset : b->hdr.data_offset;
    if (!(flags & (twin ? 4 : 2))) continue;
    struct amber_data_header dh;
    if (get(at, &dh, sizeof dh, flen) == 0) {
      dh.crc = amber_crc32c(0, &dh, offsetof(struct amber_data_header, crc));
      put(at, &dh, sizeof dh, flen);
    }
  }
  for (int s = 0; s < 2; s++) {
    if (!(flags & (8u << s))) continue;
    struct amber_ordo_record r;
    uint64_t at = AMBER_ORDO_OFFSET + (uint64_t)s * AMBER_ORDO_SLOT;
    if (get(at, &r, sizeof r, flen) == 0) {
      r.magic = AMBER_ORDO_MAGIC;
      amber_ordo_record_seal(&r);
      put(at, &r, sizeof r, flen);
    }
  }
  if ((flags & 32) && !b->mvcc) {
    struct region main_meta = {b->hdr.data_offset, region_of(b, 5).len};
    static unsigned char buf[1u << 20];
    if (main_meta.len <= sizeof buf && get(main_meta.off, buf, main_meta.len, flen) == 0)
      put(b->hdr.engine_offset, buf, main_meta.len, flen);
  }
}

/* The last input changed only log bytes of an mvcc base (regions 5 and 6,
 * no file length or ORDO re-seal flags). */
static int logs_only;

/* Returns the base used, NULL when there is none. */
static const struct base *build(const uint8_t *in, size_t n) {
  if (!nbases) return NULL;
  const struct base *b = &bases[n > 0 ? in[0] % nbases : 0];
  unsigned flags = n > 1 ? in[1] : 0;
  uint64_t amount = n > 3 ? ((uint64_t)in[2] | (uint64_t)in[3] << 8) * 64 : 0;
  if (ftruncate(mfd, (off_t)b->len) != 0 || pwrite(mfd, b->bytes, b->len, 0) != (ssize_t)b->len) abort();
  uint64_t flen = b->len;
  size_t i = 4;
  logs_only = b->mvcc && !(flags & (8 | 16 | 64 | 128));
  while (i < n) {
    unsigned t = in[i++], r = t & 7, len = t >> 3;
    if (r != 5 && r != 6) logs_only = 0;
    unsigned ob = r == 7 ? 3 : 2;
    if (i + ob > n) break;
    uint64_t off = 0;
    for (unsigned k = 0; k < ob; k++) off |= (uint64_t)in[i + k] << (8 * k);
    i += ob;
    struct region g = region_of(b, r);
    if (g.len == 0) break;
    off = g.off + off % g.len;
    if (r == 6 && !b->mvcc) {
      static const uint64_t states[] = {0x49444c45ull, 0x4d555441ull, 0x434f5059ull};
      if (i >= n) break;
      unsigned pick = in[i] % 4;
      if (pick < 3) {
        i++;
        put(g.off, &states[pick], 8, flen);
        continue;
      }
      if (len == 0) len = 1;
    }
    if (len == 0) {
      if (i >= n) break;
      unsigned char c;
      if (get(off, &c, 1, flen) == 0) {
        c ^= in[i];
        put(off, &c, 1, flen);
      }
      i++;
    } else {
      if (len > n - i) len = (unsigned)(n - i);
      put(off, in + i, len, flen);
      i += len;
    }
  }
  reseal(b, flags, flen);
  /* Bounded, so no input makes a file the checks take long to read. */
  uint64_t want = flen;
  switch (flags >> 6) {
  case 1: want = amount < flen ? flen - amount : 0; break;
  case 2: want = flen + amount; break;
  case 3: want = amount; break;
  }
  if (want > flen + (4u << 20)) want = flen + (4u << 20);
  if (want != flen && ftruncate(mfd, (off_t)want) != 0) abort();
  return b;
}

/* ---- the run ---- */

#define REQUIRE(c, ...)                                                                                                \
  do {                                                                                                                 \
    if (!(c)) {                                                                                                        \
      fprintf(stderr, "fuzz_heap: oracle violated: %s: ", #c);                                                        \
      fprintf(stderr, __VA_ARGS__);                                                                                    \
      fputc('\n', stderr);                                                                                             \
      abort();                                                                                                         \
    }                                                                                                                  \
  } while (0)

/* amber check's steps on a private mapping; -1 when the open refuses.
 * Leaves the heap open in *p when asked to. */
static int check_private(struct amber_heap *p, int keep) {
  errors = 0;
  if (amber_engine_heap_open(path, AMBER_OPEN_PRIVATE, p) != 0) {
    REQUIRE(errors > 0, "a refused open printed no amber: error:");
    return -1;
  }
  unsigned long before = errors;
  int bad = amber_check_meta(p);
  p->engine->recover(p);
  bad += amber_check_recovered(p, NULL, NULL);
  REQUIRE((bad > 0) == (errors > before), "check counted %d problems but printed %lu errors", bad, errors - before);
  if (!keep) amber_heap_unmap(p);
  return bad;
}

static int data_allowed(const struct base *b, const unsigned char *data) {
  for (unsigned k = 0; k < b->nok; k++)
    if (!memcmp(b->ok_data[k], data, b->hdr.data_size)) return 1;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t n) {
  const struct base *b = build(in, n);
  if (!b) return 0;
  struct amber_heap p, h;
  int bad = check_private(&p, 1);
  /* Damage to an mvcc heap's logs is refused or flagged, or recovery makes
   * what it makes of the undamaged heap (less at most one ring's last
   * record, which a crash also tears): never a silently shortened log. */
  REQUIRE(!logs_only || bad != 0 || !b->nok || data_allowed(b, (const unsigned char *)p.data),
          "amber check passed damaged mvcc logs, and recovery left a data area the undamaged heap does not recover to");

  errors = 0;
  int ho = amber_engine_heap_open(path, AMBER_OPEN_WRITE, &h);
  /* A program's open may validate more than a read-only one (an engine may
   * check the image recovery keeps), never less. */
  REQUIRE(bad >= 0 || ho != 0, "the program opened a heap the read-only open refuses");
  if (ho != 0) {
    REQUIRE(errors > 0, "a refused open printed no amber: error:");
    REQUIRE(bad != 0, "the program refused at open a heap amber check passes");
    if (bad >= 0) amber_heap_unmap(&p);
    return 0;
  }
  /* init.c's order. */
  amber_ordo_record_attach(&h);
  h.engine->recover(&h);
  amber_heap_set_clean(&h, 0);
  errors = 0;
  int v = amber_alloc_validate_image(&h, h.data);
  if (v == 0) {
    amber_alloc_open(&h);
    h.engine->open(&h);
    amber_alloc_close();
  } else {
    REQUIRE(errors > 0, "a refused page table printed no amber: error:");
  }
  REQUIRE(v == 0 || bad > 0, "the program refused a heap amber check passes");
  REQUIRE(!memcmp(h.data, p.data, h.hdr.data_size), "recovery in place and on a private copy left different data areas");
  REQUIRE(!h.hdr.engine_size || !memcmp(h.engine_area, p.engine_area, h.hdr.engine_size),
          "recovery in place and on a private copy left different engine areas");
  amber_heap_unmap(&h);
  amber_heap_unmap(&p);

  struct amber_heap q;
  int after = check_private(&q, 0);
  /* A program that refused the recovered page table has already written
   * the damaged twin over the other (recovery runs before that check), so
   * the open may now refuse what it let through before. */
  REQUIRE(after >= 0 || v != 0, "the heap the program opened is refused afterwards");
  REQUIRE(bad != 0 || after == 0, "a heap amber check passed fails it after a program opened it (%d problems)", after);
  return 0;
}
