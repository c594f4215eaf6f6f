/* main.c — the `meeple` executable: the command table, argument checks, and `games`, `rules`, `run`. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/types.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "cli.h"
#include "lmeeple.h"
#include "registry.h"
#include "shell.h"
#include "text.h"

typedef int (*cli_command_fn)(int argc, char **argv, const cli_options *opts);

typedef struct cli_command {
    const char *name;
    const char *usage;   /* one line, after "usage: " */
    const char *summary; /* one line for `meeple --help` */
    const char *details; /* more lines for `meeple CMD --help`, or NULL */
    cli_command_fn fn;   /* NULL: a later issue's command, not in this build */
} cli_command;

static int cmd_games(int argc, char **argv, const cli_options *opts);
static int cmd_rules(int argc, char **argv, const cli_options *opts);
static int cmd_run(int argc, char **argv, const cli_options *opts);

static const cli_command commands[] = {
    {"repl", "meeple repl [GAME] [--seed S] [--players N] [--variant V]",
     "interactive Lua shell with the current game (`meeple` alone too)",
     "`meeple` alone starts it too. The module is the global `meeple`, the current game `g`; :help in\n"
     "the shell lists its commands. History is kept in $MEEPLE_HISTORY, else ~/.meeple_history.",
     shell_main},
    {"run", "meeple run FILE.lua [ARGS...]", "run a Lua script with the meeple module loaded",
     "The module is the global `meeple` and `require \"meeple\"`; `arg` and `...` are as in lua.\n"
     "A script error prints one line and exits 1 (the traceback with `meeple --debug run`).",
     cmd_run},
    {"play", "meeple play GAME [--bot FILE]... [--seat N] [--seed S] [--players N] [--variant V] [--save F] [--load F]",
     "play a game at the terminal against bots",
     "  --bot FILE   a bot for the next other seat (repeat it; the last one fills the rest), or the\n"
     "               name of one in bots/; without any, bots/random.lua plays every other seat\n"
     "  --seat N     your seat (default 1)\n"
     "  --seed S     the deal (default: a fresh one, printed)\n"
     "  --players N  player count (default: the game's, or one more than the bots given)\n"
     "  --variant V  house rules: a name in scripts/variants/GAME/, or a file\n"
     "  --save F     write the game to F after every decision (and at quit or Ctrl-C)\n"
     "  --load F     go on with the game saved in F (GAME, --seed, --players come from it)\n"
     "Answer with an action's number, the action, or its first letters (\"trav med\");\n"
     "`undo` takes back your last decision, `save`/`load` a file, `help` lists the answers,\n"
     "`quit` stops. Ctrl-C stops too, with status 130.",
     play_main},
    {"match",
     "meeple match GAME BOT BOT... [--games N] [--seed S] [--jobs J] [--variant V] [--log F.jsonl] [--resume]",
     "a tournament between bots, seats rotated",
     "  BOT          a bot file, or the name of one in bots/ (random, greedy_babel, ismcts, ...);\n"
     "               one per seat, so the number of bots is the number of players\n"
     "  --games N    games to play (default 100); each game's seed is derived from S, seats rotated\n"
     "  --seed S     the match's seed, 0..2^53-1 (default: drawn from the OS, printed and logged)\n"
     "  --jobs J     games played at once, one thread each (default 1); results do not depend on it\n"
     "  --variant V  every game under a house-rule variant (a name in scripts/variants/GAME, or a file)\n"
     "  --log F      one JSON line per game (seed, seats, actions, scores, winners, forfeits);\n"
     "               F is written anew unless --resume\n"
     "  --resume     continue the match logged in F where it stopped (same arguments; the seed\n"
     "               comes from the log), after replaying every logged game to check it\n"
     "  --ms N       a bot's wall-clock limit per decision (default 1000)\n"
     "  --instructions N   its Lua instruction budget per decision (default 1000000000)\n"
     "  --memory MB  its memory cap (default 128)\n"
     "A bot that errors, answers an action that is not legal or breaks a limit forfeits the game.\n"
     "Bots print to stderr only under `meeple --debug match`.",
     match_main},
    {"compare", "meeple compare GAME --variant V BOT BOT... [--games N] [--seed S] [--jobs J]",
     "the same bots and seeds under the base rules and under a variant, side by side",
     "Plays `meeple match` twice with the same seeds, once under the base rules and once under the\n"
     "variant, and prints per-seat win rates (the first player's advantage), game length, and each\n"
     "bot's win rate and mean score, with 95% intervals, marking what changed beyond chance.\n"
     "  --variant V  the house rules: a name in scripts/variants/GAME/, or a file\n"
     "  --games N    games under each rule set (default 200)\n"
     "  --seed S     the match seed both play (default: drawn from the OS, printed)\n"
     "  --jobs J     games played at once (default 1)",
     compare_main},
    {"bench", "meeple bench GAME [--games N] [--seed S] [--players N] [--bot FILE] [--variant V] [--json]",
     "speed: random playouts in C (or through a Lua bot), clones",
     "  --games N    games to play (default 2000); game i is dealt with seed S+i\n"
     "  --seed S     first seed (default 1)\n"
     "  --players N  player count (default: the game's)\n"
     "  --bot FILE   every decision goes through this Lua bot; adds the host's overhead per decision\n"
     "  --variant V  random play under a variant, through its (Lua) hooks\n"
     "  --json       one JSON object instead of `name: value` lines",
     bench_main},
    {"replay", "meeple replay F.jsonl [--game K] [--variant FILE]", "step through a logged game",
     "Replays game K (default 1) of a `meeple match --log` file from its seed, printing the board\n"
     "after every decision; on a terminal it waits for Enter between decisions (q quits).\n"
     "  --variant FILE  the variant file of a game logged under one (a log names a variant file by\n"
     "                  its path, and replay runs only the file you name)",
     replay_main},
    {"games", "meeple games", "list the games", NULL, cmd_games},
    {"rules", "meeple rules GAME", "a game's rules summary, rulings, action grammar and parameters", NULL,
     cmd_rules},
};
static const int command_count = (int)(sizeof commands / sizeof commands[0]);

#define MAIN_USAGE "meeple [--debug] COMMAND [ARGS...]"

static const cli_command *command_find(const char *name) {
    for (int i = 0; i < command_count; i++)
        if (strcmp(commands[i].name, name) == 0) return &commands[i];
    return NULL;
}

/* ===================================================================================== helpers */

int cli_bad_args(const char *cmd, const char *fmt, ...) {
    const cli_command *c = cmd ? command_find(cmd) : NULL;
    char reason[2048];
    va_list args;
    va_start(args, fmt);
    vsnprintf(reason, sizeof reason, fmt, args);
    va_end(args);
    fprintf(stderr, c ? "meeple %s: " : "meeple: ", cmd);
    text_write(stderr, reason, strlen(reason), false); /* a bot's load error is in it, or a file's name */
    fprintf(stderr, "\nusage: %s\n", c ? c->usage : MAIN_USAGE);
    return 2;
}

bool cli_parse_int(const char *text, long long min, long long max, long long *out) {
    char *end;
    if (!text || !*text) return false;
    long long v = strtoll(text, &end, 10);
    if (*end || v < min || v > max) return false;
    *out = v;
    return true;
}

long long cli_os_seed(void) {
    uint64_t bits = 0;
    bool drawn = getrandom(&bits, sizeof bits, 0) == (ssize_t)sizeof bits;
    if (!drawn) { /* a kernel without getrandom(2) */
        FILE *f = fopen("/dev/urandom", "rb");
        drawn = f && fread(&bits, sizeof bits, 1, f) == 1;
        if (f) fclose(f);
    }
    if (!drawn) return -1;
    return (long long)(bits & CLI_SEED_MAX);
}

/* Turns any error value into a string, as the lua interpreter does. */
static const char *error_text(lua_State *L) {
    const char *msg = lua_tostring(L, 1);
    if (msg) return msg;
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return lua_tostring(L, -1);
    return lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
}

/* Whether a message already starts with a "chunk:line:" position. */
static bool has_position(const char *msg) {
    const char *colon = strchr(msg, ':');
    if (!colon || colon == msg) return false;
    const char *digits = colon + 1;
    while (*digits >= '0' && *digits <= '9') digits++;
    return digits > colon + 1 && *digits == ':';
}

/* The one line a user sees. Errors raised from C (an illegal `s:play`) carry only their reason, so
 * the line of the first Lua function on the stack is added: the script's author needs it. */
static int msgh_plain(lua_State *L) {
    const char *msg = error_text(L);
    lua_Debug ar;
    for (int level = 1; !has_position(msg) && lua_getstack(L, level, &ar); level++) {
        lua_getinfo(L, "Sl", &ar);
        /* The user's own file, not a chunk compiled into meeple ("=variant.lua"). */
        if (ar.currentline > 0 && ar.source[0] == '@') {
            msg = lua_pushfstring(L, "%s:%d: %s", ar.short_src, ar.currentline, msg);
            break;
        }
    }
    lua_pushstring(L, msg);
    return 1;
}

static int msgh_traceback(lua_State *L) {
    luaL_traceback(L, L, error_text(L), 1);
    return 1;
}

void cli_push_msgh(lua_State *L, const cli_options *opts) {
    lua_pushcfunction(L, opts->debug ? msgh_traceback : msgh_plain);
}

void cli_report(lua_State *L, const cli_options *opts, const char *who) {
    const char *msg = lua_tostring(L, -1);
    if (!msg) msg = "(error without a message)";
    /* One line for a user: a multi-line message keeps its first line. */
    size_t len = opts->debug ? strlen(msg) : strcspn(msg, "\n");
    text_write(stderr, who, strlen(who), false);
    fputs(": ", stderr);
    text_write(stderr, msg, len, opts->debug);
    fputc('\n', stderr);
}

lua_State *cli_new_lua(void) {
    lua_State *L = luaL_newstate();
    if (!L) return NULL;
    luaL_openlibs(L);
    luaL_requiref(L, "meeple", meeple_open, 1);
    lua_pop(L, 1);
    /* Also in package.preload, so a script that clears package.loaded still finds it. */
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    lua_pushcfunction(L, meeple_open);
    lua_setfield(L, -2, "meeple");
    lua_pop(L, 2);
    return L;
}

/* =============================================================================== the commands */

static int cmd_games(int argc, char **argv, const cli_options *opts) {
    (void)argv;
    (void)opts;
    if (argc > 1) return cli_bad_args("games", "no arguments expected, got '%s'", argv[1]);
    for (int i = 0; i < meeple_game_count; i++) {
        const game_def *def = meeple_games[i];
        char counts[32];
        if (def->min_players == def->max_players) snprintf(counts, sizeof counts, "%d", def->min_players);
        else snprintf(counts, sizeof counts, "%d-%d", def->min_players, def->max_players);
        printf("%-12s %s players  %s\n", def->name, counts, def->title);
    }
    return 0;
}

/* A default list as a variant would write it: {3, 2, 2}, or by player count {[3] = 3, [4] = 2}. */
static void default_list_text(const param_def *p, char *out, size_t n) {
    size_t used = (size_t)snprintf(out, n, "{");
    bool by_players = p->kind == PARAM_BY_PLAYERS, first = true;
    for (int i = 0; i < p->fallback_count && used < n; i++) {
        if (by_players && p->fallback_list[i] == PARAM_UNSET) continue;
        if (by_players) used += (size_t)snprintf(out + used, n - used, "%s[%d] = %d", first ? "" : ", ", i, p->fallback_list[i]);
        else used += (size_t)snprintf(out + used, n - used, "%s%d", first ? "" : ", ", p->fallback_list[i]);
        first = false;
    }
    if (used < n) snprintf(out + used, n - used, "}");
}

/* One parameter's default and allowed values, as a player would write them in a variant. */
static void param_describe(const param_def *p, char *def_text, size_t dn, char *range, size_t rn) {
    snprintf(def_text, dn, "%d", p->fallback);
    if (p->fallback_list) default_list_text(p, def_text, dn);
    switch (p->kind) {
    case PARAM_INT:
        snprintf(range, rn, "a whole number in %d..%d", p->min, p->max);
        break;
    case PARAM_PER_SEAT:
        snprintf(range, rn, "a whole number in %d..%d, or a list of them (see below)", p->min, p->max);
        break;
    case PARAM_BY_PLAYERS:
        snprintf(range, rn, "a whole number in %d..%d, or a table of them by player count", p->min, p->max);
        break;
    case PARAM_BY_NAME:
        snprintf(def_text, dn, "{...}");
        if (p->width > 1)
            snprintf(range, rn, "a table: name = {%d whole numbers in %d..%d} (see below)", p->width, p->min, p->max);
        else
            snprintf(range, rn, "a table: name = a whole number in %d..%d (see below)", p->min, p->max);
        break;
    case PARAM_BOOL:
        snprintf(def_text, dn, "%s", p->fallback ? "true" : "false");
        snprintf(range, rn, "true or false");
        break;
    case PARAM_CHOICE: {
        snprintf(def_text, dn, "\"%s\"", p->choices[p->fallback]);
        size_t used = (size_t)snprintf(range, rn, "one of:");
        for (int i = 0; p->choices[i] && used < rn; i++)
            used += (size_t)snprintf(range + used, rn - used, "%s \"%s\"", i ? "," : "", p->choices[i]);
        break;
    }
    }
    if (p->game_default) snprintf(def_text, dn, "(see below)");
}

/* Prints `text` in lines of at most `width` columns, each indented by `indent` spaces. */
static void print_wrapped(const char *text, int indent, int width) {
    while (*text) {
        int room = width - indent, len = (int)strlen(text), cut = len;
        if (len > room) {
            cut = room;
            while (cut > 0 && text[cut] != ' ') cut--;
            if (cut == 0) cut = room; /* one word longer than the line: break it */
        }
        printf("%*s%.*s\n", indent, "", cut, text);
        text += cut;
        while (*text == ' ') text++;
    }
}

static void print_params(const game_def *def) {
    char head[MEEPLE_MAX_PARAMS][96], range[MEEPLE_MAX_PARAMS][256];
    int width = 0;
    for (int i = 0; i < def->num_params; i++) {
        char def_text[64];
        param_describe(&def->params[i], def_text, sizeof def_text, range[i], sizeof range[i]);
        int w = snprintf(head[i], sizeof head[i], "%s = %s", def->params[i].name, def_text);
        if (w > width) width = w;
    }
    printf("\nParameters (a variant's `params`, or meeple.new(\"%s\", {params = {...}}))\n", def->name);
    if (def->num_params == 0) printf("  (none)\n");
    for (int i = 0; i < def->num_params; i++) {
        printf("  %-*s  %s\n", width, head[i], range[i]);
        if (def->params[i].doc && *def->params[i].doc) print_wrapped(def->params[i].doc, 6, 100);
    }
}

static int cmd_rules(int argc, char **argv, const cli_options *opts) {
    (void)opts;
    if (argc < 2) return cli_bad_args("rules", "which game? games: %s", game_names());
    if (argc > 2) return cli_bad_args("rules", "one game expected, got also '%s'", argv[2]);
    const game_def *def = game_find(argv[1]);
    if (!def) return cli_bad_args("rules", "unknown game '%s'; games: %s", argv[1], game_names());
    cli_print_rules(def);
    return 0;
}

void cli_print_rules(const game_def *def) {
    const char *rules = def->rules ? def->rules : "";
    size_t len = strlen(rules);
    fputs(rules, stdout);
    if (len && rules[len - 1] != '\n') putchar('\n');
    print_params(def);
}

/* `arg` as the lua interpreter builds it: the script at 0, its arguments after, the rest before. */
static void push_arg_table(lua_State *L, int script, const cli_options *opts) {
    lua_createtable(L, opts->argc - script, script + 1);
    for (int i = 0; i < opts->argc; i++) {
        lua_pushstring(L, opts->argv[i]);
        lua_rawseti(L, -2, i - script);
    }
    lua_setglobal(L, "arg");
}

static int cmd_run(int argc, char **argv, const cli_options *opts) {
    if (argc < 2) return cli_bad_args("run", "which script?");
    int script = (int)(argv + 1 - opts->argv); /* the script's index in the program's own argv */
    lua_State *L = cli_new_lua();
    if (!L) {
        fprintf(stderr, "meeple: cannot create a Lua state (out of memory)\n");
        return 1;
    }
    push_arg_table(L, script, opts);
    cli_push_msgh(L, opts);
    int status = luaL_loadfilex(L, argv[1], "t");
    if (status == LUA_OK) {
        luaL_checkstack(L, argc, "too many arguments");
        for (int i = 2; i < argc; i++) lua_pushstring(L, argv[i]);
        status = lua_pcall(L, argc - 2, 0, 1);
    }
    if (status != LUA_OK) cli_report(L, opts, "meeple");
    lua_close(L);
    return status == LUA_OK ? 0 : 1;
}

/* ====================================================================================== main */

static void print_help(void) {
    printf("meeple — board games for people, bots and scripts, with Lua 5.4 inside\n\n"
           "usage: %s\n\ncommands:\n", MAIN_USAGE);
    for (int i = 0; i < command_count; i++)
        printf("  %-8s %s%s\n", commands[i].name, commands[i].summary,
               commands[i].fn ? "" : " (not in this build yet)");
    printf("\noptions:\n"
           "  --debug  full Lua tracebacks on errors\n"
           "  --help   this text; `meeple COMMAND --help` for one command\n");
}

static void print_command_help(const cli_command *c) {
    printf("usage: %s\n\n%s%s\n", c->usage, c->summary, c->fn ? "" : " (not in this build yet)");
    if (c->details) printf("\n%s\n", c->details);
}

static bool is_help(const char *arg) { return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0; }

/* `--help` anywhere among a command's own options; a script's arguments belong to the script. */
static bool wants_help(const cli_command *c, int argc, char **argv) {
    int last = c->fn == cmd_run ? (argc > 1 ? 1 : 0) : argc - 1;
    for (int i = 1; i <= last; i++)
        if (is_help(argv[i])) return true;
    return false;
}

int main(int argc, char **argv) {
    cli_options opts = {.debug = false, .argc = argc, .argv = argv};
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--debug") == 0) {
            opts.debug = true;
        } else if (is_help(argv[i])) {
            print_help();
            return 0;
        } else {
            return cli_bad_args(NULL, "unknown option '%s'", argv[i]);
        }
    }
    if (i == argc) return shell_main(1, (char *[]){"repl", NULL}, &opts); /* `meeple`: the shell */
    const cli_command *c = command_find(argv[i]);
    if (!c) return cli_bad_args(NULL, "unknown command '%s'", argv[i]);
    if (wants_help(c, argc - i, argv + i)) {
        print_command_help(c);
        return 0;
    }
    if (!c->fn) {
        fprintf(stderr, "meeple: '%s' is not in this build yet\n", c->name);
        return 2;
    }
    return c->fn(argc - i, argv + i, &opts);
}
