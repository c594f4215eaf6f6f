/* extbot.h — external bots: a program, in any language, run as a child process that speaks the line
 * protocol of docs/protocol.md (JSON objects one a line on its stdin, one answer a line on its stdout).
 *
 * An external bot is one kind of bot behind the runtime's operations (bot_ops.h), so the commands run
 * one like a Lua bot. A process is started when a game begins, in a process
 * group of its own (extproc.h); killed (the whole group) and reaped when it faults or when the game ends,
 * unless it answered game_over with "ready": then it is kept for the next game of the same bot in the
 * same thread (one process per seat and worker). Its limits: EXTBOT_START_MS to start, then the bot's
 * wall-clock limit per decision; an answer line of at most EXTPROC_LINE_MAX bytes. */
#ifndef MEEPLE_EXTBOT_H
#define MEEPLE_EXTBOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bots/bot_ops.h"
#include <meeple/game.h>

#define EXTBOT_PROTOCOL 1
#define EXTBOT_PREFIX "exec:"
#define EXTBOT_START_MS 5000.0  /* added to the first decision's limit: interpreters take time to start */
#define EXTBOT_EXIT_MS 500.0    /* after game_over, for the program to answer "ready" or exit by itself */
#define EXTBOT_ARGS_MAX 64      /* words in an exec: command */
/* A bot may answer a decide with sample requests before its action (docs/protocol.md, `sample`); hello
 * states these caps. The bytes count the save texts of one decision's samples, every request together. */
#define EXTBOT_SAMPLE_MAX 64                 /* samples in one request */
#define EXTBOT_SAMPLE_BYTES (4L << 20)       /* bytes of save texts per decision */
#define EXTBOT_SAMPLE_REQUESTS 1024          /* requests per decision */

/* Whether a bot argument names an external bot: "exec:PROGRAM [ARGS]". */
bool extbot_is_command(const char *arg);

/* Whether `path` is an executable regular file that is not a Lua file (run directly as a bot). */
bool extbot_is_program_file(const char *path);

/* Checks a bot argument (exec:... or a program file): the command splits, the program exists and may
 * be run. Sets the bot's `name` (the last argument that is a file, else the program, without folder or
 * extension). False and one line in `err` otherwise. */
bool extbot_check(const char *arg, char *name, size_t namen, char *err, size_t errn);

typedef struct extbot extbot;

/* The bot for one seat: nothing runs until its game begins; each of its processes may map `memory`
 * bytes. NULL only when out of memory. `echo`: the program's stderr is copied to ours, each line
 * prefixed with `name`; else it is read and dropped. */
extbot *extbot_new(const char *arg, const char *name, const game_def *def, const param_value *params, double ms,
                   size_t memory, bool echo);

/* Its operations (self: an extbot). begin starts the program for a new game (a program still running
 * from an earlier game is ended first) and sends `hello`; decide sends `decide` (the view, the legal
 * texts) and reads the answer: an answer late, garbage or missing, or the program's exit, is a fault
 * and the process is gone; saw keeps a decision for the next decide's `seen`; end sends `game_over`
 * and waits EXTBOT_EXIT_MS at most for "ready": then the program is kept for the next game, else its
 * stdin is closed, it has EXTBOT_EXIT_MS to exit, and what is left of its group is killed; free ends
 * the program if it still runs. */
extern const bot_ops extbot_ops;

#endif
