/* hog SEED HOGS SECONDS CMD [ARGS...]: runs CMD while HOGS busy processes
 * per CPU (pinned to each CPU this process may use) compete with it, each
 * on a schedule drawn from SEED: bursts of 1 to 12 ms busy, 0 to 2 ms
 * asleep.  The hogs stop when CMD exits or after SECONDS (a bound, so a hung
 * CMD cannot keep them running); exits with CMD's status. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t next(uint64_t *s) { /* xorshift64* */
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ull;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void hog(int cpu, uint64_t seed, double seconds) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set)) _exit(1);
  double end = now() + seconds;
  volatile uint64_t sink = 0;
  while (now() < end) {
    double busy = (double)(1 + next(&seed) % 12) / 1e3, until = now() + busy;
    while (now() < until)
      for (int i = 0; i < 10000; i++) sink += (uint64_t)i;
    struct timespec nap = {0, (long)(next(&seed) % 3) * 1000000L};
    if (nap.tv_nsec) nanosleep(&nap, NULL);
  }
  _exit(0);
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: hog SEED HOGS SECONDS CMD [ARGS...]\n");
    return 2;
  }
  uint64_t seed = strtoull(argv[1], NULL, 0) | 1;
  int hogs = atoi(argv[2]);
  double seconds = atof(argv[3]);
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set)) return 2;
  pid_t pids[1024];
  int n = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE && n < 1024 - hogs; cpu++)
    if (CPU_ISSET(cpu, &set))
      for (int k = 0; k < hogs; k++) {
        uint64_t s = seed ^ ((uint64_t)(cpu * 64 + k + 1) * 0x9e3779b97f4a7c15ull);
        pid_t p = fork();
        if (p == 0) hog(cpu, s ? s : 1, seconds);
        if (p > 0) pids[n++] = p;
      }
  pid_t c = fork();
  if (c == 0) {
    execvp(argv[4], argv + 4);
    perror("hog: exec");
    _exit(127);
  }
  int st = 0;
  waitpid(c, &st, 0);
  for (int i = 0; i < n; i++) kill(pids[i], SIGKILL);
  for (int i = 0; i < n; i++) waitpid(pids[i], NULL, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
