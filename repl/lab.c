/* lab.c — the variant lab: `meeple evaluate` (game-design metrics of a game or a variant, with 95%
 * intervals) and `meeple tune` (parameter values found for an objective by successive halving).
 *
 * Both play `meeple match` in a child (lab_run_match, shared with compare), so the games are exactly
 * those a match with the same arguments plays: the same seating design, duplicate deals and seeds.
 * The arguments, the metrics and the reports are in Lua (repl/lua/lab.lua); this file hands it the
 * few things only C does: running a match, a seed from the OS, a temporary folder, a file written
 * whole or not at all. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>

#include "cli.h"
#include "host/paths.h"
#include "lab.h"
#include "report.h"

extern const char meeple_lua_lab[]; /* repl/lua/lab.lua */

/* What the Lua side's C functions share: the command and its options. */
typedef struct lab_context {
    const char *cmd;
    const cli_options *opts;
} lab_context;

static const char *opt_string(lua_State *L, int t, const char *key) {
    lua_getfield(L, t, key);
    const char *s = lua_tostring(L, -1); /* kept alive by the spec table */
    lua_pop(L, 1);
    return s;
}

static long long opt_integer(lua_State *L, int t, const char *key) {
    lua_getfield(L, t, key);
    long long v = (long long)lua_tointeger(L, -1);
    lua_pop(L, 1);
    return v;
}

/* play{game=, bots={...}, games=, seed=, jobs=, seating=, variant=, log=, label=, quiet=, max_decisions=, ms=} -> the
 * match's exit status. */
static int l_play(lua_State *L) {
    const lab_context *c = lua_touserdata(L, lua_upvalueindex(1));
    luaL_checktype(L, 1, LUA_TTABLE);
    lab_match spec = {.cmd = c->cmd, .game = opt_string(L, 1, "game"), .variant = opt_string(L, 1, "variant"),
                      .seating = opt_string(L, 1, "seating"), .log = opt_string(L, 1, "log"),
                      .label = opt_string(L, 1, "label"), .games = opt_integer(L, 1, "games"),
                      .seed = opt_integer(L, 1, "seed"), .jobs = opt_integer(L, 1, "jobs"),
                      .max_decisions = opt_integer(L, 1, "max_decisions"), .ms = opt_integer(L, 1, "ms")};
    lua_getfield(L, 1, "quiet");
    spec.quiet = lua_toboolean(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, 1, "bots");
    spec.nbots = (int)luaL_len(L, -1);
    if (spec.nbots > MEEPLE_MAX_PLAYERS) spec.nbots = MEEPLE_MAX_PLAYERS;
    for (int i = 0; i < spec.nbots; i++) {
        lua_rawgeti(L, -1, i + 1);
        spec.bots[i] = lua_tostring(L, -1);
        lua_pop(L, 1); /* the string stays in the bots table */
    }
    if (!spec.game || !spec.seating || !spec.log || spec.nbots < 1) return luaL_error(L, "play: a bad match");
    lua_pushinteger(L, lab_run_match(&spec, c->opts));
    return 1;
}

/* os_seed() -> a seed no bot can guess, or nil. */
static int l_os_seed(lua_State *L) {
    long long seed = cli_os_seed();
    if (seed < 0) lua_pushnil(L);
    else lua_pushinteger(L, seed);
    return 1;
}

/* is_bot(arg) -> whether a match would find the bot `arg` (a file, a name in bots/, a program). */
static int l_is_bot(lua_State *L) {
    char path[1024];
    lua_pushboolean(L, meeple_find_bot(luaL_checkstring(L, 1), path, sizeof path));
    return 1;
}

/* write_file(path, text) -> true, or nil and one line: written whole beside `path`, then renamed. */
static int l_write_file(lua_State *L) {
    size_t len;
    const char *path = luaL_checkstring(L, 1), *text = luaL_checklstring(L, 2, &len);
    char err[1200];
    if (report_write_file(path, text, len, err, sizeof err)) {
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushnil(L);
    lua_pushstring(L, err);
    return 2;
}

/* The Lua side's refusal, returned: a table {bad = "reason"} is a bad argument (status 2), {no_bot =
 * ARG} a bot that cannot be found (as every command says it), {status = N} a failure already said (a
 * match's); raised: an error said here in one line. */
static int lab_failed(lua_State *L, const lab_context *c) {
    if (lua_istable(L, -1)) {
        lua_getfield(L, -1, "bad");
        const char *bad = lua_tostring(L, -1);
        if (bad) return cli_bad_args(c->cmd, "%s", bad);
        lua_getfield(L, -2, "no_bot");
        const char *bot = lua_tostring(L, -1);
        if (bot) return cli_no_bot(c->cmd, bot);
        lua_getfield(L, -3, "status");
        return lua_isinteger(L, -1) ? (int)lua_tointeger(L, -1) : 1;
    }
    char who[40];
    snprintf(who, sizeof who, "meeple %s", c->cmd);
    cli_report(L, c->opts, who);
    return 1;
}

static int lab_main(const char *cmd, int argc, char **argv, const cli_options *opts) {
    lab_context c = {cmd, opts};
    char dir[] = "/tmp/meeple-lab-XXXXXX";
    if (!mkdtemp(dir)) {
        fprintf(stderr, "meeple %s: cannot make a temporary folder\n", cmd);
        return 1;
    }
    lua_State *L = cli_new_lua();
    if (!L) {
        fprintf(stderr, "meeple %s: out of memory\n", cmd);
        rmdir(dir);
        return 1;
    }
    cli_push_msgh(L, opts);
    int status = cli_load_program(L, meeple_lua_lab, "=lab");
    if (status == LUA_OK) {
        lua_getglobal(L, "meeple");
        lua_createtable(L, 0, 6); /* the request */
        lua_pushstring(L, cmd);
        lua_setfield(L, -2, "command");
        lua_createtable(L, argc, 0);
        for (int i = 1; i < argc; i++) {
            lua_pushstring(L, argv[i]);
            lua_rawseti(L, -2, i);
        }
        lua_setfield(L, -2, "args");
        lua_pushstring(L, dir);
        lua_setfield(L, -2, "tmp");
        lua_pushboolean(L, isatty(STDERR_FILENO));
        lua_setfield(L, -2, "tty");
        lua_pushlightuserdata(L, &c);
        lua_pushcclosure(L, l_play, 1);
        lua_setfield(L, -2, "play");
        lua_pushcfunction(L, l_os_seed);
        lua_setfield(L, -2, "os_seed");
        lua_pushcfunction(L, l_is_bot);
        lua_setfield(L, -2, "is_bot");
        lua_pushcfunction(L, l_write_file);
        lua_setfield(L, -2, "write_file");
        status = lua_pcall(L, 2, 1, 1);
    }
    int code = status == LUA_OK && !lua_istable(L, -1) ? (int)lua_tointeger(L, -1) : lab_failed(L, &c);
    lua_close(L);
    rmdir(dir); /* lab.lua removed what it wrote there */
    return code;
}

int evaluate_main(int argc, char **argv, const cli_options *opts) { return lab_main("evaluate", argc, argv, opts); }

int tune_main(int argc, char **argv, const cli_options *opts) { return lab_main("tune", argc, argv, opts); }
