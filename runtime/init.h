/* The process layer's composition of the runtime: opening the process's
 * heap (options, backend, clock, heap file, engine recovery, allocator,
 * strict mode, interceptors) and closing it. */
#ifndef AMBER_INIT_H
#define AMBER_INIT_H

/* Opens (creating if needed) and recovers the heap once; fatal on error.
 * Also registered as the transaction layer's opener (amber_tx_set_opener),
 * so a region that runs before any constructor opens the heap too. */
void amber_ensure_init(void);

/* Closes the heap for a program that stops on a refusal (a wrong
 * amber_root size): when the heap was clean at the open and nothing was
 * persisted since, puts back the bytes the open wrote (status words, ORDO
 * record), so the file is byte-for-byte as before the run, and returns 0;
 * otherwise closes it cleanly, keeping what was committed, and returns -1.
 * Either way the heap is closed (the exit handler leaves it alone). */
int amber_close_unchanged(void);

#endif
