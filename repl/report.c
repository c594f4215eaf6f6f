/* report.c — `meeple report F.jsonl… [--html FILE] [--json] [--no-replays]`: what one or many match logs
 * say about their bots — results with intervals, win rates by seat, decision times, forfeits and
 * ratings — as a table, one JSON object, or a page with plots whose games link to their replay pages.
 * The work is in Lua (scripts/report.lua, scripts/ratings.lua, and scripts/viewer.lua for the replays),
 * compiled in; this file checks the arguments and hands them over. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>

#include "cli.h"
#include "host/matchlog.h"
#include <meeple/registry.h>
#include "report.h"
#include "host/text.h"

extern const char meeple_lua_render[];
extern const char meeple_lua_report[];
extern const char meeple_lua_ratings[];
extern const char meeple_lua_viewer[];
extern const char meeple_lua_viewer_page[];
extern const char meeple_lua_viewer_app[];
extern const char meeple_lua_viewer_draw[];
extern const char meeple_lua_report_command[]; /* repl/lua/report_command.lua: the command itself */

#define REPORT_MAX_LOGS 4096
#define REPORT_PAGES 500          /* replay pages written without --pages */
#define REPORT_PAGES_MAX 10000000

/* escape(text) -> text with control characters escaped, for the terminal. */
static int l_escape(lua_State *L) {
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    size_t cap = len * 6 + 1;
    char *out = lua_newuserdatauv(L, cap, 0);
    text_escape(out, cap, s, false);
    lua_pushstring(L, out);
    return 1;
}

/* ---- Files, as hostile input and precious output ---- */

typedef struct log_lines {
    FILE *f;
    char *buf;
    size_t cap;
    long long line;
    char path[1024];
} log_lines;

static int log_lines_close(lua_State *L) {
    log_lines *r = luaL_checkudata(L, 1, "meeple.log_lines");
    if (r->f) fclose(r->f);
    free(r->buf);
    r->f = NULL;
    r->buf = NULL;
    return 0;
}

/* The errors below carry no position: they are about the log, not the script. */
static int too_long(lua_State *L, const log_lines *r) {
    lua_pushfstring(L, "%s, line %I: longer than %d bytes", r->path, (lua_Integer)r->line + 1, (int)MATCHLOG_MAX_LINE);
    return lua_error(L);
}

/* The next line of the log (its newline removed), or nil at the end; an error naming the line when it
 * is longer than MATCHLOG_MAX_LINE or its JSON too big to parse (matchlog_line_bounded). */
static int log_lines_next(lua_State *L) {
    log_lines *r = luaL_checkudata(L, lua_upvalueindex(1), "meeple.log_lines");
    if (!r->f) return 0;
    size_t len = 0;
    int c = EOF;
    while ((c = getc_unlocked(r->f)) != EOF && c != '\n') {
        if (len == MATCHLOG_MAX_LINE) return too_long(L, r);
        if (len == r->cap) {
            size_t cap = r->cap ? r->cap * 2 : 1 << 16;
            char *grown = realloc(r->buf, cap);
            if (!grown) return too_long(L, r);
            r->buf = grown;
            r->cap = cap;
        }
        r->buf[len++] = (char)c;
    }
    if (ferror(r->f)) {
        lua_pushfstring(L, "cannot read the log '%s'", r->path);
        return lua_error(L);
    }
    if (c == EOF && len == 0) return 0;
    r->line++;
    char why[200];
    if (!matchlog_line_bounded(r->buf, len, why, sizeof why)) {
        lua_pushfstring(L, "%s, line %I: %s", r->path, (lua_Integer)r->line, why);
        return lua_error(L);
    }
    lua_pushlstring(L, r->buf, len);
    return 1;
}

/* lines(path) -> an iterator over the log's lines; refuses a file that is not a regular file. */
static int l_log_lines(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    log_lines *r = lua_newuserdatauv(L, sizeof *r, 0);
    memset(r, 0, sizeof *r);
    if (luaL_newmetatable(L, "meeple.log_lines")) {
        lua_pushcfunction(L, log_lines_close);
        lua_setfield(L, -2, "__gc");
        lua_pushcfunction(L, log_lines_close);
        lua_setfield(L, -2, "__close");
    }
    lua_setmetatable(L, -2);
    snprintf(r->path, sizeof r->path, "%s", path);
    char err[1200];
    r->f = cli_open_log(path, err, sizeof err);
    if (!r->f) {
        lua_pushstring(L, err);
        return lua_error(L);
    }
    lua_pushcclosure(L, log_lines_next, 1);
    return 1;
}

bool report_write_file(const char *path, const char *text, size_t len, char *err, size_t errn) {
    char tmp[4200];
    FILE *f = cli_out_open(path, tmp, sizeof tmp, err, errn);
    if (!f) return false;
    bool ok = fwrite(text, 1, len, f) == len;
    if (cli_out_commit(f, tmp, path, ok)) return true;
    snprintf(err, errn, "cannot write '%s'", path);
    return false;
}

/* write(path, text), as report_write_file; raises its reason. */
static int l_write_file(lua_State *L) {
    size_t len;
    const char *path = luaL_checkstring(L, 1), *text = luaL_checklstring(L, 2, &len);
    char err[1200];
    if (!report_write_file(path, text, len, err, sizeof err)) return luaL_error(L, "%s", err);
    return 0;
}

static void push_chunk_result(lua_State *L, const char *text, const char *name) {
    if (luaL_loadbufferx(L, text, strlen(text), name, "t") != LUA_OK) lua_error(L);
    lua_call(L, 0, 1);
}

void report_push_modules(lua_State *L) {
    lua_createtable(L, 0, 8);
    push_chunk_result(L, meeple_lua_report, "=report.lua");
    lua_pushcfunction(L, l_log_lines);
    lua_setfield(L, -2, "lines");
    lua_pushcfunction(L, l_write_file);
    lua_setfield(L, -2, "write");
    lua_setfield(L, -2, "report");
    push_chunk_result(L, meeple_lua_ratings, "=ratings.lua");
    lua_setfield(L, -2, "ratings");
    push_chunk_result(L, meeple_lua_viewer, "=viewer.lua");
    lua_setfield(L, -2, "viewer");
    lua_createtable(L, 0, 3);
    lua_pushstring(L, meeple_lua_viewer_page);
    lua_setfield(L, -2, "page");
    lua_pushstring(L, meeple_lua_viewer_app);
    lua_setfield(L, -2, "app");
    lua_pushstring(L, meeple_lua_viewer_draw);
    lua_setfield(L, -2, "draw");
    lua_setfield(L, -2, "parts");
    lua_pushcfunction(L, l_escape);
    lua_setfield(L, -2, "escape");
    push_chunk_result(L, meeple_lua_render, "=render.lua");
    lua_setfield(L, -2, "render");
    lua_createtable(L, 0, meeple_game_count);
    for (int i = 0; i < meeple_game_count; i++) {
        lua_pushstring(L, meeple_games[i]->title);
        lua_setfield(L, -2, meeple_games[i]->name);
    }
    lua_setfield(L, -2, "titles");
}

static int run_chunk(lua_State *L) {
    int nargs = lua_gettop(L);
    const char *chunk = lua_tostring(L, lua_upvalueindex(1));
    if (luaL_loadbufferx(L, chunk, strlen(chunk), lua_tostring(L, lua_upvalueindex(2)), "t") != LUA_OK)
        lua_error(L);
    lua_getglobal(L, "meeple");
    report_push_modules(L);
    for (int i = 1; i <= nargs; i++) lua_pushvalue(L, i);
    lua_call(L, nargs + 2, LUA_MULTRET);
    return lua_gettop(L) - nargs;
}

void report_push_runner(lua_State *L, const char *chunk, const char *name) {
    lua_pushstring(L, chunk);
    lua_pushstring(L, name);
    lua_pushcclosure(L, run_chunk, 2);
}

/* The folder of FILE's replay pages: FILE without ".html", then "-games"; and its name as a link. */
static bool replay_folder(const char *html, char *dir, size_t n, const char **href) {
    size_t len = strlen(html);
    if (len > 5 && strcmp(html + len - 5, ".html") == 0) len -= 5;
    if ((size_t)snprintf(dir, n, "%.*s-games", (int)len, html) >= n) return false;
    const char *slash = strrchr(dir, '/');
    *href = slash ? slash + 1 : dir;
    return true;
}

int report_main(int argc, char **argv, const cli_options *opts) {
    const char *html = NULL;
    bool json = false, replays = true;
    int nlogs = 0;
    long long max_pages = REPORT_PAGES;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--html") == 0) {
            if (i + 1 == argc) return cli_bad_args("report", "--html needs a file");
            html = argv[++i];
        } else if (strcmp(argv[i], "--pages") == 0) {
            if (i + 1 == argc || !cli_parse_int(argv[i + 1], 0, REPORT_PAGES_MAX, &max_pages))
                return cli_bad_args("report", "--pages must be 0..%d, got '%s'", REPORT_PAGES_MAX,
                                    i + 1 < argc ? argv[i + 1] : "");
            i++;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--no-replays") == 0) {
            replays = false;
        } else if (argv[i][0] == '-') {
            return cli_unknown_option("report", argv[i]);
        } else {
            struct stat st;
            if (stat(argv[i], &st) != 0)
                return cli_bad_args("report", "cannot read the log '%s': %s", argv[i], strerror(errno));
            if (S_ISDIR(st.st_mode))
                return cli_bad_args("report", "'%s' is a folder; give log files (meeple match --log F.jsonl)", argv[i]);
            if (++nlogs > REPORT_MAX_LOGS) return cli_bad_args("report", "at most %d logs", REPORT_MAX_LOGS);
        }
    }
    if (nlogs == 0) return cli_bad_args("report", "which logs? (.jsonl files written by meeple match --log)");
    if (!html && !replays) return cli_bad_args("report", "--no-replays goes with --html");
    char dir[4096];
    const char *href = NULL;
    if (html && replays) {
        if (!replay_folder(html, dir, sizeof dir, &href)) return cli_bad_args("report", "--html: the name is too long");
        if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "meeple report: cannot make the folder %s for the replays: %s\n", dir, strerror(errno));
            return 1;
        }
    }
    lua_State *L = cli_new_lua();
    if (!L) {
        fprintf(stderr, "meeple report: out of memory\n");
        return 1;
    }
    cli_push_msgh(L, opts);
    report_push_runner(L, meeple_lua_report_command, "=report");
    lua_createtable(L, nlogs, 0);
    int n = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--html") == 0 || strcmp(argv[i], "--pages") == 0) i++;
        else if (argv[i][0] != '-') {
            lua_pushstring(L, argv[i]);
            lua_rawseti(L, -2, ++n);
        }
    }
    if (html) lua_pushstring(L, html);
    else lua_pushnil(L);
    lua_pushboolean(L, json);
    if (href) {
        lua_pushstring(L, dir);
        lua_pushstring(L, href);
    } else {
        lua_pushnil(L);
        lua_pushnil(L);
    }
    lua_pushboolean(L, isatty(STDERR_FILENO)); /* progress: a line redrawn in place */
    lua_pushinteger(L, (lua_Integer)max_pages);
    int status = lua_pcall(L, 7, 3, 1);
    if (status != LUA_OK) {
        cli_report(L, opts, "meeple report");
    } else if (html) {
        fprintf(stderr, "meeple report: wrote %s (%lld games", html, (long long)lua_tointeger(L, -3));
        if (href) fprintf(stderr, "; %lld replay pages in %s", (long long)lua_tointeger(L, -2), dir);
        if (href && lua_tointeger(L, -1) > 0)
            fprintf(stderr, ", %lld skipped past --pages %lld (their games link to meeple replay)",
                    (long long)lua_tointeger(L, -1), max_pages);
        fprintf(stderr, ")\n");
    }
    lua_close(L);
    return status == LUA_OK ? 0 : 1;
}
