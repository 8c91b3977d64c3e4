/* Region markers reach the runtime only when a file was compiled without the
 * amber pass (the pass replaces them). */
#include "amber.h"
#include "base/diag.h"

int __amber_region_begin(int kind, int iso, const char *file, int line) {
  (void)kind;
  (void)iso;
  amber_fatal("the AMBER region at %s:%d was compiled without the amber pass, so it would not be atomic; "
              "compile %s with amber-cc (or clang-16 -fpass-plugin=/path/to/AmberPass.so)",
              file ? file : "?", line, file ? file : "that file");
}

int __amber_region_live(void) {
  amber_fatal("an AMBER region was compiled without the amber pass; compile it with amber-cc");
}

void __amber_region_end(void) {
  amber_fatal("an AMBER region was compiled without the amber pass; compile it with amber-cc");
}
