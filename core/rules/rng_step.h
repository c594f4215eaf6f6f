/* rng_step.h — PCG32's step and its bounded draw, inline: a search playout's tie-breaks draw some three
 * numbers a decision, where a call costs as much as the draw. rng.c's functions are these. */
#ifndef MEEPLE_RNG_STEP_H
#define MEEPLE_RNG_STEP_H

#include <meeple/rng.h>

#define RNG_PCG_MULTIPLIER 6364136223846793005ULL

/* One PCG32 step. */
static inline uint32_t rng_step(rng *r) {
    uint64_t old = r->state;
    r->state = old * RNG_PCG_MULTIPLIER + r->inc;
    uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = (uint32_t)(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31));
}

/* rng_below: Lemire's multiply-and-reject. */
static inline uint32_t rng_step_below(rng *r, uint32_t bound) {
    uint64_t m = (uint64_t)rng_step(r) * bound;
    uint32_t low = (uint32_t)m;
    if (low < bound) {
        uint32_t threshold = -bound % bound;
        while (low < threshold) {
            m = (uint64_t)rng_step(r) * bound;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

#endif
