/* Message lines built and written from a signal handler: no allocation, no
 * stdio, numbers formatted by hand, one write(2) per line. */
#ifndef AMBER_HEAP_SIGLINE_H
#define AMBER_HEAP_SIGLINE_H

#include <stddef.h>
#include <stdint.h>

struct amber_sigline {
  char buf[512];
  size_t n;
};

void amber_sigline_put(struct amber_sigline *l, const char *s);
void amber_sigline_hex(struct amber_sigline *l, uint64_t v);
/* "0x..." of v, NUL-terminated, at the end of d; returns its start. */
const char *amber_sigline_hex_text(char d[19], uint64_t v);
void amber_sigline_dec(struct amber_sigline *l, uint64_t v);
/* Writes the line and a newline to stderr, and empties it. */
void amber_sigline_flush(struct amber_sigline *l);

#endif
