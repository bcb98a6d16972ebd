/* "Did you mean ...?" for misspelt keys and names: the closest candidate by
 * edit distance (Levenshtein, case-insensitive), if it is close enough to be
 * a plausible typo (distance <= max(1, len/3)). */
#ifndef DG_CORE_SUGGEST_H
#define DG_CORE_SUGGEST_H

#include <stddef.h>

/* Edit distance between a and b (insert, delete, substitute; case-insensitive). */
size_t dg_suggest_distance(const char *a, const char *b);

/* Closest of candidates[0..n) to word, or NULL if none is plausibly meant. */
const char *dg_suggest_closest(const char *word, const char *const *candidates,
                               size_t n);

#endif
