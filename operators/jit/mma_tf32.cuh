#ifndef DG_TMMA /* D += A B, TF32 m16n8k8 with fp32 accumulation */
#define DG_TMMA(d0, d1, d2, d3, a, b0, b1) asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};" : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1))
#endif
#define DG_TF32_SPLIT(x, big, small) \
  do { \
    big = __float_as_uint(x) & 0xffffe000u; \
    small = __float_as_uint((x) - __uint_as_float(big)) & 0xffffe000u; \
  } while (0)
#define DG_TF32_SPLIT4(x0, x1, x2, x3, big, small) \
  do { \
    DG_TF32_SPLIT(x0, big[0], small[0]); \
    DG_TF32_SPLIT(x1, big[1], small[1]); \
    DG_TF32_SPLIT(x2, big[2], small[2]); \
    DG_TF32_SPLIT(x3, big[3], small[3]); \
  } while (0)
#define DG_TMMA3T(d0, d1, d2, d3, x0, x1, x2, x3, bb, bs) \
  do { \
    unsigned ab_[4], as_[4]; \
    DG_TF32_SPLIT4(x0, x1, x2, x3, ab_, as_); \
    DG_TMMA(d0, d1, d2, d3, as_, bb[0], bb[1]); \
    DG_TMMA(d0, d1, d2, d3, ab_, bs[0], bs[1]); \
    DG_TMMA(d0, d1, d2, d3, ab_, bb[0], bb[1]); \
  } while (0)
#define DG_TMMA2T(d0, d1, d2, d3, x0, x1, x2, x3, bb) /* bb: TF32 values */ \
  do { \
    unsigned ab_[4], as_[4]; \
    DG_TF32_SPLIT4(x0, x1, x2, x3, ab_, as_); \
    DG_TMMA(d0, d1, d2, d3, as_, bb[0], bb[1]); \
    DG_TMMA(d0, d1, d2, d3, ab_, bb[0], bb[1]); \
  } while (0)
#define DG_TMMA2(d0, d1, d2, d3, a, x0, x1) /* a: TF32 values */ \
  do { \
    unsigned bb0_, bs0_, bb1_, bs1_; \
    DG_TF32_SPLIT(x0, bb0_, bs0_); \
    DG_TF32_SPLIT(x1, bb1_, bs1_); \
    DG_TMMA(d0, d1, d2, d3, a, bs0_, bs1_); \
    DG_TMMA(d0, d1, d2, d3, a, bb0_, bb1_); \
  } while (0)
#define DG_TMMA3(d0, d1, d2, d3, ab, as, x0, x1) \
  do { \
    unsigned xb0_, xs0_, xb1_, xs1_; /* the split again in DG_TMMA2: the compiler shares it */ \
    DG_TF32_SPLIT(x0, xb0_, xs0_); \
    DG_TF32_SPLIT(x1, xb1_, xs1_); \
    (void)xs0_; (void)xs1_; \
    DG_TMMA(d0, d1, d2, d3, as, xb0_, xb1_); \
    DG_TMMA2(d0, d1, d2, d3, ab, x0, x1); \
  } while (0)
