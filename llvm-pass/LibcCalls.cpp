//===- LibcCalls.cpp - libc functions the runtime wraps inside regions ----===//
//
// A call inside a region or clone to one of these (declared, not defined in
// the module) calls __amber_<name> instead: same signature, same result; the
// runtime computes the right access sizes (strcpy, strcat, ...) and makes
// malloc/free persistent.  Kept in step with runtime/amber_interface.h.
//===----------------------------------------------------------------------===//
#include "Amber.h"
#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace amber {

StringRef libcReplacement(StringRef Name) {
  return StringSwitch<StringRef>(Name)
      .Case("memcpy", "__amber_memcpy")
      .Case("memmove", "__amber_memmove")
      .Case("memset", "__amber_memset")
      .Case("memcmp", "__amber_memcmp")
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

} // namespace amber
