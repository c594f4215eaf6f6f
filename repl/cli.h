/* cli.h — what the `meeple` commands share (repl/cli.c): options every command sees, the command table's
 * shape, one way to refuse arguments, and the commands' entry points. */
#ifndef MEEPLE_CLI_H
#define MEEPLE_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include <lua.h>

#include <meeple/session.h> /* MEEPLE_SEED_MAX: the seeds the commands take */

typedef struct cli_options {
    bool debug;  /* --debug: full Lua tracebacks and internal detail in messages */
    int argc;    /* the program's own arguments, for `arg` in scripts */
    char **argv;
} cli_options;

typedef int (*cli_command_fn)(int argc, char **argv, const cli_options *opts);

typedef struct cli_command {
    const char *name;
    const char *usage;   /* one line, after "usage: " */
    const char *summary; /* one line for `meeple --help` */
    const char *details; /* more lines for `meeple CMD --help`, or NULL */
    cli_command_fn fn;
} cli_command;

#define CLI_MAIN_USAGE "meeple [--debug] [--version] COMMAND [ARGS...]"

/* The program's command table (main.c's), where cli_bad_args finds a command's usage line. */
void cli_set_commands(const cli_command *table, int count);
const cli_command *cli_command_find(const char *name);

/* A command's arguments with `--opt=value` split into `--opt value` and `--debug` taken out (setting
 * *debug), up to a lone `--`, which is kept with everything after it. `out` has room for 2*argc+1
 * entries; returns how many it holds (NULL-terminated). */
int cli_split_options(int argc, char **argv, char **out, bool *debug);

/* Prints "meeple CMD: <reason>" and the command's usage line to stderr; returns 2, the exit status for
 * bad arguments, so a caller writes `return cli_bad_args("bench", "...")`. */
int cli_bad_args(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prints "meeple CMD: <reason>" to stderr, escaped (a reason may quote a log or a file's name); returns
 * 1, the exit status for a command that could not do its work. */
int cli_fail(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The name in `names` (NULL-terminated) nearest to `given` when it is a likely typo of it, else NULL;
 * cli_suggest: "; did you mean 'NAME'?" for a message, or "" (its text lasts until the next call). */
const char *cli_nearest(const char *given, const char *const *names);
const char *cli_suggest(const char *given, const char *const *names);
/* "unknown option '--seeed'; did you mean '--seed'?" (the options from the command's usage and help), as
 * cli_bad_args; returns 2. */
int cli_unknown_option(const char *cmd, const char *opt);
/* "unknown game 'citadel'; did you mean 'citadels'?" (else the list of games), as cli_bad_args; returns 2. */
int cli_unknown_game(const char *cmd, const char *name);

/* The refusal of a BOT argument that names no bot (meeple_find_bot said no), worded the same by every
 * command; returns 2. */
int cli_no_bot(const char *cmd, const char *arg);

/* Parses a whole decimal integer in [min, max]; false when `text` is anything else (spaces, a plus
 * sign, a fraction, or a number too large for any integer: refused, never clamped). */
bool cli_parse_int(const char *text, long long min, long long max, long long *out);

/* A seed from the operating system (getrandom(2), else /dev/urandom) in 0..MEEPLE_SEED_MAX, for a match
 * given no --seed: one no bot can guess. -1 when neither can be read. */
long long cli_os_seed(void);

/* A log (or any input file) opened for reading only if it is a regular file: a device (/dev/zero), a
 * pipe or a folder, directly or through a symbolic link, is refused unread. NULL with one line in
 * `err` ("'F' is not a regular file ..."). */
FILE *cli_open_log(const char *path, char *err, size_t errn);

/* A match's log, written a line at a time (so that --resume can read it after a crash): a new log
 * (not `resume`) refuses an existing `path` that is not a regular file (a symbolic link, a FIFO, a
 * device, a folder) and truncates a regular one; a resumed log that exists must be a regular file,
 * directly or through a symbolic link, and is appended to (one that does not is begun as a new log).
 * NULL with one line in `err`. */
FILE *cli_match_log(const char *path, bool resume, char *err, size_t errn);

/* An output file written whole or not at all: a temporary file beside `path` (in `tmp`), renamed over
 * `path` by cli_out_commit; an existing `path` that is not a regular file (a device, a folder, a
 * symbolic link's target that is not one) is refused, and nothing meeple did not create is ever
 * removed. Until cli_out_commit, the temporary file is also removed when SIGINT or SIGTERM ends
 * meeple (a signal at its default action gets a handler that unlinks it, then dies of the signal). NULL with one line in `err` when it cannot. */
FILE *cli_out_open(const char *path, char *tmp, size_t tmpn, char *err, size_t errn);
/* Closes `f` and renames it over its path (ok), or removes the temporary file (not ok). True when the
 * file is in place. */
bool cli_out_commit(FILE *f, const char *tmp, const char *path, bool ok);

/* A fresh lua_State with the standard libraries and the meeple module (global and require). */
lua_State *cli_new_lua(void);
/* Loads one of the commands' Lua programs (repl/lua/NAME.lua, compiled in as meeple_lua_NAME) as the
 * chunk `name`, e.g. "=referee", which its errors are named after. lua_load's status. */
int cli_load_program(lua_State *L, const char *text, const char *name);
/* The message handler for lua_pcall: the message alone, or with a traceback under --debug. */
void cli_push_msgh(lua_State *L, const cli_options *opts);
/* Prints the error on top of the stack as "<who>: <first line>" (all of it under --debug); `who` is
 * "meeple" or a phrase such as "meeple bench: bot 'x' failed". */
void cli_report(lua_State *L, const cli_options *opts, const char *who);

struct game_def;
/* Prints `meeple rules GAME`: the game's rules text and its parameters. */
void cli_print_rules(const struct game_def *def);

/* `meeple bench`, in bench.c. */
int bench_main(int argc, char **argv, const cli_options *opts);
/* `meeple match`, in match.c; `meeple replay`, in replay.c. */
int match_main(int argc, char **argv, const cli_options *opts);
int replay_main(int argc, char **argv, const cli_options *opts);
/* `meeple merge`, in merge.c: the logs of a match's shards joined. */
int merge_main(int argc, char **argv, const cli_options *opts);
/* `meeple compare`, in compare.c. */
int compare_main(int argc, char **argv, const cli_options *opts);
/* `meeple report`, in report.c. */
int report_main(int argc, char **argv, const cli_options *opts);
/* `meeple serve`, in serve/serve_main.c. */
int serve_main(int argc, char **argv, const cli_options *opts);

#endif
