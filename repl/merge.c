/* merge.c — `meeple merge LOG... [--log OUT] [--json]`: the logs of a match's shards (meeple match
 * --shard K/N) joined into the log one machine would have written, and the table it would have printed.
 *
 * The logs are read as hostile: every line is bounded and checked (matchlog_read), every record must
 * carry the same match (game, bots, seeds, variant, parameters, meeple version), no game may come twice
 * and none may be missing. A first pass checks and indexes; the second reads each record again in game
 * order, plays its game again from its seed and actions (it must give that very record, as for
 * `match --resume`), counts it and copies its bytes: memory grows with the number of games, not their
 * size, and an edited score or action is refused. */
#define _POSIX_C_SOURCE 200809L /* fseeko, fileno */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <jansson.h>

#include "cli.h"
#include "host/matchlog.h"
#include <meeple/registry.h>
#include "host/text.h"

#define MERGE_MAX_LOGS 100000
#define MERGE_MISSING_SHOWN 10
#define MERGE_OPEN_MAX 256

/* Where one game's record is. */
typedef struct merge_entry {
    long long game;        /* 0-based */
    long long line;        /* 1-based, in its file */
    off_t offset;          /* of the line in its file */
    size_t len;            /* without the newline */
    int file;
} merge_entry;

/* A log read line by line in blocks, each line at most MATCHLOG_MAX_LINE bytes. */
typedef struct line_reader {
    FILE *f;
    char *buf;
    size_t pos, fill, cap;
    off_t base;            /* the file offset of buf[0] */
} line_reader;

typedef struct merge {
    char **paths;
    int nfiles;
    const char *out_path;
    bool json;
    merge_entry *entries;
    long long count, cap;
    json_t *id;            /* the first record's identity, and where it was */
    int id_file;
    matchlog_match mm;
    char variant[1024];
    const char *variant_file;  /* --variant: the file to run for a variant the logs name by its path */
    FILE **files;          /* the logs open for the second pass, by file */
    int last_open;
} merge;

/* One line saying what is wrong; status 1: the logs are not one whole match (2 is for arguments). */
#define refuse(...) cli_fail("merge", __VA_ARGS__)

/* ==================================================================================== reading */

/* The next line (no newline) at *line, *len, its offset at *at. 1: a line; 0: the end; -1: longer
 * than the bound; -2: a last line without its newline (cut short); -3: cannot read. */
static int next_line(line_reader *r, const char **line, size_t *len, off_t *at) {
    for (;;) {
        char *nl = r->fill > r->pos ? memchr(r->buf + r->pos, '\n', r->fill - r->pos) : NULL;
        if (nl && (size_t)(nl - (r->buf + r->pos)) > MATCHLOG_MAX_LINE) return -1;
        if (nl) {
            *line = r->buf + r->pos;
            *len = (size_t)(nl - *line);
            *at = r->base + (off_t)r->pos;
            r->pos = (size_t)(nl - r->buf) + 1;
            return 1;
        }
        if (r->fill - r->pos > MATCHLOG_MAX_LINE) return -1;
        if (r->pos) { /* the line begun moves to the front, for the rest of it to follow */
            memmove(r->buf, r->buf + r->pos, r->fill - r->pos);
            r->base += (off_t)r->pos;
            r->fill -= r->pos;
            r->pos = 0;
        }
        if (r->fill == r->cap) {
            size_t cap = r->cap ? r->cap * 2 : 1 << 16;
            char *grown = realloc(r->buf, cap);
            if (!grown) return -3;
            r->buf = grown;
            r->cap = cap;
        }
        size_t got = fread(r->buf + r->fill, 1, r->cap - r->fill, r->f);
        if (got == 0) return ferror(r->f) ? -3 : r->fill ? -2 : 0;
        r->fill += got;
    }
}

/* A checked record of `path`: it belongs to the match of the first one read (or is that one). */
static int take_record(merge *mg, int file, long long lineno, const char *line, size_t len, off_t at) {
    const char *path = mg->paths[file];
    matchlog_game g;
    json_t *id;
    char why[400], field[64];
    json_t *rec = matchlog_read(line, len, &g, &id, why, sizeof why);
    if (!rec) return refuse("%s line %lld: %s", path, lineno, why);
    json_decref(rec);
    if (!mg->id) {
        mg->id = id;
        mg->id_file = file;
    } else {
        bool same = matchlog_same_match(mg->id, id, field, sizeof field);
        json_decref(id);
        if (!same)
            return refuse("%s line %lld is not of the same match as %s: its \"%s\" differs", path, lineno,
                          mg->paths[mg->id_file], field);
    }
    if (mg->count == mg->cap) {
        long long cap = mg->cap ? mg->cap * 2 : 1024;
        merge_entry *grown = realloc(mg->entries, (size_t)cap * sizeof *grown);
        if (!grown) return refuse("out of memory");
        mg->entries = grown;
        mg->cap = cap;
    }
    mg->entries[mg->count++] = (merge_entry){.game = g.game, .line = lineno, .offset = at, .len = len, .file = file};
    return 0;
}

/* First pass over one log: every line checked and indexed. */
static int index_log(merge *mg, int file) {
    const char *path = mg->paths[file];
    char err[600];
    line_reader r = {.f = cli_open_log(path, err, sizeof err)};
    if (!r.f) return refuse("%s", err);
    const char *line;
    size_t len;
    off_t at;
    int status = 0, got;
    long long lineno = 0;
    while (!status && (got = next_line(&r, &line, &len, &at)) == 1) status = take_record(mg, file, ++lineno, line, len, at);
    if (!status && got == -1) status = refuse("%s line %lld: longer than %u bytes", path, lineno + 1, MATCHLOG_MAX_LINE);
    if (!status && got == -2)
        status = refuse("%s line %lld: cut short (the shard was stopped mid-write: meeple match --resume it first)",
                        path, lineno + 1);
    if (!status && got == -3) status = refuse("cannot read the log '%s'", path);
    if (!status && lineno == 0) status = refuse("the log '%s' is empty", path);
    free(r.buf);
    fclose(r.f);
    return status;
}

/* ==================================================================================== checking */

static int by_game(const void *a, const void *b) {
    const merge_entry *x = a, *y = b;
    return (x->game > y->game) - (x->game < y->game);
}

/* Every game once: none twice, none missing (the first few missing are named). */
static int check_games(merge *mg) {
    qsort(mg->entries, (size_t)mg->count, sizeof *mg->entries, by_game);
    for (long long i = 1; i < mg->count; i++) {
        const merge_entry *a = &mg->entries[i - 1], *b = &mg->entries[i];
        if (a->game == b->game)
            return refuse("game %lld is logged twice: %s line %lld and %s line %lld (a shard given twice, or "
                          "overlapping --shard values)", a->game + 1, mg->paths[a->file], a->line, mg->paths[b->file],
                          b->line);
    }
    if (mg->count == mg->mm.games) return 0;
    char shown[400] = "";
    int named = 0;
    long long i = 0;
    for (long long game = 0; game < mg->mm.games && named < MERGE_MISSING_SHOWN; game++) {
        while (i < mg->count && mg->entries[i].game < game) i++;
        if (i < mg->count && mg->entries[i].game == game) continue;
        size_t used = strlen(shown);
        snprintf(shown + used, sizeof shown - used, "%s%lld", named ? ", " : "", game + 1);
        named++;
    }
    return refuse("%lld of the match's %lld games are missing (%s%s): a shard not given, or not finished "
                  "(meeple match --resume it)", mg->mm.games - mg->count, mg->mm.games, shown,
                  mg->mm.games - mg->count > named ? ", ..." : "");
}

/* The match the identity names, for the table. */
static int read_identity(merge *mg) {
    json_t *id = mg->id, *bots = json_object_get(id, "bots"), *variant = json_object_get(id, "variant");
    mg->mm.def = game_find(json_string_value(json_object_get(id, "game")));
    mg->mm.games = (long long)json_integer_value(json_object_get(id, "games"));
    mg->mm.match_seed = (long long)json_integer_value(json_object_get(id, "match_seed"));
    mg->mm.players = (int)json_integer_value(json_object_get(id, "players"));
    /* matchlog_read checked it: every record names a design that seats its players */
    seating_parse(json_string_value(json_object_get(id, "seating")), &mg->mm.seating);
    json_t *sprt = json_object_get(id, "sprt"); /* checked too: null, or the four settings */
    mg->mm.sprt = json_is_object(sprt);
    if (mg->mm.sprt) {
        mg->mm.p0 = json_number_value(json_object_get(sprt, "p0"));
        mg->mm.p1 = json_number_value(json_object_get(sprt, "p1"));
        mg->mm.alpha = json_number_value(json_object_get(sprt, "alpha"));
        mg->mm.beta = json_number_value(json_object_get(sprt, "beta"));
    }
    if (json_is_string(variant)) {
        snprintf(mg->variant, sizeof mg->variant, "%s", json_string_value(variant));
        mg->mm.variant = mg->variant;
    }
    /* A log may come from anyone, so it never chooses which file runs: a variant it names by a path is
     * played only from the file the user passes (--variant FILE); a name is looked up in meeple's
     * folders only (never the current one). */
    bool is_path = mg->mm.variant && (strchr(mg->variant, '/') || strstr(mg->variant, ".lua"));
    if (mg->variant_file && !mg->mm.variant)
        return cli_bad_args("merge", "the logs' games were played under the base rules: --variant is not needed");
    if (is_path && !mg->variant_file)
        return refuse("the logs name their variant by a file's path ('%.200s'); logs name variants by name: pass "
                      "the file with --variant FILE", mg->variant);
    for (int i = 0; i < mg->mm.players; i++)
        snprintf(mg->mm.bots[i], sizeof mg->mm.bots[i], "%s", json_string_value(json_array_get(bots, (size_t)i)));
    return mg->mm.def ? 0 : refuse("the logs' game is unknown");
}

/* ==================================================================================== writing */

/* The log `file`, open for reading. Records alternate between the shards' logs, so all stay open while
 * they are few; past MERGE_OPEN_MAX only the last one used does. */
static FILE *log_file(merge *mg, int file) {
    if (mg->files[file]) return mg->files[file];
    if (mg->nfiles > MERGE_OPEN_MAX && mg->last_open >= 0 && mg->files[mg->last_open]) {
        fclose(mg->files[mg->last_open]);
        mg->files[mg->last_open] = NULL;
    }
    mg->last_open = file;
    char err[600];
    return mg->files[file] = cli_open_log(mg->paths[file], err, sizeof err);
}

/* One record of the second pass, read into buf (e->len + 1 bytes): read again (a file changed since is
 * refused), played again, counted and copied to the merged log. */
static int merge_record(merge *mg, match_checker *checker, matchlog_tally *t, FILE *out, const merge_entry *e,
                        char *buf) {
    FILE *f = log_file(mg, e->file);
    if (!f) return refuse("cannot read the log '%s'", mg->paths[e->file]);
    matchlog_game g;
    json_t *id = NULL, *rec = NULL;
    char why[400], field[64];
    int status = 0;
    bool read = fseeko(f, e->offset, SEEK_SET) == 0 && fread(buf, 1, e->len + 1, f) == e->len + 1 && buf[e->len] == '\n';
    rec = read ? matchlog_read(buf, e->len, &g, &id, why, sizeof why) : NULL;
    if (!rec || g.game != e->game || !matchlog_same_match(mg->id, id, field, sizeof field))
        status = refuse("%s changed while it was merged (line %lld)", mg->paths[e->file], e->line);
    else if (!match_checker_check(checker, buf, e->len, e->game, why, sizeof why))
        status = refuse("%s line %lld: %s", mg->paths[e->file], e->line, why);
    else if (!matchlog_count(t, &g))
        status = refuse("out of memory");
    else if (out && fwrite(buf, 1, e->len + 1, out) != e->len + 1)
        status = refuse("cannot write the merged log '%s'", mg->out_path);
    json_decref(rec);
    json_decref(id);
    return status;
}

/* Second pass: every record in game order. */
static int write_merged(merge *mg, matchlog_tally *t, FILE *out) {
    char err[300];
    match_checker *checker = match_checker_new(&mg->mm, mg->variant_file, err, sizeof err);
    if (!checker) return refuse("cannot play the logged games again to check them: %s", err);
    char *buf = NULL;
    size_t cap = 0;
    int status = 0;
    for (long long i = 0; i < mg->count && !status; i++) {
        const merge_entry *e = &mg->entries[i];
        if (e->len + 1 > cap) {
            char *grown = realloc(buf, e->len + 1);
            if (!grown) {
                status = refuse("out of memory");
                break;
            }
            buf = grown;
            cap = e->len + 1;
        }
        status = merge_record(mg, checker, t, out, e, buf);
    }
    free(buf);
    match_checker_free(checker);
    return status;
}

/* Whether OUT is one of the logs: writing it would destroy what is being read. */
static bool is_an_input(const merge *mg) {
    struct stat o, in;
    if (stat(mg->out_path, &o) != 0) return false;
    for (int i = 0; i < mg->nfiles; i++)
        if (stat(mg->paths[i], &in) == 0 && in.st_dev == o.st_dev && in.st_ino == o.st_ino) return true;
    return false;
}

static int merge_output(merge *mg) {
    matchlog_tally t = {.m = &mg->mm};
    FILE *out = NULL;
    if (mg->out_path && is_an_input(mg)) return refuse("--log '%s' is one of the logs merged", mg->out_path);
    char tmp[4200], err[600];
    if (mg->out_path && !(out = cli_out_open(mg->out_path, tmp, sizeof tmp, err, sizeof err)))
        return refuse("--log: %s", err);
    int status = write_merged(mg, &t, out);
    /* Written beside and renamed on success: a refusal leaves OUT as it was, whatever it was. */
    if (out && !cli_out_commit(out, tmp, mg->out_path, status == 0) && !status)
        status = refuse("cannot write the merged log '%s'", mg->out_path);
    if (!status) {
        matchlog_notes notes = {.shards = 1};
        if (mg->json) matchlog_print_json(stdout, &t);
        else matchlog_print_table(stdout, &t, &notes);
    }
    matchlog_tally_free(&t);
    return status;
}

/* ==================================================================================== main */

static int merge_parse(int argc, char **argv, merge *mg) {
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (strcmp(opt, "--log") == 0) {
            if (i + 1 == argc) return cli_bad_args("merge", "--log needs a value");
            mg->out_path = argv[++i];
        } else if (strcmp(opt, "--variant") == 0) {
            if (i + 1 == argc) return cli_bad_args("merge", "--variant needs a file");
            mg->variant_file = argv[++i];
        } else if (strcmp(opt, "--json") == 0) {
            mg->json = true;
        } else if (opt[0] == '-' && opt[1]) {
            return cli_unknown_option("merge", opt);
        } else if (mg->nfiles == MERGE_MAX_LOGS) {
            return cli_bad_args("merge", "at most %d logs", MERGE_MAX_LOGS);
        } else {
            mg->paths[mg->nfiles++] = argv[i];
        }
    }
    if (mg->nfiles == 0) return cli_bad_args("merge", "which logs? (the --log files of meeple match --shard K/N)");
    return 0;
}

int merge_main(int argc, char **argv, const cli_options *opts) {
    (void)opts;
    size_t most = (size_t)(argc > 0 ? argc : 1);
    merge mg = {.paths = calloc(most, sizeof *mg.paths), .files = calloc(most, sizeof(FILE *)), .last_open = -1};
    if (!mg.paths || !mg.files) {
        free(mg.paths);
        free(mg.files);
        return refuse("out of memory");
    }
    int status = merge_parse(argc, argv, &mg);
    for (int f = 0; f < mg.nfiles && !status; f++) status = index_log(&mg, f);
    if (!status) status = read_identity(&mg);
    if (!status) status = check_games(&mg);
    if (!status) status = merge_output(&mg);
    for (int f = 0; f < mg.nfiles; f++)
        if (mg.files[f]) fclose(mg.files[f]);
    json_decref(mg.id);
    free(mg.entries);
    free(mg.files);
    free(mg.paths);
    return status;
}
