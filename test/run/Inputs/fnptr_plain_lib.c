/* A library built without amber-cc (test/run/fnptr_loaded.c): no code table
 * registers its functions, so the runtime learns about it from the loader. */
long plain_neg(long x) { return -x; }
long plain_data[4] = {1, 2, 3, 4};
