// The pointer check (AMBER_CHECK_POINTERS, issue 27 item 2): a commit that
// leaves a persistent word pointing into volatile memory (memory malloc'd
// outside regions, a stack, a global) is reported with the region's
// file:line; error mode stops the program before that commit, so the heap
// keeps nothing of it; warn mode reports each site once and goes on; off
// checks nothing.  A persistent->persistent pointer, a word overwritten
// before the commit and a non-pointer value are never reported.  Both
// engines; stores outside regions are checked at their batch's commit.
// RUN: %amber_cc -O1 %s -o %t
// RUN: env AMBER_CHECK_POINTERS=error %run %t clean | FileCheck %s --check-prefix=CLEAN
// RUN: env AMBER_CHECK_POINTERS=error AMBER_ENGINE=romulus %run %t clean | FileCheck %s --check-prefix=CLEAN
// RUN: not env AMBER_CHECK_POINTERS=error AMBER_ENGINE=mvcc %run %t malloc > %t.out 2>&1
// RUN: %rerun %t show >> %t.out 2>&1 && FileCheck %s --check-prefix=MALLOC < %t.out
// RUN: not env AMBER_CHECK_POINTERS=error AMBER_ENGINE=mvcc %run %t stack > %t.out 2>&1
// RUN: %rerun %t show >> %t.out 2>&1 && FileCheck %s --check-prefix=STACK < %t.out
// RUN: not env AMBER_CHECK_POINTERS=error AMBER_ENGINE=mvcc %run %t global > %t.out 2>&1
// RUN: %rerun %t show >> %t.out 2>&1 && FileCheck %s --check-prefix=GLOBAL < %t.out
// RUN: not env AMBER_CHECK_POINTERS=error AMBER_ENGINE=mvcc %run %t tstack > %t.out 2>&1
// RUN: %rerun %t show >> %t.out 2>&1 && FileCheck %s --check-prefix=TSTACK < %t.out
// RUN: not env AMBER_CHECK_POINTERS=error AMBER_ENGINE=mvcc %run %t rodata > %t.out 2>&1
// RUN: %rerun %t show >> %t.out 2>&1 && FileCheck %s --check-prefix=RODATA < %t.out
// RUN: not env AMBER_CHECK_POINTERS=error AMBER_ENGINE=romulus %run %t malloc > %t.out 2>&1
// RUN: %rerun %t show >> %t.out 2>&1 && FileCheck %s --check-prefix=MALLOC < %t.out
// RUN: not env AMBER_CHECK_POINTERS=error AMBER_ENGINE=romulus %run %t stack > %t.out 2>&1
// RUN: %rerun %t show >> %t.out 2>&1 && FileCheck %s --check-prefix=STACK < %t.out
// RUN: not env AMBER_CHECK_POINTERS=error AMBER_ENGINE=romulus %run %t global > %t.out 2>&1
// RUN: %rerun %t show >> %t.out 2>&1 && FileCheck %s --check-prefix=GLOBAL < %t.out
// RUN: not env AMBER_CHECK_POINTERS=error AMBER_ENGINE=romulus %run %t tstack > %t.out 2>&1
// RUN: %rerun %t show >> %t.out 2>&1 && FileCheck %s --check-prefix=TSTACK < %t.out
// RUN: not env AMBER_CHECK_POINTERS=error AMBER_ENGINE=romulus %run %t rodata > %t.out 2>&1
// RUN: %rerun %t show >> %t.out 2>&1 && FileCheck %s --check-prefix=RODATA < %t.out
// RUN: not env AMBER_CHECK_POINTERS=error %run %t stray 2>&1 | FileCheck %s --check-prefix=STRAY
// RUN: not env AMBER_CHECK_POINTERS=error AMBER_ENGINE=romulus %run %t copy 2>&1 | FileCheck %s --check-prefix=COPY
// RUN: not env AMBER_CHECK_POINTERS=error %run %t libc 2>&1 | FileCheck %s --check-prefix=LIBC
// RUN: env AMBER_CHECK_POINTERS=warn %run %t warn 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: env AMBER_CHECK_POINTERS=warn AMBER_ENGINE=romulus %run %t warn 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: env AMBER_CHECK_POINTERS=off %run %t malloc 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: env -u AMBER_CHECK_POINTERS %run %t malloc 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: not env AMBER_CHECK_POINTERS=maybe %run %t clean 2>&1 | FileCheck %s --check-prefix=BADOPT
#define _GNU_SOURCE
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
  long key;
  struct node *next;
};
struct root {
  void *p;        /* the word the tests point somewhere */
  struct node *list;
  long n, hash, dbl;
  void *words[4];
};

static long global_counter = 7; /* .data */
static long zeroed[1 << 17]; /* .bss, 1 MiB: its end is anonymous memory after the image's data */
static const char greeting[] = "a constant that lives in .rodata";

static struct root *r;

static void *set_from_thread(void *arg) {
  (void)arg;
  long local = 1;
  AMBER_ATOMIC { r->p = &local; } // line of TSTACK
  // TSTACK: amber: error: region set_from_thread{{.*}} ({{.*}}ptrcheck.c:[[#@LINE-1]]) left a persistent pointer {{.*}} (the stack of thread 1, the committing thread)
  return NULL;
}

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "clean";
  r = amber_root(sizeof *r);
  if (!strcmp(what, "show")) {
    printf("p after the run: %s\n", r->p ? "set" : "null");
    return 0;
  }
  if (!strcmp(what, "clean")) {
    long local = 3;
    void *vol = malloc(32);
    AMBER_ATOMIC {
      struct node *n = malloc(sizeof *n); /* persistent: fine */
      n->key = 1;
      n->next = r->list;
      r->list = n;
      r->p = n;
      r->n = 0x7fff12345678;      /* looks like a pointer, is mapped nowhere */
      r->hash = (long)0x9e3779b97f4a7c15ull;
      double d = 3.5;
      memcpy(&r->dbl, &d, 8);
      r->words[0] = &local;       /* a stack address ... */
      r->words[0] = NULL;         /* ... overwritten before the commit */
      r->words[1] = vol;
      r->words[1] = r->list;
    }
    free(vol);
    printf("clean: %ld\n", r->list->key);
    // CLEAN: clean: 1
    return 0;
  }
  if (!strcmp(what, "malloc")) {
    void *vol = malloc(64);
    AMBER_ATOMIC { r->p = vol; } // line of MALLOC
    printf("committed\n");
    return 0;
  }
  // MALLOC: amber: error: region main{{.*}} ({{.*}}ptrcheck.c:[[#@LINE-4]]) left a persistent pointer at heap+0x{{[0-9a-f]+}} to volatile memory (libc heap: memory malloc'd outside any region): 0x{{[0-9a-f]+}}, which the next run cannot have; allocate what it points to inside a region
  // MALLOC: amber: error: stopped by the pointer check (AMBER_CHECK_POINTERS=error) before the commit: the heap keeps nothing of this transaction
  // MALLOC-NOT: committed
    // MALLOC: p after the run: null
  if (!strcmp(what, "stack")) {
    long local = 2;
    AMBER_ATOMIC { r->p = &local; } // line of STACK
    printf("committed %ld\n", local);
    return 0;
  }
  // STACK: amber: error: region main{{.*}} ({{.*}}ptrcheck.c:[[#@LINE-4]]) left a persistent pointer at heap+0x{{[0-9a-f]+}} to volatile memory (the stack of thread 0, the committing thread): 0x
    // STACK: p after the run: null
  if (!strcmp(what, "global")) {
    AMBER_ATOMIC { // line of GLOBAL
      r->p = &global_counter;
      r->words[0] = &zeroed[(1 << 17) - 1];
    }
    printf("committed\n");
    return 0;
  }
  // GLOBAL: amber: error: region main{{.*}} ({{.*}}ptrcheck.c:[[#@LINE-7]]) left a persistent pointer at heap+0x{{[0-9a-f]+}} to volatile memory (data of {{.*}}ptrcheck.c.tmp: a global or static variable, or a constant): 0x
  // GLOBAL-NEXT: amber: error: region main{{.*}} ({{.*}}ptrcheck.c:[[#@LINE-8]]) left a persistent pointer at heap+0x{{[0-9a-f]+}} to volatile memory (data of {{.*}}ptrcheck.c.tmp: a global or static variable, or a constant): 0x
    // GLOBAL: p after the run: null
  if (!strcmp(what, "rodata")) {
    AMBER_ATOMIC { r->p = (void *)greeting; } // line of RODATA
    printf("committed\n");
    return 0;
  }
  // RODATA: amber: error: region main{{.*}} ({{.*}}ptrcheck.c:[[#@LINE-4]]) left a persistent pointer {{.*}} (data of {{.*}}ptrcheck.c.tmp: a global or static variable, or a constant)
    // RODATA: p after the run: null
  if (!strcmp(what, "tstack")) {
    pthread_t th;
    pthread_create(&th, NULL, set_from_thread, NULL);
    pthread_join(th, NULL);
    printf("committed\n");
    return 0;
  }
    // TSTACK: p after the run: null
  if (!strcmp(what, "stray")) {
    void *vol = malloc(64);
    r->words[2] = vol; // a store outside regions
    amber_sync();
    printf("committed\n");
    return 0;
  }
  // STRAY: amber: error: the stores outside regions at {{.*}}ptrcheck.c:[[#@LINE-5]] (committed as one batch) left a persistent pointer at heap+0x{{[0-9a-f]+}} to volatile memory (libc heap: memory malloc'd outside any region)
    if (!strcmp(what, "copy")) {
    void *vol[4] = {0, 0, malloc(16), 0};
    AMBER_ATOMIC { memcpy(r->words, vol, sizeof vol); } // line of COPY
    printf("committed\n");
    return 0;
  }
  // COPY: amber: error: region main{{.*}} ({{.*}}ptrcheck.c:[[#@LINE-4]]) left a persistent pointer at heap+0x{{[0-9a-f]+}} to volatile memory (libc heap
    if (!strcmp(what, "libc")) {
    /* outside regions asprintf's buffer is libc's: its pointer lands in the heap */
    if (asprintf((char **)&r->words[3], "%s", "volatile") < 0) return 1;
    printf("committed\n");
    return 0;
  }
  // LIBC: amber: error: a libc function (asprintf, getline, strtok_r, ...), free or realloc called outside regions left a persistent pointer at heap+0x{{[0-9a-f]+}} to volatile memory (libc heap
  if (!strcmp(what, "warn")) {
    long local = 5;
    for (int i = 0; i < 3; i++) {
      void *vol = malloc(64);
      AMBER_ATOMIC { r->p = vol; } // reported once
      AMBER_ATOMIC { r->words[3] = &local; }
    }
    printf("warn: done, p %s\n", r->p ? "set" : "null");
    return 0;
  }
  // WARN: amber: warning: region main{{.*}} ({{.*}}ptrcheck.c:[[#@LINE-6]]) left a persistent pointer {{.*}} (libc heap: {{.*}} (reported once per site
  // WARN-NEXT: amber: warning: region main{{.*}} ({{.*}}ptrcheck.c:[[#@LINE-6]]) left a persistent pointer {{.*}} (the stack of thread 0
  // WARN-NEXT: warn: done, p set
  // WARN-NOT: amber:
  return 2;
}
// OFF-NOT: amber:
// OFF: committed
// BADOPT: amber: error: AMBER_CHECK_POINTERS=maybe is not a checking mode; use off (the default), warn or error
