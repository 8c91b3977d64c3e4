/* CRC-32C (Castagnoli), the checksum of every persistent structure. */
#include "crc32c.h"

#include <string.h>

/* Table-driven, reflected polynomial 0x82F63B78: the portable form. */
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

static uint32_t crc_table(uint32_t crc, const unsigned char *p, size_t len) {
  if (!__atomic_load_n(&table_ready, __ATOMIC_ACQUIRE)) make_table();
  while (len--) crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return crc;
}

#if defined(__x86_64__)
#include <cpuid.h>

/* Asked at the first checksum, not at load: __builtin_cpu_supports would
 * link compiler-rt's CPU model constructor, which runs a dozen CPUID
 * instructions (each a VM exit under a hypervisor) in every amber program
 * at start-up, one that never opens a heap included (issue 27, item 5).
 * 0: not asked yet, 1: no, 2: yes. */
static int sse42;

static int has_sse42(void) {
  int v = __atomic_load_n(&sse42, __ATOMIC_RELAXED);
  if (__builtin_expect(v == 0, 0)) {
    unsigned a, b, c = 0, d;
    v = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_2) ? 2 : 1;
    __atomic_store_n(&sse42, v, __ATOMIC_RELAXED);
  }
  return v == 2;
}

/* SSE4.2's crc32 instruction computes the same reflected CRC-32C update,
 * 8 bytes at a time: mvcc checksums every OLog record, which for a batch of
 * stores outside regions (tx/batch.c) is about as many bytes as were stored. */
__attribute__((target("sse4.2"))) static uint32_t crc_sse42(uint32_t crc, const unsigned char *p, size_t len) {
  uint64_t c = crc;
  for (; len >= 8; p += 8, len -= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    c = __builtin_ia32_crc32di(c, w);
  }
  crc = (uint32_t)c;
  for (; len; p++, len--) crc = __builtin_ia32_crc32qi(crc, *p);
  return crc;
}
#endif

uint32_t amber_crc32c(uint32_t crc, const void *buf, size_t len) {
  crc = ~crc;
#if defined(__x86_64__)
  if (has_sse42()) return ~crc_sse42(crc, buf, len);
#endif
  return ~crc_table(crc, buf, len);
}
