/* extbot.c — external bots (extbot.h): protocol 1 (docs/protocol.md) over a child process (extproc.h).
 *
 * The view is written straight from the game's write_table into jansson, as s:view(seat) is into Lua:
 * the same keys, lists as arrays, maps as objects. A program that answers game_over with "ready" is
 * parked for the next game of the same bot in the same thread; any other is stopped. */
#define _POSIX_C_SOURCE 200809L

#include "bots/extbot.h"
#include "host/timing.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "sandbox/extproc.h"
#include <meeple/rng.h>
#include <meeple/session.h>
#include <meeple/tree.h>
#include "host/tree_json.h"

#define COMMAND_MAX 1024

struct extbot {
    char arg[COMMAND_MAX];
    char name[64];
    const game_def *def;
    param_value params[MEEPLE_MAX_PARAMS];
    double ms;
    size_t memory;
    bool echo;

    extproc *proc;            /* NULL when no game runs */
    int seat, players;
    long long decisions;      /* in this game */
    json_t *seen;             /* the decisions since the last decide, as this seat saw them, or NULL */

    session *samples;         /* a state of this game to re-deal samples in, NULL until asked for one */
    long sample_bytes;        /* save texts sent in this decision */
    int sample_requests;      /* requests in this decision */

    bot_fault fault;
    char reason[512];
    char texts[MEEPLE_MAX_ACTIONS][MEEPLE_ACTION_TEXT]; /* the legal actions' texts, when given as actions */
};

/* =====================================================================================================
 * Commands
 * ===================================================================================================== */

bool extbot_is_command(const char *arg) { return strncmp(arg, EXTBOT_PREFIX, strlen(EXTBOT_PREFIX)) == 0; }

static bool is_executable_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

bool extbot_is_program_file(const char *path) {
    size_t len = strlen(path);
    return !(len >= 4 && strcmp(path + len - 4, ".lua") == 0) && is_executable_file(path);
}

/* Splits the bot argument into argv in `buf`: "exec:" words split on blanks, '…' and "…" quote (no
 * escapes inside); a program file is one word, spaces and all. Never through a shell. The number of
 * words, or -1 with one line in `err`. */
static int split_command(const char *arg, char *buf, size_t bufn, char **argv, char *err, size_t errn) {
    if (!extbot_is_command(arg)) {
        snprintf(buf, bufn, "%s", arg);
        argv[0] = buf;
        argv[1] = NULL;
        return 1;
    }
    const char *p = arg + strlen(EXTBOT_PREFIX);
    size_t used = 0;
    int argc = 0;
    for (;;) {
        while (*p == ' ' || *p == '\t') p++;
        if (!*p) break;
        if (argc == EXTBOT_ARGS_MAX) {
            snprintf(err, errn, "'%.60s...' has more than %d words", arg, EXTBOT_ARGS_MAX);
            return -1;
        }
        argv[argc++] = buf + used;
        char quote = 0;
        for (; *p && (quote || (*p != ' ' && *p != '\t')); p++) {
            if (!quote && (*p == '\'' || *p == '"')) quote = *p;
            else if (quote && *p == quote) quote = 0;
            else if (used + 1 < bufn) buf[used++] = *p;
        }
        if (quote) {
            snprintf(err, errn, "'%.60s': a %c quote is not closed", arg, quote);
            return -1;
        }
        if (used + 1 >= bufn) {
            snprintf(err, errn, "the command '%.60s...' is too long", arg);
            return -1;
        }
        buf[used++] = '\0';
    }
    argv[argc] = NULL;
    if (argc == 0) snprintf(err, errn, "'%s' names no program: write exec:PROGRAM [ARGS]", arg);
    return argc ? argc : -1;
}

/* Whether `program` can be run: a path (it has a '/') to an executable file, else one on PATH. */
static bool program_found(const char *program) {
    if (strchr(program, '/')) return is_executable_file(program);
    const char *path = getenv("PATH");
    if (!path) path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t len = strcspn(path, ":");
        char full[COMMAND_MAX + 256];
        if (len > 0 && len < 256) {
            snprintf(full, sizeof full, "%.*s/%s", (int)len, path, program);
            if (is_executable_file(full)) return true;
        }
        path += len + (path[len] == ':');
    }
    return false;
}

/* The bot's name from its words: the last that names a file (the script), else the program; the file
 * part without its extension. */
static void name_from_words(char **argv, int argc, char *name, size_t namen) {
    const char *word = argv[0];
    struct stat st;
    for (int i = argc - 1; i > 0; i--)
        if (stat(argv[i], &st) == 0 && S_ISREG(st.st_mode)) {
            word = argv[i];
            break;
        }
    const char *base = strrchr(word, '/');
    base = base ? base + 1 : word;
    size_t len = strcspn(base, ".");
    if (len == 0) len = strlen(base);
    snprintf(name, namen, "%.*s", (int)len, base);
}

bool extbot_check(const char *arg, char *name, size_t namen, char *err, size_t errn) {
    char buf[COMMAND_MAX];
    char *argv[EXTBOT_ARGS_MAX + 1];
    if (strlen(arg) >= COMMAND_MAX) {
        snprintf(err, errn, "the bot command '%.60s...' is longer than %d bytes", arg, COMMAND_MAX - 1);
        return false;
    }
    int argc = split_command(arg, buf, sizeof buf, argv, err, errn);
    if (argc < 0) return false;
    if (!program_found(argv[0])) {
        snprintf(err, errn, strchr(argv[0], '/') ? "the bot program '%.200s' is not an executable file"
                                                 : "the bot program '%.200s' is not on PATH (for one here, write ./%.200s)",
                 argv[0], argv[0]);
        return false;
    }
    name_from_words(argv, argc, name, namen);
    return true;
}

/* =====================================================================================================
 * Faults
 * ===================================================================================================== */

static void set_fault(extbot *x, bot_fault f, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Records why the bot is done (the first reason stands) and stops its program at once. */
static void set_fault(extbot *x, bot_fault f, const char *fmt, ...) {
    if (!x->fault) {
        x->fault = f;
        va_list args;
        va_start(args, fmt);
        vsnprintf(x->reason, sizeof x->reason, fmt, args);
        va_end(args);
    }
    extproc_stop(x->proc, 0);
    x->proc = NULL;
}

/* `text` quoted for a reason: control characters as '?', cut at 48 bytes with "...". */
static void quote_cut(char *out, size_t n, const char *text, size_t len) {
    size_t keep = len < 48 ? len : 48, k = 0;
    for (size_t i = 0; i < keep && k + 1 < n; i++) out[k++] = (unsigned char)text[i] < 0x20 ? '?' : text[i];
    snprintf(out + k, n - k, "%s", len > keep ? "..." : "");
}

/* =====================================================================================================
 * Messages
 * ===================================================================================================== */

static void view_source(const game_def *def, const void *st, int seat, tree_writer *w) {
    def->write_table(st, seat, w);
}
static void cards_source(const game_def *def, const void *st, int seat, tree_writer *w) {
    (void)seat;
    if (def->write_cards) def->write_cards(st, w);
    else w->open_map(w), w->close(w);
}

/* The game's parameters as JSON: integers and booleans as such, choices by name, the rest as the text
 * `meeple rules` shows. */
static json_t *params_json(const extbot *x) {
    json_t *o = json_object();
    for (int i = 0; o && i < x->def->num_params; i++) {
        const param_def *p = &x->def->params[i];
        const param_value *v = &x->params[i];
        json_t *value;
        if (v->count == 0) {
            value = json_null();
        } else if (p->kind == PARAM_INT && v->count == 1) {
            value = json_integer(v->v[0]);
        } else if (p->kind == PARAM_BOOL) {
            value = json_boolean(v->v[0]);
        } else {
            char text[512];
            params_value_text(x->def, i, v, text, sizeof text);
            value = json_string(text);
        }
        json_object_set_new(o, p->name, value);
    }
    return o;
}

static json_t *int_array(const int *v, int n, int plus) {
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++) json_array_append_new(a, json_integer(v[i] + plus));
    return a;
}

/* `msg` (consumed) as one line of compact JSON, newline included; NULL when out of memory. */
static char *message_line(json_t *msg, size_t *len) {
    char *text = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
    json_decref(msg);
    *len = text ? strlen(text) : 0;
    char *line = text ? realloc(text, *len + 2) : NULL;
    if (!line) {
        free(text);
        return NULL;
    }
    line[(*len)++] = '\n';
    line[*len] = '\0';
    return line;
}

/* Sends `msg` (consumed) as one line; when `want_line`, waits for the answer line until `deadline`.
 * False when the bot is done (the fault set). */
static bool send(extbot *x, json_t *msg, bool want_line, double deadline, const char *what) {
    size_t len;
    char *line = message_line(msg, &len);
    if (!line) {
        set_fault(x, BOT_MEMORY, "the host ran out of memory writing %s", what);
        return false;
    }
    extproc_result r = extproc_exchange(x->proc, line, len, want_line, deadline);
    free(line);
    char end[480], when[64];
    switch (r) {
    case EXTPROC_DONE:
        return true;
    case EXTPROC_LATE:
        if (x->decisions <= 1)
            set_fault(x, BOT_TIME, "did not %s %s within the time limit (%.0f ms per decision, and %.0f ms to "
                      "start)", want_line ? "answer" : "read", what, x->ms, EXTBOT_START_MS);
        else
            set_fault(x, BOT_TIME, "exceeded the time limit (%.0f ms per decision)", x->ms);
        return false;
    case EXTPROC_LONG:
        set_fault(x, BOT_ANSWER, "answered a line longer than %d bytes", EXTPROC_LINE_MAX);
        return false;
    case EXTPROC_EARLY:
        set_fault(x, BOT_ANSWER, "answered before it was asked (at %s): it does not read its input, or wrote "
                  "more than one line an answer", what);
        return false;
    case EXTPROC_STOPPED:
        set_fault(x, BOT_ERROR, "was stopped: the match was interrupted");
        return false;
    case EXTPROC_CLOSED:
        snprintf(when, sizeof when, "at %s", what);
        extproc_describe_end(x->proc, when, end, sizeof end);
        set_fault(x, BOT_ERROR, "%s", end);
        return false;
    }
    return false;
}

static json_t *message(const char *type) {
    json_t *o = json_object();
    if (o) json_object_set_new(o, "type", json_string(type));
    return o;
}

/* =====================================================================================================
 * The bot
 * ===================================================================================================== */

extbot *extbot_new(const char *arg, const char *name, const game_def *def, const param_value *params, double ms,
                   size_t memory, bool echo) {
    extbot *x = calloc(1, sizeof *x);
    if (!x) return NULL;
    snprintf(x->arg, sizeof x->arg, "%s", arg);
    snprintf(x->name, sizeof x->name, "%s", name);
    x->def = def;
    memcpy(x->params, params, sizeof *params * (size_t)def->num_params); /* the rest stays zero */
    x->ms = ms;
    x->memory = memory;
    x->echo = echo;
    return x;
}

/* The program for a new game: one parked by this thread after an earlier game of this bot, else a new one. */
static bool start(extbot *x) {
    extproc_stop(x->proc, EXTBOT_EXIT_MS); /* a game left without game_over */
    x->proc = extproc_unpark(x->arg, x->echo);
    if (x->proc) return true;
    char buf[COMMAND_MAX], err[300];
    char *argv[EXTBOT_ARGS_MAX + 1];
    if (split_command(x->arg, buf, sizeof buf, argv, err, sizeof err) >= 0)
        x->proc = extproc_start(argv, x->arg, x->name, x->echo, x->memory, err, sizeof err);
    if (!x->proc) set_fault(x, BOT_ERROR, "%s", err);
    return x->proc != NULL;
}

/* A new game: the program started (or unparked) and sent `hello`. */
static bool ext_begin(void *self, const void *st, int seat, uint64_t seed) {
    extbot *x = self;
    json_decref(x->seen);
    x->seen = NULL;
    if (x->fault || !start(x)) return false;
    x->seat = seat;
    x->players = x->def->num_players(st);
    x->decisions = 0;
    json_t *hello = message("hello");
    if (hello) {
        json_object_set_new(hello, "protocol", json_integer(EXTBOT_PROTOCOL));
        json_object_set_new(hello, "game", json_string(x->def->name));
        json_object_set_new(hello, "seat", json_integer(seat + 1));
        json_object_set_new(hello, "players", json_integer(x->players));
        json_object_set_new(hello, "params", params_json(x));
        json_object_set_new(hello, "ms", json_integer((json_int_t)x->ms));
        json_object_set_new(hello, "start_ms", json_integer((json_int_t)EXTBOT_START_MS));
        json_object_set_new(hello, "line_max", json_integer(EXTPROC_LINE_MAX));
        json_object_set_new(hello, "sample_max", json_integer(EXTBOT_SAMPLE_MAX));
        json_object_set_new(hello, "sample_bytes", json_integer(EXTBOT_SAMPLE_BYTES));
        json_object_set_new(hello, "sample_requests", json_integer(EXTBOT_SAMPLE_REQUESTS));
        /* Like ctx.rng: derived one-way, so it tells nothing of the deal or of another seat's. */
        uint64_t own = rng_derive(seed, (uint64_t)seat * 2 + 1) & ((UINT64_C(1) << 53) - 1);
        json_object_set_new(hello, "seed", json_integer((json_int_t)own));
        json_object_set_new(hello, "cards", tree_json(cards_source, x->def, st, seat));
    }
    return send(x, hello, false, timing_now_ms() + EXTBOT_START_MS, "hello");
}

/* The answer line's index among texts (trimmed: a number from 1, or a text exactly), or -1 with the
 * fault set. */
static int read_answer(extbot *x, const char *s, size_t len, const char (*texts)[MEEPLE_ACTION_TEXT], int n) {
    int k = -1;
    char quoted[64];
    quote_cut(quoted, sizeof quoted, s, len);
    if (len > 0 && strspn(s, "0123456789") == len) {
        long index = len <= 9 ? strtol(s, NULL, 10) : 0;
        if (index >= 1 && index <= n) k = (int)index - 1;
        else set_fault(x, BOT_ANSWER, "answered %s, which is not a number from 1 to %d", quoted, n);
        return k;
    }
    for (int i = 0; i < n && k < 0; i++)
        if (strlen(texts[i]) == len && memcmp(s, texts[i], len) == 0) k = i;
    if (k < 0 && len == 0) set_fault(x, BOT_ANSWER, "answered an empty line");
    else if (k < 0) set_fault(x, BOT_ANSWER, "chose '%s', which is not a legal action", quoted);
    return k;
}

/* The answer line, trimmed of spaces, tabs and a \r around it (valid until the next exchange). */
static char *take_trimmed(extbot *x, size_t *len) {
    char *s = extproc_take_line(x->proc, len);
    while (*len && (*s == ' ' || *s == '\t')) s++, (*len)--;
    while (*len && (s[*len - 1] == ' ' || s[*len - 1] == '\t' || s[*len - 1] == '\r')) s[--*len] = '\0';
    return s;
}

/* =====================================================================================================
 * Samples: a bot's request for positions consistent with its view
 * ===================================================================================================== */

/* The request's n and seed, or false with the fault set. */
static bool read_request(extbot *x, const char *line, size_t len, int *n, uint64_t *seed) {
    char quoted[64];
    quote_cut(quoted, sizeof quoted, line, len);
    json_t *req = json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL);
    json_t *type = json_object_get(req, "type"), *jn = json_object_get(req, "n"), *js = json_object_get(req, "seed");
    bool ok = false;
    if (!json_is_object(req) || !json_is_string(type))
        set_fault(x, BOT_ANSWER, "answered '%s', which is neither a legal action nor a request", quoted);
    else if (strcmp(json_string_value(type), "sample") != 0)
        set_fault(x, BOT_ANSWER, "made a request of type '%.40s': the only request is \"sample\"",
                  json_string_value(type));
    else if (!json_is_integer(jn) || json_integer_value(jn) < 1 || json_integer_value(jn) > EXTBOT_SAMPLE_MAX)
        set_fault(x, BOT_ANSWER, "asked for samples with n not a whole number from 1 to %d (sample_max): '%s'",
                  EXTBOT_SAMPLE_MAX, quoted);
    else if (!json_is_integer(js) || json_integer_value(js) < 0 || json_integer_value(js) > MEEPLE_SEED_MAX)
        set_fault(x, BOT_ANSWER, "asked for samples with seed not a whole number from 0 to 2^53-1: '%s'", quoted);
    else if (++x->sample_requests > EXTBOT_SAMPLE_REQUESTS)
        set_fault(x, BOT_ANSWER, "made more than %d sample requests in one decision (sample_requests)",
                  EXTBOT_SAMPLE_REQUESTS);
    else {
        *n = (int)json_integer_value(jn);
        *seed = (uint64_t)json_integer_value(js);
        ok = true;
    }
    json_decref(req);
    return ok;
}

/* The `samples` reply to a request: n positions of `st` with what this seat cannot see re-dealt, as
 * save texts, sample i from (seed, i) alone; NULL with the fault set. The re-dealing state holds the
 * true one only meanwhile. */
static json_t *samples_reply(extbot *x, const void *st, const char *line, size_t len) {
    int n;
    uint64_t seed;
    if (!read_request(x, line, len, &n, &seed)) return NULL;
    if (!x->samples || x->samples->players != x->players) {
        meeple_reason why = {{0}};
        session_free(x->samples);
        x->samples = session_new(x->def, x->players, x->params, 1, &why);
        if (!x->samples) {
            set_fault(x, BOT_ERROR, "the host could not make a state for samples: %s", why.text);
            return NULL;
        }
    }
    session *t = x->samples;
    size_t size = x->def->state_size;
    json_t *saves = json_array();
    for (int i = 0; saves && i < n; i++) {
        memcpy(t->now, st, size);
        memcpy(t->start, st, size);
        t->history_len = 0;
        session_sample(t, x->seat, rng_derive(seed, (uint64_t)i) & (uint64_t)MEEPLE_SEED_MAX);
        char *text = session_save(t);
        if (!text || json_array_append_new(saves, json_string(text)) != 0) {
            json_decref(saves);
            saves = NULL;
        }
        x->sample_bytes += text ? (long)strlen(text) : 0;
        free(text);
    }
    memset(t->now, 0, size);
    memset(t->start, 0, size);
    if (!saves) {
        set_fault(x, BOT_MEMORY, "the host ran out of memory writing samples");
        return NULL;
    }
    if (x->sample_bytes > EXTBOT_SAMPLE_BYTES) {
        json_decref(saves);
        set_fault(x, BOT_ANSWER, "asked for more than %ld bytes of samples in one decision (sample_bytes)",
                  EXTBOT_SAMPLE_BYTES);
        return NULL;
    }
    json_t *reply = message("samples");
    if (reply) json_object_set_new(reply, "saves", saves);
    else json_decref(saves);
    return reply;
}

/* Kept for the next decide's `seen`. */
static void ext_saw(void *self, int player, const char *text) {
    extbot *x = self;
    if (x->fault || !x->proc) return;
    if (!x->seen) x->seen = json_array();
    json_t *entry = json_object();
    if (entry) {
        json_object_set_new(entry, "player", json_integer(player + 1));
        json_object_set_new(entry, "action", json_string(text));
    }
    json_array_append_new(x->seen, entry); /* out of memory: that entry is lost, nothing else */
}

/* Sends `decide` (the view of `st`, the legal texts[0..n)) and reads the answer's index; -1 when the
 * bot is done (it answered late, garbage or not at all, or exited; the process is gone). */
static int choose(extbot *x, const void *st, const char (*texts)[MEEPLE_ACTION_TEXT], int n) {
    if (x->fault) return -1;
    if (!x->proc) {
        set_fault(x, BOT_ERROR, "error: asked to choose before a game began (bot_begin)");
        return -1;
    }
    double now = timing_now_ms(), deadline = now + x->ms;
    double first = extproc_started(x->proc) + EXTBOT_START_MS + x->ms;
    if (x->decisions++ == 0 && first > deadline) deadline = first;
    json_t *decide = message("decide");
    json_t *legal = json_array();
    json_t *view = tree_json(view_source, x->def, st, x->seat);
    for (int i = 0; legal && i < n; i++) json_array_append_new(legal, json_string(texts[i]));
    if (decide && legal && view) {
        json_object_set_new(decide, "decision", json_integer(x->decisions));
        if (x->def->turn) json_object_set_new(decide, "turn", json_integer(x->def->turn(st)));
        json_object_set_new(decide, "ms_left", json_integer((json_int_t)(deadline - now)));
        json_object_set_new(decide, "legal", legal);
        json_object_set_new(decide, "view", view);
        json_object_set_new(decide, "seen", x->seen ? x->seen : json_array());
        x->seen = NULL;
    } else { /* message_line says it, as out of memory */
        json_decref(decide);
        json_decref(legal);
        json_decref(view);
        decide = NULL;
    }
    char what[48];
    snprintf(what, sizeof what, "decision %lld", x->decisions);
    if (!send(x, decide, true, deadline, what)) return -1;
    /* Requests until the action, all within the decision's time: the deadline does not move. */
    x->sample_bytes = 0;
    x->sample_requests = 0;
    size_t len;
    char *line = take_trimmed(x, &len);
    while (len && line[0] == '{') {
        json_t *reply = samples_reply(x, st, line, len);
        if (!reply || !send(x, reply, true, deadline, what)) return -1;
        line = take_trimmed(x, &len);
    }
    return read_answer(x, line, len, texts, n);
}

/* The answer is read for a probe too: the program writes one all the same. */
static int ext_decide(void *self, const bot_decision *d) {
    extbot *x = self;
    for (int i = 0; d->acts && i < d->n; i++) x->def->action_text(d->st, d->acts[i], x->texts[i]);
    return choose(x, d->st, d->acts ? (const char(*)[MEEPLE_ACTION_TEXT])x->texts : d->texts, d->n);
}

/* Sends `game_over`; "ready" back parks the program for the next game, anything else stops it. */
static void ext_end(void *self, const int *scores, const int *winners, int nwinners) {
    extbot *x = self;
    if (x->fault || !x->proc) return;
    json_t *over = message("game_over");
    if (over) {
        json_object_set_new(over, "scores", int_array(scores, x->players, 0));
        json_object_set_new(over, "winners", int_array(winners, nwinners, 1));
    }
    /* "ready" back: it plays the next game too; anything else, or nothing, and it is stopped (no fault:
     * the game is over). */
    size_t len = 0;
    char *line = message_line(over, &len);
    bool ready = false;
    if (line && extproc_exchange(x->proc, line, len, true, timing_now_ms() + EXTBOT_EXIT_MS) == EXTPROC_DONE) {
        char *answer = extproc_take_line(x->proc, &len);
        ready = strcmp(answer, "ready") == 0 || strcmp(answer, "ready\r") == 0;
    }
    free(line);
    if (ready) extproc_park(x->proc);
    else extproc_stop(x->proc, EXTBOT_EXIT_MS);
    x->proc = NULL;
}

static bot_fault ext_fault(const void *self) { return ((const extbot *)self)->fault; }
static const char *ext_reason(const void *self) { return ((const extbot *)self)->reason; }

/* An external bot's memory is its own process's, out of the host's count. */
static size_t ext_memory(const void *self, size_t *peak) {
    (void)self;
    if (peak) *peak = 0;
    return 0;
}

static void ext_free(void *self) {
    extbot *x = self;
    if (!x) return;
    json_decref(x->seen);
    session_free(x->samples);
    extproc_stop(x->proc, EXTBOT_EXIT_MS);
    free(x);
}

const bot_ops extbot_ops = {
    .begin = ext_begin, .decide = ext_decide, .saw = ext_saw, .end = ext_end,
    .fault = ext_fault, .reason = ext_reason, .memory = ext_memory, .free = ext_free,
};
