/* The heap's code name table: an append-only list of (handle, symbol name)
 * records in the metadata area, from AMBER_CODENAMES_OFFSET to the data
 * area.  A record is written, flushed and fenced before the store of its
 * handle can commit, so every handle committed data holds has its name
 * here.  A torn record fails its CRC and ends the table; the next append
 * writes over it. */
#include "codenames.h"

#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "base/crc32c.h"
#include "base/diag.h"
#include "pm/pm.h"

#define TABLE_END AMBER_META_SIZE

static pthread_mutex_t add_lock = PTHREAD_MUTEX_INITIALIZER;

uint64_t amber_codenames_handle(const char *name, size_t len) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < len; i++) {
    h ^= (unsigned char)name[i];
    h *= 0x100000001b3ull;
  }
  return AMBER_CODE_TAG << 48 | (h & 0xffffffffffffull);
}

static uint32_t rec_crc(const struct amber_codename_rec *r, const char *name) {
  uint32_t c = amber_crc32c(0, r, offsetof(struct amber_codename_rec, crc));
  return amber_crc32c(c, name, r->len);
}

static size_t rec_size(uint32_t len) { return sizeof(struct amber_codename_rec) + ((len + 7u) & ~7u); }

/* The record at offset off of the metadata area, NULL when none is valid
 * there (the table's end). */
static const struct amber_codename_rec *rec_at(const struct amber_heap *h, size_t off) {
  if (off + sizeof(struct amber_codename_rec) > TABLE_END) return NULL;
  const struct amber_codename_rec *r = (const void *)((const char *)h->meta + off);
  if (!amber_codenames_is_handle(r->handle) || r->len == 0 || r->len > AMBER_CODE_MAX_NAME ||
      off + rec_size(r->len) > TABLE_END)
    return NULL;
  if (r->crc != rec_crc(r, (const char *)(r + 1))) return NULL;
  return r;
}

const char *amber_codenames_find(const struct amber_heap *h, uint64_t handle, uint32_t *len) {
  if (!h || !h->meta) return NULL;
  const struct amber_codename_rec *r;
  for (size_t off = AMBER_CODENAMES_OFFSET; (r = rec_at(h, off)); off += rec_size(r->len))
    if (r->handle == handle) {
      *len = r->len;
      return (const char *)(r + 1);
    }
  return NULL;
}

size_t amber_codenames_count(const struct amber_heap *h, size_t *bytes) {
  size_t n = 0, off = AMBER_CODENAMES_OFFSET;
  const struct amber_codename_rec *r;
  if (h && h->meta)
    for (; (r = rec_at(h, off)); off += rec_size(r->len)) n++;
  if (bytes) *bytes = off - AMBER_CODENAMES_OFFSET;
  return n;
}

int amber_codenames_add(struct amber_heap *h, uint64_t handle, const char *name) {
  size_t len = strlen(name);
  int rc = 0;
  pthread_mutex_lock(&add_lock);
  size_t off = AMBER_CODENAMES_OFFSET;
  const struct amber_codename_rec *r;
  for (; (r = rec_at(h, off)); off += rec_size(r->len)) {
    if (r->handle != handle) continue;
    if (r->len != len || memcmp(r + 1, name, len) != 0) {
      amber_error("heap %s: the code names %s and %.*s have the same handle 0x%llx; rename one of these functions "
                  "(a function pointer to %s cannot be kept in this heap)",
                  h->path, name, (int)r->len, (const char *)(r + 1), (unsigned long long)handle, name);
      rc = -1;
    }
    goto out;
  }
  if (len == 0 || len > AMBER_CODE_MAX_NAME || off + rec_size((uint32_t)len) > TABLE_END || !h->writable) {
    amber_error("heap %s: cannot record the code name %s for a function pointer stored in the heap: %s", h->path,
                name,
                !h->writable ? "the heap is open read-only"
                : len > AMBER_CODE_MAX_NAME ? "the name is longer than 1024 bytes"
                                            : "the heap's code name table (48 KiB) is full");
    rc = -1;
    goto out;
  }
  char *dst = (char *)h->meta + off;
  struct amber_codename_rec rec = {.handle = handle, .len = (uint32_t)len};
  memset(dst, 0, rec_size(rec.len));
  memcpy(dst + sizeof rec, name, len);
  rec.crc = rec_crc(&rec, name);
  memcpy(dst, &rec, sizeof rec);
  amber_pm_wrote(dst, rec_size(rec.len));
  amber_pm_flush(dst, rec_size(rec.len), AMBER_PM_HEADER);
  amber_pm_fence(AMBER_PM_HEADER);
out:
  pthread_mutex_unlock(&add_lock);
  return rc;
}
