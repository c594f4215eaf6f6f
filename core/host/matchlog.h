/* matchlog.h — the match log, format version 2 (docs/log-format.md): one game's record written and read
 * back with jansson, and the results a set of records adds up to (the table `match` and `merge` print,
 * or its --json object). Logs are read as hostile input: every field is checked, every size bounded. */
#ifndef MEEPLE_MATCHLOG_H
#define MEEPLE_MATCHLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include <meeple/game.h>
#include "host/seating.h"

#define MATCHLOG_VERSION 3
#define MATCHLOG_MAX_LINE (16u << 20)    /* one record: 200000 actions of 63 bytes fit */
#define MATCHLOG_MAX_DECISIONS 200000    /* the highest --max-decisions: a game's actions in one record */
#define MATCHLOG_MAX_GAMES 100000000LL
#define MATCHLOG_MAX_VALUES 1000000      /* JSON values in one record: 200000 actions and their seats fit */
#define MATCHLOG_MAX_TABLES 4096         /* JSON objects and arrays in one record (a few dozen are used) */
#define MATCHLOG_MAX_DEPTH 16            /* their nesting (4 is used) */
#define MATCHLOG_NAME 80                 /* a bot's name in a log, with its terminator */
#define MATCHLOG_REASON 256              /* a forfeit's reason, with its terminator */
#define MATCHLOG_FORFEITS_KEPT 10000     /* forfeits listed one by one (all are counted) */
#define MATCHLOG_SPRT_MIN_DEALS 10       /* the SPRT decides on no fewer completed deals (docs/api.md) */

/* What every record of one match carries alike: its identity, in the order records put it. */
typedef struct matchlog_match {
    const game_def *def;
    long long games, match_seed;
    seating_design seating;                      /* who sits where; its block is the games of one deal */
    const char *variant;                         /* as given (a name or a path), or NULL */
    const param_value *params;                   /* def->num_params of them */
    int players;
    char bots[MEEPLE_MAX_PLAYERS][MATCHLOG_NAME]; /* names in argument order, unique */
    bool sprt;                                   /* run with --sprt: its test is part of the match */
    double p0, p1, alpha, beta;                  /* the test's hypotheses and error bounds */
} matchlog_match;

/* One game's outcome; seats are 0-based here and 1-based in the log. */
typedef struct matchlog_game {
    long long game;                              /* 0-based: the record's index is game + 1 */
    int scores[MEEPLE_MAX_PLAYERS];
    int winners[MEEPLE_MAX_PLAYERS], nwinners;
    int forfeit;                                 /* the seat that forfeited, or -1 */
    char reason[MATCHLOG_REASON];
    long long unfinished;                        /* the decision cap the game reached unended, or 0: it
                                                  * ended. Then every seat is a winner: a draw shared by all */
    long long decisions[MEEPLE_MAX_PLAYERS];     /* by seat, and their time in ms */
    double ms[MEEPLE_MAX_PLAYERS], ms_max[MEEPLE_MAX_PLAYERS];
} matchlog_game;

/* Games a deal under the match's design (its block). */
long long matchlog_block(const matchlog_match *m);
/* The deal (0-based) game `game` (0-based) plays: every game of a block plays the same. */
long long matchlog_deal(const matchlog_match *m, long long game);
/* The bot in `seat` (0-based) of game `game` (0-based), as the match's seating design puts it. */
int matchlog_bot_of_seat(const matchlog_match *m, long long game, int seat);
/* Deal `deal`'s (0-based) seed, derived from the match's: as secret as it, and whole in a JSON number. */
long long matchlog_game_seed(long long match_seed, long long deal);
/* Game `game`'s (0-based) seed: its deal's. */
long long matchlog_seed_of_game(const matchlog_match *m, long long game);

/* The record of game g as one compact JSON line with its newline (malloc'd; NULL when out of memory).
 * `actions` (strings) and `by` (1-based seats) are read, not kept. Keys in the documented order. */
char *matchlog_write(const matchlog_match *m, const matchlog_game *g, json_t *actions, json_t *by);

/* One record read back: `line` (len bytes, no newline) parsed and every field checked, its outcome into
 * g. On success returns the parsed record (json_decref it; `actions` and `by` are in it) and sets
 * *id to its identity, a new object of the fields every record of one match shares. NULL with the
 * reason in `why` (one line) otherwise. */
/* Whether a line's JSON is small enough to parse: at most MATCHLOG_MAX_VALUES values, MATCHLOG_MAX_TABLES
 * objects and arrays, MATCHLOG_MAX_DEPTH deep, counted in one pass without allocating, before any tree
 * is built (a line of 8 MiB of {} would otherwise take ~80 times its size). False with why. */
bool matchlog_line_bounded(const char *line, size_t len, char *why, size_t n);

json_t *matchlog_read(const char *line, size_t len, matchlog_game *g, json_t **id, char *why, size_t n);
/* The identity a match's records carry, to compare with a read record's (matchlog_same_match). */
json_t *matchlog_identity(const matchlog_match *m);
/* Whether identities a and b are equal; if not, the first field that differs into `field`. */
bool matchlog_same_match(json_t *a, json_t *b, char *field, size_t n);

/* ---- The results: records added up in game order, then printed. ---- */
typedef struct matchlog_bot_stats {
    long long games, wins, draws, losses, forfeits, decisions;
    double score_sum, ms_sum, ms_max;
    double points;                               /* game score: a win 1, a win shared by k 1/k, else 0 */
    /* By deal (block): this deal's wins and points so far, and over the completed deals the sums of
     * each deal's win rate and mean points, and of their squares. */
    double deal_wins, deal_points;
    double wins_by_deal, wins_by_deal_sq, points_by_deal, points_by_deal_sq;
} matchlog_bot_stats;

/* The sequential test (--sprt) on the first bot's game score, one trial a deal. */
typedef struct matchlog_sprt {
    bool on;
    double p0, p1, alpha, beta;
    double llr, lower, upper;                    /* the bounds: log(beta/(1-alpha)), log((1-beta)/alpha) */
    int result;                                  /* -1 undecided, 0 H0, 1 H1 */
    long long games;                             /* the games counted when it decided (or so far) */
} matchlog_sprt;

typedef struct matchlog_forfeit {
    long long game;                              /* 0-based */
    int seat, bot;                               /* 0-based */
    char reason[MATCHLOG_REASON];
} matchlog_forfeit;

/* What the results table counts: the games of completed deals only (an interrupted run's unfinished
 * deal would tilt the rates towards the seats it played). */
typedef struct matchlog_counted {
    matchlog_bot_stats stats[MEEPLE_MAX_PLAYERS];
    long long seat_games, seat_wins[MEEPLE_MAX_PLAYERS];
    double seat_wins_by_deal[MEEPLE_MAX_PLAYERS], seat_wins_by_deal_sq[MEEPLE_MAX_PLAYERS];
} matchlog_counted;

typedef struct matchlog_tally {
    const matchlog_match *m;
    matchlog_bot_stats stats[MEEPLE_MAX_PLAYERS]; /* every game counted, the unfinished deal's too */
    long long seat_games, seat_wins[MEEPLE_MAX_PLAYERS];
    long long seat_deal_wins[MEEPLE_MAX_PLAYERS]; /* this deal's wins by seat so far */
    matchlog_counted done;                       /* as they stood at the last completed deal */
    long long deals;                             /* completed deals (blocks) */
    matchlog_sprt sprt;
    long long capped, cap;                       /* games left unfinished at a decision cap, and the cap */
    matchlog_forfeit *forfeits;                  /* the first MATCHLOG_FORFEITS_KEPT */
    long long forfeit_count, forfeits_cap;
} matchlog_tally;

/* Adds a game, in game order (so sums come out the same however the games were played). A game that
 * completes its deal counts the deal, and the SPRT (when on) decides on it. False when out of memory
 * for the forfeits list. */
bool matchlog_count(matchlog_tally *t, const matchlog_game *g);
void matchlog_tally_free(matchlog_tally *t);
/* Game g's seats all winners: how a game left unfinished at the decision cap counts (a draw shared by all). */
void matchlog_all_win(matchlog_game *g, int players);

/* What the table's first lines say besides the results: a resumed or interrupted run, the files. */
typedef struct matchlog_notes {
    long long from_log, cut_line;                /* games read from a resumed log; its cut line, or 0 */
    bool seed_drawn;                             /* the seed came from the OS: say how to replay */
    long long interrupted_at;                    /* games wanted when a signal stopped the run, or 0 */
    const char (*files)[1024];                   /* where each bot was read from, or NULL (merge) */
    long long shard, shards;                     /* --shard K/N: K-1 and N; 0 and 1 for a whole match */
} matchlog_notes;

void matchlog_print_table(FILE *out, const matchlog_tally *t, const matchlog_notes *notes);
/* The results as one JSON object (docs/log-format.md, "--json"), with its newline. */
bool matchlog_print_json(FILE *out, const matchlog_tally *t);
/* The SPRT's bounds for its alpha and beta, and its log-likelihood ratio over `deals` deals of `block`
 * games whose mean scores sum to `sum` and their squares to `sq` (Wald's test under a normal
 * approximation, the variance estimated from the deals pooled with one pseudo-deal of variance 1/4,
 * as fishtest does with game pairs). It decides from MATCHLOG_SPRT_MIN_DEALS deals on. */
void matchlog_sprt_bounds(matchlog_sprt *s);
double matchlog_sprt_llr(const matchlog_sprt *s, long long deals, long long block, double sum, double sq);


/* ---- In match.c: a logged record played again, for `meeple merge` ---- */
typedef struct match_checker match_checker;
/* A checker for records of the match `m` (its params are the game's defaults, as a match deals), with
 * a referee for its game and variant; NULL and why in `err` when the variant cannot be loaded here. */
match_checker *match_checker_new(const matchlog_match *m, const char *variant_file, char *err, size_t n);
/* Whether `line` (len bytes, no newline) is exactly the record game `game` (0-based) of the match gives
 * when its seed and actions are played again (timings as logged); false with the reason. */
bool match_checker_check(match_checker *c, const char *line, size_t len, long long game, char *why, size_t n);
void match_checker_free(match_checker *c);

#endif
