// Output exactly once ([2b/7] item 4, docs/guide.md 2.3 "Output"): what a
// region writes to streams and descriptors is held until it commits, issued
// in program order, and dropped when the region is undone, so each line
// appears once whether the region commits first time or after aborts.
//  - retry: a region prints through every output function, then calls
//    amber_retry() on its first two runs: each line once, in order;
//  - conflict (mvcc): a region that prints aborts on a lock conflict until
//    the holder commits: its line once;
//  - library: a region prints, calls a plain-clang shared library through a
//    pointer (the region becomes irrevocable there; mvcc restarts it alone
//    the first time), then prints again: before/lib/after once each, three
//    times;
//  - order: lines of regions and of code outside them keep program order;
//  - cancel: amber_cancel() drops the region's output;
//  - prompt: a prompt printed before a read is out before the read (the
//    read makes the region irrevocable, which issues the held output);
//  - fatal: an amber: error: inside a region drops what it held (it never
//    commits), while what committed regions printed is flushed first
//    ([2b/7] item 6);
//  - memstream, nonblock: output that cannot wait (a memory stream the
//    region reads back, a non-blocking pipe) is written at once (the region
//    becomes irrevocable first).
// RUN: %clang -O1 -shared -fPIC %S/Inputs/output_lib.c -o %t.lib.so
// RUN: %amber_cc -O2 %s %t.lib.so -o %t -pthread
// RUN: env AMBER_ENGINE=mvcc %run %t retry 2>&1 | FileCheck %s --check-prefix=RETRY
// RUN: env AMBER_ENGINE=romulus %run %t retry 2>&1 | FileCheck %s --check-prefix=RETRY
// RUN: env AMBER_ENGINE=mvcc %run %t conflict | FileCheck %s --check-prefix=CONFLICT
// RUN: env AMBER_ENGINE=mvcc AMBER_STRICT=0 %run %t library | FileCheck %s --check-prefix=LIB
// RUN: env AMBER_ENGINE=romulus AMBER_STRICT=0 %run %t library | FileCheck %s --check-prefix=LIB
// RUN: env AMBER_ENGINE=mvcc %run %t order 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: env AMBER_ENGINE=romulus %run %t order 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: env AMBER_ENGINE=mvcc %run %t cancel | FileCheck %s --check-prefix=CANCEL
// RUN: env AMBER_ENGINE=romulus %run %t cancel | FileCheck %s --check-prefix=CANCEL
// RUN: echo amber > %t.in
// RUN: env AMBER_ENGINE=mvcc %run %t prompt < %t.in > %t.out && FileCheck %s --check-prefix=PROMPT < %t.out
// RUN: env AMBER_ENGINE=romulus %run %t prompt < %t.in > %t.out && FileCheck %s --check-prefix=PROMPT < %t.out
// RUN: not env AMBER_ENGINE=mvcc %run %t fatal > %t.fatal 2>&1; FileCheck %s --check-prefix=FATAL < %t.fatal
// RUN: not env AMBER_ENGINE=romulus %run %t fatal > %t.fatal 2>&1; FileCheck %s --check-prefix=FATAL < %t.fatal
// RUN: env AMBER_ENGINE=mvcc %run %t memstream | FileCheck %s --check-prefix=MEM
// RUN: env AMBER_ENGINE=romulus %run %t memstream | FileCheck %s --check-prefix=MEM
// RUN: env AMBER_ENGINE=mvcc %run %t nonblock | FileCheck %s --check-prefix=NONBLOCK
// RUN: env AMBER_ENGINE=romulus %run %t nonblock | FileCheck %s --check-prefix=NONBLOCK
//
// RETRY: printf 7
// RETRY-NEXT: puts
// RETRY-NEXT: xy
// RETRY-NEXT: fputs fwrite
// RETRY-NEXT: stderr: 3
// RETRY-NEXT: perror: Permission denied
// RETRY-NEXT: write
// RETRY-NEXT: dprintf 9
// RETRY-NEXT: runs 3 count 1
// RETRY-NOT: {{.}}
// CONFLICT: holder
// CONFLICT-NEXT: victim x 1
// CONFLICT-NEXT: victim runs > 1: yes
// CONFLICT-NOT: {{.}}
// LIB-COUNT-3: before{{$}}
// LIB-NEXT: lib: inside
// LIB-NEXT: after{{$}}
// LIB-NEXT: done
// LIB-NOT: {{.}}
// ORDER: outside 0
// ORDER-NEXT: region 0 a
// ORDER-NEXT: region 0 b
// ORDER-NEXT: outside 1
// ORDER-NEXT: region 1 a
// ORDER-NEXT: region 1 b
// ORDER-NEXT: outside 2
// ORDER-NEXT: region 2 a
// ORDER-NEXT: region 2 b
// ORDER-NEXT: bad descriptor -1 EBADF yes
// ORDER-NOT: {{.}}
// CANCEL: cancelled 1 count 0
// CANCEL-NOT: {{.}}
// PROMPT: name? hello amber
// PROMPT-NEXT: prompt out before the read: yes
// FATAL: committed region's line
// FATAL-NOT: never printed
// FATAL: amber: error: amber_retry() in region
// FATAL-NOT: never printed
// MEM: memstream inside: [hello 42]
// NONBLOCK: pipe: [abc] count 1
#define _GNU_SOURCE
#include <amber.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void output_lib_say(const char *what);

struct root { long count; long pad[7]; long x; long pad2[7]; };
static struct root *r;
AMBER_UNISOLATED static long runs;            /* every run of a region */
AMBER_UNISOLATED static int locked, trying;   /* the conflict's handshake */

static void retry(void) {
  AMBER_ATOMIC {
    runs++;
    r->count++;
    printf("printf %d\n", 7);
    puts("puts");
    putchar('x');
    fputc('y', stdout);
    putc('\n', stdout);
    fputs("fputs ", stdout);
    fwrite("fwrite\n", 1, 7, stdout);
    fflush(stdout);
    fprintf(stderr, "stderr: %d\n", 3);
    errno = EACCES;
    perror("perror");
    write(1, "write\n", 6);
    dprintf(1, "dprintf %d\n", 9);
    if (runs < 3) amber_retry();
  }
  printf("runs %ld count %ld\n", runs, r->count);
}

static void *holder(void *arg) {
  (void)arg;
  AMBER_ATOMIC {
    r->x = 1;
    printf("holder\n");
    __atomic_store_n(&locked, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&trying, __ATOMIC_ACQUIRE)) {
    }
  }
  return NULL;
}

static void *victim(void *arg) {
  (void)arg;
  while (!__atomic_load_n(&locked, __ATOMIC_ACQUIRE)) {
  }
  long seen = 0;
  AMBER_ATOMIC {
    runs++;
    seen = r->x;
    __atomic_store_n(&trying, 1, __ATOMIC_RELEASE);
    r->x = 2; /* conflicts with the holder until it commits */
    printf("victim x %ld\n", seen);
  }
  return NULL;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "retry";
  r = amber_root(sizeof *r);
  if (!strcmp(mode, "retry")) {
    setvbuf(stdout, NULL, _IONBF, 0); /* stdio and write(1) in one order */
    retry();
  } else if (!strcmp(mode, "conflict")) {
    pthread_t h, v;
    pthread_create(&h, NULL, holder, NULL);
    pthread_create(&v, NULL, victim, NULL);
    pthread_join(h, NULL);
    pthread_join(v, NULL);
    printf("victim runs > 1: %s\n", runs > 1 ? "yes" : "no");
  } else if (!strcmp(mode, "library")) {
    void (*volatile say)(const char *) = output_lib_say;
    for (int i = 0; i < 3; i++) {
      AMBER_ATOMIC {
        r->count++;
        printf("before\n");
        say("inside");
        printf("after\n");
      }
    }
    printf("done\n");
  } else if (!strcmp(mode, "order")) {
    setvbuf(stdout, NULL, _IONBF, 0);
    for (int i = 0; i < 3; i++) {
      printf("outside %d\n", i);
      AMBER_ATOMIC {
        runs++;
        r->count++;
        printf("region %d a\n", i);
        dprintf(1, "region %d b\n", i);
        if (runs % 2) amber_retry();
      }
    }
    int bad = 0, err = 0;
    AMBER_ATOMIC {
      bad = dprintf(99, "never\n");
      err = errno;
    }
    printf("bad descriptor %d EBADF %s\n", bad, err == EBADF ? "yes" : "no");
  } else if (!strcmp(mode, "cancel")) {
    int committed = 0;
    AMBER_ATOMIC {
      r->count++;
      printf("never printed\n");
      if (r->count > 0) amber_cancel();
      committed = 1;
    }
    printf("cancelled %d count %ld\n", !committed, r->count);
  } else if (!strcmp(mode, "prompt")) {
    char buf[64] = "";
    long out_before = -1;
    AMBER_ATOMIC {
      r->count++;
      printf("name? ");
      fflush(stdout);
      if (!fgets(buf, sizeof buf, stdin)) strcpy(buf, "(none)\n");
      struct stat st;
      if (fstat(1, &st) == 0) out_before = (long)st.st_size; /* stdout is a file */
      printf("hello %s", buf);
    }
    printf("prompt out before the read: %s\n", out_before == 6 ? "yes" : "no");
  } else if (!strcmp(mode, "fatal")) {
    AMBER_ATOMIC {
      r->count++;
      printf("committed region's line\n"); /* buffered: stdout is a file */
    }
    AMBER_ATOMIC {
      r->count++;
      printf("never printed\n");
      fsync(1);      /* irrevocable (not output), and the output stays held */
      amber_retry(); /* an amber: error: after an irrevocable call */
    }
  } else if (!strcmp(mode, "memstream")) {
    char *mbuf = NULL, seen[64] = "";
    size_t mlen = 0;
    FILE *m = open_memstream(&mbuf, &mlen);
    AMBER_ATOMIC {
      r->count++;
      fprintf(m, "hello %d", 42);
      fflush(m);
      strncpy(seen, mbuf, sizeof seen - 1); /* the region reads what it wrote */
    }
    fclose(m);
    free(mbuf);
    printf("memstream inside: [%s]\n", seen);
  } else if (!strcmp(mode, "nonblock")) {
    int p[2];
    char got[16] = "";
    if (pipe2(p, O_NONBLOCK) != 0) return 1;
    AMBER_ATOMIC {
      r->count++;
      if (write(p[1], "abc", 3) != 3) r->count = -1;
    }
    if (read(p[0], got, sizeof got - 1) < 0) return 1;
    printf("pipe: [%s] count %ld\n", got, r->count);
  }
  return 0;
}
