/* matchlog.c — the match log's records (format version 2) written and read with jansson, and the
 * results table they add up to. One writer, one reader: `match` writes and resumes, `merge` reads,
 * the fuzzer (tests/fuzz/fuzz_log.c) feeds the reader hostile lines. */
#include "matchlog.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "registry.h"
#include "rng.h"
#include "text.h"

#ifndef MEEPLE_VERSION
#define MEEPLE_VERSION "0"
#endif

/* Timings are logged to the microsecond, printed with 15 significant digits: a value read back and
 * written again gives the same text, so a resumed log's records compare byte for byte. */
#define MATCHLOG_DUMP_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(15))
#define MATCHLOG_MAX_MS 1e12

int matchlog_bot_of_seat(int players, long long game, int seat) {
    return (int)(((long long)seat + game) % players);
}

long long matchlog_game_seed(long long match_seed, long long game) {
    return (long long)(rng_derive((uint64_t)match_seed, (uint64_t)game) & CLI_SEED_MAX);
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
        json_array_append_new(list, json_string(game < 0 ? m->bots[s]
                                                         : m->bots[matchlog_bot_of_seat(m->players, game, s)]));
    return list;
}

static json_t *forfeits_json(const matchlog_game *g) {
    if (g->forfeit < 0) return json_array();
    return json_pack("[{s:i,s:s}]", "seat", g->forfeit + 1, "reason", g->reason);
}

char *matchlog_write(const matchlog_match *m, const matchlog_game *g, json_t *actions, json_t *by) {
    int p = m->players;
    json_t *rec = json_pack(
        "{s:i,s:s,s:I,s:s,s:I,s:I,s:I,s:s?,s:o,s:i,s:o,s:o,s:o,s:o,s:o,s:O,s:O,s:o,s:o,s:o}", "log",
        MATCHLOG_VERSION, "meeple", MEEPLE_VERSION, "index", (json_int_t)(g->game + 1), "game", m->def->name,
        "games", (json_int_t)m->games, "match_seed", (json_int_t)m->match_seed, "seed",
        (json_int_t)matchlog_game_seed(m->match_seed, g->game), "variant", m->variant, "params",
        params_json(m->def, m->params), "players", p, "bots", names_list(m, -1), "seats", names_list(m, g->game),
        "scores", int_list(g->scores, p, 0), "winners", int_list(g->winners, g->nwinners, 1), "forfeits",
        forfeits_json(g), "actions", actions, "by", by, "decisions", long_list(g->decisions, p), "ms",
        ms_list(g->ms, p), "ms_max", ms_list(g->ms_max, p));
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
    return json_pack("{s:i,s:s,s:s,s:I,s:I,s:s?,s:o,s:i,s:o}", "log", MATCHLOG_VERSION, "meeple", MEEPLE_VERSION,
                     "game", m->def->name, "games", (json_int_t)m->games, "match_seed", (json_int_t)m->match_seed,
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

/* The match's fields: format, version, game, size, seed, variant, players, bots. */
static bool read_match(json_t *rec, const game_def **def, long long *games, long long *match_seed, int *players,
                       char *why, size_t n) {
    long long num;
    json_t *log = json_object_get(rec, "log"), *game = json_object_get(rec, "game"),
           *variant = json_object_get(rec, "variant"), *bots = json_object_get(rec, "bots");
    if (!log) return REFUSE("it has no \"log\" version: a log from meeple 0.1 (merge and resume need format 2)");
    if (!whole(log, MATCHLOG_VERSION, MATCHLOG_VERSION, &num)) return REFUSE("its \"log\" is not format 2");
    if (!text_field(json_object_get(rec, "meeple"), 32)) return REFUSE("its \"meeple\" version is damaged");
    *def = text_field(game, 32) ? game_find(json_string_value(game)) : NULL;
    if (!*def) return REFUSE("its \"game\" is not a game of this meeple");
    if (!whole(json_object_get(rec, "games"), 1, MATCHLOG_MAX_GAMES, games))
        return REFUSE("its \"games\" is not a number of games");
    if (!whole(json_object_get(rec, "match_seed"), 0, CLI_SEED_MAX, match_seed))
        return REFUSE("its \"match_seed\" is not a seed");
    if (!variant || !(json_is_null(variant) || text_field(variant, 1024)))
        return REFUSE("its \"variant\" is damaged");
    if (!json_is_object(json_object_get(rec, "params"))) return REFUSE("its \"params\" is not an object");
    if (!whole(json_object_get(rec, "players"), (*def)->min_players, (*def)->max_players, &num))
        return REFUSE("its \"players\" is not a player count of %s", (*def)->name);
    *players = (int)num;
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

/* The game's own fields: index, seed, seats (bots rotated), scores, winners, forfeit. */
static bool read_outcome(json_t *rec, long long games, long long match_seed, int players, matchlog_game *g,
                         char *why, size_t n) {
    long long index, num, list[MEEPLE_MAX_PLAYERS];
    json_t *bots = json_object_get(rec, "bots"), *seats = json_object_get(rec, "seats"),
           *winners = json_object_get(rec, "winners"), *forfeits = json_object_get(rec, "forfeits");
    if (!whole(json_object_get(rec, "index"), 1, games, &index)) return REFUSE("its \"index\" is not 1..%lld", games);
    g->game = index - 1;
    if (!whole(json_object_get(rec, "seed"), 0, CLI_SEED_MAX, &num) || num != matchlog_game_seed(match_seed, g->game))
        return REFUSE("its \"seed\" is not the one match_seed %lld gives game %lld", match_seed, index);
    if (!json_is_array(seats) || (int)json_array_size(seats) != players) return REFUSE("its \"seats\" are damaged");
    for (int s = 0; s < players; s++)
        if (!json_equal(json_array_get(seats, (size_t)s),
                        json_array_get(bots, (size_t)matchlog_bot_of_seat(players, g->game, s))))
            return REFUSE("its seat %d is not the bot the rotation puts there", s + 1);
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
    return true;
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
    const game_def *def;
    long long games, match_seed;
    int players;
    *g = (matchlog_game){.forfeit = -1};
    *id = NULL;
    if (len > MATCHLOG_MAX_LINE) return snprintf(why, n, "the line is longer than %u bytes", MATCHLOG_MAX_LINE), NULL;
    if (!matchlog_line_bounded(line, len, why, n)) return NULL;
    json_t *rec = json_loadb(line, len, JSON_REJECT_DUPLICATES, &err);
    if (!rec) return snprintf(why, n, "it is not JSON: %s", err.text), NULL;
    bool ok = json_is_object(rec) || REFUSE("it is not a JSON object");
    ok = ok && read_match(rec, &def, &games, &match_seed, &players, why, n) &&
         read_outcome(rec, games, match_seed, players, g, why, n) && read_decisions(rec, players, g, why, n);
    if (ok) {
        *id = json_pack("{s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:O}", "log", json_object_get(rec, "log"), "meeple",
                        json_object_get(rec, "meeple"), "game", json_object_get(rec, "game"), "games",
                        json_object_get(rec, "games"), "match_seed", json_object_get(rec, "match_seed"), "variant",
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

bool matchlog_count(matchlog_tally *t, const matchlog_game *g) {
    int players = t->m->players;
    t->seat_games++;
    for (int s = 0; s < players; s++) {
        matchlog_bot_stats *b = &t->stats[matchlog_bot_of_seat(players, g->game, s)];
        bool won = false;
        for (int i = 0; i < g->nwinners; i++) won |= g->winners[i] == s;
        b->games++;
        b->score_sum += g->scores[s];
        if (won && g->nwinners == 1) {
            b->wins++;
            t->seat_wins[s]++;
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
            .game = g->game, .seat = g->forfeit, .bot = matchlog_bot_of_seat(players, g->game, g->forfeit)};
        memcpy(t->forfeits[t->forfeit_count].reason, g->reason, sizeof g->reason);
    }
    t->forfeit_count++;
    return true;
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

static void print_rate(FILE *out, long long k, long long n) {
    double lo, hi;
    wilson(k, n, &lo, &hi);
    fprintf(out, "  %6.1f%%  [%5.1f%%, %5.1f%%]", 100.0 * rate(k, n), 100 * lo, 100 * hi);
}

static void print_header(FILE *out, const matchlog_tally *t, const matchlog_notes *notes) {
    const matchlog_match *m = t->m;
    fprintf(out, "%s: %lld games, seed %lld, seats rotated", m->def->name, t->seat_games, m->match_seed);
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
    fprintf(out, "\n%-*s  games   wins  draws  losses  forfeits  win rate  95%% interval     mean score\n", width,
            "bot");
    for (int i = 0; i < players; i++) {
        const matchlog_bot_stats *b = &t->stats[i];
        fprintf(out, "%-*s %6lld %6lld %6lld %7lld %9lld", width, m->bots[i], b->games, b->wins, b->draws, b->losses,
                b->forfeits);
        print_rate(out, b->wins, b->games);
        fprintf(out, " %10.2f\n", b->games ? b->score_sum / (double)b->games : 0.0);
    }
    fprintf(out, "\nseat  games   wins  win rate  95%% interval\n");
    for (int s = 0; s < players; s++) {
        fprintf(out, "%-4d %6lld %6lld", s + 1, t->seat_games, t->seat_wins[s]);
        print_rate(out, t->seat_wins[s], t->seat_games);
        fprintf(out, "\n");
    }
    fprintf(out, "\nA win is a game won alone; a draw, a win shared. A forfeit loses the game.\n");
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
        const matchlog_bot_stats *b = &t->stats[i];
        double lo, hi;
        wilson(b->wins, b->games, &lo, &hi);
        json_array_append_new(
            list, json_pack("{s:s,s:I,s:I,s:I,s:I,s:I,s:f,s:f,s:f,s:f,s:I,s:f}", "name", t->m->bots[i], "games",
                            (json_int_t)b->games, "wins", (json_int_t)b->wins, "draws", (json_int_t)b->draws,
                            "losses", (json_int_t)b->losses, "forfeits", (json_int_t)b->forfeits, "win_rate",
                            rate(b->wins, b->games), "ci_low", lo, "ci_high", hi, "mean_score",
                            b->games ? b->score_sum / (double)b->games : 0.0, "decisions", (json_int_t)b->decisions,
                            "ms_per_decision", b->decisions ? b->ms_sum / (double)b->decisions : 0.0));
    }
    return list;
}

static json_t *seats_json(const matchlog_tally *t) {
    json_t *list = json_array();
    for (int s = 0; list && s < t->m->players; s++) {
        double lo, hi;
        wilson(t->seat_wins[s], t->seat_games, &lo, &hi);
        json_array_append_new(list, json_pack("{s:i,s:I,s:I,s:f,s:f,s:f}", "seat", s + 1, "games",
                                              (json_int_t)t->seat_games, "wins", (json_int_t)t->seat_wins[s],
                                              "win_rate", rate(t->seat_wins[s], t->seat_games), "ci_low", lo,
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

bool matchlog_print_json(FILE *out, const matchlog_tally *t) {
    json_t *obj = json_pack("{s:s,s:I,s:I,s:s?,s:o,s:o,s:o,s:I}", "game", t->m->def->name, "games",
                            (json_int_t)t->seat_games, "seed", (json_int_t)t->m->match_seed, "variant",
                            t->m->variant, "bots", bots_json(t), "seats", seats_json(t), "forfeits",
                            forfeit_list_json(t), "forfeit_count", (json_int_t)t->forfeit_count);
    char *text = obj ? json_dumps(obj, JSON_COMPACT | JSON_REAL_PRECISION(6)) : NULL;
    json_decref(obj);
    if (!text) return false;
    fprintf(out, "%s\n", text);
    free(text);
    return true;
}
