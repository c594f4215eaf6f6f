/* replay.c — `meeple replay F.jsonl [--game K] [--seat P] [--html FILE]`: a logged game replayed from its
 * seed through the Lua module (a game logged under a variant replays through its hooks). At a terminal
 * it prints the board after every decision (as seat P saw it with --seat), waiting for Enter between
 * steps (b goes back, q quits); with --html it writes the game as one self-contained page
 * (scripts/viewer.lua and scripts/viewer/). Log records of format versions 1 and 2 are read. */
#define _POSIX_C_SOURCE 200809L /* isatty, fileno */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <lauxlib.h>
#include <lua.h>

#include "cli.h"
#include <meeple/game.h>
#include "lua/luajson.h"
#include "host/matchlog.h"
#include <meeple/registry.h>
#include "report.h"
#include "host/text.h"

extern const char meeple_lua_replay_terminal[]; /* repl/lua/replay_terminal.lua */
extern const char meeple_lua_replay_page[];     /* repl/lua/replay_page.lua */

/* Bounds on what a log may hold: a record's line, its decisions, a text in it. */
#define REPLAY_MAX_LINE (64L << 20)
#define REPLAY_MAX_ACTIONS 1000000
#define REPLAY_MAX_TEXT 4096

typedef struct replay_args {
    const char *path, *variant, *html;
    long long game, seat; /* seat 0: the whole table */
} replay_args;

/* "meeple replay: <reason>" on stderr, escaped: the reason may quote the log. Returns `status`. */
static int fail(int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int fail(int status, const char *fmt, ...) {
    char reason[1500];
    va_list args;
    va_start(args, fmt);
    vsnprintf(reason, sizeof reason, fmt, args);
    va_end(args);
    fputs("meeple replay: ", stderr);
    text_write(stderr, reason, strlen(reason), false);
    fputc('\n', stderr);
    return status;
}

/* ==================================================================== reading the log */

/* Line `k` (1-based) of `f`, malloc'd, or NULL: *lines is then how many lines there were (-1: line k
 * is longer than REPLAY_MAX_LINE). The lines before it are counted, not stored, and line k is read
 * only up to the bound, so a hostile file cannot make it hold more. */
static char *nth_line(FILE *f, long long k, long long *lines) {
    long long n = 0;
    int c = 0;
    while (n + 1 < k && (c = getc(f)) != EOF) n += c == '\n';
    size_t len = 0, cap = 256;
    char *line = n + 1 == k ? malloc(cap) : NULL;
    while (line && (c = getc(f)) != EOF && c != '\n') {
        if (len + 1 == cap) {
            char *more = cap < REPLAY_MAX_LINE ? realloc(line, cap * 2) : NULL;
            if (!more) {
                free(line);
                *lines = -1;
                return NULL;
            }
            line = more;
            cap *= 2;
        }
        line[len++] = (char)c;
    }
    if (line && (len > 0 || c == '\n')) {
        line[len] = '\0';
        return line;
    }
    free(line);
    *lines = n;
    return NULL;
}

/* The line of game `k` (1-based) of the log, malloc'd, or NULL after saying why: a folder, an empty
 * file, a log with fewer games, a line past the bound. `*status` is the exit status then. */
static char *read_game_line(const char *path, long long k, int *status) {
    struct stat st;
    if (stat(path, &st) != 0) {
        *status = cli_bad_args("replay", "cannot read the log '%s': %s", path, strerror(errno));
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        *status = cli_bad_args("replay", "'%s' is a folder; give a log file (meeple match --log F.jsonl)", path);
        return NULL;
    }
    char err[600];
    FILE *f = cli_open_log(path, err, sizeof err);
    if (!f) {
        *status = cli_bad_args("replay", "%s", err);
        return NULL;
    }
    long long lines = 0;
    char *line = nth_line(f, k, &lines);
    fclose(f);
    if (line) return line;
    *status = 1;
    if (lines < 0) fail(1, "%s, game %lld: longer than %ld MiB; not a match log", path, k, REPLAY_MAX_LINE >> 20);
    else if (lines == 0) fail(1, "the log '%s' is empty", path);
    else *status = cli_bad_args("replay", "the log '%s' has %lld game%s, no game %lld", path, lines,
                                lines == 1 ? "" : "s", k);
    return NULL;
}

static bool is_text(const json_t *v) { return json_is_string(v) && json_string_length(v) <= REPLAY_MAX_TEXT; }

/* Whether `list` is an array of at most `max` items, each passing `check`. */
static bool all_are(const json_t *list, size_t max, bool (*check)(const json_t *)) {
    if (!json_is_array(list) || json_array_size(list) > max) return false;
    size_t i;
    const json_t *item;
    json_array_foreach(list, i, item) if (!check(item)) return false;
    return true;
}

static bool is_number(const json_t *v) { return json_is_number(v); }
static bool is_whole(const json_t *v) { return json_is_integer(v); }

/* What a record must hold to be replayed, checked before anything runs; NULL if it does, else what is
 * wrong. Optional fields (the result, v2's timings) must be well-formed when present. */
static const char *record_problem(const json_t *r, int *players) {
    if (!json_is_object(r)) return "not a game of a match log (a JSON object per line)";
    const json_t *seats = json_object_get(r, "seats"), *seed = json_object_get(r, "seed");
    if (!is_text(json_object_get(r, "game"))) return "no game name ('game')";
    if (!json_is_integer(seed) || json_integer_value(seed) < 0 || json_integer_value(seed) > MEEPLE_SEED_MAX)
        return "no seed ('seed', a whole number from 0 to 2^53-1)";
    if (!all_are(seats, MEEPLE_MAX_PLAYERS, is_text) || json_array_size(seats) == 0)
        return "no seats ('seats', the bots' names by seat)";
    *players = (int)json_array_size(seats);
    if (!all_are(json_object_get(r, "actions"), REPLAY_MAX_ACTIONS, is_text)) return "no actions ('actions')";
    const json_t *variant = json_object_get(r, "variant");
    if (variant && !json_is_null(variant) && !is_text(variant)) return "'variant' must be a name or null";
    const char *by_seat[] = {"scores", "decisions", "ms"};
    for (size_t i = 0; i < sizeof by_seat / sizeof by_seat[0]; i++) {
        const json_t *v = json_object_get(r, by_seat[i]);
        if (v && (!all_are(v, MEEPLE_MAX_PLAYERS, is_number) || (int)json_array_size(v) != *players))
            return "a per-seat list ('scores', 'decisions', 'ms') is not one number per seat";
    }
    const json_t *winners = json_object_get(r, "winners"), *forfeits = json_object_get(r, "forfeits");
    size_t i;
    const json_t *item;
    if (winners && !all_are(winners, MEEPLE_MAX_PLAYERS, is_whole))
        return "'winners' must list seats";
    json_array_foreach(winners, i, item) if (json_integer_value(item) < 1 || json_integer_value(item) > *players)
        return "'winners' must list seats";
    const json_t *unfinished = json_object_get(r, "unfinished");
    if (unfinished && (!json_is_integer(unfinished) || json_integer_value(unfinished) < 1))
        return "'unfinished' must be the decision cap the game reached, a whole number from 1";
    if (forfeits && (!json_is_array(forfeits) || json_array_size(forfeits) > MEEPLE_MAX_PLAYERS))
        return "'forfeits' must be a list of {seat, reason}";
    json_array_foreach(forfeits, i, item) {
        const json_t *seat = json_object_get(item, "seat");
        if (!json_is_integer(seat) || json_integer_value(seat) < 1 || json_integer_value(seat) > *players ||
            !is_text(json_object_get(item, "reason")))
            return "'forfeits' must be a list of {seat, reason}";
    }
    return NULL;
}

/* ==================================================================== the record, as Lua sees it */

/* The record's fields the replay uses, as one Lua table (only checked fields go through). */
static void push_record(lua_State *L, const json_t *r, const game_def *def, const char *variant, long long k,
                        const char *path) {
    static const char *const fields[] = {"seed", "seats", "actions", "scores", "winners", "forfeits",
                                         "unfinished", "decisions", "ms"};
    lua_createtable(L, 0, 16);
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const json_t *v = json_object_get(r, fields[i]);
        if (!v) continue;
        luajson_push(L, v);
        lua_setfield(L, -2, fields[i]);
    }
    lua_pushstring(L, def->name);
    lua_setfield(L, -2, "game");
    lua_pushstring(L, def->title);
    lua_setfield(L, -2, "title");
    if (variant) {
        lua_pushstring(L, variant);
        lua_setfield(L, -2, "variant");
    }
    lua_pushinteger(L, (lua_Integer)k);
    lua_setfield(L, -2, "index");
    const char *slash = strrchr(path, '/');
    lua_pushstring(L, slash ? slash + 1 : path);
    lua_setfield(L, -2, "log");
}

/* ==================================================================== at the terminal */

/* Text read from the log, on stdout: escaped, as a file may hold anything. */
static void put(const char *text) { text_write(stdout, text, strlen(text), false); }

static const char *seat_name(const json_t *seats, size_t s) {
    const char *name = json_string_value(json_array_get(seats, s));
    return name ? name : "?";
}

/* The forfeits, scores and winners the log recorded. */
static void print_result(const json_t *r) {
    const json_t *seats = json_object_get(r, "seats"), *forfeits = json_object_get(r, "forfeits"),
                 *scores = json_object_get(r, "scores"), *winners = json_object_get(r, "winners"), *item;
    size_t i;
    printf("\n");
    json_array_foreach(forfeits, i, item) {
        json_int_t seat = json_integer_value(json_object_get(item, "seat"));
        printf("P%lld (", (long long)seat);
        put(seat_name(seats, (size_t)seat - 1));
        printf(") forfeited: ");
        put(json_string_value(json_object_get(item, "reason")));
        printf("\n");
    }
    if (scores) {
        printf("scores:");
        json_array_foreach(scores, i, item)
            printf(" P%zu %g%s", i + 1, json_number_value(item), i + 1 < json_array_size(scores) ? "," : "");
        printf("\n");
    }
    const json_t *unfinished = json_object_get(r, "unfinished");
    if (unfinished)
        printf("unfinished at %lld decisions (match --max-decisions): a draw shared by all seats\n",
               (long long)json_integer_value(unfinished));
    if (winners) {
        printf(json_array_size(winners) == 1 ? "winner:" : "winners (shared):");
        json_array_foreach(winners, i, item) {
            json_int_t w = json_integer_value(item);
            printf(" P%lld (", (long long)w);
            put(seat_name(seats, (size_t)w - 1));
            printf(")");
        }
        printf("\n");
    }
}

static void print_title(const json_t *r, const game_def *def, const replay_args *a) {
    const json_t *seats = json_object_get(r, "seats"), *variant = json_object_get(r, "variant");
    printf("%s, game %lld of ", def->title, a->game);
    put(a->path);
    printf(": seed %lld", (long long)json_integer_value(json_object_get(r, "seed")));
    if (json_is_string(variant)) {
        printf(", variant ");
        put(json_string_value(variant));
    }
    printf(", seats:");
    for (size_t i = 0; i < json_array_size(seats); i++) {
        printf(" P%zu ", i + 1);
        put(seat_name(seats, i));
        printf("%s", i + 1 < json_array_size(seats) ? "," : "");
    }
    if (a->seat) {
        printf("; as P%lld (", a->seat);
        put(seat_name(seats, (size_t)a->seat - 1));
        printf(") saw it");
    }
    printf("\n\n");
    fflush(stdout);
}

/* ==================================================================== the command */

/* A log may come from anyone, so it never chooses which file runs: a variant it names by a path is
 * played only from the file the user passes (--variant FILE). False after saying why. */
static bool variant_to_use(const json_t *logged, const replay_args *a, const char **out) {
    *out = NULL;
    if (!json_is_string(logged)) {
        if (a->variant)
            return fail(2, "%s, game %lld was played under the base rules: --variant is not needed", a->path,
                        a->game) == 0;
        return true;
    }
    const char *name = json_string_value(logged);
    size_t len = strlen(name);
    bool is_path = strchr(name, '/') || (len >= 4 && strcmp(name + len - 4, ".lua") == 0);
    if (is_path && !a->variant)
        return fail(1, "%s, game %lld names its variant by a file's path ('%.200s'); logs name variants by name: "
                    "pass the file with --variant FILE", a->path, a->game, name) == 0;
    *out = a->variant ? a->variant : name;
    return true;
}

static int replay_record(const json_t *r, const replay_args *a, const cli_options *opts) {
    int players = 0;
    const char *problem = record_problem(r, &players);
    if (problem) return fail(1, "%s, game %lld: %s", a->path, a->game, problem);
    const char *game = json_string_value(json_object_get(r, "game"));
    const game_def *def = game_find(game);
    if (!def) return fail(1, "%s, game %lld: unknown game '%s'; games: %s", a->path, a->game, game, game_names());
    if (a->seat > players)
        return cli_bad_args("replay", "--seat %lld: game %lld has %d seats", a->seat, a->game, players);
    const char *variant;
    if (!variant_to_use(json_object_get(r, "variant"), a, &variant)) return a->variant ? 2 : 1;
    lua_State *L = cli_new_lua();
    if (!L) return fail(1, "out of memory");
    cli_push_msgh(L, opts);
    int status;
    if (a->html) {
        report_push_runner(L, meeple_lua_replay_page, "=replay");
        push_record(L, r, def, variant, a->game, a->path);
        lua_pushstring(L, a->html);
        status = lua_pcall(L, 2, 2, 1);
        if (status == LUA_OK)
            fprintf(stderr, "meeple replay: wrote %s (%lld decisions, %.0f KiB)\n", a->html,
                    (long long)lua_tointeger(L, -1), (double)lua_tointeger(L, -2) / 1024);
    } else {
        print_title(r, def, a);
        report_push_runner(L, meeple_lua_replay_terminal, "=replay");
        push_record(L, r, def, variant, a->game, a->path);
        lua_newtable(L);
        lua_setfield(L, -2, "by");
        lua_newtable(L);
        lua_setfield(L, -2, "shown");
        if (a->seat) lua_pushinteger(L, (lua_Integer)a->seat);
        else lua_pushnil(L);
        lua_pushboolean(L, isatty(STDIN_FILENO) && isatty(STDOUT_FILENO));
        status = lua_pcall(L, 3, 0, 1);
        fflush(stdout);
        if (status == LUA_OK) print_result(r);
    }
    if (status != LUA_OK) {
        char who[1200];
        snprintf(who, sizeof who, "meeple replay: %s, game %lld", a->path, a->game);
        cli_report(L, opts, who);
    }
    lua_close(L);
    return status == LUA_OK ? 0 : 1;
}

static int replay_parse(int argc, char **argv, replay_args *a) {
    *a = (replay_args){.game = 1};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        bool has_value = i + 1 < argc;
        const char **file = strcmp(arg, "--variant") == 0 ? &a->variant : strcmp(arg, "--html") == 0 ? &a->html : NULL;
        long long *number = strcmp(arg, "--game") == 0 ? &a->game : strcmp(arg, "--seat") == 0 ? &a->seat : NULL;
        if (file) {
            if (!has_value) return cli_bad_args("replay", "%s needs a file", arg);
            *file = argv[++i];
        } else if (number) {
            if (!has_value) return cli_bad_args("replay", "%s needs a value", arg);
            if (!cli_parse_int(argv[++i], 1, INT64_MAX / 2, number))
                return cli_bad_args("replay", "%s must be a whole number from 1, got '%s'", arg, argv[i]);
        } else if (arg[0] == '-') {
            return cli_unknown_option("replay", arg);
        } else if (a->path) {
            return cli_bad_args("replay", "one log expected, got also '%s'", arg);
        } else {
            a->path = arg;
        }
    }
    if (!a->path) return cli_bad_args("replay", "which log? (a .jsonl file written by meeple match --log)");
    if (a->html && a->seat)
        return cli_bad_args("replay", "--seat is for the terminal; the page has a seat selector");
    return 0;
}

int replay_main(int argc, char **argv, const cli_options *opts) {
    replay_args a;
    int bad = replay_parse(argc, argv, &a);
    if (bad) return bad;
    int status;
    char *line = read_game_line(a.path, a.game, &status);
    if (!line) return status;
    json_error_t err;
    char why[200];
    if (!matchlog_line_bounded(line, strlen(line), why, sizeof why)) {
        free(line);
        return fail(1, "%s, game %lld: %s", a.path, a.game, why);
    }
    json_t *r = json_loads(line, JSON_REJECT_DUPLICATES, &err);
    free(line);
    if (!r) return fail(1, "%s, game %lld: not JSON (column %d: %s); is this a match log?", a.path, a.game,
                        err.column, err.text);
    status = replay_record(r, &a, opts);
    json_decref(r);
    return status;
}
