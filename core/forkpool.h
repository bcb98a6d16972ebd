/* Work items in forked worker processes.
 *
 * Why processes: NVRTC serializes the compiles of one process.  On the
 * H200 machine (16 cores), 23 fp64 N = 7 modules took 7.9 s on 16 threads
 * (one core busy: 7.2 s of user time), 6.8 s on 4, and 1.1 s in 16
 * processes; a tuning's first wave of 90 modules 28.2 s on threads, 2.0 s
 * in processes (tuning/RESULTS.md, session 23).
 *
 * The cost: fork copies the parent's page tables, about 75 ms a fork of a
 * process holding 7 GB there, so the pool forks no more workers than
 * items.  A worker must not use what fork does not carry over: the CUDA
 * context, other threads' locks (it runs with the forking thread only). */
#ifndef DG_CORE_FORKPOOL_H
#define DG_CORE_FORKPOOL_H

/* work(i, arg): item i's job in a worker; returns 1 where it did its
 * work (counted), 0 otherwise.  It must leave every outcome in files or
 * other shared state: the worker's memory goes when it exits. */
typedef int (*dg_forkpool_work_fn)(int i, void *arg);

/* Run work(i, arg) for i = 0..n-1 in up to `workers` forked processes
 * (<= 0: one a processor), which take items from a shared counter;
 * returns how many items' work returned 1.  Where no item finishes for
 * stall_s seconds, the workers left are killed (a hung worker must not
 * hang the caller).  The items no worker took (none could be forked, or
 * they died or were killed first) run here, one after another.  *forked
 * (may be NULL) receives the number of workers forked. */
int dg_forkpool_run(int n, int workers, double stall_s, dg_forkpool_work_fn work, void *arg,
                    int *forked);

#endif
