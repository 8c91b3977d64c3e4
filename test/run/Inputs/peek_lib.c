/* Built WITHOUT the amber pass, as a shared library: stands for another
 * library amber never saw (test/run/strict_library.c). */
#include <string.h>

long peek_value(const long *p) { return *p; }
void poke_value(long *p, long v) { *p = v; }
/* Through libc: an interceptor of libamber reads the heap for it. */
size_t string_length(const char *s) { return strlen(s); }
