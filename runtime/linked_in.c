/* Only in lib/libamber_rt.o, the runtime linked into a program
 * (`amber-cc -static-libamber`; runtime/CMakeLists.txt, docs/guide.md
 * "Linking the runtime into the program"), never in libamber.so: as
 * dso_handle.c is only in the library.
 *
 * The program exports this word.  A libamber.so loaded into the same process
 * (the dependency of a shared object built with amber-cc, or a preload)
 * finds it through its weak reference and stays dormant: the program's
 * definitions come first in every look-up, so its runtime is the process's
 * one (init.c, amber_runtime_dormant).  The text is the runtime's identity
 * (version, pass ABI, build tree, flavour), which a preloaded libamber.so
 * compares with its own. */
#include "amber_interface.h"

#define AMBER_STR2(x) #x
#define AMBER_STR(x) AMBER_STR2(x)

const char __amber_linked_in[] = AMBER_RUNTIME_ID " ABI " AMBER_STR(AMBER_ABI_VERSION);
