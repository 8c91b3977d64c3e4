/* Compiled WITHOUT the amber pass: a library amber never saw that reads
 * persistent memory (through the heap's read-only canonical window). */
long sum_longs(const long *p, int n) {
  long s = 0;
  for (int i = 0; i < n; i++) s += p[i];
  return s;
}
