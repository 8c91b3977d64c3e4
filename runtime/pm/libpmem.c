/* libpmem, loaded when a heap first needs it (libpmem.h). */
#include "libpmem.h"

#include <dlfcn.h>
#include <pthread.h>

#include "base/diag.h"

void (*amber_pmem_flush)(const void *addr, size_t len);
void (*amber_pmem_drain)(void);
int (*amber_pmem_has_auto_flush)(void);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int loaded;

void amber_pmem_load(const char *why) {
  if (__atomic_load_n(&loaded, __ATOMIC_ACQUIRE)) return;
  pthread_mutex_lock(&lock);
  if (!loaded) {
    static const char lib[] = "libpmem.so.1";
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h)
      amber_fatal("%s needs %s, which cannot be loaded (%s); install libpmem (Debian: apt-get install libpmem1) or use "
                  "another backend (AMBER_PM=msync or none)", why, lib, dlerror());
    void *f = dlsym(h, "pmem_flush"), *d = dlsym(h, "pmem_drain"), *a = dlsym(h, "pmem_has_auto_flush");
    if (!f || !d || !a)
      amber_fatal("%s needs %s, but it lacks pmem_flush, pmem_drain or pmem_has_auto_flush; install libpmem 1.x "
                  "(Debian: apt-get install libpmem1) or use another backend (AMBER_PM=msync or none)", why, lib);
    amber_pmem_flush = (void (*)(const void *, size_t))f;
    amber_pmem_drain = (void (*)(void))d;
    amber_pmem_has_auto_flush = (int (*)(void))a;
    __atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&lock);
}
