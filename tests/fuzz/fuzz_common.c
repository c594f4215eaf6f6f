/* fuzz_common.c — the exercise every accepted state goes through (fuzz.h). */
#include "fuzz.h"

#include <stdalign.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "lua/lmeeple.h"
#include <meeple/rng.h>
#include "host/tree_json.h"

/* Steps of random play after the state itself, each checked in full: enough to carry a damaged
 * position into its next phase, few enough that an input takes a few milliseconds (40 made fuzz_state
 * four times slower for no more coverage). */
#define WALK_STEPS 10

_Noreturn void fuzz_fail(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    fprintf(stderr, "fuzz: ");
    vfprintf(stderr, fmt, args);
    fprintf(stderr, "\n");
    va_end(args);
    abort();
}

char *fuzz_text(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text) return NULL;
    if (size) memcpy(text, data, size);
    text[size] = '\0';
    return text;
}

lua_State *fuzz_lua(void) {
    static lua_State *L;
    if (L) return L;
    L = luaL_newstate();
    if (!L) fuzz_fail("no memory for Lua");
    luaL_openlibs(L);
    luaL_requiref(L, "meeple", meeple_open, 1);
    lua_pop(L, 1);
    return L;
}

/* ---- in C: every query, every legal action, samples and a walk, validated at each step ---- */

typedef struct state_buf {
    alignas(max_align_t) unsigned char bytes[MEEPLE_MAX_STATE];
} state_buf;

static void must_validate(const game_def *def, const void *st, const char *after) {
    reason why = {{0}};
    if (!def->validate(st, &why)) fuzz_fail("%s: %s leaves a state that does not validate: %s", def->name, after, why.text);
}

static char *table_text(const game_def *def, const void *st, int viewer) {
    text_writer w;
    text_writer_init(&w);
    def->write_table(st, viewer, &w.base);
    return w.buf; /* the caller frees */
}

static void queries(const game_def *def, const void *st) {
    int n = def->num_players(st);
    if (n < def->min_players || n > def->max_players) fuzz_fail("%s: %d players", def->name, n);
    int mover = def->to_move(st), owner, out[MEEPLE_MAX_PLAYERS];
    if (mover < -1 || mover >= n) fuzz_fail("%s: player %d to move of %d", def->name, mover, n);
    if ((mover < 0) != def->is_over(st)) fuzz_fail("%s: to_move and is_over disagree", def->name);
    (void)def->turn(st);
    (void)def->turn_key(st, &owner);
    def->scores(st, out);
    int w = def->winners(st, out);
    if (w < 0 || w > n) fuzz_fail("%s: %d winners of %d", def->name, w, n);
    for (int i = 0; i < w; i++)
        if (out[i] < 0 || out[i] >= n) fuzz_fail("%s: winner %d of %d", def->name, out[i], n);
    for (int viewer = -1; viewer < n; viewer++) free(table_text(def, st, viewer));
    if (def->write_cards) {
        text_writer cards;
        text_writer_init(&cards);
        def->write_cards(st, &cards.base);
        text_writer_free(&cards);
    }
}

/* Every action of the grammar is asked about, with its reason formatted: a refusal must read a
 * damaged-looking but valid position without reading out of bounds. */
static void every_check(const game_def *def, const void *st) {
    static action_t space[MEEPLE_MAX_SPACE];
    int n = def->action_space(st, space);
    if (n < 0 || n > MEEPLE_MAX_SPACE) fuzz_fail("%s: %d actions in the grammar", def->name, n);
    for (int i = 0; i < n; i++) {
        reason why;
        char text[MEEPLE_ACTION_TEXT];
        (void)def->check(st, space[i], &why);
        def->action_text(st, space[i], text);
    }
}

/* Legal actions, each checked, named, parsed back and applied to a copy; returns their number. */
static int every_legal(const game_def *def, const void *st, action_t *acts) {
    int n = def->legal(st, acts);
    if (n < 0 || n > MEEPLE_MAX_ACTIONS) fuzz_fail("%s: %d legal actions", def->name, n);
    if (n == 0 && !def->is_over(st)) fuzz_fail("%s: a running game has no legal action", def->name);
    if (n > 0 && def->is_over(st)) fuzz_fail("%s: a finished game has legal actions", def->name);
    state_buf trial;
    for (int i = 0; i < n; i++) {
        reason why = {{0}};
        char text[MEEPLE_ACTION_TEXT];
        action_t parsed;
        if (!def->check(st, acts[i], &why)) fuzz_fail("%s: legal() lists an action check() refuses: %s", def->name, why.text);
        def->action_text(st, acts[i], text);
        if (!def->parse_action(st, text, &parsed, &why) || !def->check(st, parsed, &why))
            fuzz_fail("%s: the legal action '%s' does not parse back: %s", def->name, text, why.text);
        memcpy(trial.bytes, st, def->state_size);
        def->apply(trial.bytes, acts[i]);
        char after[MEEPLE_ACTION_TEXT + 16];
        snprintf(after, sizeof after, "'%s'", text);
        must_validate(def, trial.bytes, after);
    }
    return n;
}

/* A sample is a state like any other, and it keeps everything its viewer sees. */
static void samples(const game_def *def, const void *st, uint32_t seed) {
    int n = def->num_players(st);
    state_buf trial;
    for (int viewer = 0; viewer < n; viewer++) {
        rng r;
        rng_seed(&r, seed, (uint64_t)viewer);
        memcpy(trial.bytes, st, def->state_size);
        def->sample(trial.bytes, viewer, &r);
        must_validate(def, trial.bytes, "sample");
        char *before = table_text(def, st, viewer), *after = table_text(def, trial.bytes, viewer);
        bool same = strcmp(before, after) == 0;
        if (!same) fuzz_fail("%s: a sample for player %d changes what they see:\n%s\n%s", def->name, viewer + 1, before, after);
        free(before);
        free(after);
    }
}

static void exercise_c(const game_def *def, const void *start) {
    state_buf st;
    action_t acts[MEEPLE_MAX_ACTIONS];
    memcpy(st.bytes, start, def->state_size);
    rng r;
    rng_seed(&r, 1, 2);
    for (int step = 0; step <= WALK_STEPS; step++) {
        queries(def, st.bytes);
        every_check(def, st.bytes);
        if (step == 0) samples(def, st.bytes, 7);
        int n = every_legal(def, st.bytes, acts);
        if (n == 0) break;
        def->apply(st.bytes, acts[rng_below(&r, (uint32_t)n)]);
    }
}

/* ---- through Lua: what a script does with a state, the renderer and save/load included ---- */

static const char exercise_lua[] =
    "local s = ...\n"
    "local n = s:num_players()\n"
    "s:table(); s:cards(); s:legal(); s:scores(); s:winners(); s:to_move(); s:is_over(); s:turn()\n"
    "for p = 1, n do\n"
    "  s:view(p)\n"
    "  local x = s:sample(p, p)\n"
    "  x:table(); x:legal()\n"
    "  if p == 1 then tostring(x) end\n"
    "end\n"
    "tostring(s)\n"
    "local save = s:save()\n"
    "local again = meeple.load(save)\n"
    "if again:save() ~= save then error('a save does not load back to itself') end\n"
    "local c = s:clone()\n"
    "c:playout(1, 20)\n"
    "tostring(c)\n"
    "c:undo(5)\n";

static void exercise_lua_side(const session *s) {
    lua_State *L = fuzz_lua();
    session *copy = session_clone(s);
    if (!copy) fuzz_fail("out of memory");
    /* A variant is a file found by its name: the save would make meeple.load read the disk. */
    copy->variant[0] = '\0';
    if (luaL_loadbufferx(L, exercise_lua, strlen(exercise_lua), "=exercise", "t") != LUA_OK)
        fuzz_fail("%s", lua_tostring(L, -1));
    meeple_push_state(L, copy);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK)
        fuzz_fail("%s: a state that loaded fails in Lua: %s", s->def->name, lua_tostring(L, -1));
    lua_settop(L, 0);
    lua_gc(L, LUA_GCCOLLECT);
}

void fuzz_exercise(const session *s) {
    must_validate(s->def, s->now, "loading");
    exercise_c(s->def, s->now);
    exercise_lua_side(s);
}

void fuzz_load_text(char *text, const char *what) {
    reason why = {{0}};
    session *s = session_load(text, &why);
    free(text);
    if (!s) {
        if (!why.text[0]) fuzz_fail("a %s was refused without a reason", what);
        return;
    }
    /* Whatever loads is a position from_table accepts as a table, under the save's parameters, before
     * its actions and after them (issue 29: saves are checked as tables are). */
    if (!tree_state_checks(s->def, s->start, s->params, 1, &why))
        fuzz_fail("%s: the start of a %s that loaded is not a table from_table accepts: %s", s->def->name, what,
                  why.text);
    if (!tree_state_checks(s->def, s->now, s->params, 1, &why))
        fuzz_fail("%s: the position a %s reaches is not a table from_table accepts: %s", s->def->name, what,
                  why.text);
    fuzz_exercise(s);
    session_free(s);
}
