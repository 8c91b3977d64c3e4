//===- LibcCalls.cpp - libc functions the runtime wraps inside regions ----===//
//
// A call inside a region or clone to one of these (declared, not defined in
// the module) calls __amber_<name> instead: same signature, same result; the
// runtime computes the right access sizes (strcpy, strcat, ...) and makes
// malloc/free persistent.  Kept in step with runtime/amber_interface.h.
//===----------------------------------------------------------------------===//
#include "Amber.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace amber {

StringRef libcReplacement(StringRef Name) {
  return StringSwitch<StringRef>(Name)
      .Case("memcpy", "__amber_memcpy")
      .Case("memmove", "__amber_memmove")
      .Case("memset", "__amber_memset")
      .Case("memcmp", "__amber_memcmp")
      // memcmp(...) == 0 becomes bcmp at -O1 and above: the same wrapper
      // answers it (bcmp only promises zero or not).
      .Case("bcmp", "__amber_memcmp")
      .Case("memchr", "__amber_memchr")
      .Case("strlen", "__amber_strlen")
      .Case("strnlen", "__amber_strnlen")
      .Case("strcpy", "__amber_strcpy")
      .Case("strncpy", "__amber_strncpy")
      .Case("strcat", "__amber_strcat")
      .Case("strncat", "__amber_strncat")
      .Case("strcmp", "__amber_strcmp")
      .Case("strncmp", "__amber_strncmp")
      .Case("strchr", "__amber_strchr")
      .Case("strrchr", "__amber_strrchr")
      .Case("strdup", "__amber_strdup")
      .Case("strndup", "__amber_strndup")
      .Case("malloc", "__amber_malloc")
      .Case("calloc", "__amber_calloc")
      .Case("realloc", "__amber_realloc")
      .Case("free", "__amber_free")
      .Default("");
}

StringRef libcWriterReplacement(StringRef Name) {
  return StringSwitch<StringRef>(Name)
      .Case("memcpy", "__amber_memcpy")
      .Case("memmove", "__amber_memmove")
      .Case("memset", "__amber_memset")
      .Case("strcpy", "__amber_strcpy")
      .Case("strncpy", "__amber_strncpy")
      .Case("strcat", "__amber_strcat")
      .Case("strncat", "__amber_strncat")
      .Default("");
}

StringRef libcOutsideReplacement(StringRef Name, bool &Writes) {
  Writes = !libcWriterReplacement(Name).empty();
  // Every wrapper but the allocator's: writers run as their own transaction,
  // readers read persistent bytes through the engine.  Outside regions
  // malloc stays volatile, and free/realloc of a persistent pointer are
  // interposed at run time (wrappers/alloc.c).
  if (Name == "malloc" || Name == "calloc" || Name == "realloc" || Name == "free")
    return "";
  return libcReplacement(Name);
}

// Output functions whose output libamber's interceptors hold, inside a
// region that may still be undone, until the region commits, and drop when
// it is undone (runtime/tx/output.c, wrappers/output.c): each line appears
// once however often the region runs, so the call stays a plain call and
// the region stays revocable.  Every name here must be intercepted
// (AMBER_INTERCEPTED).
bool isHeldOutputCall(StringRef Name) {
  return StringSwitch<bool>(Name)
      .Cases("printf", "fprintf", "vprintf", "vfprintf", "dprintf", true)
      .Cases("vdprintf", "__printf_chk", "__fprintf_chk", "__vprintf_chk",
             "__vfprintf_chk", true)
      .Cases("__dprintf_chk", "__vdprintf_chk", true)
      .Cases("puts", "fputs", "fputs_unlocked", "putchar", "putchar_unlocked",
             true)
      .Cases("fputc", "fputc_unlocked", "putc", "putc_unlocked", true)
      .Cases("fwrite", "fwrite_unlocked", "fflush", "fflush_unlocked", true)
      .Cases("write", "pwrite", "pwrite64", "send", "sendto", "perror", true)
      .Default(false);
}

// Functions whose libamber interceptor, inside a region, reads the array
// through the region's transaction, runs the comparator's clone on a
// private copy and writes back through the transaction (wrappers/sort.c),
// on persistent and ordinary memory alike: the call stays a plain call and
// the region stays revocable.  Every name here must be intercepted
// (AMBER_INTERCEPTED).
bool isRegionWrappedCall(StringRef Name) {
  return StringSwitch<bool>(Name)
      .Cases("qsort", "qsort_r", "bsearch", true)
      .Default(false);
}

// Functions with other outside effects (syncing a file, the system log,
// ending the process) that write no program memory: no pointer argument
// they write through.  Inside a region they make the transaction
// irrevocable (__amber_irrevocable_io) but need not make the engine assume
// the whole heap was written.
bool isIoCall(StringRef Name) {
  return StringSwitch<bool>(Name)
      .Cases("fsync", "fdatasync", "syslog", "vsyslog", true)
      .Cases("exit", "_exit", "_Exit", "quick_exit", "abort", true)
      .Default(false);
}

bool isIntercepted(StringRef Name) {
  // The names libamber.so interposes: AMBER_INTERCEPTED of
  // runtime/CMakeLists.txt, written out by CMake.
  static const StringSet<> Names = [] {
    static const char *const List[] = {
#include "amber_intercepted.inc"
    };
    StringSet<> S;
    for (const char *N : List)
      S.insert(N);
    return S;
  }();
  return !libcReplacement(Name).empty() || Names.contains(Name);
}

} // namespace amber
