#ifndef DG_DMMA /* D += A B on the fp64 tensor cores, m8n8k4, m16n8k4 */
#define DG_DMMA(d0, d1, a, b) asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};" : "+d"(d0), "+d"(d1) : "d"(a), "d"(b))
#define DG_DMMA16(d0, d1, d2, d3, a0, a1, b) asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};" : "+d"(d0), "+d"(d1), "+d"(d2), "+d"(d3) : "d"(a0), "d"(a1), "d"(b))
#endif
