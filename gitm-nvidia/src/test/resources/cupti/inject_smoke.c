/* Loads the injection library (argv[1]) as the CUDA driver would and calls InitializeInjection, then exits, so
   the library writes its trace at exit. Used by InjectionLibraryTest. */
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
  void *h = dlopen(argv[1], RTLD_NOW);
  if (!h) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 2; }
  int (*init)(void) = (int (*)(void))dlsym(h, "InitializeInjection");
  if (!init) return 3;
  printf("InitializeInjection=%d\n", init());
  return 0;
}
