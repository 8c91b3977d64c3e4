/* static_runtime.c: a program built with plain clang (no runtime of its own)
 * dlopens a shared object built with amber-cc, whose libamber.so comes with
 * it and is the process's one runtime. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
  void *h = dlopen(argc > 1 ? argv[1] : "", RTLD_NOW);
  if (!h) {
    printf("dlopen: %s\n", dlerror());
    return 1;
  }
  long (*thrice)(long) = (long (*)(long))dlsym(h, "amber_thrice");
  int (*persistent)(const void *) = (int (*)(const void *))dlsym(h, "amber_is_persistent");
  printf("plain dlopen: thrice %ld, runtime %s\n", thrice(3), persistent ? "found" : "missing");
  return 0;
}
