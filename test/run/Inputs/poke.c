/* Compiled WITHOUT the amber pass: stands for a library amber never saw
 * (its heap accesses fault: test/run/uninstrumented_*.c). */
void poke(long *p, long v) { *p = v; }
