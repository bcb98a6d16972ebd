/* dg_tile_order: simulated annealing over row and column swaps.
 *
 * Why: the Bernstein-Bezier lift is sparse (39 % nonzero at N = 7 in 3D),
 * but its nonzeros are spread so that in the natural node order only 21 %
 * of the fp64 tensor-core steps (8 rows x 4 columns) are all zero.  Which
 * node is in which row tile, and which face node in which k-step, is free
 * (a table maps them in the kernel), and with good orders a third of the
 * steps are zero.  Finding the best orders is a hard combinatorial problem.
 * Annealing with swaps, 400 moves a tile, takes well under a second (0.4 s
 * at N = 7); four times as many find better orders, too slowly for a
 * generator that runs on every start, so those are searched offline and
 * shipped as a table (dg_tile_order).  Fixed seeds make the generated
 * source reproducible.
 *
 * The state is cnt[t][g], the nonzeros in tile (row tile t, column group
 * g); a swap of two rows (columns) changes only the counts of their two
 * row tiles (column groups), so a move costs the nonzeros of the two rows
 * (columns), kept as lists. */
#include "operators/tile_order.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int rows, cols, tr, kw, R, ngrp;
  int *row_at, *col_at, *row_pos, *col_pos, *cnt;
  int *rfirst, *rlist; /* the nonzero columns of each row (CSR) */
  int *cfirst, *clist; /* the nonzero rows of each column (CSC) */
  int used;            /* tiles with cnt > 0 */
  int *rowused;        /* [R / tr]: of them in each row tile */
  long moves;          /* the search's moves per tile */
  uint64_t seed;
} anneal;

static void add(anneal *a, int t, int g, int d) {
  int *n = &a->cnt[t * a->ngrp + g];
  int change = (*n == 0 && d > 0) - (*n + d == 0 && d < 0);
  a->used += change;
  a->rowused[t] += change;
  *n += d;
}

/* Move the nonzeros of row (column) x from tile row (column group) from to
 * to. */
static void move_row(anneal *a, int x, int from, int to) {
  if (x >= a->rows)
    return; /* padding */
  for (int z = a->rfirst[x]; z < a->rfirst[x + 1]; z++) {
    int g = a->col_pos[a->rlist[z]] / a->kw;
    add(a, from, g, -1);
    add(a, to, g, 1);
  }
}

static void move_col(anneal *a, int x, int from, int to) {
  for (int z = a->cfirst[x]; z < a->cfirst[x + 1]; z++) {
    int t = a->row_pos[a->clist[z]] / a->tr;
    add(a, t, from, -1);
    add(a, t, to, 1);
  }
}

/* Swap positions i and j (rows if is_row, else columns), keeping cnt. */
static void swap(anneal *a, int is_row, int i, int j) {
  int *at = is_row ? a->row_at : a->col_at, *pos = is_row ? a->row_pos : a->col_pos;
  int unit = is_row ? a->tr : a->kw, x = at[i], y = at[j];
  if (is_row) {
    move_row(a, x, i / unit, j / unit);
    move_row(a, y, j / unit, i / unit);
  } else {
    move_col(a, x, i / unit, j / unit);
    move_col(a, y, j / unit, i / unit);
  }
  at[i] = y;
  at[j] = x;
  pos[x] = j;
  pos[y] = i;
}

/* Greedy clustering of n items (patterns of w words each) into groups of
 * sz consecutive positions: each group starts with the remaining item of
 * the most bits and takes, one by one, the item that adds the fewest bits
 * to the group's union (ties: the one with more bits).  order[pos] = item.
 * Why: items with equal or nested patterns end up together, which a swap
 * search finds only slowly (a shuffled block pattern: 131 nonzero tiles
 * from swaps alone, 75 = the planted count from this start). */
static int cluster(const uint64_t *pat, int n, int w, int sz, int *order) {
  unsigned char *taken = calloc((size_t)n, 1);
  uint64_t *u = malloc((size_t)w * sizeof *u);
  if (!taken || !u) {
    free(taken);
    free(u);
    return 0;
  }
  for (int pos = 0; pos < n; pos++) {
    int best = -1, best_add = 0, best_bits = 0;
    for (int x = 0; x < n; x++) {
      if (taken[x])
        continue;
      int bits = 0, add = 0;
      for (int k = 0; k < w; k++) {
        bits += __builtin_popcountll(pat[(size_t)x * w + k]);
        if (pos % sz)
          add += __builtin_popcountll(pat[(size_t)x * w + k] & ~u[k]);
      }
      if (pos % sz == 0)
        add = -bits; /* a new group: the item of the most bits */
      if (best < 0 || add < best_add || (add == best_add && bits > best_bits))
        best = x, best_add = add, best_bits = bits;
    }
    if (pos % sz == 0)
      memset(u, 0, (size_t)w * sizeof *u);
    for (int k = 0; k < w; k++)
      u[k] |= pat[(size_t)best * w + k];
    taken[best] = 1;
    order[pos] = best;
  }
  free(taken);
  free(u);
  return 1;
}

/* The start of the search: rows clustered by their nonzero columns, then
 * columns by the row tiles they meet, then rows again by the column groups
 * they meet. */
static int greedy_start(anneal *a, const unsigned char *nz) {
  int wr = (a->cols + 63) / 64, nt = a->R / a->tr, wc = (nt + 63) / 64, wg = (a->ngrp + 63) / 64;
  int w = wr > wc ? wr : wc;
  w = w > wg ? w : wg;
  int n = a->R > a->cols ? a->R : a->cols;
  uint64_t *pat = calloc((size_t)n * w, sizeof *pat);
  if (!pat)
    return 0;
  for (int r = 0; r < a->rows; r++)
    for (int c = 0; c < a->cols; c++)
      if (nz[(size_t)r * a->cols + c])
        pat[(size_t)r * wr + c / 64] |= 1ULL << (c % 64);
  int ok = cluster(pat, a->R, wr, a->tr, a->row_at);
  if (ok) {
    memset(pat, 0, (size_t)n * w * sizeof *pat);
    for (int pos = 0; pos < a->R; pos++)
      for (int c = 0; a->row_at[pos] < a->rows && c < a->cols; c++)
        if (nz[(size_t)a->row_at[pos] * a->cols + c])
          pat[(size_t)c * wc + (pos / a->tr) / 64] |= 1ULL << ((pos / a->tr) % 64);
    ok = cluster(pat, a->cols, wc, a->kw, a->col_at);
  }
  if (ok) {
    memset(pat, 0, (size_t)n * w * sizeof *pat);
    for (int pos = 0; pos < a->cols; pos++)
      for (int r = 0; r < a->rows; r++)
        if (nz[(size_t)r * a->cols + a->col_at[pos]])
          pat[(size_t)r * wg + (pos / a->kw) / 64] |= 1ULL << ((pos / a->kw) % 64);
    ok = cluster(pat, a->R, wg, a->tr, a->row_at);
  }
  free(pat);
  return ok;
}

static uint64_t next(uint64_t *s) { /* xorshift64* */
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ULL;
}

int dg_tile_order_count(const unsigned char *nz, int rows, int cols, int tr, int kw,
                        const int *row_at, const int *col_at, unsigned char *used) {
  int R = (rows + tr - 1) / tr * tr, ngrp = (cols + kw - 1) / kw, n = 0;
  for (int t = 0; t < R / tr; t++)
    for (int g = 0; g < ngrp; g++) {
      int any = 0;
      for (int r = t * tr; r < (t + 1) * tr && !any; r++)
        for (int c = g * kw; c < (g + 1) * kw && c < cols && !any; c++)
          any = row_at[r] < rows && nz[(size_t)row_at[r] * cols + col_at[c]];
      if (used)
        used[t * ngrp + g] = (unsigned char)any;
      n += any;
    }
  return n;
}

/* What the search minimises: the nonzero tiles, plus the row tiles times
 * the most any row tile holds.  Why the second term: a warp runs a row
 * tile's steps and the block waits for its slowest warp, so a search for
 * the fewest tiles alone (H100, Maxwell fp64 N = 7: 358 of 540, but 30 in
 * the fullest row tile of 36) left the time unchanged. */
static int cost(const anneal *a) {
  int nt = a->R / a->tr, mx = 0;
  for (int t = 0; t < nt; t++)
    mx = a->rowused[t] > mx ? a->rowused[t] : mx;
  return a->used + nt * mx;
}

/* Simulated annealing from the orders in a->row_at, a->col_at; leaves
 * the best orders it met there and returns their cost.  Schedule:
 * temperature 1 -> 0.01 linearly (a tile is the unit of cost, so early
 * moves may lose a tile or two), a->moves moves per tile. */
static int search_from(anneal *a, int *keep_r, int *keep_c) {
  int ntile = a->R / a->tr * a->ngrp;
  memset(a->cnt, 0, (size_t)ntile * sizeof(int));
  memset(a->rowused, 0, (size_t)(a->R / a->tr) * sizeof(int));
  a->used = 0;
  for (int r = 0; r < a->R; r++)
    a->row_pos[a->row_at[r]] = r;
  for (int c = 0; c < a->cols; c++)
    a->col_pos[a->col_at[c]] = c;
  for (int r = 0; r < a->rows; r++)
    for (int z = a->rfirst[r]; z < a->rfirst[r + 1]; z++)
      add(a, a->row_pos[r] / a->tr, a->col_pos[a->rlist[z]] / a->kw, 1);
  int best = cost(a);
  memcpy(keep_r, a->row_at, (size_t)a->R * sizeof(int));
  memcpy(keep_c, a->col_at, (size_t)a->cols * sizeof(int));
  uint64_t seed = 0x9E3779B97F4A7C15ULL + a->seed;
  long iters = a->moves * ntile;
  for (long it = 0; it < iters; it++) {
    double temp = 1.0 - 0.99 * (double)it / (double)iters;
    int is_row = (next(&seed) >> 32) & 1;
    int n = is_row ? a->R : a->cols, unit = is_row ? a->tr : a->kw;
    int i = (int)(next(&seed) % (uint64_t)n), j = (int)(next(&seed) % (uint64_t)n);
    if (i / unit == j / unit)
      continue;
    int before = cost(a);
    swap(a, is_row, i, j);
    int now = cost(a), d = now - before;
    double u = (double)(next(&seed) >> 11) / 9007199254740992.0; /* [0, 1) */
    if (d > 0 && u >= exp(-d / temp)) {
      swap(a, is_row, i, j); /* rejected */
      continue;
    }
    if (now < best) {
      best = now;
      memcpy(keep_r, a->row_at, (size_t)a->R * sizeof(int));
      memcpy(keep_c, a->col_at, (size_t)a->cols * sizeof(int));
    }
  }
  memcpy(a->row_at, keep_r, (size_t)a->R * sizeof(int));
  memcpy(a->col_at, keep_c, (size_t)a->cols * sizeof(int));
  return best;
}

int dg_tile_order_search(const unsigned char *nz, int rows, int cols, int tr, int kw,
                         int moves, unsigned long long seed, int *row_at, int *col_at) {
  anneal a = {0};
  a.moves = moves, a.seed = seed;
  a.rows = rows, a.cols = cols, a.tr = tr, a.kw = kw, a.R = (rows + tr - 1) / tr * tr;
  a.ngrp = (cols + kw - 1) / kw, a.row_at = row_at, a.col_at = col_at;
  int ntile = a.R / tr * a.ngrp, nnz = 0;
  for (size_t z = 0; z < (size_t)rows * cols; z++)
    nnz += nz[z] != 0;
  a.row_pos = malloc((size_t)a.R * sizeof(int));
  a.col_pos = malloc((size_t)cols * sizeof(int));
  a.cnt = calloc((size_t)ntile, sizeof(int));
  a.rowused = calloc((size_t)(a.R / tr), sizeof(int));
  a.rfirst = calloc((size_t)rows + 1, sizeof(int));
  a.cfirst = calloc((size_t)cols + 1, sizeof(int));
  a.rlist = malloc((size_t)(nnz + 1) * sizeof(int));
  a.clist = malloc((size_t)(nnz + 1) * sizeof(int));
  int *best_r = malloc((size_t)a.R * sizeof(int)), *best_c = malloc((size_t)cols * sizeof(int));
  int *keep_r = malloc((size_t)a.R * sizeof(int)), *keep_c = malloc((size_t)cols * sizeof(int));
  int best = -1;
  if (!a.row_pos || !a.col_pos || !a.cnt || !a.rowused || !a.rfirst || !a.cfirst || !a.rlist || !a.clist ||
      !best_r || !best_c || !keep_r || !keep_c)
    goto done;
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++)
      if (nz[(size_t)r * cols + c]) {
        a.rfirst[r + 1]++;
        a.cfirst[c + 1]++;
      }
  for (int r = 0; r < rows; r++)
    a.rfirst[r + 1] += a.rfirst[r];
  for (int c = 0; c < cols; c++)
    a.cfirst[c + 1] += a.cfirst[c];
  for (int r = 0, zr = 0; r < rows; r++)
    for (int c = 0; c < cols; c++)
      if (nz[(size_t)r * cols + c])
        a.rlist[zr++] = c;
  for (int c = 0; c < cols; c++) /* the column lists, rows ascending */
    for (int r = 0, z = a.cfirst[c]; r < rows; r++)
      if (nz[(size_t)r * cols + c])
        a.clist[z++] = r;
  /* two searches, from the natural order and from the greedy clustering:
   * neither start wins everywhere (fp64 8 x 4 tiles at N = 7: 358 and 367
   * nonzero tiles; at N = 5 137 and 125) */
  for (int start = 0; start < 2; start++) {
    for (int r = 0; r < a.R; r++)
      row_at[r] = r;
    for (int c = 0; c < cols; c++)
      col_at[c] = c;
    if (start == 1 && !greedy_start(&a, nz)) {
      best = -1;
      goto done;
    }
    int n = search_from(&a, keep_r, keep_c);
    if (best < 0 || n < best) {
      best = n;
      memcpy(best_r, row_at, (size_t)a.R * sizeof(int));
      memcpy(best_c, col_at, (size_t)cols * sizeof(int));
    }
  }
  memcpy(row_at, best_r, (size_t)a.R * sizeof(int));
  memcpy(col_at, best_c, (size_t)cols * sizeof(int));
  best = dg_tile_order_count(nz, rows, cols, tr, kw, row_at, col_at, NULL);
done:
  free(a.row_pos);
  free(a.col_pos);
  free(a.cnt);
  free(a.rowused);
  free(a.rfirst);
  free(a.cfirst);
  free(a.rlist);
  free(a.clist);
  free(best_r);
  free(best_c);
  free(keep_r);
  free(keep_c);
  return best;
}

void dg_tile_order_pattern(const double *m, int rows, int cols, unsigned char *nz) {
  /* Why 1e-12: the Bernstein-Bezier lift's structural zeros come out of
   * its construction (dg/bernstein.c) as round-off under 1.2e-14 of its
   * largest entry; its smallest true entry is 1.6e-3 of it (N = 7, 3D) */
  double mx = 0;
  for (size_t z = 0; z < (size_t)rows * cols; z++)
    mx = fmax(mx, fabs(m[z]));
  for (size_t z = 0; z < (size_t)rows * cols; z++)
    nz[z] = fabs(m[z]) > 1e-12 * mx;
}

unsigned long long dg_tile_order_digest(const unsigned char *nz, int rows, int cols) {
  uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a over the flags */
  for (size_t z = 0; z < (size_t)rows * cols; z++) {
    h ^= (uint64_t)(nz[z] != 0);
    h *= 0x100000001b3ULL;
  }
  return h ^ ((uint64_t)rows << 32 | (uint64_t)cols);
}

int dg_tile_order_cost(const unsigned char *nz, int rows, int cols, int tr, int kw,
                       const int *row_at, const int *col_at) {
  int R = (rows + tr - 1) / tr * tr, ngrp = (cols + kw - 1) / kw;
  unsigned char *used = malloc((size_t)(R / tr) * ngrp);
  if (!used)
    return -1;
  int n = dg_tile_order_count(nz, rows, cols, tr, kw, row_at, col_at, used), mx = 0;
  for (int t = 0; t < R / tr; t++) {
    int k = 0;
    for (int g = 0; g < ngrp; g++)
      k += used[t * ngrp + g];
    mx = k > mx ? k : mx;
  }
  free(used);
  return n + R / tr * mx;
}

/* Why a table: a four times longer search finds better orders (fp64 8 x 4
 * tiles at N = 7: 329 nonzero steps and 24 in the fullest row tile against
 * 356 and 27; H100, Maxwell fp64 N = 7 1.096 -> 1.076 ms), but takes 3 s,
 * and the generator runs on every start.  So the shapes that pay are
 * searched once, offline (tuning/tile_orders.c), and shipped. */
int dg_tile_order(const unsigned char *nz, int rows, int cols, int tr, int kw, int *row_at,
                  int *col_at) {
  unsigned long long digest = dg_tile_order_digest(nz, rows, cols);
  for (int e = 0; e < dg_tile_order_nknown; e++) {
    const dg_tile_order_known *k = &dg_tile_order_known_table[e];
    if (k->rows != rows || k->cols != cols || k->tr != tr || k->kw != kw || k->digest != digest)
      continue;
    int R = (rows + tr - 1) / tr * tr;
    for (int r = 0; r < R; r++)
      row_at[r] = k->row_at[r];
    for (int c = 0; c < cols; c++)
      col_at[c] = k->col_at[c];
    return dg_tile_order_count(nz, rows, cols, tr, kw, row_at, col_at, NULL);
  }
  return dg_tile_order_search(nz, rows, cols, tr, kw, 400, 0, row_at, col_at);
}

/* dg_tile_order_spread: hill climbing on the pairs of a group's items that
 * share a key, with moves that keep every unit's set of items. */
typedef struct {
  int *at, npos, nitems, unit, nkey, per;
  const int *key, *group;
  int *cnt; /* [ngroup][nkey] */
} spread;

/* The change of the colliding pairs when item x leaves position from for
 * position to (applied to cnt when apply). */
static int relocate(spread *s, int x, int from, int to) {
  int kf = s->key[from], kt = s->key[to], d = 0;
  if (x >= s->nitems || kf == kt)
    return 0;
  for (int a = 0; a < s->per; a++) {
    int g = s->group[(size_t)x * s->per + a];
    if (g < 0)
      continue;
    int *c = s->cnt + (size_t)g * s->nkey;
    d += c[kt] - (c[kf] - 1); /* pairs gained at kt minus pairs lost at kf */
    c[kf]--;
    c[kt]++;
  }
  return d;
}

/* Swap the items of positions i and j; returns the change of the cost. */
static int spread_swap(spread *s, int i, int j) {
  int x = s->at[i], y = s->at[j];
  int d = relocate(s, x, i, j);
  d += relocate(s, y, j, i);
  s->at[i] = y;
  s->at[j] = x;
  return d;
}

int dg_tile_order_spread(int *at, int npos, int nitems, int unit, const int *key, int nkey,
                         const int *group, int per, int ngroup) {
  spread s = {at, npos, nitems, unit, nkey, per, key, group, NULL};
  s.cnt = calloc((size_t)ngroup * nkey, sizeof *s.cnt);
  if (!s.cnt)
    return -1;
  int cost = 0;
  for (int p = 0; p < npos; p++)
    for (int a = 0; at[p] < nitems && a < per; a++)
      if (group[(size_t)at[p] * per + a] >= 0)
        cost += s.cnt[(size_t)group[(size_t)at[p] * per + a] * nkey + key[p]]++;
  uint64_t seed = 0xD1B54A32D192ED03ULL;
  int nunit = npos / unit;
  for (long it = 0; it < 4000L * nunit && cost > 0; it++) {
    int d;
    if (next(&seed) & 1) { /* two positions of one unit */
      int u = (int)(next(&seed) % (uint64_t)nunit), a = (int)(next(&seed) % (uint64_t)unit),
          b = (int)(next(&seed) % (uint64_t)unit);
      if (a == b)
        continue;
      d = spread_swap(&s, u * unit + a, u * unit + b);
      if (d > 0)
        spread_swap(&s, u * unit + a, u * unit + b);
      else
        cost += d;
    } else { /* two whole units */
      int u = (int)(next(&seed) % (uint64_t)nunit), v = (int)(next(&seed) % (uint64_t)nunit);
      if (u == v)
        continue;
      d = 0;
      for (int o = 0; o < unit; o++)
        d += spread_swap(&s, u * unit + o, v * unit + o);
      if (d > 0)
        for (int o = 0; o < unit; o++)
          spread_swap(&s, u * unit + o, v * unit + o);
      else
        cost += d;
    }
  }
  free(s.cnt);
  return cost;
}
