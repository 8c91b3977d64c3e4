/* pool.h: what every PMDK port shares: the pool (opened, or created when
 * missing), the report of an aborted transaction, and the pool's usage for
 * --verify.  Include after ../bench.h; PMDK_NAME names the program in
 * messages (default "pmdk-" BENCH_BASE). */
#ifndef AMBER_BENCH_PMDK_POOL_H
#define AMBER_BENCH_PMDK_POOL_H

#include <libpmemobj.h>
#include <unistd.h>

#ifndef PMDK_NAME
#define PMDK_NAME "pmdk-" BENCH_BASE
#endif

static PMEMobjpool *pop;

/* Opens --pool, or creates it with `size` bytes when missing (libpmemobj
 * allocates the whole file, even on tmpfs); exits 2 when it cannot. */
static PMEMobjpool *pmdk_open_pool(const char *layout, size_t size) {
  PMEMobjpool *p;
  if (access(bench_pool, F_OK) == 0) p = pmemobj_open(bench_pool, layout);
  else p = pmemobj_create(bench_pool, layout, size, 0600);
  if (!p) {
    fprintf(stderr, PMDK_NAME ": %s: %s\n", bench_pool, pmemobj_errormsg());
    exit(2);
  }
  return p;
}

static void tx_failed(void) {
  fprintf(stderr, PMDK_NAME ": transaction aborted: %s\n", pmemobj_errormsg());
  abort();
}

/* Every allocated object in the pool (the root included) and its usable size. */
static void wl_usage(size_t *objects, size_t *bytes) {
  size_t o = 0, b = 0;
  PMEMoid oid;
  POBJ_FOREACH(pop, oid) {
    o++;
    b += pmemobj_alloc_usable_size(oid);
  }
  *objects = o;
  *bytes = b;
}

#endif /* AMBER_BENCH_PMDK_POOL_H */
