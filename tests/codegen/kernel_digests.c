/* operators.kernel_digests: the generated modules of the shipped physics, for
 * every variant of the tuner's full search space, hashed and compared with
 * tests/codegen/kernel_digests.txt.
 *
 * Why: a change that is only structural (the generator split into files,
 * fixed device code moved into embedded source files, the knob table) must
 * leave every kernel byte-identical, and the tuned performance of the
 * shipped rows rests on exactly that text.  A digest per (physics, order,
 * target, precision) over all variants makes any change to any kernel
 * visible; `dump DIR` writes the modules themselves for a source diff of
 * the change.  When generated code is meant to change, regenerate the file
 * (`write`) in the same commit and say why in its message.
 *
 * usage: test_kernel_digests check|write DIGESTS flux...
 *        test_kernel_digests dump DIR flux...                              */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "dg/bernstein.h"
#include "dg/refelem.h"
#include "operators/codegen.h"
#include "operators/flux_affine.h"
#include "operators/gen_wave_speed.h"
#include "tests/codegen/physics_file.h"
#include "tests/digest_file.h"
#include "tuning/tuner.h"

typedef digest_run run;

/* The module text with every long floating literal (the operator matrices'
 * entries, printed %.17e / %.9ef) cut to 10 significant digits.  Why: the
 * matrices come from LAPACK, whose OpenBLAS kernels are chosen per CPU
 * (Intel AVX-512 and AMD Zen machines differ in the last bits of V^-1, D,
 * LIFT), so the full digits would tie the digests to the machine; a change
 * of a matrix that matters is far larger than 1e-10, and every other byte
 * of the text is hashed as it is.  (Rounded, not cut: many entries are
 * rationals, 0.3 printed 2.9999999999999998e-01 or 3.0000000000000004e-01.)  An
 * entry below 1e-11 in magnitude is an exact zero spoilt by round-off (the
 * matrices' entries are O(1)): 0.  (A literal whose two machine values
 * round apart at the 10th digit is possible, about once in 1e5 literals per
 * CPU family; regenerate on the machine of CI then.)  Caller frees. */
static char *normalized(const char *src) {
  size_t n = strlen(src);
  char *out = malloc(n + 1);
  CHECK(out != NULL, "out of memory");
  size_t o = 0;
  for (size_t i = 0; i < n;) {
    if (src[i] != '-' && !isdigit((unsigned char)src[i])) { /* most bytes: no literal starts */
      out[o++] = src[i++];
      continue;
    }
    int start = (i == 0 || !(isalnum((unsigned char)src[i - 1]) || src[i - 1] == '_' ||
                              src[i - 1] == '.'));
    size_t m = i + (src[i] == '-'); /* the mantissa's first digit */
    if (start && isdigit((unsigned char)src[m]) && src[m + 1] == '.') {
      size_t digits = 0;
      while (isdigit((unsigned char)src[m + 2 + digits]))
        digits++;
      size_t e = m + 2 + digits; /* 'e' */
      if (digits >= 8 && src[e] == 'e' && (src[e + 1] == '-' || src[e + 1] == '+') &&
          isdigit((unsigned char)src[e + 2])) {
        size_t end = e + 2;
        int exponent = 0;
        while (isdigit((unsigned char)src[end]))
          exponent = 10 * exponent + (src[end++] - '0');
        if ((src[e + 1] == '-' && exponent >= 12) || src[m] == '0') {
          out[o++] = '0'; /* |v| < 1e-11, or +-0: a zero, maybe spoilt by round-off */
        } else {
          /* rounded to 10 digits as text (no printf per literal in 40,000
           * modules): d[0] the first digit, d[1..] those after the point */
          char d[32];
          size_t nd = 1 + (digits < 31 ? digits : 30);
          d[0] = src[m];
          memcpy(d + 1, src + m + 2, nd - 1);
          int ex = src[e + 1] == '-' ? -exponent : exponent;
          size_t kept = nd < 10 ? nd : 10;
          if (nd > 10 && d[10] >= '5') { /* round half up, carrying */
            size_t k = 10;
            while (k > 0 && d[k - 1] == '9')
              d[--k] = '0';
            if (k > 0) {
              d[k - 1]++;
            } else { /* 9.99...9 -> 1.00...0 e+1 */
              d[0] = '1';
              ex++;
            }
          }
          if (src[i] == '-')
            out[o++] = '-';
          out[o++] = d[0];
          out[o++] = '.';
          memcpy(out + o, d + 1, kept - 1);
          o += kept - 1;
          out[o++] = 'e';
          out[o++] = ex < 0 ? '-' : '+';
          int a = ex < 0 ? -ex : ex;
          if (a >= 100)
            out[o++] = (char)('0' + a / 100);
          out[o++] = (char)('0' + a / 10 % 10);
          out[o++] = (char)('0' + a % 10);
        }
        i = end;
        continue;
      }
    }
    out[o++] = src[i++];
  }
  out[o] = 0;
  return out;
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* The configurations of one target and size: the default, every layout,
 * every volume variant and every surface block of the tuner's space in
 * mode (each on the default's other knobs, as its staged rounds compose
 * them). */
static int variants(int cuda, dg_tune_mode mode, int Np, int nfnfp, int affine,
                    dg_kernel_config **out) {
  dg_tune_space sp;
  MUST(dg_tune_space_create(cuda, mode, Np, nfnfp, &sp));
  if (!affine)
    dg_tune_space_drop_bernstein(&sp);
  int cap = 1 + sp.nlayouts + sp.nvolume + sp.nface, n = 0;
  dg_kernel_config *c = calloc((size_t)cap, sizeof *c);
  CHECK(c != NULL, "out of memory");
  c[n++] = dg_kernel_config_default();
  for (int i = 0; i < sp.nlayouts; i++) {
    c[n] = dg_kernel_config_default();
    dg_tune_apply_layout(&c[n++], &sp.layouts[i]);
  }
  for (int i = 0; i < sp.nvolume; i++) {
    c[n] = dg_kernel_config_default();
    dg_tune_apply_volume(&c[n++], &sp.volume[i]);
  }
  for (int i = 0; i < sp.nface; i++) {
    c[n] = dg_kernel_config_default();
    c[n++].face_threads = sp.face_threads[i];
  }
  dg_tune_space_free(&sp);
  *out = c;
  return n;
}

static void dump_module(const run *r, const char *tag, int v, const char *src) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s_v%03d.%s", r->dir, tag, v,
           strstr(tag, "_cuda_") ? "cu" : "c");
  digest_dump(path, src);
}

/* One (physics, order, target, precision): the digest of all its modules. */
static void digest_case(run *r, const physics_file *pf, const char *name, int N, int cuda,
                        int is_float, dg_tune_mode mode) {
  dg_refelem *re = NULL;
  MUST(dg_refelem_create(pf->dim, N, &re));
  dg_bernstein *bb = NULL;
  int affine = dg_flux_check_affine(&pf->ph, NULL, NULL) == DG_OK;
  dg_error_clear();
  if (affine)
    MUST(dg_bernstein_create(re, &bb));
  dg_element_ops el = dg_element_ops_of(re), el_bb = bb ? dg_element_ops_of_bernstein(re, bb) : el;
  dg_kernel_config *cfgs = NULL;
  int n = variants(cuda, mode, re->Np, re->Nfaces * re->Nfp, affine, &cfgs);
  char tag[200];
  snprintf(tag, sizeof tag, "%s_N%d_%s_%s_%s", name, N, cuda ? "cuda" : "c",
           is_float ? "float" : "double", mode == DG_TUNE_FULL ? "full" : "auto");
  dg_hash h;
  dg_hash_init(&h);
  int made = 0;
  for (int v = 0; v < n; v++) {
    dg_generated g;
    if (dg_codegen_generate(cuda ? DG_CODEGEN_CUDA : DG_CODEGEN_C, cfgs[v].basis ? &el_bb : &el,
                            &pf->ph, is_float, &cfgs[v], &g) != DG_OK) {
      dg_error_clear(); /* refused for this size, as the tuner's candidates are */
      dg_hash_update_field(&h, "refused");
      continue;
    }
    char *text = normalized(g.source);
    dg_hash_update_field(&h, text);
    free(text);
    if (strcmp(r->mode, "dump") == 0)
      dump_module(r, tag, v, g.source);
    made++;
    dg_generated_free(&g);
  }
  unsigned char d[DG_HASH_SIZE];
  char hex[DG_HASH_HEX_SIZE];
  dg_hash_final(&h, d);
  dg_hash_hex(d, DG_HASH_SIZE, hex);
  CHECK(r->nlines < DIGEST_MAX_LINES, "too many cases");
  snprintf(r->lines[r->nlines++], DIGEST_LINE, "%s %d/%d %s", tag, made, n, hex);
  free(cfgs);
  dg_bernstein_destroy(&bb);
  dg_refelem_destroy(&re);
}

/* The step-rate module of a physics that declares wave_speed (gen_wave_speed.h):
 * its variants are the state's layouts and, for affine physics, the
 * Bernstein-Bezier basis. */
static void digest_wave_speed(run *r, const physics_file *pf, const char *name, int N, int cuda,
                              int is_float) {
  const dg_flux_node *speed = dg_flux_wave_speed(pf->prog, NULL);
  if (!speed)
    return;
  dg_refelem *re = NULL;
  MUST(dg_refelem_create(pf->dim, N, &re));
  int affine = dg_flux_check_affine(&pf->ph, NULL, NULL) == DG_OK;
  dg_error_clear();
  char tag[200];
  snprintf(tag, sizeof tag, "%s_wave_speed_N%d_%s_%s", name, N, cuda ? "cuda" : "c",
           is_float ? "float" : "double");
  dg_hash h;
  dg_hash_init(&h);
  int n = 0;
  for (int v = 0; v < (affine ? 3 : 2); v++, n++) {
    dg_wave_speed_spec sp = {pf->dim, N, re->Np, re->Np, v == 1 ? DG_LAYOUT_ELEMENT_MAJOR
                                                                : DG_LAYOUT_FIELD_MAJOR,
                             is_float, v == 2, &pf->ph, speed};
    char *src = NULL;
    MUST(dg_gen_wave_speed(cuda ? DG_CODEGEN_CUDA : DG_CODEGEN_C, &sp, &src));
    dg_hash_update_field(&h, src);
    if (strcmp(r->mode, "dump") == 0)
      dump_module(r, tag, v, src);
    free(src);
  }
  unsigned char d[DG_HASH_SIZE];
  char hex[DG_HASH_HEX_SIZE];
  dg_hash_final(&h, d);
  dg_hash_hex(d, DG_HASH_SIZE, hex);
  CHECK(r->nlines < DIGEST_MAX_LINES, "too many cases");
  snprintf(r->lines[r->nlines++], DIGEST_LINE, "%s %d/%d %s", tag, n, n, hex);
  dg_refelem_destroy(&re);
}

int main(int argc, char **argv) {
  CHECK(argc >= 4, "usage: %s check|write|dump DIGESTS|DIR flux...", argv[0]);
  static run r;
  digest_start(&r, argv[1], argv[2]);
  /* orders: the lowest, one where the tensor-core tiles are partial, and
   * (3D) one with more than one k-step; both precisions on cuda (float
   * takes the split-TF32 paths), double on c.  The full space (about 1,200
   * variants) at N = 3, the tuner's auto space (about 130) elsewhere: the
   * full one at every order would take minutes (1 ms a module). */
  const int orders[] = {1, 3, 5};
  for (int a = 3; a < argc; a++) {
    physics_file pf = physics_file_load(argv[a]);
    char name[128];
    snprintf(name, sizeof name, "%s", base_name(argv[a]));
    name[strcspn(name, ".")] = 0;
    for (int o = 0; o < 3; o++) {
      if (pf.dim < 3 && orders[o] == 5)
        continue;
      dg_tune_mode mode = orders[o] == 3 ? DG_TUNE_FULL : DG_TUNE_AUTO;
      digest_case(&r, &pf, name, orders[o], 1, 0, mode);
      digest_case(&r, &pf, name, orders[o], 1, 1, mode);
      digest_case(&r, &pf, name, orders[o], 0, 0, mode);
    }
    for (int o = 0; o < 2; o++) { /* the wave speed's module: N = 1, 3 */
      digest_wave_speed(&r, &pf, name, orders[o], 1, 0);
      digest_wave_speed(&r, &pf, name, orders[o], 1, 1);
      digest_wave_speed(&r, &pf, name, orders[o], 0, 0);
    }
    physics_file_free(&pf);
  }
  digest_finish(&r, argv[2],
                "# operators.kernel_digests: <physics>_N<order>_<target>_<precision> "
                "<modules generated>/<variants> <sha256 over them>\n"
                "# regenerate: test_kernel_digests write <this file> <shipped .flux files>\n");
  return expect_finish();
}
