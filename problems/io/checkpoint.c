/* Checkpoint write/read (see checkpoint.h). */
#include "problems/io/checkpoint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/seal.h"
#include "problems/io/h5io.h"

#ifndef DGRUN_VERSION
#define DGRUN_VERSION "unknown"
#endif

static dg_error check_info(const char *path, const dg_checkpoint_info *in) {
  DG_CHECK(path != NULL && in != NULL, DG_ERR_ARG, "checkpoint: NULL path or info");
  DG_CHECK(in->dim >= 1 && in->dim <= 3 && in->N >= 1 && in->Np >= 1 && in->K >= 1,
           DG_ERR_ARG, "checkpoint '%s': bad sizes dim %d, order %d, Np %d, K %lld", path,
           in->dim, in->N, in->Np, (long long)in->K);
  DG_CHECK(in->real_size == 4 || in->real_size == 8, DG_ERR_ARG,
           "checkpoint '%s': value size %d (4 or 8)", path, in->real_size);
  DG_CHECK(in->nfields >= 1 && in->field_names != NULL, DG_ERR_ARG,
           "checkpoint '%s': %d fields", path, in->nfields);
  DG_CHECK(in->scheme != NULL && in->problem_id != NULL, DG_ERR_ARG,
           "checkpoint '%s': NULL scheme or problem id", path);
  DG_CHECK(!in->config_text == !in->flux_text, DG_ERR_ARG,
           "checkpoint '%s': the configuration and the flux text go together", path);
  for (int i = 0; i < in->nfields; ++i) {
    const char *n = in->field_names[i];
    DG_CHECK(dg_h5io_plain_name(n), DG_ERR_ARG,
             "checkpoint field name '%s' must be letters, digits, '_', '-' or '.'", n ? n : "");
    for (int j = 0; j < i; ++j)
      DG_CHECK(strcmp(n, in->field_names[j]) != 0, DG_ERR_ARG,
               "checkpoint field '%s' is given twice", n);
  }
  DG_CHECK(in->ncoef >= 0 && in->ncoef <= DG_CHECKPOINT_MAX_FIELDS &&
               (in->ncoef == 0 || (in->coef_names && in->coef_values)),
           DG_ERR_ARG, "checkpoint '%s': %d coefficients", path, in->ncoef);
  for (int i = 0; i < in->ncoef; ++i)
    DG_CHECK(dg_h5io_plain_name(in->coef_names[i]) && in->coef_values[i], DG_ERR_ARG,
             "checkpoint '%s': bad coefficient %d", path, i);
  return DG_OK;
}

/* The coefficients' checkpoint view: their own names, doubles. */
static dg_checkpoint_info coef_view(const dg_checkpoint_info *in) {
  dg_checkpoint_info c = *in;
  c.real_size = 8;
  c.nfields = in->ncoef;
  c.field_names = in->coef_names;
  return c;
}

void dg_checkpoint_inputs_free(dg_checkpoint_inputs *in) {
  free(in->config_text);
  free(in->flux_text);
  in->config_text = in->flux_text = NULL;
}

#if defined(DGRUN_HAVE_HDF5)

static const char format_name[] = "dgrun-checkpoint";

static const char *precision_name(int real_size) { return real_size == 4 ? "float" : "double"; }

static const char *element_order(const dg_checkpoint_info *in) {
  return in->element_order ? in->element_order : "input";
}

static const char *mesh_name(const dg_checkpoint_info *in) {
  return in->mesh_name && in->mesh_name[0] ? in->mesh_name : "(unnamed)";
}

/* Checksum share of n elements of `bytes` bytes each with global ids gid
 * (NULL: 0..n-1), format version 2 (checkpoint.h). */
static uint64_t elem_hash_sum(const unsigned char *data, int64_t n, size_t bytes,
                              const int64_t *gid) {
  uint64_t sum = 0;
  for (int64_t j = 0; j < n; j++) {
    uint64_t g = (uint64_t)(gid ? gid[j] : j);
    unsigned char le[8];
    for (int b = 0; b < 8; b++)
      le[b] = (unsigned char)(g >> (8 * b));
    sum += dg_h5io_fnv1a_more(dg_h5io_fnv1a(le, 8), data + (size_t)j * bytes, bytes);
  }
  return sum;
}

/* One text as a dataset of bytes under g: created by every rank of a
 * collective file, its bytes written by rank 0 alone. */
static dg_error write_text(const dg_h5io_out *o, hid_t g, const char *name, const char *text,
                           const char *path) {
  hsize_t n = strlen(text);
  hid_t space = H5Screate_simple(1, &n, NULL);
  hid_t set = space >= 0 ? H5Dcreate2(g, name, H5T_NATIVE_UCHAR, space, H5P_DEFAULT,
                                      H5P_DEFAULT, H5P_DEFAULT)
                         : -1;
  herr_t rc = set < 0 ? -1
              : o->rank == 0 ? H5Dwrite(set, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, text)
                             : 0;
  dg_error err =
      rc < 0 ? DG_H5_RAISE(DG_ERR_IO, "cannot write /inputs/%s to '%s'", name, path) : DG_OK;
  if (set >= 0)
    H5Dclose(set);
  if (space >= 0)
    H5Sclose(space);
  return err;
}

/* /inputs/config and /inputs/flux (format version 4, checkpoint.h). */
static dg_error write_inputs(dg_h5io_out *o, const char *path, const dg_checkpoint_info *in) {
  dg_error err = DG_OK;
  hid_t g = H5Gcreate2(o->file, "inputs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0)
    err = DG_H5_RAISE(DG_ERR_IO, "cannot create group /inputs in '%s'", path);
  if (err == DG_OK)
    err = write_text(o, g, "config", in->config_text, path);
  if (err == DG_OK)
    err = write_text(o, g, "flux", in->flux_text, path);
  if (g >= 0)
    H5Gclose(g);
  DG_CALL(dg_h5io_agree(o, err));
  return DG_OK;
}

static dg_error write_sets(dg_h5io_out *o, const char *path, const char *group,
                           const dg_checkpoint_info *in, const void *const *fields,
                           const dg_h5part *part, void *buf, const uint64_t *hash);

/* The file's content: attributes, then each field (all of it, or with part
 * this rank's share, packed into buf) and its checksum hash[i].  With a
 * collective file every step ends in an agreement on errors. */
static dg_error write_body(dg_h5io_out *o, const char *path, const dg_checkpoint_info *in,
                           const void *const *fields, const dg_h5part *part, void *buf,
                           const uint64_t *hash) {
  hid_t file = o->file;
  dg_error err = DG_OK;
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_str(file, "format", format_name, path));
  DG_CALL_GOTO(err, attrs,
               dg_h5io_attr_put_i64(file, "format_version", DG_CHECKPOINT_FORMAT_VERSION, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_str(file, "dgrun_version", DGRUN_VERSION, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_f64(file, "time", in->time, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_i64(file, "step", in->step, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_f64(file, "dt", in->dt, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_f64(file, "dt_max", in->dt_max, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_f64(file, "rk_dt_next", in->rk_dt_next, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_f64(file, "rk_err_prev", in->rk_err_prev, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_i64(file, "rk_rejected", in->rk_rejected, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_str(file, "scheme", in->scheme, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_i64(file, "order", in->N, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_i64(file, "dim", in->dim, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_i64(file, "num_elements", in->K, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_i64(file, "nodes_per_element", in->Np, path));
  DG_CALL_GOTO(err, attrs,
               dg_h5io_attr_put_str(file, "precision", precision_name(in->real_size), path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_str(file, "problem_id", in->problem_id, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_str(file, "element_order", element_order(in), path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_i64(file, "num_fields", in->nfields, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_u64(file, "mesh_hash", in->mesh_hash, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_str(file, "mesh", mesh_name(in), path));
attrs:
  DG_CALL(dg_h5io_agree(o, err));
  if (in->config_text)
    DG_CALL(write_inputs(o, path, in));
  DG_CALL(write_sets(o, path, "fields", in, fields, part, buf, hash));
  if (in->ncoef > 0) {
    dg_checkpoint_info cv = coef_view(in);
    DG_CALL(write_sets(o, path, "coefficients", &cv, (const void *const *)in->coef_values, part,
                       buf, hash + in->nfields));
  }
  return DG_OK;
}

/* The datasets /<group>/<name> of in's fields, with their checksums. */
static dg_error write_sets(dg_h5io_out *o, const char *path, const char *group,
                           const dg_checkpoint_info *in, const void *const *fields,
                           const dg_h5part *part, void *buf, const uint64_t *hash) {
  dg_error err = DG_OK;
  hid_t g = H5Gcreate2(o->file, group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0)
    err = DG_H5_RAISE(DG_ERR_IO, "cannot create group /%s in '%s'", group, path);
  DG_CALL(dg_h5io_agree(o, err));
  hid_t mt = in->real_size == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
  uint64_t n = (uint64_t)(in->K * in->Np);
  for (int i = 0; i < in->nfields && err == DG_OK; ++i) {
    const char *name = in->field_names[i];
    if (part) {
      dg_h5part_pack(part, (size_t)in->Np * (size_t)in->real_size, fields[i], buf);
      err = dg_h5part_write(part, g, name, mt, in->Np, 0, buf, o->dxpl, path);
    } else {
      err = dg_h5io_write(g, name, mt, 1, &n, fields[i], path);
    }
    hid_t d = err == DG_OK ? H5Dopen2(g, name, H5P_DEFAULT) : H5I_INVALID_HID;
    if (err == DG_OK && d < 0)
      err = DG_H5_RAISE(DG_ERR_IO, "cannot reopen field '%s' in '%s'", name, path);
    if (err == DG_OK)
      err = dg_h5io_attr_put_u64(d, "elem_fnv1a_sum", hash[i], path);
    if (d >= 0)
      H5Dclose(d);
    err = dg_h5io_agree(o, err);
  }
  H5Gclose(g);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}

dg_error dg_checkpoint_write(const char *path, const dg_checkpoint_info *info,
                             const void *const *fields) {
  DG_CALL(check_info(path, info));
  DG_CHECK(fields != NULL, DG_ERR_ARG, "checkpoint '%s': NULL fields", path);
  uint64_t hash[2 * DG_CHECKPOINT_MAX_FIELDS];
  DG_CHECK(info->nfields <= DG_CHECKPOINT_MAX_FIELDS, DG_ERR_ARG,
           "checkpoint '%s': %d fields (at most %d)", path, info->nfields,
           DG_CHECKPOINT_MAX_FIELDS);
  for (int i = 0; i < info->nfields; ++i) {
    DG_CHECK(fields[i] != NULL, DG_ERR_ARG, "checkpoint '%s': field '%s' is NULL", path,
             info->field_names[i]);
    hash[i] = elem_hash_sum(fields[i], info->K, (size_t)info->Np * (size_t)info->real_size, NULL);
  }
  for (int c = 0; c < info->ncoef; ++c)
    hash[info->nfields + c] = elem_hash_sum((const unsigned char *)info->coef_values[c], info->K, (size_t)info->Np * 8, NULL);
  dg_h5io_out o;
  DG_CALL(dg_h5io_create(path, DG_CHECKPOINT_SEAL, &o));
  dg_error err = write_body(&o, path, info, fields, NULL, NULL, hash);
  if (err != DG_OK) {
    dg_h5io_abandon(&o);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  DG_CALL(dg_h5io_finish(&o));
  return DG_OK;
}

#if defined(DGRUN_HAVE_PARALLEL_HDF5)
dg_error dg_checkpoint_write_part(const char *path, const dg_checkpoint_info *info,
                                  const void *const *fields, dg_comm *comm,
                                  const dg_h5part *part) {
  /* Local checks first, agreed on: every rank then enters the collective
   * calls, or none does. */
  dg_error err = check_info(path, info);
  uint64_t hash[2 * DG_CHECKPOINT_MAX_FIELDS] = {0};
  size_t bytes = info ? (size_t)info->Np * (size_t)info->real_size : 0;
  size_t cbytes = info ? (size_t)info->Np * 8 : 0; /* a coefficient's, doubles */
  void *buf = NULL;
  if (err == DG_OK && (!fields || !part || !comm || info->nfields > DG_CHECKPOINT_MAX_FIELDS || part->K_global != info->K))
    err = dg_error_raise(DG_ERR_ARG, __FILE__, __LINE__, __func__,
                         "checkpoint '%s': bad fields, part or communicator", path);
  if (err == DG_OK) {
    buf = malloc((info->ncoef ? cbytes : bytes) * (size_t)part->K + 1);
    if (!buf)
      err = dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                           "out of memory for checkpoint '%s'", path);
  }
  for (int c = 0; err == DG_OK && c < info->ncoef; ++c) {
    dg_h5part_pack(part, cbytes, info->coef_values[c], buf);
    hash[info->nfields + c] = elem_hash_sum(buf, part->K, cbytes, part->gid);
  }
  for (int i = 0; err == DG_OK && i < info->nfields; ++i) {
    if (!fields[i]) {
      err = dg_error_raise(DG_ERR_ARG, __FILE__, __LINE__, __func__,
                           "checkpoint '%s': field '%s' is NULL", path, info->field_names[i]);
      break;
    }
    dg_h5part_pack(part, bytes, fields[i], buf);
    hash[i] = elem_hash_sum(buf, part->K, bytes, part->gid);
  }
  err = dg_comm_agree(comm, err);
  if (err == DG_OK)
    err = dg_comm_allreduce_sum_u64(comm, hash, info->nfields + info->ncoef);
  dg_h5io_out o;
  if (err == DG_OK)
    err = dg_h5io_create_coll(path, comm, DG_CHECKPOINT_SEAL, &o);
  if (err == DG_OK) {
    err = write_body(&o, path, info, fields, part, buf, hash);
    if (err != DG_OK)
      dg_h5io_abandon(&o);
    else
      err = dg_h5io_finish(&o);
  }
  free(buf);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}
#else
dg_error dg_checkpoint_write_part(const char *path, const dg_checkpoint_info *info,
                                  const void *const *fields, dg_comm *comm,
                                  const dg_h5part *part) {
  (void)info, (void)fields, (void)comm, (void)part;
  DG_RAISE(DG_ERR_UNSUPPORTED,
           "cannot write checkpoint '%s' collectively: this dgrun was built with serial HDF5",
           path);
}
#endif

/* Compare a stored integer with this run's value. */
static dg_error expect_int(hid_t file, const char *path, const char *attr, const char *what,
                           int64_t want) {
  int64_t got;
  DG_CALL(dg_h5io_attr_get_i64(file, attr, &got, path));
  DG_CHECK(got == want, DG_ERR_INPUT, "checkpoint '%s' was written with %s %lld, this run uses %s %lld",
           path, what, (long long)got, what, (long long)want);
  return DG_OK;
}

static dg_error expect_str(hid_t file, const char *path, const char *attr, const char *what,
                           const char *want) {
  char got[1024];
  DG_CALL(dg_h5io_attr_get_str(file, attr, got, sizeof got, path));
  DG_CHECK(strcmp(got, want) == 0, DG_ERR_INPUT,
           "checkpoint '%s' was written with %s '%s', this run uses %s '%s'", path, what, got,
           what, want);
  return DG_OK;
}

/* The mesh: its hash (geometry and connectivity) must be this run's. */
static dg_error expect_mesh(hid_t file, const char *path, const dg_checkpoint_info *in) {
  uint64_t got;
  char name[1024];
  DG_CALL(dg_h5io_attr_get_u64(file, "mesh_hash", &got, path));
  DG_CALL(dg_h5io_attr_get_str(file, "mesh", name, sizeof name, path));
  DG_CHECK(got == in->mesh_hash, DG_ERR_INPUT,
           "checkpoint '%s' was written on another mesh (%s, mesh hash %016llx), this run "
           "uses %s (mesh hash %016llx): restart on the mesh it was written on",
           path, name, (unsigned long long)got, mesh_name(in),
           (unsigned long long)in->mesh_hash);
  return DG_OK;
}

static dg_error checksum_mismatch(const char *name, const char *path) {
  DG_RAISE(DG_ERR_INPUT, "field '%s' in checkpoint '%s' is corrupt (checksum mismatch)", name,
           path);
}

/* Read one field: it must exist, be K*Np floating-point values of this run's
 * size, and hash to the stored FNV-1a value.  With part only this rank's
 * elements land in out (part->K*Np values, local order): from a version 2
 * file through a hyperslab union of its runs, leaving its checksum share in
 * *share and the stored sum in *want for the caller to compare once the
 * shares of all ranks are summed; from a version 1 file (one FNV-1a over
 * the whole array, which no part can check) by reading and checking the
 * whole field, one field at a time, then picking the part. */
static dg_error read_field(hid_t g, const char *path, const dg_checkpoint_info *in,
                           int64_t version, const char *name, const dg_h5part *part, void *out,
                           uint64_t *share, uint64_t *want) {
  htri_t ex = H5Lexists(g, name, H5P_DEFAULT);
  if (ex <= 0) {
    H5Eclear2(H5E_DEFAULT);
    DG_RAISE(DG_ERR_INPUT, "checkpoint '%s' has no field '%s'", path, name);
  }
  hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
  if (d < 0)
    return DG_H5_RAISE(DG_ERR_INPUT, "cannot open field '%s' in checkpoint '%s'", name, path);
  uint64_t n = (uint64_t)(in->K * in->Np);
  size_t bytes = (size_t)in->Np * (size_t)in->real_size;
  hid_t s = H5Dget_space(d), t = H5Dget_type(d);
  hsize_t dims[2] = {0, 0};
  int ok = s >= 0 && t >= 0 && H5Sget_simple_extent_ndims(s) == 1 &&
           H5Sget_simple_extent_dims(s, dims, NULL) == 1 && dims[0] == n &&
           H5Tget_class(t) == H5T_FLOAT && H5Tget_size(t) == (size_t)in->real_size;
  if (s >= 0)
    H5Sclose(s);
  if (t >= 0)
    H5Tclose(t);
  dg_error err = DG_OK;
  void *buf = NULL;
  if (!ok) {
    H5Eclear2(H5E_DEFAULT);
    err = dg_error_raise(DG_ERR_INPUT, __FILE__, __LINE__, __func__,
                         "field '%s' in checkpoint '%s' does not hold %llu %s values "
                         "(corrupt file?)",
                         name, path, (unsigned long long)n, precision_name(in->real_size));
    goto done;
  }
  hid_t mt = in->real_size == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
  if (part && version >= 2) {
    buf = malloc(bytes * (size_t)part->K + 1);
    DG_CHECK_GOTO(err, done, buf, DG_ERR_MEMORY, "out of memory reading checkpoint '%s'", path);
    DG_CALL_GOTO(err, done, dg_h5part_read(part, d, mt, in->Np, buf, H5P_DEFAULT, name, path));
    DG_CALL_GOTO(err, done, dg_h5io_attr_get_u64(d, "elem_fnv1a_sum", want, path));
    *share = elem_hash_sum(buf, part->K, bytes, part->gid);
    dg_h5part_unpack(part, bytes, buf, out);
    goto done;
  }
  void *whole = out;
  if (part) {
    whole = buf = malloc(bytes * (size_t)in->K + 1);
    DG_CHECK_GOTO(err, done, buf, DG_ERR_MEMORY, "out of memory reading checkpoint '%s'", path);
  }
  if (H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, whole) < 0) {
    err = DG_H5_RAISE(DG_ERR_INPUT, "cannot read field '%s' from checkpoint '%s' (truncated?)",
                      name, path);
    goto done;
  }
  uint64_t stored, got;
  if (version == 1) {
    DG_CALL_GOTO(err, done, dg_h5io_attr_get_u64(d, "fnv1a64", &stored, path));
    got = dg_h5io_fnv1a(whole, (size_t)n * (size_t)in->real_size);
  } else {
    DG_CALL_GOTO(err, done, dg_h5io_attr_get_u64(d, "elem_fnv1a_sum", &stored, path));
    got = elem_hash_sum(whole, in->K, bytes, NULL);
  }
  if (got != stored) {
    err = checksum_mismatch(name, path);
    goto done;
  }
  if (part)
    for (int64_t j = 0; j < part->K; j++)
      memcpy((unsigned char *)out + (size_t)part->order[j] * bytes,
             (unsigned char *)whole + (size_t)part->gid[j] * bytes, bytes);
done:
  free(buf);
  H5Dclose(d);
  return err;
}

/* The checkpoint's identity checks and its fields (part: this rank's
 * elements; shares and wants as in read_field, for a version 2 file); sets
 * *version and, on success, info's progress. */
static dg_error read_coefs(hid_t file, const char *path, const dg_checkpoint_info *in,
                           int64_t version, const dg_h5part *part, double *cbuf,
                           uint64_t *shares, uint64_t *wants);

static dg_error read_body(hid_t file, const char *path, dg_checkpoint_info *in,
                          void *const *fields, const dg_h5part *part, int64_t *version,
                          uint64_t *shares, uint64_t *wants, double *cbuf) {
  char fmt[64];
  dg_error err = dg_h5io_attr_get_str(file, "format", fmt, sizeof fmt, path);
  if (err != DG_OK || strcmp(fmt, format_name) != 0) {
    dg_error_clear();
    DG_RAISE(DG_ERR_INPUT, "'%s' is an HDF5 file but not a dgrun checkpoint", path);
  }
  DG_CALL(dg_h5io_attr_get_i64(file, "format_version", version, path));
  DG_CHECK(*version >= 1 && *version <= DG_CHECKPOINT_FORMAT_VERSION, DG_ERR_INPUT,
           "checkpoint '%s' has format version %lld; this dgrun reads versions 1 to %d only%s",
           path, (long long)*version, DG_CHECKPOINT_FORMAT_VERSION,
           *version > DG_CHECKPOINT_FORMAT_VERSION ? " (written by a newer dgrun)" : "");
  DG_CALL(expect_int(file, path, "dim", "dimension", in->dim));
  DG_CALL(expect_int(file, path, "order", "order", in->N));
  DG_CALL(expect_int(file, path, "nodes_per_element", "nodes per element", in->Np));
  DG_CALL(expect_int(file, path, "num_elements", "element count", in->K));
  DG_CALL(expect_str(file, path, "precision", "precision", precision_name(in->real_size)));
  DG_CALL(expect_str(file, path, "scheme", "time scheme", in->scheme));
  DG_CALL(expect_str(file, path, "problem_id", "problem", in->problem_id));
  DG_CALL(expect_int(file, path, "num_fields", "field count", in->nfields));
  if (*version >= 3)
    DG_CALL(expect_mesh(file, path, in));
  double time, dt;
  int64_t step;
  DG_CALL(dg_h5io_attr_get_f64(file, "time", &time, path));
  DG_CALL(dg_h5io_attr_get_f64(file, "dt", &dt, path));
  DG_CALL(dg_h5io_attr_get_i64(file, "step", &step, path));
  htri_t ex = H5Lexists(file, "fields", H5P_DEFAULT);
  hid_t g = ex > 0 ? H5Gopen2(file, "fields", H5P_DEFAULT) : -1;
  if (g < 0) {
    H5Eclear2(H5E_DEFAULT);
    DG_RAISE(DG_ERR_INPUT, "checkpoint '%s' has no /fields group (corrupt file?)", path);
  }
  for (int i = 0; i < in->nfields && err == DG_OK; ++i)
    err = read_field(g, path, in, *version, in->field_names[i], part, fields[i], &shares[i],
                     &wants[i]);
  H5Gclose(g);
  if (err == DG_OK)
    err = read_coefs(file, path, in, *version, part, cbuf, shares + in->nfields,
                     wants + in->nfields);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  /* Last, so that a damaged file is reported as damaged: the numbering of
   * the elements (files from before the attribute numbered them as input) */
  htri_t has_order = H5Aexists(file, "element_order");
  if (has_order > 0) {
    DG_CALL(expect_str(file, path, "element_order", "[mesh] order",
                       element_order(in)));
  } else {
    H5Eclear2(H5E_DEFAULT);
    DG_CHECK(strcmp(element_order(in), "input") == 0, DG_ERR_INPUT,
             "checkpoint '%s' holds its elements in the input numbering (written before "
             "dgrun recorded [mesh] order), this run numbers them along the Hilbert curve: "
             "restart with mesh.order=input",
             path);
  }
  in->time = time;
  in->dt = dt;
  in->step = step;
  in->dt_max = 0; /* (files from before the computed wave speed have none) */
  htri_t has_dt_max = H5Aexists(file, "dt_max");
  if (has_dt_max > 0)
    DG_CALL(dg_h5io_attr_get_f64(file, "dt_max", &in->dt_max, path));
  else
    H5Eclear2(H5E_DEFAULT);
  /* (files from before the adaptive step have no controller) */
  in->rk_dt_next = 0;
  in->rk_err_prev = 1;
  in->rk_rejected = 0;
  if (H5Aexists(file, "rk_dt_next") > 0) {
    DG_CALL(dg_h5io_attr_get_f64(file, "rk_dt_next", &in->rk_dt_next, path));
    DG_CALL(dg_h5io_attr_get_f64(file, "rk_err_prev", &in->rk_err_prev, path));
    DG_CALL(dg_h5io_attr_get_i64(file, "rk_rejected", &in->rk_rejected, path));
  } else {
    H5Eclear2(H5E_DEFAULT);
  }
  return DG_OK;
}

/* The stored coefficients into cbuf (ncoef x the elements read x Np), to
 * be compared once their checksums hold (compare_coefs). */
static dg_error read_coefs(hid_t file, const char *path, const dg_checkpoint_info *in,
                           int64_t version, const dg_h5part *part, double *cbuf,
                           uint64_t *shares, uint64_t *wants) {
  htri_t ex = H5Lexists(file, "coefficients", H5P_DEFAULT);
  if (ex < 0)
    H5Eclear2(H5E_DEFAULT);
  DG_CHECK(ex > 0 || in->ncoef == 0, DG_ERR_INPUT,
           "checkpoint '%s' holds no coefficient values, but this run's flux file declares "
           "coefficients ('%s', ...): restart it with the flux file it was written with",
           path, in->coef_names[0]);
  DG_CHECK(ex <= 0 || in->ncoef > 0, DG_ERR_INPUT,
           "checkpoint '%s' holds coefficient values, but this run's flux file declares no "
           "coefficients: restart it with the flux file it was written with",
           path);
  if (in->ncoef == 0)
    return DG_OK;
  hid_t g = H5Gopen2(file, "coefficients", H5P_DEFAULT);
  if (g < 0)
    return DG_H5_RAISE(DG_ERR_INPUT, "cannot open /coefficients in checkpoint '%s'", path);
  dg_checkpoint_info cv = coef_view(in);
  int64_t n = (part ? part->K : in->K) * in->Np;
  dg_error err = DG_OK;
  for (int c = 0; c < in->ncoef && err == DG_OK; ++c)
    err = read_field(g, path, &cv, version, in->coef_names[c], part, cbuf + c * n, &shares[c],
                     &wants[c]);
  H5Gclose(g);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}

/* The stored coefficients against this run's: a restart must not change
 * the material. */
static dg_error compare_coefs(const char *path, const dg_checkpoint_info *in,
                              const dg_h5part *part, const double *cbuf) {
  int64_t K = part ? part->K : in->K, Np = in->Np;
  for (int c = 0; c < in->ncoef; ++c)
    for (int64_t j = 0; j < K * Np; ++j) {
      double was = cbuf[c * K * Np + j], now = in->coef_values[c][j];
      if (memcmp(&was, &now, sizeof was) == 0)
        continue;
      int64_t k = j / Np, gk = k;
      for (int64_t q = 0; part && q < part->K; ++q)
        if (part->order[q] == k)
          gk = part->gid[q];
      DG_RAISE(DG_ERR_INPUT,
               "checkpoint '%s' was written with coefficient '%s' = %.17g at node %lld of "
               "element %lld, but this run's [coefficients] / [regions] give %.17g there: a "
               "restart must keep the material (restore the cfg's values, or start anew)",
               path, in->coef_names[c], was, (long long)(j % Np), (long long)gk, now);
    }
  return DG_OK;
}

/* (a missing or unreadable checkpoint is the user's input error, as every
 * other reason to refuse one: DG_ERR_INPUT, checkpoint.h) */
static dg_error check_seal(const char *path, int full) {
  dg_error err =
      dg_seal_check(path, DG_CHECKPOINT_SEAL, "checkpoint", "a sealed dgrun checkpoint", full);
  if (err == DG_ERR_IO) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", dg_error_message());
    dg_error_clear();
    DG_RAISE(DG_ERR_INPUT, "%s", msg);
  }
  DG_CALL(err);
  return DG_OK;
}

static dg_error check_buffers(const char *path, const dg_checkpoint_info *info,
                              void *const *fields) {
  DG_CALL(check_info(path, info));
  DG_CHECK(fields != NULL, DG_ERR_ARG, "checkpoint '%s': NULL fields", path);
  DG_CHECK(info->nfields <= DG_CHECKPOINT_MAX_FIELDS, DG_ERR_ARG,
           "checkpoint '%s': %d fields (at most %d)", path, info->nfields,
           DG_CHECKPOINT_MAX_FIELDS);
  for (int i = 0; i < info->nfields; ++i)
    DG_CHECK(fields[i] != NULL, DG_ERR_ARG, "checkpoint '%s': NULL buffer for field '%s'", path,
             info->field_names[i]);
  return DG_OK;
}

/* Open, read (all of it, or part), close. */
static dg_error read_file(const char *path, dg_checkpoint_info *info, void *const *fields,
                          const dg_h5part *part, int64_t *version, uint64_t *shares,
                          uint64_t *wants, double *cbuf) {
  hid_t file;
  /* (the seal was verified: the file is the one dgrun wrote) */
  DG_CALL(dg_h5io_open_read(path, "checkpoint", &file));
  dg_error err = read_body(file, path, info, fields, part, version, shares, wants, cbuf);
  H5Fclose(file);
  H5Eclear2(H5E_DEFAULT);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}

dg_error dg_checkpoint_read(const char *path, dg_checkpoint_info *info, void *const *fields) {
  DG_CALL(check_buffers(path, info, fields));
  int64_t version;
  uint64_t shares[2 * DG_CHECKPOINT_MAX_FIELDS], wants[2 * DG_CHECKPOINT_MAX_FIELDS];
  DG_CALL(check_seal(path, 1));
  double *cbuf = malloc(sizeof(double) * (size_t)(info->ncoef * info->K * info->Np) + 1);
  DG_CHECK(cbuf, DG_ERR_MEMORY, "out of memory reading checkpoint '%s'", path);
  dg_error err = read_file(path, info, fields, NULL, &version, shares, wants, cbuf);
  if (err == DG_OK) /* (read_field checked the checksums) */
    err = compare_coefs(path, info, NULL, cbuf);
  free(cbuf);
  DG_CALL(err);
  return DG_OK;
}

dg_error dg_checkpoint_read_part(const char *path, dg_checkpoint_info *info,
                                 void *const *fields, dg_comm *comm, const dg_h5part *part) {
  /* Every rank opens the file read-only on its own and reads its runs
   * independently (H5P_DEFAULT transfers), in serial and parallel HDF5
   * builds alike: a restart reads the file once, each byte by one rank, so
   * collective buffering would gain little, and independent reads need no
   * MPI-IO file access and no collective call that a rank failing early
   * (a missing file, a mismatching order) could leave the others waiting
   * in.  The only collective steps are the agreement and the checksum sum
   * below. */
  int64_t version = 0;
  /* (shares: one more slot, for the element count summed alongside) */
  uint64_t shares[2 * DG_CHECKPOINT_MAX_FIELDS + 1] = {0},
           wants[2 * DG_CHECKPOINT_MAX_FIELDS] = {0};
  double *cbuf = NULL;
  dg_error err = check_buffers(path, info, fields);
  if (err == DG_OK && part) {
    cbuf = malloc(sizeof(double) * (size_t)(info->ncoef * part->K * info->Np) + 1);
    if (!cbuf)
      err = dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                           "out of memory reading checkpoint '%s'", path);
  }
  if (err == DG_OK && (!part || !comm || part->K_global != info->K))
    err = dg_error_raise(DG_ERR_ARG, __FILE__, __LINE__, __func__,
                         "checkpoint '%s': bad part or communicator", path);
  /* rank 0 hashes the whole file, the others check its header and size;
   * no rank opens it with libhdf5 before all know the seal holds */
  if (err == DG_OK)
    err = check_seal(path, dg_comm_rank(comm) == 0);
  err = dg_comm_agree(comm, err);
  if (err == DG_OK)
    err = read_file(path, info, fields, part, &version, shares, wants, cbuf);
  err = dg_comm_agree(comm, err);
  if (err == DG_OK && version >= 2) {
    /* each rank hashed its own elements: the shares add up to the sum the
     * writer stored, so a changed element fails every rank alike; the
     * element count summed alongside says that the parts cover the file
     * (they are distinct by the partition) */
    int n = info->nfields + info->ncoef;
    shares[n] = (uint64_t)part->K;
    err = dg_comm_allreduce_sum_u64(comm, shares, n + 1);
    if (err == DG_OK && shares[n] != (uint64_t)info->K)
      err = dg_error_raise(DG_ERR_ARG, __FILE__, __LINE__, __func__,
                           "checkpoint '%s': the ranks' parts hold %llu of its %lld elements",
                           path, (unsigned long long)shares[n], (long long)info->K);
    for (int i = 0; err == DG_OK && i < n; ++i)
      if (shares[i] != wants[i])
        err = checksum_mismatch(i < info->nfields ? info->field_names[i]
                                                  : info->coef_names[i - info->nfields],
                                path);
  }
  /* (a version 1 file has no coefficients: read_coefs refused it) */
  if (err == DG_OK)
    err = dg_comm_agree(comm, compare_coefs(path, info, part, cbuf));
  free(cbuf);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}

/* One text dataset of /inputs into a malloc'd NUL-terminated string. */
static dg_error read_text(hid_t g, const char *name, const char *path, char **out) {
  hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
  hid_t s = d >= 0 ? H5Dget_space(d) : -1, t = d >= 0 ? H5Dget_type(d) : -1;
  hsize_t n = 0;
  int ok = s >= 0 && t >= 0 && H5Sget_simple_extent_ndims(s) == 1 &&
           H5Sget_simple_extent_dims(s, &n, NULL) == 1 && H5Tget_class(t) == H5T_INTEGER &&
           H5Tget_size(t) == 1 && n < ((hsize_t)64 << 20);
  char *buf = ok ? malloc((size_t)n + 1) : NULL;
  ok = buf && H5Dread(d, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0;
  if (s >= 0)
    H5Sclose(s);
  if (t >= 0)
    H5Tclose(t);
  if (d >= 0)
    H5Dclose(d);
  if (!ok) {
    free(buf);
    return DG_H5_RAISE(DG_ERR_INPUT, "cannot read /inputs/%s of checkpoint '%s' (corrupt file?)",
                       name, path);
  }
  buf[n] = '\0';
  *out = buf;
  return DG_OK;
}

static dg_error read_inputs(const char *path, dg_checkpoint_inputs *out) {
  hid_t file;
  DG_CALL(dg_h5io_open_read(path, "checkpoint", &file));
  char fmt[64];
  dg_error err = dg_h5io_attr_get_str(file, "format", fmt, sizeof fmt, path);
  if (err != DG_OK || strcmp(fmt, format_name) != 0) {
    dg_error_clear();
    err = dg_error_raise(DG_ERR_INPUT, __FILE__, __LINE__, __func__,
                         "'%s' is an HDF5 file but not a dgrun checkpoint", path);
  }
  if (err == DG_OK)
    err = dg_h5io_attr_get_i64(file, "format_version", &out->version, path);
  htri_t ex = err == DG_OK ? H5Lexists(file, "inputs", H5P_DEFAULT) : 0;
  hid_t g = ex > 0 ? H5Gopen2(file, "inputs", H5P_DEFAULT) : -1;
  if (err == DG_OK && g >= 0)
    err = read_text(g, "config", path, &out->config_text);
  if (err == DG_OK && g >= 0)
    err = read_text(g, "flux", path, &out->flux_text);
  if (g >= 0)
    H5Gclose(g);
  H5Fclose(file);
  H5Eclear2(H5E_DEFAULT);
  if (err != DG_OK) {
    dg_checkpoint_inputs_free(out);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  return DG_OK;
}

dg_error dg_checkpoint_read_inputs(const char *path, dg_comm *comm, dg_checkpoint_inputs *out) {
  memset(out, 0, sizeof *out);
  DG_CHECK(path != NULL, DG_ERR_ARG, "checkpoint: NULL path");
  /* as dg_checkpoint_read_part: no rank parses the file before all know
   * that its seal holds (rank 0 hashes it whole) */
  dg_error err = check_seal(path, !comm || dg_comm_rank(comm) == 0);
  if (comm)
    err = dg_comm_agree(comm, err);
  if (err == DG_OK)
    err = read_inputs(path, out);
  if (comm)
    err = dg_comm_agree(comm, err);
  if (err != DG_OK) {
    dg_checkpoint_inputs_free(out);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  return DG_OK;
}

#else /* no HDF5 */

dg_error dg_checkpoint_read_inputs(const char *path, dg_comm *comm, dg_checkpoint_inputs *out) {
  (void)comm;
  memset(out, 0, sizeof *out);
  DG_RAISE(DG_ERR_UNSUPPORTED,
           "cannot read checkpoint '%s': this dgrun was built without HDF5 "
           "(install libhdf5-dev and rebuild)",
           path);
}

dg_error dg_checkpoint_write(const char *path, const dg_checkpoint_info *info,
                             const void *const *fields) {
  (void)fields;
  DG_CALL(check_info(path, info));
  DG_RAISE(DG_ERR_UNSUPPORTED,
           "cannot write checkpoint '%s': this dgrun was built without HDF5 "
           "(install libhdf5-dev and rebuild)",
           path);
}

dg_error dg_checkpoint_write_part(const char *path, const dg_checkpoint_info *info,
                                  const void *const *fields, dg_comm *comm,
                                  const dg_h5part *part) {
  (void)info, (void)fields, (void)comm, (void)part;
  DG_RAISE(DG_ERR_UNSUPPORTED, "cannot write checkpoint '%s': this dgrun was built without HDF5",
           path);
}

dg_error dg_checkpoint_read(const char *path, dg_checkpoint_info *info, void *const *fields) {
  (void)fields;
  DG_CALL(check_info(path, info));
  DG_RAISE(DG_ERR_UNSUPPORTED,
           "cannot read checkpoint '%s': this dgrun was built without HDF5 "
           "(install libhdf5-dev and rebuild)",
           path);
}

dg_error dg_checkpoint_read_part(const char *path, dg_checkpoint_info *info,
                                 void *const *fields, dg_comm *comm, const dg_h5part *part) {
  (void)info, (void)fields, (void)comm, (void)part;
  DG_RAISE(DG_ERR_UNSUPPORTED, "cannot read checkpoint '%s': this dgrun was built without HDF5",
           path);
}

#endif
