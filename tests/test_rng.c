/* test_rng.c — the generator is PCG32 exactly (so seeds mean the same everywhere), and its helpers
 * are uniform and permute. */
#include <string.h>

#include "check.h"
#include <meeple/rng.h>

static void pcg32_matches_the_reference_sequence(void) {
    /* The reference implementation's demo: seed 42, stream 54. */
    static const uint32_t expected[6] = {0xa15c02b7, 0x7b47f409, 0xba1d3330,
                                         0x83d2f293, 0xbfa4784b, 0xcbed606e};
    rng r;
    rng_seed(&r, 42, 54);
    for (int i = 0; i < 6; i++) {
        uint32_t got = rng_next(&r);
        CHECK(got == expected[i], "output %d: got 0x%08x, want 0x%08x", i, got, expected[i]);
    }
}

static void below_stays_in_bounds_and_is_roughly_uniform(void) {
    rng r;
    rng_seed(&r, 7, 1);
    int counts[7] = {0};
    for (int i = 0; i < 70000; i++) {
        uint32_t v = rng_below(&r, 7);
        CHECK(v < 7, "rng_below(7) gave %u", v);
        counts[v]++;
    }
    for (int k = 0; k < 7; k++) CHECK(counts[k] > 9500 && counts[k] < 10500, "bucket %d has %d", k, counts[k]);
}

static void shuffle_is_a_permutation_and_depends_on_the_seed(void) {
    uint8_t a[60], b[60];
    for (int i = 0; i < 60; i++) a[i] = b[i] = (uint8_t)i;
    rng r1, r2;
    rng_seed(&r1, 1, 0);
    rng_seed(&r2, 2, 0);
    rng_shuffle_bytes(&r1, a, 60);
    rng_shuffle_bytes(&r2, b, 60);
    int seen[60] = {0};
    for (int i = 0; i < 60; i++) seen[a[i]]++;
    for (int i = 0; i < 60; i++) CHECK(seen[i] == 1, "card %d appears %d times", i, seen[i]);
    CHECK(memcmp(a, b, 60) != 0, "two seeds gave the same shuffle");
}

static void same_seed_same_stream(void) {
    rng r1, r2;
    rng_seed(&r1, 123456789, 3);
    rng_seed(&r2, 123456789, 3);
    for (int i = 0; i < 1000; i++) CHECK(rng_next(&r1) == rng_next(&r2), "diverged at %d", i);
}

int main(void) {
    pcg32_matches_the_reference_sequence();
    below_stays_in_bounds_and_is_roughly_uniform();
    shuffle_is_a_permutation_and_depends_on_the_seed();
    same_seed_same_stream();
    printf("test_rng: all passed\n");
    return 0;
}
