/* A program built with ThreadSanitizer linked in (plain -fsanitize=thread)
 * is refused at load, with what to do instead.
 *
 * TSan's interceptors are then the program's own, ahead of libamber's, and
 * the next definition behind libamber (real.c's RTLD_NEXT) is libc's: the
 * runtime's own mutexes, threads and signals bypass TSan, which then
 * reports races that are none, or stops in pthread_join (CHECK failed in
 * ConsumeThreadUserId) for a thread it never saw created; and its mmap
 * refuses the default heap base.  The working set-up (DEVELOPERS.md,
 * "ThreadSanitizer") has TSan's shared runtime behind libamber: the next
 * pthread_mutex_lock after libamber is TSan's own. */
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>

#include "wrap.h"

/* dl_iterate_phdr callback: is the address in the first object (the
 * program itself)? */
static int in_program(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  uintptr_t a = (uintptr_t)arg;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && a >= lo && a - lo < ph->p_memsz) return 1;
  }
  return -1; /* the first object only */
}

/* Bound by the loader with libamber's other references (weak: 0 where no
 * object defines it), which costs less at start-up than a failing dlsym
 * (issue 27 item 5). */
extern void __tsan_init(void) __attribute__((weak));

AMBER_CTOR AMBER_START_TEXT static void refuse_tsan_ahead(void) {
  if (amber_runtime_dormant()) return;
  void *init = (void *)__tsan_init;
  /* Refused: TSan's static runtime, inside the program.  Not refused: its
   * shared runtime (the working set-up), and a program not compiled with
   * TSan that inherited LD_PRELOAD (a shell, TSan's symbolizer): nothing of
   * theirs is checked. */
  if (!init || dl_iterate_phdr(in_program, init) != 1) return;
  amber_fatal("this program has ThreadSanitizer linked into it (-fsanitize=thread) ahead of libamber, so the runtime's own "
              "locks and threads would bypass it: link with -fsanitize=thread -shared-libsan and preload the ThreadSanitizer "
              "build of libamber (LD_PRELOAD=BUILD/lib/tsan/libamber.so); see DEVELOPERS.md, "
              "\"ThreadSanitizer\"");
}
