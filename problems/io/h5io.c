/* Atomic file writes and HDF5 error translation (see h5io.h). */
#include "problems/io/h5io.h"

#include "core/comm_h5.h"
#include "core/fsutil.h"
#include "core/seal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

dg_error dg_h5io_temp_path(const char *path, char **out) {
  size_t n = strlen(path) + 32;
  char *s = malloc(n);
  DG_CHECK(s != NULL, DG_ERR_MEMORY, "out of memory for a temp name of '%s'", path);
  snprintf(s, n, "%s.tmp.%ld", path, (long)getpid());
  *out = s;
  return DG_OK;
}

/* fsync the directory holding path, so the rename itself is durable.  A file
 * system that cannot fsync directories (EINVAL) is not an error. */
static dg_error fsync_parent(const char *path) {
  const char *slash = strrchr(path, '/');
  char dir[4096];
  if (!slash) {
    strcpy(dir, ".");
  } else if (slash == path) {
    strcpy(dir, "/");
  } else {
    size_t n = (size_t)(slash - path);
    DG_CHECK(n < sizeof dir, DG_ERR_IO, "directory of '%s' is too long", path);
    memcpy(dir, path, n);
    dir[n] = '\0';
  }
  int fd = open(dir, O_RDONLY);
  DG_CHECK(fd >= 0, DG_ERR_IO, "cannot open directory '%s' to sync '%s': %s", dir, path,
           strerror(errno));
  int rc = fsync(fd), e = errno;
  close(fd);
  DG_CHECK(rc == 0 || e == EINVAL || e == EROFS, DG_ERR_IO, "cannot sync directory '%s': %s",
           dir, strerror(e));
  return DG_OK;
}

dg_error dg_h5io_commit(const char *tmp, const char *path) {
  /* (again, right before the rename: the run may have taken hours) */
  dg_error bad = dg_fsutil_check_output(path, "output file");
  if (bad != DG_OK) {
    unlink(tmp);
    return dg_error_push(bad, __FILE__, __LINE__, __func__);
  }
  int fd = open(tmp, O_RDONLY);
  if (fd < 0) {
    int e = errno;
    unlink(tmp);
    DG_RAISE(DG_ERR_IO, "cannot reopen '%s' to sync it: %s", tmp, strerror(e));
  }
  int rc = fsync(fd), e = errno;
  close(fd);
  if (rc != 0) {
    unlink(tmp);
    DG_RAISE(DG_ERR_IO, "cannot sync '%s' to disk: %s", tmp, strerror(e));
  }
  if (rename(tmp, path) != 0) {
    e = errno;
    unlink(tmp);
    DG_RAISE(DG_ERR_IO, "cannot rename '%s' to '%s': %s", tmp, path, strerror(e));
  }
  dg_error err = fsync_parent(path);
  if (err != DG_OK) {
    unlink(path); /* not known to be durable: do not leave it looking whole */
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  return DG_OK;
}

dg_error dg_h5io_write_text(const char *path, const char *text, size_t len) {
  DG_CALL(dg_fsutil_check_output(path, "output file"));
  char *tmp;
  DG_CALL(dg_h5io_temp_path(path, &tmp));
  dg_error err = DG_OK;
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    err = dg_error_raise(DG_ERR_IO, __FILE__, __LINE__, __func__, "cannot create '%s': %s",
                         tmp, strerror(errno));
    free(tmp);
    return err;
  }
  size_t done = 0;
  while (done < len) {
    ssize_t w = write(fd, text + done, len - done);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      err = dg_error_raise(DG_ERR_IO, __FILE__, __LINE__, __func__, "cannot write '%s': %s",
                           tmp, w < 0 ? strerror(errno) : "no progress");
      break;
    }
    done += (size_t)w;
  }
  if (close(fd) != 0 && err == DG_OK)
    err = dg_error_raise(DG_ERR_IO, __FILE__, __LINE__, __func__, "cannot close '%s': %s", tmp,
                         strerror(errno));
  if (err == DG_OK)
    err = dg_h5io_commit(tmp, path);
  else
    unlink(tmp);
  free(tmp);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}

dg_error dg_h5io_mkdirs(const char *dir) {
  char buf[4096];
  size_t n = strlen(dir);
  DG_CHECK(n > 0 && n < sizeof buf, DG_ERR_IO, "bad output directory name '%s'", dir);
  memcpy(buf, dir, n + 1);
  for (size_t i = 1; i <= n; ++i) {
    if (buf[i] != '/' && buf[i] != '\0')
      continue;
    char c = buf[i];
    buf[i] = '\0';
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
      DG_RAISE(DG_ERR_IO, "cannot create directory '%s' (for '%s'): %s", buf, dir,
               strerror(errno));
    struct stat st;
    DG_CHECK(stat(buf, &st) == 0 && S_ISDIR(st.st_mode), DG_ERR_IO,
             "cannot use '%s' as a directory (for '%s'): it is not a directory", buf, dir);
    buf[i] = c;
  }
  return DG_OK;
}

int dg_h5io_plain_name(const char *s) {
  if (!s || !*s || *s == '.') /* "." and ".." mean something to HDF5 and file systems */
    return 0;
  for (; *s; ++s)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          *s == '_' || *s == '-' || *s == '.'))
      return 0;
  return 1;
}

uint64_t dg_h5io_fnv1a(const void *data, size_t n) {
  /* Fowler-Noll-Vo 1a, 64-bit: offset basis and prime from the reference. */
  return dg_h5io_fnv1a_more(14695981039346656037ull, data, n);
}

uint64_t dg_h5io_fnv1a_more(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

#if defined(DGRUN_HAVE_HDF5)

void dg_h5io_silence(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

/* The most specific entry of the HDF5 error stack (walked upward, entry 0). */
typedef struct {
  char text[512];
} h5_msg;

static herr_t innermost(unsigned n, const H5E_error2_t *e, void *data) {
  h5_msg *m = data;
  if (n == 0 && e->desc)
    snprintf(m->text, sizeof m->text, "%s", e->desc);
  return 0;
}

dg_error dg_h5io_raise(dg_error code, const char *src, int line, const char *func,
                       const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  h5_msg m = {""};
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost, &m);
  H5Eclear2(H5E_DEFAULT);
  if (m.text[0])
    return dg_error_raise(code, src, line, func, "%s (HDF5: %s)", msg, m.text);
  return dg_error_raise(code, src, line, func, "%s", msg);
}

/* A file-creation list: the default, or with the seal's user block. */
static hid_t create_list(const char *seal) {
  if (!seal)
    return H5P_DEFAULT;
  hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
  if (fcpl >= 0 && H5Pset_userblock(fcpl, DG_SEAL_SIZE) < 0) {
    H5Pclose(fcpl);
    return H5I_INVALID_HID;
  }
  return fcpl;
}

static void close_list(hid_t fcpl) {
  if (fcpl >= 0 && fcpl != H5P_DEFAULT)
    H5Pclose(fcpl);
}

dg_error dg_h5io_create(const char *path, const char *seal, dg_h5io_out *out) {
  dg_h5io_silence();
  out->file = H5I_INVALID_HID;
  out->dxpl = H5P_DEFAULT;
  out->comm = NULL;
  out->rank = 0;
  out->path = path;
  out->seal = seal;
  DG_CALL(dg_fsutil_check_output(path, "output file"));
  DG_CALL(dg_h5io_temp_path(path, &out->tmp));
  /* STRONG close: closing the file closes anything still open in it, so an
   * error path cannot leave the file open (and unflushed) behind a rename. */
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl >= 0)
    H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
  hid_t fcpl = create_list(seal);
  out->file = fcpl < 0 ? H5I_INVALID_HID
                       : H5Fcreate(out->tmp, H5F_ACC_TRUNC, fcpl, fapl >= 0 ? fapl : H5P_DEFAULT);
  close_list(fcpl);
  /* raise before any other HDF5 call: each one clears the error stack */
  dg_error err = out->file < 0
                     ? DG_H5_RAISE(DG_ERR_IO, "cannot create '%s' (for '%s')", out->tmp, path)
                     : DG_OK;
  if (fapl >= 0)
    H5Pclose(fapl);
  if (err != DG_OK) {
    unlink(out->tmp); /* HDF5 may have created it before failing */
    free(out->tmp);
    out->tmp = NULL;
    return err;
  }
  return DG_OK;
}

dg_error dg_h5io_agree(const dg_h5io_out *out, dg_error err) {
  if (!out->comm)
    return err;
  return dg_comm_agree(out->comm, err);
}

#if defined(DGRUN_HAVE_PARALLEL_HDF5)
dg_error dg_h5io_create_coll(const char *path, dg_comm *comm, const char *seal,
                             dg_h5io_out *out) {
  dg_h5io_silence();
  out->file = H5I_INVALID_HID;
  out->dxpl = H5I_INVALID_HID;
  out->tmp = NULL;
  out->path = path;
  out->seal = seal;
  out->comm = comm;
  out->rank = dg_comm_rank(comm);
  DG_CALL(dg_comm_agree(comm, dg_fsutil_check_output(path, "output file")));
  /* one temp name for all ranks: rank 0's pid */
  double pid = out->rank == 0 ? (double)getpid() : 0.0;
  DG_CALL(dg_comm_allreduce_max(comm, &pid, 1));
  size_t n = strlen(path) + 32;
  out->tmp = malloc(n);
  dg_error err = out->tmp ? DG_OK
                          : dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                                           "out of memory for a temp name of '%s'", path);
  if (out->tmp)
    snprintf(out->tmp, n, "%s.tmp.%ld", path, (long)pid);
  hid_t fapl = err == DG_OK ? H5Pcreate(H5P_FILE_ACCESS) : H5I_INVALID_HID;
  if (err == DG_OK && fapl < 0)
    err = DG_H5_RAISE(DG_ERR_IO, "cannot make a file-access list for '%s'", path);
  if (err == DG_OK)
    err = dg_comm_h5_fapl(comm, fapl);
  if (err == DG_OK) {
    hid_t fcpl = create_list(seal);
    out->file = fcpl < 0 ? H5I_INVALID_HID : H5Fcreate(out->tmp, H5F_ACC_TRUNC, fcpl, fapl);
    close_list(fcpl);
    if (out->file < 0)
      err = DG_H5_RAISE(DG_ERR_IO, "cannot create '%s' (for '%s') with MPI-IO", out->tmp, path);
  }
  if (fapl >= 0)
    H5Pclose(fapl);
  if (err == DG_OK) {
    out->dxpl = H5Pcreate(H5P_DATASET_XFER);
    if (out->dxpl < 0 || H5Pset_dxpl_mpio(out->dxpl, H5FD_MPIO_COLLECTIVE) < 0)
      err = DG_H5_RAISE(DG_ERR_IO, "cannot make a collective transfer list for '%s'", path);
  }
  err = dg_comm_agree(comm, err);
  if (err != DG_OK) {
    dg_h5io_abandon(out);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  return DG_OK;
}
#endif

/* Close the file and (collective) its transfer list; DG_ERR_IO when the
 * data did not reach the file. */
static dg_error close_file(dg_h5io_out *out) {
  dg_error err = DG_OK;
  if (H5Fflush(out->file, H5F_SCOPE_GLOBAL) < 0)
    err = DG_H5_RAISE(DG_ERR_IO, "cannot flush '%s'", out->tmp);
  if (H5Fclose(out->file) < 0 && err == DG_OK)
    err = DG_H5_RAISE(DG_ERR_IO, "cannot close '%s'", out->tmp);
  out->file = H5I_INVALID_HID;
  if (out->dxpl >= 0 && out->dxpl != H5P_DEFAULT)
    H5Pclose(out->dxpl);
  out->dxpl = H5P_DEFAULT;
  return err;
}

dg_error dg_h5io_finish(dg_h5io_out *out) {
  dg_error err = close_file(out);
  /* a collective file is whole once every rank has closed it */
  err = dg_h5io_agree(out, err);
  if (out->rank == 0) {
    if (err == DG_OK && out->seal) {
      err = dg_seal_file(out->tmp, out->seal);
      if (err != DG_OK)
        unlink(out->tmp);
    }
    if (err == DG_OK)
      err = dg_h5io_commit(out->tmp, out->path);
    else
      unlink(out->tmp);
  }
  /* every rank learns whether rank 0's rename worked */
  if (out->comm)
    err = dg_comm_agree(out->comm, err);
  free(out->tmp);
  out->tmp = NULL;
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}

void dg_h5io_abandon(dg_h5io_out *out) {
  if (out->file >= 0)
    H5Fclose(out->file);
  out->file = H5I_INVALID_HID;
  if (out->dxpl >= 0 && out->dxpl != H5P_DEFAULT)
    H5Pclose(out->dxpl);
  out->dxpl = H5P_DEFAULT;
  H5Eclear2(H5E_DEFAULT);
  /* (a collective file: every rank has closed it; rank 0 removes it) */
  if (out->comm)
    dg_comm_barrier(out->comm);
  if (out->tmp && out->rank == 0)
    unlink(out->tmp);
  free(out->tmp);
  out->tmp = NULL;
}

dg_error dg_h5io_open_read(const char *path, const char *what, hid_t *file) {
  dg_h5io_silence();
  char kind[64];
  snprintf(kind, sizeof kind, "%s file", what);
  DG_CALL(dg_fsutil_check_input(path, kind)); /* never a FIFO or device to libhdf5 */
#if H5_VERSION_GE(1, 12, 0)
  htri_t is = H5Fis_accessible(path, H5P_DEFAULT);
#else
  htri_t is = H5Fis_hdf5(path);
#endif
  if (is <= 0)
    return DG_H5_RAISE(DG_ERR_INPUT, "%s file '%s' is not an HDF5 file (or is corrupt)", what,
                       path);
  *file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (*file < 0)
    return DG_H5_RAISE(DG_ERR_INPUT, "%s file '%s' cannot be opened: truncated or corrupt",
                       what, path);
  return DG_OK;
}

static dg_error attr_put(hid_t obj, const char *name, hid_t type, const void *v,
                         const char *path) {
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t a = space >= 0 ? H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT) : -1;
  herr_t rc = a >= 0 ? H5Awrite(a, type, v) : -1;
  dg_error err =
      rc < 0 ? DG_H5_RAISE(DG_ERR_IO, "cannot write attribute '%s' to '%s'", name, path) : DG_OK;
  if (a >= 0)
    H5Aclose(a);
  if (space >= 0)
    H5Sclose(space);
  return err;
}

dg_error dg_h5io_attr_put_f64(hid_t obj, const char *name, double v, const char *path) {
  DG_CALL(attr_put(obj, name, H5T_NATIVE_DOUBLE, &v, path));
  return DG_OK;
}

dg_error dg_h5io_attr_put_i64(hid_t obj, const char *name, int64_t v, const char *path) {
  DG_CALL(attr_put(obj, name, H5T_NATIVE_INT64, &v, path));
  return DG_OK;
}

dg_error dg_h5io_attr_put_u64(hid_t obj, const char *name, uint64_t v, const char *path) {
  DG_CALL(attr_put(obj, name, H5T_NATIVE_UINT64, &v, path));
  return DG_OK;
}

dg_error dg_h5io_attr_put_str(hid_t obj, const char *name, const char *v, const char *path) {
  /* fixed-length, NUL-terminated: what h5dump and h5py show as plain text */
  hid_t t = H5Tcopy(H5T_C_S1);
  if (t < 0 || H5Tset_size(t, strlen(v) + 1) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0) {
    dg_error err =
        DG_H5_RAISE(DG_ERR_IO, "cannot make a string type for '%s' in '%s'", name, path);
    if (t >= 0)
      H5Tclose(t);
    return err;
  }
  dg_error err = attr_put(obj, name, t, v, path);
  H5Tclose(t);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}

/* Open attribute name, checking it exists and its type class is cls. */
static dg_error attr_open(hid_t obj, const char *name, H5T_class_t cls, const char *path,
                          hid_t *out) {
  htri_t ex = H5Aexists(obj, name);
  if (ex <= 0) {
    H5Eclear2(H5E_DEFAULT);
    DG_RAISE(DG_ERR_INPUT, "'%s' lacks the attribute '%s' (not written by dgrun, or corrupt)",
             path, name);
  }
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  if (a < 0)
    return DG_H5_RAISE(DG_ERR_INPUT, "cannot open attribute '%s' in '%s'", name, path);
  hid_t t = H5Aget_type(a);
  hid_t s = H5Aget_space(a);
  int ok = t >= 0 && s >= 0 && H5Tget_class(t) == cls && H5Sget_simple_extent_npoints(s) == 1;
  if (t >= 0)
    H5Tclose(t);
  if (s >= 0)
    H5Sclose(s);
  if (!ok) {
    H5Aclose(a);
    H5Eclear2(H5E_DEFAULT);
    DG_RAISE(DG_ERR_INPUT, "attribute '%s' in '%s' has the wrong type or size", name, path);
  }
  *out = a;
  return DG_OK;
}

static dg_error attr_get(hid_t obj, const char *name, H5T_class_t cls, hid_t mtype, void *v,
                         const char *path) {
  hid_t a;
  DG_CALL(attr_open(obj, name, cls, path, &a));
  herr_t rc = H5Aread(a, mtype, v);
  dg_error err =
      rc < 0 ? DG_H5_RAISE(DG_ERR_INPUT, "cannot read attribute '%s' in '%s'", name, path) : DG_OK;
  H5Aclose(a);
  return err;
}

dg_error dg_h5io_attr_get_f64(hid_t obj, const char *name, double *v, const char *path) {
  DG_CALL(attr_get(obj, name, H5T_FLOAT, H5T_NATIVE_DOUBLE, v, path));
  return DG_OK;
}

dg_error dg_h5io_attr_get_i64(hid_t obj, const char *name, int64_t *v, const char *path) {
  DG_CALL(attr_get(obj, name, H5T_INTEGER, H5T_NATIVE_INT64, v, path));
  return DG_OK;
}

dg_error dg_h5io_attr_get_u64(hid_t obj, const char *name, uint64_t *v, const char *path) {
  DG_CALL(attr_get(obj, name, H5T_INTEGER, H5T_NATIVE_UINT64, v, path));
  return DG_OK;
}

dg_error dg_h5io_attr_get_str(hid_t obj, const char *name, char *buf, size_t cap,
                              const char *path) {
  hid_t a;
  DG_CALL(attr_open(obj, name, H5T_STRING, path, &a));
  hid_t ft = H5Aget_type(a);
  size_t n = ft >= 0 ? H5Tget_size(ft) : 0;
  htri_t var = ft >= 0 ? H5Tis_variable_str(ft) : -1;
  if (ft >= 0)
    H5Tclose(ft);
  if (var != 0 || n == 0 || n >= cap) {
    H5Aclose(a);
    H5Eclear2(H5E_DEFAULT);
    DG_RAISE(DG_ERR_INPUT, "string attribute '%s' in '%s' is not a short fixed-length string",
             name, path);
  }
  hid_t mt = H5Tcopy(H5T_C_S1);
  herr_t rc = mt >= 0 ? H5Tset_size(mt, n) : -1;
  if (rc >= 0)
    rc = H5Aread(a, mt, buf);
  dg_error err =
      rc < 0 ? DG_H5_RAISE(DG_ERR_INPUT, "cannot read attribute '%s' in '%s'", name, path) : DG_OK;
  if (mt >= 0)
    H5Tclose(mt);
  H5Aclose(a);
  buf[n] = '\0';
  return err;
}

dg_error dg_h5io_write(hid_t loc, const char *name, hid_t mtype, int rank,
                       const uint64_t *dims, const void *data, const char *path) {
  hsize_t d[2] = {dims[0], rank > 1 ? dims[1] : 1};
  hid_t space = H5Screate_simple(rank, d, NULL);
  hid_t set = space >= 0 ? H5Dcreate2(loc, name, mtype, space, H5P_DEFAULT, H5P_DEFAULT,
                                      H5P_DEFAULT)
                         : -1;
  herr_t rc = set >= 0 ? H5Dwrite(set, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) : -1;
  dg_error err =
      rc < 0 ? DG_H5_RAISE(DG_ERR_IO, "cannot write dataset '%s' to '%s'", name, path) : DG_OK;
  if (set >= 0)
    H5Dclose(set);
  if (space >= 0)
    H5Sclose(space);
  return err;
}

#endif
