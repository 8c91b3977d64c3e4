/* The AMBER_* option table (options.inc), parsed once from the environment
 * into amber_opt, and printed for amber --help-options. */
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "diag.h"

struct amber_options amber_opt;
static int loaded;

/* Options are declared with lower-case field names; the variables are upper
 * case. */
static const char *upper_name(const char *s, char *buf) {
  size_t i = 0;
  for (; s[i] && i < 63; i++) buf[i] = (char)toupper((unsigned char)s[i]);
  buf[i] = 0;
  return buf;
}

int amber_options_parse_size(const char *s, uint64_t *out) {
  char *end;
  errno = 0;
  if (!isdigit((unsigned char)s[0])) return -1;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno) return -1;
  uint64_t mul = 1;
  switch (toupper((unsigned char)*end)) {
  case 0: break;
  case 'K': mul = 1ull << 10; end++; break;
  case 'M': mul = 1ull << 20; end++; break;
  case 'G': mul = 1ull << 30; end++; break;
  case 'T': mul = 1ull << 40; end++; break;
  default: return -1;
  }
  if (*end == 'B' || *end == 'b') end++;
  if (*end) return -1;
  if (v > UINT64_MAX / mul) return -1;
  *out = v * mul;
  return 0;
}

static void parse_u64(const char *name, const char *s, uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || end == s || *end || s[0] == '-')
    amber_fatal("%s=%s is not a number; use a decimal or 0x-prefixed value", name, s);
  *out = v;
}

static void parse_bool(const char *name, const char *s, int *out) {
  if (!strcmp(s, "1") || !strcasecmp(s, "yes") || !strcasecmp(s, "true") || !strcasecmp(s, "on"))
    *out = 1;
  else if (!strcmp(s, "0") || !strcasecmp(s, "no") || !strcasecmp(s, "false") || !strcasecmp(s, "off") || !*s)
    *out = 0;
  else
    amber_fatal("%s=%s is not a boolean; use 1 or 0", name, s);
}

static void parse_size(const char *name, const char *s, uint64_t *out) {
  if (amber_options_parse_size(s, out))
    amber_fatal("%s=%s is not a size; use a number with an optional K, M or G suffix (e.g. 256M)", name, s);
}

static void parse_str(const char *name, const char *s, const char **out) {
  (void)name;
  *out = s;
}

#define PARSE_STR parse_str
#define PARSE_SIZE parse_size
#define PARSE_U64 parse_u64
#define PARSE_BOOL parse_bool

int amber_options_secure(void) { return getauxval(AT_SECURE) != 0; }

/* Set-user-ID and set-group-ID programs (AT_SECURE) take no AMBER_*
 * variable: secure_getenv gives them none, so an unprivileged caller
 * cannot name the heap, the stats file or anything else such a program
 * writes.  AMBER_VERBOSE is one of them too; only its presence makes the
 * runtime say, once, that the environment was ignored. */
static void note_secure(void) {
  if (!amber_options_secure() || !getenv("AMBER_VERBOSE")) return;
  amber_warn("this program runs set-user-ID or set-group-ID: every AMBER_* variable is ignored (AMBER_HEAP, "
             "AMBER_STATS_FILE and AMBER_VERBOSE included); its heap is the private default of uid %u "
             "(docs/guide.md, Security)",
             (unsigned)geteuid());
}

void amber_options_load(void) {
  if (loaded) return;
  loaded = 1;
  note_secure();
  const char *v;
#define AMBER_OPT(f, kind, def, help)                                          \
  PARSE_##kind("default of AMBER_" #f, def, &amber_opt.f);                                \
  if ((v = secure_getenv(amber_upper("AMBER_" #f))) != NULL) {                 \
    PARSE_##kind(amber_upper("AMBER_" #f), v, &amber_opt.f);                   \
    amber_opt.f##_set = 1;                                                     \
  }
#define amber_upper(s) upper_name(s, namebuf)
  char namebuf[64];
#include "options.inc"
#undef AMBER_OPT
#undef amber_upper
}


void amber_options_print(FILE *f, int markdown) {
  char namebuf[64];
  if (markdown) {
    fprintf(f, "| variable | kind | default | meaning |\n|---|---|---|---|\n");
  }
#define AMBER_OPT(fld, kind, def, help)                                        \
  if (markdown)                                                                \
    fprintf(f, "| `%s` | %s | `%s` | %s |\n", upper_name("AMBER_" #fld, namebuf), #kind, def, help); \
  else                                                                         \
    fprintf(f, "%-20s %-5s default %-16s %s\n", upper_name("AMBER_" #fld, namebuf), #kind, *def ? def : "(none)", help);
#include "options.inc"
#undef AMBER_OPT
}
