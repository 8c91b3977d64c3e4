/* Async-signal-safe message lines (sigline.h), for the fault reports of
 * strict mode (strict.c) and of a heap page that cannot be had (fault.c). */
#include "sigline.h"

#include <unistd.h>

void amber_sigline_put(struct amber_sigline *l, const char *s) {
  while (*s && l->n < sizeof l->buf) l->buf[l->n++] = *s++;
}

const char *amber_sigline_hex_text(char d[19], uint64_t v) {
  int i = 18;
  d[i] = 0;
  do {
    d[--i] = "0123456789abcdef"[v & 15];
    v >>= 4;
  } while (v);
  d[--i] = 'x';
  d[--i] = '0';
  return d + i;
}

void amber_sigline_hex(struct amber_sigline *l, uint64_t v) {
  char d[19];
  amber_sigline_put(l, amber_sigline_hex_text(d, v));
}

void amber_sigline_dec(struct amber_sigline *l, uint64_t v) {
  char d[20];
  int i = (int)sizeof d;
  do {
    d[--i] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  for (; i < (int)sizeof d && l->n < sizeof l->buf; i++) l->buf[l->n++] = d[i];
}

void amber_sigline_flush(struct amber_sigline *l) {
  if (l->n == sizeof l->buf) l->n--;
  l->buf[l->n++] = '\n';
  for (size_t off = 0; off < l->n;) {
    ssize_t w = write(2, l->buf + off, l->n - off);
    if (w <= 0) break;
    off += (size_t)w;
  }
  l->n = 0;
}
