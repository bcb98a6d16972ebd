/* Bernstein-Bezier coefficients in the gemm / mma dg_volume: the lattice
 * tables and the sparse derivative (level 1 differences, level 2
 * elevation); see gen_volume_gemm.c. */
#include "operators/gen_gemm_bernstein.h"

#include <stdio.h>

/* ---- Bernstein-Bezier lattices ------------------------------------------------
 * Why: on BB coefficients d/dr is sparse (Chan & Warburton, SIAM J. Sci.
 * Comput. 39, 2017): with barycentric lambda_0 (vertex (-1,..)) and lambda_d+1
 * (coordinate d = +1), d lambda_d+1/dr_d = 1/2 = -d lambda_0/dr_d, so
 *   D_d c at degree N-1 point b  = N/2 (c[b + e_d+1] - c[b + e_0])
 * and the degree elevation back to degree N gives node a
 *   sum over v with a_v > 0 of a_v/N (D_d c)[a - e_v],
 * about 2 (DIM+1) multiply-adds a node and direction instead of Np.  The
 * points of the order-n lattice are listed as the nodes of dg/refelem.h:
 * for k: for j: for i, point (i, j, k) with a_0 = n - i - j - k. */

/* Index of point (i, j, k) in the order-n lattice (closed form of the
 * listing order: whole layers below k, whole rows below j, then i). */
static int lattice_index(int dim, int n, int i, int j, int k) {
  if (dim == 1)
    return i;
  if (dim == 2)
    return j * (n + 1) - j * (j - 1) / 2 + i;
  int m = n - k; /* the order of layer k */
  return dg_gen_lattice_count(3, n) - dg_gen_lattice_count(3, m) + j * (m + 1) - j * (j - 1) / 2 + i;
}

/* The coordinates (i, j, k) of point p of the order-n lattice. */
static void lattice_point(int dim, int n, int p, int ijk[3]) {
  int z = 0;
  for (int k = 0; k <= (dim > 2 ? n : 0); k++)
    for (int j = 0; j <= (dim > 1 ? n - k : 0); j++)
      for (int i = 0; i <= n - j - k; i++, z++)
        if (z == p) {
          ijk[0] = i, ijk[1] = j, ijk[2] = k;
          return;
        }
}

/* The multi-index a of point p of the order-n lattice: a_1..a_3 = (i, j,
 * k) (zero past dim), a_0 = n - i - j - k, the weight of the vertex at
 * (-1, ...).  What the three BB tables are made of. */
static void lattice_alpha(int dim, int n, int p, int a[4]) {
  int ijk[3] = {0, 0, 0};
  lattice_point(dim, n, p, ijk);
  a[0] = n - ijk[0] - ijk[1] - ijk[2];
  a[1] = ijk[0], a[2] = ijk[1], a[3] = ijk[2];
}

/* The index of multi-index a (a_1..a_3 = i, j, k) in the order-n lattice. */
static int lattice_index_alpha(int dim, int n, const int a[4]) {
  return lattice_index(dim, n, a[1], a[2], a[3]);
}

/* The degree-(n-1) point a - e_v of node p = a of the order-n lattice, or
 * -1 where a_v = 0 or p is out of range. */
static int bb_down(int dim, int n, int p, int v) {
  int a[4];
  if (p < 0 || p >= dg_gen_lattice_count(dim, n))
    return -1;
  lattice_alpha(dim, n, p, a);
  if (a[v] == 0)
    return -1;
  a[v]--;
  return lattice_index_alpha(dim, n - 1, a);
}

/* One row of a BB table: DIM+1 entries padded to four (a vector load),
 * four rows a line. */
static void emit_bb_row(dg_strbuf *b, int p, const double *row, int dim, const char *fmt) {
  dg_strbuf_append(b, p % 4 ? " {" : "\n  {");
  for (int v = 0; v < 4; v++) {
    if (v)
      dg_strbuf_append(b, ", ");
    dg_strbuf_appendf(b, fmt, v <= dim ? row[v] : 0.0);
  }
  dg_strbuf_append(b, "},");
}

/* g_bb_up[b]: the degree-N nodes of degree-(N-1) point b + e_v (level 1);
 * g_bb_dn[a]: the degree-(N-1) points a - e_v of node a, and g_bb_w[a] =
 * a_v / N their weights (0 where a_v = 0, with a neighbour's point); v is
 * a field x, y, z, w.  Why one struct a row: a thread reads a whole row,
 * and the four separate loads of an [n][4] array each span 4 x 32 lanes x
 * 4 bytes, four L1 wavefronts a load (fp64 weights eight), where a row of
 * byte indices takes one.  The fused float kernels are bound by L1
 * wavefronts at N = 6, 7 (ncu: 75 % of the data pipe, DRAM 41 %); packed,
 * the Maxwell kernels ran 2-2.5 % faster, float N = 4, 6, 7 and fp64 N =
 * 6, 7 (H100, tuning/RESULTS.md, session 18). */
void dg_gen_bb_emit_tables(dg_strbuf *b, int dim, int n, int is_float) {
  int np = dg_gen_lattice_count(dim, n), npm = dg_gen_lattice_count(dim, n - 1), a[4];
  dg_strbuf_appendf(b, "/* Bernstein-Bezier lattices: order %d (NP nodes) and %d (NPM points) */\n",
                    n, n - 1);
  dg_strbuf_appendf(b, "#define NPM %d\n", npm);
  /* node indices as bytes where they fit (the tensor-core kernels: NP x
   * EPB <= 1024 threads with EPB a multiple of 8, so NP <= 128); work_mode
   * gemm at one element a block reaches NP = 286 (N = 10 in 3D) */
  if (np <= 256)
    dg_strbuf_append(b, "typedef struct __align__(4) { unsigned char x, y, z, w; } dg_bb_index;\n");
  else
    dg_strbuf_append(b, "typedef struct __align__(8) { unsigned short x, y, z, w; } dg_bb_index;\n");
  dg_strbuf_appendf(b, "typedef struct __align__(%d) { real x, y, z, w; } dg_bb_weight;\n",
                    is_float ? 16 : 32);
  dg_strbuf_appendf(b, "__device__ const dg_bb_index g_bb_up[%d] = {", npm);
  for (int p = 0; p < npm; p++) { /* the nodes b + e_v of point b */
    double up[4];
    lattice_alpha(dim, n - 1, p, a);
    for (int v = 0; v < 4; v++) {
      a[v]++;
      up[v] = lattice_index_alpha(dim, n, a);
      a[v]--;
    }
    emit_bb_row(b, p, up, dim, "%.0f");
  }
  dg_strbuf_append(b, "\n};\n");
  dg_strbuf_appendf(b, "__device__ const dg_bb_index g_bb_dn[%d] = {", np);
  for (int p = 0; p < np; p++) {
    double dn[4] = {0, 0, 0, 0};
    for (int v = 0; v <= dim; v++) {
      /* where a_v = 0 (weight 0), the point that the nearest node with a_v
       * > 0 reads: the lanes of one warp then meet that address together
       * (a broadcast), where point 0 met other lanes' points in its bank
       * (float Maxwell N = 7: 1.48 shared wavefronts a load, now 1.00) */
      int q = bb_down(dim, n, p, v);
      for (int d = 1; q < 0 && d < np; d++) {
        q = bb_down(dim, n, p - d, v);
        if (q < 0)
          q = bb_down(dim, n, p + d, v);
      }
      dn[v] = q;
    }
    emit_bb_row(b, p, dn, dim, "%.0f");
  }
  dg_strbuf_append(b, "\n};\n");
  dg_strbuf_appendf(b, "__device__ const dg_bb_weight g_bb_w[%d] = {", np);
  for (int p = 0; p < np; p++) { /* a_v / N */
    double w[4];
    lattice_alpha(dim, n, p, a);
    for (int v = 0; v < 4; v++)
      w[v] = (double)a[v] / n;
    emit_bb_row(b, p, w, dim, is_float ? "%.9ef" : "%.17e");
  }
  dg_strbuf_append(b, "\n};\n");
}

/* Bernstein-Bezier level 1: every derivative accumulator's N/2 (source at
 * b + e_m+1 - source at b + e_0), summed over its segments (matrix m), at the
 * NPM points b of the degree-(N-1) lattice of every element of the block. */
void dg_gen_bb_emit_differences(dg_strbuf *b, const gemm_plan *p, const char *th, int n,
                                const deriv_table *dt, dg_emit_ctx *ctx) {
  dg_strbuf_line(b, "/* Bernstein-Bezier level 1: degree-(N-1) differences of the sources%s */",
                 p->div_regs ? ", point i of element s (held until OUT is stored)" : "");
  if (p->div_regs) { /* the thread's node(s) (s, i) of the per-node phases: point i */
    dg_strbuf_line(b, "real bdv[%d][%d];", p->npass, p->prod0);
    dg_strbuf_line(b, "#pragma unroll");
    dg_strbuf_line(b, "for (int pz = 0; pz < %d; ++pz) {", p->npass);
    dg_strbuf_line(b, "  const int nz = tid + pz * %s, sb = nz / NP, pb = nz - sb * NP;", th);
    dg_strbuf_line(b, "  if (pb >= NPM%s) continue;", p->ragged ? " || sb >= EPB" : "");
  } else {
    dg_strbuf_line(b, "for (int z = tid; z < NPM * EPB; z += %s) {", th);
    dg_strbuf_line(b, "  const int sb = z / NPM, pb = z - sb * NPM;");
    if (p->compact)
      dg_strbuf_line(b, "  real *o = s_div + sb * %d * NPM + pb; /* [element][derivative][point] */",
                     p->prod0);
    else
      dg_strbuf_line(b, "  real *o = s_div + pb * PADE + sb;");
  }
  dg_strbuf_line(b, "  const real *x = smem + sb;");
  int maxm = 0;
  for (int a = 0; a < p->prod0; a++)
    for (int sg = p->first[a]; sg < p->first[a + 1]; sg++)
      maxm = p->seg[sg].mat + 1 > maxm ? p->seg[sg].mat + 1 : maxm;
  dg_strbuf_line(b, "  const dg_bb_index up = g_bb_up[pb];");
  for (int v = 0; v <= maxm; v++)
    dg_strbuf_line(b, "  const int u%d = up.%c * PADE;", v, "xyzw"[v]);
  if (p->stage) {
    /* Why: the flux quantities are affine in the state, g(u) = A u + g(0),
     * so their difference between two points is g(difference) - g(0): the
     * state's NC arrays in shared memory serve every quantity and direction
     * (Maxwell: 6 arrays instead of 18 contravariant rows) */
    int slots = dt->ng;
    dg_strbuf_lines(b,
                    "  const long long kb = k0 + sb;\n"
                    "  real G[DIM * DIM]; /* dr_a/dx_d of element sb */\n"
                    "  for (int a = 0; a < DIM * DIM; ++a) G[a] = kb < K ? egeo[kb * NGEO + a] : (real)0;\n");
    for (int m = -1; m < maxm; m++) {
      char dst[32];
      snprintf(dst, sizeof dst, "gd%c[%%d]", m < 0 ? 'z' : (char)('0' + m));
      dg_strbuf_line(b, "  real gd%c[%d];", m < 0 ? 'z' : (char)('0' + m), slots);
      dg_strbuf_line(b, "  {");
      dg_strbuf_line(b, "    real u[NC]; /* %s */",
                     m < 0 ? "zero: the quantities' constant part" : "the difference along one direction");
      if (m < 0)
        dg_strbuf_line(b, "    for (int c = 0; c < NC; ++c) u[c] = 0;");
      else
        dg_strbuf_line(b, "    for (int c = 0; c < NC; ++c) u[c] = x[c * NP * PADE + u%d] - x[c * NP * PADE + u0];",
                       m + 1);
      b->indent += 4;
      dg_gen_emit_gvalues(b, dt, ctx, dst, 1, m < 0); /* g(0): zero rows fold away */
      b->indent -= 4;
      dg_strbuf_line(b, "  }");
    }
  }
  for (int a = 0; a < p->prod0; a++) {
    dg_strbuf_indent(b);
    if (p->div_regs)
      dg_strbuf_appendf(b, "  bdv[pz][%d] = (real)%.17g * (", a, 0.5 * n);
    else
      dg_strbuf_appendf(b, p->compact ? "  o[%d * NPM] = (real)%.17g * (" : "  o[%d * NPM * PADE] = (real)%.17g * (", a, 0.5 * n);
    for (int sg = p->first[a]; sg < p->first[a + 1]; sg++) {
      const gemm_seg *g = &p->seg[sg];
      if (p->stage)
        dg_strbuf_appendf(b, "%sgd%d[%d] - gdz[%d]", sg > p->first[a] ? " + " : "", g->mat,
                          g->src / p->src_col, g->src / p->src_col);
      else
        dg_strbuf_appendf(b, "%sx[%d + u%d] - x[%d + u0]", sg > p->first[a] ? " + " : "",
                          g->src, g->mat + 1, g->src);
    }
    dg_strbuf_append(b, ");\n");
  }
  dg_strbuf_line(b, "}");
}

/* div_regs: after D's barrier, level 1's results beside OUT (a thread's
 * points: those of its per-node passes). */
void dg_gen_bb_emit_store(dg_strbuf *b, const gemm_plan *p, const char *th) {
  dg_strbuf_line(b, "#pragma unroll /* level 1's results beside OUT, in the freed sources */");
  dg_strbuf_line(b, "for (int pz = 0; pz < %d; ++pz) {", p->npass);
  dg_strbuf_line(b, "  const int nz = tid + pz * %s, sb = nz / NP, pb = nz - sb * NP;", th);
  char at[96];
  dg_gen_bb_div_at(at, sizeof at, p, "a", "pb", "sb");
  dg_strbuf_line(b, "  if (pb < NPM%s)", p->ragged ? " && sb < EPB" : "");
  dg_strbuf_line(b, "    for (int a = 0; a < %d; ++a) %s = bdv[pz][a];", p->prod0, at);
  dg_strbuf_line(b, "}");
}

/* Level 1's result of derivative acc at lattice point pt of element el (C
 * expressions): [derivative][NPM][PADE], compact [EPB][derivative][NPM]. */
void dg_gen_bb_div_at(char *at, size_t n, const gemm_plan *p, const char *acc, const char *pt,
                      const char *el) {
  if (p->compact)
    snprintf(at, n, "s_div[(%s * %d + %s) * NPM + %s]", el, p->prod0, acc, pt);
  else
    snprintf(at, n, "s_div[(%s * NPM + %s) * PADE + %s]", acc, pt, el);
}
