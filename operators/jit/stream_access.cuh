#ifndef DG_LD_NC
#define DG_LD_NC(p) __ldg(p)
#define DG_LD_CS(p) __ldcs(p)
#define DG_ST_CS(p, v) __stcs(p, v)
#endif
