// cmp_time's truth table at and around a fixed boundary, set through the
// API, through AMBER_ORDO_BOUNDARY, and under the logical clock (boundary 0).
// RUN: %unit_cc %s -o %t %unit_libs
// RUN: %t api
// RUN: env AMBER_ORDO_BOUNDARY=100 %t env
// RUN: env AMBER_ORDO_BOUNDARY=0x64 %t env
// RUN: env AMBER_CLOCK=logical %t logical
#include <assert.h>
#include <string.h>

#include "ordo/ordo.h"

static void table(uint64_t b) {
  const amber_time_t t = 1000000;
  assert(amber_ordo_boundary() == b);
  assert(amber_ordo_cmp_time(t, t) == 0);
  assert(amber_ordo_cmp_time(t + b, t) == 0);      /* at the boundary: uncertain */
  assert(amber_ordo_cmp_time(t, t + b) == 0);
  assert(amber_ordo_cmp_time(t + b + 1, t) == 1);  /* just past it: certain */
  assert(amber_ordo_cmp_time(t, t + b + 1) == -1);
  assert(amber_ordo_cmp_time(t + 2 * b + 5, t) == 1);
  if (b) {
    assert(amber_ordo_cmp_time(t + b - 1, t) == 0);
    assert(amber_ordo_cmp_time(t, t + b - 1) == 0);
  }
  amber_time_t n = amber_ordo_new_time(t);
  assert(amber_ordo_cmp_time(n, t) == 1 && amber_ordo_cmp_time(t, n) == -1);
  amber_time_t m = amber_ordo_new_time(n);
  assert(amber_ordo_cmp_time(m, n) == 1);
  assert(amber_ordo_get_time() >= m || amber_ordo_clk.mode == AMBER_ORDO_TSC);
}

int main(int argc, char **argv) {
  const char *how = argc > 1 ? argv[1] : "api";
  amber_ordo_init();
  if (!strcmp(how, "api")) {
    amber_ordo_set_boundary(100, AMBER_ORDO_SRC_API);
    if (amber_ordo_clk.mode == AMBER_ORDO_TSC) {
      assert(amber_ordo_clk.source == AMBER_ORDO_SRC_API);
      table(100);
    } else {
      table(0);
    }
  } else if (!strcmp(how, "env")) {
    if (amber_ordo_clk.mode == AMBER_ORDO_TSC) {
      table(100);
      assert(amber_ordo_clk.source == AMBER_ORDO_SRC_ENV);
    }
  } else {
    assert(amber_ordo_clk.mode == AMBER_ORDO_LOGICAL);
    table(0);
    assert(amber_ordo_clk.source == AMBER_ORDO_SRC_LOGICAL);
    /* The logical clock hands out distinct, increasing values. */
    amber_time_t a = amber_ordo_new_time(amber_ordo_get_time());
    amber_time_t b = amber_ordo_new_time(amber_ordo_get_time());
    assert(b > a && amber_ordo_get_time() == b);
  }
  return 0;
}
