/* ycsb_run.h: YCSB's operation mix and measured phase, shared by the amber
 * driver (bench/ycsb.c) and its PMDK port (bench/pmdk/ycsb.c), which differ
 * only in how the tree and the values are stored.  The includer defines,
 * before including it: `workload` ('a'..'f'), `zipf_n`, `yr` (with ->next),
 * ykey(), rnd_len(), SCAN_MAX, and the one-region operations op_read,
 * op_read_latest, op_scan, op_update, op_rmw and op_insert. */
#ifndef AMBER_BENCH_YCSB_RUN_H
#define AMBER_BENCH_YCSB_RUN_H

/* ---- the run phase ------------------------------------------------------- */
static int write_pct(int w) { return w == 'a' || w == 'f' ? 50 : w == 'c' ? 0 : 5; }

struct worker {
  struct bench_runner r; /* first: bench_run_timed's view */
  uint64_t ops, writes, inserts, hits, sum;
};

/* A zipfian record among the first zipf_n, its rank scattered. */
static inline long zipf_rec(uint64_t *s) { return (long)((bench_zipf_rank(s, zipf_n) * 2654435761ull) % zipf_n); }

static void *worker_run(void *arg) {
  struct worker *w = arg;
  uint64_t s = w->r.seed, ops = 0, writes = 0, inserts = 0, hits = 0, sum = 0;
  int wp = write_pct(workload);
  while (!bench_stop) {
    int write = (int)(bench_rnd(&s) % 100) < wp;
    ops++;
    switch (workload) {
    case 'd':
      if (write) op_insert((uint32_t)bench_rnd(&s), rnd_len(&s)), inserts++;
      else hits += (uint64_t)op_read_latest(bench_zipf_rank(&s, zipf_n), &sum);
      break;
    case 'e':
      if (write) op_insert((uint32_t)bench_rnd(&s), rnd_len(&s)), inserts++;
      else {
        long start = ykey(zipf_rec(&s));
        hits += (uint64_t)op_scan(start, 1 + (long)(bench_rnd(&s) % SCAN_MAX), &sum);
      }
      break;
    case 'f':
      if (write) hits += (uint64_t)op_rmw(ykey(zipf_rec(&s)), rnd_len(&s), &sum);
      else hits += (uint64_t)op_read(ykey(zipf_rec(&s)), &sum);
      break;
    default: /* a, b, c */
      if (write) {
        long key = ykey(zipf_rec(&s));
        hits += (uint64_t)op_update(key, (uint32_t)bench_rnd(&s), rnd_len(&s));
      } else {
        hits += (uint64_t)op_read(ykey(zipf_rec(&s)), &sum);
      }
    }
    writes += (uint64_t)write;
  }
  w->ops = ops;
  w->writes = writes;
  w->inserts = inserts;
  w->hits = hits;
  w->sum = sum;
  return NULL;
}

/* The run phase: zipfian over the records present, --threads workers for
 * --seconds; prints the JSON line.  Returns the records inserted, and the
 * heap usage after the run in *objects, *bytes. */
static uint64_t ycsb_measure(long records, long fanout, size_t *objects, size_t *bytes) {
  zipf_n = (uint64_t)yr->next;
  bench_zipf_init(zipf_n, bench_theta);
  /* Never freed: the volatile build counts free() of heap objects only. */
  struct worker *w = calloc((size_t)bench_nthreads, sizeof *w);
  if (!w) abort();
  uint64_t stored0 = bench_stored; /* the measured phase's stores only */
  double el = bench_run_timed(worker_run, w, sizeof *w);
  uint64_t ops = 0, writes = 0, inserts = 0, hits = 0;
  for (long i = 0; i < bench_nthreads; i++) {
    ops += w[i].ops;
    writes += w[i].writes;
    inserts += w[i].inserts;
    hits += w[i].hits;
  }
  long rss = bench_peak_rss();
  bench_usage(objects, bytes);
  char name[16], extra[32];
  snprintf(name, sizeof name, "ycsb-%c", workload);
  snprintf(extra, sizeof extra, ", \"fanout\": %ld", fanout);
  struct bench_line line = {name, workload == 'd' ? "latest" : "zipf", extra, records, 0, bench_nthreads, write_pct(workload),
                            ops, writes, hits, writes, bench_stored - stored0, el, rss, *bytes};
  bench_print_line(&line);
  return inserts;
}

#endif /* AMBER_BENCH_YCSB_RUN_H */
