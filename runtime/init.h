/* The process layer's composition of the runtime: opening the process's
 * heap (options, backend, clock, heap file, engine recovery, allocator,
 * strict mode, interceptors) and closing it. */
#ifndef AMBER_INIT_H
#define AMBER_INIT_H

/* Opens (creating if needed) and recovers the heap once; fatal on error.
 * Also registered as the transaction layer's opener (amber_tx_set_opener),
 * so a region that runs before any constructor opens the heap too. */
void amber_ensure_init(void);

#endif
