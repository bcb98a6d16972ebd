#include "problems/driver/parallel_options.h"

#include <string.h>

dg_error dg_parallel_options_from_problem(const dg_problem *p, dg_parallel_options *opt) {
  memset(opt, 0, sizeof *opt);
  int method, cuda_aware;
  DG_CALL(dg_config_get_enum(p->cfg, "parallel", "partition", &method));
  opt->partition.method = method == 1   ? DG_PARTITION_METIS
                          : method == 2 ? DG_PARTITION_RCB
                                        : DG_PARTITION_AUTO;
  DG_CALL(dg_config_get_enum(p->cfg, "parallel", "cuda_aware", &cuda_aware));
  opt->cuda_aware = cuda_aware == 0;
  DG_CALL(dg_config_get_bool(p->cfg, "parallel", "overlap", &opt->overlap));
  opt->tag_to_bc = p->tag_to_bc;
  opt->part = p->part;
  return DG_OK;
}

dg_error dg_parallel_create_for_problem(dg_comm *comm, const dg_problem *p, dg_parallel **out) {
  dg_parallel_options po;
  DG_CALL(dg_parallel_options_from_problem(p, &po));
  DG_CALL(dg_parallel_create(comm, p->mesh, &po, out));
  return DG_OK;
}

dg_error dg_parallel_device_for_problem(dg_comm *comm, const dg_problem *p, dg_device **out) {
  int share;
  DG_CALL(dg_config_get_bool(p->cfg, "parallel", "gpu_oversubscribe", &share));
  DG_CALL(dg_parallel_device_for(comm, p->device, share, out));
  return DG_OK;
}
