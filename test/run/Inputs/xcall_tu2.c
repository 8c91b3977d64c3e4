/* xcall.c's second translation unit (amber-compiled, linked into the
 * program): a store to the caller's heap object and to a global of its own;
 * xcall_alias reaches the same function through an alias. */
long tu2_hits;
long tu2_bump(long *heap, long by) {
  *heap += by;
  tu2_hits += by;
  return tu2_hits;
}
long tu2_alias(long *heap, long by) __attribute__((alias("tu2_bump")));
/* Static: its clone stays internal (another module's static of the same
 * name does not clash). */
static long twice(long v) { return 2 * v; }
long tu2_twice(long v) { return twice(v); }
/* Heap only: a region calling it keeps its operational record. */
void tu2_add(long *heap, long by) { *heap += by; }
