/* test_c_api.c — the public C interface's promises a C caller leans on (docs/c-api.md): NULL parameters
 * are the game's defaults, for every game, dealt or read from a table; a NULL game is refused with a
 * reason; and a playout plays exactly what its limit says: 0 nothing, SESSION_PLAYOUT_TO_END to the end. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check.h"
#include "host/tree_json.h"
#include <meeple/registry.h>
#include <meeple/session.h>

/* A session of `def` under parameters the caller made as the defaults, to compare NULL's with. */
static session *with_default_params(const game_def *def, uint64_t seed) {
    param_value params[MEEPLE_MAX_PARAMS];
    params_defaults(def, params);
    meeple_reason why;
    session *s = session_new(def, 0, params, seed, &why);
    CHECK(s, "%s under its defaults: %s", def->name, why.text);
    return s;
}

/* The same game, position and save text: what a caller can tell two sessions apart by. */
static void check_same_session(const session *a, const session *b, const char *what) {
    CHECK(a->players == b->players, "%s: %d players against %d", what, a->players, b->players);
    CHECK(memcmp(a->now, b->now, a->def->state_size) == 0, "%s: the states differ", what);
    char *save_a = session_save(a), *save_b = session_save(b);
    CHECK(save_a && save_b && strcmp(save_a, save_b) == 0, "%s: the saves differ:\n%s\n--\n%s", what,
          save_a ? save_a : "(none)", save_b ? save_b : "(none)");
    free(save_a);
    free(save_b);
}

static void null_params_deal_the_default_game(void) {
    for (int g = 0; g < meeple_game_count; g++) {
        const game_def *def = meeple_games[g];
        meeple_reason why;
        session *s = session_new(def, 0, NULL, 42, &why);
        CHECK(s, "%s with NULL params: %s", def->name, why.text);
        session *d = with_default_params(def, 42);
        check_same_session(s, d, def->name);
        /* At every player count, where a game's defaults depend on it (a deck dealt by count). */
        for (int n = def->min_players; n <= def->max_players; n++) {
            session *at = session_new(def, n, NULL, 7, &why);
            CHECK(at && at->players == n, "%s for %d with NULL params: %s", def->name, n, at ? "" : why.text);
            session_free(at);
        }
        session_free(s);
        session_free(d);
    }
}

static void whole_table(const game_def *def, const void *st, int seat, tree_writer *w) {
    def->write_table(st, seat, w);
}

static void null_params_read_a_table_under_the_defaults(void) {
    for (int g = 0; g < meeple_game_count; g++) {
        const game_def *def = meeple_games[g];
        session *dealt = with_default_params(def, 3);
        json_t *table = tree_json(whole_table, def, dealt->now, -1);
        CHECK(table, "%s: no table", def->name);
        session_free(dealt);
        param_value params[MEEPLE_MAX_PARAMS];
        params_defaults(def, params);
        meeple_reason why;
        json_reader r;
        json_reader_init(&r, table);
        session *s = session_from_table(def, &r.base, NULL, 9, &why);
        CHECK(s, "%s from a table with NULL params: %s", def->name, why.text);
        json_reader_init(&r, table);
        session *d = session_from_table(def, &r.base, params, 9, &why);
        CHECK(d, "%s from a table under its defaults: %s", def->name, why.text);
        check_same_session(s, d, def->name);
        session_free(s);
        session_free(d);
        json_decref(table);
    }
}

/* A game of no registry (a program's own, as tests make): its NULL params are its own defaults too. */
typedef struct counted {
    int32_t goal, steps;
} counted;

static const param_def goal_param[] = {
    {.name = "goal", .kind = PARAM_INT, .fallback = 3, .min = 1, .max = 9, .doc = "steps to the end"},
};
static void counted_setup(void *st, int players, const param_value *params, uint64_t seed) {
    (void)players, (void)seed;
    *(counted *)st = (counted){.goal = params[0].v[0]};
}
static int one(const void *st) { return (void)st, 1; }
static bool reached(const void *st) { return ((const counted *)st)->steps >= ((const counted *)st)->goal; }
static int seat_zero_until_over(const void *st) { return reached(st) ? -1 : 0; }
static int step_only(const void *st, action_t *out) { return reached(st) ? 0 : (out[0] = 0, 1); }
static bool step_is_legal(const void *st, action_t a, meeple_reason *why) {
    return (void)st, (void)why, a == 0;
}
static void take_step(void *st, action_t a) { (void)a, ((counted *)st)->steps++; }
static void steps_score(const void *st, int *out) { out[0] = ((const counted *)st)->steps; }
static int no_winners(const void *st, int *out) { return (void)st, (void)out, 0; }

static const game_def counted_game = {
    .name = "counted", .title = "Counted", .min_players = 1, .max_players = 1, .default_players = 1,
    .state_size = sizeof(counted), .params = goal_param, .num_params = 1, .setup = counted_setup,
    .num_players = one, .to_move = seat_zero_until_over, .is_over = reached, .legal = step_only,
    .check = step_is_legal, .apply = take_step, .scores = steps_score, .winners = no_winners,
};

static void null_params_of_an_unregistered_game(void) {
    meeple_reason why;
    session *s = session_new(&counted_game, 1, NULL, 1, &why);
    CHECK(s, "%s", why.text);
    CHECK(((counted *)s->now)->goal == 3, "the goal is the default 3, not %d", (int)((counted *)s->now)->goal);
    session_free(s);
}

static void a_missing_game_is_refused(void) {
    meeple_reason why = {{0}};
    CHECK(!session_new(game_find("no such game"), 0, NULL, 1, &why) && strstr(why.text, "no game"),
          "session_new(NULL): '%s'", why.text);
    CHECK(!session_new(NULL, 0, NULL, 1, NULL), "and without a reason wanted");
}

static void playout_zero_plays_nothing_and_to_the_end_ends(void) {
    for (int g = 0; g < meeple_game_count; g++) {
        const game_def *def = meeple_games[g];
        meeple_reason why;
        session *s = session_new(def, 0, NULL, 5, &why);
        CHECK(s, "%s: %s", def->name, why.text);
        rng r;
        rng_seed(&r, 5, 6);
        CHECK(session_playout(s, &r, 0, 0) == 0 && s->history_len == 0 &&
                  memcmp(s->now, s->start, def->state_size) == 0,
              "%s: a playout of 0 decisions plays none", def->name);
        int played = session_playout(s, &r, SESSION_PLAYOUT_TO_END, 0);
        CHECK(played > 0 && played == s->history_len && def->is_over(s->now),
              "%s: a playout to the end ends the game (%d played)", def->name, played);
        CHECK(session_playout(s, &r, SESSION_PLAYOUT_TO_END, 0) == 0, "%s: and an ended game plays no more", def->name);
        session_free(s);
    }
    session *s = session_new(&counted_game, 1, NULL, 1, NULL);
    rng r;
    rng_seed(&r, 1, 2);
    CHECK(s && session_playout(s, &r, SESSION_PLAYOUT_TO_END, 1) == 3, "the counted game ends after its 3 steps");
    session_free(s);
}

int main(void) {
    null_params_deal_the_default_game();
    null_params_read_a_table_under_the_defaults();
    null_params_of_an_unregistered_game();
    a_missing_game_is_refused();
    playout_zero_plays_nothing_and_to_the_end_ends();
    printf("the C API: NULL params are the defaults, a missing game is refused, playouts play what they say\n");
    return 0;
}
