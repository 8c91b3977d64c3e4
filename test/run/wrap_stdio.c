// The stdio and system-call interceptors on heap buffers (strict mode: libc
// and the kernel never touch the canonical window), on both engines, outside
// regions and inside them: getline/getdelim (buffer, pointer and size in
// the heap; a heap buffer grown by a persistent realloc), readv/writev and
// preadv/pwritev with heap iovecs (the iovec array in the heap too),
// send/recv on a socket pair, fgets_unlocked, fortified fread/fgets
// (-D_FORTIFY_SOURCE=2), dprintf and asprintf of heap strings, and a heap
// buffer for setvbuf refused with an error.  A second run sees what the
// first stored.
// RUN: %amber_cc -O2 -D_FORTIFY_SOURCE=2 %s -o %t
// getdelim from NULL outside regions leaves a pointer to libc's volatile
// buffer in the heap on purpose (r->line2): the pointer check (on in the
// suite) is off here.
// RUN: env AMBER_CHECK_POINTERS=off AMBER_ENGINE=romulus %run %t io %t.txt | FileCheck %s
// RUN: env AMBER_CHECK_POINTERS=off %rerun %t show | FileCheck %s --check-prefix=SHOW
// RUN: %amber check %t.heap
// RUN: env AMBER_CHECK_POINTERS=off AMBER_ENGINE=mvcc %run %t io %t.txt | FileCheck %s
// RUN: env AMBER_CHECK_POINTERS=off %rerun %t show | FileCheck %s --check-prefix=SHOW
// RUN: %amber check %t.heap
// RUN: not env AMBER_CHECK_POINTERS=off %rerun %t setvbuf 2>&1 | FileCheck %s --check-prefix=SETVBUF
// SETVBUF: amber: error: setvbuf() was given a buffer in the persistent heap (0x{{[0-9a-f]+}}) for a stdio stream{{.*}}give it a volatile buffer
// SETVBUF-NOT: not refused
#define _GNU_SOURCE
#include <amber.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

struct root {
  char *line; /* getline's buffer: persistent */
  size_t cap;
  char *line2; /* getdelim from NULL: libc's volatile buffer */
  size_t cap2;
  char a[8], b[16], msg[32], got[32], fl[32], fr[16];
  struct iovec iov[2]; /* a vector in the heap */
  char stdiobuf[BUFSIZ];
};

/* amber_is_persistent (amber.h): in the heap window. */

/* The length up to a newline (instrumented code: strcspn is not this
 * test's concern). */
static int upto_nl(const char *s) {
  int i = 0;
  while (s[i] && s[i] != '\n') i++;
  return i;
}

static void show(const struct root *r) {
  printf("line=%.*s cap=%zu a=%.5s b=%s msg=%s got=%s fl=%.*s fr=%s\n", upto_nl(r->line), r->line, r->cap, r->a, r->b,
         r->msg, r->got, upto_nl(r->fl), r->fl, r->fr);
}

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  if (!strcmp(argv[1], "show")) {
    show(r);
    return 0;
  }
  if (!strcmp(argv[1], "setvbuf")) {
    setvbuf(stdout, r->stdiobuf, _IOFBF, sizeof r->stdiobuf);
    puts("not refused");
    return 0;
  }
  FILE *f = fopen(argv[2], "w+");
  fputs("first line\na much longer second line that needs more room\nhello world\nfgets line\nfread\n", f);
  rewind(f);

  /* getline into a small persistent buffer (grown persistently), the
   * pointer and size in the heap. */
  AMBER_ATOMIC {
    r->line = malloc(4);
    r->cap = 4;
  }
  ssize_t k = getline(&r->line, &r->cap, f);
  // CHECK: getline k=11 line=first line| persistent=1
  printf("getline k=%zd line=%.*s| persistent=%d\n", k, upto_nl(r->line), r->line, amber_is_persistent(r->line));
  k = getline(&r->line, &r->cap, f);
  // CHECK-NEXT: getline k=47 cap=48 persistent=1
  printf("getline k=%zd cap=%zu persistent=%d\n", k, r->cap, amber_is_persistent(r->line));
  r->line2 = NULL;
  r->cap2 = 0;
  k = getdelim(&r->line2, &r->cap2, ' ', f);
  // CHECK-NEXT: getdelim k=6 line2=hello |
  printf("getdelim k=%zd line2=%s|\n", k, r->line2);
  free(r->line2);
  r->line2 = NULL;
  char *vol = NULL;
  size_t vcap = 0;
  AMBER_ATOMIC {
    r->line[0] = 'X';
  }
  k = getline(&vol, &vcap, f); /* nothing of the heap: libc's path */
  // CHECK-NEXT: volatile getline k=6 vol=world
  printf("volatile getline k=%zd vol=%s", k, vol);
  free(vol);

  /* fgets_unlocked and a fortified fread into the heap. */
  char *s = fgets_unlocked(r->fl, sizeof r->fl, f);
  // CHECK-NEXT: fgets_unlocked ok=1 fl=fgets line
  printf("fgets_unlocked ok=%d fl=%s", s == r->fl, r->fl);
  size_t n = fread(r->fr, 1, 5, f);
  // CHECK-NEXT: fread n=5 fr=fread
  printf("fread n=%zu fr=%s\n", n, r->fr);
  fclose(f);

  /* writev from heap buffers, through a heap iovec array; readv back into
   * heap buffers (the split across both). */
  int fd = open(argv[2], O_RDWR | O_TRUNC);
  AMBER_ATOMIC {
    strcpy(r->a, "vec-A");
    strcpy(r->b, "+vec-B");
    r->iov[0].iov_base = r->a;
    r->iov[0].iov_len = 5;
    r->iov[1].iov_base = r->b;
    r->iov[1].iov_len = 7;
  }
  k = writev(fd, r->iov, 2);
  // CHECK-NEXT: writev k=12
  printf("writev k=%zd\n", k);
  char tail[4] = "???";
  struct iovec in[3] = {{r->b, 4}, {tail, 3}, {r->a, 5}};
  k = preadv(fd, in, 3, 0);
  // CHECK-NEXT: preadv k=12 b=vec--B tail=A+v a=ec-B
  printf("preadv k=%zd b=%s tail=%.3s a=%.4s\n", k, r->b, tail, r->a + 0);
  AMBER_ATOMIC {
    k = pwritev(fd, r->iov, 1, 100); /* in a region: the copy is the region's view */
  }
  char back[6] = {0};
  k = pread(fd, back, 5, 100);
  // CHECK-NEXT: pwritev back=ec-B
  printf("pwritev back=%s\n", back);
  lseek(fd, 0, SEEK_SET);
  k = readv(fd, (struct iovec[]){{r->a, 5}}, 1);
  close(fd);
  // CHECK-NEXT: readv k=5 a=vec-A
  printf("readv k=%zd a=%.5s\n", k, r->a);

  /* send from the heap, recv into it. */
  int sv[2];
  socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
  AMBER_ATOMIC { strcpy(r->msg, "over the socket"); }
  k = send(sv[0], r->msg, strlen("over the socket") + 1, 0);
  k = recv(sv[1], r->got, sizeof r->got, 0);
  // CHECK-NEXT: recv k=16 got=over the socket
  printf("recv k=%zd got=%s\n", k, r->got);
  AMBER_ATOMIC {
    k = recvfrom(sv[1], r->got, sizeof r->got, MSG_DONTWAIT, NULL, NULL); /* nothing there: unchanged */
  }
  // CHECK-NEXT: recvfrom k=-1 got=over the socket
  printf("recvfrom k=%zd got=%s\n", k, r->got);

  /* dprintf and asprintf of heap strings. */
  fflush(stdout);
  // CHECK-NEXT: dprintf over the socket
  dprintf(1, "dprintf %s\n", r->got);
  char *out = NULL;
  if (asprintf(&out, "asprintf %s", r->msg) < 0) return 1;
  // CHECK-NEXT: asprintf over the socket
  puts(out);
  free(out);
  // CHECK-NEXT: line=X much longer second line that needs more room cap=48 a=vec-A b=vec--B msg=over the socket got=over the socket fl=fgets line fr=fread
  show(r);
  return 0;
}
// SHOW: line=X much longer second line that needs more room cap=48 a=vec-A b=vec--B msg=over the socket got=over the socket fl=fgets line fr=fread
