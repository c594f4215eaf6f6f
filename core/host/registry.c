/* registry.c — one explicit list of games (no constructor tricks); the conformance test walks it. */
#include <meeple/registry.h>

#include <string.h>
#include <threads.h>

#include "rules/games/babel.h"
#include "rules/games/bohnanza.h"
#include "rules/games/citadels.h"
#include "rules/games/rabohnzel.h"

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

/* Made once, under call_once: matches in several threads may all ask for it in their messages. */
static char names[256];
static once_flag names_made = ONCE_FLAG_INIT;

static void make_names(void) {
    for (int i = 0; i < meeple_game_count; i++) {
        if (i) strncat(names, ", ", sizeof names - strlen(names) - 1);
        strncat(names, meeple_games[i]->name, sizeof names - strlen(names) - 1);
    }
}

const char *game_names(void) {
    call_once(&names_made, make_names);
    return names;
}

const char *game_def_problem(const game_def *def) {
    /* The optional ones (params_check, text_key, playout_worth, score) are left out on purpose. */
    const struct { bool given; const char *what; } required[] = {
        {def->name && def->title && def->rules, "a name, a title and its rules text"},
        {def->setup && def->num_players && def->turn && def->to_move && def->turn_key && def->is_over,
         "setup, num_players, turn, to_move, turn_key and is_over"},
        {def->legal && def->check && def->apply, "legal, check and apply"},
        {def->scores && def->winners, "scores and winners"},
        {def->action_text && def->parse_action && def->action_space, "action_text, parse_action and action_space"},
        {def->public_text, "public_text: what the other players see of an action"},
        {def->information != INFORMATION_UNSAID, "information: whether the game has hidden information"},
        {def->write_table && def->read_table && def->write_cards && def->validate && def->sample,
         "write_table, read_table, write_cards, validate and sample"},
        {def->move && def->add, "move and add"},
        {!def->playout_pick || (def->playout_worth && def->playout_worths),
         "playout_worth and playout_worths, which playout_pick must choose as"},
        {!def->playout_choose || def->playout_pick, "playout_pick, which playout_choose must choose as"},
    };
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!required[i].given) return required[i].what;
    return NULL;
}
