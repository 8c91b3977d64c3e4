/* CRC-32C (Castagnoli), the checksum of every persistent structure. */
#include "crc32c.h"

/* Table-driven, reflected polynomial 0x82F63B78; headers are small, so the
 * portable form is fast enough and needs no SSE4.2 check. */
static uint32_t table[256];
static int table_ready;

static void make_table(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    table[i] = c;
  }
  __atomic_store_n(&table_ready, 1, __ATOMIC_RELEASE);
}

uint32_t amber_crc32c(uint32_t crc, const void *buf, size_t len) {
  if (!__atomic_load_n(&table_ready, __ATOMIC_ACQUIRE)) make_table();
  const unsigned char *p = buf;
  crc = ~crc;
  while (len--) crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return ~crc;
}
