/* Live statistics (live.h): the page a running program publishes for
 * `amber stats --pid PID`, and the thread that fills it when asked. */
#include "live.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/options.h"
#include "heap/heap.h"
#include "heap/window.h"
#include "init.h"
#include "stats.h"
#include "tx/alloc.h"
#include "tx/tx.h"

static struct amber_live_page *page;
static char path[96];
static pid_t owner; /* the process that made the page (a forked child does not remove it) */
static struct timespec started;

static uint64_t ns_of(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void amber_live_write(FILE *f) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  double up = (double)(now.tv_sec - started.tv_sec) + (double)(now.tv_nsec - started.tv_nsec) / 1e9;
  char exe[512];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = 0;
  fprintf(f, "{\"pid\": %d, \"program\": ", (int)getpid());
  amber_stats_json_str(f, exe);
  fprintf(f, ", \"heap\": ");
  amber_stats_json_str(f, amber_the_heap.path);
  fprintf(f, ", \"time_ns\": %llu, \"uptime_s\": %.3f, ", (unsigned long long)ns_of(CLOCK_REALTIME), up);
  amber_stats_write_groups(f);
  /* The engine's own figures, as AMBER_STATS_FILE has them, under "engine". */
  fprintf(f, ", \"engine\": {\"name\": \"%s\"", amber_tx_engine ? amber_tx_engine->name : "none");
  if (amber_tx_engine && amber_tx_engine->stats) amber_tx_engine->stats(f, 1);
  fprintf(f, "}");
  /* The allocator as the data area holds it (mvcc: as of its last
   * write-back; the census only reads, and counts what it cannot trust
   * as damaged instead of following it). */
  struct amber_alloc_census c;
  memset(&c, 0, sizeof c);
  if (!__atomic_load_n(&amber_heap_closed, __ATOMIC_ACQUIRE)) amber_alloc_census(&amber_the_heap, amber_the_heap.data, &c);
  uint64_t alloc_pages = c.pages - c.meta_pages;
  fprintf(f, ", \"alloc\": {\"heap_bytes\": %llu, \"used_objects\": %llu, \"used_bytes\": %llu, \"free_pages\": %llu, "
             "\"allocatable_pages\": %llu, \"slab_pages\": %llu, \"large_objects\": %llu, \"fill\": %.4f}}",
          (unsigned long long)amber_the_heap.hdr.data_size, (unsigned long long)c.objects, (unsigned long long)c.bytes,
          (unsigned long long)c.free_pages, (unsigned long long)alloc_pages, (unsigned long long)c.slab_pages,
          (unsigned long long)c.large_objects, alloc_pages ? (double)(alloc_pages - c.free_pages) / (double)alloc_pages : 0.0);
}

static long futex(uint32_t *w, int op, uint32_t v) { return syscall(SYS_futex, w, op, v, NULL, NULL, 0); }

/* Fills the page once: seq odd while text changes, so a reader that copies
 * it during a write sees the change and asks again. */
static void publish(void) {
  static char buf[AMBER_LIVE_BYTES];
  size_t room = AMBER_LIVE_BYTES - sizeof *page;
  FILE *f = fmemopen(buf, room, "w");
  if (!f) return;
  amber_live_write(f);
  long n = ftell(f);
  fclose(f);
  if (n < 0 || (size_t)n >= room) n = 0;
  __atomic_add_fetch(&page->seq, 1, __ATOMIC_ACQ_REL);
  memcpy(page->text, buf, (size_t)n);
  page->text[n] = 0;
  page->len = (uint32_t)n;
  page->time_ns = ns_of(CLOCK_REALTIME);
  page->mono_ns = ns_of(CLOCK_MONOTONIC);
  __atomic_add_fetch(&page->seq, 1, __ATOMIC_ACQ_REL);
}

static void *publisher(void *arg) {
  (void)arg;
  /* The publisher takes no signal meant for the program. */
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  for (;;) {
    uint32_t r = __atomic_load_n(&page->request, __ATOMIC_ACQUIRE);
    if (r != __atomic_load_n(&page->served, __ATOMIC_ACQUIRE)) {
      publish();
      __atomic_store_n(&page->served, r, __ATOMIC_RELEASE);
      futex(&page->served, FUTEX_WAKE, INT32_MAX);
      continue;
    }
    futex(&page->request, FUTEX_WAIT, r); /* until a reader asks */
  }
  return NULL;
}

static void remove_page(void) {
  if (page && getpid() == owner) unlink(path);
}

/* Pages of processes that ended without removing theirs (killed). */
static void sweep(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  for (struct dirent *e; (e = readdir(d));) {
    int pid;
    char tail[16];
    if (sscanf(e->d_name, "live-%d.%15s", &pid, tail) != 2 || strcmp(tail, "stats") || pid <= 0) continue;
    if (kill(pid, 0) == 0 || errno != ESRCH) continue;
    char p[160];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    unlink(p);
  }
  closedir(d);
}

void amber_live_start(void) {
  if (!amber_opt.live_stats) return;
  clock_gettime(CLOCK_MONOTONIC, &started);
  unsigned uid = (unsigned)geteuid();
  char dir[64];
  snprintf(dir, sizeof dir, AMBER_LIVE_DIR_FMT, uid);
  if (mkdir(dir, 0700) != 0 && errno != EEXIST) goto fail;
  /* The directory must be this user's alone (as the private heaps'). */
  struct stat sb;
  if (lstat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode) || sb.st_uid != uid || (sb.st_mode & (S_IWGRP | S_IWOTH))) {
    errno = EPERM;
    goto fail;
  }
  sweep(dir);
  owner = getpid();
  snprintf(path, sizeof path, AMBER_LIVE_FILE_FMT, uid, (int)owner);
  unlink(path); /* a page left by an earlier process of this pid */
  int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) goto fail;
  if (ftruncate(fd, AMBER_LIVE_BYTES) != 0) {
    close(fd);
    unlink(path);
    goto fail;
  }
  void *m = mmap(NULL, AMBER_LIVE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (m == MAP_FAILED) {
    unlink(path);
    goto fail;
  }
  page = m;
  page->pid = (int32_t)owner;
  memcpy(page->magic, AMBER_LIVE_MAGIC, sizeof page->magic);
  atexit(remove_page);
  pthread_t th;
  pthread_attr_t a;
  pthread_attr_init(&a);
  pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&a, 256 * 1024);
  int e = pthread_create(&th, &a, publisher, NULL);
  pthread_attr_destroy(&a);
  /* The name gdb's info amber skips (runtime/debugger.py). */
  if (!e) pthread_setname_np(th, "amber-live");
  if (e) {
    unlink(path);
    errno = e;
    goto fail;
  }
  return;
fail:
  if (amber_opt.verbose)
    amber_info("no live statistics for this process (%s: %s); amber stats --pid will not find it", path[0] ? path : dir,
               strerror(errno));
}
