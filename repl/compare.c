/* compare.c — `meeple compare`: the same bots and seeds under the base rules and under a variant, side
 * by side, with 95% intervals and a sentence on what changed beyond chance.
 *
 * It runs `meeple match` twice (each logging to a temporary file) and reads the two logs, so its
 * numbers are exactly those the user's own matches would give, progress bars and forfeits included.
 * Both matches get the same match seed — --seed, else one drawn from the OS, as `meeple match` would
 * (a fixed default would let a bot that knows it work out every deal) — and it is printed. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "jsonl.h"
#include "registry.h"

#define COMPARE_MAX_SEATS MEEPLE_MAX_PLAYERS
#define Z95 1.959963984540054

typedef struct compare_args {
    const char *game, *variant;
    const char *bots[COMPARE_MAX_SEATS];
    int nbots;
    long long games, seed, jobs;
} compare_args;

/* What one rule set's match came to. Seats and bots are counted apart: seats rotate over bots. */
typedef struct side {
    long long games;
    long long seat_wins[COMPARE_MAX_SEATS];     /* games the seat won alone */
    double length_sum, length_sq;               /* decisions per game */
    char bot[COMPARE_MAX_SEATS][80];
    int nbots;
    long long bot_games[COMPARE_MAX_SEATS], bot_wins[COMPARE_MAX_SEATS];
    double score_sum[COMPARE_MAX_SEATS], score_sq[COMPARE_MAX_SEATS];
} side;

/* ==================================================================== arguments */

static int compare_parse(int argc, char **argv, compare_args *a) {
    *a = (compare_args){.games = 200, .seed = -1, .jobs = 1};
    for (int i = 1; i < argc; i++) { /* argv[0] is "compare" */
        const char *arg = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(arg, "--variant") == 0 && has_value) {
            a->variant = argv[++i];
        } else if (strcmp(arg, "--games") == 0 && has_value) {
            if (!cli_parse_int(argv[++i], 1, 100000000, &a->games))
                return cli_bad_args("compare", "--games takes a whole number from 1, got '%s'", argv[i]);
        } else if (strcmp(arg, "--seed") == 0 && has_value) {
            if (!cli_parse_int(argv[++i], 0, CLI_SEED_MAX, &a->seed))
                return cli_bad_args("compare", "--seed takes a whole number from 0 to %lld, got '%s'", CLI_SEED_MAX,
                                    argv[i]);
        } else if (strcmp(arg, "--jobs") == 0 && has_value) {
            if (!cli_parse_int(argv[++i], 1, 256, &a->jobs))
                return cli_bad_args("compare", "--jobs takes a whole number from 1 to 256, got '%s'", argv[i]);
        } else if (arg[0] == '-') {
            return cli_bad_args("compare", "unknown option '%s' (or it lacks its value)", arg);
        } else if (!a->game) {
            a->game = arg;
        } else if (a->nbots < COMPARE_MAX_SEATS) {
            a->bots[a->nbots++] = arg;
        } else {
            return cli_bad_args("compare", "at most %d bots, one per seat", COMPARE_MAX_SEATS);
        }
    }
    if (!a->game) return cli_bad_args("compare", "which game? games: %s", game_names());
    if (!game_find(a->game)) return cli_bad_args("compare", "unknown game '%s'; games: %s", a->game, game_names());
    if (!a->variant) return cli_bad_args("compare", "--variant V names the house rules to compare with");
    if (a->nbots < 1) return cli_bad_args("compare", "name a bot for every seat (for example: random random)");
    return 0;
}

/* ==================================================================== the two matches */

/* Runs `meeple match` with the comparison's arguments, its table discarded and its log in `log`.
 * Its progress and its error lines go to our stderr. */
static bool run_match(const compare_args *a, const char *variant, const char *log, const cli_options *opts) {
    char games[32], seed[32], jobs[32];
    snprintf(games, sizeof games, "%lld", a->games);
    snprintf(seed, sizeof seed, "%lld", a->seed);
    snprintf(jobs, sizeof jobs, "%lld", a->jobs);
    const char *argv[32 + COMPARE_MAX_SEATS];
    int n = 0;
    argv[n++] = "meeple";
    if (opts->debug) argv[n++] = "--debug";
    argv[n++] = "match";
    argv[n++] = a->game;
    for (int i = 0; i < a->nbots; i++) argv[n++] = a->bots[i];
    const char *rest[] = {"--games", games, "--seed", seed, "--jobs", jobs, "--log", log};
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++) argv[n++] = rest[i];
    if (variant) {
        argv[n++] = "--variant";
        argv[n++] = variant;
    }
    argv[n] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return false;
    if (pid == 0) {
        FILE *null = freopen("/dev/null", "w", stdout);
        (void)null;
        execv("/proc/self/exe", (char *const *)argv);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) < 0) return false;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int bot_index(side *s, const char *name) {
    for (int i = 0; i < s->nbots; i++)
        if (strcmp(s->bot[i], name) == 0) return i;
    if (s->nbots == COMPARE_MAX_SEATS) return -1;
    snprintf(s->bot[s->nbots], sizeof s->bot[0], "%s", name);
    return s->nbots++;
}

/* One logged game into the side's counts. */
static bool count_game(side *s, const jsonl_value *game) {
    const jsonl_value *seats = jsonl_get(game, "seats"), *scores = jsonl_get(game, "scores");
    const jsonl_value *winners = jsonl_get(game, "winners"), *actions = jsonl_get(game, "actions");
    if (!seats || !scores || !winners || !actions || seats->kind != JSONL_ARRAY || scores->kind != JSONL_ARRAY ||
        winners->kind != JSONL_ARRAY || actions->kind != JSONL_ARRAY || scores->count != seats->count ||
        seats->count > COMPARE_MAX_SEATS)
        return false;
    long long alone = -1;
    if (winners->count == 1 && !jsonl_int(&winners->items[0], 1, seats->count, &alone)) return false;
    s->games++;
    s->length_sum += actions->count;
    s->length_sq += (double)actions->count * actions->count;
    if (alone > 0) s->seat_wins[alone - 1]++;
    for (int seat = 0; seat < seats->count; seat++) {
        if (seats->items[seat].kind != JSONL_STRING || scores->items[seat].kind != JSONL_NUMBER) return false;
        int b = bot_index(s, seats->items[seat].string);
        if (b < 0) return false;
        double score = scores->items[seat].number;
        s->bot_games[b]++;
        s->bot_wins[b] += alone == seat + 1;
        s->score_sum[b] += score;
        s->score_sq[b] += score * score;
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
        char err[200];
        jsonl_value *v = jsonl_parse(line, err, sizeof err);
        ok = v && count_game(s, v);
        jsonl_free(v);
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

/* ==================================================================== the report */

typedef struct finding {
    char text[200];
} finding;

static void print_row(const char *label, estimate base, estimate var, bool percent, finding *found, int *nfound,
                      const char *what) {
    double scale = percent ? 100 : 1;
    const char *unit = percent ? "%" : "";
    bool significant = differs(base, var);
    char b[64], v[64];
    snprintf(b, sizeof b, "%.1f%s [%.1f, %.1f]", base.value * scale, unit, base.lo * scale, base.hi * scale);
    snprintf(v, sizeof v, "%.1f%s [%.1f, %.1f]", var.value * scale, unit, var.lo * scale, var.hi * scale);
    printf("%-28s %-24s %-24s %+.1f%s%s\n", label, b, v, (var.value - base.value) * scale, percent ? " points" : "",
           significant ? "  *" : "");
    if (significant && *nfound < 16)
        snprintf(found[(*nfound)++].text, sizeof found[0].text, "%s %s from %.1f%s to %.1f%s", what,
                 var.value > base.value ? "rises" : "falls", base.value * scale, unit, var.value * scale, unit);
}

static void report(const compare_args *a, const side *base, const side *var) {
    finding found[16];
    int nfound = 0;
    printf("%s: base rules against %s, %lld games each, match seed %lld (--seed), seats rotated\n\n", a->game,
           a->variant, base->games, a->seed);
    printf("%-28s %-24s %-24s %s\n", "", "base rules", a->variant, "change");
    char label[80], what[120];
    for (int seat = 0; seat < a->nbots; seat++) {
        snprintf(label, sizeof label, "seat %d win rate", seat + 1);
        snprintf(what, sizeof what, "seat %d's win rate", seat + 1);
        print_row(label, proportion(base->seat_wins[seat], base->games),
                  proportion(var->seat_wins[seat], var->games), true, found, &nfound, what);
    }
    print_row("game length (decisions)", mean(base->length_sum, base->length_sq, base->games),
              mean(var->length_sum, var->length_sq, var->games), false, found, &nfound, "the game's length");
    for (int b = 0; b < base->nbots; b++) {
        side *v = (side *)var;
        int vb = bot_index(v, base->bot[b]);
        if (vb < 0) continue;
        snprintf(label, sizeof label, "%.18s win rate", base->bot[b]);
        snprintf(what, sizeof what, "%s's win rate", base->bot[b]);
        print_row(label, proportion(base->bot_wins[b], base->bot_games[b]),
                  proportion(v->bot_wins[vb], v->bot_games[vb]), true, found, &nfound, what);
        snprintf(label, sizeof label, "%.18s mean score", base->bot[b]);
        snprintf(what, sizeof what, "%s's mean score", base->bot[b]);
        print_row(label, mean(base->score_sum[b], base->score_sq[b], base->bot_games[b]),
                  mean(v->score_sum[vb], v->score_sq[vb], v->bot_games[vb]), false, found, &nfound, what);
    }
    printf("\nIntervals are 95%%; * marks a change beyond chance at 95%%. A win is a game won alone.\n\n");
    if (!nfound) {
        printf("Nothing changed beyond chance over %lld games; more games (--games) would show smaller "
               "effects.\n", base->games);
        return;
    }
    printf("Under %s, ", a->variant);
    for (int i = 0; i < nfound; i++)
        printf("%s%s", found[i].text, i + 2 < nfound ? "; " : i + 1 < nfound ? "; and " : ".\n");
    printf("Everything else is within chance over %lld games.\n", base->games);
}

int compare_main(int argc, char **argv, const cli_options *opts) {
    compare_args a;
    int bad = compare_parse(argc, argv, &a);
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
    side *base = calloc(1, sizeof *base), *var = calloc(1, sizeof *var);
    int status = 0;
    if (!base || !var) {
        fprintf(stderr, "meeple compare: out of memory\n");
        status = 1;
    } else if (!run_match(&a, NULL, base_log, opts) || !run_match(&a, a.variant, variant_log, opts)) {
        /* The match said why on stderr; a bad variant or bot is a bad argument there too. */
        fprintf(stderr, "meeple compare: a match did not finish (see the line above)\n");
        status = 2;
    } else if (!read_log(base_log, base) || !read_log(variant_log, var)) {
        fprintf(stderr, "meeple compare: the match logs could not be read\n");
        status = 1;
    } else {
        report(&a, base, var);
    }
    remove(base_log);
    remove(variant_log);
    rmdir(dir);
    free(base);
    free(var);
    return status;
}
