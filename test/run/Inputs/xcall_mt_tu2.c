/* xcall_mt.c's second translation unit (amber-compiled, linked into the
 * program): the functions its regions call across modules. */
long mt_get(const long *slot) { return *slot; }
void mt_add(long *slot, long by) { *slot += by; }
