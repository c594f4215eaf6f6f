/* install_consumer.c — a program built against an installed meeple with `pkg-config meeple`: it plays
 * a seeded game of Babel to its end by the core's C interface alone, as a search engine in C would, with
 * every public header included and the common names meeple uses inside left to it. */
#include <stdio.h>
#include <stdlib.h>

#include <meeple/game.h>
#include <meeple/registry.h>
#include <meeple/rng.h>
#include <meeple/session.h>
#include <meeple/tree.h>

/* Names the public headers leave to the program: meeple's own of these are internal (core/rules/rules.h),
 * and each of these would clash with a declaration or a macro of that name. */
typedef const char *reason;
static int deny(int x) { return x; }
static const reason split_words = "mine", bytes_are_bools = "mine too";

int main(void) {
    const game_def *def = game_find("babel");
    if (!def) return 1;
    param_value params[MEEPLE_MAX_PARAMS];
    params_defaults(def, params); /* every parameter at the game's default */
    void *st = calloc(1, def->state_size);
    action_t acts[MEEPLE_MAX_ACTIONS];
    if (!st) return 1;
    def->setup(st, 2, params, 7);
    unsigned long long r = 7, decisions = 0;
    while (!def->is_over(st)) {
        int n = def->legal(st, acts);
        r = r * 6364136223846793005ULL + 1442695040888963407ULL;
        def->apply(st, acts[(r >> 33) % (unsigned long long)n]);
        decisions++;
    }
    int scores[MEEPLE_MAX_PLAYERS];
    def->scores(st, scores);
    if (decisions < 20) return 1; /* a real game, not one over before it began */
    if (deny(0) || !split_words[0] || !bytes_are_bools[0]) return 1;
    printf("babel over after %llu decisions: %d to %d\n", decisions, scores[0], scores[1]);
    free(st);
    return 0;
}
