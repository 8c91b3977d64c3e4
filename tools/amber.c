/* amber: the heap tool (like pmempool).
 *
 *   amber create HEAP [--size N] [--base ADDR] [--engine NAME]
 *   amber info HEAP [--json]
 *   amber check HEAP [--json]     exit 0 consistent, 1 damaged, 2 unusable
 *   amber recover HEAP [--with PROGRAM]
 *   amber stats HEAP|FILE.json [--json]   (tools/amber_stats.c)
 *   amber stats --pid PID [--watch N [--count K]] [--json]   (a running program)
 *   amber dump HEAP [filters] | --at ADDR --len N [--json]   (tools/amber_dump.c)
 *   amber ordo [--matrix] [--json] [--png FILE]   (tools/amber_ordo.c)
 *   amber ordo HEAP [--json]                       (tools/amber_ordo_heap.c)
 *   amber plant-sites                              (tools/amber_plant.c)
 *   amber path PROGRAM                             (tools/amber_path.c)
 *   amber --help-options [--markdown]
 *
 * Every command but create and recover opens the heap read-only: the file
 * is never written (recovery, when pending, runs on a private copy).  info,
 * stats and dump read a heap a running program holds through a stable copy
 * of its file (tools/amber_tool.c); check and recover refuse it. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tx/alloc.h"
#include "check.h"
#include "amber_interface.h"
#include "amber_ordo.h"
#include "amber_tool.h"
#include "base/crc32c.h"
#include "base/diag.h"
#include "tx/engine.h"
#include "engine/registry.h"
#include "heap/fault.h"
#include "heap/heap.h"
#include "heap/owner.h"
#include "base/options.h"
#include "ordo/ordo.h"
#include "heap/ordo_record.h"
#include "pm/durability.h"
#include "pm/pm.h"
#include "stats.h"

static const char synopsis[] =
    "  amber create HEAP [--size N] [--base ADDR] [--engine NAME]\n"
    "  amber info HEAP [--json]\n"
    "  amber check HEAP [--json]\n"
    "  amber recover HEAP [--with PROGRAM]\n"
    "  amber stats HEAP [--json]\n"
    "  amber stats FILE.json [--json]\n"
    "  amber stats --pid PID [--watch N [--count K]] [--json]\n"
    "  amber dump HEAP [--min N] [--max N] [--from ADDR] [--to ADDR] [--json]\n"
    "  amber dump HEAP --at ADDR [--len N] [--json]\n"
    "  amber ordo [--matrix] [--json] [--png FILE]\n"
    "  amber ordo HEAP [--json]\n"
    "  amber plant-sites\n"
    "  amber path PROGRAM\n"
    "  amber help-options [--markdown]\n"
    "  amber help | --help | -h\n"
    "  amber --version\n";

/* A usage error: the synopsis on stderr (the caller exits 2). */
static void usage(FILE *f) { fprintf(f, "usage:\n%sRun 'amber --help' for the manual.\n", synopsis); }
void amber_tool_usage(void) { usage(stderr); }

/* amber --help: the manual page. */
static void help(FILE *f) {
  fprintf(f,
          "NAME\n"
          "  amber - create, inspect, check and recover amber persistent heaps\n"
          "\n"
          "SYNOPSIS\n"
          "%s\n"
          "DESCRIPTION\n"
          "  amber works on the heap files that programs built with amber-cc run on\n"
          "  (like pmempool for PMDK pools). A heap is one file, mapped at the same\n"
          "  address in every run; a program names it with AMBER_HEAP. check and\n"
          "  recover take the heap's lock, so they refuse a heap that a program has\n"
          "  open; info, stats and dump show such a live heap read-only, through a\n"
          "  copy of the file that stood still while it was read (they say so, and\n"
          "  as of when), taking no lock on it.\n"
          "  info, check and stats never write the heap file: on a heap left by a\n"
          "  crash they run recovery on a private copy and report what it leaves.\n"
          "  They read any heap the caller can open and print its owner and mode;\n"
          "  recover, like a program, opens only a heap that is the caller's alone\n"
          "  (AMBER_HEAP_SHARED=1 for one shared deliberately: docs/guide.md,\n"
          "  Security).\n"
          "\n"
          "COMMANDS\n"
          "  create HEAP [--size N] [--base ADDR] [--engine NAME]\n"
          "      Create a new heap file with a data area of N bytes (e.g. 64M, 1G),\n"
          "      mapped at ADDR, run by engine NAME (mvcc, the default, or romulus).\n"
          "      The defaults come from AMBER_HEAP_SIZE, AMBER_BASE and AMBER_ENGINE.\n"
          "      The file gets all its blocks now (a file system without room\n"
          "      refuses it); AMBER_HEAP_RESERVE=0 creates it sparse.\n"
          "      An existing file is never overwritten. Its mode is 0600, or\n"
          "      AMBER_HEAP_MODE (e.g. 0660 for a heap a group shares).\n"
          "  info HEAP [--json]\n"
          "      Owner and mode, layout version, engine, uuid, base address, sizes,\n"
          "      usage, roots, threads, clean/dirty state, the ORDO clock record, and\n"
          "      durability: the medium the file is on, the backend a program gets\n"
          "      there with this AMBER_PM (auto, the default, picks it from the\n"
          "      medium) and what a process crash and a power loss keep; --json\n"
          "      prints one JSON object.\n"
          "  check HEAP [--json]\n"
          "      Verify every structure and checksum without writing the file. A\n"
          "      heap left dirty by a crash is checked as recovery will leave it\n"
          "      (recovery runs on a private copy). Every problem is listed on stderr;\n"
          "      --json prints the verdict as one JSON object on stdout (also when the\n"
          "      heap is refused). The exit status is the verdict (EXIT STATUS).\n"
          "  recover HEAP [--with PROGRAM]\n"
          "      Bring a heap left by a crash to a consistent state without running\n"
          "      the program (idempotent; programs also recover when they open it),\n"
          "      applying every committed transaction. Operational records\n"
          "      (AMBER_OLOG=ops) can be re-executed only by the build of the program\n"
          "      that wrote them: --with PROGRAM runs that build with\n"
          "      AMBER_RECOVER_ONLY=1 (it recovers the heap and exits before its main).\n"
          "  stats HEAP [--json]\n"
          "      What the heap holds, for an operator: file, data area and engine area\n"
          "      sizes, used and free space (pages, largest free run, free slab slots),\n"
          "      live objects by size class and large objects, roots, allocator arenas,\n"
          "      per-thread log areas (no engine exposes any yet), the engine state\n"
          "      word, clean/dirty state. Counters of a run (commits, aborts,\n"
          "      flushes) are not in the heap: see the next form.\n"
          "  stats FILE.json [--json]\n"
          "      The statistics a program wrote at exit (AMBER_STATS_FILE=FILE.json), one\n"
          "      key per line (nested keys dotted); a file of several JSON objects gives\n"
          "      one table each. --json prints the objects unchanged, one per line.\n"
          "      Whether the file is a heap or a statistics file is read from its first\n"
          "      bytes.\n"
          "  stats --pid PID [--watch N [--count K]] [--json]\n"
          "      The counters of running process PID (a program built with amber-cc,\n"
          "      with its heap open, of this user), without stopping it: the keys\n"
          "      tx.* (commits, aborts by reason), pm.* (flushes, fences, bytes),\n"
          "      engine.* (the engine's figures; mvcc: TLog/OLog/CLog fill) and\n"
          "      alloc.* (heap use). --watch N prints one line every N seconds with\n"
          "      the rates since the last (commits/s, aborts/s by reason, fences and\n"
          "      flushes per update, bytes written and flushed per second, log fill),\n"
          "      K lines with --count (else until interrupted); with --json, each\n"
          "      snapshot with a \"rates\" object. AMBER_LIVE_STATS=0 in the program\n"
          "      turns this off.\n"
          "  dump HEAP [--min N] [--max N] [--from ADDR] [--to ADDR] [--json]\n"
          "      The root and every live object: data offset, address, size class and\n"
          "      size (large objects: the bytes asked for), in address order;\n"
          "      --min/--max keep sizes in [N, M], --from/--to addresses in [A, B)\n"
          "      (an address or a data offset). --json: one object per line.\n"
          "  dump HEAP --at ADDR [--len N] [--json]\n"
          "      N bytes (default 64, at most 1M) at ADDR (an address in the heap's\n"
          "      window or a data offset) as hex and text.\n"
          "  ordo [--matrix] [--json] [--png FILE]\n"
          "      Measure the ORDO clock boundary (cycles, ns), TSC frequency and\n"
          "      clock mode; --matrix adds the pairwise CPU offsets, --png FILE draws\n"
          "      them as a heatmap (tools/ordo-heatmap).\n"
          "  ordo HEAP [--json]\n"
          "      The heap's stored ORDO boundary and how it was obtained: why it was\n"
          "      measured, the sessions (disturbed ones), the pair that set it and its\n"
          "      round trip, what it replaced, the last check at open. Measures nothing.\n"
          "  plant-sites\n"
          "      List the runtime's flush and fence sites, numbered for AMBER_PLANT\n"
          "      (planted-bug runs of the crash harness: docs/crashtest.md).\n"
          "  path PROGRAM\n"
          "      Print the heap PROGRAM opens when neither AMBER_HEAP nor amber_open\n"
          "      names one: /dev/shm/amber-UID/NAME-KEY.heap, KEY a checksum of the\n"
          "      program's resolved path (one heap per executable, kept when it is\n"
          "      rebuilt in place). Creates nothing.\n"
          "  help-options [--markdown], --help-options [--markdown]\n"
          "      List every AMBER_* environment option with its type, default and\n"
          "      meaning (--markdown: the table of docs/options.md).\n"
          "  help, --help, -h\n"
          "      Print this manual.\n"
          "\n"
          "ENVIRONMENT\n"
          "  amber reads the same AMBER_* options as the runtime: AMBER_HEAP_SIZE,\n"
          "  AMBER_BASE and AMBER_ENGINE give create its defaults, AMBER_PM chooses\n"
          "  how recover makes its writes durable (and info reports what a program\n"
          "  gets with it; AMBER_PM_MEDIUM, for tests, sets the medium both assume),\n"
          "  AMBER_CLOCK the clock of ordo. Every\n"
          "  option is listed by 'amber help-options' and described in docs/options.md.\n"
          "\n"
          "EXIT STATUS\n"
          "  0  success; for check: the heap is consistent (with what recovery has still\n"
          "     to apply, applied on a private copy).\n"
          "  1  check: the heap is damaged (every problem is listed on stderr);\n"
          "     info, stats: the heap's allocator metadata is damaged (run check);\n"
          "     recover: the recovered heap failed validation.\n"
          "  2  check: the heap is unusable (refused at open, as a program would\n"
          "     refuse it: not a heap, another layout version, corrupt header, in use\n"
          "     by another process, ...); any command: a usage error or a failure (the\n"
          "     heap cannot be created, opened or locked; stats: the file is neither a\n"
          "     heap nor a statistics file; ordo cannot measure).\n"
          "  3  check, info, stats: incomplete: recovery has committed transactions\n"
          "     to apply that this tool cannot (operational records, AMBER_OLOG=ops:\n"
          "     only the build that wrote them re-executes them), so what was shown or\n"
          "     checked leaves them out; no damage was found. The summary and --json\n"
          "     (pending_txns, pending_left_out) say how many. amber recover HEAP\n"
          "     --with PROGRAM applies them.\n"
          "  Every view counts what recovery has still to apply (pending_txns,\n"
          "  pending_checkpoints in --json).\n"
          "\n"
          "EXAMPLES\n"
          "  amber create /dev/shm/app.heap --size 1G\n"
          "  AMBER_HEAP=/dev/shm/app.heap ./app      # a program built with amber-cc\n"
          "  amber info /dev/shm/app.heap --json\n"
          "  amber info \"$(amber path ./app)\"       # the heap ./app opens by default\n"
          "  amber check /dev/shm/app.heap || echo \"damaged or unusable: $?\"\n"
          "  amber recover /dev/shm/app.heap\n"
          "  amber stats /dev/shm/app.heap\n"
          "  AMBER_STATS_FILE=run.json AMBER_HEAP=/dev/shm/app.heap ./app\n"
          "  amber stats run.json\n"
          "  amber stats --pid \"$(pidof app)\" --watch 1\n"
          "  amber dump /dev/shm/app.heap --at 0x550000043000 --len 32\n"
          "\n"
          "SEE ALSO\n"
          "  amber-cc --help; docs/guide.md (writing regions, running, recovery, the\n"
          "  heap tool), docs/options.md (AMBER_* options), docs/format.md (the heap\n"
          "  layout), docs/crashtest.md (amber check, the crash harness).\n",
          synopsis);
}

static int cmd_create(int argc, char **argv) {
  if (argc < 1) {
    usage(stderr);
    return 2;
  }
  struct amber_create_args a = {amber_opt.heap_size, amber_opt.base, AMBER_ENGINE_DEFAULT, amber_opt.heap_reserve, 0,
                                amber_opt.journal_size};
  if (amber_opt.heap_mode_set && amber_opt.heap_mode[0] && amber_heap_mode_parse(amber_opt.heap_mode, &a.mode) != 0) return 2;
  const char *engine = amber_opt.engine_set && amber_opt.engine[0] ? amber_opt.engine : amber_engine_by_id(a.engine)->name;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--size") && i + 1 < argc) {
      if (amber_options_parse_size(argv[++i], &a.data_size)) amber_fatal("--size %s is not a size; use e.g. 256M", argv[i]);
    } else if (!strcmp(argv[i], "--base") && i + 1 < argc) {
      a.base = strtoull(argv[++i], NULL, 0);
    } else if (!strcmp(argv[i], "--engine") && i + 1 < argc) {
      engine = argv[++i];
    } else {
      amber_fatal("create: unknown argument '%s'; see amber --help", argv[i]);
    }
  }
  const struct amber_engine *e = amber_engine_by_name(engine);
  if (!e) amber_fatal("engine '%s' is not built into this amber; use mvcc or romulus", engine);
  a.engine = e->id;
  int rc = amber_engine_heap_create(argv[0], &a);
  if (rc == 1) amber_fatal("heap %s already exists; remove it first to create a new one", argv[0]);
  return rc ? 2 : 0;
}

/* HEAP and an optional --json, in any order; -1 after a usage message. */
static int heap_args(const char *cmd, int argc, char **argv, const char **path, int *json) {
  *path = NULL;
  *json = 0;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) *json = 1;
    else if (argv[i][0] == '-' && argv[i][1]) return amber_error("%s: unknown option '%s'; use amber %s HEAP [--json]", cmd, argv[i], cmd);
    else if (*path) return amber_error("%s: one heap at a time ('%s' and '%s'); use amber %s HEAP [--json]", cmd, *path, argv[i], cmd);
    else *path = argv[i];
  }
  if (!*path) {
    usage(stderr);
    return -1;
  }
  return 0;
}

/* AMBER_PM as the user gave it: the tool itself runs check, info and stats
 * with none. */
static const char *requested_pm;

/* What a program that opens this heap with this environment would get:
 * the medium of the file, the backend AMBER_PM picks there, and what each
 * failure keeps. */
struct durability {
  struct amber_pm_medium m;
  enum amber_pm_mode mode;
  int is_auto;
  char line[256];
};
static void durability_of(int fd, struct durability *d) {
  amber_pm_medium_detect(fd, &d->m);
  d->mode = AMBER_PM_MODE_NONE;
  if (amber_pm_mode_parse(requested_pm, &d->mode, &d->is_auto) != 0) AMBER_BUG("AMBER_PM=%s passed amber_pm_init", requested_pm);
  if (d->is_auto) d->mode = amber_pm_auto_mode(&d->m);
  char how[32];
  snprintf(how, sizeof how, d->is_auto ? "auto" : "AMBER_PM=%s", amber_pm_mode_names[d->mode]);
  amber_pm_describe(d->line, sizeof d->line, &d->m, d->mode, how);
}

/* amber info on a heap its program changed during each read (no stable
 * copy): what the file fixes at creation, its header (checked by its own
 * checksum, read twice: a program never rewrites it), the medium, and the
 * program's published counters for what the copy would have counted. */
static int info_busy(const char *path, const struct amber_view *v, int json) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct amber_header a, b;
  struct stat sb;
  if (fd < 0 || fstat(fd, &sb) != 0 || pread(fd, &a, sizeof a, 0) != (ssize_t)sizeof a ||
      pread(fd, &b, sizeof b, 0) != (ssize_t)sizeof b || memcmp(&a, &b, sizeof a) || memcmp(a.magic, AMBER_MAGIC, sizeof a.magic) ||
      a.crc != amber_crc32c(0, &a, offsetof(struct amber_header, crc)) || !amber_engine_by_id(a.engine)) {
    amber_error("info: heap %s is in use by process %d, which changed it during each of %d reads, and its header cannot be read "
                "as amber's (%s); try again when it is less busy, or stop the program",
                path, v->holder, amber_view_copy_tries(), fd < 0 ? strerror(errno) : "damaged, or another version");
    if (fd >= 0) close(fd);
    return 2;
  }
  const char *engine = amber_engine_by_id(a.engine)->name;
  char uuid[40];
  for (int i = 0; i < 16; i++) sprintf(uuid + 2 * i, "%02x", a.uuid[i]);
  struct durability du;
  durability_of(fd, &du);
  close(fd);
  static const char *const counters[] = {"alloc.", "engine.", "tx.commits", NULL};
  uint64_t real = 0;
  if (json) {
    printf("{\"path\": ");
    amber_stats_json_str(stdout, path);
    printf(", \"owner_uid\": %u, \"mode\": \"%04o\", \"version\": %u, \"engine\": \"%s\", \"uuid\": \"%s\", \"base\": \"0x%llx\", "
           "\"data_bytes\": %llu, \"file_bytes\": %llu, \"engine_area_bytes\": %llu, \"live\": true, \"busy\": true, "
           "\"live_pid\": %d, \"copy_reads\": %d",
           (unsigned)sb.st_uid, (unsigned)(sb.st_mode & 07777), a.version, engine, uuid, (unsigned long long)a.base,
           (unsigned long long)a.data_size, (unsigned long long)a.file_size, (unsigned long long)a.engine_size, v->holder,
           amber_view_copy_tries());
    if (amber_stats_live_counters(v->holder, counters, 1, &real) != 0) printf(", \"counters\": null");
    printf(", \"as_of_ns\": %llu, \"pm\": \"%s\", \"medium\": \"%s\", \"process_crash\": \"%s\", \"power_loss\": \"%s\"}\n",
           (unsigned long long)real, amber_pm_mode_names[du.mode], amber_pm_medium_name[du.m.kind], amber_pm_process_crash_words(du.mode),
           amber_pm_power_loss_words(&du.m, du.mode));
    return 0;
  }
  char who[160];
  amber_heap_owner_text((unsigned)sb.st_uid, (unsigned)(sb.st_mode & 07777), who, sizeof who);
  printf("heap         %s\n", path);
  printf("live         busy: process %d changed the file during each of %d reads, so there is no copy to read: below, what the "
         "file fixes at creation and the program's own counters; the objects, the root, the state and the ORDO record are left "
         "out (try again when it is less busy)\n",
         v->holder, amber_view_copy_tries());
  printf("owner        %s\n", who);
  printf("version      %u\n", a.version);
  printf("engine       %s\n", engine);
  printf("uuid         %s\n", uuid);
  printf("base         0x%llx\n", (unsigned long long)a.base);
  printf("data         %llu bytes (file %llu bytes, engine area %llu bytes)\n", (unsigned long long)a.data_size,
         (unsigned long long)a.file_size, (unsigned long long)a.engine_size);
  printf("durability   %s\n", du.line);
  printf("counters     process %d's, as it publishes them (amber stats --pid %d):\n", v->holder, v->holder);
  fflush(stdout);
  if (amber_stats_live_counters(v->holder, counters, 0, &real) != 0) {
    printf("             none: the process publishes none (above)\n");
    return 2;
  }
  return 0;
}

static int cmd_info(int argc, char **argv) {
  const char *path;
  int json;
  if (heap_args("info", argc, argv, &path, &json)) return 2;
  struct amber_heap h;
  struct amber_view v;
  int rc = amber_view_open(path, &h, &v, 1);
  if (rc) return v.busy ? info_busy(path, &v, json) : 2;
  const struct amber_header *hd = &h.hdr;
  const struct amber_data_header *dh = amber_heap_dh(&h);
  size_t objs = 0, bytes = 0;
  int bad = amber_alloc_check(&h, h.data, &objs, &bytes);
  char uuid[40];
  for (int i = 0; i < 16; i++) sprintf(uuid + 2 * i, "%02x", hd->uuid[i]);
  const char *state = v.clean ? "clean" : "dirty";
  const struct amber_ordo_record *o = amber_ordo_record_current(&h);
  struct amber_ordo_record none;
  memset(&none, 0, sizeof none);
  if (!o) o = &none;
  struct durability du;
  durability_of(v.src_fd >= 0 ? v.src_fd : h.fd, &du);
  char model[sizeof o->fp.model + 1];
  memcpy(model, o->fp.model, sizeof o->fp.model);
  model[sizeof o->fp.model] = 0;
  char who[160];
  amber_heap_owner_text(h.owner_uid, h.mode, who, sizeof who);
  if (json) {
    printf("{\"path\": ");
    amber_stats_json_str(stdout, h.path);
    printf(", \"owner_uid\": %u, \"mode\": \"%04o\"", h.owner_uid, h.mode);
    printf(", \"version\": %u, \"engine\": \"%s\", \"uuid\": \"%s\", \"base\": \"0x%llx\", "
           "\"data_bytes\": %llu, \"file_bytes\": %llu, \"engine_area_bytes\": %llu, \"journal_bytes\": %llu, "
           "\"journal_entries\": %llu, \"used_objects\": %zu, \"used_bytes\": %zu, "
           "\"roots\": %d, \"root_offset\": %llu, \"root_bytes\": %llu, "
           "\"threads\": {\"persistent_table\": false, \"entries_in_use\": 0, \"log_areas\": null}, "
           "\"state\": \"%s\", \"recovery_pending\": %s, \"opens\": %llu, \"damaged\": %s, "
           "\"ordo\": {\"present\": %s, \"mode\": \"%s\", \"boundary_cycles\": %llu, \"cpus\": %u, \"tsc_khz\": %llu, \"model\": ",
           hd->version, h.engine->name, uuid, (unsigned long long)hd->base, (unsigned long long)hd->data_size,
           (unsigned long long)hd->file_size, (unsigned long long)hd->engine_size, (unsigned long long)hd->journal_size,
           (unsigned long long)(h.journal_replayed + h.journal_pending), objs, bytes, dh->root_off ? 1 : 0,
           (unsigned long long)dh->root_off, (unsigned long long)dh->root_size, state, v.pending ? "true" : "false",
           (unsigned long long)v.opens, bad ? "true" : "false", o == &none ? "false" : "true", amber_ordo_mode_name((int)o->mode),
           (unsigned long long)o->boundary, o->fp.ncpus, (unsigned long long)o->fp.tsc_khz);
    amber_stats_json_str(stdout, model);
    printf(", \"offset\": %llu, \"floor\": %llu, \"seq\": %llu, \"how\": \"%s\", \"provisional\": %s}",
           (unsigned long long)o->offset, (unsigned long long)o->floor, (unsigned long long)o->seq,
           amber_ordo_record_how_name(o->how.how), o->how.flags & AMBER_ORDO_PROVISIONAL ? "true" : "false");
    amber_pending_json(stdout, v.pending_txns, v.pending_ckpts, v.left_out);
    printf(", \"live\": %s", v.live ? "true" : "false");
    if (v.live) printf(", \"live_pid\": %d, \"as_of_ns\": %llu, \"copy_reads\": %d", v.holder, (unsigned long long)v.as_of, v.passes);
    /* The same keys as the statistics' (runtime/stats.c). */
    printf(", \"pm\": \"%s\", \"pm_auto\": %s, \"medium\": \"%s\", \"medium_fs\": ", amber_pm_mode_names[du.mode],
           du.is_auto ? "true" : "false", amber_pm_medium_name[du.m.kind]);
    amber_stats_json_str(stdout, du.m.fs);
    printf(", \"medium_simulated\": %s, \"map_sync\": %s, \"process_crash\": \"%s\", \"power_loss\": \"%s\"}\n",
           du.m.simulated ? "true" : "false", du.m.map_sync ? "true" : "false", amber_pm_process_crash_words(du.mode),
           amber_pm_power_loss_words(&du.m, du.mode));
  } else {
    printf("heap         %s\n", h.path);
    if (v.live) {
      char lw[256];
      amber_view_live_words(&v, lw, sizeof lw);
      printf("live         %s\n", lw);
    }
    printf("owner        %s\n", who);
    printf("version      %u\n", hd->version);
    printf("engine       %s\n", h.engine->name);
    printf("uuid         %s\n", uuid);
    printf("base         0x%llx\n", (unsigned long long)hd->base);
    printf("data         %llu bytes (file %llu bytes, engine area %llu bytes)\n", (unsigned long long)hd->data_size,
           (unsigned long long)hd->file_size, (unsigned long long)hd->engine_size);
    if (!hd->journal_size) printf("journal      none (a sync of several ranges writes each where it lies)\n");
    else if (h.journal_replayed + h.journal_pending)
      printf("journal      %llu bytes; %llu entries the next open replays (shown applied)\n", (unsigned long long)hd->journal_size,
             (unsigned long long)(h.journal_replayed + h.journal_pending));
    else printf("journal      %llu bytes, empty\n", (unsigned long long)hd->journal_size);
    printf("used         %zu objects, %zu bytes%s\n", objs, bytes, bad ? " (the allocator metadata is damaged: run amber check)" : "");
    if (dh->root_off) printf("root         offset 0x%llx, %llu bytes\n", (unsigned long long)dh->root_off, (unsigned long long)dh->root_size);
    else printf("root         none\n");
    printf("threads      no thread table in layout version %u; per-thread log areas: none the %s engine exposes\n", hd->version,
           h.engine->name);
    char pend[512];
    amber_pending_words(pend, sizeof pend, h.path, v.pending_txns, v.pending_ckpts, v.left_out);
    printf("state        %s (opened %llu time%s)%s\n", state, (unsigned long long)v.opens, v.opens == 1 ? "" : "s",
           v.left_out  ? "; recovery is pending: usage shown without the transactions left out below"
           : v.pending ? "; recovery is pending: usage shown as recovery will leave it"
                       : "");
    if (v.pending_txns || v.pending_ckpts || v.left_out) printf("recovery     %s\n", pend);
    if (o == &none) printf("ordo         no record yet (written when a program opens the heap)\n");
    else
      printf("ordo         %s clock, boundary %llu cycles measured on %u CPUs at %llu kHz (%s); offset %llu, floor %llu, write %llu\n"
             "             %s%s (amber ordo %s shows how)\n",
             amber_ordo_mode_name((int)o->mode), (unsigned long long)o->boundary, o->fp.ncpus,
             (unsigned long long)o->fp.tsc_khz, model, (unsigned long long)o->offset, (unsigned long long)o->floor,
             (unsigned long long)o->seq, amber_ordo_record_how_name(o->how.how),
             o->how.flags & AMBER_ORDO_PROVISIONAL ? ", provisional: the next open measures again" : "", h.path);
    printf("durability   %s\n", du.line);
  }
  amber_view_close(&h, &v);
  return bad ? 1 : v.left_out ? AMBER_EXIT_INCOMPLETE : 0;
}

/* check and recover on a heap a running program holds. */
static void refuse_live(const char *cmd, const char *path, int holder) {
  char who[48] = "another process";
  if (holder) snprintf(who, sizeof who, "process %d", holder);
  amber_error("%s: heap %s is in use by %s: %s needs a heap no program has open (%s); stop that program first, or use amber "
              "info, stats or dump %s for a read-only view of it while it runs",
              cmd, path, who, cmd,
              !strcmp(cmd, "check") ? "the running program's transactions in flight would read as damage"
                                    : "recovery writes the heap the program is using",
              path);
}

static int cmd_check(int argc, char **argv) {
  const char *path;
  int json;
  if (heap_args("check", argc, argv, &path, &json)) return 2;
  struct amber_check_report r;
  int rc, holder;
  if (amber_heap_is_live(path, &holder)) {
    /* A heap a program is writing: its half-written transactions and
     * unwritten-back versions would read as damage.  amber info, stats and
     * dump show a read-only view of it instead. */
    refuse_live("check", path, holder);
    memset(&r, 0, sizeof r);
    rc = 2;
  } else rc = amber_check_path_report(path, json, &r);
  if (json) {
    static const char *const verdict[] = {"consistent", "damaged", "unusable", "incomplete"};
    printf("{\"path\": ");
    amber_stats_json_str(stdout, path);
    printf(", \"status\": %d, \"result\": \"%s\", \"problems\": %d", rc, verdict[rc], r.problems);
    if (r.engine) printf(", \"owner_uid\": %u, \"mode\": \"%04o\"", r.owner_uid, r.mode);
    if (r.engine)
      printf(", \"engine\": \"%s\", \"state\": \"%s\", \"recovery_pending\": %s, \"used_objects\": %zu, \"used_bytes\": %zu, "
             "\"data_bytes\": %llu, \"roots\": %d, \"root_offset\": %llu, \"root_bytes\": %llu",
             r.engine, r.clean ? "clean" : "dirty", r.pending ? "true" : "false", r.objects, r.bytes, (unsigned long long)r.data_size,
             r.root_off ? 1 : 0, (unsigned long long)r.root_off, (unsigned long long)r.root_size);
    if (r.engine) amber_pending_json(stdout, r.pending_txns, r.pending_ckpts, r.left_out);
    printf("}\n");
  }
  return rc;
}

/* amber recover HEAP --with PROGRAM: PROGRAM (the build that wrote the
 * heap's operational records) recovers it with AMBER_RECOVER_ONLY=1 and
 * ends before its main; its exit status is returned. */
static int recover_with(const char *heap, const char *program) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return amber_error("recover: cannot start %s: %s", program, strerror(errno)), 2;
  if (pid == 0) {
    setenv("AMBER_HEAP", heap, 1);
    setenv("AMBER_RECOVER_ONLY", "1", 1);
    execl(program, program, (char *)NULL);
    amber_error("recover --with %s: cannot run it: %s; name the program (built with amber-cc) that wrote the heap's "
                "operational records",
                program, strerror(errno));
    _exit(127);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return amber_error("recover: waiting for %s: %s", program, strerror(errno)), 2;
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
  if (WIFEXITED(st) && WEXITSTATUS(st) == 127) return 2;
  amber_error("recover --with %s: it did not recover heap %s (%s %d; its messages are above); the heap is as it was before "
              "the failed step (recovery is idempotent and survives a crash in itself)",
              program, heap, WIFEXITED(st) ? "exit status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
  return 2;
}

static int cmd_recover(int argc, char **argv) {
  const char *path = NULL, *with = NULL;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--with") && i + 1 < argc) with = argv[++i];
    else if (argv[i][0] == '-' && argv[i][1])
      return amber_error("recover: unknown option '%s'; use amber recover HEAP [--with PROGRAM]", argv[i]), 2;
    else if (path) return amber_error("recover: one heap at a time ('%s' and '%s')", path, argv[i]), 2;
    else path = argv[i];
  }
  if (!path) {
    usage(stderr);
    return 2;
  }
  int holder;
  if (amber_heap_is_live(path, &holder)) {
    refuse_live("recover", path, holder);
    return 2;
  }
  if (with) {
    if (access(path, F_OK) != 0) return amber_error("recover: heap %s: %s", path, strerror(errno)), 2;
    int rc = recover_with(path, with);
    if (rc) return rc;
  }
  struct amber_heap h;
  /* Recovery writes the heap: this user's own, unless AMBER_HEAP_SHARED=1. */
  if (amber_engine_heap_open(path, AMBER_OPEN_WRITE | AMBER_OPEN_LOCK | (amber_opt.heap_shared ? 0 : AMBER_OPEN_OWNED), &h))
    return 2;
  h.engine->recover(&h);
  /* What recovery left is what the next program will use. */
  if (amber_alloc_validate_image(&h, h.data) != 0) {
    amber_heap_unmap(&h);
    return 1;
  }
  if (with) printf("%s: recovered by %s\n", h.path, with);
  else printf("%s: recovered (%llu committed transactions applied)\n", h.path, (unsigned long long)h.pending_txns);
  amber_heap_unmap(&h);
  return 0;
}

int main(int argc, char **argv) {
  /* A heap page its file cannot give (full file system, truncated file)
   * is an amber: error:, not a bare "Bus error". */
  amber_heap_fault_guard(1);
  amber_options_load();
  /* amber check, info and stats recover on a private copy of the heap:
   * nothing there is worth flushing, and no crash injection or simulation
   * applies to it. */
  if (argc > 1 && (!strcmp(argv[1], "check") || !strcmp(argv[1], "info") || !strcmp(argv[1], "stats") ||
                    !strcmp(argv[1], "dump"))) {
    /* A misspelt AMBER_PM is still an error (amber_pm_init says so). */
    enum amber_pm_mode m;
    int is_auto;
    requested_pm = amber_opt.pm;
    if (amber_pm_mode_parse(amber_opt.pm, &m, &is_auto) == 0) amber_opt.pm = "none";
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
  if (!strcmp(c, "--version") || !strcmp(c, "version")) {
    /* What a bug report needs: the release, and the formats it reads and
     * writes (a heap of another layout is refused; a program built for
     * another ABI too). */
    printf("amber %s (heap layout version %u, pass ABI version %u, LLVM %d)\n", AMBER_VERSION, AMBER_FORMAT_VERSION,
           AMBER_ABI_VERSION, AMBER_LLVM_MAJOR);
    return 0;
  }
  if (!strcmp(c, "--help-options") || !strcmp(c, "help-options")) {
    amber_options_print(stdout, argc > 2 && !strcmp(argv[2], "--markdown"));
    return 0;
  }
  if (!strcmp(c, "create")) return cmd_create(argc - 2, argv + 2);
  if (!strcmp(c, "info")) return cmd_info(argc - 2, argv + 2);
  if (!strcmp(c, "check")) return cmd_check(argc - 2, argv + 2);
  if (!strcmp(c, "recover")) return cmd_recover(argc - 2, argv + 2);
  if (!strcmp(c, "stats")) return amber_cmd_stats(argc - 2, argv + 2);
  if (!strcmp(c, "dump")) return amber_cmd_dump(argc - 2, argv + 2);
  if (!strcmp(c, "ordo")) return amber_cmd_ordo(argc - 2, argv + 2);
  if (!strcmp(c, "plant-sites")) return amber_cmd_plant_sites(argc - 2, argv + 2);
  if (!strcmp(c, "path")) return amber_cmd_path(argc - 2, argv + 2);
  amber_error("unknown command '%s'; run amber --help", c);
  return 2;
}
