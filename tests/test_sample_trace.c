/* test_sample_trace.c — a sample holds none of the true game's generator (issue 33): in every game, the
 * generator inside a sample (session_sample) is neither the true game's nor any state of it past or
 * future, two sample seeds give two generators, and the sample's seed line is not the true seed.
 *
 * The generator is found in the state's bytes without knowing the game's layout: a PCG32 pair
 * {state, odd inc} whose state the game's seed reaches, on the stream its inc names, within a few
 * thousand steps (the deal and a few decisions draw far fewer). */
#include <stdbool.h>
#include <string.h>

#include "check.h"
#include <meeple/registry.h>
#include <meeple/rng.h>
#include <meeple/session.h>

#define FIND_STEPS 20000   /* draws the deal and the first decisions may take */
#define NEAR_STEPS 200000  /* a sample's generator is not this close to the true one, either way */

static rng word_pair(const void *st, size_t at) {
    rng r;
    memcpy(&r, (const unsigned char *)st + at, sizeof r);
    return r;
}

/* Whether the generator `from` reaches `state` within `steps` draws. */
static bool reaches(rng from, uint64_t state, int steps) {
    for (int i = 0; i <= steps; i++, rng_next(&from))
        if (from.state == state) return true;
    return false;
}

/* The offset of the game's generator in `st`, dealt from `seed`; (size_t)-1 when none is found. */
static size_t find_generator(const game_def *def, const void *st, uint64_t seed) {
    for (size_t at = 0; at + sizeof(rng) <= def->state_size; at += sizeof(uint64_t)) {
        rng pair = word_pair(st, at), from;
        if (!(pair.inc & 1) || pair.state == 0) continue;
        rng_seed(&from, seed, pair.inc >> 1);
        if (from.inc == pair.inc && reaches(from, pair.state, FIND_STEPS)) return at;
    }
    return (size_t)-1;
}

static session *sample_of(const session *s, int viewer, uint64_t seed) {
    session *c = session_clone(s);
    CHECK(c != NULL, "out of memory");
    session_sample(c, viewer, seed);
    return c;
}

static void generator_is_the_samples_own(const game_def *def, uint64_t seed) {
    meeple_reason why = {{0}};
    session *s = session_new(def, 0, NULL, seed, &why);
    CHECK(s != NULL, "%s: %s", def->name, why.text);
    rng pick;
    rng_seed(&pick, seed, 7);
    session_playout(s, &pick, 12, 0);
    size_t at = find_generator(def, s->now, seed);
    CHECK(at != (size_t)-1, "%s seed %llu: no generator found in the state", def->name, (unsigned long long)seed);
    rng truth = word_pair(s->now, at), dealt;
    rng_seed(&dealt, seed, truth.inc >> 1);
    int viewer = def->to_move(s->now);
    session *a = sample_of(s, viewer, 1), *b = sample_of(s, viewer, 2);
    rng ga = word_pair(a->now, at), gb = word_pair(b->now, at);
    CHECK(ga.inc == truth.inc, "%s: a sample's generator left the game's stream", def->name);
    CHECK(!reaches(dealt, ga.state, NEAR_STEPS),
          "%s seed %llu: the sample's generator is the true game's (%s)", def->name, (unsigned long long)seed,
          ga.state == truth.state ? "the same state" : "a state of it, past or future");
    CHECK(ga.state != gb.state, "%s: two sample seeds, one generator", def->name);
    CHECK(a->seed != seed && b->seed != seed, "%s: the sample names the true seed", def->name);
    session_free(a);
    session_free(b);
    session_free(s);
}

int main(void) {
    for (int g = 0; g < meeple_game_count; g++)
        for (uint64_t seed = 1; seed <= 40; seed += 13) generator_is_the_samples_own(meeple_games[g], seed);
    printf("test_sample_trace: ok\n");
    return 0;
}
