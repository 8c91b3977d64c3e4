/* The next definition of a function, as dlsym(RTLD_NEXT, name) finds it
 * from libamber, without dlsym: no lock, no allocation, no error state, so
 * it may run anywhere an interceptor runs (a signal handler, a child after
 * a multi-threaded fork, with any lock held, inside the allocator that
 * dlsym itself calls).  Issue 27 item 5: what core.c used to look up with
 * 84 dlsym calls at every start is now looked up here at its first use.
 *
 * amber_nextsym_init, once, from a constructor (or any ordinary context):
 * notes the objects loaded after the one at `self` (an address in it) in
 * the load order, which for the objects loaded at start-up is the global
 * lookup scope's order (the executable, LD_PRELOAD's, then DT_NEEDED's
 * breadth first: the order the loader keeps its list in), with their
 * symbol tables.  It returns 0 when it cannot vouch for the result (not
 * x86-64, whose IFUNC resolvers it calls without arguments as ld.so does;
 * an object without a GNU hash table; more objects than it keeps); the
 * caller then uses dlsym as before.
 *
 * amber_nextsym(name): the first of those objects that defines name
 * (global or weak; the default version, or the only version there is, as
 * dlsym picks), an IFUNC resolved; NULL when none does (the caller may
 * then ask dlsym, which also sees objects dlopen'ed later) or before the
 * init.  Objects that are amber runtimes are skipped (below).  Self-contained: libc's <link.h> only, and no call to a function
 * libamber intercepts (it runs below them). */
#ifndef AMBER_WRAP_NEXTSYM_H
#define AMBER_WRAP_NEXTSYM_H

int amber_nextsym_init(const void *self);
void *amber_nextsym(const char *name);
/* f lies in an object after self that is an amber runtime (defines
 * __amber_module_init): a dormant libamber.so behind a program that has the
 * runtime linked in (runtime/init.c).  amber_nextsym skips those objects. */
int amber_nextsym_in_runtime(const void *f);

#endif
