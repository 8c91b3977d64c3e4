// amber_stats_text (include/amber.h, docs/guide.md 9.4): the statistics as
// amber_stats_print prints them, or as the JSON line, into a buffer;
// returns the whole length as snprintf does (truncated, NUL-terminated,
// when the buffer is smaller; size 0 writes nothing).
// RUN: %amber_cc -O2 %s -o %t
// RUN: %run %t | FileCheck %s
#include <amber.h>
#include <stdio.h>
#include <string.h>

struct root { long n; };

int main(void) {
  struct root *r = amber_root(sizeof *r);
  for (int i = 0; i < 5; i++) AMBER_ATOMIC { r->n++; }
  char big[16384], small[8];
  size_t n = amber_stats_text(big, sizeof big, 0);
  // CHECK: text: whole 1, heading 1, commits line 1
  printf("text: whole %d, heading %d, commits line %d\n", n == strlen(big), strncmp(big, "amber stats (engine ", 20) == 0,
         strstr(big, "\n  commits ") != NULL);
  size_t m = amber_stats_text(small, sizeof small, 0);
  // CHECK-NEXT: small: 'amber s' same length 1
  printf("small: '%s' same length %d\n", small, m >= n - 4 && m <= n + 4);
  // CHECK-NEXT: zero: untouched 1
  small[0] = 'x';
  amber_stats_text(small, 0, 0);
  printf("zero: untouched %d\n", small[0] == 'x');
  n = amber_stats_text(big, sizeof big, 1);
  // CHECK-NEXT: json: object 1, one line 1, update commits 1
  printf("json: object %d, one line %d, update commits %d\n", strncmp(big, "{\"engine\": ", 11) == 0,
         n == strlen(big) && strchr(big, '\n') == big + n - 1, strstr(big, "\"update_commits\": ") != NULL);
  return 0;
}
