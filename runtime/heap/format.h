/* The on-media layout of a heap file (docs/format.md describes it; any change
 * here changes AMBER_FORMAT_VERSION and that document). */
#ifndef AMBER_FORMAT_H
#define AMBER_FORMAT_H

#include <stdint.h>

#include "ordo/cpu.h" /* struct amber_ordo_fingerprint, part of the ORDO record */
#include "pm/journal.h" /* the sync journal's head and entries */

#define AMBER_FORMAT_VERSION 12
#define AMBER_MAGIC "AMBERHP"     /* 8 bytes with the NUL */
#define AMBER_DATA_MAGIC "AMBRDAT"
#define AMBER_PAGE 4096u
#define AMBER_LINE 64u
#define AMBER_META_SIZE 65536u    /* header + status, before the data area */
#define AMBER_STATUS_OFFSET 4096u
#define AMBER_ORDO_OFFSET 8192u   /* two ORDO record slots */
#define AMBER_ORDO_SLOT 256u
/* The code name table (heap/codenames.c): the symbol name of every code
 * address stored in the heap, as a handle (AMBER_CODE_TAG), from here to
 * the end of the metadata area. */
#define AMBER_CODENAMES_OFFSET 16384u
#define AMBER_CODE_TAG 0xAB1Eull /* bits 48..63 of a handle: a non-canonical address */
#define AMBER_CODE_MAX_NAME 1024u
#define AMBER_MIN_DATA (1ull << 20)
#define AMBER_MAX_DATA (1ull << 40)

/* One record of the code name table: a handle (AMBER_CODE_TAG << 48 |
 * the low 48 bits of the FNV-1a 64 hash of the name), the name's length,
 * a CRC-32C of the handle, the length and the name; then the name (no NUL),
 * padded to 8 bytes.  Records follow each other; the first that is not
 * valid ends the table. */
struct amber_codename_rec {
  uint64_t handle;
  uint32_t len; /* 1 .. AMBER_CODE_MAX_NAME */
  uint32_t crc; /* crc32c of handle, len, then the name */
};

enum amber_engine_id { AMBER_ENGINE_ROMULUS = 1, AMBER_ENGINE_MVCC = 2, AMBER_ENGINE_HTM = 3 };

/* File offset 0.  Written once at creation; every field is covered by crc. */
struct amber_header {
  char magic[8];          /* AMBER_MAGIC */
  uint32_t version;       /* AMBER_FORMAT_VERSION */
  uint32_t engine;        /* enum amber_engine_id */
  uint64_t features;      /* must be 0 in version 2 */
  uint8_t uuid[16];
  uint64_t file_size;     /* exact size of the file */
  uint64_t base;          /* canonical address of the data area */
  uint64_t data_offset;   /* file offset of the data area (AMBER_META_SIZE) */
  uint64_t data_size;     /* bytes, multiple of AMBER_PAGE */
  uint64_t engine_offset; /* file offset of the engine's own area */
  uint64_t engine_size;
  uint64_t journal_offset; /* file offset of the sync journal: engine_offset + engine_size */
  uint64_t journal_size;   /* bytes, 0 (none) or a multiple of AMBER_PAGE, at least 2 pages */
  uint64_t created_unix;
  uint32_t page_size;     /* allocator page, AMBER_PAGE */
  uint32_t crc;           /* crc32c of every byte before this field */
};

/* The sync journal after the engine area: pm/journal.h (docs/format.md). */

#define AMBER_CLEAN 0x434c45414e000001ull /* "CLEAN" */
#define AMBER_DIRTY 0x4449525459000002ull /* "DIRTY" */

/* File offset AMBER_STATUS_OFFSET.  Mutable words, each written atomically
 * (8 bytes, aligned) and validated against its legal values on open. */
struct amber_status {
  uint64_t clean;        /* AMBER_CLEAN after a clean close, else AMBER_DIRTY */
  uint64_t opens;        /* times the heap was opened by a program */
  uint64_t engine_state; /* engine-defined (romulus: its state word) */
  uint64_t reserved[5];
};

#define AMBER_ORDO_MAGIC 0x4f44524fu /* "ORDO" */

/* Why the stored boundary was measured (amber_ordo_provenance.how). */
enum amber_ordo_how {
  AMBER_ORDO_HOW_NONE = 0,         /* never measured (logical clock, AMBER_ORDO_BOUNDARY only) */
  AMBER_ORDO_HOW_FIRST = 1,        /* the heap had no boundary */
  AMBER_ORDO_HOW_MACHINE = 2,      /* the fingerprint did not match this machine */
  AMBER_ORDO_HOW_CONTRADICTED = 3, /* a check at open contradicted the stored value */
  AMBER_ORDO_HOW_PROVISIONAL = 4,  /* the stored value was provisional */
  AMBER_ORDO_HOW_MAX = 4
};
#define AMBER_ORDO_PROVISIONAL 1u   /* flags: not confirmed; the next open measures again */
#define AMBER_ORDO_CHECK_CLEAN 1u   /* check_flags: the last check had a clean session */
#define AMBER_ORDO_CHECK_DONE 2u    /* check_flags: the last open checked the value */

/* How the record's boundary was obtained (docs/ordo.md): the measurement
 * and the last check at open.  Cycles are TSC cycles. */
struct amber_ordo_provenance {
  uint32_t how;              /* enum amber_ordo_how */
  uint32_t flags;            /* AMBER_ORDO_PROVISIONAL */
  uint64_t measured_unix_ns; /* CLOCK_REALTIME of the measurement */
  uint64_t replaced;         /* the boundary this one replaced (0: none) */
  uint64_t contradicted_by;  /* HOW_CONTRADICTED: the check's value */
  uint64_t rtt;              /* shortest round trip of the pair that set the boundary */
  int32_t cpu_a, cpu_b;      /* that pair (-1: none) */
  uint32_t pairs, planned;   /* CPU pairs measured, pairs planned */
  uint32_t sessions, unclean; /* sessions run; of them, with no clean round trip */
  uint64_t elapsed_ns;       /* the measurement's duration */
  uint64_t check_value;      /* the last check: its value (0: none yet) */
  uint64_t check_rtt;        /*   its shortest round trip */
  uint64_t check_unix_ns;    /*   when */
  uint32_t checks;           /* opens that checked this boundary */
  uint32_t check_flags;      /* AMBER_ORDO_CHECK_* of the last open */
};
/* File offsets AMBER_ORDO_OFFSET and AMBER_ORDO_OFFSET + AMBER_ORDO_SLOT:
 * two slots, each self-checksummed; the valid one with the higher seq is
 * current, and a write goes to the other, so a torn write loses nothing.
 * Both slots all zero: no record yet. */
struct amber_ordo_record {
  uint32_t magic;         /* AMBER_ORDO_MAGIC */
  uint32_t mode;          /* clock mode of the last writer: 1 tsc, 2 logical */
  uint64_t seq;           /* write count */
  uint64_t boundary;      /* measured ORDO boundary, TSC cycles (0: none) */
  uint64_t offset;        /* added to the TSC to make amber time */
  uint64_t floor;         /* amber time when written: no later than any
                             timestamp issued after it */
  uint64_t floor_unix_ns; /* CLOCK_REALTIME when `floor` was taken */
  uint8_t boot_id[16];    /* /proc/sys/kernel/random/boot_id of the writer */
  struct amber_ordo_fingerprint fp; /* where `boundary` was measured */
  struct amber_ordo_provenance how;  /* how `boundary` was obtained (version 6) */
  uint32_t reserved;      /* 0 */
  uint32_t crc;           /* crc32c of the bytes before this field */
};

/* Data area offset 0 (the canonical base).  The immutable part (magic up to
 * crc) is checksummed; the root fields change only inside transactions. */
struct amber_data_header {
  char magic[8];        /* AMBER_DATA_MAGIC */
  uint64_t npages;      /* pages in the data area */
  uint64_t pagetab_off; /* data offset of the page table */
  uint64_t first_page;  /* first allocatable page */
  uint32_t desc_size;   /* sizeof(struct amber_page_desc) */
  uint32_t crc;         /* crc32c of the bytes before this field */
  uint64_t root_off;    /* data offset of the root object; 0 when none */
  uint64_t root_size;   /* the size amber_root() was first called with */
};

/* One per data page, in the page table.  64 bytes: one cache line. */
enum amber_page_kind { AMBER_PAGE_FREE = 0, AMBER_PAGE_SLAB = 1, AMBER_PAGE_LARGE = 2 };
#define AMBER_SLAB_WORDS 6
struct amber_page_desc {
  uint8_t kind;       /* enum amber_page_kind */
  uint8_t cls;        /* SLAB: size class index */
  uint16_t arena;     /* SLAB: arena the page was given to */
  uint32_t npages;    /* LARGE: pages in the run (this page is its head) */
  uint64_t size;      /* LARGE: bytes requested */
  uint64_t bitmap[AMBER_SLAB_WORDS]; /* SLAB: bit i set = slot i allocated */
};

#endif
