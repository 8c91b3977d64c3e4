/* Code addresses in persistent data: handles for the heap, addresses for
 * the program (entry/code.c). */
#ifndef AMBER_ENTRY_CODE_H
#define AMBER_ENTRY_CODE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "heap/format.h"

/* v, or when v is the address of a function, its handle, whose name is then
 * in the heap's code name table (durably).  `where` is the heap address v is
 * stored at (for messages).  A code address no later run could find again
 * (no symbol name, inside a function) ends the program with amber: error. */
uint64_t amber_code_to_handle(uint64_t v, const void *where);
uint64_t amber_code_from_handle_slow(uint64_t h);
/* v, or when v is a handle, the address of its function in this process
 * (the handle itself when the function is not there). */
static inline uint64_t amber_code_from_handle(uint64_t v) {
  if (__builtin_expect((v >> 48) != AMBER_CODE_TAG, 1)) return v;
  return amber_code_from_handle_slow(v);
}
/* After n bytes were copied from the heap at src to ordinary memory at dst:
 * the handles among the 8-byte words (aligned in the heap) become addresses. */
void amber_code_fix_loaded(void *dst, const void *src, size_t n);
/* Whether n bytes at src, to be stored at heap address dst, hold a code
 * address in a word aligned at dst. */
int amber_code_may_hold(const void *src, const void *dst, size_t n);
/* Turns the function addresses in buf (n bytes to be stored at dst) into
 * handles; other words, code addresses inside functions among them, stay
 * (the bytes may be of any type: uninitialised bytes copied with a string). */
void amber_code_fix_stored(void *buf, const void *dst, size_t n);
/* In the SIGSEGV handler: reports and ends the process when the fault is the
 * call of a handle (a function that is gone); returns otherwise. */
void amber_code_fault(const siginfo_t *si, void *uc);

#endif
