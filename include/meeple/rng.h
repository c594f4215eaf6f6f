/* rng.h — the one source of randomness: PCG32 (O'Neill 2014), seeded, stored inside each game state. */
#ifndef MEEPLE_RNG_H
#define MEEPLE_RNG_H

#include <stdint.h>

typedef struct rng {
    uint64_t state;
    uint64_t inc;
} rng;

void rng_seed(rng *r, uint64_t seed, uint64_t stream);
uint32_t rng_next(rng *r);
/* 64 random bits from two draws, the first giving the high half (a new seed drawn from a generator). */
uint64_t rng_next64(rng *r);
/* A uniform integer in [0, bound); bound > 0. Unbiased (Lemire's multiply-and-reject). */
uint32_t rng_below(rng *r, uint32_t bound);
/* A uniform number in [0, 1) from 53 random bits, all a double holds (two draws: the first gives the
 * high bits). math.random()'s contract, for the Lua sides' generators. */
double rng_float(rng *r);
/* A uniform integer in [lo, hi] into *out: math.random(m, n)'s contract. NULL, or what is wrong with
 * the interval ("interval is empty", "interval is too large": more than 2^32 - 1 values) with nothing
 * drawn and *out untouched. */
const char *rng_between(rng *r, int64_t lo, int64_t hi, int64_t *out);
/* Fisher–Yates shuffle of n bytes. */
void rng_shuffle_bytes(rng *r, uint8_t *items, int n);
/* The same shuffle from the bytes sorted: the result depends on which bytes there are and the draws,
 * never on the order they came in. A sample deals hidden cards this way: shuffled from their true order,
 * whoever knows the seed could run the shuffle backwards and read them. */
void rng_shuffle_multiset(rng *r, uint8_t *items, int n);

/* A seed for `what` (a game's number, a seat's purpose) from the secret `key` (a match's or a game's
 * seed), through a keyed hash (SipHash-2-4). Unlike a plain mix it cannot be run backwards: whoever
 * learns a derived seed — a bot can rebuild its own generator from what it draws — learns nothing of
 * `key` nor of the seeds derived from it for anything else. */
uint64_t rng_derive(uint64_t key, uint64_t what);

#endif
