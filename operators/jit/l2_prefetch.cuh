#ifndef DG_PREFETCH_L2 /* the test emulator defines it away */
#define DG_PREFETCH_L2(p) asm volatile("prefetch.global.L2 [%0];" :: "l"(p))
#endif
