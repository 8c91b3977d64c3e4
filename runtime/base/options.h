/* AMBER_* options, parsed once from the environment (see options.inc). */
#ifndef AMBER_OPTIONS_H
#define AMBER_OPTIONS_H

#include <stdint.h>
#include <stdio.h>

struct amber_options {
#define AMBER_OPT_STR(f) const char *f;
#define AMBER_OPT_SIZE(f) uint64_t f;
#define AMBER_OPT_U64(f) uint64_t f;
#define AMBER_OPT_BOOL(f) int f;
#define AMBER_OPT(f, kind, def, help) AMBER_OPT_##kind(f) int f##_set;
#include "options.inc"
#undef AMBER_OPT
#undef AMBER_OPT_STR
#undef AMBER_OPT_SIZE
#undef AMBER_OPT_U64
#undef AMBER_OPT_BOOL
};

extern struct amber_options amber_opt;

/* Parses every AMBER_* variable; a malformed value is a fatal error.
 * Idempotent. */
void amber_options_load(void);
/* 1 in a set-user-ID or set-group-ID program (AT_SECURE), whose options
 * are all defaults: no AMBER_* variable is read. */
int amber_options_secure(void);
/* Parses a size with optional K/M/G suffix; returns -1 when malformed. */
int amber_options_parse_size(const char *s, uint64_t *out);
/* Prints the option table (markdown when `markdown`, else plain text). */
void amber_options_print(FILE *f, int markdown);

#endif
