// floats, doubles and whole structs (struct assignment, arrays of structs)
// written inside regions.
// RUN: %amber_cc -O2 %s -o %t
// RUN: %run %t | FileCheck %s --check-prefix=FIRST
// RUN: %rerun %t | FileCheck %s --check-prefix=SECOND
#include <amber.h>
#include <stdio.h>

struct point { double x, y; float w; int tag; };
struct big { struct point pts[10]; char name[40]; short s; unsigned char c; };
struct root { float f; double d; struct point p; struct big b; struct big copy; long runs; };

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  struct point local = {1.5, -2.25, 0.125f, argc};
  AMBER_ATOMIC {
    r->runs++;
    r->f = r->f * 2.0f + 0.5f;
    r->d = r->d / 3.0 + 1.0 / 7.0;
    r->p = local;                     /* struct assignment */
    r->p.x *= (double)r->runs;
    for (int i = 0; i < 10; i++) {
      struct point q = {i * 0.5, i * -1.0, (float)i / 4, i};
      r->b.pts[i] = q;
    }
    r->b.s = (short)(-1234 * r->runs);
    r->b.c = 200;
    for (int i = 0; i < 39; i++)
      r->b.name[i] = (char)('a' + i % 26);
    r->copy = r->b;                   /* large struct copy */
  }
  double sx = 0, sy = 0, sw = 0;
  int st = 0;
  for (int i = 0; i < 10; i++) {
    sx += r->copy.pts[i].x;
    sy += r->copy.pts[i].y;
    sw += r->copy.pts[i].w;
    st += r->copy.pts[i].tag;
  }
  printf("f %.4f d %.10f p %.3f %.3f %.4f %d\n", r->f, r->d, r->p.x, r->p.y, r->p.w, r->p.tag);
  printf("copy %.2f %.2f %.3f %d s %d c %d name %.5s\n", sx, sy, sw, st, r->copy.s, r->copy.c,
         r->copy.name);
  return 0;
}
// FIRST: f 0.5000 d 0.1428571429 p 1.500 -2.250 0.1250 1
// FIRST-NEXT: copy 22.50 -45.00 11.250 45 s -1234 c 200 name abcde
// SECOND: f 1.5000 d 0.1904761905 p 3.000 -2.250 0.1250 1
// SECOND-NEXT: copy 22.50 -45.00 11.250 45 s -2468 c 200 name abcde
