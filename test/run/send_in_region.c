// send() on a socket inside a region (what a server such as
// examples/kvserver.c would do if it answered from inside its region
// instead of after it).  On a blocking socket it is held until the commit:
// the peer gets the reply once when the region retried first, nothing when
// it cancelled, and send returns the full length inside.  On a non-blocking
// socket (an epoll server's) it cannot wait (docs/wrappers.md): the region
// becomes irrevocable there, so a later amber_retry is an error.  Hence
// kvserver builds its reply in a buffer inside the region and sends it
// after.
// RUN: %amber_cc -O2 %s -o %t
// RUN: %run %t | FileCheck %s
// RUN: not %run %t nonblocking 2>&1 | FileCheck %s --check-prefix=NONBLOCKING
// NONBLOCKING: amber: error: amber_retry() in region main#0 {{.*}} after it made an irrevocable call
#include <amber.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct root { long n; };
AMBER_UNISOLATED static int runs;

static void drain(int fd, const char *what) {
  char buf[256];
  ssize_t k = recv(fd, buf, sizeof buf - 1, MSG_DONTWAIT);
  if (k < 0) k = 0;
  buf[k] = 0;
  printf("%s: received '%s'\n", what, buf);
}

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 1;
  if (argc > 1 && !strcmp(argv[1], "nonblocking")) fcntl(sv[0], F_SETFL, O_NONBLOCK);
  long sent = 0;
  AMBER_ATOMIC {
    r->n++;
    sent = send(sv[0], "+OK", 3, MSG_NOSIGNAL);
    if (__atomic_add_fetch(&runs, 1, __ATOMIC_RELAXED) == 1) amber_retry();
  }
  // CHECK: retried: runs 2, send returned 3
  printf("retried: runs %d, send returned %ld\n", runs, sent);
  // CHECK-NEXT: retried: received '+OK'
  drain(sv[1], "retried");
  AMBER_ATOMIC {
    r->n++;
    send(sv[0], "-ERR", 4, MSG_NOSIGNAL);
    amber_cancel();
  }
  // CHECK-NEXT: cancelled: received ''
  drain(sv[1], "cancelled");
  // CHECK-NEXT: n 1
  printf("n %ld\n", r->n);
  return 0;
}
