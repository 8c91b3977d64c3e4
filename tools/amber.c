/* amber: the heap tool (like pmempool).
 *
 *   amber create HEAP [--size N] [--base ADDR] [--engine NAME]
 *   amber info HEAP [--json]
 *   amber check HEAP          exit 0 consistent, 1 damaged, 2 unusable
 *   amber recover HEAP
 *   amber ordo [--matrix] [--json] [--png FILE]
 *   amber --help-options [--markdown]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "check.h"
#include "amber_ordo.h"
#include "diag.h"
#include "engine.h"
#include "heap.h"
#include "options.h"
#include "ordo.h"
#include "ordo_record.h"
#include "pm.h"

int amber_cmd_plant_sites(int argc, char **argv);

static const char synopsis[] =
    "  amber create HEAP [--size N] [--base ADDR] [--engine NAME]\n"
    "  amber info HEAP [--json]\n"
    "  amber check HEAP\n"
    "  amber recover HEAP\n"
    "  amber ordo [--matrix] [--json] [--png FILE]\n"
    "  amber plant-sites\n"
    "  amber help-options [--markdown]\n"
    "  amber help | --help | -h\n";

/* A usage error: the synopsis on stderr (the caller exits 2). */
static void usage(FILE *f) { fprintf(f, "usage:\n%sRun 'amber --help' for the manual.\n", synopsis); }

/* amber --help: the manual page. */
static void help(FILE *f) {
  fprintf(f,
          "NAME\n"
          "  amber - create, inspect, check and recover amber persistent heaps\n"
          "\n"
          "SYNOPSIS\n"
          "%s"
          "\n"
          "DESCRIPTION\n"
          "  amber works on the heap files that programs built with amber-cc run on\n"
          "  (like pmempool for PMDK pools). A heap is one file, mapped at the same\n"
          "  address in every run; a program names it with AMBER_HEAP. amber takes\n"
          "  the heap's lock, so a heap that a program has open is refused.\n"
          "\n"
          "COMMANDS\n"
          "  create HEAP [--size N] [--base ADDR] [--engine NAME]\n"
          "      Create a new heap file with a data area of N bytes (e.g. 64M, 1G),\n"
          "      mapped at ADDR, run by engine NAME (romulus). The defaults come from\n"
          "      AMBER_HEAP_SIZE, AMBER_BASE and AMBER_ENGINE. An existing file is\n"
          "      never overwritten.\n"
          "  info HEAP [--json]\n"
          "      Layout version, engine, uuid, base address, size, usage, root,\n"
          "      clean/dirty state and the ORDO clock record; --json prints one\n"
          "      JSON object.\n"
          "  check HEAP\n"
          "      Verify every structure and checksum without writing the file. A\n"
          "      heap left dirty by a crash is checked as recovery will leave it\n"
          "      (recovery runs on a private copy). Every problem is listed.\n"
          "  recover HEAP\n"
          "      Bring a heap left by a crash to a consistent state without running\n"
          "      the program (idempotent; programs also recover when they open it).\n"
          "  ordo [--matrix] [--json] [--png FILE]\n"
          "      Measure the ORDO clock boundary (cycles, ns), TSC frequency and\n"
          "      clock mode; --matrix adds the pairwise CPU offsets, --png FILE draws\n"
          "      them as a heatmap (needs python3-matplotlib).\n"
          "  plant-sites\n"
          "      List the runtime's flush and fence sites, numbered for AMBER_PLANT\n"
          "      (planted-bug runs of the crash harness: docs/crashtest.md).\n"
          "  help-options [--markdown], --help-options [--markdown]\n"
          "      List every AMBER_* environment option with its type, default and\n"
          "      meaning (--markdown: the table of docs/options.md).\n"
          "  help, --help, -h\n"
          "      Print this manual.\n"
          "\n"
          "ENVIRONMENT\n"
          "  amber reads the same AMBER_* options as the runtime: AMBER_HEAP_SIZE,\n"
          "  AMBER_BASE and AMBER_ENGINE give create its defaults, AMBER_PM chooses\n"
          "  how writes are made durable, AMBER_CLOCK the clock of ordo. Every option\n"
          "  is listed by 'amber help-options' and described in docs/options.md.\n"
          "\n"
          "EXIT STATUS\n"
          "  0  success; for check: the heap is consistent.\n"
          "  1  check: the heap is damaged (every problem is listed on stderr);\n"
          "     recover: the recovered heap failed validation.\n"
          "  2  check: the heap is unusable (refused at open, as a program would\n"
          "     refuse it); any command: a usage error or a failure (the heap\n"
          "     cannot be created, opened or locked; ordo cannot measure).\n"
          "\n"
          "EXAMPLES\n"
          "  amber create /dev/shm/app.heap --size 1G\n"
          "  AMBER_HEAP=/dev/shm/app.heap ./app      # a program built with amber-cc\n"
          "  amber info /dev/shm/app.heap --json\n"
          "  amber check /dev/shm/app.heap || echo \"damaged or unusable: $?\"\n"
          "  amber recover /dev/shm/app.heap\n"
          "\n"
          "SEE ALSO\n"
          "  amber-cc --help; docs/guide.md (writing regions, running, recovery),\n"
          "  docs/options.md (AMBER_* options), docs/format.md (the heap layout),\n"
          "  docs/crashtest.md (amber check, the crash harness).\n",
          synopsis);
}

static int cmd_create(int argc, char **argv) {
  if (argc < 1) {
    usage(stderr);
    return 2;
  }
  struct amber_create_args a = {amber_opt.heap_size, amber_opt.base, AMBER_ENGINE_ROMULUS};
  const char *engine = amber_opt.engine_set && amber_opt.engine[0] ? amber_opt.engine : "romulus";
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--size") && i + 1 < argc) {
      if (amber_parse_size(argv[++i], &a.data_size)) amber_fatal("--size %s is not a size; use e.g. 256M", argv[i]);
    } else if (!strcmp(argv[i], "--base") && i + 1 < argc) {
      a.base = strtoull(argv[++i], NULL, 0);
    } else if (!strcmp(argv[i], "--engine") && i + 1 < argc) {
      engine = argv[++i];
    } else {
      amber_fatal("create: unknown argument '%s'; see amber --help", argv[i]);
    }
  }
  const struct amber_engine *e = amber_engine_by_name(engine);
  if (!e) amber_fatal("engine '%s' is not built into this amber; use romulus", engine);
  a.engine = e->id;
  int rc = amber_heap_create(argv[0], &a);
  if (rc == 1) amber_fatal("heap %s already exists; remove it first to create a new one", argv[0]);
  return rc ? 2 : 0;
}

static int open_heap(const char *path, int write, struct amber_heap *h) {
  return amber_heap_open(path, (write ? AMBER_OPEN_WRITE : 0) | AMBER_OPEN_LOCK, h);
}

static int cmd_info(int argc, char **argv) {
  if (argc < 1) {
    usage(stderr);
    return 2;
  }
  int json = argc > 1 && !strcmp(argv[1], "--json");
  struct amber_heap h;
  if (open_heap(argv[0], 0, &h)) return 2;
  const struct amber_header *hd = &h.hdr;
  const struct amber_data_header *dh = amber_heap_dh(&h);
  size_t objs = 0, bytes = 0;
  amber_alloc_check(&h, h.data, &objs, &bytes);
  char uuid[40];
  for (int i = 0; i < 16; i++) sprintf(uuid + 2 * i, "%02x", hd->uuid[i]);
  const char *state = h.status->clean == AMBER_CLEAN ? "clean" : "dirty";
  const struct amber_ordo_record *o = amber_ordo_record_current(&h);
  struct amber_ordo_record none;
  memset(&none, 0, sizeof none);
  if (!o) o = &none;
  if (json) {
    printf("{\"path\": \"%s\", \"version\": %u, \"engine\": \"%s\", \"uuid\": \"%s\", \"base\": \"0x%llx\", "
           "\"data_bytes\": %llu, \"file_bytes\": %llu, \"used_objects\": %zu, \"used_bytes\": %zu, "
           "\"root_offset\": %llu, \"root_bytes\": %llu, \"state\": \"%s\", \"opens\": %llu, "
           "\"ordo\": {\"present\": %s, \"mode\": \"%s\", \"boundary_cycles\": %llu, \"cpus\": %u, \"tsc_khz\": %llu, "
           "\"model\": \"%s\", \"offset\": %llu, \"floor\": %llu, \"seq\": %llu}}\n",
           h.path, hd->version, h.engine->name, uuid, (unsigned long long)hd->base, (unsigned long long)hd->data_size,
           (unsigned long long)hd->file_size, objs, bytes, (unsigned long long)dh->root_off,
           (unsigned long long)dh->root_size, state, (unsigned long long)h.status->opens,
           o == &none ? "false" : "true", amber_ordo_mode_name((int)o->mode), (unsigned long long)o->boundary, o->fp.ncpus,
           (unsigned long long)o->fp.tsc_khz, o->fp.model, (unsigned long long)o->offset, (unsigned long long)o->floor,
           (unsigned long long)o->seq);
  } else {
    printf("heap         %s\n", h.path);
    printf("version      %u\n", hd->version);
    printf("engine       %s\n", h.engine->name);
    printf("uuid         %s\n", uuid);
    printf("base         0x%llx\n", (unsigned long long)hd->base);
    printf("data         %llu bytes (file %llu bytes)\n", (unsigned long long)hd->data_size,
           (unsigned long long)hd->file_size);
    printf("used         %zu objects, %zu bytes\n", objs, bytes);
    if (dh->root_off) printf("root         offset 0x%llx, %llu bytes\n", (unsigned long long)dh->root_off, (unsigned long long)dh->root_size);
    else printf("root         none\n");
    printf("state        %s (opened %llu times)\n", state, (unsigned long long)h.status->opens);
    if (o == &none) printf("ordo         no record yet (written when a program opens the heap)\n");
    else
      printf("ordo         %s clock, boundary %llu cycles measured on %u CPUs at %llu kHz (%s); offset %llu, floor %llu, write %llu\n",
             amber_ordo_mode_name((int)o->mode), (unsigned long long)o->boundary, o->fp.ncpus,
             (unsigned long long)o->fp.tsc_khz, o->fp.model, (unsigned long long)o->offset, (unsigned long long)o->floor,
             (unsigned long long)o->seq);
  }
  amber_heap_unmap(&h);
  return 0;
}

static int cmd_check(int argc, char **argv) {
  if (argc != 1) {
    usage(stderr);
    return 2;
  }
  return amber_check_path(argv[0]);
}

static int cmd_recover(int argc, char **argv) {
  if (argc < 1) {
    usage(stderr);
    return 2;
  }
  struct amber_heap h;
  if (open_heap(argv[0], 1, &h)) return 2;
  h.engine->recover(&h);
  /* What recovery left is what the next program will use. */
  if (amber_alloc_validate_image(&h, h.data) != 0) {
    amber_heap_unmap(&h);
    return 1;
  }
  printf("%s: recovered\n", h.path);
  amber_heap_unmap(&h);
  return 0;
}

int main(int argc, char **argv) {
  amber_options_load();
  /* amber check recovers on a private copy of the heap: nothing there is
   * worth flushing, and no crash injection or simulation applies to it. */
  if (argc > 1 && !strcmp(argv[1], "check")) {
    amber_opt.pm = "none";
    amber_opt.crash_at = 0;
  }
  amber_pm_init();
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help") || !strcmp(argv[1], "-h")) {
    help(stdout);
    return 0;
  }
  const char *c = argv[1];
  if (!strcmp(c, "--help-options") || !strcmp(c, "help-options")) {
    amber_options_print(stdout, argc > 2 && !strcmp(argv[2], "--markdown"));
    return 0;
  }
  if (!strcmp(c, "create")) return cmd_create(argc - 2, argv + 2);
  if (!strcmp(c, "info")) return cmd_info(argc - 2, argv + 2);
  if (!strcmp(c, "check")) return cmd_check(argc - 2, argv + 2);
  if (!strcmp(c, "recover")) return cmd_recover(argc - 2, argv + 2);
  if (!strcmp(c, "ordo")) return amber_cmd_ordo(argc - 2, argv + 2);
  if (!strcmp(c, "plant-sites")) return amber_cmd_plant_sites(argc - 2, argv + 2);
  amber_error("unknown command '%s'; run amber --help", c);
  return 2;
}
