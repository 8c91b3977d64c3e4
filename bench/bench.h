/* bench.h: the driver every workload in bench/ shares (one header, so each
 * workload stays one source file).
 *
 * A workload defines, before including nothing else but this header's users:
 *   #define BENCH_BASE "hash"                    name stem (workload = stem-Nk)
 *   static struct bench_hdr *wl_open(void);       the root; hdr->nkeys == 0 when fresh
 *   static void wl_init(void);                    once, on a fresh root, before preload
 *   static int wl_lookup(long key);               one BENCH_READ region
 *   static int wl_insert(long key);               one BENCH_WRITE region; 1 when added
 *   static int wl_remove(long key);               one BENCH_WRITE region; 1 when removed
 *   static long wl_check(long *bad);              walk: node count, ++*bad per broken invariant
 * and then calls bench_main(argc, argv) from main.
 *
 * Optional hooks (each enabled by defining its macro before the include), so
 * a workload with its own parameters or a varying number of objects fits the
 * same driver; a workload without them behaves and prints exactly as before:
 *   BENCH_WL_OPTION: static int wl_option(const char *opt, const char *val);
 *     1 when it took --opt VAL (it exits 2 itself on a bad value), else 0
 *   BENCH_WL_USAGE "[--fanout F]"                 a third usage line
 *   BENCH_WL_NAME:   static void wl_name(char *buf, size_t n);  the workload
 *     name in the JSON line instead of stem-Nk
 *   BENCH_WL_EXTRA:  static void wl_extra(char *buf, size_t n); more JSON
 *     fields, e.g. `, "fanout": 8`, printed before the closing brace
 *   BENCH_WL_HEAP:   static void wl_preloaded(void);  once after the preload
 *     (record the structure's own objects), and
 *     static void wl_heap_delta(long *objects, long *bytes);  at --verify, how
 *     many objects and bytes the structure has gained since the preload (a
 *     B+-tree's node count varies at a fixed size); the leak check allows
 *     exactly that much.
 *
 * Defining BENCH_NO_DRIVER before the include gives only the parts that do
 * not depend on the driver (regions, lock, root, usage, counted malloc,
 * object sizes, xorshift and zipfian ranks, peak RSS, the JSON line), for a
 * program with its own loop (bench/ycsb.c).
 *
 * Regions: BENCH_READ { } for lookups, BENCH_WRITE { } for updates.
 *   amber (default, compiled with amber-cc): both are AMBER_ATOMIC.
 *   -DAMBER_BENCH_VOLATILE (plain clang, no pass, no runtime): a spinning
 *     reader-writer lock (reader / writer side), pthread_rwlock_t with
 *     -DAMBER_BENCH_PTHREAD_RWLOCK, or one pthread_mutex_t for both with
 *     -DAMBER_BENCH_MUTEX (its line says "system": "mutex"); the root comes from calloc
 *     and malloc/free are counted so --verify can check for leaks.
 *   -DAMBER_BENCH_PMDK: the same lock; the workload does its own libpmemobj
 *     transactions inside BENCH_WRITE and provides wl_usage().
 *
 * Options: --keys K --buckets B --update PCT --threads T --seconds S --seed N
 *          --dist uniform|zipf --theta X --preload-only --verify [--pool FILE]
 * Keys are drawn from 0..2K-1 (half of them present).  An update picks a key;
 * if it is present it is removed and random keys are inserted until one is
 * added, otherwise it is inserted and random keys are removed until one goes:
 * the size stays exactly K.  Throughput counts regions run.
 * Prints one JSON line.  --verify then checks the structure, the size, and
 * that the heap holds as many bytes as right after the preload. */
#ifndef AMBER_BENCH_H
#define AMBER_BENCH_H

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Persistent header at the start of every workload's root. */
struct bench_hdr {
  long nkeys;            /* keys preloaded; 0 on a fresh root */
  long size;             /* keys present, maintained by the workload's updates */
  size_t objects, bytes; /* heap usage right after the preload */
};

/* ---- reader-writer lock (volatile and PMDK baselines) -------------------- */
#if defined(AMBER_BENCH_VOLATILE) && defined(AMBER_BENCH_MUTEX)
/* The plainest lock-based program: one pthread mutex, lookups included (the
 * baseline amber's regions on ordinary memory are compared with). */
static pthread_mutex_t bench_mtx = PTHREAD_MUTEX_INITIALIZER;
#define BENCH_READ for (int bench_r_ = (pthread_mutex_lock(&bench_mtx), 1); bench_r_; pthread_mutex_unlock(&bench_mtx), bench_r_ = 0)
#define BENCH_WRITE for (int bench_w_ = (pthread_mutex_lock(&bench_mtx), 1); bench_w_; pthread_mutex_unlock(&bench_mtx), bench_w_ = 0)
#elif defined(AMBER_BENCH_VOLATILE) && defined(AMBER_BENCH_PTHREAD_RWLOCK)
/* The "volatile ideal": the same program with a pthread rwlock. */
static pthread_rwlock_t bench_rwl = PTHREAD_RWLOCK_INITIALIZER;
#define BENCH_READ                                                                                                  \
  for (int bench_r_ = (pthread_rwlock_rdlock(&bench_rwl), 1); bench_r_; pthread_rwlock_unlock(&bench_rwl), bench_r_ = 0)
#define BENCH_WRITE                                                                                                 \
  for (int bench_w_ = (pthread_rwlock_wrlock(&bench_rwl), 1); bench_w_; pthread_rwlock_unlock(&bench_rwl), bench_w_ = 0)
#elif defined(AMBER_BENCH_VOLATILE) || defined(AMBER_BENCH_PMDK)
/* Bit 0: a writer holds or waits for the lock (new readers stay out);
 * the rest: twice the number of readers inside. */
static volatile unsigned long bench_rw;
static inline void bench_pause(void) { __builtin_ia32_pause(); }
static inline void bench_rdlock(void) {
  for (;;) {
    unsigned long v = __atomic_load_n(&bench_rw, __ATOMIC_RELAXED);
    if (!(v & 1) && __atomic_compare_exchange_n(&bench_rw, &v, v + 2, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return;
    bench_pause();
  }
}
static inline void bench_rdunlock(void) { __atomic_fetch_sub(&bench_rw, 2, __ATOMIC_RELEASE); }
static inline void bench_wrlock(void) {
  for (;;) {
    unsigned long v = __atomic_load_n(&bench_rw, __ATOMIC_RELAXED);
    if (!(v & 1) && __atomic_compare_exchange_n(&bench_rw, &v, v | 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) break;
    bench_pause();
  }
  while (__atomic_load_n(&bench_rw, __ATOMIC_ACQUIRE) != 1) bench_pause(); /* readers drain */
}
static inline void bench_wrunlock(void) { __atomic_store_n(&bench_rw, 0, __ATOMIC_RELEASE); }
#define BENCH_READ for (int bench_r_ = (bench_rdlock(), 1); bench_r_; bench_rdunlock(), bench_r_ = 0)
#define BENCH_WRITE for (int bench_w_ = (bench_wrlock(), 1); bench_w_; bench_wrunlock(), bench_w_ = 0)
#else
#include <amber.h>
#define BENCH_READ AMBER_ATOMIC
#define BENCH_WRITE AMBER_ATOMIC
#endif

#if defined(AMBER_BENCH_VOLATILE)
#if defined(AMBER_BENCH_MUTEX)
#define BENCH_SYSTEM "mutex"
#else
#define BENCH_SYSTEM "volatile"
#endif
#include <malloc.h>
/* Allocation happens only under the writer lock, so plain counters do. */
static size_t bench_vobjects, bench_vbytes;
static inline void *bench_malloc(size_t n) {
  void *p = malloc(n);
  if (!p) abort();
  bench_vobjects++;
  bench_vbytes += malloc_usable_size(p);
  return p;
}
static inline void bench_free(void *p) {
  if (!p) return;
  bench_vobjects--;
  bench_vbytes -= malloc_usable_size(p);
  free(p);
}
static inline void *bench_root(size_t size) { return calloc(1, size); }
static void bench_usage(size_t *objects, size_t *bytes) {
  *objects = bench_vobjects;
  *bytes = bench_vbytes;
}
#elif defined(AMBER_BENCH_PMDK)
#define BENCH_SYSTEM "pmdk"
static void wl_usage(size_t *objects, size_t *bytes);
static void bench_usage(size_t *objects, size_t *bytes) { wl_usage(objects, bytes); }
#else
#define BENCH_SYSTEM "amber"
static inline void *bench_root(size_t size) { return amber_root(size); }
static void bench_usage(size_t *objects, size_t *bytes) {
  struct amber_usage u;
  amber_usage(&u);
  *objects = u.objects;
  *bytes = u.bytes;
}
#endif

/* ---- options ----------------------------------------------------------- */
static long bench_nkeys = 1000, bench_nbuckets = 1000, bench_update = 20, bench_nthreads = 1;
static double bench_seconds = 1.0, bench_theta = 0.99;
static unsigned long bench_seed = 1;
static int bench_zipf, bench_verify, bench_preload_only;
static const char *bench_pool = "/dev/shm/amber-bench.pool";
static volatile int bench_stop;
/* Bytes the PMDK ports store in their update transactions (they count each
 * store with BENCH_STORED; only under the writer lock, so a plain counter
 * does): the denominator of their write amplification.  The amber build's
 * runtime counts its own stores. */
static uint64_t bench_stored;
#if defined(AMBER_BENCH_PMDK)
#define BENCH_STORED(n) (bench_stored += (uint64_t)(n))
#else
#define BENCH_STORED(n) ((void)0)
#endif

/* ---- keys: xorshift64, uniform or (scrambled) zipfian ------------------ */
static inline uint64_t bench_rnd(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}
static double zipf_zetan, zipf_eta, zipf_alpha, zipf_half;
static void bench_zipf_init(uint64_t n, double theta) {
  double z = 0;
  for (uint64_t i = 1; i <= n; i++) z += 1.0 / pow((double)i, theta);
  zipf_zetan = z;
  zipf_alpha = 1.0 / (1.0 - theta);
  zipf_half = pow(0.5, theta);
  zipf_eta = (1.0 - pow(2.0 / (double)n, 1.0 - theta)) / (1.0 - (1.0 + zipf_half) / z);
}
/* A zipfian rank in 0..n-1 (Gray et al., as in YCSB), rank 0 hottest; n is
 * the item count bench_zipf_init was given. */
static inline uint64_t bench_zipf_rank(uint64_t *s, uint64_t n) {
  double u = (double)(bench_rnd(s) >> 11) * (1.0 / 9007199254740992.0);
  double uz = u * zipf_zetan;
  uint64_t rank;
  if (uz < 1.0) rank = 0;
  else if (uz < 1.0 + zipf_half) rank = 1;
  else rank = (uint64_t)((double)n * pow(zipf_eta * u - zipf_eta + 1.0, zipf_alpha));
  if (rank >= n) rank = n - 1;
  return rank;
}

/* Heap bytes one object of n bytes occupies (its size class), measured by
 * allocating one in a region and reading the usage; memoised below 4 KiB. */
#if !defined(AMBER_BENCH_PMDK)
static inline size_t bench_usable(size_t n) {
  static size_t memo[4096];
  if (n < 4096 && memo[n]) return memo[n];
  size_t o0, b0, o1, b1;
  void *p = NULL;
  bench_usage(&o0, &b0);
#if defined(AMBER_BENCH_VOLATILE)
  BENCH_WRITE { p = bench_malloc(n); }
  bench_usage(&o1, &b1);
  BENCH_WRITE { bench_free(p); }
#else
  BENCH_WRITE { p = malloc(n); }
  bench_usage(&o1, &b1);
  BENCH_WRITE { free(p); }
#endif
  if (n < 4096) memo[n] = b1 - b0;
  return b1 - b0;
}
/* Heap bytes the object p, allocated with n bytes, occupies (glibc may hand
 * out a larger chunk than the request's, so the volatile build asks it). */
static inline size_t bench_obj_bytes(void *p, size_t n) {
#if defined(AMBER_BENCH_VOLATILE)
  (void)n;
  return malloc_usable_size(p);
#else
  (void)p;
  return bench_usable(n);
#endif
}
#endif

/* Peak RSS from VmHWM: getrusage's ru_maxrss survives execve, so it would
 * report a larger parent's peak (e.g. the Python driver's). */
static long bench_peak_rss(void) {
  long hwm_kib = 0;
  FILE *st = fopen("/proc/self/status", "r");
  if (st) {
    char l[256];
    while (fgets(l, sizeof l, st))
      if (!strncmp(l, "VmHWM:", 6)) hwm_kib = atol(l + 6);
    fclose(st);
  }
  return hwm_kib * 1024L;
}

/* One run's JSON line (every workload's, field for field). */
struct bench_line {
  const char *workload, *dist, *extra; /* extra: more fields, "" or `, "x": 1` */
  long keys, buckets, threads, update_pct;
  uint64_t ops, update_pairs, hits, update_ops, stored;
  double seconds;
  long rss;
  size_t heap_bytes;
};
static void bench_print_line(const struct bench_line *l) {
  printf("{\"system\": \"%s\", \"workload\": \"%s\", \"keys\": %ld, \"buckets\": %ld, \"dist\": \"%s\", \"threads\": %ld, "
         "\"update_pct\": %ld, \"ops\": %llu, \"update_pairs\": %llu, \"lookup_hits\": %llu, \"seconds\": %.3f, \"throughput\": %.0f, "
         "\"peak_rss_bytes\": %ld, \"heap_bytes\": %zu, \"update_ops\": %llu, \"stored_bytes\": %llu%s}\n",
         BENCH_SYSTEM, l->workload, l->keys, l->buckets, l->dist, l->threads, l->update_pct, (unsigned long long)l->ops,
         (unsigned long long)l->update_pairs, (unsigned long long)l->hits, l->seconds,
         l->seconds > 0 ? (double)l->ops / l->seconds : 0.0, l->rss, l->heap_bytes, (unsigned long long)l->update_ops,
         (unsigned long long)l->stored, l->extra);
  fflush(stdout);
}

/* The measured phase: n threads run fn on the workers (elem bytes apart, each
 * starting with a struct bench_runner) for --seconds, then stop and join.
 * Returns the elapsed seconds. */
struct bench_runner {
  pthread_t th;
  uint64_t seed;
};
static double bench_run_timed(void *(*fn)(void *), void *workers, size_t elem) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long i = 0; i < bench_nthreads; i++) {
    struct bench_runner *r = (struct bench_runner *)((char *)workers + (size_t)i * elem);
    r->seed = bench_seed * 1000003 + (uint64_t)i * 7777 + 1;
    pthread_create(&r->th, NULL, fn, r);
  }
  struct timespec d = {(time_t)bench_seconds, (long)((bench_seconds - (double)(time_t)bench_seconds) * 1e9)};
  nanosleep(&d, NULL);
  bench_stop = 1;
  for (long i = 0; i < bench_nthreads; i++) pthread_join(((struct bench_runner *)((char *)workers + (size_t)i * elem))->th, NULL);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
}

#ifndef BENCH_NO_DRIVER
/* A key in 0..2K-1, uniform or zipfian; zipfian ranks are scattered over the
 * key space by a multiplicative bijection so hot keys do not all sit at the
 * front of a list or in one subtree. */
static inline long bench_key(uint64_t *s) {
  uint64_t n = (uint64_t)(2 * bench_nkeys);
  if (!bench_zipf) return (long)(bench_rnd(s) % n);
  uint64_t rank = bench_zipf_rank(s, n);
  return (long)((rank * 2654435761ull) % n);
}

/* ---- the measured loop --------------------------------------------------- */
static int wl_lookup(long key);
static int wl_insert(long key);
static int wl_remove(long key);

struct bench_worker {
  struct bench_runner r; /* first: bench_run_timed's view */
  uint64_t ops, updates, update_ops, hits;
};

static void *bench_thread(void *arg) {
  struct bench_worker *w = arg;
  uint64_t s = w->r.seed, ops = 0, upd = 0, hits = 0, lookups = 0;
  while (!bench_stop) {
    long key = bench_key(&s);
    /* ops counts regions run, failed insertions and removals included. */
    if ((long)(bench_rnd(&s) % 100) < bench_update) {
      /* Keep the size stable: every removal is paired with an insertion. */
      ops++;
      if (wl_remove(key)) {
        while (ops++, !wl_insert(bench_key(&s))) {
        }
      } else if (ops++, wl_insert(key)) {
        while (ops++, !wl_remove(bench_key(&s))) {
        }
      }
      upd++;
    } else {
      hits += (uint64_t)wl_lookup(key); /* used, so the lookup cannot be optimised away */
      ops++;
      lookups++;
    }
  }
  w->ops = ops;
  w->updates = upd;
  w->update_ops = ops - lookups;
  w->hits = hits;
  return NULL;
}

static struct bench_hdr *wl_open(void);
static void wl_init(void);
static long wl_check(long *bad);
#ifdef BENCH_WL_OPTION
static int wl_option(const char *opt, const char *val);
#endif
#ifdef BENCH_WL_NAME
static void wl_name(char *buf, size_t n);
#endif
#ifdef BENCH_WL_EXTRA
static void wl_extra(char *buf, size_t n);
#endif
#ifdef BENCH_WL_HEAP
static void wl_preloaded(void);
static void wl_heap_delta(long *objects, long *bytes);
#endif

static void bench_usage_exit(const char *prog) {
  fprintf(stderr,
          "usage: %s [--keys K] [--buckets B] [--update PCT] [--threads T] [--seconds S] [--seed N]\n"
          "          [--dist uniform|zipf] [--theta X] [--preload-only] [--verify] [--pool FILE]\n",
          prog);
#ifdef BENCH_WL_USAGE
  fprintf(stderr, "          %s\n", BENCH_WL_USAGE);
#endif
  exit(2);
}

static int bench_main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--preload-only")) bench_preload_only = 1;
    else if (!strcmp(a, "--verify")) bench_verify = 1;
    else if (!v) bench_usage_exit(argv[0]);
    else if (!strcmp(a, "--keys")) bench_nkeys = atol(v), i++;
    else if (!strcmp(a, "--buckets")) bench_nbuckets = atol(v), i++;
    else if (!strcmp(a, "--update")) bench_update = atol(v), i++;
    else if (!strcmp(a, "--threads")) bench_nthreads = atol(v), i++;
    else if (!strcmp(a, "--seconds")) bench_seconds = atof(v), i++;
    else if (!strcmp(a, "--seed")) bench_seed = strtoul(v, NULL, 0), i++;
    else if (!strcmp(a, "--theta")) bench_theta = atof(v), i++;
    else if (!strcmp(a, "--pool")) bench_pool = v, i++;
    else if (!strcmp(a, "--dist") && (!strcmp(v, "uniform") || !strcmp(v, "zipf"))) bench_zipf = !strcmp(v, "zipf"), i++;
#ifdef BENCH_WL_OPTION
    else if (wl_option(a, v)) i++;
#endif
    else bench_usage_exit(argv[0]);
  }
  if (bench_nkeys < 1 || bench_nbuckets < 1 || bench_nthreads < 1 || bench_update < 0 || bench_update > 100 ||
      bench_seconds < 0 || bench_theta <= 0 || bench_theta >= 1)
    bench_usage_exit(argv[0]);
  if (bench_zipf) bench_zipf_init((uint64_t)(2 * bench_nkeys), bench_theta);

  struct bench_hdr *h = wl_open();
  if (!h->nkeys) {
    /* Preload in this process (a later run on the same heap skips it, so its
     * statistics cover the measured phase only). */
    wl_init();
    uint64_t s = bench_seed * 7919 + 1;
    while (h->size < bench_nkeys) wl_insert((long)(bench_rnd(&s) % (uint64_t)(2 * bench_nkeys)));
#ifdef BENCH_WL_HEAP
    wl_preloaded();
#endif
    size_t o, b;
    bench_usage(&o, &b);
    BENCH_WRITE {
      h->objects = o;
      h->bytes = b;
      h->nkeys = bench_nkeys;
    }
    /* PMDK: these header words are written without a transaction; the
     * baseline's pool is created fresh by every run, so nothing relies on
     * them surviving a crash. */
  } else if (h->nkeys != bench_nkeys) {
    fprintf(stderr, "bench: the heap holds %ld keys, not --keys %ld; use a fresh heap\n", h->nkeys, bench_nkeys);
    return 2;
  }
  if (bench_preload_only) return 0;

  struct bench_worker *w = calloc((size_t)bench_nthreads, sizeof *w);
  uint64_t stored0 = bench_stored; /* the measured phase's stores only */
  double el = bench_run_timed(bench_thread, w, sizeof *w);
  uint64_t ops = 0, upd = 0, upd_ops = 0, hits = 0;
  for (long i = 0; i < bench_nthreads; i++) {
    ops += w[i].ops;
    upd += w[i].updates;
    upd_ops += w[i].update_ops;
    hits += w[i].hits;
  }
  long rss = bench_peak_rss();
  size_t objects, bytes;
  bench_usage(&objects, &bytes);
#ifndef BENCH_BUCKETS
  bench_nbuckets = 0; /* not a hashed workload */
#endif
  char name[64], extra[256] = "";
#ifdef BENCH_WL_NAME
  wl_name(name, sizeof name);
#else
  if (bench_nkeys % 1000 == 0) snprintf(name, sizeof name, "%s-%ldk", BENCH_BASE, bench_nkeys / 1000);
  else snprintf(name, sizeof name, "%s-%ld", BENCH_BASE, bench_nkeys);
#endif
#ifdef BENCH_WL_EXTRA
  wl_extra(extra, sizeof extra);
#endif
  struct bench_line line = {name, bench_zipf ? "zipf" : "uniform", extra, bench_nkeys, bench_nbuckets, bench_nthreads, bench_update,
                            ops, upd, hits, upd_ops, bench_stored - stored0, el, rss, bytes};
  bench_print_line(&line);
  if (!bench_verify) return 0;
  long bad = 0, count = wl_check(&bad);
  long grown_objects = 0, grown_bytes = 0; /* what the structure may have gained since the preload */
#ifdef BENCH_WL_HEAP
  wl_heap_delta(&grown_objects, &grown_bytes);
#endif
  long leaked = (long)bytes - (long)h->bytes - grown_bytes, leaked_objects = (long)objects - (long)h->objects - grown_objects;
  int ok = !bad && count == h->size && count == bench_nkeys && !leaked && !leaked_objects;
  printf("verify: size %ld counted %ld bad %ld leaked-bytes %ld leaked-objects %ld: %s\n", h->size, count, bad, leaked,
         leaked_objects, ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
#endif /* BENCH_NO_DRIVER */

/* Workload code below this header allocates through the counted wrappers in
 * the volatile build (the amber build's malloc is the runtime's). */
#if defined(AMBER_BENCH_VOLATILE)
#define malloc(n) bench_malloc(n)
#define free(p) bench_free(p)
#endif

#endif /* AMBER_BENCH_H */
