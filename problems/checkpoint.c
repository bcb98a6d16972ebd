/* Checkpoint write/read (see checkpoint.h). */
#include "problems/checkpoint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problems/h5io.h"

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
  for (int i = 0; i < in->nfields; ++i) {
    const char *n = in->field_names[i];
    DG_CHECK(dg_h5io_plain_name(n), DG_ERR_ARG,
             "checkpoint field name '%s' must be letters, digits, '_', '-' or '.'", n ? n : "");
    for (int j = 0; j < i; ++j)
      DG_CHECK(strcmp(n, in->field_names[j]) != 0, DG_ERR_ARG,
               "checkpoint field '%s' is given twice", n);
  }
  return DG_OK;
}

#if defined(DGRUN_HAVE_HDF5)

static const char format_name[] = "dgrun-checkpoint";

static const char *precision_name(int real_size) { return real_size == 4 ? "float" : "double"; }

static dg_error write_body(hid_t file, const char *path, const dg_checkpoint_info *in,
                           const void *const *fields) {
  DG_CALL(dg_h5io_attr_put_str(file, "format", format_name, path));
  DG_CALL(dg_h5io_attr_put_i64(file, "format_version", DG_CHECKPOINT_FORMAT_VERSION, path));
  DG_CALL(dg_h5io_attr_put_str(file, "dgrun_version", DGRUN_VERSION, path));
  DG_CALL(dg_h5io_attr_put_f64(file, "time", in->time, path));
  DG_CALL(dg_h5io_attr_put_i64(file, "step", in->step, path));
  DG_CALL(dg_h5io_attr_put_f64(file, "dt", in->dt, path));
  DG_CALL(dg_h5io_attr_put_str(file, "scheme", in->scheme, path));
  DG_CALL(dg_h5io_attr_put_i64(file, "order", in->N, path));
  DG_CALL(dg_h5io_attr_put_i64(file, "dim", in->dim, path));
  DG_CALL(dg_h5io_attr_put_i64(file, "num_elements", in->K, path));
  DG_CALL(dg_h5io_attr_put_i64(file, "nodes_per_element", in->Np, path));
  DG_CALL(dg_h5io_attr_put_str(file, "precision", precision_name(in->real_size), path));
  DG_CALL(dg_h5io_attr_put_str(file, "problem_id", in->problem_id, path));
  DG_CALL(dg_h5io_attr_put_i64(file, "num_fields", in->nfields, path));
  hid_t g = H5Gcreate2(file, "fields", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0)
    return DG_H5_RAISE(DG_ERR_IO, "cannot create group /fields in '%s'", path);
  hid_t mt = in->real_size == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
  uint64_t n = (uint64_t)(in->K * in->Np);
  dg_error err = DG_OK;
  for (int i = 0; i < in->nfields && err == DG_OK; ++i) {
    if (!fields[i]) {
      err = dg_error_raise(DG_ERR_ARG, __FILE__, __LINE__, __func__,
                           "checkpoint '%s': field '%s' is NULL", path, in->field_names[i]);
      break;
    }
    err = dg_h5io_write(g, in->field_names[i], mt, 1, &n, fields[i], path);
    if (err != DG_OK)
      break;
    hid_t d = H5Dopen2(g, in->field_names[i], H5P_DEFAULT);
    if (d < 0) {
      err = DG_H5_RAISE(DG_ERR_IO, "cannot reopen field '%s' in '%s'", in->field_names[i], path);
      break;
    }
    err = dg_h5io_attr_put_u64(d, "fnv1a64",
                               dg_h5io_fnv1a(fields[i], (size_t)n * (size_t)in->real_size), path);
    H5Dclose(d);
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
  dg_h5io_out o;
  DG_CALL(dg_h5io_create(path, &o));
  dg_error err = write_body(o.file, path, info, fields);
  if (err != DG_OK) {
    dg_h5io_abandon(&o);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  DG_CALL(dg_h5io_finish(&o));
  return DG_OK;
}

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

/* Read one field: it must exist, be K*Np floating-point values of this run's
 * size, and hash to the stored FNV-1a value. */
static dg_error read_field(hid_t g, const char *path, const dg_checkpoint_info *in,
                           const char *name, void *out) {
  htri_t ex = H5Lexists(g, name, H5P_DEFAULT);
  if (ex <= 0) {
    H5Eclear2(H5E_DEFAULT);
    DG_RAISE(DG_ERR_INPUT, "checkpoint '%s' has no field '%s'", path, name);
  }
  hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
  if (d < 0)
    return DG_H5_RAISE(DG_ERR_INPUT, "cannot open field '%s' in checkpoint '%s'", name, path);
  uint64_t n = (uint64_t)(in->K * in->Np);
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
  if (!ok) {
    H5Eclear2(H5E_DEFAULT);
    err = dg_error_raise(DG_ERR_INPUT, __FILE__, __LINE__, __func__,
                         "field '%s' in checkpoint '%s' does not hold %llu %s values "
                         "(corrupt file?)",
                         name, path, (unsigned long long)n, precision_name(in->real_size));
    goto done;
  }
  hid_t mt = in->real_size == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
  if (H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0) {
    err = DG_H5_RAISE(DG_ERR_INPUT, "cannot read field '%s' from checkpoint '%s' (truncated?)",
                      name, path);
    goto done;
  }
  uint64_t want;
  DG_CALL_GOTO(err, done, dg_h5io_attr_get_u64(d, "fnv1a64", &want, path));
  if (dg_h5io_fnv1a(out, (size_t)n * (size_t)in->real_size) != want)
    err = dg_error_raise(DG_ERR_INPUT, __FILE__, __LINE__, __func__,
                         "field '%s' in checkpoint '%s' is corrupt (checksum mismatch)", name,
                         path);
done:
  H5Dclose(d);
  return err;
}

static dg_error read_body(hid_t file, const char *path, dg_checkpoint_info *in,
                          void *const *fields) {
  char fmt[64];
  dg_error err = dg_h5io_attr_get_str(file, "format", fmt, sizeof fmt, path);
  if (err != DG_OK || strcmp(fmt, format_name) != 0) {
    dg_error_clear();
    DG_RAISE(DG_ERR_INPUT, "'%s' is an HDF5 file but not a dgrun checkpoint", path);
  }
  int64_t version;
  DG_CALL(dg_h5io_attr_get_i64(file, "format_version", &version, path));
  DG_CHECK(version == DG_CHECKPOINT_FORMAT_VERSION, DG_ERR_INPUT,
           "checkpoint '%s' has format version %lld; this dgrun reads version %d only%s", path,
           (long long)version, DG_CHECKPOINT_FORMAT_VERSION,
           version > DG_CHECKPOINT_FORMAT_VERSION ? " (written by a newer dgrun)" : "");
  DG_CALL(expect_int(file, path, "dim", "dimension", in->dim));
  DG_CALL(expect_int(file, path, "order", "order", in->N));
  DG_CALL(expect_int(file, path, "nodes_per_element", "nodes per element", in->Np));
  DG_CALL(expect_int(file, path, "num_elements", "element count", in->K));
  DG_CALL(expect_str(file, path, "precision", "precision", precision_name(in->real_size)));
  DG_CALL(expect_str(file, path, "scheme", "time scheme", in->scheme));
  DG_CALL(expect_str(file, path, "problem_id", "problem", in->problem_id));
  DG_CALL(expect_int(file, path, "num_fields", "field count", in->nfields));
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
    err = read_field(g, path, in, in->field_names[i], fields[i]);
  H5Gclose(g);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  in->time = time;
  in->dt = dt;
  in->step = step;
  return DG_OK;
}

dg_error dg_checkpoint_read(const char *path, dg_checkpoint_info *info, void *const *fields) {
  DG_CALL(check_info(path, info));
  DG_CHECK(fields != NULL, DG_ERR_ARG, "checkpoint '%s': NULL fields", path);
  for (int i = 0; i < info->nfields; ++i)
    DG_CHECK(fields[i] != NULL, DG_ERR_ARG, "checkpoint '%s': NULL buffer for field '%s'", path,
             info->field_names[i]);
  hid_t file;
  DG_CALL(dg_h5io_open_read(path, "checkpoint", &file));
  dg_error err = read_body(file, path, info, fields);
  H5Fclose(file);
  H5Eclear2(H5E_DEFAULT);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}

#else /* no HDF5 */

dg_error dg_checkpoint_write(const char *path, const dg_checkpoint_info *info,
                             const void *const *fields) {
  (void)fields;
  DG_CALL(check_info(path, info));
  DG_RAISE(DG_ERR_UNSUPPORTED,
           "cannot write checkpoint '%s': this dgrun was built without HDF5 "
           "(install libhdf5-dev and rebuild)",
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

#endif
