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

#include "wrap.h"

__attribute__((constructor)) static void refuse_tsan_ahead(void) {
  void *init = dlsym(RTLD_DEFAULT, "__tsan_init");
  if (!init) return; /* no TSan in this process */
  void *next = dlsym(RTLD_NEXT, "pthread_mutex_lock");
  Dl_info a, b;
  if (next && dladdr(init, &a) && dladdr(next, &b) && a.dli_fbase == b.dli_fbase) return;
  amber_fatal("this program has ThreadSanitizer linked into it (-fsanitize=thread) ahead of libamber, so the runtime's own "
              "locks and threads would bypass it: link with -fsanitize=thread -shared-libsan and preload the ThreadSanitizer "
              "build of libamber (LD_PRELOAD=BUILD/lib/tsan/libamber.so, with AMBER_BASE=0x4000000000); see DEVELOPERS.md, "
              "\"ThreadSanitizer\"");
}
