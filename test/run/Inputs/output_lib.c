/* A shared library built with plain clang (no amber pass), for
 * test/run/output_once.c: a region that calls it becomes irrevocable. */
#include <stdio.h>

void output_lib_say(const char *what) { printf("lib: %s\n", what); }
