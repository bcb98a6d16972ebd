/* Memory estimate of one rank (see memory_estimate.h). */
#include "problems/solver/memory_estimate.h"

double dg_memory_estimate_bytes(const dg_memory_estimate *m) {
  int N = m->N, d = m->dim;
  /* nodes per element and per face of the simplex of order N */
  double Np = d == 1 ? N + 1 : d == 2 ? (N + 1) * (N + 2) / 2.0 : (N + 1) * (N + 2) * (N + 3) / 6.0;
  double Nfp = d == 1 ? 1 : d == 2 ? N + 1 : (N + 1) * (N + 2) / 2.0;
  double own = (double)m->K * Np * 8 * (d + d * d + 1 + 4.0 * m->ncomp);
  double ghosts = (double)m->halo_faces * Nfp * 8 * 3.0 * m->ncomp;
  double gather = (double)m->K_gather * Np * 8 * m->ncomp;
  return own + ghosts + gather;
}

dg_error dg_memory_estimate_check(const dg_memory_estimate *m, size_t total_memory,
                                  const char *device_name) {
  double need = dg_memory_estimate_bytes(m);
  DG_CHECK(total_memory == 0 || need <= (double)total_memory, DG_ERR_MEMORY,
           "%lld elements of order %d: this rank's %lld elements%s need about %.3g GB of "
           "memory; %s has %.3g GB (use a coarser mesh, a lower order, or more MPI ranks)",
           (long long)m->K_global, m->N, (long long)m->K,
           m->K_gather > 0 ? " and the gathered output state" : "", need / 1e9,
           device_name ? device_name : "the device", (double)total_memory / 1e9);
  return DG_OK;
}
