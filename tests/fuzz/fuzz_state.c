/* fuzz_state.c — a save's start state with a few bytes changed, as a crafted save would carry it. The
 * input names a real position and the changes: byte 0 the game, byte 1 the player count and seed, byte 2
 * how many random decisions to play from the deal; then (offset low, offset high, value) triples, each
 * setting one byte of the state. The result goes through session_load as a `start` line, so this is
 * fuzz_load with the mutations where they matter: most changed states are nearly right, and it is the
 * nearly right ones that validate must tell from the right ones. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include <meeple/registry.h>

/* The position to change: a deal, and `steps` random decisions from it. */
static session *position(const game_def *def, uint8_t setup, uint8_t steps) {
    int counts = def->max_players - def->min_players + 1;
    param_value params[MEEPLE_MAX_PARAMS];
    params_defaults(def, params);
    reason why;
    session *s = session_new(def, def->min_players + setup % counts, params, setup / counts, &why);
    if (!s) fuzz_fail("%s: no deal: %s", def->name, why.text);
    rng r;
    rng_seed(&r, setup, steps);
    if (session_playout(s, &r, steps, 0) < 0) fuzz_fail("out of memory");
    return s;
}

static char *save_text(const game_def *def, const unsigned char *bytes) {
    size_t head = 64;
    char *text = malloc(head + 2 * def->state_size + 2);
    if (!text) return NULL;
    int used = snprintf(text, head, "meeple save 1\ngame %s\nseed 1\nstart ", def->name);
    for (size_t i = 0; i < def->state_size; i++) snprintf(text + used + 2 * i, 3, "%02x", bytes[i]);
    strcpy(text + used + 2 * def->state_size, "\n");
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 3) return 0;
    const game_def *def = meeple_games[data[0] % meeple_game_count];
    session *real = position(def, data[1], data[2]);
    unsigned char *bytes = real->now;
    for (size_t i = 3; i + 3 <= size; i += 3)
        bytes[(data[i] | (size_t)data[i + 1] << 8) % def->state_size] = data[i + 2];
    char *text = save_text(def, bytes);
    session_free(real);
    if (!text) return 0;
    fuzz_load_text(text, "state");
    return 0;
}
