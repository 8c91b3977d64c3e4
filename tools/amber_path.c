/* amber path PROGRAM: the default heap a program opens when neither
 * AMBER_HEAP nor amber_open names one (docs/guide.md, "Which heap").  The
 * same computation as the runtime's (heap/owner.c), for the program's
 * resolved path; it creates nothing. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "amber_tool.h"
#include "base/diag.h"
#include "heap/owner.h"

/* PROGRAM as the shell would find it: a name without a slash is looked up
 * in PATH; the result is resolved, as /proc/self/exe names a running
 * program. */
static int resolve(const char *prog, char *out) {
  if (strchr(prog, '/')) return realpath(prog, out) ? 0 : -1;
  const char *path = getenv("PATH");
  for (const char *p = path ? path : ""; *p;) {
    const char *end = strchr(p, ':');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    char cand[PATH_MAX];
    if (snprintf(cand, sizeof cand, "%.*s/%s", (int)n, n ? p : ".", prog) < (int)sizeof cand &&
        access(cand, X_OK) == 0 && realpath(cand, out))
      return 0;
    p += n + (end != NULL);
  }
  errno = ENOENT;
  return -1;
}

int amber_cmd_path(int argc, char **argv) {
  if (argc != 1 || argv[0][0] == '-') {
    amber_tool_usage();
    return 2;
  }
  char exe[PATH_MAX], heap[PATH_MAX], legacy[PATH_MAX];
  if (resolve(argv[0], exe) != 0) {
    amber_error("cannot find program %s: %s; give its path (e.g. ./%s)", argv[0], strerror(errno), argv[0]);
    return 2;
  }
  if (amber_heap_default_name(exe, heap, sizeof heap, legacy, sizeof legacy) != 0) return 2;
  struct stat sb;
  /* The runtime keeps a heap of the old shared name in use (init.c). */
  if (lstat(heap, &sb) != 0 && lstat(legacy, &sb) == 0) {
    fprintf(stderr, "amber: note: %s has no heap of its own yet and uses %s, the old default name shared by every "
                    "program of that base name (mv %s %s makes it its own)\n",
            exe, legacy, legacy, heap);
    puts(legacy);
    return 0;
  }
  puts(heap);
  return 0;
}
