/* dg.discretization_maps: connectivity and node maps on every mesh case
 * (1D/2D/3D, every periodic combination, straight and distorted), N = 1..5:
 *  - vmapM is the volume node of the face node (x on the face's plane);
 *  - mapP o mapP = identity, vmapP[mapP] = vmapM: vmapP o vmapP = id;
 *  - x(vmapP) = x(vmapM) on interior faces; across periodic sides they
 *    differ by exactly the period along one periodic axis, x(vmapM) on
 *    the lo side for +period and the hi side for -period;
 *  - the number of node pairs across each periodic axis and of boundary
 *    nodes per tag match a hand count; tagged nodes lie on their side and
 *    have vmapP = vmapM; EToE/EToF are mutual. */
#include "tests/discretization/disc_test.h"


static void check(const mesh_case *c, int N, int variant) {
  char name[160];
  dg_mesh *m;
  dg_discretization *d;
  test_open_case(c, N, variant, name, sizeof name, &m, &d);
  const int dim = c->dim, Np = d->Np, Nfp = d->Nfp, Nf = d->Nfaces;
  const int64_t nfn = d->K * Nf * Nfp;
  const double tol = 1e-11;

  /* Faces per side, by hand: prod of the other n's, times 2 in 3D. */
  int64_t side_faces[3];
  for (int a = 0; a < dim; a++) {
    side_faces[a] = dim == 3 ? 2 : 1;
    for (int b = 0; b < dim; b++)
      if (b != a)
        side_faces[a] *= c->n[b];
  }

  int64_t across[3] = {0, 0, 0}, nbnd = 0;
  for (int64_t k = 0; k < d->K; k++)
    for (int f = 0; f < Nf; f++) {
      int64_t face = k * Nf + f, k2 = d->EToE[face];
      int f2 = d->EToF[face];
      EXPECT(k2 >= 0 && k2 < d->K && f2 >= 0 && f2 < Nf, "%s: EToE/EToF out of range", name);
      if (k2 < 0 || k2 >= d->K || f2 < 0 || f2 >= Nf)
        continue;
      EXPECT(d->EToE[k2 * Nf + f2] == k && d->EToF[k2 * Nf + f2] == f,
             "%s: EToE not mutual at element %" PRId64 " face %d", name, k, f);
      int boundary = k2 == k && f2 == f;
      EXPECT(boundary == (m->face_tag[face] >= 0), "%s: element %" PRId64
             " face %d: boundary %d but tag %d", name, k, f, boundary, m->face_tag[face]);
      /* Barycentric test for "on face f": the opposite vertex's coordinate
       * is 0, i.e. the node lies on the face's hyperplane. */
      const double *p0 = test_vertex(m, k, test_face_verts[dim][f][0]);
      const double *opp = test_vertex(m, k, test_opposite_vertex(dim, f));
      for (int i = 0; i < Nfp; i++) {
        int64_t fn = face * Nfp + i, vM = d->vmapM[fn], vP = d->vmapP[fn];
        EXPECT(vM / Np == k, "%s: vmapM leaves its element", name);
        /* on the face: (x - p0) . n = 0 with n the unit normal */
        double off = 0, hgt = 0;
        for (int a = 0; a < dim; a++) {
          off += (d->X[a][vM] - p0[a]) * d->n[a][fn];
          hgt += (opp[a] - p0[a]) * d->n[a][fn];
        }
        EXPECT(fabs(off) < 1e-12 * fabs(hgt), "%s: vmapM node off its face by %g", name, off);
        int64_t mP = d->mapP[fn];
        EXPECT(mP >= 0 && mP < nfn, "%s: mapP out of range", name);
        if (mP < 0 || mP >= nfn)
          continue;
        EXPECT(d->mapP[mP] == fn, "%s: mapP o mapP != id", name);
        EXPECT(d->vmapP[mP] == vM, "%s: vmapP o vmapP != id", name);
        EXPECT(d->vmapM[mP] == vP, "%s: vmapM[mapP] != vmapP", name);
        if (boundary) {
          EXPECT(vP == vM && mP == fn, "%s: boundary vmapP != vmapM", name);
          nbnd++;
          continue;
        }
        EXPECT(vP / Np == k2 && vP != vM, "%s: vmapP not in the neighbour", name);
        int naxes = 0;
        for (int a = 0; a < dim; a++) {
          double diff = d->X[a][vP] - d->X[a][vM], L = c->hi[a] - c->lo[a];
          if (fabs(diff) < tol)
            continue;
          naxes++;
          across[a]++;
          EXPECT(c->periodic[a] && fabs(fabs(diff) - L) < tol,
                 "%s: x(vmapP) - x(vmapM) = %.17g along axis %d (period %g, periodic %d)",
                 name, diff, a, L, c->periodic[a]);
          double side = diff > 0 ? c->lo[a] : c->hi[a];
          EXPECT(fabs(d->X[a][vM] - side) < tol, "%s: periodic node at %g, not on side %g",
                 name, d->X[a][vM], side);
          EXPECT(fabs(d->face_shift[face * 3 + a] - diff) < tol, "%s: face_shift", name);
        }
        EXPECT(naxes <= 1, "%s: node pair differs along %d axes", name, naxes);
      }
    }
  /* Each periodic axis pairs both sides' face nodes: 2 x faces x Nfp. */
  int64_t want_bnd = 0;
  for (int a = 0; a < dim; a++) {
    int64_t want = c->periodic[a] ? 2 * side_faces[a] * Nfp : 0;
    EXPECT(across[a] == want, "%s: %" PRId64 " node pairs across axis %d, want %" PRId64, name,
           across[a], a, want);
    if (!c->periodic[a])
      want_bnd += 2 * side_faces[a] * Nfp;
  }
  EXPECT(nbnd == want_bnd && d->nmapB == want_bnd, "%s: %" PRId64 " / %" PRId64
         " boundary nodes, want %" PRId64, name, nbnd, d->nmapB, want_bnd);
  for (int64_t i = 0; i < d->nmapB; i++)
    EXPECT(d->vmapB[i] == d->vmapM[d->mapB[i]] && d->vmapP[d->mapB[i]] == d->vmapB[i],
           "%s: mapB/vmapB", name);

  /* Boundary nodes per tag: count and position. */
  for (int a = 0; a < dim; a++)
    for (int s = 0; s < 2; s++) {
      const int64_t *map = NULL;
      int64_t count = -1;
      dg_error e = dg_discretization_boundary_nodes(d, test_sides[2 * a + s], &map, &count);
      if (c->periodic[a]) {
        EXPECT(e == DG_ERR_INPUT, "%s: periodic side %s has boundary nodes", name,
               test_sides[2 * a + s]);
        dg_error_clear();
        continue;
      }
      EXPECT(e == DG_OK && count == side_faces[a] * Nfp, "%s: %s has %" PRId64
             " nodes, want %" PRId64, name, test_sides[2 * a + s], count, side_faces[a] * Nfp);
      for (int64_t i = 0; e == DG_OK && i < count; i++) {
        double x = d->X[a][d->vmapM[map[i]]], want = s ? c->hi[a] : c->lo[a];
        EXPECT(fabs(x - want) < tol, "%s: %s node at x_%d = %.17g", name, test_sides[2 * a + s],
               a, x);
        EXPECT(d->vmapP[map[i]] == d->vmapM[map[i]], "%s: tagged node has a neighbour", name);
      }
    }
  dg_discretization_destroy(&d);
  dg_mesh_destroy(&m);
}

int main(void) {
  test_run_cases(check, 5, 1, 2);
  return expect_finish();
}
