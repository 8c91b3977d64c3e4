/* xcall.c's shared library: built with amber-cc (amber_lib) or with plain
 * clang (plain_lib: its functions have no clones). */
#ifdef PLAIN
#define NAME(x) plain_##x
#else
#define NAME(x) amber_##x
#endif
long NAME(hits);
long NAME(bump)(long *heap, long by) {
  *heap += by;
  NAME(hits) += by;
  return NAME(hits);
}
static long twice(long v) { return 3 * v; } /* not tu2's twice */
long NAME(thrice)(long v) { return twice(v); }
void NAME(add)(long *heap, long by) { *heap += by; }
