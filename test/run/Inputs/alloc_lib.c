// A plain-clang shared library (not compiled by amber-cc) that allocates
// for its caller: inside a region its malloc is persistent (alloc_pointer.c).
#include <stdlib.h>
#include <string.h>

void *lib_alloc(size_t n) { return malloc(n); }
void *lib_calloc(size_t n) { return calloc(n, 1); }
char *lib_strdup(const char *s) { return strdup(s); }
