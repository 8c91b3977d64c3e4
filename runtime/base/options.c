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

/* Every option's variable name, upper case (the table's order). */
static const char *const known[] = {
#define AMBER_OPT(f, kind, def, help) "AMBER_" #f,
#include "options.inc"
#undef AMBER_OPT
};
/* Variables of amber's own tools (amber-cc, tools/amber-run, the test and
 * bench drivers), which a program may inherit: not options of the runtime. */
static const char *const tools_own[] = {"AMBER_CC",          "AMBER_CC_CLANG",     "AMBER_LIB",
                                        "AMBER_BUILD",       "AMBER_TEST_JOBS",    "AMBER_LLVM_SYMBOLIZER",
                                        "AMBER_TSAN_OPTIONS", "AMBER_FUZZ_IMAGES", "AMBER_FUZZ_VERBOSE"};

/* Edit distance of a and b, case-insensitive (short names: a row at a time). */
static size_t distance(const char *a, const char *b) {
  size_t nb = strlen(b), row[128];
  if (nb >= 128) return (size_t)-1;
  for (size_t j = 0; j <= nb; j++) row[j] = j;
  for (size_t i = 1; a[i - 1]; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= nb; j++) {
      size_t up = row[j];
      size_t sub = diag + (toupper((unsigned char)a[i - 1]) != toupper((unsigned char)b[j - 1]));
      size_t best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
      row[j] = sub < best ? sub : best;
      diag = up;
    }
  }
  return row[nb];
}

/* A misspelt option is silently ignored otherwise (AMBER_HEAPSIZE for
 * AMBER_HEAP_SIZE): one warning per unknown AMBER_* variable, naming the
 * nearest option when one is close. */
static void warn_unknown(void) {
  extern char **environ;
  char name[128], buf[64];
  for (char **e = environ; e && *e; e++) {
    if (strncmp(*e, "AMBER_", 6)) continue;
    size_t n = strcspn(*e, "=");
    if (n >= sizeof name) n = sizeof name - 1;
    memcpy(name, *e, n);
    name[n] = 0;
    int ok = 0;
    for (size_t i = 0; !ok && i < sizeof known / sizeof known[0]; i++) ok = !strcmp(name, upper_name(known[i], buf));
    for (size_t i = 0; !ok && i < sizeof tools_own / sizeof tools_own[0]; i++) ok = !strcmp(name, tools_own[i]);
    if (ok) continue;
    const char *best = NULL;
    size_t bd = (size_t)-1;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
      size_t d = distance(name + 6, known[i] + 6);
      if (d < bd) {
        bd = d;
        best = known[i];
      }
    }
    if (best && bd <= 3 && bd * 3 <= strlen(name + 6) + 2)
      amber_warn("%s is not an amber option and is ignored; did you mean %s? ('amber help-options' lists them)", name,
                 upper_name(best, buf));
    else
      amber_warn("%s is not an amber option and is ignored ('amber help-options' lists them)", name);
  }
}

void amber_options_load(void) {
  if (loaded) return;
  loaded = 1;
  note_secure();
  if (!amber_options_secure()) warn_unknown();
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
