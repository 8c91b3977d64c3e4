/* bench/sync_pattern.c: the floor of the msync backend's sync step on a disk
 * file (docs/engines/msync.md, "Several ranges"), one JSON line per pattern.
 * Plain C, no amber:
 *
 *   cc -O2 -o /tmp/sync_pattern bench/sync_pattern.c
 *   /tmp/sync_pattern DIR [ROUNDS [OTHER]]   # DIR on the disk (not tmpfs); OTHER default 8
 *
 * A 64 MiB file, written and fdatasynced first, mapped MAP_SHARED.  Every
 * round stores one word in each of the pattern's pages through the mapping,
 * and also in OTHER pages outside the ranges to sync (another thread's
 * in-place data pages, dirty but not yet needed durable), then makes the
 * ranges durable:
 *
 *   one-msync     1 range: msync(MS_SYNC) of its page (one thread's commit)
 *   fdatasync     4 distant pages: one fdatasync of the file (main at 8efe683)
 *   msync-each    4 distant pages: one msync per page
 *   sfr-wait-each 4 distant pages: per page sync_file_range WRITE+WAIT, then
 *                 one msync (tried and dropped before 8efe683)
 *   sfr-write-all 4 distant pages: sync_file_range WRITE on all, then
 *                 WAIT_BEFORE|WRITE|WAIT_AFTER on the first 3, then one
 *                 msync of the last (the ranged path)
 *   near-each     4 pages 4 pages apart, the ranged path one call each
 *   near-span     the same 4 pages as one msync of their 13-page span
 *
 * The patterns run interleaved, round by round; medians and quartiles in µs.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define FILE_BYTES (64u << 20)
#define PG 4096u
static unsigned OTHER = 8; /* pages dirtied per pattern and round outside the ranges (argv[3]) */

static int fd;
static char *map;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what) {
  perror(what);
  exit(1);
}

static void sfr(size_t pg, unsigned flags) {
  if (sync_file_range(fd, (off_t)(pg * PG), PG, flags) != 0) die("sync_file_range");
}

static void ms(size_t pg, size_t npg) {
  if (msync(map + pg * PG, npg * PG, MS_SYNC) != 0) die("msync");
}

enum { ONE, FDATASYNC, MSYNC_EACH, SFR_WAIT_EACH, SFR_WRITE_ALL, NEAR_EACH, NEAR_SPAN, NPAT };
static const char *const names[NPAT] = {"one-msync", "fdatasync", "msync-each", "sfr-wait-each", "sfr-write-all",
                                        "near-each", "near-span"};
static const unsigned WAIT_ALL = SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER;

static uint64_t round_of(int p, unsigned r) {
  size_t pages[4], n = p == ONE ? 1 : 4;
  size_t base = 64 + (r % 64) * 64; /* move through the file so no page stays hot */
  for (size_t i = 0; i < n; i++) pages[i] = p >= NEAR_EACH ? base + i * 4 : (base + i * 4096) % (FILE_BYTES / PG);
  for (size_t i = 0; i < n; i++) map[pages[i] * PG + (r % 512) * 8] = (char)r;
  for (size_t i = 0; i < OTHER; i++) map[((base + 2048 + i * 1000) % (FILE_BYTES / PG)) * PG] = (char)r;
  uint64_t t0 = now_ns();
  switch (p) {
  case ONE: ms(pages[0], 1); break;
  case FDATASYNC:
    if (fdatasync(fd) != 0) die("fdatasync");
    break;
  case MSYNC_EACH:
    for (size_t i = 0; i < n; i++) ms(pages[i], 1);
    break;
  case SFR_WAIT_EACH:
    for (size_t i = 0; i < n; i++) sfr(pages[i], SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
    ms(pages[n - 1], 1);
    break;
  case SFR_WRITE_ALL:
  case NEAR_EACH:
    for (size_t i = 0; i < n; i++) sfr(pages[i], SYNC_FILE_RANGE_WRITE);
    for (size_t i = 0; i + 1 < n; i++) sfr(pages[i], WAIT_ALL);
    ms(pages[n - 1], 1);
    break;
  case NEAR_SPAN: ms(pages[0], pages[n - 1] - pages[0] + 1); break;
  }
  return now_ns() - t0;
}

static int cmp(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: sync_pattern DIR [ROUNDS]\n");
    return 2;
  }
  unsigned rounds = argc > 2 ? (unsigned)atoi(argv[2]) : 200;
  if (argc > 3) OTHER = (unsigned)atoi(argv[3]);
  char path[4096];
  snprintf(path, sizeof path, "%s/sync_pattern.%d", argv[1], (int)getpid());
  fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) die(path);
  static char buf[1 << 20];
  memset(buf, 1, sizeof buf);
  for (unsigned i = 0; i < FILE_BYTES / sizeof buf; i++)
    if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) die("write");
  if (fdatasync(fd) != 0) die("fdatasync");
  map = mmap(NULL, FILE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) die("mmap");
  uint64_t *t[NPAT];
  for (int p = 0; p < NPAT; p++) t[p] = calloc(rounds, sizeof *t[p]);
  for (unsigned r = 0; r < rounds; r++)
    for (int p = 0; p < NPAT; p++) {
      int q = (p + (int)r) % NPAT; /* rotate the order too */
      t[q][r] = round_of(q, r);
    }
  for (int p = 0; p < NPAT; p++) {
    qsort(t[p], rounds, sizeof *t[p], cmp);
    printf("{\"pattern\": \"%s\", \"rounds\": %u, \"other_pages\": %u, \"median_us\": %.1f, \"p25_us\": %.1f, \"p75_us\": %.1f}\n", names[p],
           rounds, OTHER, t[p][rounds / 2] / 1e3, t[p][rounds / 4] / 1e3, t[p][rounds * 3 / 4] / 1e3);
  }
  munmap(map, FILE_BYTES);
  close(fd);
  unlink(path);
  return 0;
}
