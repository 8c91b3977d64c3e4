/* amber ordo [--matrix] [--json] [--png FILE]: measures the ORDO boundary
 * of this machine and prints it (docs/ordo.md); amber ordo HEAP shows a
 * heap's stored one (amber_ordo_heap.c). */
#include "amber_ordo.h"
#include "amber_tool.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/diag.h"
#include "ordo/ordo.h"
#include "ordo/calibrate.h"

static double rdtscp_ns(void) {
  struct timespec a, b;
  enum { N = 200000 };
  uint64_t sink = 0;
  clock_gettime(CLOCK_MONOTONIC_RAW, &a);
  for (int i = 0; i < N; i++) sink += amber_ordo_rdtscp();
  clock_gettime(CLOCK_MONOTONIC_RAW, &b);
  __asm__ volatile("" : : "r"(sink));
  return ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / N;
}

static void print_json(FILE *f, const struct amber_ordo_calibration *c, int matrix, double call_ns) {
  fprintf(f, "{\"clock\": \"%s\", \"source\": \"%s\", \"boundary_cycles\": %llu, \"boundary_ns\": %.1f, \"tsc_khz\": %llu, "
             "\"rdtscp_ns\": %.2f, \"pairs\": %d, \"pairs_total\": %d, \"calibration_ms\": %.2f",
          amber_ordo_mode_name(amber_ordo_clk.mode), amber_ordo_source_name(amber_ordo_clk.source),
          (unsigned long long)amber_ordo_clk.boundary, amber_ordo_cycles_to_ns(amber_ordo_clk.boundary),
          (unsigned long long)amber_ordo_clk.tsc_khz, call_ns, c->pairs, c->pairs_total, (double)c->elapsed_ns / 1e6);
  if (c->sessions)
    fprintf(f, ", \"confirmed\": %s, \"sessions\": %d, \"disturbed_sessions\": %d, \"pair\": [%d, %d], \"rtt_cycles\": %llu, "
               "\"clean_rtt_cycles\": %llu",
            amber_ordo_calibration_confirmed(c) ? "true" : "false", c->sessions, c->unclean, c->cpu_a, c->cpu_b,
            (unsigned long long)c->rtt, (unsigned long long)c->clean_rtt);
  if (matrix) {
    fprintf(f, ", \"cpus\": [");
    for (int i = 0; i < c->ncpus; i++) fprintf(f, "%s%d", i ? ", " : "", c->cpus[i]);
    fprintf(f, "], \"matrix\": [");
    for (int i = 0; i < c->ncpus; i++) {
      fprintf(f, "%s[", i ? ", " : "");
      for (int j = 0; j < c->ncpus; j++) {
        int64_t v = c->offset[i * c->ncpus + j];
        if (v == AMBER_ORDO_UNMEASURED || v == INT64_MAX) fprintf(f, "%snull", j ? ", " : "");
        else fprintf(f, "%s%lld", j ? ", " : "", (long long)v);
      }
      fprintf(f, "]");
    }
    fprintf(f, "]");
  }
  fprintf(f, "}\n");
}

static void print_text(const struct amber_ordo_calibration *c, int matrix, double call_ns) {
  printf("clock          %s\n", amber_ordo_mode_name(amber_ordo_clk.mode));
  printf("boundary       %llu cycles (%.1f ns), %s", (unsigned long long)amber_ordo_clk.boundary,
         amber_ordo_cycles_to_ns(amber_ordo_clk.boundary), amber_ordo_source_name(amber_ordo_clk.source));
  if (c->pairs) printf(" over %d of %d CPU pairs in %.1f ms", c->pairs, c->pairs_total, (double)c->elapsed_ns / 1e6);
  printf("\n");
  if (c->sessions) {
    printf("sessions       %d (%d disturbed: no round trip under %llu cycles)%s\n", c->sessions, c->unclean,
           (unsigned long long)c->clean_rtt, amber_ordo_calibration_confirmed(c) ? "" : "; not confirmed");
    printf("largest        CPUs %d and %d, shortest round trip %llu cycles\n", c->cpu_a, c->cpu_b, (unsigned long long)c->rtt);
  }
  if (amber_ordo_clk.mode == AMBER_ORDO_TSC) {
    printf("tsc frequency  %llu kHz\n", (unsigned long long)amber_ordo_clk.tsc_khz);
    printf("rdtscp         %.1f ns per call\n", call_ns);
  }
  if (!matrix) return;
  printf("\noffsets in cycles: row = CPU that published, column = CPU that read (min over runs)\n%8s", "");
  for (int j = 0; j < c->ncpus; j++) printf(" %8d", c->cpus[j]);
  printf("\n");
  for (int i = 0; i < c->ncpus; i++) {
    printf("%8d", c->cpus[i]);
    for (int j = 0; j < c->ncpus; j++) {
      int64_t v = c->offset[i * c->ncpus + j];
      if (v == AMBER_ORDO_UNMEASURED || v == INT64_MAX) printf(" %8s", "-");
      else printf(" %8lld", (long long)v);
    }
    printf("\n");
  }
}

/* tools/ordo-heatmap next to the amber binary (installed) or in the source
 * tree (build tree). */
static int find_heatmap(char *buf, size_t len) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) {
      *slash = 0;
      snprintf(buf, len, "%s/ordo-heatmap", exe);
      if (access(buf, X_OK) == 0) return 0;
    }
  }
  snprintf(buf, len, "%s/ordo-heatmap", AMBER_TOOLS_DIR);
  return access(buf, X_OK);
}

static int write_png(const char *file, const struct amber_ordo_calibration *c, double call_ns) {
  char tool[PATH_MAX + 32], cmd[2 * PATH_MAX + 64];
  if (find_heatmap(tool, sizeof tool) != 0)
    return amber_error("cannot find tools/ordo-heatmap next to amber or in %s; reinstall amber", AMBER_TOOLS_DIR);
  if (strchr(file, '\''))
    return amber_error("--png %s: the file name contains a quote; choose another name", file);
  snprintf(cmd, sizeof cmd, "'%s' '%s'", tool, file);
  FILE *p = popen(cmd, "w");
  if (!p) return amber_error("cannot run %s: %s", tool, strerror(errno));
  print_json(p, c, 1, call_ns);
  int rc = pclose(p);
  if (rc != 0) return amber_error("%s could not write %s (status %d); check the directory is writable", tool, file, rc);
  return 0;
}

int amber_cmd_ordo(int argc, char **argv) {
  int matrix = 0, json = 0;
  const char *png = NULL, *heap = NULL;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--matrix")) matrix = 1;
    else if (!strcmp(argv[i], "--json")) json = 1;
    else if (!strcmp(argv[i], "--png") && i + 1 < argc) png = argv[++i];
    else if (argv[i][0] != '-' && !heap) heap = argv[i];
    else amber_fatal("ordo: unknown argument '%s'; use --matrix, --json, --png FILE, or HEAP [--json]", argv[i]);
  }
  if (heap && (matrix || png))
    amber_fatal("ordo %s: --matrix and --png measure this machine; a heap's stored boundary is shown with amber ordo HEAP [--json]", heap);
  if (heap) return amber_cmd_ordo_heap(heap, json);
  amber_ordo_init();
  struct amber_ordo_calibration c;
  memset(&c, 0, sizeof c);
  uint64_t b;
  int env = amber_ordo_env_boundary(&b) == 0;
  if (amber_ordo_clk.mode == AMBER_ORDO_TSC && (!env || matrix || png)) {
    if (amber_ordo_calibrate(&c) != 0) return 2;
    amber_ordo_set_boundary(c.boundary, AMBER_ORDO_SRC_MEASURED);
  }
  amber_ordo_ensure_boundary(); /* AMBER_ORDO_BOUNDARY, or the logical clock */
  if (env) amber_ordo_set_boundary(b, AMBER_ORDO_SRC_ENV);
  double call_ns = amber_ordo_clk.mode == AMBER_ORDO_TSC ? rdtscp_ns() : 0.0;
  if (json) print_json(stdout, &c, matrix && c.ncpus, call_ns);
  else print_text(&c, matrix && c.ncpus, call_ns);
  int rc = 0;
  if (png) {
    if (!c.ncpus) rc = amber_error("--png needs the pairwise measurement, which the %s clock does not have; use AMBER_CLOCK=tsc",
                                   amber_ordo_mode_name(amber_ordo_clk.mode));
    else rc = write_png(png, &c, call_ns);
  }
  amber_ordo_calibration_free(&c);
  return rc ? 2 : 0;
}
