/* Compiled WITHOUT the amber pass: stands for a library amber never saw. */
void poke(long *p, long v) { *p = v; }
