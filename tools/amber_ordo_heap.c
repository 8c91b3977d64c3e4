/* amber ordo HEAP [--json]: the heap's stored ORDO boundary and how it was
 * obtained (docs/ordo.md); reads the heap, measures nothing. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "amber_tool.h"
#include "base/diag.h"
#include "heap/ordo_record.h"
#include "ordo/calibrate.h"
#include "ordo/check.h"
#include "ordo/ordo.h"
#include "stats.h"

static const char *when(uint64_t unix_ns, char *buf, size_t len) {
  time_t t = (time_t)(unix_ns / 1000000000ull);
  struct tm tm;
  if (!unix_ns || !gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm)) snprintf(buf, len, "unknown time");
  return buf;
}

static double ns(uint64_t cycles, uint64_t khz) {
  return khz ? (double)cycles * 1e6 / (double)khz : 0.0;
}

static void print_json(const char *path, const struct amber_ordo_record *o) {
  const struct amber_ordo_provenance *p = &o->how;
  char model[sizeof o->fp.model + 1];
  memcpy(model, o->fp.model, sizeof o->fp.model);
  model[sizeof o->fp.model] = 0;
  printf("{\"path\": ");
  amber_stats_json_str(stdout, path);
  printf(", \"present\": true, \"mode\": \"%s\", \"boundary_cycles\": %llu, \"boundary_ns\": %.1f, \"how\": \"%s\", "
         "\"provisional\": %s, \"measured_unix_ns\": %llu, \"replaced_cycles\": %llu, \"contradicted_by_cycles\": %llu, "
         "\"pair\": [%d, %d], \"rtt_cycles\": %llu, \"pairs\": %u, \"pairs_planned\": %u, \"sessions\": %u, "
         "\"disturbed_sessions\": %u, \"calibration_ms\": %.2f, \"checks\": %u, \"last_check\": {\"done\": %s, \"clean\": %s, "
         "\"value_cycles\": %llu, \"rtt_cycles\": %llu, \"unix_ns\": %llu}, \"cpus\": %u, \"tsc_khz\": %llu, \"model\": ",
         amber_ordo_mode_name((int)o->mode), (unsigned long long)o->boundary, ns(o->boundary, o->fp.tsc_khz),
         amber_ordo_record_how_name(p->how), p->flags & AMBER_ORDO_PROVISIONAL ? "true" : "false",
         (unsigned long long)p->measured_unix_ns, (unsigned long long)p->replaced, (unsigned long long)p->contradicted_by,
         p->cpu_a, p->cpu_b, (unsigned long long)p->rtt, p->pairs, p->planned, p->sessions, p->unclean,
         (double)p->elapsed_ns / 1e6, p->checks, p->check_flags & AMBER_ORDO_CHECK_DONE ? "true" : "false",
         p->check_flags & AMBER_ORDO_CHECK_CLEAN ? "true" : "false", (unsigned long long)p->check_value,
         (unsigned long long)p->check_rtt, (unsigned long long)p->check_unix_ns, o->fp.ncpus,
         (unsigned long long)o->fp.tsc_khz);
  amber_stats_json_str(stdout, model);
  printf("}\n");
}

static void print_text(const char *path, const struct amber_ordo_record *o) {
  const struct amber_ordo_provenance *p = &o->how;
  uint64_t khz = o->fp.tsc_khz;
  char t[64];
  printf("heap           %s\n", path);
  printf("clock          %s (the last program's)\n", amber_ordo_mode_name((int)o->mode));
  if (!o->boundary) {
    printf("boundary       none stored (the logical clock, or AMBER_ORDO_BOUNDARY, needed none)\n");
    return;
  }
  printf("boundary       %llu cycles (%.1f ns at %llu kHz), stored\n", (unsigned long long)o->boundary, ns(o->boundary, khz),
         (unsigned long long)khz);
  printf("obtained       %s, %s\n", amber_ordo_record_how_name(p->how), when(p->measured_unix_ns, t, sizeof t));
  if (p->how == AMBER_ORDO_HOW_CONTRADICTED)
    printf("replaced       %llu cycles: a check at open measured CPUs %d and %d at %llu cycles\n", (unsigned long long)p->replaced,
           p->cpu_a, p->cpu_b, (unsigned long long)p->contradicted_by);
  else if (p->replaced)
    printf("replaced       %llu cycles\n", (unsigned long long)p->replaced);
  printf("measurement    %u of %u CPU pairs, %u session%s (%u disturbed: no round trip under %.0f us) in %.1f ms\n", p->pairs,
         p->planned, p->sessions, p->sessions == 1 ? "" : "s", p->unclean, (double)AMBER_ORDO_CLEAN_RTT_NS / 1e3,
         (double)p->elapsed_ns / 1e6);
  if (p->cpu_a >= 0)
    printf("largest        CPUs %d and %d, shortest round trip %llu cycles (%.1f ns)\n", p->cpu_a, p->cpu_b,
           (unsigned long long)p->rtt, ns(p->rtt, khz));
  if (p->flags & AMBER_ORDO_PROVISIONAL)
    printf("provisional    not confirmed (a pair had no undisturbed round trip, or the time cap left pairs unmeasured): the next open measures again\n");
  if (p->check_flags & AMBER_ORDO_CHECK_DONE)
    printf("last check     %s: CPUs %d and %d measured %llu cycles, round trip %llu (%s): consistent; %u check%s since the measurement\n",
           when(p->check_unix_ns, t, sizeof t), p->cpu_a, p->cpu_b, (unsigned long long)p->check_value,
           (unsigned long long)p->check_rtt, p->check_flags & AMBER_ORDO_CHECK_CLEAN ? "clean" : "disturbed", p->checks,
           p->checks == 1 ? "" : "s");
  else if (o->boundary * 1000000ull <= AMBER_ORDO_CHECK_ABOVE_NS * khz)
    printf("last check     none needed: opens check a stored value above %.0f us only\n", (double)AMBER_ORDO_CHECK_ABOVE_NS / 1e3);
  else if (p->checks)
    printf("last check     none at the last open (CPUs %d and %d not usable, or AMBER_ORDO_BOUNDARY set); %u check%s since the measurement\n",
           p->cpu_a, p->cpu_b, p->checks, p->checks == 1 ? "" : "s");
  else
    printf("last check     none yet (each open checks a stored value above %.0f us)\n", (double)AMBER_ORDO_CHECK_ABOVE_NS / 1e3);
  char model[sizeof o->fp.model + 1];
  memcpy(model, o->fp.model, sizeof o->fp.model);
  model[sizeof o->fp.model] = 0;
  printf("machine        %s, %u CPUs, TSC %llu kHz\n", model, o->fp.ncpus, (unsigned long long)khz);
}

int amber_cmd_ordo_heap(const char *path, int json) {
  struct amber_heap h;
  struct amber_view v;
  if (amber_view_open(path, &h, &v, 0)) return 2;
  const struct amber_ordo_record *o = amber_ordo_record_current(&h);
  if (!o) {
    if (json) {
      printf("{\"path\": ");
      amber_stats_json_str(stdout, h.path);
      printf(", \"present\": false}\n");
    } else {
      printf("heap           %s\nboundary       no record yet (written when a program opens the heap)\n", h.path);
    }
  } else if (json) {
    print_json(h.path, o);
  } else {
    print_text(h.path, o);
  }
  amber_view_close(&h, &v);
  return 0;
}
