/* matchlog.c — the match log's records (format version 2) written and read with jansson, and the
 * results table they add up to. One writer, one reader: `match` writes and resumes, `merge` reads,
 * the fuzzer (tests/fuzz/fuzz_log.c) feeds the reader hostile lines. */
#include "host/matchlog.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/shortest_json.h"
#include <meeple/session.h>
#include <meeple/registry.h>
#include <meeple/rng.h>
#include "host/text.h"

#ifndef MEEPLE_VERSION
#define MEEPLE_VERSION "0"
#endif

/* Timings are logged to the microsecond, printed with 15 significant digits: a value read back and
 * written again gives the same text, so a resumed log's records compare byte for byte. */
#define MATCHLOG_DUMP_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(15))
#define MATCHLOG_MAX_MS 1e12

long long matchlog_block(const matchlog_match *m) { return seating_block(m->seating, m->players); }

long long matchlog_deal(const matchlog_match *m, long long game) { return game / matchlog_block(m); }

long long matchlog_game_seed(long long match_seed, long long deal) {
    return (long long)(rng_derive((uint64_t)match_seed, (uint64_t)deal) & MEEPLE_SEED_MAX);
}

long long matchlog_seed_of_game(const matchlog_match *m, long long game) {
    return matchlog_game_seed(m->match_seed, matchlog_deal(m, game));
}

int matchlog_bot_of_seat(const matchlog_match *m, long long game, int seat) {
    int bots[MEEPLE_MAX_PLAYERS];
    seating_of_game(m->seating, m->players, game, (uint64_t)matchlog_seed_of_game(m, game), bots);
    return bots[seat];
}

/* ==================================================================================== writing */

/* One parameter's value: a number, a choice's name, a boolean, null where the game decides, or
 * the list of integers of a list-valued one (null where an entry is left to the game). */
static json_t *param_json(const param_def *d, const param_value *v) {
    if (v->count == 0) return json_null();
    if (d->kind == PARAM_BOOL) return json_boolean(v->v[0]);
    if (d->kind == PARAM_CHOICE) {
        int n = 0;
        while (d->choices && d->choices[n]) n++;
        return v->v[0] >= 0 && v->v[0] < n ? json_string(d->choices[v->v[0]]) : json_integer(v->v[0]);
    }
    if (d->kind == PARAM_INT || (d->kind == PARAM_PER_SEAT && v->count == 1)) return json_integer(v->v[0]);
    json_t *list = json_array();
    for (int i = 0; list && i < v->count && i < MEEPLE_PARAM_VALUES; i++)
        json_array_append_new(list, v->v[i] == PARAM_UNSET ? json_null() : json_integer(v->v[i]));
    return list;
}

static json_t *params_json(const game_def *def, const param_value *params) {
    json_t *obj = json_object();
    for (int i = 0; obj && i < def->num_params; i++)
        json_object_set_new(obj, def->params[i].name, param_json(&def->params[i], &params[i]));
    return obj;
}

static json_t *int_list(const int *v, int n, int offset) {
    json_t *list = json_array();
    for (int i = 0; list && i < n; i++) json_array_append_new(list, json_integer(v[i] + offset));
    return list;
}

static json_t *long_list(const long long *v, int n) {
    json_t *list = json_array();
    for (int i = 0; list && i < n; i++) json_array_append_new(list, json_integer(v[i]));
    return list;
}

static json_t *ms_list(const double *v, int n) {
    json_t *list = json_array();
    for (int i = 0; list && i < n; i++) json_array_append_new(list, json_real(round(v[i] * 1e3) / 1e3));
    return list;
}

static json_t *names_list(const matchlog_match *m, long long game) {
    json_t *list = json_array();
    for (int s = 0; list && s < m->players; s++)
        json_array_append_new(list, json_string(game < 0 ? m->bots[s] : m->bots[matchlog_bot_of_seat(m, game, s)]));
    return list;
}

static json_t *forfeits_json(const matchlog_game *g) {
    if (g->forfeit < 0) return json_array();
    return json_pack("[{s:i,s:s}]", "seat", g->forfeit + 1, "reason", g->reason);
}

/* The SPRT's settings, which are part of the match (a resume must test the same), or NULL without one. */
static json_t *sprt_settings(const matchlog_match *m) {
    if (!m->sprt) return NULL;
    return json_pack("{s:f,s:f,s:f,s:f}", "p0", m->p0, "p1", m->p1, "alpha", m->alpha, "beta", m->beta);
}

char *matchlog_write(const matchlog_match *m, const matchlog_game *g, json_t *actions, json_t *by) {
    int p = m->players;
    json_t *rec = json_pack(
        "{s:i,s:s,s:I,s:I,s:s,s:I,s:s,s:I,s:o*,s:I,s:s?,s:o,s:i,s:o,s:o,s:o,s:o,s:o,s:o*,s:O,s:O,s:o,s:o,s:o}", "log",
        MATCHLOG_VERSION, "meeple", MEEPLE_VERSION, "index", (json_int_t)(g->game + 1), "deal",
        (json_int_t)(matchlog_deal(m, g->game) + 1), "game", m->def->name, "games", (json_int_t)m->games,
        "seating", seating_name(m->seating), "match_seed", (json_int_t)m->match_seed, "sprt", sprt_settings(m), "seed",
        (json_int_t)matchlog_seed_of_game(m, g->game), "variant", m->variant, "params",
        params_json(m->def, m->params), "players", p, "bots", names_list(m, -1), "seats", names_list(m, g->game),
        "scores", int_list(g->scores, p, 0), "winners", int_list(g->winners, g->nwinners, 1), "forfeits",
        forfeits_json(g), "unfinished", g->unfinished ? json_integer((json_int_t)g->unfinished) : NULL, "actions",
        actions, "by", by, "decisions", long_list(g->decisions, p), "ms", ms_list(g->ms, p), "ms_max",
        ms_list(g->ms_max, p));
    if (!rec) return NULL;
    char *text = json_dumps(rec, MATCHLOG_DUMP_FLAGS);
    json_decref(rec);
    size_t len = text ? strlen(text) : 0;
    char *line = text ? realloc(text, len + 2) : NULL;
    if (!line) {
        free(text);
        return NULL;
    }
    memcpy(line + len, "\n", 2);
    return line;
}

json_t *matchlog_identity(const matchlog_match *m) {
    json_t *sprt = sprt_settings(m);
    return json_pack("{s:i,s:s,s:s,s:I,s:s,s:I,s:o,s:s?,s:o,s:i,s:o}", "log", MATCHLOG_VERSION, "meeple", MEEPLE_VERSION,
                     "game", m->def->name, "games", (json_int_t)m->games, "seating", seating_name(m->seating),
                     "match_seed", (json_int_t)m->match_seed, "sprt", sprt ? sprt : json_null(),
                     "variant", m->variant, "params", params_json(m->def, m->params), "players", m->players, "bots",
                     names_list(m, -1));
}

bool matchlog_same_match(json_t *a, json_t *b, char *field, size_t n) {
    const char *key;
    json_t *value;
    json_object_foreach(a, key, value) {
        if (!json_equal(value, json_object_get(b, key))) return snprintf(field, n, "%s", key), false;
    }
    return true;
}

/* ==================================================================================== reading */

/* Each check returns false with the reason in `why`. */
#define REFUSE(...) (snprintf(why, n, __VA_ARGS__), false)

static bool whole(json_t *v, long long min, long long max, long long *out) {
    if (!json_is_integer(v)) return false;
    long long x = (long long)json_integer_value(v);
    if (x < min || x > max) return false;
    *out = x;
    return true;
}

/* A string of at most max - 1 bytes without NUL (JSON allows \u0000, C strings stop there). */
static bool text_field(json_t *v, size_t max) {
    return json_is_string(v) && json_string_length(v) < max && strlen(json_string_value(v)) == json_string_length(v);
}

static bool int_array(json_t *list, int count, long long min, long long max, long long *out) {
    if (!json_is_array(list) || (int)json_array_size(list) != count) return false;
    for (int i = 0; i < count; i++)
        if (!whole(json_array_get(list, (size_t)i), min, max, &out[i])) return false;
    return true;
}

static bool ms_array(json_t *list, int count, double *out) {
    if (!json_is_array(list) || (int)json_array_size(list) != count) return false;
    for (int i = 0; i < count; i++) {
        json_t *v = json_array_get(list, (size_t)i);
        out[i] = json_number_value(v);
        if (!json_is_number(v) || !(out[i] >= 0 && out[i] <= MATCHLOG_MAX_MS)) return false;
    }
    return true;
}

/* A probability in (0, max): the SPRT's hypotheses (max 1) and error bounds (max 0.5). */
static bool fraction(json_t *v, double max, double *out) {
    *out = json_number_value(v);
    return json_is_real(v) && *out > 0 && *out < max;
}

/* The SPRT's settings: absent without one, else p0 and p1 (different) with alpha and beta, nothing else. */
static bool read_sprt(json_t *v, matchlog_match *mm) {
    mm->sprt = v != NULL;
    if (!v) return true;
    return json_is_object(v) && json_object_size(v) == 4 && fraction(json_object_get(v, "p0"), 1, &mm->p0) &&
           fraction(json_object_get(v, "p1"), 1, &mm->p1) && mm->p0 != mm->p1 &&
           fraction(json_object_get(v, "alpha"), 0.5, &mm->alpha) &&
           fraction(json_object_get(v, "beta"), 0.5, &mm->beta);
}

/* The match's fields into mm (its design and seed, for the games' own fields): format, version, game,
 * size, seating, seed, variant, players, bots. */
static bool read_match(json_t *rec, matchlog_match *mm, char *why, size_t n) {
    long long num;
    const game_def **def = &mm->def;
    long long *games = &mm->games, *match_seed = &mm->match_seed;
    int *players = &mm->players;
    json_t *log = json_object_get(rec, "log"), *game = json_object_get(rec, "game"),
           *variant = json_object_get(rec, "variant"), *bots = json_object_get(rec, "bots"),
           *seating = json_object_get(rec, "seating");
    if (!log) return REFUSE("it has no \"log\" version: a log from meeple 0.1 (merge and resume need format 3)");
    if (whole(log, 2, 2, &num))
        return REFUSE("its \"log\" is format 2: a log from meeple 0.2, before seating designs (merge and resume "
                      "need format 3; replay and report read it)");
    if (!whole(log, MATCHLOG_VERSION, MATCHLOG_VERSION, &num)) return REFUSE("its \"log\" is not format 3");
    if (!text_field(json_object_get(rec, "meeple"), 32)) return REFUSE("its \"meeple\" version is damaged");
    *def = text_field(game, 32) ? game_find(json_string_value(game)) : NULL;
    if (!*def) return REFUSE("its \"game\" is not a game of this meeple");
    if (!whole(json_object_get(rec, "games"), 1, MATCHLOG_MAX_GAMES, games))
        return REFUSE("its \"games\" is not a number of games");
    if (!json_is_string(seating) || !seating_parse(json_string_value(seating), &mm->seating))
        return REFUSE("its \"seating\" is not a design (%s)", SEATING_NAMES);
    if (!whole(json_object_get(rec, "match_seed"), 0, MEEPLE_SEED_MAX, match_seed))
        return REFUSE("its \"match_seed\" is not a seed");
    if (!read_sprt(json_object_get(rec, "sprt"), mm)) return REFUSE("its \"sprt\" is damaged");
    if (!variant || !(json_is_null(variant) || text_field(variant, 1024)))
        return REFUSE("its \"variant\" is damaged");
    if (!json_is_object(json_object_get(rec, "params"))) return REFUSE("its \"params\" is not an object");
    if (!whole(json_object_get(rec, "players"), (*def)->min_players, (*def)->max_players, &num))
        return REFUSE("its \"players\" is not a player count of %s", (*def)->name);
    *players = (int)num;
    long long block = seating_block(mm->seating, *players);
    if (block == 0) return REFUSE("its \"seating\" cannot seat %d players", *players);
    if (*games % block != 0) return REFUSE("its \"games\" are not whole deals of %lld games", block);
    if (!json_is_array(bots) || (int)json_array_size(bots) != *players)
        return REFUSE("its \"bots\" are not one per player");
    for (int i = 0; i < *players; i++) {
        if (!text_field(json_array_get(bots, (size_t)i), MATCHLOG_NAME)) return REFUSE("its bot %d is damaged", i + 1);
        for (int j = 0; j < i; j++)
            if (json_equal(json_array_get(bots, (size_t)i), json_array_get(bots, (size_t)j)))
                return REFUSE("two of its bots have the same name");
    }
    return true;
}

/* "unfinished": absent for a game that ended; else the decision cap it reached, without a forfeit and
 * with every seat a winner (a draw shared by all). Its actions are counted against it in read_decisions. */
static bool read_unfinished(json_t *rec, int players, matchlog_game *g, char *why, size_t n) {
    json_t *cap = json_object_get(rec, "unfinished");
    g->unfinished = 0;
    if (!cap) return true;
    if (!whole(cap, 1, MATCHLOG_MAX_DECISIONS, &g->unfinished))
        return REFUSE("its \"unfinished\" is not a decision cap 1..%d", MATCHLOG_MAX_DECISIONS);
    if (g->forfeit >= 0) return REFUSE("it is both unfinished and forfeited");
    if (g->nwinners != players) return REFUSE("it is unfinished, but not every seat is among its \"winners\"");
    return true;
}

/* The game's own fields: index, deal, seed, seats (as the design puts the bots), scores, winners, forfeit. */
static bool read_outcome(json_t *rec, const matchlog_match *mm, matchlog_game *g, char *why, size_t n) {
    long long games = mm->games, match_seed = mm->match_seed, index, num, list[MEEPLE_MAX_PLAYERS];
    int players = mm->players;
    json_t *bots = json_object_get(rec, "bots"), *seats = json_object_get(rec, "seats"),
           *winners = json_object_get(rec, "winners"), *forfeits = json_object_get(rec, "forfeits");
    if (!whole(json_object_get(rec, "index"), 1, games, &index)) return REFUSE("its \"index\" is not 1..%lld", games);
    g->game = index - 1;
    if (!whole(json_object_get(rec, "deal"), 1, games, &num) || num != matchlog_deal(mm, g->game) + 1)
        return REFUSE("its \"deal\" is not the one its index gives under %s seating", seating_name(mm->seating));
    if (!whole(json_object_get(rec, "seed"), 0, MEEPLE_SEED_MAX, &num) || num != matchlog_seed_of_game(mm, g->game))
        return REFUSE("its \"seed\" is not the one match_seed %lld gives game %lld", match_seed, index);
    if (!json_is_array(seats) || (int)json_array_size(seats) != players) return REFUSE("its \"seats\" are damaged");
    for (int s = 0; s < players; s++)
        if (!json_equal(json_array_get(seats, (size_t)s),
                        json_array_get(bots, (size_t)matchlog_bot_of_seat(mm, g->game, s))))
            return REFUSE("its seat %d is not the bot the %s seating puts there", s + 1, seating_name(mm->seating));
    if (!int_array(json_object_get(rec, "scores"), players, -1000000000, 1000000000, list))
        return REFUSE("its \"scores\" are damaged");
    for (int s = 0; s < players; s++) g->scores[s] = (int)list[s];
    g->nwinners = json_is_array(winners) ? (int)json_array_size(winners) : -1;
    if (g->nwinners < 0 || g->nwinners > players || !int_array(winners, g->nwinners, 1, players, list))
        return REFUSE("its \"winners\" are damaged");
    for (int i = 0; i < g->nwinners; i++) {
        g->winners[i] = (int)list[i] - 1;
        for (int j = 0; j < i; j++)
            if (g->winners[j] == g->winners[i]) return REFUSE("its \"winners\" name a seat twice");
    }
    g->forfeit = -1;
    if (!json_is_array(forfeits) || json_array_size(forfeits) > 1) return REFUSE("its \"forfeits\" are damaged");
    if (json_array_size(forfeits) == 1) {
        json_t *f = json_array_get(forfeits, 0), *reason = json_object_get(f, "reason");
        if (!whole(json_object_get(f, "seat"), 1, players, &num) || !text_field(reason, MATCHLOG_REASON))
            return REFUSE("its forfeit is damaged");
        g->forfeit = (int)num - 1;
        snprintf(g->reason, sizeof g->reason, "%s", json_string_value(reason));
    }
    return read_unfinished(rec, players, g, why, n);
}

/* The decisions: actions, who took each, and the counts and times by seat. */
static bool read_decisions(json_t *rec, int players, matchlog_game *g, char *why, size_t n) {
    json_t *actions = json_object_get(rec, "actions"), *by = json_object_get(rec, "by");
    long long seat, taken[MEEPLE_MAX_PLAYERS] = {0}, total = 0;
    if (!json_is_array(actions) || json_array_size(actions) > MATCHLOG_MAX_DECISIONS)
        return REFUSE("its \"actions\" are damaged");
    if (!json_is_array(by) || json_array_size(by) != json_array_size(actions))
        return REFUSE("its \"by\" is not as long as its \"actions\"");
    for (size_t i = 0; i < json_array_size(actions); i++) {
        if (!text_field(json_array_get(actions, i), MEEPLE_ACTION_TEXT))
            return REFUSE("its action %zu is not an action's text", i + 1);
        if (!whole(json_array_get(by, i), 1, players, &seat)) return REFUSE("its \"by\" %zu is not a seat", i + 1);
        taken[seat - 1]++;
    }
    if (!int_array(json_object_get(rec, "decisions"), players, 0, MATCHLOG_MAX_DECISIONS, g->decisions))
        return REFUSE("its \"decisions\" are damaged");
    for (int s = 0; s < players; s++) {
        total += g->decisions[s];
        if (g->decisions[s] < taken[s]) return REFUSE("its \"decisions\" are fewer than seat %d's actions", s + 1);
    }
    /* A forfeit may be a decision that gave no action (a bot that failed while choosing). */
    if (g->unfinished && (long long)json_array_size(actions) != g->unfinished)
        return REFUSE("it is unfinished at %lld decisions, but has %zu actions", g->unfinished, json_array_size(actions));
    long long extra = total - (long long)json_array_size(actions);
    if (extra != 0 && !(extra == 1 && g->forfeit >= 0)) return REFUSE("its \"decisions\" do not add up to its actions");
    if (!ms_array(json_object_get(rec, "ms"), players, g->ms) ||
        !ms_array(json_object_get(rec, "ms_max"), players, g->ms_max))
        return REFUSE("its \"ms\" or \"ms_max\" are damaged");
    for (int s = 0; s < players; s++)
        if (g->ms_max[s] > g->ms[s] + 1e-3) return REFUSE("its \"ms_max\" exceeds its \"ms\"");
    return true;
}

bool matchlog_line_bounded(const char *line, size_t len, char *why, size_t n) {
    long long values = 1, tables = 0;
    int depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        char c = line[i];
        if (in_string) {
            if (c == '\\') i++;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') in_string = true;
        else if (c == ',') values++;
        else if (c == '{' || c == '[') {
            tables++;
            if (++depth > MATCHLOG_MAX_DEPTH)
                return snprintf(why, n, "its JSON is nested deeper than %d", MATCHLOG_MAX_DEPTH), false;
        } else if (c == '}' || c == ']') {
            depth--;
        }
    }
    if (tables > MATCHLOG_MAX_TABLES)
        return snprintf(why, n, "its JSON has more than %d objects and arrays; not a match log", MATCHLOG_MAX_TABLES),
               false;
    if (values > MATCHLOG_MAX_VALUES)
        return snprintf(why, n, "its JSON has more than %d values; not a match log", MATCHLOG_MAX_VALUES), false;
    return true;
}

json_t *matchlog_read(const char *line, size_t len, matchlog_game *g, json_t **id, char *why, size_t n) {
    json_error_t err;
    matchlog_match mm = {0};
    *g = (matchlog_game){.forfeit = -1};
    *id = NULL;
    if (len > MATCHLOG_MAX_LINE) return snprintf(why, n, "the line is longer than %u bytes", MATCHLOG_MAX_LINE), NULL;
    if (!matchlog_line_bounded(line, len, why, n)) return NULL;
    json_t *rec = json_loadb(line, len, JSON_REJECT_DUPLICATES, &err);
    if (!rec) return snprintf(why, n, "it is not JSON: %s", err.text), NULL;
    bool ok = json_is_object(rec) || REFUSE("it is not a JSON object");
    ok = ok && read_match(rec, &mm, why, n) && read_outcome(rec, &mm, g, why, n) &&
         read_decisions(rec, mm.players, g, why, n);
    if (ok) {
        json_t *sprt = json_object_get(rec, "sprt");
        *id = json_pack("{s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:O}", "log", json_object_get(rec, "log"), "meeple",
                        json_object_get(rec, "meeple"), "game", json_object_get(rec, "game"), "games",
                        json_object_get(rec, "games"), "seating", json_object_get(rec, "seating"), "match_seed",
                        json_object_get(rec, "match_seed"), "sprt", sprt ? sprt : json_null(), "variant",
                        json_object_get(rec, "variant"), "params", json_object_get(rec, "params"), "players",
                        json_object_get(rec, "players"), "bots", json_object_get(rec, "bots"));
        ok = *id || REFUSE("out of memory");
    }
    if (!ok) {
        json_decref(rec);
        return NULL;
    }
    return rec;
}

/* ==================================================================================== the tally */

void matchlog_sprt_bounds(matchlog_sprt *s) {
    s->lower = log(s->beta / (1 - s->alpha));
    s->upper = log((1 - s->beta) / s->alpha);
}

double matchlog_sprt_llr(const matchlog_sprt *s, long long deals, long long block, double sum, double sq) {
    if (deals < 2) return 0;
    /* The variance of a deal's mean score from the deals' spread pooled with one pseudo-deal of the
     * largest variance such a mean can have (1/4: a value in [0, 1]), weighted as one deal more. Deals
     * that all score alike (identical bots tie in every balanced deal) then still leave a variance of
     * 0.25/n, not zero, and there is no division by zero. */
    (void)block;
    double n = (double)deals, mean = sum / n, spread = sq - sum * mean;
    double var = ((spread > 0 ? spread : 0) + 0.25) / n;
    /* Per trial, log N(x; p1, var) - log N(x; p0, var) = (p1 - p0)(2x - p0 - p1) / (2 var); summed. */
    return n * (s->p1 - s->p0) * (2 * mean - s->p0 - s->p1) / (2 * var);
}

/* A completed deal: its win rates and mean scores into the sums by deal, the tally as it now stands
 * kept as the results', and the SPRT's step. */
static void close_deal(matchlog_tally *t, long long block) {
    t->deals++;
    for (int s = 0; s < t->m->players; s++) {
        double w = (double)t->seat_deal_wins[s] / (double)block;
        t->done.seat_wins_by_deal[s] += w;
        t->done.seat_wins_by_deal_sq[s] += w * w;
        t->seat_deal_wins[s] = 0;
    }
    for (int i = 0; i < t->m->players; i++) {
        matchlog_bot_stats *b = &t->stats[i];
        double w = b->deal_wins / (double)block, p = b->deal_points / (double)block;
        b->wins_by_deal += w;
        b->wins_by_deal_sq += w * w;
        b->points_by_deal += p;
        b->points_by_deal_sq += p * p;
        b->deal_wins = b->deal_points = 0;
    }
    memcpy(t->done.stats, t->stats, sizeof t->stats);
    memcpy(t->done.seat_wins, t->seat_wins, sizeof t->seat_wins);
    t->done.seat_games = t->seat_games;
    matchlog_sprt *s = &t->sprt;
    if (!s->on || s->result >= 0) return;
    s->games = t->seat_games;
    s->llr = matchlog_sprt_llr(s, t->deals, block, t->stats[0].points_by_deal, t->stats[0].points_by_deal_sq);
    /* A handful of deals says little about the spread between them: no decision before the minimum. */
    if (t->deals < MATCHLOG_SPRT_MIN_DEALS) return;
    if (s->llr >= s->upper) s->result = 1;
    else if (s->llr <= s->lower) s->result = 0;
}

bool matchlog_count(matchlog_tally *t, const matchlog_game *g) {
    int players = t->m->players;
    if (t->sprt.on && t->sprt.result >= 0) return true; /* decided: what follows is not counted */
    t->seat_games++;
    for (int s = 0; s < players; s++) {
        matchlog_bot_stats *b = &t->stats[matchlog_bot_of_seat(t->m, g->game, s)];
        bool won = false;
        for (int i = 0; i < g->nwinners; i++) won |= g->winners[i] == s;
        b->games++;
        b->score_sum += g->scores[s];
        if (won) {
            b->points += 1.0 / g->nwinners;
            b->deal_points += 1.0 / g->nwinners;
        }
        if (won && g->nwinners == 1) b->deal_wins++;
        if (won && g->nwinners == 1) {
            b->wins++;
            t->seat_wins[s]++;
            t->seat_deal_wins[s]++;
        } else if (won) {
            b->draws++;
        } else {
            b->losses++;
        }
        if (g->forfeit == s) b->forfeits++;
        b->decisions += g->decisions[s];
        b->ms_sum += g->ms[s];
        if (g->ms_max[s] > b->ms_max) b->ms_max = g->ms_max[s];
    }
    long long block = matchlog_block(t->m);
    if (g->game % block == block - 1) close_deal(t, block);
    if (g->unfinished) {
        t->capped++;
        if (g->unfinished > t->cap) t->cap = g->unfinished;
    }
    if (g->forfeit < 0) return true;
    if (t->forfeit_count < MATCHLOG_FORFEITS_KEPT) {
        if (t->forfeit_count == t->forfeits_cap) {
            long long cap = t->forfeits_cap ? t->forfeits_cap * 2 : 16;
            matchlog_forfeit *grown = realloc(t->forfeits, (size_t)cap * sizeof *grown);
            if (!grown) return false;
            t->forfeits = grown;
            t->forfeits_cap = cap;
        }
        t->forfeits[t->forfeit_count] = (matchlog_forfeit){
            .game = g->game, .seat = g->forfeit, .bot = matchlog_bot_of_seat(t->m, g->game, g->forfeit)};
        memcpy(t->forfeits[t->forfeit_count].reason, g->reason, sizeof g->reason);
    }
    t->forfeit_count++;
    return true;
}

void matchlog_all_win(matchlog_game *g, int players) {
    g->nwinners = players;
    for (int s = 0; s < players; s++) g->winners[s] = s;
}

void matchlog_tally_free(matchlog_tally *t) {
    free(t->forfeits);
    t->forfeits = NULL;
    t->forfeits_cap = 0;
}

/* ==================================================================================== printing */

/* The 95% Wilson score interval of k successes in n trials. */
static void wilson(long long k, long long n, double *lo, double *hi) {
    if (n == 0) {
        *lo = 0;
        *hi = 1;
        return;
    }
    double z = 1.959963984540054, p = (double)k / (double)n, nn = (double)n, z2 = z * z;
    double denom = 1 + z2 / nn, centre = (p + z2 / (2 * nn)) / denom;
    double half = z * sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn)) / denom;
    /* At k = 0 or k = n the bound is exactly 0 or 1: no rounding residue in the JSON. */
    *lo = k == 0 || centre - half < 0 ? 0 : centre - half;
    *hi = k == n || centre + half > 1 ? 1 : centre + half;
}

static double rate(long long k, long long n) { return n ? (double)k / (double)n : 0.0; }

/* The 97.5% quantile of Student's t with `df` degrees of freedom: exact to 3 decimals up to 30, then
 * the normal quantile with its first Cornish-Fisher correction (within 0.001 of the table from 30 on). */
static double t975(long long df) {
    static const double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                   2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                   2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    double z = 1.959963984540054;
    if (df >= 1 && df <= 30) return table[df - 1];
    return z + (z * z * z + z) / (4.0 * (double)df);
}

/* The 95% Wilson score interval of a proportion p observed over n trials (n > 0). */
static void wilson_p(double p, double nn, double *lo, double *hi) {
    double z = 1.959963984540054, z2 = z * z;
    double denom = 1 + z2 / nn, centre = (p + z2 / (2 * nn)) / denom;
    double half = z * sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn)) / denom;
    /* At p = 0 or p = 1 the bound is exactly 0 or 1: no rounding residue in the JSON. */
    *lo = p <= 0 || centre - half < 0 ? 0 : centre - half;
    *hi = p >= 1 || centre + half > 1 ? 1 : centre + half;
}

/* The 95% interval of a mean from `deals` deals' values (their sum and sum of squares): the deals are
 * the independent trials of a match with duplicate deals, so the spread between them is what the
 * mean's error is made of: Student's t with deals - 1 degrees of freedom. When every deal came out the
 * same the spread says nothing (it is not evidence of no error): Wilson's interval then, the deals as
 * the trials and the mean as the proportion. */
static void by_deal(double sum, double sq, long long deals, double *lo, double *hi) {
    *lo = 0;
    *hi = 1;
    if (deals < 1) return;
    double n = (double)deals, mean = sum / n, var = deals > 1 ? (sq - sum * mean) / (n - 1) : 0;
    if (!(var > 1e-12)) {
        wilson_p(mean < 0 ? 0 : mean > 1 ? 1 : mean, n, lo, hi);
        return;
    }
    double half = t975(deals - 1) * sqrt(var / n);
    *lo = mean - half < 0 ? 0 : mean - half;
    *hi = mean + half > 1 ? 1 : mean + half;
}

/* A bot's win-rate interval: by deal, or Wilson's when each game is its own deal (random seating). */
static void win_interval(const matchlog_tally *t, const matchlog_bot_stats *b, double *lo, double *hi) {
    if (matchlog_block(t->m) == 1) wilson(b->wins, b->games, lo, hi);
    else by_deal(b->wins_by_deal, b->wins_by_deal_sq, t->deals, lo, hi);
}

/* A seat's win-rate interval, the same way: the games of a deal share their luck, whoever sits there. */
static void seat_interval(const matchlog_tally *t, int s, double *lo, double *hi) {
    if (matchlog_block(t->m) == 1) wilson(t->done.seat_wins[s], t->done.seat_games, lo, hi);
    else by_deal(t->done.seat_wins_by_deal[s], t->done.seat_wins_by_deal_sq[s], t->deals, lo, hi);
}

static void print_interval(FILE *out, double value, double lo, double hi) {
    fprintf(out, "  %6.1f%%  [%5.1f%%, %5.1f%%]", 100.0 * value, 100 * lo, 100 * hi);
}

static void print_sprt(FILE *out, const matchlog_sprt *s) {
    if (!s->on) return;
    fprintf(out, "\nSPRT: first bot's score %g (H0) against %g (H1), alpha %g, beta %g: LLR %.3f, bounds [%.3f, %.3f]: ",
            s->p0, s->p1, s->alpha, s->beta, s->llr, s->lower, s->upper);
    if (s->result == 1) fprintf(out, "H1 accepted after %lld games", s->games);
    else if (s->result == 0) fprintf(out, "H0 accepted after %lld games", s->games);
    else fprintf(out, "no decision after %lld games", s->games);
}

/* n with thousands separated by commas, as a person writes it: 200,000. */
static const char *thousands(long long n, char *buf, size_t size) {
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%lld", n < 0 ? 0 : n), j = 0;
    for (int i = 0; i < len && (size_t)j + 2 < size; i++) {
        if (i > 0 && (len - i) % 3 == 0) buf[j++] = ',';
        buf[j++] = digits[i];
    }
    buf[j] = '\0';
    return buf;
}

/* Games the decision cap stopped (match --max-decisions): how many, and how they were counted. */
static void print_capped(FILE *out, const matchlog_tally *t) {
    if (!t->capped) return;
    char cap[40];
    fprintf(out, "\n%lld game%s of %lld unfinished at %s decisions, counted as a draw shared by all seats "
                 "(--max-decisions).", t->capped, t->capped == 1 ? "" : "s", t->seat_games,
            thousands(t->cap, cap, sizeof cap));
}

static void print_header(FILE *out, const matchlog_tally *t, const matchlog_notes *notes) {
    const matchlog_match *m = t->m;
    long long block = matchlog_block(m);
    fprintf(out, "%s: %lld games, %lld deal%s of %lld, %s seating, seed %lld", m->def->name, t->seat_games,
            t->deals, t->deals == 1 ? "" : "s", block, seating_name(m->seating), m->match_seed);
    if (notes->from_log || notes->cut_line) fprintf(out, " (%lld from the log", notes->from_log);
    if (notes->cut_line)
        fprintf(out, ", whose line %lld was cut short: its game was played again", notes->cut_line);
    if (notes->from_log || notes->cut_line) fprintf(out, ")");
    if (notes->shards > 1)
        fprintf(out, "\nShard %lld of %lld: the games i with (i-1) mod %lld = %lld; meeple merge joins the shards' logs.",
                notes->shard + 1, notes->shards, notes->shards, notes->shard);
    if (notes->interrupted_at)
        fprintf(out, "\nInterrupted after %lld of %lld games: --resume with the same log plays the rest.",
                t->seat_games, notes->interrupted_at);
    if (notes->seed_drawn) fprintf(out, "\nThe seed was drawn at random: --seed %lld plays this match again.",
                                   m->match_seed);
    long long left_out = t->seat_games - t->done.seat_games;
    if (left_out > 0)
        fprintf(out, "\nThe unfinished deal's %lld game%s %s left out of the results: they count whole deals only.",
                left_out, left_out == 1 ? "" : "s", left_out == 1 ? "is" : "are");
    print_sprt(out, &t->sprt);
    print_capped(out, t);
    fprintf(out, "\n");
}

/* Which file each name came from: two bots may call themselves the same. */
static void print_files(FILE *out, const matchlog_tally *t, const matchlog_notes *notes, int width) {
    if (!notes->files) return;
    fprintf(out, "\n%-*s  file\n", width, "bot");
    for (int i = 0; i < t->m->players; i++) {
        fprintf(out, "%-*s  ", width, t->m->bots[i]);
        text_write(out, notes->files[i], strlen(notes->files[i]), false);
        fprintf(out, "\n");
    }
}

static void print_forfeits(FILE *out, const matchlog_tally *t) {
    if (!t->forfeit_count) return;
    fprintf(out, "\nforfeits: %lld\n", t->forfeit_count);
    for (long long i = 0; i < t->forfeit_count && i < 8; i++) {
        const matchlog_forfeit *f = &t->forfeits[i];
        fprintf(out, "  game %lld, seat %d (%s): ", f->game + 1, f->seat + 1, t->m->bots[f->bot]);
        text_write(out, f->reason, strlen(f->reason), false); /* a bot's own words: ESC, BEL, CR... */
        fprintf(out, "\n");
    }
    if (t->forfeit_count > 8) fprintf(out, "  ... and %lld more (the log has every reason)\n", t->forfeit_count - 8);
}

void matchlog_print_table(FILE *out, const matchlog_tally *t, const matchlog_notes *notes) {
    const matchlog_match *m = t->m;
    int players = m->players, width = 4;
    for (int i = 0; i < players; i++)
        if ((int)strlen(m->bots[i]) > width) width = (int)strlen(m->bots[i]);
    print_header(out, t, notes);
    fprintf(out, "\n%-*s  games   wins  draws  losses  forfeits  win rate  95%% interval      score  95%% interval"
            "     mean points\n", width, "bot");
    for (int i = 0; i < players; i++) {
        const matchlog_bot_stats *b = &t->done.stats[i];
        double lo, hi;
        fprintf(out, "%-*s %6lld %6lld %6lld %7lld %9lld", width, m->bots[i], b->games, b->wins, b->draws, b->losses,
                b->forfeits);
        win_interval(t, b, &lo, &hi);
        print_interval(out, rate(b->wins, b->games), lo, hi);
        by_deal(b->points_by_deal, b->points_by_deal_sq, t->deals, &lo, &hi);
        print_interval(out, b->games ? b->points / (double)b->games : 0.0, lo, hi);
        fprintf(out, " %15.2f\n", b->games ? b->score_sum / (double)b->games : 0.0);
    }
    fprintf(out, "\nseat  games   wins  win rate  95%% interval\n");
    for (int s = 0; s < players; s++) {
        double lo, hi;
        fprintf(out, "%-4d %6lld %6lld", s + 1, t->done.seat_games, t->done.seat_wins[s]);
        seat_interval(t, s, &lo, &hi);
        print_interval(out, rate(t->done.seat_wins[s], t->done.seat_games), lo, hi);
        fprintf(out, "\n");
    }
    fprintf(out, "\nA win is a game won alone; a draw, a win shared. A forfeit loses the game. Score: a win 1, a win\n"
                 "shared by k 1/k. Intervals come from the spread between deals (Student's t; Wilson's over the\n"
                 "deals when they all came out alike, over the games when each is its own deal).\n");
    print_forfeits(out, t);
    fprintf(out, "\n%-*s  decision time\n%-*s  decisions   mean ms    max ms\n", width, "", width, "bot");
    for (int i = 0; i < players; i++) {
        const matchlog_bot_stats *b = &t->stats[i];
        fprintf(out, "%-*s %10lld %9.3f %9.3f\n", width, m->bots[i], b->decisions,
                b->decisions ? b->ms_sum / (double)b->decisions : 0.0, b->ms_max);
    }
    print_files(out, t, notes, width);
}

static json_t *bots_json(const matchlog_tally *t) {
    json_t *list = json_array();
    for (int i = 0; list && i < t->m->players; i++) {
        const matchlog_bot_stats *b = &t->done.stats[i];
        double lo, hi, slo, shi;
        win_interval(t, b, &lo, &hi);
        by_deal(b->points_by_deal, b->points_by_deal_sq, t->deals, &slo, &shi);
        json_array_append_new(
            list, json_pack("{s:s,s:I,s:I,s:I,s:I,s:I,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:I,s:f}", "name", t->m->bots[i],
                            "games", (json_int_t)b->games, "wins", (json_int_t)b->wins, "draws", (json_int_t)b->draws,
                            "losses", (json_int_t)b->losses, "forfeits", (json_int_t)b->forfeits, "win_rate",
                            rate(b->wins, b->games), "ci_low", lo, "ci_high", hi, "score",
                            b->games ? b->points / (double)b->games : 0.0, "score_low", slo, "score_high", shi,
                            "mean_score",
                            b->games ? b->score_sum / (double)b->games : 0.0, "decisions", (json_int_t)b->decisions,
                            "ms_per_decision", b->decisions ? b->ms_sum / (double)b->decisions : 0.0));
    }
    return list;
}

static json_t *seats_json(const matchlog_tally *t) {
    json_t *list = json_array();
    for (int s = 0; list && s < t->m->players; s++) {
        double lo, hi;
        seat_interval(t, s, &lo, &hi);
        json_array_append_new(list, json_pack("{s:i,s:I,s:I,s:f,s:f,s:f}", "seat", s + 1, "games",
                                              (json_int_t)t->done.seat_games, "wins", (json_int_t)t->done.seat_wins[s],
                                              "win_rate", rate(t->done.seat_wins[s], t->done.seat_games), "ci_low", lo,
                                              "ci_high", hi));
    }
    return list;
}

static json_t *forfeit_list_json(const matchlog_tally *t) {
    json_t *list = json_array();
    for (long long i = 0; list && i < t->forfeit_count && i < MATCHLOG_FORFEITS_KEPT; i++) {
        const matchlog_forfeit *f = &t->forfeits[i];
        json_array_append_new(list, json_pack("{s:I,s:i,s:s,s:s}", "game", (json_int_t)(f->game + 1), "seat",
                                              f->seat + 1, "bot", t->m->bots[f->bot], "reason", f->reason));
    }
    return list;
}

static json_t *sprt_json(const matchlog_sprt *s) {
    if (!s->on) return json_null();
    return json_pack("{s:o,s:f,s:f,s:f,s:I}", "result", s->result < 0 ? json_null() : json_string(s->result ? "H1" : "H0"),
                     "llr", s->llr, "lower", s->lower, "upper", s->upper, "games", (json_int_t)s->games);
}

bool matchlog_print_json(FILE *out, const matchlog_tally *t) {
    /* "seed" is "match_seed" under its old name, kept for one release (docs/log-format.md). */
    json_t *obj = json_pack("{s:s,s:I,s:I,s:I,s:s,s:I,s:I,s:I,s:s?,s:o,s:o,s:o,s:I,s:o}", "game", t->m->def->name,
                            "games", (json_int_t)t->seat_games, "deals", (json_int_t)t->deals, "unfinished_games",
                            (json_int_t)(t->seat_games - t->done.seat_games), "seating",
                            seating_name(t->m->seating), "deal_games", (json_int_t)matchlog_block(t->m), "match_seed",
                            (json_int_t)t->m->match_seed, "seed", (json_int_t)t->m->match_seed, "variant",
                            t->m->variant, "bots", bots_json(t), "seats", seats_json(t), "forfeits",
                            forfeit_list_json(t), "forfeit_count", (json_int_t)t->forfeit_count, "sprt",
                            sprt_json(&t->sprt));
    /* Games the decision cap stopped, each counted as a draw shared by all seats, and that cap. */
    if (obj) { /* each set_new takes its value, even when it fails */
        int bad = json_object_set_new(obj, "capped_games", json_integer((json_int_t)t->capped));
        bad |= json_object_set_new(obj, "max_decisions", t->capped ? json_integer((json_int_t)t->cap) : json_null());
        if (bad) {
            json_decref(obj);
            obj = NULL;
        }
    }
    char *text = obj ? shortest_json_dumps(obj, JSON_COMPACT) : NULL;
    json_decref(obj);
    if (!text) return false;
    fprintf(out, "%s\n", text);
    free(text);
    return true;
}
