/* glue.c: linked into the plain-clang baseline of bench/stamp only: the one
 * lock that stands for every transaction there (stm.h, AMBER_STAMP_LOCK). */
#include <pthread.h>
pthread_mutex_t amber_stamp_lock = PTHREAD_MUTEX_INITIALIZER;
