/* registry.c — one explicit list of games (no constructor tricks); the conformance test walks it. */
#include "registry.h"

#include <string.h>

#include "games/babel.h"
#include "games/bohnanza.h"
#include "games/citadels.h"
#include "games/rabohnzel.h"

const game_def *const meeple_games[] = {
    &babel_game,
    &citadels_game,
    &bohnanza_game,
    &rabohnzel_game,
};
const int meeple_game_count = (int)(sizeof meeple_games / sizeof meeple_games[0]);

const game_def *game_find(const char *name) {
    for (int i = 0; i < meeple_game_count; i++)
        if (strcmp(meeple_games[i]->name, name) == 0) return meeple_games[i];
    return NULL;
}

const char *game_names(void) {
    static char names[256];
    if (names[0]) return names;
    for (int i = 0; i < meeple_game_count; i++) {
        if (i) strncat(names, ", ", sizeof names - strlen(names) - 1);
        strncat(names, meeple_games[i]->name, sizeof names - strlen(names) - 1);
    }
    return names;
}
