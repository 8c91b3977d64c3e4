// RUN: %unit_cc %s -o %t %unit_libs && %t
// RUN: env AMBER_HEAP_SIZE=12M AMBER_STATS=yes AMBER_BASE=0x500000000000 %t env
#include <assert.h>
#include <string.h>

#include "base/options.h"

int main(int argc, char **argv) {
  uint64_t v;
  assert(amber_options_parse_size("4096", &v) == 0 && v == 4096);
  assert(amber_options_parse_size("64K", &v) == 0 && v == 65536);
  assert(amber_options_parse_size("3M", &v) == 0 && v == 3u << 20);
  assert(amber_options_parse_size("2g", &v) == 0 && v == 2ull << 30);
  assert(amber_options_parse_size("1MB", &v) == 0 && v == 1u << 20);
  assert(amber_options_parse_size("0x1000", &v) == 0 && v == 4096);
  assert(amber_options_parse_size("", &v) == -1);
  assert(amber_options_parse_size("-1", &v) == -1);
  assert(amber_options_parse_size("12Q", &v) == -1);
  assert(amber_options_parse_size("99999999999T", &v) == -1);
  amber_options_load();
  if (argc > 1 && !strcmp(argv[1], "env")) {
    assert(amber_opt.heap_size == 12u << 20 && amber_opt.heap_size_set);
    assert(amber_opt.stats == 1 && amber_opt.stats_set);
    assert(amber_opt.base == 0x500000000000ull);
    assert(!amber_opt.engine_set);
  } else {
    assert(amber_opt.heap_size == 256u << 20 && !amber_opt.heap_size_set);
    assert(amber_opt.base == 0x550000000000ull);
    assert(!strcmp(amber_opt.pm, "pmem"));
  }
  return 0;
}
