/* hotpath.h — small helpers the games' hot paths (legal-action generation, apply) share. */
#ifndef MEEPLE_HOTPATH_H
#define MEEPLE_HOTPATH_H

#include <stdint.h>

/* Keeps a rare path out of a hot function: inlined, its arrays and variables would cost the hot
 * function a larger frame and register saves on every call. ALWAYS_INLINED: a small function called
 * once an action inside a loop over a decision's actions, where a call costs as much as its work. */
#if defined(__GNUC__)
#define NOT_INLINED __attribute__((noinline))
#define ALWAYS_INLINED __attribute__((always_inline))
#else
#define NOT_INLINED
#define ALWAYS_INLINED
#endif

/* The lowest set bit's index of a mask that is not 0. */
static inline int lowest_bit64(uint64_t mask) {
#if defined(__GNUC__)
    return __builtin_ctzll(mask);
#else
    int i = 0;
    while (!(mask >> i & 1)) i++;
    return i;
#endif
}
static inline int lowest_bit(unsigned mask) { return lowest_bit64(mask); }

/* The highest set bit's index of a mask that is not 0. */
static inline int highest_bit(uint32_t mask) {
#if defined(__GNUC__)
    return 31 - __builtin_clz(mask);
#else
    int i = 31;
    while (!(mask >> i & 1)) i--;
    return i;
#endif
}

#endif
