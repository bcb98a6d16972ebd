#include "core/suggest.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

size_t dg_suggest_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  /* Two rows of the dynamic-programming table suffice. */
  size_t *prev = malloc((lb + 1) * sizeof *prev);
  size_t *cur = malloc((lb + 1) * sizeof *cur);
  if (!prev || !cur) {
    free(prev);
    free(cur);
    return (size_t)-1;
  }
  for (size_t j = 0; j <= lb; j++)
    prev[j] = j;
  for (size_t i = 1; i <= la; i++) {
    cur[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
      size_t best = prev[j - 1] + (same ? 0 : 1);
      if (prev[j] + 1 < best)
        best = prev[j] + 1;
      if (cur[j - 1] + 1 < best)
        best = cur[j - 1] + 1;
      cur[j] = best;
    }
    size_t *t = prev;
    prev = cur;
    cur = t;
  }
  size_t d = prev[lb];
  free(prev);
  free(cur);
  return d;
}

const char *dg_suggest_closest(const char *word, const char *const *candidates,
                               size_t n) {
  size_t len = strlen(word);
  size_t limit = len / 3 > 1 ? len / 3 : 1;
  const char *best = NULL;
  size_t best_d = limit + 1;
  for (size_t i = 0; i < n; i++) {
    size_t d = dg_suggest_distance(word, candidates[i]);
    if (d < best_d) {
      best_d = d;
      best = candidates[i];
    }
  }
  return best;
}
