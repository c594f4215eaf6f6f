/* replay.c — `meeple replay F.jsonl [--game K]`: a logged game replayed from its seed, the board after
 * every decision, through the Lua module (a game logged under a variant replays through its hooks). On a
 * terminal (both ends) it waits for Enter between steps; q quits. */
#define _POSIX_C_SOURCE 200809L /* isatty, fileno */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>

#include "cli.h"
#include "jsonl.h"
#include "registry.h"
#include "text.h"

/* The line of game `k` (1-based) of the log, malloc'd; NULL (said why) when there is none. */
static char *read_game_line(const char *path, long long k, long long *count) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        cli_bad_args("replay", "cannot read the log '%s'", path);
        return NULL;
    }
    jsonl_buf line = {0};
    char *found = NULL;
    long long n = 0;
    int c;
    for (;;) {
        c = getc(f);
        if (c == EOF || c == '\n') {
            if (line.len > 0 || c == '\n') n++;
            if (n == k && line.len > 0) {
                found = line.text;
                line = (jsonl_buf){0};
                break;
            }
            line.len = 0;
            if (line.text) line.text[0] = '\0';
            if (c == EOF) break;
        } else {
            char ch = (char)c;
            jsonl_putn(&line, &ch, 1);
        }
    }
    fclose(f);
    jsonl_buf_free(&line);
    *count = n;
    return found;
}

/* The replay itself, in Lua over the module, so a game logged under a variant replays through its
 * hooks: (meeple, game, seed, seats, variant or nil, actions, stepping) -> nothing; errors are one line. */
static const char replay_lua[] =
    "local meeple, game, seed, seats, variant, actions, stepping = ...\n"
    "local s = meeple.new(game, { seed = seed, players = #seats, variant = variant })\n"
    "print(tostring(s))\n"
    "for i, a in ipairs(actions) do\n"
    "  local p = s:to_move()\n"
    "  if not p then error(('decision %d: the game is already over'):format(i), 0) end\n"
    "  local ok, why = s:try(a)\n"
    "  if not ok then error(('decision %d: %s cannot be played: %s'):format(i, a, why), 0) end\n"
    "  if stepping then\n"
    "    io.write('-- Enter: next step, q: quit -- ')\n"
    "    io.flush()\n"
    "    local answer = io.read('l')\n"
    "    if not answer or answer:sub(1, 1) == 'q' then return end\n"
    "  end\n"
    "  print(('\\n== decision %d: P%d (%s) %s\\n'):format(i, p, seats[p] or '?', a))\n"
    "  print(tostring(s))\n"
    "end\n";

/* The list's texts as a Lua list; escaped (text.h) when they are only shown, as seat names are. */
static void push_strings(lua_State *L, const jsonl_value *list, bool shown) {
    lua_createtable(L, list->count, 0);
    for (int i = 0; i < list->count; i++) {
        const char *text = list->items[i].kind == JSONL_STRING ? list->items[i].string : "?";
        char safe[400];
        if (shown) text_escape(safe, sizeof safe, text, false);
        lua_pushstring(L, shown ? safe : text);
        lua_rawseti(L, -2, i + 1);
    }
}

/* "meeple replay: <reason>" on stderr, escaped: the reason may quote the log. Returns 1. */
static int fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

static int fail(const char *fmt, ...) {
    char reason[1500];
    va_list args;
    va_start(args, fmt);
    vsnprintf(reason, sizeof reason, fmt, args);
    va_end(args);
    fputs("meeple replay: ", stderr);
    text_write(stderr, reason, strlen(reason), false);
    fputc('\n', stderr);
    return 1;
}

/* Text read from the log, on stdout: escaped, as a file may hold anything. */
static void put(const char *text) { text_write(stdout, text, strlen(text), false); }

static const char *seat_name(const jsonl_value *seats, int s) {
    return seats->items[s].kind == JSONL_STRING ? seats->items[s].string : "?";
}

/* The forfeits, scores and winners the log recorded. */
static void print_result(const jsonl_value *v, const jsonl_value *seats) {
    const jsonl_value *forfeits = jsonl_get(v, "forfeits"), *scores = jsonl_get(v, "scores"),
                      *winners = jsonl_get(v, "winners");
    printf("\n");
    for (int i = 0; forfeits && forfeits->kind == JSONL_ARRAY && i < forfeits->count; i++) {
        long long seat;
        const jsonl_value *r = jsonl_get(&forfeits->items[i], "reason");
        if (!jsonl_int(jsonl_get(&forfeits->items[i], "seat"), 1, seats->count, &seat)) continue;
        printf("P%lld (", seat);
        put(seat_name(seats, (int)seat - 1));
        printf(") forfeited: ");
        put(r && r->kind == JSONL_STRING ? r->string : "?");
        printf("\n");
    }
    if (scores && scores->kind == JSONL_ARRAY) {
        printf("scores:");
        for (int i = 0; i < scores->count; i++)
            printf(" P%d %g%s", i + 1, scores->items[i].number, i + 1 < scores->count ? "," : "");
        printf("\n");
    }
    if (winners && winners->kind == JSONL_ARRAY) {
        printf(winners->count == 1 ? "winner:" : "winners (shared):");
        for (int i = 0; i < winners->count; i++) {
            long long w;
            if (!jsonl_int(&winners->items[i], 1, seats->count, &w)) continue;
            printf(" P%lld (", w);
            put(seat_name(seats, (int)w - 1));
            printf(")");
        }
        printf("\n");
    }
}

/* A log may come from anyone, so it never chooses which file runs: a variant it names by a path is
 * played only from the file the user passes (--variant FILE). The variant to use, or NULL after
 * saying why. */
static bool variant_to_use(const jsonl_value *logged, const char *given, const char *path, long long k,
                           const char **out) {
    *out = NULL;
    if (!logged || logged->kind != JSONL_STRING) {
        if (given) return fail("%s, game %lld was played under the base rules: --variant is not needed", path, k) == 0;
        return true;
    }
    const char *name = logged->string;
    size_t len = strlen(name);
    bool is_path = strchr(name, '/') || (len >= 4 && strcmp(name + len - 4, ".lua") == 0);
    if (is_path && !given)
        return fail("%s, game %lld names its variant by a file's path ('%.200s'); logs name variants by name: "
                    "pass the file with --variant FILE", path, k, name) == 0;
    *out = given ? given : name;
    return true;
}

static int replay_game(const jsonl_value *v, long long k, const char *path, const char *given_variant,
                       const cli_options *opts) {
    const jsonl_value *game = jsonl_get(v, "game"), *seats = jsonl_get(v, "seats"),
                      *actions = jsonl_get(v, "actions"), *variant = jsonl_get(v, "variant");
    long long seed;
    bool fields = game && game->kind == JSONL_STRING && seats && seats->kind == JSONL_ARRAY && seats->count > 0 &&
                  actions && actions->kind == JSONL_ARRAY && (!variant || variant->kind == JSONL_NULL ||
                  variant->kind == JSONL_STRING) && jsonl_int(jsonl_get(v, "seed"), 0, INT64_MAX / 2, &seed);
    if (!fields) {
        return fail("%s, game %lld: not a game of a match log (game, seed, seats, actions)", path, k);
    }
    const game_def *def = game_find(game->string);
    if (!def) {
        return fail("%s, game %lld: unknown game '%s'; games: %s", path, k, game->string, game_names());
    }
    const char *use_variant;
    if (!variant_to_use(variant, given_variant, path, k, &use_variant)) return 1;
    lua_State *L = cli_new_lua();
    if (!L) {
        fprintf(stderr, "meeple replay: out of memory\n");
        return 1;
    }
    printf("%s, game %lld of ", def->title, k);
    put(path);
    printf(": seed %lld", seed);
    if (variant && variant->kind == JSONL_STRING) {
        printf(", variant ");
        put(variant->string);
    }
    printf(", seats:");
    for (int i = 0; i < seats->count; i++) {
        printf(" P%d ", i + 1);
        put(seat_name(seats, i));
        printf("%s", i + 1 < seats->count ? "," : "");
    }
    printf("\n\n");
    fflush(stdout);
    cli_push_msgh(L, opts);
    int status = luaL_loadbufferx(L, replay_lua, strlen(replay_lua), "=replay", "t");
    if (status == LUA_OK) {
        lua_getglobal(L, "meeple");
        lua_pushstring(L, def->name);
        lua_pushinteger(L, (lua_Integer)seed);
        push_strings(L, seats, true);
        if (use_variant) lua_pushstring(L, use_variant);
        else lua_pushnil(L);
        push_strings(L, actions, false); /* played, so only legal ones are shown */
        lua_pushboolean(L, isatty(STDIN_FILENO) && isatty(STDOUT_FILENO));
        status = lua_pcall(L, 7, 0, 1);
    }
    fflush(stdout);
    if (status != LUA_OK) {
        char who[1200];
        snprintf(who, sizeof who, "meeple replay: %s, game %lld", path, k);
        cli_report(L, opts, who);
    } else {
        print_result(v, seats);
    }
    lua_close(L);
    return status == LUA_OK ? 0 : 1;
}

int replay_main(int argc, char **argv, const cli_options *opts) {
    const char *path = NULL, *variant = NULL;
    long long k = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--variant") == 0) {
            if (i + 1 == argc) return cli_bad_args("replay", "--variant needs a file");
            variant = argv[++i];
        } else if (strcmp(argv[i], "--game") == 0) {
            if (i + 1 == argc) return cli_bad_args("replay", "--game needs a value");
            if (!cli_parse_int(argv[++i], 1, INT64_MAX / 2, &k))
                return cli_bad_args("replay", "--game must be a whole number from 1, got '%s'", argv[i]);
        } else if (argv[i][0] == '-') {
            return cli_bad_args("replay", "unknown option '%s'", argv[i]);
        } else if (path) {
            return cli_bad_args("replay", "one log expected, got also '%s'", argv[i]);
        } else {
            path = argv[i];
        }
    }
    if (!path) return cli_bad_args("replay", "which log? (a .jsonl file written by meeple match --log)");
    long long count = 0;
    char *line = read_game_line(path, k, &count);
    if (!line) {
        if (count == 0 && access(path, R_OK) != 0) return 2;
        return cli_bad_args("replay", "the log '%s' has %lld game%s, no game %lld", path, count,
                            count == 1 ? "" : "s", k);
    }
    char err[200];
    jsonl_value *v = jsonl_parse(line, err, sizeof err);
    free(line);
    if (!v) {
        return fail("%s, game %lld: not JSON: %s", path, k, err);
    }
    int status = replay_game(v, k, path, variant, opts);
    jsonl_free(v);
    return status;
}
