/* stm.h: amber's glue for STAMP 0.9.10 (bench/stamp).
 *
 * STAMP's own lib/tm.h is used unmodified.  Built with -DSTM, it maps every
 * TM_* macro onto an STM_* macro from <stm.h> (TL2's header in the original
 * distribution); this file is found first on the include path and defines
 * those STM_* macros for amber instead:
 *
 *   TM_BEGIN() / TM_BEGIN_RO()  ->  AMBER_ATOMIC {      (one amber region)
 *   TM_END()                    ->  }
 *   TM_MALLOC / TM_FREE         ->  malloc / free       (inside a region: persistent)
 *   P_MALLOC / P_FREE           ->  malloc / free       (lib/tm.h's own mapping;
 *                                                        ordinary outside regions)
 *   TM_SHARED_READ/WRITE(_P,_F) ->  plain loads/stores  (the pass instruments
 *                                                        every access in a region)
 *   TM_THREAD_ENTER / EXIT, TM_STARTUP / SHUTDOWN -> nothing
 *   TM_RESTART()                ->  amber_retry() (the lock baseline: abort)
 *
 * With -DAMBER_STAMP_LOCK (the plain-clang baseline, no amber) a transaction
 * is instead one global pthread mutex, held from TM_BEGIN to TM_END.
 */
#ifndef AMBER_STAMP_STM_H
#define AMBER_STAMP_STM_H

#include <stdio.h>
#include <stdlib.h>

/* Per-thread TM descriptor: STAMP passes it around (TM_ARG); amber needs none. */
#define STM_THREAD_T void
#define STM_SELF amber_stamp_self
#define STM_NEW_THREAD() ((void *)0)
#define STM_INIT_THREAD(t, id) ((void)(t), (void)(id))
#define STM_FREE_THREAD(t) ((void)(t))
#define STM_STARTUP() ((void)0)
#define STM_SHUTDOWN() ((void)0)

#define STM_MALLOC(size) malloc(size)
#define STM_FREE(ptr) free(ptr)

#define STM_READ(var) (var)
#define STM_READ_P(var) (var)
#define STM_READ_F(var) (var)
#define STM_WRITE(var, val) ((var) = (val))
#define STM_WRITE_P(var, val) ((var) = (val))
#define STM_WRITE_F(var, val) ((var) = (val))
#define STM_LOCAL_WRITE(var, val) ((var) = (val))
#define STM_LOCAL_WRITE_P(var, val) ((var) = (val))
#define STM_LOCAL_WRITE_F(var, val) ((var) = (val))

/* TM_RESTART(): STAMP asks for the transaction to be abandoned and re-run:
 * amber_retry() (include/amber.h).  In genome, yada and labyrinth it is
 * reached only when the transaction read a state no serial order produces
 * (labyrinth's grid copy and yada's cavity are read inside the region), so
 * under amber it should never run: bench/stamp/run reports how often it did
 * ("retries", from the runtime's statistics).  The lock baseline holds one
 * mutex and cannot restart: there it reports and aborts. */
#ifdef AMBER_STAMP_LOCK
static inline void amber_stamp_restart(const char *file, int line) {
  fprintf(stderr, "amber-stamp: TM_RESTART reached at %s:%d (the lock baseline cannot restart)\n", file, line);
  abort();
}
#define STM_RESTART() amber_stamp_restart(__FILE__, __LINE__)
#else
#define STM_RESTART() amber_retry()
#endif

#ifdef AMBER_STAMP_LOCK
#include <pthread.h>
extern pthread_mutex_t amber_stamp_lock; /* defined in glue.c */
#define STM_BEGIN_WR() { pthread_mutex_lock(&amber_stamp_lock);
#define STM_BEGIN_RD() STM_BEGIN_WR()
#define STM_END() pthread_mutex_unlock(&amber_stamp_lock); }
#else
#include <amber.h>
#define STM_BEGIN_WR() AMBER_ATOMIC {
#define STM_BEGIN_RD() AMBER_ATOMIC {
#define STM_END() }
#endif

#endif /* AMBER_STAMP_STM_H */
