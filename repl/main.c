/* main.c — the `meeple` executable: the command table, argument checks, and `games`, `rules`, `run`. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <jansson.h>

#include "cli.h"
#include "lua/lmeeple.h"
#include <meeple/registry.h>
#include "shell.h"
#include "host/text.h"

static int cmd_games(int argc, char **argv, const cli_options *opts);
static int cmd_rules(int argc, char **argv, const cli_options *opts);
static int cmd_run(int argc, char **argv, const cli_options *opts);
static int cmd_help(int argc, char **argv, const cli_options *opts);

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
     "               name of one in bots/, or exec:PROGRAM [ARGS]; without any, bots/random.lua\n"
     "               plays every other seat\n"
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
     "meeple match GAME BOT BOT... [--games N] [--seed S] [--jobs J] [--seating rotate|balanced|permute|random]"
     " [--sprt P0,P1 [--alpha A] [--beta B]] [--variant V] [--log F.jsonl] [--resume] [--shard K/N]"
     " [--max-decisions N] [--json]",
     "a tournament between bots, in deals played under every seating of a balanced design",
     "  BOT          a bot file, the name of one in bots/ (random, greedy_babel, ismcts, ...), or a\n"
     "               program: 'exec:PROGRAM [ARGS]' or an executable file (docs/protocol.md);\n"
     "               one per seat, so the number of bots is the number of players\n"
     "  --games N    games to play, a whole number of deals (default: 100 rounded up to whole deals)\n"
     "  --seed S     the match's seed, 0..2^53-1 (default: drawn from the OS, printed and logged)\n"
     "  --seating D  who sits where; every game of a deal plays the same deal (its seed from S):\n"
     "               balanced (default): P(P-1) games a deal, each bot in each seat and each bot\n"
     "                 left of each other equally often (2 players: 2, 3: 6, 4: 12, 5: 20, 6: 30,\n"
     "                 7: 42, 8: 56 games a deal)\n"
     "               rotate: P games a deal, seats rotated (neighbours never change: biased)\n"
     "               permute: P! games a deal, every order (at most 5 players)\n"
     "               random: one game a deal, a random order drawn from its seed\n"
     "  --sprt P0,P1 a sequential test on the first bot's expected score (a win 1, a win shared by k\n"
     "               1/k): H0 score = P0 against H1 score = P1, one trial a deal; stops at the first\n"
     "               deal where it decides (from the 10th), or at --games (not with --shard)\n"
     "  --alpha A, --beta B   its error rates (default 0.05 each)\n"
     "  --jobs J     games played at once, one thread each (default 1; 0: one per core); results do\n"
     "               not depend on it\n"
     "  --variant V  every game under a house-rule variant (a name in scripts/variants/GAME, or a file)\n"
     "  --log F      one JSON line per game (docs/log-format.md); F is written anew unless --resume\n"
     "  --resume     continue the match logged in F where it stopped (same arguments; the seed\n"
     "               comes from the log), after replaying every logged game to check it\n"
     "  --ms N       a bot's wall-clock limit per decision (default 1000)\n"
     "  --instructions N   its Lua instruction budget per decision (default 1000000000)\n"
     "  --memory MB  its memory cap (default 128); given, it caps each process of an exec: bot too\n"
     "  --max-decisions N  a game still running after N decisions ends unfinished, 1..200000\n"
     "               (default about 10 times the game's longest with the shipped bots: babel 2000,\n"
     "               citadels 10000, bohnanza 25000, rabohnzel 30000): logged as unfinished and\n"
     "               counted as a draw shared by all seats, as Ludii counts a game at its move\n"
     "               limit (a Babel game can cycle: collapsed temples go back to the deck)\n"
     "  --shard K/N  play only shard K of N: the deals d with (d-1) mod N = K-1, for a cluster; needs\n"
     "               --seed (the shards of one match share one seed); `meeple merge` joins their logs\n"
     "  --json       the results as one JSON object on stdout instead of the table\n"
     "A bot that errors, answers an action that is not legal or breaks a limit forfeits the game.\n"
     "Exit status: 0; 1 when a game fails or every game ended in a forfeit; 2 for bad arguments or\n"
     "a log that is not this match's; 130 when SIGINT/SIGTERM stopped it (the games finished are\n"
     "logged and counted, and --resume plays the rest).\n"
     "Bots print to stderr only under `meeple --debug match`.",
     match_main},
    {"merge", "meeple merge LOG... [--log OUT] [--json] [--variant FILE]", "join the logs of a match's shards (match --shard K/N)",
     "Checks that the logs are one match's (same game, bots, seed, variant, parameters and meeple\n"
     "version), with every game once and each record the one its seed and actions give when played\n"
     "again; then prints the table one machine playing the whole match prints, and with --log writes\n"
     "the log it would have written (records in game order). docs/cluster.md has the recipes.\n"
     "  --log OUT    the merged log (written beside OUT, renamed over it on success; OUT must be a\n"
     "               regular file or not exist)\n"
     "  --json       the results as one JSON object instead of the table\n"
     "  --variant FILE  the variant file of logs that name theirs by its path (a log never chooses\n"
     "               which file runs; names are looked up in meeple's folders and $MEEPLE_PATH only)\n"
     "Exit status: 0; 1 when the logs are not one whole match (mixed, a game twice or missing, a\n"
     "damaged line: one line says which); 2 for bad arguments.",
     merge_main},
    {"compare",
     "meeple compare GAME --variant V BOT BOT... [--games N] [--seed S] [--jobs J]"
     " [--seating rotate|balanced|permute|random] [--max-decisions N] [--json] [--html FILE]",
     "the same bots and seeds under the base rules and under a variant, side by side",
     "Plays `meeple match` twice with the same seeds, once under the base rules and once under the\n"
     "variant, and prints per-seat win rates (the first player's advantage), game length, and each\n"
     "bot's win rate and mean score, with 95% intervals, marking what changed beyond chance.\n"
     "  --variant V  the house rules: a name in scripts/variants/GAME/, or a file\n"
     "  --games N    games under each rule set, a whole number of deals (default: 200 rounded up to\n"
     "               whole deals)\n"
     "  --seating D  the seating design both matches play (default balanced; see match --help)\n"
     "  --seed S     the match seed both play (default: drawn from the OS, printed)\n"
     "  --jobs J     games played at once (default 1; 0: one per core)\n"
     "  --max-decisions N  as match's: a game still running then ends unfinished, a draw (default:\n"
     "               the game's, as match --help says)\n"
     "  --json       one JSON object instead: both rule sets per bot and per seat, and the differences\n"
     "  --html FILE  also write a page with the plots of `meeple report` for both rule sets side by side\n"
     "`meeple evaluate ... --variant V` plays the same two matches and measures more (docs/lab.md).",
     compare_main},
    {"evaluate",
     "meeple evaluate GAME BOT BOT... [--variant V] [--games N] [--seed S] [--jobs J]"
     " [--seating rotate|balanced|permute|random] [--max-decisions N] [--ms N] [--json] [--html FILE]",
     "game-design metrics (balance, skill, drama, ...) of a game or a variant, with 95% intervals",
     "Plays `meeple match` (the same seating design, duplicate deals and seeds), plays every logged\n"
     "game again to read its legal actions and scores, and reports with 95% intervals over the deals:\n"
     "balance (spread of the seats' win rates), first-player advantage, drawishness (shared wins),\n"
     "duration (decisions, rounds), branching factor (overall and per phase), skill (how much the\n"
     "first bot beats the others), luck (how often the seat, not the bot, wins a deal), lead changes,\n"
     "drama and uncertainty (by the game's own scores). docs/lab.md defines each one.\n"
     "  --variant V  also under the house rules V, side by side, * marking a change beyond chance\n"
     "  --games N    games under each rule set, a whole number of deals (default: 200 rounded up)\n"
     "  --seating D  the seating design (default balanced; see match --help)\n"
     "  --seed S     the match seed (default: drawn from the OS, printed)\n"
     "  --jobs J     games played at once (default 1; 0: one per core)\n"
     "  --max-decisions N  as match's: a game still running then ends unfinished, a draw (default:\n"
     "               the game's, as match --help says)\n"
     "  --ms N       each bot's time per decision, as match's --ms (default: match's)\n"
     "  --json       one JSON object instead: each metric's value, interval and what it assumes\n"
     "  --html FILE  also write the table as one self-contained page\n"
     "`meeple compare` is the older summary of the same matches (seat and bot win rates, length).",
     evaluate_main},
    {"tune",
     "meeple tune GAME BOT BOT... --param KEY=LO..HI [--param ...] --objective OBJ [--games N] [--seed S]"
     " [--jobs J] [--seating D] [--max-decisions N] [--ms N] [--variant FILE] [--out FILE] [--json]",
     "parameter values that best meet an objective, by successive halving, written as a variant",
     "Every combination of the ranges is a candidate (at most 64). Round 1 plays --games games of each\n"
     "(default: 20 rounded up to whole deals); each round keeps the better half by the objective's\n"
     "estimate over all of a candidate's games and plays twice as many new games (a new seed each\n"
     "round, the same deals for every candidate), until one is left. Prints every round's candidates,\n"
     "games and estimates; then plays the one left again on a new seed (its halving estimate is biased\n"
     "by its own selection) and prints that run's estimate and interval as the best; writes it as a\n"
     "variant file.\n"
     "  --param KEY=LO..HI  a whole-number parameter of the game (meeple rules GAME) and its range\n"
     "  --objective OBJ     balance (smallest seat spread), first_player (advantage nearest 0),\n"
     "                      duration:N (mean rounds nearest N), lead_changes (most), decisiveness\n"
     "                      (the first bot's skill highest)\n"
     "  --variant FILE  a variant file whose rules the candidates play, their values over its params\n"
     "  --out FILE   the variant file written (default GAME-tuned.lua), for --variant FILE\n"
     "  --games, --seed, --jobs, --seating, --max-decisions, --ms   as for evaluate; --json: the evidence\n"
     "               as one object",
     tune_main},
    {"bench", "meeple bench GAME [--games N] [--seed S] [--players N] [--rounds R] [--bot FILE [--against BOT]] [--variant V] [--json]",
     "speed: random playouts in C (or through a Lua bot), clones, and s:clone/s:legal from Lua",
     "  --games N    games to play (default 2000); game i is dealt with seed S+i\n"
     "  --seed S     first seed (default 1)\n"
     "  --players N  player count (default: the game's)\n"
     "  --rounds R   time the same games R times and report the median and the spread of ns per\n"
     "               decision (default 5; 1 with --bot or --variant)\n"
     "  --bot FILE   every decision goes through this bot (Lua, or exec:PROGRAM); adds the host's\n"
     "               overhead per decision, and for a bot that searches with meeple.search its\n"
     "               iterations per decision (mean, and the median search's per 100 ms of CPU) and\n"
     "               its own cost per iteration against its playouts'\n"
     "  --against BOT  the --bot in one seat (game g: seat g mod players), BOT in every other: the\n"
     "               search's figures as it plays against, say, the greedy bots\n"
     "  --variant V  random play under a variant, through its (Lua) hooks\n"
     "  --json       one JSON object instead of `name: value` lines",
     bench_main},
    {"replay", "meeple replay F.jsonl [--game K] [--seat P] [--html FILE] [--variant FILE]",
     "step through a logged game, or write it as one HTML page",
     "Replays game K (default 1) of a `meeple match --log` file from its seed, printing the board\n"
     "after every decision; on a terminal it waits for Enter between decisions (b goes back, q quits).\n"
     "  --seat P        the board as seat P saw it (hidden cards hidden)\n"
     "  --html FILE     write the game as one self-contained page instead: board, moves, a slider and\n"
     "                  a seat selector (open it in a browser; no network needed)\n"
     "  --variant FILE  the variant file of a game logged under one (a log names a variant file by\n"
     "                  its path, and replay runs only the file you name)",
     replay_main},
    {"report", "meeple report F.jsonl... [--html FILE] [--json] [--no-replays] [--pages N]",
     "results, win rates by seat, times, forfeits and ratings from match logs",
     "Reads one or many `meeple match --log` files (of one game) and prints per bot: games, wins,\n"
     "draws, losses, forfeits, win rate and mean score with 95% intervals, win rate by seat, time per\n"
     "decision (logs of format 2), forfeits by reason, and a rating (Bradley-Terry, Elo scale, mean\n"
     "1500, with its standard error) fitted over every game, so bots from different matches compare.\n"
     "  --html FILE    a page with the tables and plots; each game links to its replay page, written\n"
     "                 into FILE's name without .html, plus -games/\n"
     "  --no-replays   with --html: no replay pages (the games list says how to replay them)\n"
     "  --pages N      with --html: at most N replay pages (default 500); the others say how to replay\n"
     "  --json         one JSON object: per bot name, games, wins, ..., rating, rating_sd",
     report_main},
    {"serve",
     "meeple serve [--port P] [--bind ADDR] [--db FILE] [--durable] [--allow-exec] [--max-games N] [--max-connections N]"
     " [--threads N] [--bot-threads N] [--ms N] [--memory MB]",
     "a table in the browser: games for people and bots over HTTP, kept in SQLite",
     "Serves the pages (/ lists and creates games, /play/ID is a seat's table) and the JSON API of\n"
     "docs/serve.md, with live updates (Server-Sent Events). Every game's creation and decision is\n"
     "committed to the database before it is answered; a restart with the same --db plays every game\n"
     "again from its seed and actions and goes on where it stopped. Stops on SIGINT or SIGTERM.\n"
     "  --port P             the port (default 8080; 0: a free one, printed)\n"
     "  --bind ADDR          the address to listen on (default 127.0.0.1: this machine alone)\n"
     "  --db FILE            the SQLite database (default meeple-serve.db in the current folder)\n"
     "  --durable            wait for the disk at each commit (survives a power cut, not only a kill)\n"
     "  --allow-exec         let a request seat an external bot (exec:PROGRAM): it runs a program\n"
     "  --max-games N        games held at once (default 1000; more are refused with 503)\n"
     "  --max-connections N  open connections (default 512; more are closed at once)\n"
     "  --threads N          threads answering HTTP (default 2)\n"
     "  --bot-threads N      threads moving bot seats (default 2)\n"
     "  --ms N, --memory MB  a bot's limits per decision (default 1000 ms, 128 MiB), as in match",
     serve_main},
    {"games", "meeple games", "list the games", NULL, cmd_games},
    {"rules", "meeple rules GAME", "a game's rules summary, rulings, action grammar and parameters", NULL,
     cmd_rules},
    {"help", "meeple help [COMMAND]", "the commands, or one command's usage and options (as COMMAND --help)", NULL,
     cmd_help},
};
static const int command_count = (int)(sizeof commands / sizeof commands[0]);


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

static int cmd_rules(int argc, char **argv, const cli_options *opts) {
    (void)opts;
    if (argc < 2) return cli_bad_args("rules", "which game? games: %s", game_names());
    if (argc > 2) return cli_bad_args("rules", "one game expected, got also '%s'", argv[2]);
    const game_def *def = game_find(argv[1]);
    if (!def) return cli_unknown_game("rules", argv[1]);
    cli_print_rules(def);
    return 0;
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

/* "unknown command 'mach'; did you mean 'match'?" */
static int unknown_command(const char *name) {
    const char *names[sizeof commands / sizeof commands[0] + 1];
    for (int i = 0; i < command_count; i++) names[i] = commands[i].name;
    names[command_count] = NULL;
    return cli_bad_args(NULL, "unknown command '%s'%s", name, cli_suggest(name, names));
}

static void print_help(void) {
    printf("meeple — board games for people, bots and scripts, with Lua 5.4 inside\n\n"
           "usage: %s\n\ncommands:\n", CLI_MAIN_USAGE);
    for (int i = 0; i < command_count; i++)
        printf("  %-8s %s%s\n", commands[i].name, commands[i].summary,
               commands[i].fn ? "" : " (not in this build yet)");
    printf("\noptions:\n"
           "  --debug        full Lua tracebacks and internal detail in errors (anywhere on the line)\n"
           "  --help, -h     this text; `meeple help COMMAND` or `meeple COMMAND --help` for one command\n"
           "  --version, -V  the version\n"
           "Options take their value as `--games 9` or `--games=9`.\n"
           "Reference: docs/ in the source tree, or `man meeple` once installed.\n");
}

static void print_command_help(const cli_command *c) {
    printf("usage: %s\n\n%s%s\n", c->usage, c->summary, c->fn ? "" : " (not in this build yet)");
    if (c->details) printf("\n%s\n", c->details);
}

static int cmd_help(int argc, char **argv, const cli_options *opts) {
    (void)opts;
    if (argc > 2) return cli_bad_args("help", "one command expected, got also '%s'", argv[2]);
    if (argc < 2) {
        print_help();
        return 0;
    }
    const cli_command *c = cli_command_find(argv[1]);
    if (!c) return unknown_command(argv[1]);
    print_command_help(c);
    return 0;
}

static bool is_help(const char *arg) { return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0; }

/* `--help` anywhere among a command's own options; a script's arguments belong to the script. */
static bool wants_help(const cli_command *c, int argc, char **argv) {
    int last = c->fn == cmd_run ? (argc > 1 ? 1 : 0) : argc - 1;
    for (int i = 1; i <= last; i++)
        if (is_help(argv[i])) return true;
    return false;
}

static void print_version(void) {
    printf("meeple %s\n%s, jansson %s\n", MEEPLE_VERSION, LUA_RELEASE, JANSSON_VERSION);
}

int main(int argc, char **argv) {
    cli_options opts = {.debug = false, .argc = argc, .argv = argv};
    cli_set_commands(commands, command_count);
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--debug") == 0) {
            opts.debug = true;
        } else if (is_help(argv[i])) {
            print_help();
            return 0;
        } else if (strcmp(argv[i], "--version") == 0 || strcmp(argv[i], "-V") == 0) {
            print_version();
            return 0;
        } else {
            return cli_bad_args(NULL, "unknown option '%s'%s", argv[i],
                                cli_suggest(argv[i], (const char *const[]){"--debug", "--help", "--version", NULL}));
        }
    }
    if (i == argc) return shell_main(1, (char *[]){"repl", NULL}, &opts); /* `meeple`: the shell */
    const cli_command *c = cli_command_find(argv[i]);
    if (!c) return unknown_command(argv[i]);
    if (wants_help(c, argc - i, argv + i)) {
        print_command_help(c);
        return 0;
    }
    if (c->fn == cmd_run) return cmd_run(argc - i, argv + i, &opts); /* a script's arguments are its own */
    char **args = malloc(sizeof *args * (2 * (size_t)(argc - i) + 1));
    if (!args) {
        fprintf(stderr, "meeple: out of memory\n");
        return 1;
    }
    int n = cli_split_options(argc - i, argv + i, args, &opts.debug);
    int status = c->fn(n, args, &opts);
    free(args);
    return status;
}
