/* rng.c — PCG32: 64-bit LCG state, xorshift-rotate output. Small, fast, and reproducible everywhere. */
#include "rules/rng_step.h"

#include <stddef.h>
#include <string.h>

void rng_seed(rng *r, uint64_t seed, uint64_t stream) {
    r->state = 0;
    r->inc = (stream << 1) | 1u;
    rng_next(r);
    r->state += seed;
    rng_next(r);
}

uint32_t rng_next(rng *r) { return rng_step(r); }

uint64_t rng_next64(rng *r) {
    uint64_t high = rng_step(r); /* drawn first, apart: the order of a |'s operands is the compiler's */
    return high << 32 | rng_step(r);
}

uint32_t rng_below(rng *r, uint32_t bound) { return rng_step_below(r, bound); }

double rng_float(rng *r) {
    uint64_t high = rng_step(r); /* first, as in rng_next64 */
    uint64_t bits = (high << 21) ^ (rng_step(r) >> 11);
    return (double)(bits & ((1ULL << 53) - 1)) * (1.0 / 9007199254740992.0); /* 2^-53 */
}

const char *rng_between(rng *r, int64_t lo, int64_t hi, int64_t *out) {
    if (lo > hi) return "interval is empty";
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    if (span >= 0xffffffffu) return "interval is too large";
    *out = lo + (int64_t)rng_step_below(r, (uint32_t)span + 1);
    return NULL;
}

void rng_shuffle_bytes(rng *r, uint8_t *items, int n) {
    rng local = *r; /* in registers: a byte written to items might be the generator's, as far as C knows */
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rng_step_below(&local, (uint32_t)i + 1);
        uint8_t t = items[i];
        items[i] = items[j];
        items[j] = t;
    }
    *r = local;
}

/* A counting sort: the values are card kinds, a few dozen at most (a sample makes one per search
 * iteration: only the counts up to the highest are cleared). */
static void sort_bytes(uint8_t *items, int n) {
    int count[256], top = 0;
    for (int i = 0; i < n; i++)
        if (items[i] > top) top = items[i];
    memset(count, 0, sizeof *count * (size_t)(top + 1));
    for (int i = 0; i < n; i++) count[items[i]]++;
    for (int v = 0, i = 0; v <= top; i += count[v], v++) memset(items + i, v, (size_t)count[v]);
}

void rng_shuffle_multiset(rng *r, uint8_t *items, int n) {
    sort_bytes(items, n);
    rng_shuffle_bytes(r, items, n);
}

/* ---- rng_derive: SipHash-2-4 of one 64-bit word, written from the algorithm's description
 * (Aumasson and Bernstein, 2012). The key's second half is a fixed word: the secret is `key`. ---- */

static uint64_t rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

static void sip_rounds(uint64_t v[4], int n) {
    for (int i = 0; i < n; i++) {
        v[0] += v[1], v[1] = rotl(v[1], 13), v[1] ^= v[0], v[0] = rotl(v[0], 32);
        v[2] += v[3], v[3] = rotl(v[3], 16), v[3] ^= v[2];
        v[0] += v[3], v[3] = rotl(v[3], 21), v[3] ^= v[0];
        v[2] += v[1], v[1] = rotl(v[1], 17), v[1] ^= v[2], v[2] = rotl(v[2], 32);
    }
}

uint64_t rng_derive(uint64_t key, uint64_t what) {
    const uint64_t k1 = 0x6d65657066c652d5ULL;
    uint64_t v[4] = {key ^ 0x736f6d6570736575ULL, k1 ^ 0x646f72616e646f6dULL, key ^ 0x6c7967656e657261ULL,
                     k1 ^ 0x7465646279746573ULL};
    const uint64_t last = (uint64_t)8 << 56; /* the final block: the message's length, 8 bytes */
    v[3] ^= what;
    sip_rounds(v, 2);
    v[0] ^= what;
    v[3] ^= last;
    sip_rounds(v, 2);
    v[0] ^= last;
    v[2] ^= 0xff;
    sip_rounds(v, 4);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}
