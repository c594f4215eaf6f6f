/* session.c — the host side of a game: parameters, decisions with undo, and the save text. */
#define _POSIX_C_SOURCE 200809L /* strdup */

#include <meeple/session.h>
#include "rules/invariant.h"
#include "rules/rules.h"
#include "rules/worth_pick.h"
#include "host/tree_json.h"
#include "host/playout.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include <meeple/registry.h>

#define SAVE_MAGIC "meeple save 1"

/* ==================================================================== parameters */

void params_defaults(const game_def *def, param_value *out) {
    memset(out, 0, sizeof(param_value) * MEEPLE_MAX_PARAMS);
    for (int i = 0; i < def->num_params; i++) {
        const param_def *p = &def->params[i];
        if (p->game_default || p->kind == PARAM_BY_NAME) continue; /* count 0: the game decides */
        out[i].count = 1;
        out[i].v[0] = p->fallback;
        if (p->fallback_list) {
            out[i].count = p->fallback_count;
            memcpy(out[i].v, p->fallback_list, sizeof(int32_t) * (size_t)p->fallback_count);
        }
    }
}

int params_index(const game_def *def, const char *name) {
    for (int i = 0; i < def->num_params; i++)
        if (strcmp(def->params[i].name, name) == 0) return i;
    return -1;
}

static void param_names(const game_def *def, char *out, size_t n) {
    out[0] = '\0';
    for (int i = 0; i < def->num_params; i++) {
        if (i) strncat(out, ", ", n - strlen(out) - 1);
        strncat(out, def->params[i].name, n - strlen(out) - 1);
    }
}

static int choice_index(const param_def *p, const char *name) {
    for (int i = 0; p->choices[i]; i++)
        if (strcmp(p->choices[i], name) == 0) return i;
    return -1;
}

static void choice_list(const param_def *p, char *out, size_t n) {
    out[0] = '\0';
    for (int i = 0; p->choices[i]; i++) {
        if (i) strncat(out, ", ", n - strlen(out) - 1);
        strncat(out, p->choices[i], n - strlen(out) - 1);
    }
}

static bool param_int_in_range(const param_def *p, int64_t v, reason *why) {
    if (v < p->min || v > p->max)
        return deny(why, "parameter %s must be %d..%d, got %" PRId64, p->name, p->min, p->max, v);
    return true;
}

static int width_of(const param_def *p) { return p->width > 1 ? p->width : 1; }

static int name_count(const param_def *p) {
    int n = 0;
    while (p->choices[n]) n++;
    return n;
}

/* A list of exactly `count` whole numbers in the parameter's range, into `out`. */
static bool param_read_list(const param_def *p, tree_reader *r, int count, int32_t *out, const char *what,
                            reason *why) {
    int64_t v;
    if (r->kind(r) != TREE_TABLE || r->length(r) != count)
        return deny(why, "parameter %s: %s must be a list of %d whole numbers", p->name, what, count);
    for (int i = 0; i < count; i++) {
        bool ok = r->enter_index(r, i + 1) == TREE_NUM && r->get_int(r, &v);
        r->leave(r);
        if (!ok) return deny(why, "parameter %s: %s, item %d is not a whole number", p->name, what, i + 1);
        if (!param_int_in_range(p, v, why)) return false;
        out[i] = (int32_t)v;
    }
    return true;
}

/* {[3] = 2, [4] = 3}: a value for each player count the table names. */
static bool param_read_by_players(const game_def *def, const param_def *p, tree_reader *r, param_value *out,
                                  reason *why) {
    char keys[MEEPLE_MAX_PLAYERS + 1][8];
    const char *known[MEEPLE_MAX_PLAYERS + 2];
    int n = 0;
    for (int players = def->min_players; players <= def->max_players; players++) {
        snprintf(keys[n], sizeof keys[n], "[%d]", players);
        known[n] = keys[n];
        n++;
    }
    known[n] = NULL;
    const char *unknown = r->unknown_key(r, known);
    if (unknown)
        return deny(why, "parameter %s: %s is not a player count of %s (%d to %d)", p->name, unknown, def->title,
                    def->min_players, def->max_players);
    out->count = MEEPLE_MAX_PLAYERS + 1;
    for (int players = 0; players <= MEEPLE_MAX_PLAYERS; players++) out->v[players] = PARAM_UNSET;
    int64_t v;
    for (int players = def->min_players; players <= def->max_players; players++) {
        tree_kind kind = r->enter_index(r, players);
        bool ok = kind == TREE_ABSENT || (kind == TREE_NUM && r->get_int(r, &v));
        r->leave(r);
        if (!ok) return deny(why, "parameter %s: the value for %d players is not a whole number", p->name, players);
        if (kind == TREE_ABSENT) continue;
        if (!param_int_in_range(p, v, why)) return false;
        out->v[players] = (int32_t)v;
    }
    return true;
}

/* {blue = {4, 6, 8, 10}}: a value (or a list of `width`) for each name the table names. */
static bool param_read_by_name(const param_def *p, tree_reader *r, param_value *out, reason *why) {
    int names = name_count(p), width = width_of(p);
    const char *unknown = r->unknown_key(r, p->choices);
    if (unknown) {
        char list[400];
        choice_list(p, list, sizeof list);
        return deny(why, "parameter %s: unknown name '%s'; names: %s", p->name, unknown, list);
    }
    out->count = names * width;
    for (int i = 0; i < out->count; i++) out->v[i] = PARAM_UNSET;
    int64_t v;
    for (int name = 0; name < names; name++) {
        tree_kind kind = r->enter_key(r, p->choices[name]);
        bool ok = true;
        if (kind != TREE_ABSENT && width == 1) {
            ok = kind == TREE_NUM && r->get_int(r, &v);
            if (!ok) deny(why, "parameter %s: %s must be a whole number", p->name, p->choices[name]);
            else if ((ok = param_int_in_range(p, v, why))) out->v[name] = (int32_t)v;
        } else if (kind != TREE_ABSENT) {
            ok = param_read_list(p, r, width, &out->v[name * width], p->choices[name], why);
        }
        r->leave(r);
        if (!ok) return false;
    }
    return true;
}

/* Reads the value the reader is at into `out`, by the parameter's kind. */
static bool param_read_value(const game_def *def, const param_def *p, tree_reader *r, param_value *out,
                             reason *why) {
    tree_kind kind = r->kind(r);
    int64_t v;
    memset(out, 0, sizeof *out);
    if (p->kind == PARAM_CHOICE) {
        const char *name = kind == TREE_STR ? r->get_str(r) : NULL;
        char names[160];
        choice_list(p, names, sizeof names);
        int index = name ? choice_index(p, name) : -1;
        if (index < 0) return deny(why, "parameter %s must be one of: %s", p->name, names);
        out->count = 1;
        out->v[0] = index;
        return true;
    }
    if (p->kind == PARAM_BOOL) {
        if (kind != TREE_BOOL) return deny(why, "parameter %s must be true or false", p->name);
        out->count = 1;
        out->v[0] = r->get_bool(r);
        return true;
    }
    if (p->kind == PARAM_BY_NAME) {
        if (kind != TREE_TABLE)
            return deny(why, "parameter %s must be a table keyed by name (%s = ...)", p->name, p->choices[0]);
        return param_read_by_name(p, r, out, why);
    }
    if (kind == TREE_NUM && r->get_int(r, &v)) {
        if (!param_int_in_range(p, v, why)) return false;
        out->count = 1;
        out->v[0] = (int32_t)v;
        return true;
    }
    if (p->kind == PARAM_PER_SEAT && kind == TREE_TABLE) {
        int n = r->length(r);
        if (n < 1 || n > MEEPLE_PARAM_LIST)
            return deny(why, "parameter %s takes a number or a list of 1..%d numbers", p->name, MEEPLE_PARAM_LIST);
        out->count = n;
        return param_read_list(p, r, n, out->v, "the list", why);
    }
    if (p->kind == PARAM_BY_PLAYERS && kind == TREE_TABLE) return param_read_by_players(def, p, r, out, why);
    return deny(why, "parameter %s must be a whole number%s", p->name,
                p->kind == PARAM_PER_SEAT     ? " or a list of them by seat"
                : p->kind == PARAM_BY_PLAYERS ? " or a table of them by player count ({[3] = 2, [4] = 3})"
                                              : "");
}

bool params_read(const game_def *def, tree_reader *r, param_value *values, reason *why) {
    const char *known[MEEPLE_MAX_PARAMS + 1];
    for (int i = 0; i < def->num_params; i++) known[i] = def->params[i].name;
    known[def->num_params] = NULL;
    const char *unknown = r->unknown_key(r, known);
    if (unknown) {
        char names[400];
        param_names(def, names, sizeof names);
        return deny(why, "unknown parameter '%s' for %s; parameters: %s", unknown, def->name, names);
    }
    for (int i = 0; i < def->num_params; i++) {
        bool ok = true;
        if (r->enter_key(r, def->params[i].name) != TREE_ABSENT)
            ok = param_read_value(def, &def->params[i], r, &values[i], why);
        r->leave(r);
        if (!ok) return false;
    }
    return true;
}

/* Save text: "3" or "1 2 3"; a choice's name; by player count "3=2 4=3"; by name "blue=4,6,8,10". */
void params_value_text(const game_def *def, int index, const param_value *v, char *out, size_t n) {
    const param_def *p = &def->params[index];
    out[0] = '\0';
    if (p->kind == PARAM_CHOICE || p->kind == PARAM_BOOL) {
        snprintf(out, n, "%s", p->kind == PARAM_BOOL ? (v->v[0] ? "true" : "false") : p->choices[v->v[0]]);
        return;
    }
    size_t used = 0;
    if (p->kind == PARAM_BY_NAME) {
        int width = width_of(p);
        for (int name = 0; (name + 1) * width <= v->count && used < n; name++) {
            if (v->v[name * width] == PARAM_UNSET) continue;
            used += (size_t)snprintf(out + used, n - used, "%s%s=", used ? " " : "", p->choices[name]);
            for (int j = 0; j < width && used < n; j++)
                used += (size_t)snprintf(out + used, n - used, "%s%d", j ? "," : "", v->v[name * width + j]);
        }
        return;
    }
    if (p->kind == PARAM_BY_PLAYERS && v->count > 1) {
        for (int players = 0; players < v->count && used < n; players++)
            if (v->v[players] != PARAM_UNSET)
                used += (size_t)snprintf(out + used, n - used, "%s%d=%d", used ? " " : "", players, v->v[players]);
        return;
    }
    for (int i = 0; i < v->count && used < n; i++)
        used += (size_t)snprintf(out + used, n - used, "%s%d", i ? " " : "", v->v[i]);
}

/* ==================================================================== lifetime */

/* A session's block: the session, its parameters unless they are its game's defaults, the start
 * state, the state now, then `history` entries. A clone copies the block. */
static size_t align_up(size_t n) { return (n + alignof(max_align_t) - 1) / alignof(max_align_t) * alignof(max_align_t); }

static size_t params_size(const game_def *def, bool own) {
    return own ? align_up(sizeof(param_value) * (size_t)def->num_params) : 0;
}

static size_t block_size(const game_def *def, bool own_params, int history) {
    return align_up(sizeof(session)) + params_size(def, own_params) + 2 * align_up(def->state_size) +
           (size_t)history * sizeof(history_entry);
}

/* Points the session at its parts in its block (its parameters there too, when `own_params`). */
static void lay_out(session *s, const game_def *def, bool own_params) {
    unsigned char *base = (unsigned char *)s, *params = base + align_up(sizeof *s);
    s->params_in_block = own_params;
    if (own_params) s->params = (param_value *)params;
    s->start = params + params_size(def, own_params);
    s->now = (unsigned char *)s->start + align_up(def->state_size);
}

/* Every registered game's default parameters, made once: most sessions play them, and such a
 * session, and each of its clones, points at them instead of carrying a copy (Babel's nine
 * parameters take more bytes than its two states). */
enum { MAX_SHARED_GAMES = 16 };
static param_value shared_defaults[MAX_SHARED_GAMES][MEEPLE_MAX_PARAMS];
static once_flag shared_defaults_made = ONCE_FLAG_INIT;

static void make_shared_defaults(void) {
    for (int g = 0; g < meeple_game_count && g < MAX_SHARED_GAMES; g++)
        params_defaults(meeple_games[g], shared_defaults[g]);
}

/* `def`'s shared defaults, or NULL when `def` is not a registered game (a test's own). */
static const param_value *registered_defaults(const game_def *def) {
    call_once(&shared_defaults_made, make_shared_defaults);
    for (int g = 0; g < meeple_game_count && g < MAX_SHARED_GAMES; g++)
        if (meeple_games[g] == def) return shared_defaults[g];
    return NULL;
}

/* `def`'s shared defaults if `params` are exactly they, else NULL. */
static const param_value *shared_params(const game_def *def, const param_value *params) {
    const param_value *shared = registered_defaults(def);
    return shared && memcmp(shared, params, sizeof *params * (size_t)def->num_params) == 0 ? shared : NULL;
}

/* What a caller's NULL parameters stand for (session.h): the game's defaults, shared for a registered
 * game, else made in `room` (MEEPLE_MAX_PARAMS values). */
static const param_value *params_or_defaults(const game_def *def, const param_value *params, param_value *room) {
    if (params) return params;
    const param_value *shared = registered_defaults(def);
    if (shared) return shared;
    params_defaults(def, room);
    return room;
}

static session *session_alloc(const game_def *def, const param_value *params) {
    const param_value *shared = shared_params(def, params);
    session *s = calloc(1, block_size(def, !shared, 0));
    if (!s) return NULL;
    s->def = def;
    s->params = shared;
    lay_out(s, def, !shared);
    if (!shared) memcpy((param_value *)s->params, params, sizeof *params * (size_t)def->num_params);
    return s;
}

/* A session with its parameters and seed, before any state is put in it. */
static session *session_begin(const game_def *def, const param_value *params, uint64_t seed,
                              reason *why) {
    session *s = session_alloc(def, params);
    if (!s) {
        deny(why, "out of memory");
        return NULL;
    }
    s->seed = seed;
    return s;
}

/* A C caller's session_new(game_find(name), ...) with a name that is not a game. */
static bool game_given(const game_def *def, reason *why) {
    return def || deny(why, "no game given (game_find gives NULL for a name it does not know)");
}

session *session_new(const game_def *def, int players, const param_value *params, uint64_t seed,
                     reason *why) {
    if (!game_given(def, why)) return NULL;
    param_value defaults[MEEPLE_MAX_PARAMS];
    params = params_or_defaults(def, params, defaults);
    if (players == 0) players = def->default_players;
    if (players < def->min_players || players > def->max_players) {
        deny(why, "%s is played by %d to %d players, not %d", def->title, def->min_players,
             def->max_players, players);
        return NULL;
    }
    if (def->params_check && !def->params_check(params, players, why)) return NULL;
    session *s = session_begin(def, params, seed, why);
    if (!s) return NULL;
    s->players = players;
    def->setup(s->start, players, params, seed);
    memcpy(s->now, s->start, def->state_size);
    return s;
}

session *session_from_table(const game_def *def, tree_reader *r, const param_value *params,
                            uint64_t seed, reason *why) {
    if (!game_given(def, why)) return NULL;
    param_value defaults[MEEPLE_MAX_PARAMS];
    params = params_or_defaults(def, params, defaults);
    session *s = session_begin(def, params, seed, why);
    if (!s) return NULL;
    s->from_table = true;
    if (!def->read_table(s->start, r, params, seed, why) || !def->validate(s->start, why)) {
        session_free(s);
        return NULL;
    }
    s->players = def->num_players(s->start);
    memcpy(s->now, s->start, def->state_size);
    return s;
}

size_t session_clone_size(const session *s) { return block_size(s->def, s->params_in_block, s->history_len); }

/* A copy of `s` in `block` keeping `history` of its decisions, from `start` (s->start, or s->now for
 * a copy of the position alone). */
static session *copy_into(const session *s, void *block, const void *start, int history) {
    session *c = block;
    *c = *s;
    lay_out(c, s->def, s->params_in_block);
    if (s->params_in_block)
        memcpy((param_value *)c->params, s->params, sizeof *c->params * (size_t)s->def->num_params);
    memcpy(c->start, start, s->def->state_size);
    memcpy(c->now, s->now, s->def->state_size);
    c->history = (history_entry *)((unsigned char *)c->now + align_up(s->def->state_size));
    c->history_len = c->history_cap = c->block_history = history;
    c->history_in_block = true;
    c->block_is_callers = true;
    if (history) memcpy(c->history, s->history, sizeof *c->history * (size_t)history);
    return c;
}

session *session_clone_into(const session *s, void *block) {
    return copy_into(s, block, s->start, s->history_len);
}

size_t session_position_size(const session *s) { return block_size(s->def, s->params_in_block, 0); }

session *session_position_into(const session *s, void *block) {
    session *c = copy_into(s, block, s->now, 0);
    c->from_table = true; /* its start is a position, not a deal */
    return c;
}

session *session_clone(const session *s) {
    void *block = malloc(session_clone_size(s));
    if (!block) return NULL;
    session *c = session_clone_into(s, block);
    c->block_is_callers = false;
    return c;
}

void session_free(session *s) {
    if (!s) return;
    if (!s->history_in_block) free(s->history);
    if (!s->block_is_callers) free(s);
}

size_t session_heap_bytes(const session *s) {
    size_t own = s->block_is_callers ? 0 : block_size(s->def, s->params_in_block, s->block_history);
    return own + (s->history_in_block ? 0 : (size_t)s->history_cap * sizeof *s->history);
}

void session_rebase(session *s) {
    memcpy(s->start, s->now, s->def->state_size);
    s->history_len = 0;
    s->from_table = true;
}

/* The deal alone, its generator left at the draw session_sample takes the new seed from. */
static void deal_sample(const game_def *def, void *st, int viewer, uint64_t seed, rng *r) {
    rng_seed(r, seed, SESSION_SAMPLE_STREAM);
    def->sample(st, viewer, r);
}

void state_sample(const game_def *def, void *st, int viewer, uint64_t seed) {
    rng r;
    deal_sample(def, st, viewer, seed, &r);
}

void session_sample(session *s, int viewer, uint64_t seed) {
    rng r;
    deal_sample(s->def, s->now, viewer, seed, &r);
    /* Drawn after the deal, so a sample deals what it dealt before its seed line changed. */
    s->seed = rng_next64(&r) & (uint64_t)MEEPLE_SEED_MAX;
    session_rebase(s);
}

/* ==================================================================== decisions */

static bool history_push(session *s, action_t a, int player) {
    if (s->history_len == s->history_cap) {
        if (s->history_cap > INT_MAX / 2) return false;
        int cap = s->history_cap > 32 ? s->history_cap * 2 : 64;
        /* A history in the block moves out to grow (the block cannot). */
        history_entry *grown = realloc(s->history_in_block ? NULL : s->history, sizeof *grown * (size_t)cap);
        if (!grown) return false;
        if (s->history_in_block) memcpy(grown, s->history, sizeof *grown * (size_t)s->history_len);
        s->history = grown;
        s->history_cap = cap;
        s->history_in_block = false;
    }
    s->history[s->history_len++] = (history_entry){a, player};
    return true;
}

/* Records and applies an action check() accepted for `player`. A seat the game does not seat would go
 * into the history (every host indexes seats by it), and a game over while someone is to move (or the
 * reverse) would stop a host short or play past the end: a broken game, stopped in a Debug build. */
static bool decide(session *s, action_t a, int player, reason *why) {
    const game_def *def = s->def;
    if (NEVER(player >= s->players))
        return deny(why, "%s gave seat %d the move in a game of %d", def->title, player + 1, s->players);
    if (!history_push(s, a, player)) return deny(why, "out of memory");
    def->apply(s->now, a);
    assert(def->is_over(s->now) == (def->to_move(s->now) < 0));
    return true;
}

bool session_play(session *s, action_t a, reason *why) {
    const game_def *def = s->def;
    int player = def->to_move(s->now);
    if (player < 0) return deny(why, "the game is over");
    if (!def->check(s->now, a, why)) return false;
    return decide(s, a, player, why);
}

bool session_check_text(const session *s, const char *text, action_t *out, reason *why) {
    action_t a;
    if (s->def->to_move(s->now) < 0) return deny(why, "the game is over");
    if (!s->def->parse_action(s->now, text, &a, why) || !s->def->check(s->now, a, why)) return false;
    /* One text per action, the one legal() lists: a parser's leniency ("plant 01", "cast luck @2" with
     * one Magic run) would make logs, saves and bots' answers ambiguous. Checked here, once for every
     * game, after check() so that an illegal action still gets its rule's reason. */
    char canonical[MEEPLE_ACTION_TEXT];
    s->def->action_text(s->now, a, canonical);
    if (strcmp(text, canonical) != 0)
        return deny(why, "'%.40s%s' is not how the action is written: did you mean '%s'?", text,
                    strlen(text) > 40 ? "..." : "", canonical);
    if (out) *out = a;
    return true;
}

bool session_play_text(session *s, const char *text, reason *why) {
    action_t a;
    if (!session_check_text(s, text, &a, why)) return false;
    return decide(s, a, s->def->to_move(s->now), why);
}

/* The score of seat `p` once `a` is played at `st`, tried on `trial` (MEEPLE_MAX_STATE bytes). */
static int score_after(const game_def *def, const void *st, action_t a, int p, void *trial) {
    memcpy(trial, st, def->state_size);
    def->apply(trial, a);
    if (def->score) return def->score(trial, p);
    int scores[MEEPLE_MAX_PLAYERS];
    def->scores(trial, scores);
    return scores[p];
}

/* The action that leaves the mover's score highest, tried on a copy each, for a game without a
 * playout policy. Ties (most actions, most of the time) go to the first in the game's order, which
 * lists a turn roughly as a player takes it (in Citadels: gold before cards, income and powers,
 * building, ending the turn last): a greedy decision with nothing to score keeps acting rather than
 * ending the turn. Measured when Citadels had no policy: ismcts with ties broken at random instead
 * won 31% of 4-player Citadels games against three greedy bots, against 43% (seeds 1-100). */
static action_t best_for_score(const game_def *def, const void *st, const action_t *acts, int n) {
    alignas(max_align_t) unsigned char trial[MEEPLE_MAX_STATE];
    int mover = def->to_move(st), best = 0, best_score = INT_MIN;
    for (int i = 0; i < n; i++) {
        int score = score_after(def, st, acts[i], mover, trial);
        if (score > best_score) best = i, best_score = score;
    }
    return acts[best];
}

/* The index of the highest of worths[0..n), n >= 1, ties broken as worth_pick breaks them: an
 * imagined player varies where a greedy one would not care. */
static int highest_worth(const int *worths, int n, rng *r) {
    worth_pick pick = worth_pick_first(worths[0]);
    for (int i = 1; i < n; i++) worth_pick_next(&pick, r, i, worths[i]);
    return pick.best;
}

/* The action the game's playout policy wants most, ties as highest_worth breaks them. A game with
 * playout_worth alone may draw from `r` for each action: its draws and the ties' interleave. */
static action_t most_wanted(const game_def *def, const void *st, const action_t *acts, int n, rng *r) {
    if (def->playout_pick) return acts[def->playout_pick(st, acts, n, r)];
    if (def->playout_worths) {
        int worths[MEEPLE_MAX_ACTIONS];
        def->playout_worths(st, acts, n, worths);
        return acts[highest_worth(worths, n, r)];
    }
    worth_pick pick = worth_pick_first(def->playout_worth(st, acts[0], r));
    for (int i = 1; i < n; i++) {
        int worth = def->playout_worth(st, acts[i], r); /* its own draws come before the tie's */
        worth_pick_next(&pick, r, i, worth);
    }
    return acts[pick.best];
}

/* One legal action and what the playout policy thinks of it, for session_ranked's sort. */
typedef struct ranked_action {
    action_t action;
    int worth;
    uint32_t tie; /* a random draw where the policy breaks ties at random, else the game's order */
} ranked_action;

static int by_worth(const void *x, const void *y) {
    const ranked_action *a = x, *b = y;
    if (a->worth != b->worth) return a->worth > b->worth ? -1 : 1;
    return (a->tie > b->tie) - (a->tie < b->tie);
}

/* Worths as session_playout's greedy decisions weigh them: the game's playout policy (ties at random),
 * else the mover's score after the action (ties in the game's order). */
int session_ranked(const session *s, rng *r, action_t *out) { return state_ranked(s->def, s->now, r, out); }

/* What the playout policy thinks of each of acts[0..n) (all of `st`'s legal actions, in their order):
 * the ranking session_ranked sorts by, drawn alike. */
static void rank_actions(const game_def *def, const void *st, rng *r, const action_t *acts, int n,
                         ranked_action *ranked) {
    alignas(max_align_t) unsigned char trial[MEEPLE_MAX_STATE];
    bool by_score = !def->playout_worth && def->state_size <= MEEPLE_MAX_STATE;
    int mover = def->to_move(st), worths[MEEPLE_MAX_ACTIONS];
    if (def->playout_worths) def->playout_worths(st, acts, n, worths);
    for (int i = 0; i < n; i++) {
        ranked[i].action = acts[i];
        if (def->playout_worth) {
            ranked[i].worth = def->playout_worths ? worths[i] : def->playout_worth(st, acts[i], r);
            ranked[i].tie = rng_next(r);
        } else if (by_score) {
            ranked[i].worth = score_after(def, st, acts[i], mover, trial);
            ranked[i].tie = (uint32_t)i;
        } else {
            ranked[i].worth = 0;
            ranked[i].tie = (uint32_t)i;
        }
    }
}

int state_ranked(const game_def *def, const void *st, rng *r, action_t *out) {
    if (def->is_over(st)) return 0;
    int n = def->legal(st, out);
    if (n <= 1) return n < 0 ? 0 : n;
    ranked_action ranked[MEEPLE_MAX_ACTIONS];
    rank_actions(def, st, r, out, n, ranked);
    qsort(ranked, (size_t)n, sizeof ranked[0], by_worth);
    for (int i = 0; i < n; i++) out[i] = ranked[i].action;
    return n;
}

int state_first_ranked(const game_def *def, const void *st, rng *r, const action_t *acts, int n,
                       const bool *skip) {
    ranked_action ranked[MEEPLE_MAX_ACTIONS];
    if (n > 1) rank_actions(def, st, r, acts, n, ranked);
    int best = -1;
    for (int i = 0; i < n; i++)
        if (!skip[i] && (best < 0 || (n > 1 && by_worth(&ranked[i], &ranked[best]) < 0))) best = i;
    return best;
}

/* playout's loop where every decision with a choice is the game's playout_pick and nothing is recorded
 * (a search's playouts at greedy = 1), its tests for the other cases out of the loop. It draws as
 * playout does: a list of one action draws once (rng_below(1)). Where the game names the action
 * without a list (playout_choose), no list is made. */
static int picked_playout(const game_def *def, void *st, rng *r, int limit) {
    action_t acts[MEEPLE_MAX_ACTIONS];
    int played = 0;
    while (played != limit && !def->is_over(st)) {
        action_t a;
        if (!def->playout_choose || !def->playout_choose(st, r, &a)) {
            int n = def->legal(st, acts);
            if (n <= 0) break;
            a = acts[n > 1 ? def->playout_pick(st, acts, n, r) : (int)rng_step_below(r, 1)];
        }
        def->apply(st, a);
        played++;
    }
    return played;
}

/* The `greedy` share of decisions goes to the game's own playout policy where it has one (a plain
 * greedy player's choice: imagined opponents then build and score as real ones do), else to
 * best_for_score; the rest are uniform among the legal actions. */
static int playout(const game_def *def, void *st, rng *r, int limit, double greedy, session *record) {
    action_t acts[MEEPLE_MAX_ACTIONS];
    bool can_try = def->state_size <= MEEPLE_MAX_STATE; /* every registered game: test_conformance */
    bool always = can_try && greedy >= 1;
    uint32_t greedy_below = !can_try || greedy <= 0 ? 0 : always ? 0 : (uint32_t)(greedy * 4294967296.0);
    int played = 0;
    if (limit < 0 || limit > SESSION_PLAYOUT_MAX) limit = SESSION_PLAYOUT_MAX;
    if (always && !record && def->playout_pick) return picked_playout(def, st, r, limit); /* with playout_worth: game_def_problem */
    while (played != limit && !def->is_over(st)) {
        int n = def->legal(st, acts);
        if (n <= 0) break; /* a stuck game: validate() and the conformance test say why */
        bool greedy_now = n > 1 && (always || (greedy_below && rng_next(r) < greedy_below));
        action_t a = !greedy_now         ? acts[rng_below(r, (uint32_t)n)]
                     : def->playout_worth ? most_wanted(def, st, acts, n, r)
                                          : best_for_score(def, st, acts, n);
        if (record && !history_push(record, a, def->to_move(st))) return -1;
        def->apply(st, a);
        played++;
    }
    return played;
}

int session_playout(session *s, rng *r, int limit, double greedy) {
    return playout(s->def, s->now, r, limit, greedy, s);
}

int state_playout(const game_def *def, void *st, rng *r, int limit, double greedy) {
    return playout(def, st, r, limit, greedy, NULL);
}

/* Undo replays the kept decisions from the start: the state holds no trail of its own, so clones
 * stay one flat copy, and a replay of a few hundred decisions costs microseconds. */
int session_undo(session *s, int n) {
    if (n < 0) n = 0;
    if (n > s->history_len) n = s->history_len;
    s->history_len -= n;
    memcpy(s->now, s->start, s->def->state_size);
    for (int i = 0; i < s->history_len; i++) s->def->apply(s->now, s->history[i].action);
    return n;
}

/* ==================================================================== saving */

typedef struct text_buf {
    char *data;
    size_t len, cap;
} text_buf;

static bool buf_printf(text_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool buf_printf(text_buf *b, const char *fmt, ...) {
    for (;;) {
        va_list args;
        va_start(args, fmt);
        int need = vsnprintf(b->data ? b->data + b->len : NULL, b->data ? b->cap - b->len : 0, fmt,
                             args);
        va_end(args);
        if (need < 0) return false;
        if (b->data && b->len + (size_t)need < b->cap) {
            b->len += (size_t)need;
            return true;
        }
        size_t cap = b->cap ? b->cap : 1024;
        while (cap <= b->len + (size_t)need) cap *= 2;
        char *grown = realloc(b->data, cap);
        if (!grown) return false;
        b->data = grown;
        b->cap = cap;
    }
}

char *session_save(const session *s) {
    const game_def *def = s->def;
    text_buf b = {0};
    bool ok = buf_printf(&b, "%s\ngame %s\nplayers %d\nseed %" PRIu64 "\n", SAVE_MAGIC, def->name,
                         s->players, s->seed);
    if (s->variant[0]) ok = ok && buf_printf(&b, "variant %s\n", s->variant);
    param_value defaults[MEEPLE_MAX_PARAMS];
    params_defaults(def, defaults);
    for (int i = 0; i < def->num_params; i++) {
        if (memcmp(&defaults[i], &s->params[i], sizeof defaults[i]) == 0) continue;
        char value[128];
        params_value_text(def, i, &s->params[i], value, sizeof value);
        ok = ok && buf_printf(&b, "param %s %s\n", def->params[i].name, value);
    }
    if (s->from_table) {
        /* A state built from a table cannot be dealt again from the seed: keep its bytes. */
        ok = ok && buf_printf(&b, "start ");
        const unsigned char *bytes = s->start;
        for (size_t i = 0; ok && i < def->state_size; i++) ok = buf_printf(&b, "%02x", bytes[i]);
        ok = ok && buf_printf(&b, "\n");
    }
    void *replay = malloc(def->state_size);
    ok = ok && replay;
    if (ok) memcpy(replay, s->start, def->state_size);
    for (int i = 0; ok && i < s->history_len; i++) {
        char text[MEEPLE_ACTION_TEXT];
        def->action_text(replay, s->history[i].action, text);
        ok = buf_printf(&b, "action %s\n", text);
        def->apply(replay, s->history[i].action);
    }
    free(replay);
    if (!ok) {
        free(b.data);
        return NULL;
    }
    return b.data;
}

/* ---- loading: a line at a time, every field checked, the reason carries the line number ---- */

typedef struct save_header {
    const game_def *def;
    int players;
    uint64_t seed;
    bool has_seed;
    char variant[64];
    param_value params[MEEPLE_MAX_PARAMS];
    unsigned char *start; /* decoded start state, or NULL */
} save_header;

static bool parse_u64(const char *text, uint64_t *out) {
    if (!isdigit((unsigned char)*text)) return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end) return false;
    *out = v;
    return true;
}

/* One whole number of a save's parameter line, within [min, max]. */
static bool parse_param_number(const param_def *p, const char *text, int32_t min, int32_t max, int32_t *out,
                               reason *why) {
    char *end;
    errno = 0;
    long n = strtol(text, &end, 10);
    if (end == text || *end || errno || n < min || n > max)
        return deny(why, "bad value '%.40s' for %s", text, p->name);
    *out = (int32_t)n;
    return true;
}

/* "4=3": the value for a player count, in a by-count table. */
static bool parse_players_entry(const game_def *def, const param_def *p, char *tok, char *eq, param_value *v,
                                reason *why) {
    int32_t players = 0, value = 0;
    *eq = '\0';
    if (!parse_param_number(p, tok, def->min_players, def->max_players, &players, why) ||
        !parse_param_number(p, eq + 1, p->min, p->max, &value, why))
        return false;
    if (v->count == 1) return deny(why, "parameter %s mixes one number with values by player count", p->name);
    if (v->count == 0) {
        v->count = MEEPLE_MAX_PLAYERS + 1;
        for (int i = 0; i < v->count; i++) v->v[i] = PARAM_UNSET;
    }
    v->v[players] = value;
    return true;
}

/* "blue=4,6,8,10": a name's value (or list of `width` values), in a by-name table. */
static bool parse_name_entry(const param_def *p, char *tok, param_value *v, reason *why) {
    char *eq = strchr(tok, '=');
    if (!eq) return deny(why, "bad value '%.40s' for %s (expected name=value)", tok, p->name);
    *eq = '\0';
    int name = choice_index(p, tok), width = width_of(p);
    if (name < 0) return deny(why, "unknown name '%.40s' for %s", tok, p->name);
    if (v->count == 0) {
        v->count = name_count(p) * width;
        for (int i = 0; i < v->count; i++) v->v[i] = PARAM_UNSET;
    }
    char *item = eq + 1;
    for (int j = 0; j < width; j++) {
        char *comma = strchr(item, ',');
        if ((comma == NULL) != (j == width - 1)) return deny(why, "%s=%s: %d values expected", tok, eq + 1, width);
        if (comma) *comma = '\0';
        if (!parse_param_number(p, item, p->min, p->max, &v->v[name * width + j], why)) return false;
        item = comma + 1;
    }
    return true;
}

static bool parse_param_line(save_header *h, char *rest, reason *why) {
    char *word[MEEPLE_PARAM_VALUES + 2];
    int words = split_words(rest, word, MEEPLE_PARAM_VALUES + 2);
    if (words < 0) return deny(why, "too many values on a parameter line");
    int index = words ? params_index(h->def, word[0]) : -1;
    if (index < 0) return deny(why, "unknown parameter '%.40s' for %s", words ? word[0] : "", h->def->name);
    const param_def *p = &h->def->params[index];
    param_value v = {0};
    for (int w = 1; w < words; w++) {
        char *tok = word[w];
        char *eq = strchr(tok, '=');
        bool ok;
        if (p->kind == PARAM_BY_NAME) {
            ok = parse_name_entry(p, tok, &v, why);
        } else if (p->kind == PARAM_BY_PLAYERS && eq) {
            ok = parse_players_entry(h->def, p, tok, eq, &v, why);
        } else if (v.count >= (p->kind == PARAM_PER_SEAT ? MEEPLE_PARAM_LIST : 1)) {
            ok = deny(why, "too many values for %s", p->name);
        } else if (p->kind == PARAM_BOOL) {
            ok = strcmp(tok, "true") == 0 || strcmp(tok, "false") == 0 ||
                 deny(why, "bad value '%.40s' for %s (true or false)", tok, p->name);
            v.v[v.count++] = strcmp(tok, "true") == 0;
        } else if (p->kind == PARAM_CHOICE) {
            int c = choice_index(p, tok);
            ok = c >= 0 || deny(why, "bad value '%.40s' for %s", tok, p->name);
            v.v[v.count++] = c;
        } else {
            ok = parse_param_number(p, tok, p->min, p->max, &v.v[v.count++], why);
        }
        if (!ok) return false;
    }
    if (v.count == 0) return deny(why, "missing values for %s", p->name);
    h->params[index] = v;
    return true;
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

static bool parse_start_line(save_header *h, const char *hex, reason *why) {
    size_t size = h->def->state_size;
    if (strlen(hex) != size * 2)
        return deny(why, "the start state has the wrong size (made by another version of meeple?)");
    free(h->start);
    h->start = malloc(size);
    if (!h->start) return deny(why, "out of memory");
    for (size_t i = 0; i < size; i++) {
        int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return deny(why, "the start state is not hexadecimal");
        h->start[i] = (unsigned char)(hi * 16 + lo);
    }
    if (!h->def->validate(h->start, why)) return false;
    return true;
}

/* One header line "key value"; false with the reason when it is not one this version knows. */
static bool parse_header_line(save_header *h, char *line, reason *why) {
    char *space = strchr(line, ' ');
    if (!space) return deny(why, "expected 'key value', got '%.40s'", line);
    *space = '\0';
    char *key = line, *value = space + 1;
    if (strcmp(key, "game") == 0) {
        if (h->def) return deny(why, "the game is named twice");
        h->def = game_find(value);
        if (!h->def) return deny(why, "unknown game '%.40s'; games: %s", value, game_names());
        params_defaults(h->def, h->params);
        return true;
    }
    if (!h->def) return deny(why, "the game must be named first");
    if (strcmp(key, "players") == 0) {
        uint64_t n;
        if (!parse_u64(value, &n) || n > MEEPLE_MAX_PLAYERS) return deny(why, "bad player count");
        h->players = (int)n;
        return true;
    }
    if (strcmp(key, "seed") == 0) {
        if (!parse_u64(value, &h->seed)) return deny(why, "the seed is not a whole number");
        h->has_seed = true;
        return true;
    }
    if (strcmp(key, "variant") == 0) {
        snprintf(h->variant, sizeof h->variant, "%s", value);
        return true;
    }
    if (strcmp(key, "param") == 0) return parse_param_line(h, value, why);
    if (strcmp(key, "start") == 0) return parse_start_line(h, value, why);
    return deny(why, "unknown entry '%.40s'", key);
}

static session *session_from_header(save_header *h, reason *why) {
    if (!h->def) {
        deny(why, "no game is named");
        return NULL;
    }
    if (!h->has_seed) {
        deny(why, "no seed is given");
        return NULL;
    }
    session *s;
    if (h->start) {
        s = session_begin(h->def, h->params, h->seed, why);
        if (!s) return NULL;
        /* Checked as session_from_table checks a table: no position a table could not give loads. */
        if (!tree_state_checks(h->def, h->start, h->params, h->seed, why)) {
            session_free(s);
            return NULL;
        }
        memcpy(s->start, h->start, h->def->state_size);
        memcpy(s->now, h->start, h->def->state_size);
        s->from_table = true;
        s->players = h->def->num_players(s->start);
        if (h->players && h->players != s->players) {
            deny(why, "the start state has %d players, the header says %d", s->players, h->players);
            session_free(s);
            return NULL;
        }
    } else {
        s = session_new(h->def, h->players, h->params, h->seed, why);
        if (!s) return NULL;
    }
    snprintf(s->variant, sizeof s->variant, "%s", h->variant);
    return s;
}

session *session_load(const char *text, reason *why) {
    save_header h = {0};
    session *s = NULL;
    char *copy = strdup(text ? text : "");
    if (!copy) {
        deny(why, "out of memory");
        return NULL;
    }
    int line_no = 0;
    reason inner;
    bool ok = true;
    for (char *line = copy, *next; ok && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        else next = line + strlen(line);
        line_no++;
        size_t len = strlen(line);
        if (len && line[len - 1] == '\r') line[len - 1] = '\0';
        if (line_no > 1 && line[0] == '\0') continue; /* blank lines are harmless */
        if (line_no == 1) {
            ok = strcmp(line, SAVE_MAGIC) == 0;
            if (!ok) deny(&inner, "this is not a meeple save (it should start with '%s')", SAVE_MAGIC);
        } else if (strncmp(line, "action ", 7) == 0) {
            if (!s) s = session_from_header(&h, &inner);
            ok = s && session_play_text(s, line + 7, &inner);
        } else if (s) {
            ok = deny(&inner, "only actions may follow the first action");
        } else {
            ok = parse_header_line(&h, line, &inner);
        }
    }
    if (ok && line_no == 0) ok = deny(&inner, "the save text is empty");
    if (ok && !s) {
        s = session_from_header(&h, &inner);
        ok = s != NULL;
    }
    if (!ok) {
        deny(why, "bad save, line %d: %s", line_no, inner.text);
        session_free(s);
        s = NULL;
    }
    free(h.start);
    free(copy);
    return s;
}
