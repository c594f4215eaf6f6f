/* rng.c — PCG32: 64-bit LCG state, xorshift-rotate output. Small, fast, and reproducible everywhere. */
#include "rng.h"

#define PCG_MULTIPLIER 6364136223846793005ULL

void rng_seed(rng *r, uint64_t seed, uint64_t stream) {
    r->state = 0;
    r->inc = (stream << 1) | 1u;
    rng_next(r);
    r->state += seed;
    rng_next(r);
}

uint32_t rng_next(rng *r) {
    uint64_t old = r->state;
    r->state = old * PCG_MULTIPLIER + r->inc;
    uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = (uint32_t)(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31));
}

uint32_t rng_below(rng *r, uint32_t bound) {
    uint64_t m = (uint64_t)rng_next(r) * bound;
    uint32_t low = (uint32_t)m;
    if (low < bound) {
        uint32_t threshold = -bound % bound;
        while (low < threshold) {
            m = (uint64_t)rng_next(r) * bound;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

void rng_shuffle_bytes(rng *r, uint8_t *items, int n) {
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rng_below(r, (uint32_t)i + 1);
        uint8_t t = items[i];
        items[i] = items[j];
        items[j] = t;
    }
}
