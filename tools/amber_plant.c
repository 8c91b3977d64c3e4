/* amber plant-sites: the runtime's flush and fence sites, numbered as
 * AMBER_PLANT counts them (docs/crashtest.md). */
#include <stdio.h>
#include <string.h>

#include "pm/pm.h"

int amber_cmd_plant_sites(int argc, char **argv) {
  (void)argv;
  if (argc != 0) {
    fprintf(stderr, "amber: error: plant-sites takes no arguments\n");
    return 2;
  }
  size_t n;
  const struct amber_pm_site *const *s = amber_pm_sites(&n);
  for (size_t i = 0; i < n; i++) {
    const char *file = strstr(s[i]->file, "runtime/");
    printf("%zu %s %s:%d %s\n", i + 1, s[i]->kind == AMBER_SITE_FLUSH ? "flush" : "fence", file ? file : s[i]->file,
           s[i]->line, s[i]->func);
  }
  return 0;
}
