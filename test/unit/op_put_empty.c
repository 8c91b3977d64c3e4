// amber_op_put of zero bytes on a thread that has captured nothing yet (its
// buffer is NULL): a region without a closure does that at every start
// (amber_op_begin).  Compiled with UBSan, which reported "applying zero
// offset to null pointer" and a NULL memcpy argument (issue [1/7] part 7).
// RUN: %unit_cc -fsanitize=undefined -fno-sanitize-recover=all %s -o %t %unit_libs
// RUN: %t | FileCheck %s
// CHECK: op_put_empty: ok
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "tx/op.h"
#include "tx/tx.h"

int main(void) {
  struct amber_thread t;
  memset(&t, 0, sizeof t);
  amber_op_put(&t, NULL, 0);
  assert(t.opn == 0 && t.opbuf == NULL);
  printf("op_put_empty: ok\n");
  return 0;
}
