#ifndef AMBER_CRC32C_H
#define AMBER_CRC32C_H
#include <stddef.h>
#include <stdint.h>
/* CRC-32C (Castagnoli), the checksum of every persistent structure. */
uint32_t amber_crc32c(uint32_t crc, const void *buf, size_t len);
#endif
