/* operators.tile_order: dg_tile_order finds row and column orders with few
 * nonzero tiles.
 *
 * - A planted pattern: whole 8 x 4 tiles set at random (40 % of them),
 *   then rows and columns shuffled.  The orders found must hold no more
 *   nonzero tiles than the planted ones (the planted orders are one
 *   answer), far fewer than the shuffled ones.
 * - The Bernstein-Bezier lift at N = 7 in 3D, the case sparse_lift is
 *   for: the fp64 tensor-core tiles (8 x 4) in the orders found, counted
 *   here from the matrix, must be under 70 % nonzero (the natural order:
 *   79 %), and the orders are permutations, the same on a second call.
 * - The shipped table of orders (operators/tile_order_known.c): each entry
 *   is a pair of permutations, matches the digest of the Bernstein lift's
 *   pattern at its order (so dg_tile_order uses it), and costs at least
 *   3 % less than the online search it replaces.
 * - dg_tile_order_spread on rows whose groups start all on one key: every
 *   unit keeps its set of items, and the collisions drop to none (8 groups
 *   of 16 items over 16 keys, units of 8: an arrangement without any
 *   exists, the natural order).
 * The counts are recounted in this file, not taken from the module. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dg/bernstein.h"
#include "dg/refelem.h"
#include "operators/tile_order.h"
#include "tests/expect.h"

/* Nonzero tr x kw tiles of nz (rows x cols) in the orders row_at, col_at. */
static int count_tiles(const unsigned char *nz, int rows, int cols, int tr, int kw,
                       const int *row_at, const int *col_at) {
  int R = (rows + tr - 1) / tr * tr, n = 0;
  for (int r0 = 0; r0 < R; r0 += tr)
    for (int c0 = 0; c0 < cols; c0 += kw) {
      int any = 0;
      for (int r = r0; r < r0 + tr; r++)
        for (int c = c0; c < c0 + kw && c < cols; c++)
          any |= row_at[r] < rows && nz[row_at[r] * cols + col_at[c]];
      n += any;
    }
  return n;
}

static int is_permutation(const int *p, int n) {
  unsigned char *seen = calloc((size_t)n, 1);
  int ok = seen != NULL;
  for (int i = 0; i < n && ok; i++) {
    ok = p[i] >= 0 && p[i] < n && !seen[p[i]];
    if (ok)
      seen[p[i]] = 1;
  }
  free(seen);
  return ok;
}

static void shuffle(int *p, int n) {
  for (int i = n - 1; i > 0; i--) {
    int j = rand() % (i + 1), x = p[i];
    p[i] = p[j];
    p[j] = x;
  }
}

static void planted(void) {
  enum { TR = 8, KW = 4, ROWS = 64, COLS = 96 };
  static unsigned char tile[ROWS / TR][COLS / KW], nz[ROWS * COLS];
  int prow[ROWS], pcol[COLS], ident_r[ROWS], ident_c[COLS], row_at[ROWS], col_at[COLS];
  int planted_tiles = 0;
  srand(11);
  for (int t = 0; t < ROWS / TR; t++)
    for (int g = 0; g < COLS / KW; g++)
      planted_tiles += tile[t][g] = rand() % 10 < 4;
  for (int i = 0; i < ROWS; i++)
    prow[i] = ident_r[i] = i;
  for (int i = 0; i < COLS; i++)
    pcol[i] = ident_c[i] = i;
  shuffle(prow, ROWS);
  shuffle(pcol, COLS);
  /* shuffled row prow[r] is planted row r */
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < COLS; c++)
      nz[prow[r] * COLS + pcol[c]] = tile[r / TR][c / KW];
  int shuffled = count_tiles(nz, ROWS, COLS, TR, KW, ident_r, ident_c);
  int n = dg_tile_order(nz, ROWS, COLS, TR, KW, row_at, col_at);
  int recount = count_tiles(nz, ROWS, COLS, TR, KW, row_at, col_at);
  printf("planted: %d nonzero tiles of %d; shuffled %d; ordered %d\n", planted_tiles,
         ROWS / TR * (COLS / KW), shuffled, recount);
  EXPECT(is_permutation(row_at, ROWS) && is_permutation(col_at, COLS));
  EXPECT(n == recount, "returned %d, counted %d", n, recount);
  EXPECT(recount <= planted_tiles, "%d nonzero tiles, the planted orders have %d", recount,
         planted_tiles);
  EXPECT(shuffled > planted_tiles * 3 / 2, "the shuffle kept the tiles (%d)", shuffled);
}

static void bernstein_lift(void) {
  dg_refelem *re = NULL;
  dg_bernstein *bb = NULL;
  MUST(dg_refelem_create(3, 7, &re));
  MUST(dg_bernstein_create(re, &bb));
  int rows = bb->Np, cols = bb->Nfaces * bb->Nfp, R = (rows + 7) / 8 * 8;
  unsigned char *nz = malloc((size_t)rows * cols);
  int *row_at = malloc((size_t)R * sizeof *row_at), *col_at = malloc((size_t)cols * sizeof *col_at);
  int *row2 = malloc((size_t)R * sizeof *row2), *col2 = malloc((size_t)cols * sizeof *col2);
  int *ir = malloc((size_t)R * sizeof *ir), *ic = malloc((size_t)cols * sizeof *ic);
  CHECK(nz && row_at && col_at && row2 && col2 && ir && ic);
  double mx = 0;
  for (int z = 0; z < rows * cols; z++)
    mx = fmax(mx, fabs(bb->LIFT[z]));
  /* structural zeros are round-off under 1.2e-14 of the largest entry, the
   * smallest true entry 1.6e-3 of it: any cut between the two is the same */
  for (int z = 0; z < rows * cols; z++)
    nz[z] = fabs(bb->LIFT[z]) > 1e-9 * mx;
  for (int i = 0; i < R; i++)
    ir[i] = i;
  for (int i = 0; i < cols; i++)
    ic[i] = i;
  int natural = count_tiles(nz, rows, cols, 8, 4, ir, ic), total = R / 8 * (cols / 4);
  int n = dg_tile_order(nz, rows, cols, 8, 4, row_at, col_at);
  int recount = count_tiles(nz, rows, cols, 8, 4, row_at, col_at);
  printf("Bernstein lift N = 7: %d of %d tiles nonzero in the natural order, %d ordered\n",
         natural, total, recount);
  EXPECT(is_permutation(row_at, R) && is_permutation(col_at, cols));
  EXPECT(n == recount, "returned %d, counted %d", n, recount);
  EXPECT(recount < 0.70 * total, "%d of %d tiles nonzero", recount, total);
  EXPECT(dg_tile_order(nz, rows, cols, 8, 4, row2, col2) == n &&
             !memcmp(row2, row_at, (size_t)R * sizeof *row2) &&
             !memcmp(col2, col_at, (size_t)cols * sizeof *col2),
         "a second call gave other orders (the generated source must be reproducible)");
  free(nz);
  free(row_at);
  free(col_at);
  free(row2);
  free(col2);
  free(ir);
  free(ic);
  dg_bernstein_destroy(&bb);
  dg_refelem_destroy(&re);
}

/* Pairs of a group's items on one key, counted here. */
static int collisions(const int *at, int npos, const int *key, const int *group) {
  int n = 0;
  for (int p = 0; p < npos; p++)
    for (int q = p + 1; q < npos; q++)
      n += group[at[p]] == group[at[q]] && key[p] == key[q];
  return n;
}

static void spread(void) {
  enum { N = 128, UNIT = 8, NKEY = 16 };
  int at[N], key[N], group[N], before[N];
  for (int p = 0; p < N; p++)
    key[p] = p % NKEY;
  for (int i = 0; i < N; i++)
    group[i] = i / 16;
  /* position p holds item (p % 16) * 8 + p / 16: each unit of 8 positions
   * holds 8 items of 8 different groups, and every group's 16 items sit on
   * two keys only */
  for (int p = 0; p < N; p++)
    at[p] = before[p] = (p % 16) * 8 + p / 16;
  int start = collisions(at, N, key, group);
  int left = dg_tile_order_spread(at, N, N, UNIT, key, NKEY, group, 1, N / 16);
  int now = collisions(at, N, key, group);
  printf("spread: %d colliding pairs before, %d after (reported %d)\n", start, now, left);
  EXPECT(is_permutation(at, N));
  EXPECT(left == now, "reported %d, counted %d", left, now);
  EXPECT(start > 0 && now == 0, "%d colliding pairs left of %d", now, start);
  for (int u = 0; u < N / UNIT; u++) { /* unit u of the result is some unit of the start */
    int found = 0;
    for (int v = 0; v < N / UNIT && !found; v++) {
      int same = 1;
      for (int a = 0; a < UNIT && same; a++) {
        int in = 0;
        for (int b = 0; b < UNIT; b++)
          in |= at[u * UNIT + a] == before[v * UNIT + b];
        same = in;
      }
      found = same;
    }
    EXPECT(found, "unit %d holds items of several starting units", u);
  }
}

static void known_table(void) {
  EXPECT(dg_tile_order_nknown > 0, "the table of known orders is empty");
  for (int e = 0; e < dg_tile_order_nknown; e++) {
    const dg_tile_order_known *k = &dg_tile_order_known_table[e];
    int found = 0;
    for (int n = 1; n <= 9 && !found; n++) { /* the 3D order with these sizes */
      dg_refelem *re = NULL;
      dg_bernstein *bb = NULL;
      MUST(dg_refelem_create(3, n, &re));
      if (re->Np != k->rows) {
        dg_refelem_destroy(&re);
        continue;
      }
      MUST(dg_bernstein_create(re, &bb));
      found = 1;
      int rows = bb->Np, cols = bb->Nfaces * bb->Nfp, R = (rows + k->tr - 1) / k->tr * k->tr;
      unsigned char *nz = malloc((size_t)rows * cols), *mine = malloc((size_t)rows * cols);
      int *ra = malloc((size_t)R * sizeof *ra), *ca = malloc((size_t)cols * sizeof *ca);
      CHECK(nz && mine && ra && ca);
      dg_tile_order_pattern(bb->LIFT, rows, cols, nz);
      double mx = 0;
      for (int z = 0; z < rows * cols; z++)
        mx = fmax(mx, fabs(bb->LIFT[z]));
      for (int z = 0; z < rows * cols; z++) /* any cut between 1.2e-14 and 1.6e-3 */
        mine[z] = fabs(bb->LIFT[z]) > 1e-9 * mx;
      EXPECT(!memcmp(nz, mine, (size_t)rows * cols), "N = %d: the pattern depends on the cut", n);
      EXPECT(k->cols == cols && dg_tile_order_digest(nz, rows, cols) == k->digest,
             "entry %d (N = %d, %d x %d): not the lift's pattern; regenerate it with "
             "dgrun_tile_orders", e, n, k->tr, k->kw);
      for (int r = 0; r < R; r++)
        ra[r] = k->row_at[r];
      for (int c = 0; c < cols; c++)
        ca[c] = k->col_at[c];
      EXPECT(is_permutation(ra, R) && is_permutation(ca, cols), "entry %d", e);
      int shipped = dg_tile_order_cost(nz, rows, cols, k->tr, k->kw, ra, ca);
      /* dg_tile_order takes the entry: the same orders */
      int *ra2 = malloc((size_t)R * sizeof *ra2), *ca2 = malloc((size_t)cols * sizeof *ca2);
      CHECK(ra2 && ca2);
      dg_tile_order(nz, rows, cols, k->tr, k->kw, ra2, ca2);
      EXPECT(!memcmp(ra, ra2, (size_t)R * sizeof *ra) && !memcmp(ca, ca2, (size_t)cols * sizeof *ca),
             "entry %d: dg_tile_order did not take it", e);
      dg_tile_order_search(nz, rows, cols, k->tr, k->kw, 400, 0, ra2, ca2);
      int online = dg_tile_order_cost(nz, rows, cols, k->tr, k->kw, ra2, ca2);
      printf("known N = %d, %d x %d: cost %d, the online search %d\n", n, k->tr, k->kw,
             shipped, online);
      EXPECT(shipped <= 0.97 * online, /* dgrun_tile_orders ships 3 % gains and more */
             "entry %d: cost %d, the online search finds %d", e, shipped, online);
      free(nz);
      free(mine);
      free(ra);
      free(ca);
      free(ra2);
      free(ca2);
      dg_bernstein_destroy(&bb);
      dg_refelem_destroy(&re);
    }
    EXPECT(found, "entry %d: no 3D order has %d nodes", e, k->rows);
  }
}

int main(void) {
  planted();
  known_table();
  spread();
  bernstein_lift();
  return expect_finish();
}
