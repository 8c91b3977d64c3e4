/* libamber.so is linked without the C start files (crti, crtbeginS, crtendS,
 * crtn: -nostartfiles, runtime/CMakeLists.txt), for start-up in proportion to
 * the work (issue 27 item 5). What they gave a C library and cost every
 * process, used or not: DT_INIT/DT_FINI (_init, _fini: a page fault each,
 * _fini's at exit), frame_dummy and __do_global_dtors_aux (four dynamic
 * symbol look-ups at load, three of them of names nothing defines, searched
 * through every object: _ITM_deregisterTMCloneTable,
 * _ITM_registerTMCloneTable, __gmon_start__, and __cxa_finalize; two page
 * faults at exit on the first page of .bss, which only their "completed"
 * flag touched). Constructors still run from .init_array (the linker's
 * DT_INIT_ARRAY, not crti's), .eh_frame is found through PT_GNU_EH_FRAME
 * (no terminator needed), and libamber is never unloaded (DT_NEEDED or
 * preloaded, never dlopen'ed), so nothing needs __cxa_finalize.
 *
 * What remains to define is __dso_handle, which atexit (libc_nonshared.a)
 * passes to __cxa_atexit to name this object. Only in the shared library: an
 * executable linking the static runtime gets crtbegin's. */
extern void *__dso_handle __attribute__((visibility("hidden")));
void *__dso_handle = &__dso_handle;
