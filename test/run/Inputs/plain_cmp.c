/* Comparators compiled WITHOUT the amber pass (a library's): they read the
 * elements they are given directly, so they work on heap arrays only
 * because the qsort and bsearch interceptors hand them volatile copies. */
int plain_cmp_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

/* bsearch: a long key against an element whose first field is a long. */
int plain_key_first_long(const void *key, const void *elem) { return plain_cmp_long(key, elem); }
