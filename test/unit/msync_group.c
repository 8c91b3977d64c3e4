// The msync backend's group commit (runtime/pm/msync.c) with a mock sync
// step, checked by invariants, never by timing:
//   order:    several threads record ranges and fence, many times; when a
//             fence returns, every range its thread recorded before it was
//             taken by a sync that started after the range was recorded and
//             has completed; syncs never overlap; every range is synced
//             exactly once.
//   group:    while one thread's sync runs, the others' fences wait and then
//             share exactly one sync.
//   detach:   ranges recorded before a detach are never synced after it, and
//             a fence without ranges syncs nothing.
//   tickets:  publish hands a thread's ranges over and returns a ticket (0
//             without ranges); another thread that waits for the ticket
//             leads the sync itself, after which the ticket is durable and
//             its owner's wait syncs nothing more; a larger ticket's wait
//             makes a smaller one durable; a detach completes a ticket
//             nobody waited for.
//   coalesce: the real backend's planning merges touching ranges and ranges
//             a few pages apart in one mapping, never across mappings.
//   gather:   (docs/engines/msync.md, "Gathering"; the bound set to 60 s, a
//             hang guard: every wait here ends by an event, never by time)
//             a leader whose sibling is in flight (entered) waits, and the
//             sibling's publish during that wait ends it and joins the same
//             sync; the next round's leader waits for the last group's
//             other member the same way; a leader with nobody in flight or
//             expected, and a plain fence, never wait; a sibling that
//             leaves without publishing (an abort) ends the wait too.
//   file-ranges: a sync of several ranges names each range's file offset,
//             cut where one mapping ends and the next begins.
//   ranges-safe: the file systems whose ranged fsync commits the whole
//             inode's metadata and flushes the disk (ext4 but data=journal,
//             xfs) take the sync_file_range path, others (btrfs) fdatasync.
//   several:  the real sync step on a real file next to the test (two
//             mappings, six distant dirty pages recorded, one fence): after
//             the fence no recorded page is dirty or under writeback
//             (cachestat, Linux 6.5+), so a sync that skipped a range fails
//             here; the counters say which path ran (fdatasync by default;
//             with AMBER_PM_MSYNC_SEVERAL=ranges, ranges on ext4 and xfs).
//   order-gather: order's invariants with gathering on, threads entering
//             before their ranges and some leaving without publishing:
//             every fence returns durable, and no leader's wait ever ran
//             to its bound (nobody stranded it).
//   order-parallel: order's invariants with up to 3 syncs at once
//             (AMBER_PM_MSYNC_PARALLEL; docs/engines/msync.md,
//             "Overlapping syncs"), some completing out of order: never
//             more than 3 run, and every fence returns durable.
//   overlap:  with 2 syncs allowed, a fence whose ranges no running sync
//             took starts its own sync at once, beside the running one;
//             when that later sync completes first, its fence still waits
//             until the earlier one has completed too (and it does not
//             take ranges a running sync took).
// RUN: %unit_cc %s -o %t %unit_libs
// RUN: %t order
// RUN: %t group
// RUN: %t detach
// RUN: %t tickets
// RUN: %t coalesce
// RUN: %t gather
// RUN: %t order-gather
// RUN: %t order-parallel
// RUN: %t overlap
// RUN: %t file-ranges
// RUN: %t ranges-safe
// RUN: %t several %t.heap
// RUN: env AMBER_PM_MSYNC_SEVERAL=ranges %t several %t.heap
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "base/options.h"
#include "pm/msync.h"

#define CHECK(c)                                                                \
  do {                                                                          \
    if (!(c)) {                                                                 \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);     \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)

#define NT 4
#define ROUNDS 3000
#define PER 3 /* at most this many ranges per fence */
#define NSYNC (NT * ROUNDS + 8)

/* A logical clock: every record and every sync start takes a tick. */
static uint64_t clock_;
static uint64_t tick(void) { return __atomic_add_fetch(&clock_, 1, __ATOMIC_SEQ_CST); }

/* Range (t, k) is t's k-th range; its tag says so. */
static uint64_t recorded_at[NT][ROUNDS * PER];
static uint32_t synced_by[NT][ROUNDS * PER]; /* the sync that took it, from 1 */
static uint64_t sync_start[NSYNC];
static int sync_done[NSYNC];
static size_t sync_ranges[NSYNC];
static uint32_t nsyncs;
static int in_sync;

static uint64_t tag_of(int t, uint32_t k) { return ((uint64_t)t << 32) | k; }

static int max_in_sync = 1; /* order-parallel: syncs allowed at once */
static int most_in_sync;     /* seen at once (printed, not checked: it depends on timing) */

static unsigned mock_sync(const struct amber_msync_range *r, size_t n) {
  int now = __atomic_fetch_add(&in_sync, 1, __ATOMIC_SEQ_CST);
  CHECK(now < max_in_sync); /* one at a time, or at most that many */
  if (now + 1 > __atomic_load_n(&most_in_sync, __ATOMIC_SEQ_CST)) __atomic_store_n(&most_in_sync, now + 1, __ATOMIC_SEQ_CST);
  uint32_t s = __atomic_add_fetch(&nsyncs, 1, __ATOMIC_SEQ_CST);
  CHECK(s < NSYNC);
  sync_start[s] = tick();
  sync_ranges[s] = n;
  for (size_t i = 0; i < n; i++) {
    int t = (int)(r[i].tag >> 32);
    uint32_t k = (uint32_t)r[i].tag;
    CHECK(t < NT && k < ROUNDS * PER);
    CHECK(r[i].start == 2 * r[i].tag && r[i].end == 2 * r[i].tag + 1);
    CHECK(__atomic_load_n(&synced_by[t][k], __ATOMIC_SEQ_CST) == 0); /* synced once */
    __atomic_store_n(&synced_by[t][k], s, __ATOMIC_SEQ_CST);
  }
  if (s % 7 == 0) sched_yield(); /* let fences pile up behind this sync */
  if (max_in_sync > 1 && s % 5 == 0)
    for (int y = 0; y < 20; y++) sched_yield(); /* and let later syncs overtake it (order-parallel) */
  __atomic_store_n(&sync_done[s], 1, __ATOMIC_SEQ_CST);
  __atomic_fetch_sub(&in_sync, 1, __ATOMIC_SEQ_CST);
  return 1;
}

static void record(int t, uint32_t k) {
  uint64_t tag = tag_of(t, k);
  amber_msync_record(2 * tag, 2 * tag + 1, tag);
  recorded_at[t][k] = tick(); /* after the record: a sync that took it started later still */
}

/* Every range of t from `from` to `to` is covered: its sync started after it
 * was recorded and has completed. */
static void covered(int t, uint32_t from, uint32_t to) {
  for (uint32_t k = from; k < to; k++) {
    uint32_t s = __atomic_load_n(&synced_by[t][k], __ATOMIC_SEQ_CST);
    CHECK(s != 0);
    CHECK(__atomic_load_n(&sync_done[s], __ATOMIC_SEQ_CST));
    CHECK(sync_start[s] > recorded_at[t][k]);
  }
}

static int gathering_on; /* order-gather: threads enter, some leave, and wait on tickets */

static void *order_thread(void *arg) {
  int t = (int)(intptr_t)arg;
  uint32_t k = 0;
  for (int i = 0; i < ROUNDS; i++) {
    uint32_t from = k, m = (uint32_t)(i % PER) + 1;
    if (gathering_on) {
      amber_msync_enter();
      if ((i + t) % 5 == 0) { /* an aborted transaction: in flight, then out without publishing */
        amber_msync_leave();
        amber_msync_enter();
      }
    }
    for (uint32_t j = 0; j < m; j++) record(t, k++);
    if (gathering_on) amber_msync_wait(amber_msync_publish());
    else amber_msync_fence();
    covered(t, from, k);
  }
  return NULL;
}

static void order(void) {
  amber_msync_attach_fn(mock_sync);
  pthread_t th[NT];
  for (int t = 0; t < NT; t++) CHECK(pthread_create(&th[t], NULL, order_thread, (void *)(intptr_t)t) == 0);
  for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
  size_t total = 0;
  for (uint32_t s = 1; s <= nsyncs; s++) total += sync_ranges[s];
  uint32_t per_thread = 0;
  for (int i = 0; i < ROUNDS; i++) per_thread += (uint32_t)(i % PER) + 1;
  CHECK(total == (size_t)NT * per_thread); /* every range synced, none twice (mock_sync) */
  printf("order: ok (%u fences, %u syncs)\n", NT * ROUNDS, nsyncs);
}

static void order_gather(void) {
  gathering_on = 1;
  amber_msync_set_gather(50, 60000000000ull);
  order();
  uint64_t g[3];
  amber_msync_gather_counts(g);
  CHECK(g[2] == 0); /* no leader waited for a thread that did not come */
  CHECK(amber_msync_inflight() == 0);
  printf("order-gather: ok (%llu leaders waited for siblings)\n", (unsigned long long)g[0]);
}

static void order_parallel(void) {
  max_in_sync = 3;
  amber_msync_set_parallel(3);
  order();
  printf("order-parallel: ok (at most %d syncs ran at once)\n", most_in_sync);
}

/* ---- group ---- */

static int leader_in;

static int wait_for(int (*cond)(void)) { /* a hang guard, not a timing assumption */
  time_t end = time(NULL) + 60;
  while (!cond())
    if (time(NULL) > end) return 0;
    else sched_yield();
  return 1;
}
static int others_waiting(void) { return amber_msync_waiting() == NT - 1; }
static int leader_entered(void) { return __atomic_load_n(&leader_in, __ATOMIC_SEQ_CST); }

static unsigned group_sync(const struct amber_msync_range *r, size_t n) {
  uint32_t s = __atomic_add_fetch(&nsyncs, 1, __ATOMIC_SEQ_CST);
  sync_ranges[s] = n;
  for (size_t i = 0; i < n; i++) synced_by[r[i].tag >> 32][0] = s;
  if (s == 1) {
    __atomic_store_n(&leader_in, 1, __ATOMIC_SEQ_CST);
    CHECK(wait_for(others_waiting)); /* every other fence arrived while this sync ran */
  }
  return 1;
}

static void *group_thread(void *arg) {
  int t = (int)(intptr_t)arg;
  if (t) CHECK(wait_for(leader_entered));
  amber_msync_record(2 * tag_of(t, 0), 2 * tag_of(t, 0) + 1, tag_of(t, 0));
  amber_msync_fence();
  CHECK(synced_by[t][0] == (t ? 2u : 1u));
  return NULL;
}

static void group(void) {
  amber_msync_attach_fn(group_sync);
  pthread_t th[NT];
  for (int t = 0; t < NT; t++) CHECK(pthread_create(&th[t], NULL, group_thread, (void *)(intptr_t)t) == 0);
  for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
  CHECK(nsyncs == 2 && sync_ranges[1] == 1 && sync_ranges[2] == NT - 1);
  printf("group: ok (%d fences, 2 syncs)\n", NT);
}

/* ---- overlap ---- */

static int first_in, second_done;
static uint32_t overlap_ranges[3];

static int first_entered(void) { return __atomic_load_n(&first_in, __ATOMIC_SEQ_CST); }
static int second_finished(void) { return __atomic_load_n(&second_done, __ATOMIC_SEQ_CST); }

static unsigned overlap_sync(const struct amber_msync_range *r, size_t n) {
  uint32_t s = __atomic_add_fetch(&nsyncs, 1, __ATOMIC_SEQ_CST);
  CHECK(s <= 2);
  overlap_ranges[s] = (uint32_t)n;
  for (size_t i = 0; i < n; i++) synced_by[r[i].tag >> 32][0] = s;
  if (s == 1) {
    __atomic_store_n(&first_in, 1, __ATOMIC_SEQ_CST);
    CHECK(wait_for(second_finished)); /* the second sync starts and ends while this one runs */
  } else {
    __atomic_store_n(&second_done, 1, __ATOMIC_SEQ_CST);
  }
  __atomic_store_n(&sync_done[s], 1, __ATOMIC_SEQ_CST);
  return 1;
}

static void *overlap_first(void *arg) {
  (void)arg;
  amber_msync_record(2 * tag_of(0, 0), 2 * tag_of(0, 0) + 1, tag_of(0, 0));
  amber_msync_fence(); /* leads sync 1 */
  CHECK(synced_by[0][0] == 1 && sync_done[1]);
  return NULL;
}

static void overlap(void) {
  amber_msync_set_parallel(2);
  amber_msync_attach_fn(overlap_sync);
  pthread_t th;
  CHECK(pthread_create(&th, NULL, overlap_first, NULL) == 0);
  CHECK(wait_for(first_entered));
  amber_msync_record(2 * tag_of(1, 0), 2 * tag_of(1, 0) + 1, tag_of(1, 0));
  uint64_t k = amber_msync_publish();
  CHECK(k == 2);
  amber_msync_wait(k); /* leads sync 2 beside sync 1; returns only after sync 1 completed too */
  CHECK(synced_by[1][0] == 2 && sync_done[2] && sync_done[1]);
  CHECK(amber_msync_durable(1) && amber_msync_durable(2));
  pthread_join(th, NULL);
  CHECK(nsyncs == 2 && overlap_ranges[1] == 1 && overlap_ranges[2] == 1);
  printf("overlap: ok (2 syncs at once, the later one completed first)\n");
}

/* ---- detach ---- */

static unsigned count_sync(const struct amber_msync_range *r, size_t n) {
  (void)r;
  nsyncs++;
  sync_ranges[nsyncs] = n;
  return 1;
}

static void detach(void) {
  amber_msync_attach_fn(count_sync);
  amber_msync_fence(); /* nothing recorded */
  CHECK(nsyncs == 0);
  amber_msync_record(0, 2, 1);
  amber_msync_record(0, 2, 1); /* the same range again: one range */
  amber_msync_fence();
  CHECK(nsyncs == 1 && sync_ranges[1] == 1);
  amber_msync_record(4, 6, 2);
  amber_msync_detach(-1);
  amber_msync_attach_fn(count_sync); /* another heap */
  amber_msync_fence();               /* the old heap's range is dropped */
  CHECK(nsyncs == 1 && amber_msync_syncs() == 1);
  printf("detach: ok\n");
}

/* ---- tickets ---- */

static uint64_t ticket_a;
static void *ticket_waiter(void *arg) {
  (void)arg;
  amber_msync_wait(ticket_a); /* records nothing itself: leads the owner's sync */
  return NULL;
}

static void tickets(void) {
  amber_msync_attach_fn(count_sync);
  CHECK(amber_msync_publish() == 0); /* nothing recorded */
  amber_msync_wait(0);
  CHECK(nsyncs == 0);
  amber_msync_record(0, 2, 1);
  ticket_a = amber_msync_publish();
  CHECK(ticket_a != 0 && !amber_msync_durable(ticket_a) && nsyncs == 0);
  pthread_t th;
  CHECK(pthread_create(&th, NULL, ticket_waiter, NULL) == 0);
  CHECK(pthread_join(th, NULL) == 0);
  CHECK(nsyncs == 1 && sync_ranges[1] == 1 && amber_msync_durable(ticket_a));
  amber_msync_wait(ticket_a); /* durable already: no sync */
  CHECK(nsyncs == 1);
  /* Two tickets: waiting for the later one makes the earlier durable. */
  amber_msync_record(4, 6, 2);
  uint64_t k1 = amber_msync_publish();
  amber_msync_record(8, 10, 3);
  uint64_t k2 = amber_msync_publish();
  CHECK(k1 && k2 >= k1);
  amber_msync_wait(k2);
  CHECK(amber_msync_durable(k1) && nsyncs == 2 && sync_ranges[2] == 2);
  /* A ticket nobody waits for is completed by the heap's detach. */
  amber_msync_record(12, 14, 4);
  uint64_t k3 = amber_msync_publish();
  CHECK(!amber_msync_durable(k3));
  amber_msync_detach(-1);
  CHECK(amber_msync_durable(k3) && nsyncs == 3);
  amber_msync_wait(k3);
  CHECK(nsyncs == 3);
  printf("tickets: ok\n");
}

/* ---- gather ---- */

static int a_round;       /* A's round, set before A publishes it */
static uint64_t a_ticket; /* A's round-4 ticket */
static int b_ready;       /* the sibling is set for round b_ready */
static int a_gathers_round;
static int a_gathers(void) {
  return __atomic_load_n(&a_round, __ATOMIC_SEQ_CST) == a_gathers_round && amber_msync_gathering();
}
static int b_ready_round;
static int b_is_ready(void) { return __atomic_load_n(&b_ready, __ATOMIC_SEQ_CST) == b_ready_round; }
static void b_wait_a(int r) { /* A, in round r, leads and waits for us */
  a_gathers_round = r;
  CHECK(wait_for(a_gathers));
}

static void *gather_sibling(void *arg) {
  (void)arg;
  /* Round 1: in flight (its first write), then an abort. */
  amber_msync_enter();
  __atomic_store_n(&b_ready, 1, __ATOMIC_SEQ_CST);
  b_wait_a(1);
  amber_msync_leave();
  /* Round 2: in flight again (the retry); publishes during A's wait. */
  amber_msync_enter();
  __atomic_store_n(&b_ready, 2, __ATOMIC_SEQ_CST);
  b_wait_a(2);
  amber_msync_record(20, 22, 10);
  amber_msync_wait(amber_msync_publish());
  /* Round 3: a member of A's last group: expected, not entered. */
  b_wait_a(3);
  amber_msync_record(24, 26, 11);
  amber_msync_wait(amber_msync_publish());
  /* Round 4: expected again; waits for A's ticket instead of publishing
   * (a read-only transaction that read A's commit). */
  b_wait_a(4);
  amber_msync_wait(__atomic_load_n(&a_ticket, __ATOMIC_SEQ_CST));
  return NULL;
}

static uint64_t a_publish(int r) {
  amber_msync_record(8 + 4 * (uintptr_t)r, 10 + 4 * (uintptr_t)r, 3 + (uint64_t)r);
  __atomic_store_n(&a_round, r, __ATOMIC_SEQ_CST);
  uint64_t k = amber_msync_publish();
  __atomic_store_n(&a_ticket, k, __ATOMIC_SEQ_CST);
  return k;
}

static void gathers_are(uint64_t n) {
  uint64_t g[3];
  amber_msync_gather_counts(g);
  CHECK(g[0] == n && g[1] == n && g[2] == 0);
}

static void gather(void) {
  amber_msync_attach_fn(count_sync);
  amber_msync_set_gather(50, 60000000000ull); /* a hang guard: nothing here ends by the bound */
  /* Nobody in flight: no wait, one round after another. */
  for (int i = 0; i < 3; i++) {
    amber_msync_record(0, 2, 1);
    amber_msync_wait(amber_msync_publish());
  }
  CHECK(nsyncs == 3);
  gathers_are(0);
  pthread_t th;
  CHECK(pthread_create(&th, NULL, gather_sibling, NULL) == 0);
  b_ready_round = 1;
  CHECK(wait_for(b_is_ready));
  /* A plain fence never waits, even with a thread in flight. */
  amber_msync_record(4, 6, 2);
  amber_msync_fence();
  CHECK(nsyncs == 4 && sync_ranges[4] == 1);
  gathers_are(0);
  /* Round 1: the sibling in flight aborts during our wait: it ends. */
  uint64_t k = a_publish(1);
  amber_msync_wait(k);
  CHECK(amber_msync_durable(k) && nsyncs == 5 && sync_ranges[5] == 1);
  gathers_are(1);
  /* Round 2: in flight again; it publishes during our wait and shares
   * our sync. */
  b_ready_round = 2;
  CHECK(wait_for(b_is_ready));
  k = a_publish(2);
  amber_msync_wait(k);
  CHECK(amber_msync_durable(k) && nsyncs == 6 && sync_ranges[6] == 2);
  gathers_are(2);
  /* Round 3: the sibling was in our last group: expected, waited for. */
  k = a_publish(3);
  amber_msync_wait(k);
  CHECK(nsyncs == 7 && sync_ranges[7] == 2);
  gathers_are(3);
  /* Round 4: expected, it waits for our ticket instead: our wait ends. */
  k = a_publish(4);
  amber_msync_wait(k);
  CHECK(pthread_join(th, NULL) == 0);
  CHECK(nsyncs == 8 && sync_ranges[8] == 1);
  gathers_are(4);
  CHECK(amber_msync_inflight() == 0);
  printf("gather: ok\n");
}

/* ---- coalesce ---- */

static void coalesce(void) {
  const uintptr_t P = 4096;
  struct amber_pm_region reg[2] = {{(void *)(100 * P), 100 * P, 0}, {(void *)(300 * P), 100 * P, 200 * P}};
  struct amber_msync_range r[] = {
      {110 * P, 111 * P, 0}, {100 * P, 101 * P, 0}, {101 * P, 102 * P, 0}, /* touching: 100..102 */
      {102 * P + 0, 103 * P, 0},                                          /* touching too */
      {119 * P, 120 * P, 0},                                              /* 16 pages after 103: joins */
      {199 * P, 200 * P, 0},                                              /* last page of region 0 */
      {300 * P, 301 * P, 0},                                              /* region 1, 100 pages on: apart */
  };
  size_t n = amber_msync_coalesce(r, sizeof r / sizeof r[0], reg, 2, P);
  CHECK(n == 3);
  CHECK(r[0].start == 100 * P && r[0].end == 120 * P);
  CHECK(r[1].start == 199 * P && r[1].end == 200 * P);
  CHECK(r[2].start == 300 * P && r[2].end == 301 * P);
  /* A few pages apart but in two mappings: never one msync. */
  struct amber_msync_range x[] = {{199 * P, 200 * P, 0}, {201 * P, 202 * P, 0}};
  struct amber_pm_region adj[2] = {{(void *)(100 * P), 100 * P, 0}, {(void *)(201 * P), 10 * P, 200 * P}};
  CHECK(amber_msync_coalesce(x, 2, adj, 2, P) == 2);
  printf("coalesce: ok\n");
}

/* ---- several ranges ---- */

static void file_ranges(void) {
  const uintptr_t P = 4096;
  /* Two mappings side by side in memory, far apart in the file. */
  struct amber_pm_region reg[2] = {{(void *)(100 * P), 100 * P, 0}, {(void *)(200 * P), 10 * P, 500 * P}};
  struct amber_msync_range r[] = {{150 * P, 151 * P, 0}, {199 * P, 202 * P, 0}, {209 * P, 210 * P, 0}};
  struct amber_msync_file_range out[3 * AMBER_PM_MAX_REGIONS];
  size_t k = amber_msync_file_ranges(r, 3, reg, 2, out);
  CHECK(k == 4);
  CHECK(out[0].addr == 150 * P && out[0].off == 50 * P && out[0].len == P);
  CHECK(out[1].addr == 199 * P && out[1].off == 99 * P && out[1].len == P);
  CHECK(out[2].addr == 200 * P && out[2].off == 500 * P && out[2].len == 2 * P);
  CHECK(out[3].addr == 209 * P && out[3].off == 509 * P && out[3].len == P);
  printf("file-ranges: ok\n");
}

static void ranges_safe(void) {
  const char *why = NULL;
  CHECK(amber_msync_ranges_safe(0xEF53, "rw,errors=remount-ro", &why));
  CHECK(amber_msync_ranges_safe(0xEF53, "rw,data=ordered", &why));
  CHECK(amber_msync_ranges_safe(0x58465342, NULL, &why)); /* xfs */
  CHECK(!amber_msync_ranges_safe(0xEF53, "rw,data=journal,errors=continue", &why) && why);
  why = NULL;
  CHECK(!amber_msync_ranges_safe(0xEF53, NULL, &why) && why); /* options unknown */
  why = NULL;
  CHECK(!amber_msync_ranges_safe(0x9123683E, "rw", &why) && why); /* btrfs */
  why = NULL;
  CHECK(!amber_msync_ranges_safe(0x6969, "rw", &why) && why); /* nfs */
  printf("ranges-safe: ok\n");
}

/* Linux 6.5's cachestat(2): the page cache's view of a file range. */
struct cs_range {
  uint64_t off, len;
};
struct cs {
  uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
};
#ifndef SYS_cachestat
#define SYS_cachestat 451
#endif

/* 1: the page at file offset off is dirty or under writeback; 0: clean;
 * -1: cachestat unavailable. */
static int page_unclean(int fd, uint64_t off, uint64_t len) {
  struct cs_range r = {off, len};
  struct cs c;
  if (syscall(SYS_cachestat, fd, &r, &c, 0) != 0) {
    CHECK(errno == ENOSYS || errno == EPERM);
    return -1;
  }
  return c.nr_dirty || c.nr_writeback;
}

static void several_ranges(const char *path) {
  amber_options_load(); /* AMBER_PM_MSYNC_SEVERAL */
  const uint64_t P = (uint64_t)sysconf(_SC_PAGESIZE), HALF = 512;
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  CHECK(fd >= 0);
  static char zero[1 << 16];
  for (uint64_t o = 0; o < 2 * HALF * P; o += sizeof zero) CHECK(pwrite(fd, zero, sizeof zero, (off_t)o) == (ssize_t)sizeof zero);
  CHECK(fdatasync(fd) == 0);
  char *a = mmap(NULL, HALF * P, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  char *b = mmap(NULL, HALF * P, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)(HALF * P));
  CHECK(a != MAP_FAILED && b != MAP_FAILED);
  struct amber_pm_region reg[2] = {{a, HALF * P, 0}, {b, HALF * P, HALF * P}};
  amber_msync_attach(path, fd, reg, 2, 0);
  struct statfs fs;
  CHECK(fstatfs(fd, &fs) == 0);
  enum amber_msync_several how = amber_msync_several();
  const char *opt = getenv("AMBER_PM_MSYNC_SEVERAL");
  if (!opt || strcmp(opt, "ranges")) CHECK(how == AMBER_MSYNC_SEVERAL_FDATASYNC); /* the default */
  else if ((unsigned long)fs.f_type == 0x58465342) CHECK(how == AMBER_MSYNC_SEVERAL_RANGES);
  else if ((unsigned long)fs.f_type != 0xEF53) CHECK(how == AMBER_MSYNC_SEVERAL_FDATASYNC);
  else CHECK(how != AMBER_MSYNC_SEVERAL_NONE); /* ext4: ranges unless mounted data=journal */
  /* Six pages, each more than AMBER_MSYNC_GAP_PAGES from the others: six
   * ranges in one sync, three in each mapping. */
  const uint64_t pages[6] = {10, 100, 300, HALF + 5, HALF + 200, HALF + 500};
  uint64_t before[5];
  amber_msync_sync_counts(before);
  int unclean_before = 0;
  for (int i = 0; i < 6; i++) {
    char *p = pages[i] < HALF ? a + pages[i] * P : b + (pages[i] - HALF) * P;
    p[8 * i] = (char)(i + 1);
    amber_msync_record((uintptr_t)p, (uintptr_t)p + P, 0);
  }
  for (int i = 0; i < 6; i++) unclean_before += page_unclean(fd, pages[i] * P, P) == 1;
  amber_msync_fence();
  uint64_t c[5];
  amber_msync_sync_counts(c);
  if (how == AMBER_MSYNC_SEVERAL_RANGES) CHECK(c[0] - before[0] == 1 && c[2] - before[2] == 6 && c[1] == before[1]);
  else CHECK(c[1] - before[1] == 1 && c[0] == before[0]);
  int checked = 0;
  for (int i = 0; i < 6; i++) {
    int u = page_unclean(fd, pages[i] * P, P);
    if (u < 0) break;
    if (u) fprintf(stderr, "several: page %llu still dirty or under writeback after the fence\n", (unsigned long long)pages[i]);
    CHECK(u == 0);
    checked++;
  }
  amber_msync_detach(fd);
  munmap(a, HALF * P);
  munmap(b, HALF * P);
  close(fd);
  unlink(path);
  printf("several: ok (%s; %d of 6 pages dirty before the fence, %d checked clean after%s)\n", amber_msync_several_name[how],
         unclean_before, checked, checked ? "" : ": cachestat unavailable");
}

int main(int argc, char **argv) {
  const char *s = argc > 1 ? argv[1] : "";
  if (!strcmp(s, "order")) order();
  else if (!strcmp(s, "group")) group();
  else if (!strcmp(s, "detach")) detach();
  else if (!strcmp(s, "tickets")) tickets();
  else if (!strcmp(s, "coalesce")) coalesce();
  else if (!strcmp(s, "gather")) gather();
  else if (!strcmp(s, "order-gather")) order_gather();
  else if (!strcmp(s, "order-parallel")) order_parallel();
  else if (!strcmp(s, "overlap")) overlap();
  else if (!strcmp(s, "file-ranges")) file_ranges();
  else if (!strcmp(s, "ranges-safe")) ranges_safe();
  else if (!strcmp(s, "several") && argc > 2) several_ranges(argv[2]);
  else {
    fprintf(stderr, "usage: msync_group order|group|detach|tickets|coalesce|gather|order-gather|order-parallel|overlap|file-ranges|ranges-safe|several FILE\n");
    return 2;
  }
  return 0;
}
