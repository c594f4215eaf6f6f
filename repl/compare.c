/* compare.c — `meeple compare`: the same bots and seeds under the base rules and under a variant, side
 * by side, with 95% intervals and a sentence on what changed beyond chance.
 *
 * It runs `meeple match` twice (each logging to a temporary file) and reads the two logs, so its
 * numbers are exactly those the user's own matches would give, progress bars and forfeits included.
 * Both matches get the same match seed — --seed, else one drawn from the OS, as `meeple match` would
 * (a fixed default would let a bot that knows it work out every deal) — and it is printed.
 * --json writes the same numbers as one object; --html the report's plots (scripts/report.lua) for
 * both rule sets side by side. The match runner (lab_run_match, repl/lab.h) is shared with `meeple
 * evaluate` and `meeple tune` (repl/lab.c), which play their matches the same way. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>
#include <lauxlib.h>
#include <lua.h>

#include "cli.h"
#include "host/timing.h"
#include "host/shortest_json.h"
#include <meeple/registry.h>
#include "lab.h"
#include "report.h"
#include "host/seating.h"
#include "host/matchlog.h"

extern const char meeple_lua_compare_check[]; /* repl/lua/compare_check.lua */
extern const char meeple_lua_compare_page[];  /* repl/lua/compare_page.lua */

#define COMPARE_MAX_SEATS MEEPLE_MAX_PLAYERS
#define Z95 1.959963984540054

typedef struct compare_args {
    const char *game, *variant, *html, *seating;  /* seating: a design's name, checked */
    bool json, games_given;
    const char *bots[COMPARE_MAX_SEATS];
    int nbots;
    long long games, seed, jobs;
    long long max_decisions;                      /* match's --max-decisions; 0: its default */
} compare_args;

/* The results of one seat or one bot: a win is a game won alone, a draw a shared win. */
typedef struct tally {
    long long games, wins, draws, losses, forfeits;
    double score_sum, score_sq;
} tally;

/* What one rule set's match came to. Seats and bots are counted apart: seats rotate over bots. */
typedef struct side {
    long long games;
    int nseats;
    tally seat[COMPARE_MAX_SEATS];
    double length_sum, length_sq;               /* decisions per game */
    char bot[COMPARE_MAX_SEATS][80];
    int nbots;
    tally by_bot[COMPARE_MAX_SEATS];
} side;

/* ==================================================================== arguments */

static int compare_parse(int argc, char **argv, compare_args *a) {
    *a = (compare_args){.games = 200, .seed = -1, .jobs = 1, .seating = "balanced"};
    for (int i = 1; i < argc; i++) { /* argv[0] is "compare" */
        const char *arg = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(arg, "--variant") == 0 && has_value) {
            a->variant = argv[++i];
        } else if (strcmp(arg, "--games") == 0 && has_value) {
            if (!cli_parse_int(argv[++i], 1, 100000000, &a->games))
                return cli_bad_args("compare", "--games takes a whole number from 1, got '%s'", argv[i]);
            a->games_given = true;
        } else if (strcmp(arg, "--seed") == 0 && has_value) {
            if (!cli_parse_int(argv[++i], 0, MEEPLE_SEED_MAX, &a->seed))
                return cli_bad_args("compare", "--seed takes a whole number from 0 to %lld, got '%s'", MEEPLE_SEED_MAX,
                                    argv[i]);
        } else if (strcmp(arg, "--seating") == 0 && has_value) {
            seating_design d;
            a->seating = argv[++i];
            if (!seating_parse(a->seating, &d))
                return cli_bad_args("compare", "--seating must be one of %s, got '%s'%s", SEATING_NAMES, a->seating,
                                    cli_suggest(a->seating, (const char *const[]){"rotate", "balanced", "permute",
                                                                                  "random", NULL}));
        } else if (strcmp(arg, "--max-decisions") == 0 && has_value) {
            if (!cli_parse_int(argv[++i], 1, MATCHLOG_MAX_DECISIONS, &a->max_decisions))
                return cli_bad_args("compare", "--max-decisions must be a whole number from 1 to %d, got '%s'",
                                    MATCHLOG_MAX_DECISIONS, argv[i]);
        } else if (strcmp(arg, "--json") == 0) {
            a->json = true;
        } else if (strcmp(arg, "--html") == 0 && has_value) {
            a->html = argv[++i];
        } else if (strcmp(arg, "--jobs") == 0 && has_value) {
            if (!cli_parse_int(argv[++i], 0, 256, &a->jobs)) /* 0: one per core, as match takes it */
                return cli_bad_args("compare", "--jobs takes a whole number from 0 (one per core) to 256, got '%s'", argv[i]);
        } else if (arg[0] == '-') {
            static const char *const valued[] = {"--variant", "--games", "--seed", "--html", "--jobs", "--seating",
                                                 "--max-decisions", NULL};
            const char *near = cli_nearest(arg, valued);
            if (near && strcmp(near, arg) == 0) return cli_bad_args("compare", "%s needs a value", arg);
            return cli_unknown_option("compare", arg);
        } else if (!a->game) {
            a->game = arg;
        } else if (a->nbots < COMPARE_MAX_SEATS) {
            a->bots[a->nbots++] = arg;
        } else {
            return cli_bad_args("compare", "at most %d bots, one per seat", COMPARE_MAX_SEATS);
        }
    }
    if (!a->game) return cli_bad_args("compare", "which game? games: %s", game_names());
    if (!game_find(a->game)) return cli_unknown_game("compare", a->game);
    if (!a->variant) return cli_bad_args("compare", "--variant V names the house rules to compare with");
    if (a->nbots < 1) return cli_bad_args("compare", "name a bot for every seat (for example: random random)");
    if (a->json && a->html) return cli_bad_args("compare", "--json or --html, not both (--html writes a file; --json prints)");
    seating_design design;
    long long block = seating_parse(a->seating, &design) ? seating_block(design, a->nbots) : 0;
    if (!a->games_given && block > 0) a->games = (a->games + block - 1) / block * block; /* whole deals, as match's */
    /* Refused here, as match would refuse it, before either half says it is starting. */
    if (block > 0 && a->games % block != 0) {
        long long below = a->games / block * block, above = below + block;
        char nearest[80];
        if (below > 0) snprintf(nearest, sizeof nearest, "%lld or %lld", below, above);
        else snprintf(nearest, sizeof nearest, "%lld", above);
        return cli_bad_args("compare", "--games %lld is not a whole number of deals: %s seating plays %lld games a deal "
                            "with %d players; give --games %s", a->games, seating_name(design), block, a->nbots,
                            nearest);
    }
    return 0;
}

/* ==================================================================== the two matches */

/* The child's stderr, line by line, as ours: its errors name `meeple CMD` (compare, evaluate, tune),
 * and an error followed by match's usage line is a bad argument of CMD's, said as cli_bad_args says it. `pending` holds
 * an error line until the next line shows which it is. */
static void relay_line(const char *cmd, char *pending, size_t n, const char *line) {
    static const char match_prefix[] = "meeple match: ", usage_prefix[] = "usage: meeple match";
    bool usage = line && strncmp(line, usage_prefix, sizeof usage_prefix - 1) == 0;
    if (pending[0] && usage) {
        pending[strcspn(pending, "\n")] = '\0';
        cli_bad_args(cmd, "%s", pending);
        pending[0] = '\0';
        return;
    }
    if (pending[0]) fprintf(stderr, "meeple %s: %s", cmd, pending);
    pending[0] = '\0';
    if (!line) return;
    if (strncmp(line, match_prefix, sizeof match_prefix - 1) == 0) { /* kept, cut to fit */
        const char *rest = line + sizeof match_prefix - 1;
        size_t len = strnlen(rest, n - 1);
        memcpy(pending, rest, len);
        pending[len] = '\0';
    } else if (!usage)
        fputs(line, stderr);
}

/* The progress of one half on a terminal: the games its log holds so far (match flushes each game's
 * line in order), counted as the log grows, and the time left at the pace so far. */
typedef struct halfway {
    const char *cmd, *label, *log;
    long long total, done;
    long offset;
    double started;
    bool tty, shown;
} halfway;

static void show_progress(halfway *h) {
    if (!h->tty) return;
    FILE *f = fopen(h->log, "rb");
    if (f && fseek(f, h->offset, SEEK_SET) == 0) {
        char buf[1 << 14];
        size_t got;
        while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
            for (size_t i = 0; i < got; i++) h->done += buf[i] == '\n';
            h->offset += (long)got;
        }
    }
    if (f) fclose(f);
    double spent = (timing_now_ms() / 1e3) - h->started;
    char left[48] = "";
    if (h->done > 0 && h->done < h->total)
        snprintf(left, sizeof left, ", about %.0f s left", spent / (double)h->done * (double)(h->total - h->done));
    fprintf(stderr, "\r\033[K%s, %s: %lld/%lld games%s", h->cmd, h->label, h->done, h->total, left);
    fflush(stderr);
    h->shown = true;
}

static void clear_progress(halfway *h) {
    if (h->shown) fprintf(stderr, "\r\033[K");
    h->shown = false;
}

/* The child's stderr, read as it comes (a progress line in between on a terminal), each whole line
 * through relay_line. */
static void relay_output(int fd, halfway *h) {
    char buf[4096], line[4096 + 1], pending[2048] = "";
    size_t fill = 0;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    for (;;) {
        int ready = poll(&p, 1, 250);
        if (ready == 0) {
            show_progress(h);
            continue;
        }
        ssize_t got = ready < 0 ? 0 : read(fd, buf, sizeof buf);
        if (got <= 0) break;
        for (ssize_t i = 0; i < got; i++) {
            if (fill < sizeof line - 2) line[fill++] = buf[i];
            if (buf[i] != '\n' && fill < sizeof line - 2) continue;
            line[fill] = '\0';
            clear_progress(h);
            relay_line(h->cmd, pending, sizeof pending, line);
            fill = 0;
        }
        show_progress(h);
    }
    line[fill] = '\0';
    clear_progress(h);
    if (fill) relay_line(h->cmd, pending, sizeof pending, line);
    relay_line(h->cmd, pending, sizeof pending, NULL);
}

/* Runs `meeple match` as `spec` says, its table discarded and its log in spec->log; its stderr comes
 * through relay_line, as spec->cmd's. Returns its exit status (-1: it could not run). */
int lab_run_match(const lab_match *spec, const cli_options *opts) {
    char games[32], seed[32], jobs[32], cap[32];
    snprintf(games, sizeof games, "%lld", spec->games);
    snprintf(seed, sizeof seed, "%lld", spec->seed);
    snprintf(jobs, sizeof jobs, "%lld", spec->jobs);
    const char *argv[32 + MEEPLE_MAX_PLAYERS];
    int n = 0;
    argv[n++] = "meeple";
    if (opts->debug) argv[n++] = "--debug";
    argv[n++] = "match";
    argv[n++] = spec->game;
    for (int i = 0; i < spec->nbots && i < MEEPLE_MAX_PLAYERS; i++) argv[n++] = spec->bots[i];
    const char *rest[] = {"--games", games, "--seed", seed, "--jobs", jobs, "--seating", spec->seating, "--log", spec->log};
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++) argv[n++] = rest[i];
    if (spec->max_decisions > 0) {
        snprintf(cap, sizeof cap, "%lld", spec->max_decisions);
        argv[n++] = "--max-decisions";
        argv[n++] = cap;
    }
    char ms[32];
    if (spec->ms > 0) {
        snprintf(ms, sizeof ms, "%lld", spec->ms);
        argv[n++] = "--ms";
        argv[n++] = ms;
    }
    if (spec->variant) {
        argv[n++] = "--variant";
        argv[n++] = spec->variant;
    }
    argv[n] = NULL;
    if (!spec->quiet)
        fprintf(stderr, "meeple %s: %lld games under %s...\n", spec->cmd, spec->games,
                spec->variant ? spec->variant : "the base rules");
    fflush(NULL);
    int err[2];
    if (pipe(err) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(err[0]);
        close(err[1]);
        return -1;
    }
    if (pid == 0) {
        FILE *null = freopen("/dev/null", "w", stdout);
        (void)null;
        dup2(err[1], STDERR_FILENO);
        close(err[0]);
        close(err[1]);
        execv("/proc/self/exe", (char *const *)argv);
        _exit(127);
    }
    close(err[1]);
    const char *label = spec->label ? spec->label : spec->variant ? spec->variant : "base rules";
    halfway h = {.cmd = spec->cmd, .label = label, .log = spec->log, .total = spec->games,
                 .started = (timing_now_ms() / 1e3), .tty = isatty(STDERR_FILENO)};
    relay_output(err[0], &h);
    close(err[0]);
    int status;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
}

/* The comparison's match under `variant` (NULL: the base rules), logged in `log`. */
static int run_match(const compare_args *a, const char *variant, const char *log, const cli_options *opts) {
    lab_match spec = {.cmd = "compare", .game = a->game, .variant = variant, .seating = a->seating, .log = log,
                      .nbots = a->nbots, .games = a->games, .seed = a->seed, .jobs = a->jobs,
                      .max_decisions = a->max_decisions};
    for (int i = 0; i < a->nbots; i++) spec.bots[i] = a->bots[i];
    return lab_run_match(&spec, opts);
}

static int bot_index(side *s, const char *name) {
    for (int i = 0; i < s->nbots; i++)
        if (strcmp(s->bot[i], name) == 0) return i;
    if (s->nbots == COMPARE_MAX_SEATS) return -1;
    snprintf(s->bot[s->nbots], sizeof s->bot[0], "%s", name);
    return s->nbots++;
}

static void count(tally *t, int outcome, bool forfeited, double score) {
    t->games++;
    t->wins += outcome == 1;
    t->draws += outcome == 0;
    t->losses += outcome < 0;
    t->forfeits += forfeited;
    t->score_sum += score;
    t->score_sq += score * score;
}

/* One logged game into the side's counts; false when the record is not one `meeple match` writes. */
static bool count_game(side *s, const json_t *game) {
    const json_t *seats = json_object_get(game, "seats"), *scores = json_object_get(game, "scores");
    const json_t *winners = json_object_get(game, "winners"), *actions = json_object_get(game, "actions");
    const json_t *forfeits = json_object_get(game, "forfeits");
    size_t nseats = json_array_size(seats);
    if (!json_is_array(seats) || !json_is_array(scores) || !json_is_array(winners) || !json_is_array(actions) ||
        !json_is_array(forfeits) || nseats == 0 || json_array_size(scores) != nseats || nseats > COMPARE_MAX_SEATS)
        return false;
    int outcome[COMPARE_MAX_SEATS] = {0}; /* 1 won alone, 0 shared a win, -1 lost */
    bool forfeited[COMPARE_MAX_SEATS] = {false};
    size_t i;
    const json_t *item;
    for (i = 0; i < nseats; i++) outcome[i] = -1;
    json_array_foreach(winners, i, item) {
        json_int_t w = json_integer_value(item);
        if (!json_is_integer(item) || w < 1 || (size_t)w > nseats) return false;
        outcome[w - 1] = json_array_size(winners) == 1 ? 1 : 0;
    }
    json_array_foreach(forfeits, i, item) {
        json_int_t f = json_integer_value(json_object_get(item, "seat"));
        if (f < 1 || (size_t)f > nseats) return false;
        forfeited[f - 1] = true;
    }
    s->games++;
    if ((int)nseats > s->nseats) s->nseats = (int)nseats;
    s->length_sum += (double)json_array_size(actions);
    s->length_sq += (double)json_array_size(actions) * (double)json_array_size(actions);
    for (size_t seat = 0; seat < nseats; seat++) {
        const json_t *name = json_array_get(seats, seat), *score = json_array_get(scores, seat);
        if (!json_is_string(name) || !json_is_number(score)) return false;
        int b = bot_index(s, json_string_value(name));
        if (b < 0) return false;
        count(&s->seat[seat], outcome[seat], forfeited[seat], json_number_value(score));
        count(&s->by_bot[b], outcome[seat], forfeited[seat], json_number_value(score));
    }
    return true;
}

static bool read_log(const char *path, side *s) {
    FILE *f = fopen(path, "r");
    if (!f) return false;
    char *line = NULL;
    size_t cap = 0;
    bool ok = true;
    while (ok && getline(&line, &cap, f) > 0) {
        json_t *v = json_loads(line, 0, NULL);
        ok = v && count_game(s, v);
        json_decref(v);
    }
    free(line);
    fclose(f);
    return ok && s->games > 0;
}

/* ==================================================================== statistics */

typedef struct estimate {
    double value, lo, hi, se;
} estimate;

static estimate proportion(long long k, long long n) {
    estimate e = {0, 0, 1, 0};
    if (n == 0) return e;
    double p = (double)k / (double)n, nn = (double)n, z2 = Z95 * Z95;
    double denom = 1 + z2 / nn, centre = (p + z2 / (2 * nn)) / denom;
    double half = Z95 * sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn)) / denom;
    e.value = p;
    e.lo = fmax(0, centre - half);
    e.hi = fmin(1, centre + half);
    e.se = sqrt(p * (1 - p) / nn);
    return e;
}

static estimate mean(double sum, double sq, long long n) {
    estimate e = {0, 0, 0, 0};
    if (n == 0) return e;
    double m = sum / (double)n, var = n > 1 ? (sq - sum * m) / (double)(n - 1) : 0;
    e.value = m;
    e.se = sqrt(fmax(var, 0) / (double)n);
    e.lo = m - Z95 * e.se;
    e.hi = m + Z95 * e.se;
    return e;
}

/* Whether two estimates differ beyond chance at 95% (a z test on their difference). */
static bool differs(estimate a, estimate b) {
    double se = sqrt(a.se * a.se + b.se * b.se);
    return se > 0 ? fabs(b.value - a.value) / se > Z95 : a.value != b.value;
}

/* ==================================================================== the comparison's rows */

/* One line of the comparison: a quantity under both rule sets. */
typedef struct row {
    char label[80], what[120];
    estimate base, var;
    bool percent, significant;
} row;

#define COMPARE_MAX_ROWS (2 + 3 * COMPARE_MAX_SEATS)

static void add_row(row *rows, int *n, estimate base, estimate var, bool percent, const char *label,
                    const char *what) {
    row *r = &rows[(*n)++];
    snprintf(r->label, sizeof r->label, "%s", label);
    snprintf(r->what, sizeof r->what, "%s", what);
    r->base = base;
    r->var = var;
    r->percent = percent;
    r->significant = differs(base, var);
}

/* The rows compare reports: per seat win rate, game length, per bot win rate and mean score. */
static int comparison_rows(const compare_args *a, const side *base, side *var, row *rows) {
    int n = 0;
    char label[80], what[120];
    for (int seat = 0; seat < a->nbots; seat++) {
        snprintf(label, sizeof label, "seat %d win rate", seat + 1);
        snprintf(what, sizeof what, "seat %d's win rate", seat + 1);
        add_row(rows, &n, proportion(base->seat[seat].wins, base->games), proportion(var->seat[seat].wins, var->games),
                true, label, what);
    }
    add_row(rows, &n, mean(base->length_sum, base->length_sq, base->games),
            mean(var->length_sum, var->length_sq, var->games), false, "game length (decisions)", "the game's length");
    for (int b = 0; b < base->nbots; b++) {
        int vb = bot_index(var, base->bot[b]);
        if (vb < 0) continue;
        const tally *tb = &base->by_bot[b], *tv = &var->by_bot[vb];
        snprintf(label, sizeof label, "%.18s win rate", base->bot[b]);
        snprintf(what, sizeof what, "%s's win rate", base->bot[b]);
        add_row(rows, &n, proportion(tb->wins, tb->games), proportion(tv->wins, tv->games), true, label, what);
        snprintf(label, sizeof label, "%.18s mean score", base->bot[b]);
        snprintf(what, sizeof what, "%s's mean score", base->bot[b]);
        add_row(rows, &n, mean(tb->score_sum, tb->score_sq, tb->games), mean(tv->score_sum, tv->score_sq, tv->games),
                false, label, what);
    }
    return n;
}

/* ==================================================================== the report, as text */

static void print_row(const row *r) {
    double scale = r->percent ? 100 : 1;
    const char *unit = r->percent ? "%" : "";
    char b[64], v[64];
    snprintf(b, sizeof b, "%.1f%s [%.1f, %.1f]", r->base.value * scale, unit, r->base.lo * scale, r->base.hi * scale);
    snprintf(v, sizeof v, "%.1f%s [%.1f, %.1f]", r->var.value * scale, unit, r->var.lo * scale, r->var.hi * scale);
    printf("%-28s %-24s %-24s %+.1f%s%s\n", r->label, b, v, (r->var.value - r->base.value) * scale,
           r->percent ? " points" : "", r->significant ? "  *" : "");
}

static void report(const compare_args *a, const side *base, const row *rows, int nrows) {
    printf("%s: base rules against %s, %lld games each, match seed %lld (--seed), %s seating\n\n", a->game,
           a->variant, base->games, a->seed, a->seating);
    printf("%-28s %-24s %-24s %s\n", "", "base rules", a->variant, "change");
    int nfound = 0;
    for (int i = 0; i < nrows; i++) {
        print_row(&rows[i]);
        nfound += rows[i].significant;
    }
    printf("\nIntervals are 95%%; * marks a change beyond chance at 95%%. A win is a game won alone.\n\n");
    if (!nfound) {
        printf("Nothing changed beyond chance over %lld games; more games (--games) would show smaller "
               "effects.\n", base->games);
        return;
    }
    printf("Under %s, ", a->variant);
    for (int i = 0, shown = 0; i < nrows; i++) {
        const row *r = &rows[i];
        if (!r->significant) continue;
        double scale = r->percent ? 100 : 1;
        const char *unit = r->percent ? "%" : "";
        shown++;
        printf("%s %s from %.1f%s to %.1f%s%s", r->what, r->var.value > r->base.value ? "rises" : "falls",
               r->base.value * scale, unit, r->var.value * scale, unit,
               shown + 1 < nfound ? "; " : shown < nfound ? "; and " : ".\n");
    }
    printf("Everything else is within chance over %lld games.\n", base->games);
}

/* ==================================================================== the report, as JSON */

static json_t *tally_json(const tally *t) {
    estimate w = proportion(t->wins, t->games), m = mean(t->score_sum, t->score_sq, t->games);
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:f}", "games", (json_int_t)t->games,
                     "wins", (json_int_t)t->wins, "draws", (json_int_t)t->draws, "losses", (json_int_t)t->losses,
                     "forfeits", (json_int_t)t->forfeits, "win_rate", w.value, "ci_low", w.lo, "ci_high", w.hi,
                     "mean_score", m.value, "score_ci_low", m.lo, "score_ci_high", m.hi);
}

static json_t *estimate_json(estimate e) {
    return json_pack("{s:f, s:f, s:f}", "value", e.value, "ci_low", e.lo, "ci_high", e.hi);
}

static json_t *side_json(const side *s) {
    json_t *bots = json_array(), *seats = json_array();
    for (int b = 0; b < s->nbots; b++) {
        json_t *t = tally_json(&s->by_bot[b]);
        json_object_set_new(t, "name", json_string(s->bot[b]));
        json_array_append_new(bots, t);
    }
    for (int seat = 0; seat < s->nseats; seat++) {
        json_t *t = tally_json(&s->seat[seat]);
        json_object_set_new(t, "seat", json_integer(seat + 1));
        json_array_append_new(seats, t);
    }
    return json_pack("{s:I, s:o, s:o, s:o}", "games", (json_int_t)s->games, "bots", bots, "seats", seats,
                     "game_length", estimate_json(mean(s->length_sum, s->length_sq, s->games)));
}

static int print_json(const compare_args *a, const side *base, const side *var, const row *rows, int nrows) {
    json_t *diffs = json_array();
    for (int i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        json_array_append_new(diffs, json_pack("{s:s, s:o, s:o, s:f, s:b, s:s}", "quantity", r->label, "base",
                                               estimate_json(r->base), "variant", estimate_json(r->var), "change",
                                               r->var.value - r->base.value, "beyond_chance", r->significant,
                                               "unit", r->percent ? "share" : "count"));
    }
    json_t *out = json_pack("{s:s, s:s, s:I, s:I, s:o, s:o, s:o}", "game", a->game, "variant", a->variant, "games",
                            (json_int_t)a->games, "match_seed", (json_int_t)a->seed, "base_rules", side_json(base),
                            "variant_rules", side_json(var), "differences", diffs);
    char *text = out ? shortest_json_dumps(out, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;
    json_decref(out);
    if (!text) {
        fprintf(stderr, "meeple compare: out of memory\n");
        return 1;
    }
    puts(text);
    free(text);
    return 0;
}

/* ==================================================================== the report, as a page */

static int write_html(const compare_args *a, const char *base_log, const char *variant_log,
                      const cli_options *opts) {
    lua_State *L = cli_new_lua();
    if (!L) {
        fprintf(stderr, "meeple compare: out of memory\n");
        return 1;
    }
    cli_push_msgh(L, opts);
    report_push_runner(L, meeple_lua_compare_page, "=compare");
    lua_pushstring(L, base_log);
    lua_pushstring(L, variant_log);
    lua_createtable(L, 2, 0);
    lua_pushstring(L, "base rules");
    lua_rawseti(L, -2, 1);
    lua_pushstring(L, a->variant);
    lua_rawseti(L, -2, 2);
    lua_pushstring(L, a->html);
    int status = lua_pcall(L, 4, 0, 1);
    if (status != LUA_OK) cli_report(L, opts, "meeple compare");
    else fprintf(stderr, "meeple compare: wrote %s\n", a->html);
    lua_close(L);
    return status == LUA_OK ? 0 : 1;
}

/* ==================================================================== the command */

static int compare_logs(const compare_args *a, const char *base_log, const char *variant_log,
                        const cli_options *opts) {
    side *base = calloc(1, sizeof *base), *var = calloc(1, sizeof *var);
    row *rows = calloc(COMPARE_MAX_ROWS, sizeof *rows);
    int status = 0;
    if (!base || !var || !rows) {
        fprintf(stderr, "meeple compare: out of memory\n");
        status = 1;
    } else if (!read_log(base_log, base) || !read_log(variant_log, var)) {
        fprintf(stderr, "meeple compare: the match logs could not be read\n");
        status = 1;
    } else {
        int nrows = comparison_rows(a, base, var, rows);
        if (a->json) status = print_json(a, base, var, rows, nrows);
        else report(a, base, rows, nrows);
        if (a->html && status == 0) status = write_html(a, base_log, variant_log, opts);
    }
    free(base);
    free(var);
    free(rows);
    return status;
}

/* The variant loaded and a game set up under it, before any game is played: a misspelt variant or
 * parameters the game refuses are a bad argument now, not after the whole base-rules half. */
static int check_variant(const compare_args *a) {
    lua_State *L = cli_new_lua();
    if (!L) {
        fprintf(stderr, "meeple compare: out of memory\n");
        return 1;
    }
    int status = cli_load_program(L, meeple_lua_compare_check, "=compare");
    if (status == LUA_OK) {
        lua_getglobal(L, "meeple");
        lua_pushstring(L, a->game);
        lua_pushinteger(L, a->nbots);
        lua_pushstring(L, a->variant);
        status = lua_pcall(L, 4, 0, 0);
    }
    int bad = 0;
    if (status != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        if (!msg) msg = "the variant cannot be played";
        bad = cli_bad_args("compare", "%.*s", (int)strcspn(msg, "\n"), msg);
    }
    lua_close(L);
    return bad;
}

int compare_main(int argc, char **argv, const cli_options *opts) {
    compare_args a;
    int bad = compare_parse(argc, argv, &a);
    if (!bad) bad = check_variant(&a);
    if (bad) return bad;
    if (a.seed < 0 && (a.seed = cli_os_seed()) < 0) {
        fprintf(stderr, "meeple compare: cannot draw a seed from the system: give one with --seed\n");
        return 1;
    }
    char dir[] = "/tmp/meeple-compare-XXXXXX";
    if (!mkdtemp(dir)) {
        fprintf(stderr, "meeple compare: cannot make a temporary folder\n");
        return 1;
    }
    char base_log[64], variant_log[64];
    snprintf(base_log, sizeof base_log, "%s/base.jsonl", dir);
    snprintf(variant_log, sizeof variant_log, "%s/variant.jsonl", dir);
    int status = run_match(&a, NULL, base_log, opts);
    if (status == 0) status = run_match(&a, a.variant, variant_log, opts);
    if (status != 0) {
        /* The match said why above (as compare); a bad variant or bot is a bad argument there too. */
        if (status < 0) fprintf(stderr, "meeple compare: cannot run meeple match\n");
        status = status == 2 ? 2 : 1;
    } else {
        status = compare_logs(&a, base_log, variant_log, opts);
    }
    remove(base_log);
    remove(variant_log);
    rmdir(dir);
    return status;
}
