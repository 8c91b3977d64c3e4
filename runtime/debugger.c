/* What a debugger shows of the heap (docs/guide.md, "Debugging"): plain
 * `print` in gdb reads the canonical window, which maps the data area, but
 * mvcc keeps committed versions in DRAM until a write-back and a region's
 * own writes in its private copies.  amber's gdb script (debugger.py,
 * loaded from libamber's .debug_gdb_scripts section) calls
 * __amber_debug_view on the selected thread at every stop: the window pages
 * whose blocks read differently for that thread become private copy-on-write
 * mappings of the same file pages, patched with what the thread would read,
 * and inaccessible (PROT_NONE: a debugger reads them anyway).  They are
 * mapped back to the file by the next view, by `amber off`, or by the first
 * access of the running program to one of them (amber_debug_fault, from the
 * SIGSEGV handler): gdb cannot call into the program when it resumes it.
 *
 * Invariant: the heap file is never written here.  The overlay is
 * MAP_PRIVATE, so neither its patches nor a crash while it is in place reach
 * the file, and amber itself never reads the window (only its alias,
 * heap/window.h): the program's transactions cannot see an overlay, and
 * code amber did not compile (AMBER_STRICT=0 lets it read the window) faults
 * on one and reads the file page once the handler has mapped it back.
 *
 * These run as inferior calls while the other threads are stopped anywhere,
 * holding any lock: nothing here locks, waits or calls malloc or stdio. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "amber.h"
#include "heap/window.h"
#include "interpose.h"
#include "tx/tx.h"

/* Called by the debugger only: exported, kept. */
int __amber_debug_view(void) __attribute__((used, visibility("default")));
int __amber_debug_resume(void) __attribute__((used, visibility("default")));
const char *__amber_debug_thread(void) __attribute__((used, visibility("default")));

/* More overlay pages than this and the rest of the window shows the data
 * area (each page may cost a mapping; the kernel's limit is about 65,000). */
#define MAX_PAGES 16384u

static uintptr_t *pages; /* overlaid window pages, ascending */
static size_t npages;
static int failed;       /* a mapping failed during this view */

static void say(const char *msg) {
  ssize_t r = write(2, msg, strlen(msg)); /* no stdio: its lock may be held by a stopped thread */
  (void)r;
}

static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }

static off_t file_off(uintptr_t pg) {
  return (off_t)(amber_the_heap.hdr.data_offset + (pg - (uintptr_t)amber_the_heap.window));
}

/* Returns 1 when window page pg is (now) a private copy of its file page. */
static int overlay(uintptr_t pg) {
  size_t lo = 0, hi = npages;
  while (lo < hi) { /* blocks arrive in ascending order, so this is nearly always the end */
    size_t mid = (lo + hi) / 2;
    if (pages[mid] == pg) return 1;
    if (pages[mid] < pg) lo = mid + 1;
    else hi = mid;
  }
  if (npages == MAX_PAGES) return 0;
  if (!pages) {
    void *p = mmap(NULL, MAX_PAGES * sizeof *pages, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return 0;
    pages = p;
  }
  void *got = mmap((void *)pg, page_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, amber_the_heap.fd, file_off(pg));
  if (got == MAP_FAILED) {
    failed = errno;
    return 0;
  }
  memmove(pages + lo + 1, pages + lo, (npages - lo) * sizeof *pages);
  pages[lo] = pg;
  npages++;
  return 1;
}

static void patch(uint64_t off, const void *bytes, size_t n, void *ctx) {
  (void)ctx;
  uintptr_t a = (uintptr_t)amber_the_heap.window + off, ps = page_size();
  for (uintptr_t pg = a & ~(ps - 1); pg < a + n; pg += ps)
    if (!overlay(pg)) return;
  memcpy((void *)a, bytes, n);
}

static int resuming; /* one thread maps the pages back; others wait for it */

int __amber_debug_resume(void) {
  while (__atomic_exchange_n(&resuming, 1, __ATOMIC_ACQUIRE)) __builtin_ia32_pause();
  int n = (int)npages;
  for (size_t i = 0; i < npages; i++)
    if (mmap((void *)pages[i], page_size(), amber_the_heap.window_prot, amber_the_heap.map_flags | MAP_FIXED, amber_the_heap.fd,
             file_off(pages[i])) == MAP_FAILED) {
      /* The page stays a private copy: strict mode still faults on it
       * (same protection), and amber never reads the window. */
      say("amber: warning: the debugger view of a heap page could not be taken back; the program's own reads are not affected\n");
    }
  __atomic_store_n(&npages, 0, __ATOMIC_RELEASE);
  __atomic_store_n(&resuming, 0, __ATOMIC_RELEASE);
  return n;
}

/* From the SIGSEGV handler (async-signal-safe: mmap only).  Relaxed load:
 * a fault on an overlay page happens after the view that made it, in the
 * debugger's stop, which the resumed thread's fault follows; a stale 0 can
 * only be read when no overlay exists. */
int amber_debug_fault(const void *addr) {
  if (!__atomic_load_n(&npages, __ATOMIC_RELAXED) || !amber_the_heap.window) return 0;
  uintptr_t a = (uintptr_t)addr, w = (uintptr_t)amber_the_heap.window;
  if (a - w >= amber_the_heap.hdr.data_size) return 0;
  uintptr_t pg = a & ~(page_size() - 1);
  int mine = 0;
  for (size_t i = 0; i < npages && !mine; i++) mine = pages[i] == pg;
  if (!mine) return 0;
  __amber_debug_resume();
  return 1; /* the access runs again, on the file page */
}

int __amber_debug_view(void) {
  __amber_debug_resume();
  if (!amber_tx_is_ready() || amber_heap_closed || !amber_the_heap.window || !amber_tx_engine || !amber_tx_engine->debug_view)
    return 0;
  failed = 0;
  amber_tx_engine->debug_view(amber_self, patch, NULL);
  for (size_t i = 0; i < npages; i++) mprotect((void *)pages[i], page_size(), PROT_NONE);
  if (failed) say("amber: warning: the debugger view of the heap is partial: a page could not be mapped\n");
  else if (npages == MAX_PAGES) say("amber: warning: the debugger view of the heap is partial: more pages differ than it maps\n");
  return (int)npages;
}

/* One line about the calling thread, for the script's `info amber`. */
const char *__amber_debug_thread(void) {
  static __thread char line[512];
  struct amber_thread *t = amber_self;
  if (!t) snprintf(line, sizeof line, "no amber state (never touched the heap)");
  else if (t->depth > 0 && t->desc)
    snprintf(line, sizeof line, "in region %s at %s:%u (%s%s%s)", t->desc->name ? t->desc->name : "?",
             t->desc->file ? t->desc->file : "?", t->desc->line, t->kind == AMBER_KIND_PERSISTENT ? "AMBER_PERSISTENT" : "AMBER_ATOMIC",
             t->wrote ? ", has written the heap" : ", has not written the heap", t->irrevocable_done ? ", irrevocable" : "");
  else if (t->depth > 0) snprintf(line, sizeof line, "in amber's own transaction (%s)", t->what ? t->what : "?");
  else if (t->batch) snprintf(line, sizeof line, "outside regions; %u stores outside regions not yet committed", t->batch_n);
  else snprintf(line, sizeof line, "outside regions");
  return line;
}

/* The gdb script, in the section gdb reads scripts from (type 4: inline
 * Python, its first line a name).  AMBER_GDB_SCRIPT is its path (set for
 * libamber's own objects; the sanitizer and fuzzing builds go without). */
#ifdef AMBER_GDB_SCRIPT
__asm__(".pushsection .debug_gdb_scripts, \"MS\",@progbits,1\n"
        ".byte 4\n"
        ".ascii \"amber-gdb.py\\n\"\n"
        ".incbin \"" AMBER_GDB_SCRIPT "\"\n"
        ".byte 0\n"
        ".popsection\n");
#endif
