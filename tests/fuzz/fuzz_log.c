/* fuzz_log.c — match logs (JSON lines) through the reader meeple uses for them (core/host/matchlog.c, over
 * jansson): each line read and checked as `meeple merge` and `match --resume` read it; a record the
 * reader accepts must hold what it promises (seats, winners, forfeit in range, `by` as long as
 * `actions`), and its game is replayed from the seed and the position reached exercised.
 * Seeds: the format-1 lines make_corpus.lua writes (the reader refuses them) and
 * the v2- files, real logs of `meeple match GAME BOTS --games 2 --seed 1 --log F`. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "host/matchlog.h"
#include <meeple/registry.h>

/* The promises of an accepted record: every number the reader filled is in its range. */
static void check_game(const matchlog_game *g, int players, size_t actions) {
    long long decisions = 0;
    if (g->game < 0 || g->nwinners < 0 || g->nwinners > players) fuzz_fail("index or winners out of range");
    for (int i = 0; i < g->nwinners; i++)
        if (g->winners[i] < 0 || g->winners[i] >= players) fuzz_fail("a winner out of range");
    if (g->forfeit < -1 || g->forfeit >= players) fuzz_fail("a forfeit out of range");
    for (int s = 0; s < players; s++) {
        if (g->decisions[s] < 0 || g->ms[s] < 0 || g->ms_max[s] < 0) fuzz_fail("a negative count or time");
        decisions += g->decisions[s];
    }
    if (decisions != (long long)actions && decisions != (long long)actions + 1) fuzz_fail("decisions do not add up");
}

/* The accepted record's game dealt from its seed and its actions played, as `meeple replay` does. */
static void replay_record(json_t *rec, const matchlog_game *g) {
    const game_def *def = game_find(json_string_value(json_object_get(rec, "game")));
    json_t *actions = json_object_get(rec, "actions"), *by = json_object_get(rec, "by");
    int players = (int)json_integer_value(json_object_get(rec, "players"));
    if (!def || json_array_size(by) != json_array_size(actions)) fuzz_fail("an accepted record lacks its game or by");
    check_game(g, players, json_array_size(actions));
    param_value params[MEEPLE_MAX_PARAMS];
    params_defaults(def, params);
    reason why = {{0}};
    session *s = session_new(def, players, params, (uint64_t)json_integer_value(json_object_get(rec, "seed")), &why);
    if (!s) return;
    for (size_t i = 0; i < json_array_size(actions); i++)
        if (!session_play_text(s, json_string_value(json_array_get(actions, i)), &why)) break;
    fuzz_exercise(s);
    session_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    if (!text) return 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        matchlog_game g;
        json_t *id = NULL;
        char why[400];
        json_t *rec = matchlog_read(line, strlen(line), &g, &id, why, sizeof why);
        if (!rec && (!why[0] || id)) fuzz_fail("a refusal without its reason, or with an identity");
        if (rec && !matchlog_same_match(id, id, why, sizeof why)) fuzz_fail("an identity differs from itself");
        if (rec) replay_record(rec, &g);
        json_decref(id);
        json_decref(rec);
    }
    free(text);
    return 0;
}
