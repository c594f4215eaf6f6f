/* timing.h — the one clock meeple measures time by: monotonic, in milliseconds, so a limit or a
 * progress line never jumps when the wall clock is set. */
#ifndef MEEPLE_TIMING_H
#define MEEPLE_TIMING_H

/* Milliseconds on CLOCK_MONOTONIC (since an unspecified start: compare two readings only). */
double timing_now_ms(void);
/* Milliseconds of CPU this thread has used (0 where the system cannot say): for figures that should
 * not count the time a loaded machine gave to others. */
double timing_thread_cpu_ms(void);

#endif
