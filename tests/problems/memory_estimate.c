/* problems.memory_estimate: the up-front memory check counts this rank's
 * own elements (after partitioning), the ghost traces of its halo faces and
 * rank 0's gather buffer; the element count of the whole mesh only names
 * the run in the message.  Expected bytes worked out by hand from the
 * counts in memory_estimate.h (all exact in double). */
#include <string.h>

#include "problems/solver/memory_estimate.h"
#include "tests/expect.h"

int main(void) {
  /* 3D, N = 3: Np = 20, Nfp = 10; 6 components (Maxwell).
   * own:    1000 el * 20 nodes * 8 B * (3 + 9 + 1 + 4*6)  = 5 920 000
   * ghosts: 100 faces * 10 nodes * 8 B * 3 copies * 6       =   144 000 */
  dg_memory_estimate m = {3, 3, 6, 1000, 100, 0, 1000000};
  EXPECT(dg_memory_estimate_bytes(&m) == 6064000.0, "%.17g", dg_memory_estimate_bytes(&m));
  /* a million elements over the mesh, but this rank holds 1000: fits in
   * 7 MB (the whole mesh would need about 6 GB) */
  EXPECT(dg_memory_estimate_check(&m, 7000000, "small device") == DG_OK);
  dg_error_clear();
  /* rank 0's gather buffer: 5000 el * 20 * 8 B * 6 = 4 800 000 more */
  dg_memory_estimate g = {3, 3, 6, 1000, 100, 5000, 5000};
  EXPECT(dg_memory_estimate_bytes(&g) == 10864000.0, "%.17g", dg_memory_estimate_bytes(&g));
  EXPECT(dg_memory_estimate_check(&g, 7000000, "small device") == DG_ERR_MEMORY);
  const char *msg = dg_error_message();
  EXPECT(strstr(msg, "5000 elements of order 3") && strstr(msg, "rank's 1000 elements") &&
             strstr(msg, "gathered") && strstr(msg, "small device"),
         "message: %s", msg);
  dg_error_clear();
  /* unknown device memory: no check */
  EXPECT(dg_memory_estimate_check(&g, 0, "unknown") == DG_OK);
  /* 2D, N = 2: Np = 6, Nfp = 3; 3 components:
   * 10 * 6 * 8 * (2 + 4 + 1 + 12) = 9120; 4 * 3 * 8 * 3 * 3 = 864 */
  dg_memory_estimate t = {2, 2, 3, 10, 4, 0, 10};
  EXPECT(dg_memory_estimate_bytes(&t) == 9984.0, "%.17g", dg_memory_estimate_bytes(&t));
  /* 1D, N = 4: Np = 5, Nfp = 1; 1 component:
   * 7 * 5 * 8 * (1 + 1 + 1 + 4) = 1960; 2 * 1 * 8 * 3 = 48 */
  dg_memory_estimate l = {1, 4, 1, 7, 2, 0, 7};
  EXPECT(dg_memory_estimate_bytes(&l) == 2008.0, "%.17g", dg_memory_estimate_bytes(&l));
  return expect_finish();
}
