/* The ABI between code emitted by the amber pass and libamber.
 *
 * This is the only header the pass and the runtime share.  Every symbol here
 * is emitted by the pass (never written by users).  Changing a layout or a
 * signature changes AMBER_ABI_VERSION; the pass stamps it into every region
 * descriptor and the runtime refuses descriptors of another version.
 */
#ifndef AMBER_INTERFACE_H
#define AMBER_INTERFACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AMBER_ABI_VERSION 8 /* 2: __amber_run returns whether the region was cancelled; 3: code tables,
                              __amber_loadp / __amber_storep; 4: inline loads in regions
                              (__amber_direct_reads, __amber_heap_delta); 5: __amber_read_state
                              replaces __amber_direct_reads (mvcc's inline shadow-table check);
                              6: clones are called across modules by name (see "Transactional
                              clones" below), captured without giving up operational records;
                              7: __amber_storeN / __amber_storep / __amber_storen are the
                              program's plain stores only (relaxed in ordinary memory), its
                              atomic and volatile ones go to __amber_atomic_storeN /
                              __amber_atomic_storep with their order; 8: mvcc's
                              __amber_reads.table is the control headers themselves, one
                              per block (AMBER_MV_CTL_SHIFT), no longer a pointer per block,
                              and __amber_reads.installed the bitmap of those in use */
#define AMBER_DESC_MAGIC 0x414d4252u /* "AMBR" */

/* Descriptor flags. */
#define AMBER_DESC_IRREVOCABLE 0x1u /* reaches I/O or code the pass knows is not instrumented
                                       (not calls resolved at run time: pass ABI 6, issue 19) */
#define AMBER_DESC_FUNCTION 0x2u    /* an AMBER_ATOMIC_FN function body */
#define AMBER_DESC_NAMED 0x4u       /* op id comes from a user-given name */
#define AMBER_DESC_UNSEEN 0x8u      /* reaches code that is certainly not instrumented (a library
                                       function, inline asm, an odd-width atomic) */

/* Closure field kinds. */
#define AMBER_FIELD_SCALAR 0  /* a live-in value */
#define AMBER_FIELD_POINTER 1 /* a live-in pointer */
#define AMBER_FIELD_OUT 2     /* a live-out slot written by the region */

struct __amber_field {
  uint32_t offset;
  uint32_t size;
  uint32_t kind; /* AMBER_FIELD_* */
  uint32_t reserved;
};

/* One per region, emitted by the pass into section "amber_regions" (so the
 * runtime can enumerate every region of the program through the linker's
 * __start_amber_regions / __stop_amber_regions symbols).  Writable: the
 * runtime keeps per-region hints in `runtime_state`. */
struct __amber_region_desc {
  uint32_t magic;       /* AMBER_DESC_MAGIC */
  uint16_t abi_version; /* AMBER_ABI_VERSION */
  uint16_t kind;        /* AMBER_KIND_* from amber.h */
  uint32_t flags;       /* AMBER_DESC_* */
  uint32_t line;        /* source line of the region */
  uint64_t op_id;       /* stable id: FNV-1a 64 of "file:function:ordinal" */
  void (*fn)(void *closure);  /* the outlined region */
  const char *name;     /* "function#ordinal", for messages */
  const char *file;     /* source file, for messages */
  uint32_t closure_size;
  uint32_t nfields;
  const struct __amber_field *fields;
  uint64_t runtime_state; /* owned by the runtime; zero-initialised */
};

/* Run a region: begins a transaction (or joins the enclosing one: nesting is
 * flat), calls desc->fn(closure), retries it on abort, commits. `iso` is the
 * isolation level given to the region (AMBER_ISO_DEFAULT when none).
 * Returns 0 when it committed (or, nested, when its body ended), nonzero
 * when the outermost region was cancelled (amber_cancel: its effects are
 * undone, and the closure's live-out slots hold nothing to read). */
int __amber_run(struct __amber_region_desc *desc, void *closure, int iso);

/* Emitted into a module constructor by the pass: stops the program with a
 * clear message when the runtime is not loaded (the pass references every
 * ABI symbol weakly so such a binary still starts). */
void __amber_module_init(uint32_t abi_version);

/* Instrumented accesses inside regions and transactional clones.  Each
 * performs the access (the engine may redirect it), for any address:
 * non-persistent addresses are accessed directly (and undo-logged when the
 * transaction may abort). */
uint8_t __amber_load1(const void *p);
uint16_t __amber_load2(const void *p);
uint32_t __amber_load4(const void *p);
uint64_t __amber_load8(const void *p);
void __amber_loadn(void *dst, const void *src, size_t n);
/* The program's plain (non-atomic, non-volatile) stores: in ordinary
 * memory a relaxed atomic store when naturally aligned (ABI 7: before, every
 * store was seq_cst, since atomic stores came here too). */
void __amber_store1(void *p, uint8_t v);
void __amber_store2(void *p, uint16_t v);
void __amber_store4(void *p, uint32_t v);
void __amber_store8(void *p, uint64_t v);
/* Stores of other types (vectors, aggregates, i128; also the libc wrappers'
 * copies): plain copies, relaxed for 1, 2, 4 or 8 aligned bytes. */
void __amber_storen(void *dst, const void *src, size_t n);
/* The program's atomic stores, and its volatile stores, of 1, 2, 4 or 8
 * bytes (ABI 7; a vector of that size bitcast): `order` is the C memory
 * order (__ATOMIC_RELAXED 0, __ATOMIC_RELEASE 3, __ATOMIC_SEQ_CST 5) of the
 * atomic, __ATOMIC_SEQ_CST for a volatile non-atomic store; any other value
 * is taken as seq_cst.  In ordinary memory, an atomic store of that order. */
void __amber_atomic_store1(void *p, uint8_t v, int order);
void __amber_atomic_store2(void *p, uint16_t v, int order);
void __amber_atomic_store4(void *p, uint32_t v, int order);
void __amber_atomic_store8(void *p, uint64_t v, int order);
/* Loads and stores of pointer-typed values (8 bytes): a code address stored
 * into the heap becomes a handle naming its function (docs/guide.md,
 * "Function pointers in the heap"), and a handle loaded becomes the
 * function's address in this process.  __amber_storep: a plain store;
 * __amber_atomic_storep: an atomic or volatile one, as above. */
uint64_t __amber_loadp(const void *p);
void __amber_storep(void *p, uint64_t v);
void __amber_atomic_storep(void *p, uint64_t v, int order);

/* Atomic read-modify-write; `op` is LLVM's AtomicRMWInst::BinOp value
 * (0 xchg, 1 add, 2 sub, 3 and, 4 nand, 5 or, 6 xor, 7 max, 8 min, 9 umax,
 * 10 umin, 11 fadd, 12 fsub, 13 fmax, 14 fmin, 15 uinc_wrap, 16 udec_wrap).
 * Returns the old value. */
uint8_t __amber_rmw1(void *p, uint8_t v, int op);
uint16_t __amber_rmw2(void *p, uint16_t v, int op);
uint32_t __amber_rmw4(void *p, uint32_t v, int op);
uint64_t __amber_rmw8(void *p, uint64_t v, int op);
/* Compare-and-exchange: returns the old value; the exchange happened iff the
 * old value equals `expected`. */
uint8_t __amber_cas1(void *p, uint8_t expected, uint8_t desired);
uint16_t __amber_cas2(void *p, uint16_t expected, uint16_t desired);
uint32_t __amber_cas4(void *p, uint32_t expected, uint32_t desired);
uint64_t __amber_cas8(void *p, uint64_t expected, uint64_t desired);

/* Memory intrinsics and libc functions called inside regions, rewritten by
 * the pass: same signatures and results as libc. */
void *__amber_memcpy(void *dst, const void *src, size_t n);
void *__amber_memmove(void *dst, const void *src, size_t n);
void *__amber_memset(void *dst, int c, size_t n);
int __amber_memcmp(const void *a, const void *b, size_t n);
void *__amber_memchr(const void *s, int c, size_t n);
size_t __amber_strlen(const char *s);
size_t __amber_strnlen(const char *s, size_t max);
char *__amber_strcpy(char *dst, const char *src);
char *__amber_strncpy(char *dst, const char *src, size_t n);
char *__amber_strcat(char *dst, const char *src);
char *__amber_strncat(char *dst, const char *src, size_t n);
int __amber_strcmp(const char *a, const char *b);
int __amber_strncmp(const char *a, const char *b, size_t n);
char *__amber_strchr(const char *s, int c);
char *__amber_strrchr(const char *s, int c);
char *__amber_strdup(const char *s);
char *__amber_strndup(const char *s, size_t n);
void *__amber_malloc(size_t n);
void *__amber_calloc(size_t n, size_t size);
void *__amber_realloc(void *p, size_t n);
void __amber_free(void *p);

/* Called before an external call the pass could not see, inside a region:
 * the transaction becomes irrevocable (it will not abort from here on), and
 * since the callee may write persistent memory without going through the
 * transaction, the engine must treat the whole heap as possibly written. */
void __amber_irrevocable(void);
/* Called before a call to a known libc function that does I/O or has other
 * outside effects but writes no program memory (printf, puts, write, ...):
 * the transaction becomes irrevocable, nothing more. */
void __amber_irrevocable_io(void);

/* Transactional clones.  Every function a module defines has a clone with
 * the same signature, named __amber_tx_<name> (an asm label's "\1" stays
 * in front), with the function's linkage and visibility: exported when the
 * function is (and an exported alias of it gets __amber_tx_<alias>).  Since
 * ABI 6 a direct call inside a region or clone to a function declared but
 * not defined in the module calls __amber_tx_<name> (extern_weak) when the
 * linker found it, else __amber_clone_of(fn).  The clones of a module are
 * also registered by its constructor, so that indirect calls and calls into
 * modules not built with amber find the clone of their target at run time
 * (or go irrevocable); registering also puts the module's build id into
 * the operational records' identity (tx/op.c). */
struct __amber_clone {
  void *fn;    /* the original function */
  void *clone; /* its transactional clone __amber_tx_<name> */
};
void __amber_register_clones(const struct __amber_clone *table, size_t n);
/* The AMBER_UNISOLATED variables a module defines, registered by its
 * constructor: regions access them in place, without isolation or undo. */
struct __amber_range {
  void *addr;
  size_t size;
};
void __amber_register_unisolated(const struct __amber_range *table, size_t n);
/* The functions of a module whose address is taken (defined there or not),
 * registered by its constructor: the names a code address stored in the
 * heap is kept under.  `name` is the symbol name; for a function with
 * internal linkage, "<source file's base name>:<name>". */
struct __amber_code {
  void *fn;
  const char *name;
};
void __amber_register_code(const struct __amber_code *table, size_t n);
/* Inside a region, before an indirect call or a call to a function defined
 * in another module: returns the clone of `fn` when one is registered;
 * otherwise calls __amber_irrevocable() and returns `fn` itself. */
void *__amber_clone_of(void *fn);

/* The heap window, for the inline range check the pass emits outside
 * regions: a load or store of p goes through __amber_loadN / __amber_storeN
 * (atomics through __amber_rmwN / __amber_casN, memory intrinsics through
 * __amber_mem*, libc calls through their wrappers above) when
 *   (uintptr_t)p - __amber_heap_base < __amber_heap_size.
 * Both are 0 until the heap is open, so nothing matches before that.  There
 * the callbacks run each access as a transaction of its own; a load returns
 * the latest committed value. */
extern uintptr_t __amber_heap_base;
extern uintptr_t __amber_heap_size;

/* Inline loads inside regions (ABI 5).  A region function or clone that
 * loads calls __amber_read_state() once on entry and keeps mode, shift,
 * table, self and settled of the struct it returns for the frame: they hold
 * until this frame is left (by return or by the runtime's jump to a
 * restart).  Then each plain load of N bytes (1, 2, 4 or 8, or a vector of
 * up to 64) is, with off = (uintptr_t)p - __amber_heap_base:
 *   mode AMBER_READS_CALL: the callback (__amber_loadN / __amber_loadp /
 *       __amber_loadn);
 *   mode AMBER_READS_DIRECT (the engine reads in place: romulus):
 *       off <= __amber_heap_size - N: the N bytes at p + __amber_heap_delta
 *       (the runtime's alias); off >= __amber_heap_size: the program's own
 *       load at p (ordinary memory needs no more); otherwise (the access
 *       runs past the heap's end) the callback;
 *   modes AMBER_READS_MVCC and AMBER_READS_MVCC_LOG (the mvcc engine):
 *       off <= __amber_heap_size - N and the N bytes in one version block
 *       (off >> shift == (off + N - 1) >> shift), with blk = off >> shift,
 *       in = off & ((1 << shift) - 1):
 *         bit blk % 64 of installed[blk / 64] (acquire) clear: the master,
 *         the N bytes at p + __amber_heap_delta;
 *         else, with c = table + (blk << AMBER_MV_CTL_SHIFT) (ABI 8: the
 *         block's header in place; before, a pointer read from there),
 *         lock, head, ckpt: the words at c + AMBER_MV_CTL_LOCK
 *         (seq_cst), c + AMBER_MV_CTL_HEAD (acquire), c + AMBER_MV_CTL_CKPT
 *         (acquire), read in that order; lock != 0, even, and its
 *         word at AMBER_MV_COPY_OWNER == self (the lock is this
 *         transaction's own pending copy): the N bytes at
 *         lock + AMBER_MV_COPY_DATA + in; any other lock != 0: the callback;
 *         head == NULL: the N bytes at ckpt + in, or the master when ckpt
 *         is NULL;
 *         head's words at AMBER_MV_COPY_OWNER == self and at
 *         AMBER_MV_COPY_CTS < settled: the N bytes at
 *         head + AMBER_MV_COPY_DATA + in;
 *         anything else (ordinary memory, a span across blocks or past the
 *         heap's end): the callback.
 *       AMBER_READS_MVCC_LOG (serializable and linearizable transactions)
 *       also records each block read inline in the read log: when
 *       n == cap, the callback instead (it records and grows the log);
 *       else, unless n > 0 and log[n - 1] == blk, log[n++] = blk (log, n
 *       and cap read again at each load: a callback may change them).
 *       Ordinary memory (off >= __amber_heap_size), a scalar load of N
 *       bytes at p aligned to N: w = &vtab[(p >> 3) & vmask], v = *w
 *       (acquire); v even and v < vsettled: the program's load at p
 *       (monotonic), an acquire fence, *w again (monotonic): the value
 *       when it is still v, else the callback; _LOG records w in vlog as
 *       blocks in log.  AMBER_READS_MVCC (not _LOG), a whole value of k
 *       8-byte words (a vector) at p aligned to 8, p and p + 8k - 1 both
 *       outside the heap, ((p >> 3) & vmask) + k - 1 <= vmask: word i
 *       as the scalar load of 8 bytes at p + 8i with w + i; the value when
 *       every word passes, else the callback.
 *       Anything else: the callback.
 * A pointer-typed load whose value has AMBER_CODE_HANDLE_TAG in bits 48..63
 * (a code handle) goes to __amber_loadp instead.  Atomic and volatile loads
 * always take the callback. */
#define AMBER_READS_CALL 0
#define AMBER_READS_DIRECT 1
#define AMBER_READS_MVCC 2
#define AMBER_READS_MVCC_LOG 3
struct __amber_reads {
  uint32_t mode;       /* AMBER_READS_* */
  uint32_t shift;      /* mvcc: log2 of the version block */
  const void *table;   /* mvcc: the control headers in place, 1 << AMBER_MV_CTL_SHIFT bytes per block */
  const uint64_t *installed; /* mvcc: bit b % 64 of word b / 64 set: block b's header is in use */
  const void *self;    /* mvcc: this thread's versions' owner */
  uint64_t settled;    /* mvcc: own versions committed below it are in this snapshot */
  uint64_t *log;       /* AMBER_READS_MVCC_LOG: the read log, blocks log[0 .. n) of cap */
  uint64_t n, cap;
  /* mvcc, ordinary memory: the lock table (the word of p is
   * vtab[((uintptr_t)p >> 3) & vmask]), the bound below which an even word
   * is read in place, and (AMBER_READS_MVCC_LOG) the words read,
   * vlog[0 .. vn) of vcap. */
  uint64_t *vtab;
  uint64_t vmask, vsettled;
  uint64_t **vlog;
  uint64_t vn, vcap;
};
/* Offsets of the mvcc engine's control header and version copy words the
 * inline check reads (runtime/engine/mvcc/mvcc.h asserts them). */
#define AMBER_MV_CTL_SHIFT 5 /* log2 of a control header's size: block b's is at table + (b << 5) */
#define AMBER_MV_CTL_HEAD 0
#define AMBER_MV_CTL_LOCK 8
#define AMBER_MV_CTL_CKPT 16
#define AMBER_MV_COPY_CTS 8
#define AMBER_MV_COPY_OWNER 24
#define AMBER_MV_COPY_DATA 64
const struct __amber_reads *__amber_read_state(void);
extern intptr_t __amber_heap_delta;
#define AMBER_CODE_HANDLE_TAG 0xAB1Eull

/* The cold side of the range checks outside regions calls these variants
 * of the callbacks above: the same access (each a transaction of its own
 * when no region runs), in the preserve_most calling convention on x86-64
 * (so the hot side keeps its registers: the pass emits the same convention
 * and calls them through the GOT, never a lazy-binding PLT stub), and for
 * writes with `site`, a constant string the pass emits: "file:line" (debug
 * info) or the enclosing function's name.  A write to the heap outside any
 * region is a stray store: counted per site (AMBER_STATS, AMBER_STATS_FILE:
 * stray_stores, stray_store_sites).  A result (the value loaded, the old
 * value of an atomic) comes back zero-extended in element 0 of an
 * amber_word_t: in XMM0 on x86-64, which preserve_most leaves to the return
 * value (LLVM 16 restores RAX, the integer return register, in a
 * preserve_most callee). */
#if defined(__x86_64__)
#define AMBER_OUTSIDE_CC __attribute__((preserve_most))
#else
#define AMBER_OUTSIDE_CC
#endif
typedef uint64_t amber_word_t __attribute__((vector_size(16)));
AMBER_OUTSIDE_CC amber_word_t __amber_outside_load1(const void *p);
AMBER_OUTSIDE_CC amber_word_t __amber_outside_load2(const void *p);
AMBER_OUTSIDE_CC amber_word_t __amber_outside_load4(const void *p);
AMBER_OUTSIDE_CC amber_word_t __amber_outside_load8(const void *p);
AMBER_OUTSIDE_CC void __amber_outside_loadn(void *dst, const void *src, size_t n);
AMBER_OUTSIDE_CC void __amber_outside_store1(void *p, uint8_t v, const char *site);
AMBER_OUTSIDE_CC void __amber_outside_store2(void *p, uint16_t v, const char *site);
AMBER_OUTSIDE_CC void __amber_outside_store4(void *p, uint32_t v, const char *site);
AMBER_OUTSIDE_CC void __amber_outside_store8(void *p, uint64_t v, const char *site);
AMBER_OUTSIDE_CC void __amber_outside_storen(void *dst, const void *src, size_t n, const char *site);
AMBER_OUTSIDE_CC amber_word_t __amber_outside_loadp(const void *p);
AMBER_OUTSIDE_CC void __amber_outside_storep(void *p, uint64_t v, const char *site);
AMBER_OUTSIDE_CC amber_word_t __amber_outside_rmw1(void *p, uint8_t v, int op, const char *site);
AMBER_OUTSIDE_CC amber_word_t __amber_outside_rmw2(void *p, uint16_t v, int op, const char *site);
AMBER_OUTSIDE_CC amber_word_t __amber_outside_rmw4(void *p, uint32_t v, int op, const char *site);
AMBER_OUTSIDE_CC amber_word_t __amber_outside_rmw8(void *p, uint64_t v, int op, const char *site);
AMBER_OUTSIDE_CC amber_word_t __amber_outside_cas1(void *p, uint8_t expected, uint8_t desired, const char *site);
AMBER_OUTSIDE_CC amber_word_t __amber_outside_cas2(void *p, uint16_t expected, uint16_t desired, const char *site);
AMBER_OUTSIDE_CC amber_word_t __amber_outside_cas4(void *p, uint32_t expected, uint32_t desired, const char *site);
AMBER_OUTSIDE_CC amber_word_t __amber_outside_cas8(void *p, uint64_t expected, uint64_t desired, const char *site);
AMBER_OUTSIDE_CC void __amber_outside_memcpy(void *dst, const void *src, size_t n, const char *site);
AMBER_OUTSIDE_CC void __amber_outside_memmove(void *dst, const void *src, size_t n, const char *site);
AMBER_OUTSIDE_CC void __amber_outside_memset(void *dst, int c, size_t n, const char *site);
/* Calls to libc functions outside regions get the same range check on
 * their pointer arguments, and the libc wrappers above on the cold side;
 * for the writers (memcpy memmove memset strcpy strncpy strcat strncat),
 * after this call: it counts a stray store at `site` when p (the written
 * address) is in the heap and no region runs on this thread. */
void __amber_stray_store(const char *site, const void *p);

#ifdef __cplusplus
}
#endif
#endif /* AMBER_INTERFACE_H */
