// amber_usage: objects and bytes go up by what a region allocates and back
// down when it is freed.
// RUN: %amber_cc -O2 %s -o %t
// RUN: %run %t | FileCheck %s
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>

struct root { void *p[3]; };

int main(void) {
  struct root *r = amber_root(sizeof *r);
  struct amber_usage u0, u1, u2;
  amber_usage(&u0);
  printf("root counted %d capacity %d\n", u0.objects >= 1 && u0.bytes >= sizeof *r,
         u0.heap_bytes >= (32u << 20) && u0.heap_bytes <= (64u << 20));
  AMBER_ATOMIC {
    r->p[0] = malloc(100);
    r->p[1] = malloc(1000);
    r->p[2] = calloc(10, 1000);
  }
  amber_usage(&u1);
  size_t db = u1.bytes - u0.bytes;
  printf("after alloc: objects +%zu bytes-ok %d\n", u1.objects - u0.objects,
         db >= 11100 && db <= 2 * 11100 + 3 * 64);
  AMBER_ATOMIC {
    free(r->p[1]);
    r->p[1] = NULL;
  }
  amber_usage(&u2);
  printf("after one free: objects +%zu\n", u2.objects - u0.objects);
  AMBER_ATOMIC {
    free(r->p[0]);
    free(r->p[2]);
    free(NULL);
  }
  amber_usage(&u2);
  printf("after all free: objects +%zu bytes +%zu\n", u2.objects - u0.objects,
         u2.bytes - u0.bytes);
  return 0;
}
// CHECK: root counted 1 capacity 1
// CHECK-NEXT: after alloc: objects +3 bytes-ok 1
// CHECK-NEXT: after one free: objects +2
// CHECK-NEXT: after all free: objects +0 bytes +0
