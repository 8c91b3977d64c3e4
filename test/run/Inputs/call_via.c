/* Built with amber-cc in its own object: a region of another module calls
 * it, and it calls whatever function it is handed (the pass cannot tell
 * whether that one was instrumented). */
long call_via(long (*f)(const long *, int), const long *p, int n) { return f(p, n); }
