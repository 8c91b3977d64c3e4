/* Whose a heap is: the private default location, the mode of new heaps and
 * the check that a heap opened for writing is its user's alone.  A heap
 * holds raw pointers the program follows, so whoever can write it controls
 * the process's memory (docs/guide.md, Security). */
#include "owner.h"

#include "base/crc32c.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/crc32c.h"
#include "base/diag.h"

void amber_heap_owner_text(unsigned uid, unsigned mode, char *buf, size_t len) {
  /* getpwuid_r: the amber tool and error paths only, never a hot path. */
  struct passwd pw, *res = NULL;
  char scratch[1024];
  if (getpwuid_r((uid_t)uid, &pw, scratch, sizeof scratch, &res) == 0 && res)
    snprintf(buf, len, "uid %u (%s), mode %04o", uid, res->pw_name, mode & 07777);
  else
    snprintf(buf, len, "uid %u, mode %04o", uid, mode & 07777);
}

/* A directory amber trusts for heaps: owned by this user (or root) and not
 * writable by group or others unless sticky (where only a file's owner may
 * replace it).  Otherwise someone else can put another file at the heap's
 * name. */
static int check_dir(const char *heap, const char *dir) {
  struct stat sb;
  if (stat(dir, &sb) != 0) return amber_error("cannot check the directory %s of heap %s: %s", dir, heap, strerror(errno));
  /* The owner's name only for an error: looking it up reads the user
   * database (nsswitch, /etc/passwd) at every open otherwise. */
  char who[160];
#define WHO (amber_heap_owner_text((unsigned)sb.st_uid, (unsigned)sb.st_mode, who, sizeof who), who)
  if (sb.st_uid != geteuid() && sb.st_uid != 0)
    return amber_error("heap %s is in directory %s (%s), which belongs to another user: that user can replace the heap. "
                       "Keep heaps in your own directory (unset AMBER_HEAP for the private default), or set AMBER_HEAP_SHARED=1 "
                       "if this heap is shared deliberately (docs/guide.md, Security)",
                       heap, dir, WHO);
  if ((sb.st_mode & (S_IWGRP | S_IWOTH)) && !(sb.st_mode & S_ISVTX))
    return amber_error("heap %s is in directory %s (%s), which others can write without the sticky bit: they can replace "
                       "the heap. Run chmod go-w %s (or chmod +t), move the heap, or set AMBER_HEAP_SHARED=1 if it is shared "
                       "deliberately (docs/guide.md, Security)",
                       heap, dir, WHO, dir);
#undef WHO
  return 0;
}

void amber_heap_dir_of(const char *path, char *dir, size_t len) {
  snprintf(dir, len, "%s", path);
  char *slash = strrchr(dir, '/');
  if (!slash) snprintf(dir, len, ".");
  else if (slash == dir) dir[1] = 0;
  else *slash = 0;
}

int amber_heap_check_dir(const char *path) {
  char dir[PATH_MAX];
  amber_heap_dir_of(path, dir, sizeof dir);
  return check_dir(path, dir);
}

int amber_heap_check_owner(const char *path, const struct stat *sb) {
  char who[160];
#define WHO (amber_heap_owner_text((unsigned)sb->st_uid, (unsigned)sb->st_mode, who, sizeof who), who)
  if (sb->st_uid != geteuid())
    return amber_error("heap %s belongs to another user (%s) and this program runs as uid %u: whoever can write a heap "
                       "controls the program that opens it, so amber opens only its user's own heaps. Use your own heap "
                       "(unset AMBER_HEAP for the private default), or set AMBER_HEAP_SHARED=1 if this heap is shared "
                       "deliberately (docs/guide.md, Security)",
                       path, WHO, (unsigned)geteuid());
  if (sb->st_mode & (S_IWGRP | S_IWOTH))
    return amber_error("heap %s (%s) is writable by %s: whoever can write a heap controls the program that opens it. "
                       "Run chmod go-w %s, or set AMBER_HEAP_SHARED=1 if it is shared deliberately (docs/guide.md, Security)",
                       path, WHO, sb->st_mode & S_IWOTH ? "every user" : "its group", path);
#undef WHO
  return amber_heap_check_dir(path);
}

int amber_heap_default_name(const char *exe, char *buf, size_t len, char *legacy, size_t legacy_len) {
  const char *slash = strrchr(exe, '/');
  const char *prog = slash ? slash + 1 : exe;
  if (!*prog) prog = "program";
  /* Keyed by the effective user, from no environment variable: the same
   * place for a set-user-ID program as for its owner's own runs. */
  char dir[64];
  snprintf(dir, sizeof dir, "%s/amber-%u", AMBER_HEAP_DEFAULT_ROOT, (unsigned)geteuid());
  /* The whole path's checksum tells apart two programs called app; a
   * rebuild in place keeps its path, and so its heap. */
  uint32_t key = amber_crc32c(0, exe, strlen(exe));
  if ((size_t)snprintf(buf, len, "%s/%s-%08x.heap", dir, prog, (unsigned)key) >= len ||
      (legacy && (size_t)snprintf(legacy, legacy_len, "%s/%s.heap", dir, prog) >= legacy_len))
    return amber_error("the default heap path for program %s is too long; set AMBER_HEAP", exe);
  return 0;
}

int amber_heap_default_path(char *buf, size_t len, char *legacy, size_t legacy_len) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) n = snprintf(exe, sizeof exe, "program");
  exe[n] = 0;
  unsigned uid = (unsigned)geteuid();
  char dir[64];
  snprintf(dir, sizeof dir, "%s/amber-%u", AMBER_HEAP_DEFAULT_ROOT, uid);
  if (mkdir(dir, 0700) != 0 && errno != EEXIST)
    return amber_error("cannot create the private heap directory %s: %s; check that %s exists and is writable, or set "
                       "AMBER_HEAP to a heap file",
                       dir, strerror(errno), AMBER_HEAP_DEFAULT_ROOT);
  /* lstat: a link planted at the name would lead elsewhere. */
  struct stat sb;
  if (lstat(dir, &sb) != 0)
    return amber_error("cannot check the private heap directory %s: %s", dir, strerror(errno));
  char who[160];
  if (!S_ISDIR(sb.st_mode) || sb.st_uid != uid || (sb.st_mode & (S_IWGRP | S_IWOTH))) {
    amber_heap_owner_text((unsigned)sb.st_uid, (unsigned)sb.st_mode, who, sizeof who);
    return amber_error("the private heap directory %s (%s%s) must be a directory of uid %u that group and others cannot "
                       "write: someone else could plant the heap this program trusts. Remove it (as its owner or root) so "
                       "amber makes it again with mode 0700, or set AMBER_HEAP to a heap file in a directory of your own",
                       dir, S_ISDIR(sb.st_mode) ? "" : S_ISLNK(sb.st_mode) ? "a symbolic link, " : "not a directory, ", who,
                       uid);
  }
  return amber_heap_default_name(exe, buf, len, legacy, legacy_len);
}

int amber_heap_mode_parse(const char *s, unsigned *mode) {
  unsigned v = 0;
  const char *p = s;
  for (; *p >= '0' && *p <= '7' && v <= 0777; p++) v = v * 8 + (unsigned)(*p - '0');
  if (p == s || *p || v > 0777 || (v & 0600) != 0600)
    return amber_error("AMBER_HEAP_MODE=%s is not a mode amber can give a heap; use octal permissions that include read and "
                       "write for the owner, e.g. 0600 (the default) or 0660 for a group that shares the heap",
                       s);
  *mode = v;
  return 0;
}
