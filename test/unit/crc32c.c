// RUN: %unit_cc %s -o %t %unit_libs && %t
#include <assert.h>
#include <string.h>

#include "base/crc32c.h"

int main(void) {
  /* The standard check value of CRC-32C. */
  assert(amber_crc32c(0, "123456789", 9) == 0xE3069283u);
  assert(amber_crc32c(0, "", 0) == 0);
  /* Incremental use equals one pass. */
  uint32_t a = amber_crc32c(0, "12345", 5);
  assert(amber_crc32c(a, "6789", 4) == 0xE3069283u);
  char buf[32];
  memset(buf, 0, sizeof buf);
  assert(amber_crc32c(0, buf, 32) == 0x8A9136AAu);
  return 0;
}
