/* The runtime's statistics (AMBER_STATS, AMBER_STATS_FILE,
 * amber_stats_print): commits, aborts, flushes and fences by category, stray
 * stores, the clock and the engine's own figures. */
#include "stats.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "amber.h"
#include "base/diag.h"
#include "base/options.h"
#include "entry/stray.h"
#include "ordo/ordo.h"
#include "pm/durability.h"
#include "pm/msync.h"
#include "pm/pm.h"
#include "tx/tx.h"

struct totals {
  uint64_t update, readonly, aborts[AMBER_ABORT_NREASONS], stored, ro_fences, ro_flushes;
  struct amber_pm_counters pm;
};

static void sum(struct totals *s) {
  memset(s, 0, sizeof *s);
  for (struct amber_thread *t = amber_threads(); t; t = t->next_thread) {
    s->update += t->update_commits;
    s->readonly += t->readonly_commits;
    for (int i = 0; i < AMBER_ABORT_NREASONS; i++) s->aborts[i] += t->aborts[i];
    s->stored += t->stored_bytes;
    s->ro_fences += t->readonly_fences;
    s->ro_flushes += t->readonly_flushes;
  }
  amber_pm_counters_sum(&s->pm);
}

static double per(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0.0; }

/* The statistics' key of each abort reason (aborts_KEY), in enum order. */
static const char *const abort_reason_key[AMBER_ABORT_NREASONS] = {
    [AMBER_ABORT_UPGRADE] = "upgrade",         [AMBER_ABORT_CONFLICT] = "conflict", [AMBER_ABORT_VALIDATION] = "validation",
    [AMBER_ABORT_FUTURE] = "future",           [AMBER_ABORT_CAPACITY] = "capacity", [AMBER_ABORT_IRREVOCABLE] = "irrevocable",
    [AMBER_ABORT_RETRY] = "retry",             [AMBER_ABORT_CANCEL] = "cancel",     [AMBER_ABORT_READLOG] = "readlog",
    [AMBER_ABORT_STALE] = "stale"};

void amber_stats_json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    if (*c == '"' || *c == '\\') fprintf(f, "\\%c", *c);
    else if (*c == '\n') fputs("\\n", f);
    else if (*c == '\t') fputs("\\t", f);
    else if (*c < 0x20) fprintf(f, "\\u%04x", *c);
    else fputc(*c, f);
  }
  fputc('"', f);
}

/* Stray stores: persistent writes outside regions (access.c), and the
 * batches they committed in (tx/batch.c). */
static void stray_write(FILE *f, int json) {
  struct amber_stray_site sites[AMBER_STRAY_SITES];
  uint64_t unlisted, total = amber_stray_stores(&unlisted), batches = 0;
  for (struct amber_thread *t = amber_threads(); t; t = t->next_thread) batches += t->batch_commits;
  size_t n = amber_stray_sites(sites, AMBER_STRAY_SITES);
  if (json) {
    fprintf(f, ", \"stray_stores\": %llu, \"stray_batches\": %llu, \"stray_store_sites\": [", (unsigned long long)total,
            (unsigned long long)batches);
    for (size_t i = 0; i < n; i++) {
      fprintf(f, "%s{\"site\": ", i ? ", " : "");
      amber_stats_json_str(f, sites[i].site);
      fprintf(f, ", \"count\": %llu}", (unsigned long long)sites[i].count);
    }
    fprintf(f, "], \"stray_stores_unlisted\": %llu", (unsigned long long)unlisted);
    return;
  }
  fprintf(f, "  stray stores       %llu (persistent writes outside regions, committed in %llu batches)\n",
          (unsigned long long)total, (unsigned long long)batches);
  for (size_t i = 0; i < n; i++) fprintf(f, "    %-30s %llu\n", sites[i].site, (unsigned long long)sites[i].count);
  if (unlisted) fprintf(f, "    %-30s %llu\n", "(other sites)", (unsigned long long)unlisted);
}

/* The heap's medium, the backend and what each failure keeps (pm/durability.h). */
static void durability_write(FILE *f, int json) {
  const struct amber_pm_medium *m = amber_pm_medium();
  if (!json) {
    char line[256];
    amber_pm_describe_open(line, sizeof line);
    fprintf(f, "  durability         %s\n", line);
    return;
  }
  fprintf(f, ", \"pm_auto\": %s", amber_pm_auto() ? "true" : "false");
  if (!m) {
    fprintf(f, ", \"medium\": null");
    return;
  }
  fprintf(f, ", \"medium\": \"%s\", \"medium_fs\": ", amber_pm_medium_name[m->kind]);
  amber_stats_json_str(f, m->fs);
  fprintf(f, ", \"medium_simulated\": %s, \"map_sync\": %s, \"process_crash\": \"%s\", \"power_loss\": \"%s\"",
          m->simulated ? "true" : "false", m->map_sync ? "true" : "false", amber_pm_process_crash_words(amber_pm_mode()),
          amber_pm_power_loss_words(m, amber_pm_mode()));
}

void amber_stats_write(FILE *f, int json) {
  struct totals s;
  sum(&s);
  uint64_t fl = 0, fe = 0;
  for (int i = 0; i < AMBER_PM_NCAT; i++) {
    fl += s.pm.flushes[i];
    fe += s.pm.fences[i];
  }
  uint64_t aborts = 0;
  for (int i = 0; i < AMBER_ABORT_NREASONS; i++) aborts += s.aborts[i];
  const char *eng = amber_tx_engine ? amber_tx_engine->name : "none";
  /* Slow-PM emulation: the busy-wait is exactly this much, by construction. */
  uint64_t wns = amber_opt.pm_write_ns, fns = amber_opt.pm_fence_ns;
  uint64_t delay = amber_pm_emulating() ? fl * wns + fe * fns : 0;
  if (json) {
    fprintf(f, "{\"engine\": \"%s\", \"pm\": \"%s\", \"commits\": %llu, \"update_commits\": %llu, \"readonly_commits\": %llu, "
               "\"aborts\": %llu, \"aborts_upgrade\": %llu, \"flushes\": %llu, \"fences\": %llu, "
               "\"flushes_per_update_txn\": %.3f, \"fences_per_update_txn\": %.3f, \"stored_bytes\": %llu, "
               "\"flushed_bytes\": %llu, \"write_amplification\": %.3f, \"pm_write_ns\": %llu, \"pm_fence_ns\": %llu, "
               "\"emulated_delay_ns\": %llu",
            eng, amber_pm_mode_name(), (unsigned long long)(s.update + s.readonly), (unsigned long long)s.update,
            (unsigned long long)s.readonly, (unsigned long long)aborts, (unsigned long long)s.aborts[AMBER_ABORT_UPGRADE],
            (unsigned long long)fl, (unsigned long long)fe, per(fl, s.update), per(fe, s.update),
            (unsigned long long)s.stored, (unsigned long long)s.pm.flushed_bytes, per(s.pm.flushed_bytes, s.stored),
            (unsigned long long)wns, (unsigned long long)fns, (unsigned long long)delay);
    fprintf(f, ", \"syncs\": %llu, \"syncs_per_update_txn\": %.3f", (unsigned long long)s.pm.syncs, per(s.pm.syncs, s.update));
    fprintf(f, ", \"sync_gathers\": %llu, \"sync_gathers_complete\": %llu, \"sync_gathers_bounded\": %llu",
            (unsigned long long)s.pm.sync_gathers[0], (unsigned long long)s.pm.sync_gathers[1],
            (unsigned long long)s.pm.sync_gathers[2]);
    fprintf(f, ", \"sync_several\": \"%s\", \"sync_several_ranges\": %llu, \"sync_several_fdatasync\": %llu, "
               "\"sync_ranges_written\": %llu, \"sync_ns\": %llu, \"sync_gather_ns\": %llu",
            amber_msync_several_name[amber_msync_several()], (unsigned long long)s.pm.sync_steps[0],
            (unsigned long long)s.pm.sync_steps[1], (unsigned long long)s.pm.sync_steps[2],
            (unsigned long long)s.pm.sync_steps[3], (unsigned long long)s.pm.sync_steps[4]);
    uint64_t jc[3];
    amber_msync_journal_counts(jc);
    fprintf(f, ", \"sync_journal_syncs\": %llu, \"sync_journal_bytes\": %llu, \"sync_journal_full\": %llu",
            (unsigned long long)jc[0], (unsigned long long)jc[1], (unsigned long long)jc[2]);
    durability_write(f, 1);
    fprintf(f, ", \"fences_per_readonly_txn\": %.3f, \"flushes_per_readonly_txn\": %.3f", per(s.ro_fences, s.readonly),
            per(s.ro_flushes, s.readonly));
    /* aborts_upgrade is above, with the totals. */
    for (int i = AMBER_ABORT_UPGRADE + 1; i < AMBER_ABORT_NREASONS; i++)
      fprintf(f, ", \"aborts_%s\": %llu", abort_reason_key[i], (unsigned long long)s.aborts[i]);
    for (int i = 0; i < AMBER_PM_NCAT; i++)
      fprintf(f, ", \"flushes_%s\": %llu, \"fences_%s\": %llu", amber_pm_cat_name[i], (unsigned long long)s.pm.flushes[i],
              amber_pm_cat_name[i], (unsigned long long)s.pm.fences[i]);
    stray_write(f, 1);
    if (amber_tx_engine && amber_tx_engine->stats) amber_tx_engine->stats(f, 1);
    fprintf(f, ", \"clock\": \"%s\", \"ordo_boundary_cycles\": %llu, \"ordo_boundary_ns\": %.1f}\n",
            amber_ordo_mode_name(amber_ordo_clk.mode), (unsigned long long)amber_ordo_clk.boundary,
            amber_ordo_cycles_to_ns(amber_ordo_clk.boundary));
    return;
  }
  fprintf(f, "amber stats (engine %s, pm %s)\n", eng, amber_pm_mode_name());
  durability_write(f, 0);
  fprintf(f, "  commits            %llu (update %llu, read-only %llu)\n", (unsigned long long)(s.update + s.readonly),
          (unsigned long long)s.update, (unsigned long long)s.readonly);
  fprintf(f, "  aborts             %llu (upgrade to writer %llu, lock conflict %llu, validation %llu, future read %llu, capacity %llu, "
             "irrevocable %llu, amber_retry %llu, amber_cancel %llu, unlogged reads %llu, stale recent start %llu)\n",
          (unsigned long long)aborts, (unsigned long long)s.aborts[AMBER_ABORT_UPGRADE],
          (unsigned long long)s.aborts[AMBER_ABORT_CONFLICT], (unsigned long long)s.aborts[AMBER_ABORT_VALIDATION],
          (unsigned long long)s.aborts[AMBER_ABORT_FUTURE], (unsigned long long)s.aborts[AMBER_ABORT_CAPACITY],
          (unsigned long long)s.aborts[AMBER_ABORT_IRREVOCABLE], (unsigned long long)s.aborts[AMBER_ABORT_RETRY],
          (unsigned long long)s.aborts[AMBER_ABORT_CANCEL], (unsigned long long)s.aborts[AMBER_ABORT_READLOG],
          (unsigned long long)s.aborts[AMBER_ABORT_STALE]);
  fprintf(f, "  flushes            %llu (%.2f per update txn)\n", (unsigned long long)fl, per(fl, s.update));
  fprintf(f, "  fences             %llu (%.2f per update txn; read-only txns issued %llu, %.2f each)\n", (unsigned long long)fe,
          per(fe, s.update), (unsigned long long)s.ro_fences, per(s.ro_fences, s.readonly));
  if (s.pm.syncs || amber_pm_mode() == AMBER_PM_MODE_MSYNC)
    fprintf(f, "  syncs              %llu (%.2f per update txn; msync/fdatasync calls, shared by the fences that met)\n",
            (unsigned long long)s.pm.syncs, per(s.pm.syncs, s.update));
  if (s.pm.sync_gathers[0])
    fprintf(f, "  sync gathers       %llu (leaders that waited for threads in flight: %llu until all had committed, %llu "
               "until AMBER_PM_GROUP_WAIT's bound)\n",
            (unsigned long long)s.pm.sync_gathers[0], (unsigned long long)s.pm.sync_gathers[1],
            (unsigned long long)s.pm.sync_gathers[2]);
  if (s.pm.sync_steps[0] || s.pm.sync_steps[1])
    fprintf(f, "  several ranges     %llu syncs by sync_file_range + one msync (%llu ranges), %llu by fdatasync (%s)\n",
            (unsigned long long)s.pm.sync_steps[0], (unsigned long long)s.pm.sync_steps[2],
            (unsigned long long)s.pm.sync_steps[1], amber_msync_several_name[amber_msync_several()]);
  if (s.pm.syncs)
    fprintf(f, "  sync time          %.1f us per sync; leaders gathered %.1f us per sync\n",
            (double)s.pm.sync_steps[3] / 1e3 / (double)s.pm.syncs, (double)s.pm.sync_steps[4] / 1e3 / (double)s.pm.syncs);
  uint64_t jc[3];
  amber_msync_journal_counts(jc);
  if (jc[0] || jc[2])
    fprintf(f, "  sync journal       %llu syncs written there (%.1f KiB each), %llu times full (synced in place)\n",
            (unsigned long long)jc[0], jc[0] ? (double)jc[1] / 1024.0 / (double)jc[0] : 0.0, (unsigned long long)jc[2]);
  for (int i = 0; i < AMBER_PM_NCAT; i++)
    fprintf(f, "    %-12s     flushes %llu, fences %llu\n", amber_pm_cat_name[i], (unsigned long long)s.pm.flushes[i],
            (unsigned long long)s.pm.fences[i]);
  fprintf(f, "  stored bytes       %llu; flushed bytes %llu; write amplification %.2f\n", (unsigned long long)s.stored,
          (unsigned long long)s.pm.flushed_bytes, per(s.pm.flushed_bytes, s.stored));
  fprintf(f, "  emulated delay     %llu ns (AMBER_PM_WRITE_NS %llu per line, AMBER_PM_FENCE_NS %llu per fence%s)\n",
          (unsigned long long)delay, (unsigned long long)wns, (unsigned long long)fns,
          (wns | fns) && !amber_pm_emulating() ? "; not applied in this mode" : "");
  stray_write(f, 0);
  if (amber_tx_engine && amber_tx_engine->stats) amber_tx_engine->stats(f, 0);
  fprintf(f, "  clock              %s, ORDO boundary %llu cycles (%.1f ns, %s)\n", amber_ordo_mode_name(amber_ordo_clk.mode),
          (unsigned long long)amber_ordo_clk.boundary, amber_ordo_cycles_to_ns(amber_ordo_clk.boundary),
          amber_ordo_source_name(amber_ordo_clk.source));
}

/* The "tx" and "pm" groups of the live statistics (runtime/live.c): the
 * same counters as above, read while the program runs (each a plain load
 * of a counter its thread keeps adding to). */
void amber_stats_write_groups(FILE *f) {
  struct totals s;
  sum(&s);
  uint64_t fl = 0, fe = 0, aborts = 0, threads = 0;
  for (int i = 0; i < AMBER_PM_NCAT; i++) {
    fl += s.pm.flushes[i];
    fe += s.pm.fences[i];
  }
  for (int i = 0; i < AMBER_ABORT_NREASONS; i++) aborts += s.aborts[i];
  for (struct amber_thread *t = amber_threads(); t; t = t->next_thread) threads += !__atomic_load_n(&t->exited, __ATOMIC_RELAXED);
  fprintf(f, "\"tx\": {\"commits\": %llu, \"update_commits\": %llu, \"readonly_commits\": %llu, \"aborts\": %llu",
          (unsigned long long)(s.update + s.readonly), (unsigned long long)s.update, (unsigned long long)s.readonly,
          (unsigned long long)aborts);
  for (int i = 0; i < AMBER_ABORT_NREASONS; i++) fprintf(f, ", \"aborts_%s\": %llu", abort_reason_key[i], (unsigned long long)s.aborts[i]);
  fprintf(f, ", \"stored_bytes\": %llu, \"threads\": %llu}", (unsigned long long)s.stored, (unsigned long long)threads);
  fprintf(f, ", \"pm\": {\"backend\": \"%s\", \"flushes\": %llu, \"fences\": %llu, \"syncs\": %llu, \"flushed_bytes\": %llu, "
             "\"flushes_per_update_txn\": %.3f, \"fences_per_update_txn\": %.3f, \"write_amplification\": %.3f",
          amber_pm_mode_name(), (unsigned long long)fl, (unsigned long long)fe, (unsigned long long)s.pm.syncs,
          (unsigned long long)s.pm.flushed_bytes, per(fl, s.update), per(fe, s.update), per(s.pm.flushed_bytes, s.stored));
  for (int i = 0; i < AMBER_PM_NCAT; i++)
    fprintf(f, ", \"flushes_%s\": %llu, \"fences_%s\": %llu", amber_pm_cat_name[i], (unsigned long long)s.pm.flushes[i],
            amber_pm_cat_name[i], (unsigned long long)s.pm.fences[i]);
  fprintf(f, "}");
}

void amber_stats_print(void) { amber_stats_write(stderr, 0); }

/* The statistics are printed and written once: at exit, at amber_close, or
 * when a fatal signal ends the process. */
static int stats_done;

/* AMBER_STATS_FILE, or NULL when unset or empty. */
static const char *stats_file(void) {
  return amber_opt.stats_file_set && amber_opt.stats_file[0] ? amber_opt.stats_file : NULL;
}

int amber_stats_wanted(void) { return amber_opt.stats || stats_file(); }

void amber_stats_check_file(void) {
  const char *path = stats_file();
  if (!path) return;
  /* The file appears only when statistics are written (not, for one, when
   * the program's own handler takes a fatal signal): a file this makes to
   * show the path can be written is removed again.  A path that cannot be
   * written stops the program before its heap is touched, instead of an
   * error at exit after a run that counted for nothing. */
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) {
    close(fd);
    unlink(path);
    return;
  }
  if (errno == EEXIST && access(path, W_OK) == 0) return;
  amber_fatal("cannot write AMBER_STATS_FILE=%s: %s; check the directory exists and is writable, or unset AMBER_STATS_FILE", path,
              strerror(errno));
}

void amber_stats_at_exit(void) {
  if (__atomic_exchange_n(&stats_done, 1, __ATOMIC_ACQ_REL)) return;
  if (amber_opt.stats) amber_stats_print();
  if (stats_file()) {
    /* 0600, as every file the runtime makes: the figures are the program's. */
    int fd = open(stats_file(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
      if (fd >= 0) close(fd);
      amber_error("cannot write AMBER_STATS_FILE=%s; check the directory exists and is writable", amber_opt.stats_file);
      return;
    }
    amber_stats_write(f, 1);
    fclose(f);
  }
}

/* Fatal signals (wrappers/signals.c): the handler may interrupt malloc or
 * stdio, so it uses neither.  The text goes through an unbuffered
 * fmemopen stream on a static buffer, made before any signal can come, and
 * out with write(2); the file is opened with open(2).  Nothing here writes
 * the heap. */
static char sig_buf[16384];
static FILE *sig_stream;

void amber_stats_prepare_signal(void) {
  if (sig_stream || !amber_stats_wanted()) return;
  FILE *f = fmemopen(sig_buf, sizeof sig_buf, "w");
  if (f && setvbuf(f, NULL, _IONBF, 0) != 0) {
    fclose(f);
    f = NULL;
  }
  sig_stream = f;
}

static void signal_write(int fd, int json) {
  if (fseek(sig_stream, 0, SEEK_SET) != 0) return;
  amber_stats_write(sig_stream, json);
  long n = ftell(sig_stream);
  for (long done = 0; n > 0 && done < n;) {
    ssize_t w = write(fd, sig_buf + done, (size_t)(n - done));
    if (w <= 0) break;
    done += w;
  }
}

void amber_stats_at_signal(void) {
  if (!sig_stream || __atomic_exchange_n(&stats_done, 1, __ATOMIC_ACQ_REL)) return;
  if (amber_opt.stats) signal_write(2, 0);
  if (stats_file()) {
    int fd = open(stats_file(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
      static const char msg[] = "amber: error: cannot write AMBER_STATS_FILE; check the directory exists and is writable\n";
      ssize_t w = write(2, msg, sizeof msg - 1);
      (void)w;
      return;
    }
    signal_write(fd, 1);
    close(fd);
  }
}
