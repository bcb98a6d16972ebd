/* Row and column orders of a sparse matrix that leave many of its tiles
 * all zero: the tensor-core steps a generated product may skip. */
#ifndef DG_OPERATORS_TILE_ORDER_H
#define DG_OPERATORS_TILE_ORDER_H

/* nz: rows x cols, row-major, nonzero flags.  Tiles are tr rows (rows
 * padded with zero rows to R = a multiple of tr) by kw columns (the last
 * tile column holds cols % kw columns where that is not 0).  Fills
 * row_at[R] (the row at position r; >= rows: padding) and col_at[cols] (the
 * column at position c) so that few tiles hold a nonzero, and the row tile
 * that holds the most holds few (a row tile is one warp's work), and
 * returns how many tiles hold one (-1: out of memory).  Deterministic: the
 * same input gives the same orders. */
int dg_tile_order(const unsigned char *nz, int rows, int cols, int tr, int kw, int *row_at,
                  int *col_at);

/* The tiles of nz in the orders row_at, col_at holding a nonzero: fills
 * used[(R / tr) * ceil(cols / kw)] (may be NULL) and returns their count. */
int dg_tile_order_count(const unsigned char *nz, int rows, int cols, int tr, int kw,
                        const int *row_at, const int *col_at, unsigned char *used);

/* Reorders at[npos] (the item at each position; items >= nitems are
 * padding) without changing which items share a unit of `unit` consecutive
 * positions: swaps within a unit and swaps of whole units only, so the
 * nonzero tiles of dg_tile_order's orders stay as they are.  It spreads the
 * items of each group over distinct keys (key[pos], 0..nkey-1): the
 * shared-memory banks that the threads of one warp (one group of nodes)
 * meet when they read or write by position.  An item is in `per` groups,
 * group[item * per + a] (0..ngroup-1, or -1: none), one for each way the
 * warps may align with the items.  Returns the pairs of a group's items
 * left on one key (0: none; -1: out of memory). */
int dg_tile_order_spread(int *at, int npos, int nitems, int unit, const int *key, int nkey,
                         const int *group, int per, int ngroup);

#endif
