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

/* A multiset shuffle reads which bytes there are, never their order: the same cards in two orders
 * (a true hidden order and another) give one result for one seed, a shuffle of the same cards. */
static void multiset_shuffle_ignores_the_order_given(void) {
    uint8_t a[50], b[50], count[8] = {0};
    for (int i = 0; i < 50; i++) a[i] = b[49 - i] = (uint8_t)(i * 7 % 8);
    for (int i = 0; i < 50; i++) count[a[i]]++;
    rng r1, r2;
    rng_seed(&r1, 5, 3);
    rng_seed(&r2, 5, 3);
    rng_shuffle_multiset(&r1, a, 50);
    rng_shuffle_multiset(&r2, b, 50);
    CHECK(memcmp(a, b, 50) == 0, "two orders of the same cards gave two shuffles");
    CHECK(r1.state == r2.state, "two orders of the same cards took different draws");
    for (int i = 0; i < 50; i++) count[a[i]]--;
    for (int v = 0; v < 8; v++) CHECK(count[v] == 0, "the shuffle changed how many %d there are", v);
    uint8_t sorted[50];
    for (int i = 0; i < 50; i++) sorted[i] = (uint8_t)(i * 8 / 50);
    memcpy(b, sorted, 50);
    rng_seed(&r2, 6, 3);
    rng_shuffle_multiset(&r2, b, 50);
    CHECK(memcmp(b, sorted, 50) != 0, "a multiset shuffle left the cards sorted");
}

static void same_seed_same_stream(void) {
    rng r1, r2;
    rng_seed(&r1, 123456789, 3);
    rng_seed(&r2, 123456789, 3);
    for (int i = 0; i < 1000; i++) CHECK(rng_next(&r1) == rng_next(&r2), "diverged at %d", i);
}

/* The seed a game's sample draws for its re-dealt state: the first draw is the high half, as the games
 * drew it before the order was written down (the order of a |'s operands is the compiler's). */
static void next64_takes_the_first_draw_high(void) {
    rng r, copy;
    rng_seed(&r, 99, 7);
    copy = r;
    uint64_t high = rng_next(&copy), low = rng_next(&copy);
    uint64_t got = rng_next64(&r);
    CHECK(got == (high << 32 | low) && memcmp(&r, &copy, sizeof r) == 0, "got 0x%016llx", (unsigned long long)got);
}

/* The Lua generators' math.random() (ctx.rng:random(), the module's rng): the same numbers for a seed
 * as before they shared rng_float, the first draw giving the high bits. */
static void float_draws_are_unchanged(void) {
    static const double expected[4] = {0.63989155972031619, 0.40386663125731859, 0.68485712692835132,
                                       0.21433299403012762};
    rng r;
    rng_seed(&r, 2024, 0xb07);
    for (int i = 0; i < 4; i++) {
        double got = rng_float(&r);
        CHECK(got == expected[i], "draw %d: got %.17g, want %.17g", i, got, expected[i]);
    }
}

/* math.random(m, n)'s: the same integers for a seed, the widest interval a 32-bit draw reaches, and an
 * empty or too wide interval refused with nothing drawn. */
static void interval_draws_are_unchanged(void) {
    static const int64_t expected[6] = {1, 3, -1, -2, 1, 1};
    rng r;
    rng_seed(&r, 2024, 0xb07);
    int64_t v;
    for (int i = 0; i < 6; i++) {
        CHECK(!rng_between(&r, -3, 3, &v) && v == expected[i], "draw %d: got %lld, want %lld", i,
              (long long)v, (long long)expected[i]);
    }
    CHECK(!rng_between(&r, INT64_MIN, INT64_MIN + 0xfffffffeLL, &v) && v - INT64_MIN == 920553198,
          "the widest interval: %lld", (long long)(v - INT64_MIN));
    rng before = r;
    v = 42;
    const char *bad = rng_between(&r, 2, 1, &v);
    CHECK(bad && strcmp(bad, "interval is empty") == 0 && v == 42, "2..1: %s", bad ? bad : "drawn");
    bad = rng_between(&r, 0, 0xffffffffLL, &v);
    CHECK(bad && strcmp(bad, "interval is too large") == 0 && v == 42, "0..2^32-1: %s", bad ? bad : "drawn");
    CHECK(memcmp(&before, &r, sizeof r) == 0, "a refused interval drew nothing");
}

int main(void) {
    pcg32_matches_the_reference_sequence();
    below_stays_in_bounds_and_is_roughly_uniform();
    shuffle_is_a_permutation_and_depends_on_the_seed();
    multiset_shuffle_ignores_the_order_given();
    same_seed_same_stream();
    next64_takes_the_first_draw_high();
    float_draws_are_unchanged();
    interval_draws_are_unchanged();
    printf("test_rng: all passed\n");
    return 0;
}
