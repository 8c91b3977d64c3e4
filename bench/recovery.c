/* recovery: fills the mvcc engine's persistent logs, dies with kill -9, and
 * checks what recovery rebuilt (issue [6/7]: "recovery time for a full
 * 1 MiB OLog + 4 MiB CLog").  Time the recovery itself with
 * `amber recover HEAP` between the two runs (bench/README.md).
 *
 *   recovery fill  [--slots N] [--ckpt-txns A] [--olog-txns B]
 *   recovery check [--slots N] [--ckpt-txns A] [--olog-txns B]
 *
 * fill runs A transactions, so that TLog reclamation moves versions into
 * the CLog (run it with a TLog small enough to fill), then starts a reader
 * that keeps its snapshot, so nothing newer can be checkpointed, and runs B
 * more, which stay in DRAM and in the OLog (B must fit the OLog rings).
 * It prints the engine's statistics (olog_live_bytes, clog_live_entries)
 * and one JSON line, then kills itself.  check compares the recovered
 * state with a model of the A + B transactions and prints one JSON line;
 * it exits 1 when they differ. */
#include <amber.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct slot {
  long v, gen;
};
struct root {
  long done;
  long nslots;
  struct slot *s;
};

static long nslots = 16384, ckpt_txns = 20000, olog_txns = 4000;
static struct root *r;
static int hold = 1, held;

static unsigned long mix(unsigned long x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}

/* Transaction i moves 1 from slot a(i) to slot b(i) and stamps both. */
static void pick(long i, unsigned long *a, unsigned long *b) {
  *a = mix((unsigned long)i) % (unsigned long)nslots;
  *b = mix((unsigned long)i + 7777) % (unsigned long)nslots;
}

static void step(long i) {
  unsigned long a, b;
  pick(i, &a, &b);
  AMBER_ATOMIC {
    r->s[a].v -= 1;
    r->s[b].v += 1;
    r->s[a].gen = i;
    r->s[b].gen = i;
    r->done = i + 1;
  }
}

static void *reader(void *arg) {
  (void)arg;
  long n = 0;
  AMBER_ATOMIC_ISO(AMBER_SI) {
    n = r->done;
    __atomic_store_n(&held, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&hold, __ATOMIC_SEQ_CST)) {
    }
  }
  return (void *)n;
}

static long arg_long(int argc, char **argv, int *i) {
  if (*i + 1 >= argc) {
    fprintf(stderr, "recovery: %s needs a number\n", argv[*i]);
    exit(2);
  }
  char *end;
  long v = strtol(argv[++*i], &end, 10);
  if (*end || v <= 0) {
    fprintf(stderr, "recovery: %s %s: not a positive number\n", argv[*i - 1], argv[*i]);
    exit(2);
  }
  return v;
}

int main(int argc, char **argv) {
  if (argc < 2 || (strcmp(argv[1], "fill") && strcmp(argv[1], "check"))) {
    fprintf(stderr, "usage: recovery fill|check [--slots N] [--ckpt-txns A] [--olog-txns B]\n");
    return 2;
  }
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--slots")) nslots = arg_long(argc, argv, &i);
    else if (!strcmp(argv[i], "--ckpt-txns")) ckpt_txns = arg_long(argc, argv, &i);
    else if (!strcmp(argv[i], "--olog-txns")) olog_txns = arg_long(argc, argv, &i);
    else {
      fprintf(stderr, "recovery: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  r = amber_root(sizeof *r);
  if (!strcmp(argv[1], "fill")) {
    if (r->s) {
      fprintf(stderr, "recovery: fill wants a new heap\n");
      return 2;
    }
    AMBER_ATOMIC {
      r->s = calloc((size_t)nslots, sizeof *r->s);
      r->nslots = nslots;
    }
    for (long i = 0; i < ckpt_txns; i++) step(i);
    pthread_t th;
    pthread_create(&th, NULL, reader, NULL);
    while (!__atomic_load_n(&held, __ATOMIC_SEQ_CST)) {
    }
    for (long i = ckpt_txns; i < ckpt_txns + olog_txns; i++) step(i);
    amber_stats_print();
    printf("{\"bench\": \"recovery\", \"phase\": \"fill\", \"slots\": %ld, \"ckpt_txns\": %ld, \"olog_txns\": %ld}\n", nslots,
           ckpt_txns, olog_txns);
    fflush(stdout);
    fflush(stderr);
    kill(getpid(), SIGKILL);
  }
  /* check: the model of A + B transactions. */
  struct slot *m = calloc((size_t)nslots, sizeof *m);
  long total = ckpt_txns + olog_txns, bad = -1;
  for (long i = 0; i < total; i++) {
    unsigned long a, b;
    pick(i, &a, &b);
    m[a].v -= 1;
    m[b].v += 1;
    m[a].gen = m[b].gen = i;
  }
  if (r->nslots != nslots || r->done != total) bad = -2;
  for (long k = 0; bad == -1 && k < nslots; k++)
    if (r->s[k].v != m[k].v || r->s[k].gen != m[k].gen) bad = k;
  printf("{\"bench\": \"recovery\", \"phase\": \"check\", \"done\": %ld, \"expected\": %ld, \"ok\": %s, \"first_bad_slot\": %ld}\n",
         r->done, total, bad == -1 ? "true" : "false", bad);
  return bad == -1 ? 0 : 1;
}
