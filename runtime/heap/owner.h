/* Whose a heap is: its private default location, the mode of a new heap,
 * and the check that a heap opened for writing belongs to this user alone
 * (docs/guide.md, Security). */
#ifndef AMBER_HEAP_OWNER_H
#define AMBER_HEAP_OWNER_H

#include <stddef.h>
#include <sys/stat.h>

/* The default heaps of user U live in AMBER_HEAP_DEFAULT_ROOT/amber-U/. */
#define AMBER_HEAP_DEFAULT_ROOT "/dev/shm"
/* Mode of a new heap when AMBER_HEAP_MODE is not set (the umask applies). */
#define AMBER_HEAP_DEFAULT_MODE 0600

/* The default heap of the executable at absolute path exe (as
 * /proc/self/exe names it): AMBER_HEAP_DEFAULT_ROOT/amber-<euid>/
 * <basename>-<crc32c of exe, 8 hex digits>.heap, unique per executable
 * and kept across rebuilds in place.  legacy (may be NULL) receives the
 * name every program of that base name shared before (<basename>.heap).
 * Touches nothing.  Returns 0, or -1 after an amber: error:. */
int amber_heap_default_name(const char *exe, char *buf, size_t len, char *legacy, size_t legacy_len);

/* amber_heap_default_name for this program, after making the directory
 * (mode 0700) when missing and checking that it is a directory (not a
 * link) of this user that group and others cannot write.  Returns 0, or
 * -1 after an amber: error: saying what is wrong and how to fix it. */
int amber_heap_default_path(char *buf, size_t len, char *legacy, size_t legacy_len);

/* For a heap opened for writing (sb: its fstat): refuses, with an amber:
 * error: naming the file, its owner and mode, a heap another user owns,
 * one group or others can write, and one whose directory someone else can
 * replace it in (another user's, or writable by others without the sticky
 * bit).  Returns 0 or -1. */
int amber_heap_check_owner(const char *path, const struct stat *sb);

/* The directory half of amber_heap_check_owner, for a heap about to be
 * created there.  Returns 0 or -1. */
int amber_heap_check_dir(const char *path);
/* The directory part of path ("." when it has none, "/" for the root). */
void amber_heap_dir_of(const char *path, char *dir, size_t len);

/* "uid U (name), mode 0NNN" (the name when the user database has one). */
void amber_heap_owner_text(unsigned uid, unsigned mode, char *buf, size_t len);

/* Parses AMBER_HEAP_MODE's value (octal permissions with owner read and
 * write, at most 0777).  Returns 0, or -1 after an amber: error:. */
int amber_heap_mode_parse(const char *s, unsigned *mode);

#endif
