/* shell.c — the shell's C front end: lines from libedit (editing, history, completion) or from a pipe,
 * Lua chunks over several lines, Ctrl-C, and the native helpers repl/shell.lua builds on. What the
 * shell says and does — commands, completion candidates, printing, `meeple play` — is in shell.lua.
 *
 * Lua sources are read from disk when there is a source tree to read them from, so rendering and the
 * shell can be changed without recompiling; otherwise the copies compiled into the binary are used:
 *   1. $MEEPLE_ROOT/scripts/render.lua and $MEEPLE_ROOT/repl/shell.lua, when MEEPLE_ROOT is set;
 *   2. else the same files under the executable's directory's parent (a build directory inside the
 *      source tree), when that holds scripts/render.lua;
 *   3. the compiled-in copies. */
#define _POSIX_C_SOURCE 200809L /* sigaction, getline, readlink, isatty */

#include "shell.h"

#include <ctype.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <editline/readline.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "lua/lmeeple.h"
#include "host/paths.h"
#include <meeple/registry.h>
#include "shell_bot.h"
#include "host/text.h"

/* Compiled in by cmake/embed.cmake. */
extern const char meeple_lua_render[];
extern const char meeple_lua_shell[];


#define BOT_MT "meeple.shell_bot"
#define ANSI_RED "\033[31m"
#define ANSI_RESET "\033[0m"

/* One shell per process: the signal handler and libedit's completion hook reach it through here. */
static struct {
    lua_State *L;
    const cli_options *opts;
    bool interactive;  /* stdin is a terminal: libedit reads the lines */
    bool color;        /* stdout is a terminal and NO_COLOR is not set */
    int shell_ref;     /* the table shell.lua returned, in the registry */
    char history[PATH_MAX];
    char root[PATH_MAX];
} sh;

static volatile sig_atomic_t interrupted; /* Ctrl-C since the last line was read */
static volatile sig_atomic_t running;     /* Lua code is running: Ctrl-C stops it */

/* =====================================================================================================
 * Ctrl-C: at the prompt libedit returns no line; while Lua runs, a hook raises "interrupted" at the
 * next instruction, as lua.c does.
 * ===================================================================================================== */

static void stop_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    lua_sethook(L, NULL, 0, 0);
    lua_pushliteral(L, "interrupted"); /* the message handler adds the user's line, if any */
    lua_error(L);
}

static void on_sigint(int sig) {
    (void)sig;
    interrupted = 1;
    if (running) lua_sethook(sh.L, stop_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

static void catch_sigint(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
}

/* The length of a "NAME:LINE: " at the head of `msg` when NAME is one of meeple's own chunks (the
 * shell, the renderer, the variant module, a C function), else 0. */
static size_t internal_head(const char *msg) {
    static const char *const own[] = {"shell.lua", "render.lua", "variant.lua"};
    if (strncmp(msg, "[C]: ", 5) == 0) return 5;
    size_t name = strcspn(msg, ": \n");
    if (msg[name] != ':' || !isdigit((unsigned char)msg[name + 1])) return 0;
    size_t end = name + 1 + strspn(msg + name + 1, "0123456789");
    if (strncmp(msg + end, ": ", 2) != 0) return 0;
    for (size_t i = 0; i < sizeof own / sizeof *own; i++) {
        size_t n = strlen(own[i]);
        if (name >= n && strncmp(msg + name - n, own[i], n) == 0) return end + 2;
    }
    return 0;
}

/* The error on top of the stack, on stderr: its first line (all of it under --debug), red on a
 * terminal; without meeple's own file and line at its head unless --debug (a user's chunk, bot or
 * variant keeps its own). Pops it. */
static void report(lua_State *L) {
    int top = lua_gettop(L);
    const char *msg = lua_tostring(L, -1);
    if (!msg) msg = lua_pushfstring(L, "(an error object of type %s)", luaL_typename(L, -1));
    for (size_t head; !sh.opts->debug && (head = internal_head(msg)) > 0;) msg += head;
    size_t len = sh.opts->debug ? strlen(msg) : strcspn(msg, "\n");
    bool red = sh.color && isatty(STDERR_FILENO);
    fflush(stdout); /* what was printed before the error comes before it */
    fputs(red ? ANSI_RED : "", stderr);
    text_write(stderr, msg, len, sh.opts->debug); /* a bot's error or a file's text: never raw */
    fprintf(stderr, "%s\n", red ? ANSI_RESET : "");
    lua_settop(L, top - 1);
}

/* Calls the function below its `nargs` arguments with Ctrl-C armed and the CLI's message handler
 * (one line, or a traceback under --debug). Results stay on the stack; an error is reported. */
static bool run(lua_State *L, int nargs, int nresults) {
    int fn = lua_gettop(L) - nargs;
    cli_push_msgh(L, sh.opts);
    lua_insert(L, fn);
    interrupted = 0;
    running = 1;
    int status = lua_pcall(L, nargs, nresults, fn);
    running = 0;
    if (interrupted) lua_sethook(L, NULL, 0, 0); /* a Ctrl-C that came after the chunk ended */
    lua_remove(L, fn);
    if (status != LUA_OK && interrupted && sh.interactive) putchar('\n'); /* after the tty's "^C" */
    if (status != LUA_OK) report(L);
    return status == LUA_OK;
}

/* Pushes shell.lua's function `name`. */
static void push_shell_fn(lua_State *L, const char *name) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, sh.shell_ref);
    lua_getfield(L, -1, name);
    lua_remove(L, -2);
}

/* =====================================================================================================
 * Reading lines
 * ===================================================================================================== */

/* A line without its newline (caller frees), or NULL at the end of input or on Ctrl-C (then
 * `interrupted` is set). From a pipe nothing is prompted, unless `echo`: then the prompt and the
 * line read are printed, so a transcript reads like a session. */
static char *read_line(const char *prompt, bool echo) {
    interrupted = 0;
    fflush(stdout);
    if (sh.interactive) return readline(prompt);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, stdin);
    if (n < 0) {
        free(line);
        return NULL;
    }
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
    if (echo) printf("%s%s\n", prompt, line);
    return line;
}

/* Adds an entry to the history and saves the file (so a crash loses nothing); repeats are kept once. */
static void remember(const char *text) {
    if (!sh.interactive) return;
    HIST_ENTRY *last = history_length > 0 ? history_get(history_base + history_length - 1) : NULL;
    if (last && last->line && strcmp(last->line, text) == 0) return;
    add_history(text);
    if (sh.history[0]) write_history(sh.history);
}

static void history_start(bool persistent) {
    using_history();
    stifle_history(1000);
    sh.history[0] = '\0';
    if (!persistent) return;
    const char *path = getenv("MEEPLE_HISTORY"), *home = getenv("HOME");
    if (path && *path) snprintf(sh.history, sizeof sh.history, "%s", path);
    else if (home && *home) snprintf(sh.history, sizeof sh.history, "%s/.meeple_history", home);
    if (sh.history[0]) read_history(sh.history);
}

/* =====================================================================================================
 * Completion: libedit asks for the word under the cursor; shell.lua's complete(line, start, end)
 * answers with the words that may replace it, or "files".
 * ===================================================================================================== */

/* A `:` command's argument is an action with spaces, or a file name: only blanks end a word there. */
static char *word_breaks(void) {
    static char command_breaks[] = " \t\n";
    static char lua_breaks[] = " \t\n\"'`<>=;|&{}()[],+-*/%^#~";
    const char *p = rl_line_buffer ? rl_line_buffer : "";
    while (*p == ' ' || *p == '\t') p++;
    return *p == ':' ? command_breaks : lua_breaks;
}

static char **complete(const char *text, int start, int end) {
    lua_State *L = sh.L;
    int top = lua_gettop(L);
    char **matches = NULL;
    rl_attempted_completion_over = 1; /* no file names unless shell.lua asks for them */
    push_shell_fn(L, "complete");
    lua_pushlstring(L, rl_line_buffer ? rl_line_buffer : "", rl_line_buffer ? (size_t)rl_end : 0);
    lua_pushinteger(L, start);
    lua_pushinteger(L, end);
    if (lua_pcall(L, 3, 1, 0) != LUA_OK) {
        lua_settop(L, top);
        return NULL;
    }
    if (lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "files") == 0) {
        matches = rl_completion_matches(text, rl_filename_completion_function);
    } else if (lua_istable(L, -1)) {
        int n = (int)lua_rawlen(L, -1);
        matches = n > 0 ? calloc((size_t)n + 2, sizeof *matches) : NULL;
        for (int i = 0; matches && i < n; i++) {
            lua_rawgeti(L, -1, i + 1);
            matches[i + 1] = strdup(lua_tostring(L, -1) ? lua_tostring(L, -1) : "");
            lua_pop(L, 1);
        }
        if (matches && n == 1) { /* one match: it is the replacement */
            matches[0] = matches[1];
            matches[1] = NULL;
        } else if (matches) { /* several: their common beginning replaces the word */
            size_t common = strlen(matches[1]);
            for (int i = 2; i <= n; i++)
                for (size_t k = 0; k < common; k++)
                    if (matches[i][k] != matches[1][k]) common = k;
            matches[0] = strndup(matches[1], common);
        }
    }
    lua_settop(L, top);
    return matches;
}

/* =====================================================================================================
 * Native helpers for shell.lua
 * ===================================================================================================== */

/* readline(prompt) --> line | nil, "eof" | "interrupt" (the prompt and line echoed from a pipe). */
static int l_readline(lua_State *L) {
    const char *prompt = luaL_optstring(L, 1, "> ");
    running = 0; /* Ctrl-C at this prompt is an answer, not an interruption of the caller */
    char *line = read_line(prompt, true);
    running = 1;
    if (!line) {
        if (sh.interactive) putchar('\n'); /* the cursor is still on the prompt's line */
        lua_pushnil(L);
        lua_pushstring(L, interrupted ? "interrupt" : "eof");
        return 2;
    }
    if (*line) add_history(line); /* only in memory: answers in a game are not shell history */
    lua_pushstring(L, line);
    free(line);
    return 1;
}

/* error(message): one line on stderr, as every error of the shell. */
static int l_error(lua_State *L) {
    luaL_checkstring(L, 1);
    lua_settop(L, 1);
    report(L);
    return 0;
}

/* rules(game): prints `meeple rules GAME`. */
static int l_rules(lua_State *L) {
    const game_def *def = game_find(luaL_checkstring(L, 1));
    if (!def) return luaL_error(L, "unknown game '%s'; games: %s", lua_tostring(L, 1), game_names());
    cli_print_rules(def);
    return 0;
}

static int l_is_state(lua_State *L) {
    lua_pushboolean(L, meeple_to_session(L, 1) != NULL);
    return 1;
}

/* find_bot(arg) --> the bot's file (or exec: command) as meeple looks bots up (paths.h), or nil. */
static int l_find_bot(lua_State *L) {
    char path[MEEPLE_PATH_LEN];
    if (meeple_find_bot(luaL_checkstring(L, 1), path, sizeof path)) lua_pushstring(L, path);
    else lua_pushnil(L);
    return 1;
}

/* bot(path [, seed [, echo]]) --> a bot with b:choose(state) --> action | nil, reason, and b:name().
 * With echo, the bot's print goes to stderr. */
static int l_bot(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    lua_Integer seed = luaL_optinteger(L, 2, 1);
    bool echo = lua_toboolean(L, 3);
    shell_bot **u = lua_newuserdatauv(L, sizeof *u, 0);
    *u = NULL;
    luaL_setmetatable(L, BOT_MT);
    char err[300];
    *u = shell_bot_load(path, (uint64_t)seed, echo, err, sizeof err);
    if (*u) return 1;
    lua_pushnil(L);
    lua_pushstring(L, err);
    return 2;
}

static shell_bot *check_bot(lua_State *L) {
    shell_bot **u = luaL_checkudata(L, 1, BOT_MT);
    if (!*u) luaL_error(L, "this bot was not loaded");
    return *u;
}

/* The legal actions of a state under a variant (a table): its own legal(), which hooks may change. */
static char (*variant_legal(lua_State *L, int idx, int *n))[MEEPLE_ACTION_TEXT] {
    *n = 0;
    if (lua_type(L, idx) != LUA_TTABLE) return NULL;
    lua_getfield(L, idx, "legal");
    lua_pushvalue(L, idx);
    lua_call(L, 1, 1);
    int count = (int)lua_rawlen(L, -1);
    if (count > MEEPLE_MAX_ACTIONS) count = MEEPLE_MAX_ACTIONS;
    char (*texts)[MEEPLE_ACTION_TEXT] = lua_newuserdatauv(L, sizeof *texts * (size_t)(count ? count : 1), 0);
    for (int i = 0; i < count; i++) {
        lua_rawgeti(L, -2, i + 1);
        const char *text = lua_tostring(L, -1);
        snprintf(texts[i], MEEPLE_ACTION_TEXT, "%s", text ? text : "");
        lua_pop(L, 1);
    }
    *n = count;
    return texts; /* kept alive on the stack until the call returns */
}

static int bot_choose(lua_State *L) {
    shell_bot *b = check_bot(L);
    session *s = meeple_to_session(L, 2);
    if (!s) return luaL_error(L, "choose: expected a meeple state");
    int n;
    char(*texts)[MEEPLE_ACTION_TEXT] = variant_legal(L, 2, &n);
    char action[MEEPLE_ACTION_TEXT], err[300];
    if (shell_bot_choose(b, s, (const char(*)[MEEPLE_ACTION_TEXT])texts, n, action, err, sizeof err)) {
        lua_pushstring(L, action);
        return 1;
    }
    lua_pushnil(L);
    lua_pushstring(L, err);
    return 2;
}

/* Plain (text_bot_name): the name is shown on every move the bot makes. */
static int bot_name(lua_State *L) {
    char name[48];
    text_bot_name(name, sizeof name, shell_bot_name(check_bot(L)));
    lua_pushstring(L, name);
    return 1;
}

static int bot_gc(lua_State *L) {
    shell_bot **u = luaL_checkudata(L, 1, BOT_MT);
    shell_bot_free(*u);
    *u = NULL;
    return 0;
}

static void register_bot_type(lua_State *L) {
    static const luaL_Reg methods[] = {{"choose", bot_choose}, {"name", bot_name}, {NULL, NULL}};
    luaL_newmetatable(L, BOT_MT);
    luaL_newlib(L, methods);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, bot_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
}

/* =====================================================================================================
 * Loading the Lua side
 * ===================================================================================================== */

/* $MEEPLE_ROOT when set; else the parent of the executable's directory, if it holds the scripts. */
static void find_root(void) {
    const char *env = getenv("MEEPLE_ROOT");
    sh.root[0] = '\0';
    if (env) {
        snprintf(sh.root, sizeof sh.root, "%s", env);
        return;
    }
    char exe[PATH_MAX], probe[PATH_MAX + 32];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) return;
    exe[len] = '\0';
    for (int up = 0; up < 2; up++) { /* .../build/meeple -> .../build -> ... */
        char *slash = strrchr(exe, '/');
        if (!slash) return;
        *slash = '\0';
    }
    snprintf(probe, sizeof probe, "%s/scripts/render.lua", exe);
    if (access(probe, R_OK) == 0) snprintf(sh.root, sizeof sh.root, "%s", exe);
}

/* Pushes the chunk of `rel` under the root when it is there and compiles, else the compiled-in copy. */
static void load_lua(lua_State *L, const char *rel, const char *builtin, const char *name) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", sh.root, rel);
    if (sh.root[0] && access(path, R_OK) == 0) {
        if (luaL_loadfilex(L, path, "t") == LUA_OK) return;
        fprintf(stderr, "meeple: %s; using the built-in %s\n", lua_tostring(L, -1), name);
        lua_pop(L, 1);
    }
    char chunkname[64];
    snprintf(chunkname, sizeof chunkname, "=%s", name);
    if (luaL_loadbufferx(L, builtin, strlen(builtin), chunkname, "t") != LUA_OK) lua_error(L);
}

/* Under lua_pcall: the renderer (also behind tostring(state)), the native table, then shell.lua. */
static int open_shell(lua_State *L) {
    load_lua(L, "scripts/render.lua", meeple_lua_render, "render.lua");
    lua_call(L, 0, 1);
    if (!lua_isfunction(L, -1)) luaL_error(L, "render.lua must return a function");
    lua_pushvalue(L, -1);
    meeple_set_renderer(L);
    register_bot_type(L);

    lua_createtable(L, 0, 16);
    lua_insert(L, -2);
    lua_setfield(L, -2, "render");
    static const luaL_Reg natives[] = {
        {"readline", l_readline}, {"error", l_error}, {"rules", l_rules},
        {"bot", l_bot},           {"is_state", l_is_state}, {"find_bot", l_find_bot},
        {NULL, NULL},
    };
    luaL_setfuncs(L, natives, 0);
    lua_pushboolean(L, sh.color);
    lua_setfield(L, -2, "color");
    lua_pushboolean(L, sh.opts->debug);
    lua_setfield(L, -2, "debug");
    lua_pushboolean(L, sh.interactive);
    lua_setfield(L, -2, "interactive");
    if (sh.root[0]) {
        lua_pushstring(L, sh.root);
        lua_setfield(L, -2, "root");
    }
    lua_pushstring(L, MEEPLE_VERSION);
    lua_setfield(L, -2, "version");

    load_lua(L, "repl/shell.lua", meeple_lua_shell, "shell.lua");
    lua_insert(L, -2);
    lua_call(L, 1, 1);
    if (!lua_istable(L, -1)) luaL_error(L, "shell.lua must return a table");
    return 1;
}

static bool is_dumb_terminal(void) {
    const char *term = getenv("TERM");
    return term && strcmp(term, "dumb") == 0;
}

/* The Lua state with the module and shell.lua; false (said why) when it cannot be made. */
static bool shell_open(const cli_options *opts) {
    const char *no_color = getenv("NO_COLOR");
    sh.opts = opts;
    sh.interactive = isatty(STDIN_FILENO);
    sh.color = isatty(STDOUT_FILENO) && !(no_color && *no_color) && !is_dumb_terminal();
    find_root();
    sh.L = cli_new_lua();
    if (!sh.L) {
        fprintf(stderr, "meeple: cannot create a Lua state (out of memory)\n");
        return false;
    }
    lua_pushcfunction(sh.L, open_shell);
    if (!run(sh.L, 0, 1)) return false;
    sh.shell_ref = luaL_ref(sh.L, LUA_REGISTRYINDEX);
    if (sh.interactive) {
        rl_readline_name = "meeple";
        rl_attempted_completion_function = complete;
        rl_completion_word_break_hook = word_breaks;
        rl_completion_append_character = '\0';
    }
    catch_sigint();
    return true;
}

static void shell_close(void) {
    if (sh.L) lua_close(sh.L);
    sh.L = NULL;
    signal(SIGINT, SIG_DFL);
}

/* =====================================================================================================
 * The prompt: `:` commands, and Lua chunks over as many lines as they take
 * ===================================================================================================== */

enum { CHUNK_INCOMPLETE = -1 };

/* The error on top of the stack is a syntax error at the end of the text: more lines may finish it. */
static bool at_eof(lua_State *L, int status) {
    size_t len;
    const char *msg = lua_tolstring(L, -1, &len);
    return status == LUA_ERRSYNTAX && msg && len >= 5 && strcmp(msg + len - 5, "<eof>") == 0;
}

/* Compiles `code` as an expression whose values are printed ("return CODE;"), else as statements.
 * A chunk that stops at its end is incomplete and the caller reads another line: a statement such as
 * `function f()`, as lua5.4 does, and also an expression such as `1+` (the form without the ";",
 * which lua5.4 does not try). With `final`, an incomplete chunk is a syntax error like any other. */
static int load_chunk(lua_State *L, const char *code, bool final) {
    const char *ret = lua_pushfstring(L, "return %s;", code);
    if (luaL_loadbufferx(L, ret, strlen(ret), "=stdin", "t") == LUA_OK) {
        lua_remove(L, -2);
        return LUA_OK;
    }
    lua_pop(L, 2);
    int status = luaL_loadbufferx(L, code, strlen(code), "=stdin", "t");
    if (status == LUA_OK) return LUA_OK;
    bool more = at_eof(L, status);
    lua_pop(L, 1);
    ret = lua_pushfstring(L, "return %s", code);
    int expr = luaL_loadbufferx(L, ret, strlen(ret), "=stdin", "t");
    lua_remove(L, -2);
    if (at_eof(L, expr)) { /* an unfinished expression: its error says what is missing */
        if (!final) lua_pop(L, 1);
        return final ? expr : CHUNK_INCOMPLETE;
    }
    lua_pop(L, 1);
    if (more && !final) return CHUNK_INCOMPLETE;
    return luaL_loadbufferx(L, code, strlen(code), "=stdin", "t");
}

/* Appends "\n" and `more` to the heap string *code. */
static bool append_line(char **code, const char *more) {
    size_t a = strlen(*code), b = strlen(more);
    char *grown = realloc(*code, a + b + 2);
    if (!grown) return false;
    grown[a] = '\n';
    memcpy(grown + a + 1, more, b + 1);
    *code = grown;
    return true;
}

/* Runs the function on top and prints what it returns, through shell.lua's show. */
static void run_and_show(lua_State *L) {
    int base = lua_gettop(L) - 1;
    if (!run(L, 0, LUA_MULTRET)) return;
    int n = lua_gettop(L) - base;
    if (n > 0) {
        push_shell_fn(L, "show");
        lua_insert(L, base + 1);
        run(L, n, 0);
    }
    lua_settop(L, base);
}

/* Runs a `:` command; false when it was :quit. */
static bool command(lua_State *L, const char *line) {
    push_shell_fn(L, "command");
    lua_pushstring(L, line);
    if (!run(L, 1, 1)) return true;
    bool quit = lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "quit") == 0;
    lua_pop(L, 1);
    return !quit;
}

/* One entry at the prompt: a command, or a chunk read to its end. False at the end of input. */
static bool prompt_once(lua_State *L) {
    char *code = read_line("> ", false);
    if (!code) {
        if (!interrupted) return false;
        putchar('\n');
        return true;
    }
    const char *p = code;
    while (isspace((unsigned char)*p)) p++;
    if (p[0] == ':' && isalpha((unsigned char)p[1])) {
        remember(code);
        bool go_on = command(L, p);
        free(code);
        return go_on;
    }
    if (!*p) {
        free(code);
        return true;
    }
    int status;
    while ((status = load_chunk(L, code, false)) == CHUNK_INCOMPLETE) {
        char *more = read_line(">> ", false);
        if (!more && interrupted) { /* Ctrl-C drops the unfinished chunk */
            putchar('\n');
            free(code);
            return true;
        }
        if (!more) { /* the input ended inside the chunk: say what is missing */
            status = load_chunk(L, code, true);
            break;
        }
        bool ok = append_line(&code, more);
        free(more);
        if (!ok) {
            lua_pushliteral(L, "out of memory");
            status = LUA_ERRMEM;
            break;
        }
    }
    remember(code);
    free(code);
    if (status == LUA_OK) run_and_show(L);
    else report(L);
    return true;
}

/* =====================================================================================================
 * The commands
 * ===================================================================================================== */

static int parse_game_options(const char *cmd, int argc, char **argv, int i, long long *seed,
                              long long *players, bool *seeded) {
    const char *opt = argv[i];
    if (i + 1 == argc) return cli_bad_args(cmd, "%s needs a value", opt);
    const char *value = argv[i + 1];
    if (strcmp(opt, "--seed") == 0) {
        /* MEEPLE_SEED_MAX as a match's: a seed too large for it is refused, never clamped to one that is
         * not what was typed (strtoll saturates on overflow). */
        if (!cli_parse_int(value, 0, MEEPLE_SEED_MAX, seed))
            return cli_bad_args(cmd, "--seed must be a whole number 0..%lld, got '%s'", MEEPLE_SEED_MAX, value);
        *seeded = true;
    } else {
        if (!cli_parse_int(value, 1, MEEPLE_MAX_PLAYERS, players))
            return cli_bad_args(cmd, "--players must be 1..%d, got '%s'", MEEPLE_MAX_PLAYERS, value);
    }
    return 0;
}

/* A seed for a game nobody asked a seed for; printed, so the game can be had again. From the OS, as
 * one from the clock could be guessed by a bot, and with it the human's hand. */
static long long fresh_seed(void) {
    long long seed = cli_os_seed();
    if (seed >= 0) return seed;
    unsigned long long t = (unsigned long long)time(NULL), pid = (unsigned long long)getpid();
    return (long long)((t * 2654435761u ^ pid) % 1000000);
}

int shell_main(int argc, char **argv, const cli_options *opts) {
    const char *game = NULL, *variant = NULL;
    long long seed = 0, players = 0;
    bool seeded = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0 || strcmp(argv[i], "--players") == 0) {
            int bad = parse_game_options("repl", argc, argv, i++, &seed, &players, &seeded);
            if (bad) return bad;
        } else if (strcmp(argv[i], "--variant") == 0) {
            if (i + 1 == argc) return cli_bad_args("repl", "--variant needs a value");
            variant = argv[++i];
        } else if (argv[i][0] == '-') {
            return cli_unknown_option("repl", argv[i]);
        } else if (game) {
            return cli_bad_args("repl", "one game expected, got also '%s'", argv[i]);
        } else if (!game_find(argv[i])) {
            return cli_unknown_game("repl", argv[i]);
        } else {
            game = argv[i];
        }
    }
    if (variant && !game) return cli_bad_args("repl", "--variant %s needs a game", variant);
    if (!shell_open(opts)) {
        shell_close();
        return 1;
    }
    history_start(sh.interactive);
    lua_State *L = sh.L;
    push_shell_fn(L, "start");
    lua_createtable(L, 0, 3);
    if (game) {
        lua_pushstring(L, game);
        lua_setfield(L, -2, "game");
    }
    lua_pushinteger(L, seeded ? seed : fresh_seed());
    lua_setfield(L, -2, "seed");
    if (players) {
        lua_pushinteger(L, players);
        lua_setfield(L, -2, "players");
    }
    if (variant) {
        lua_pushstring(L, variant);
        lua_setfield(L, -2, "variant");
    }
    /* A game the command line asked for and that cannot be made (a missing variant, a bad player
     * count) is a bad argument: one line, status 2, no session. */
    if (run(L, 1, 1) && lua_isstring(L, -1)) {
        int status = cli_bad_args("repl", "%s", lua_tostring(L, -1));
        shell_close();
        return status;
    }
    lua_settop(L, 0);
    while (prompt_once(L)) {}
    if (sh.interactive) putchar('\n');
    shell_close();
    return 0;
}

/* What `meeple play` was asked for, checked; handed to shell.lua's play as a table. */
typedef struct play_args {
    const char *game, *variant, *save, *load;
    char bots[MEEPLE_MAX_PLAYERS][PATH_MAX];
    int nbots;
    long long seed, players, seat;
    bool seeded;
} play_args;

/* Options that take a value, and their checks; 0 or the status of a refusal. */
static int play_option(play_args *a, int argc, char **argv, int *i) {
    const char *opt = argv[*i];
    if (*i + 1 == argc) return cli_bad_args("play", "%s needs a value", opt);
    if (strcmp(opt, "--seed") == 0 || strcmp(opt, "--players") == 0)
        return parse_game_options("play", argc, argv, (*i)++, &a->seed, &a->players, &a->seeded);
    const char *value = argv[++*i];
    if (strcmp(opt, "--bot") == 0) {
        if (a->nbots == MEEPLE_MAX_PLAYERS - 1)
            return cli_bad_args("play", "at most %d bots", MEEPLE_MAX_PLAYERS - 1);
        if (!meeple_find_bot(value, a->bots[a->nbots], sizeof a->bots[a->nbots]))
            return cli_no_bot("play", value);
        a->nbots++;
    } else if (strcmp(opt, "--seat") == 0) {
        if (!cli_parse_int(value, 1, MEEPLE_MAX_PLAYERS, &a->seat))
            return cli_bad_args("play", "--seat must be 1..%d, got '%s'", MEEPLE_MAX_PLAYERS, value);
    } else if (strcmp(opt, "--variant") == 0) {
        a->variant = value;
    } else if (strcmp(opt, "--save") == 0) {
        a->save = value;
    } else {
        a->load = value;
    }
    return 0;
}

/* The arguments of `meeple play`; 0 or the status of a refusal. With --load the save says the game,
 * its seed, players and variant, so those options would contradict it. */
static int parse_play(int argc, char **argv, play_args *a) {
    static const char *const valued[] = {"--bot", "--seat", "--seed", "--players", "--variant", "--save", "--load"};
    for (int i = 1; i < argc; i++) {
        bool takes_value = false;
        for (size_t k = 0; k < sizeof valued / sizeof *valued; k++) takes_value |= strcmp(argv[i], valued[k]) == 0;
        if (takes_value) {
            int bad = play_option(a, argc, argv, &i);
            if (bad) return bad;
        } else if (argv[i][0] == '-') {
            return cli_unknown_option("play", argv[i]);
        } else if (a->game) {
            return cli_bad_args("play", "one game expected, got also '%s'", argv[i]);
        } else {
            a->game = argv[i];
        }
    }
    if (a->game && !game_find(a->game))
        return cli_unknown_game("play", a->game);
    if (a->load) {
        if (a->seeded || a->players)
            return cli_bad_args("play", "--load takes the seed and players from the save: leave out %s",
                                a->seeded ? "--seed" : "--players");
        return 0;
    }
    if (!a->game) return cli_bad_args("play", "which game? games: %s", game_names());
    const game_def *def = game_find(a->game);
    if (a->players == 0) a->players = a->nbots + 1 > def->default_players ? a->nbots + 1 : def->default_players;
    if (a->players < def->min_players || a->players > def->max_players)
        return cli_bad_args("play", "%s takes %d..%d players, got %lld", def->name, def->min_players,
                            def->max_players, a->players);
    if (a->nbots > a->players - 1)
        return cli_bad_args("play", "%d bots for %lld other seats", a->nbots, a->players - 1);
    if (a->seat > a->players)
        return cli_bad_args("play", "--seat must be 1..%lld, got %lld", a->players, a->seat);
    return 0;
}

static void set_string(lua_State *L, const char *key, const char *value) {
    if (!value) return;
    lua_pushstring(L, value);
    lua_setfield(L, -2, key);
}

/* The table shell.lua's play takes. */
static void push_play_args(lua_State *L, const play_args *a) {
    lua_createtable(L, 0, 9);
    set_string(L, "game", a->game ? game_find(a->game)->name : NULL);
    set_string(L, "variant", a->variant);
    set_string(L, "save", a->save);
    set_string(L, "load", a->load);
    if (!a->load) {
        lua_pushinteger(L, a->seeded ? a->seed : fresh_seed());
        lua_setfield(L, -2, "seed");
        lua_pushinteger(L, a->players);
        lua_setfield(L, -2, "players");
    }
    lua_pushinteger(L, a->seat);
    lua_setfield(L, -2, "seat");
    lua_createtable(L, a->nbots, 0);
    for (int i = 0; i < a->nbots; i++) {
        lua_pushstring(L, a->bots[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "bots");
}

int play_main(int argc, char **argv, const cli_options *opts) {
    static play_args a; /* bot paths make it large */
    memset(&a, 0, sizeof a);
    a.seat = 1;
    find_root();
    int bad = parse_play(argc, argv, &a);
    if (bad) return bad;
    if (!shell_open(opts)) {
        shell_close();
        return 1;
    }
    history_start(false);
    lua_State *L = sh.L;
    push_shell_fn(L, "play");
    push_play_args(L, &a);
    int status = 1;
    /* the exit status, and the reason when the game could not be made: a bad argument's with the usage,
     * a save's alone (true) */
    if (run(L, 1, 3)) {
        status = lua_isinteger(L, -3) ? (int)lua_tointeger(L, -3) : 0;
        if (lua_isstring(L, -2) && lua_toboolean(L, -1)) cli_fail("play", "%s", lua_tostring(L, -2));
        else if (lua_isstring(L, -2)) cli_bad_args("play", "%s", lua_tostring(L, -2));
    }
    shell_close();
    return status;
}
