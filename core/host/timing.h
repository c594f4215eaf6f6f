/* timing.h — the one clock meeple measures time by: monotonic, in milliseconds, so a limit or a
 * progress line never jumps when the wall clock is set. */
#ifndef MEEPLE_TIMING_H
#define MEEPLE_TIMING_H

/* Milliseconds on CLOCK_MONOTONIC (since an unspecified start: compare two readings only). */
double timing_now_ms(void);

#endif
