/* test_conformance.c — one test over every registered game and player count: seeded random games in
 * which, after every decision, the game's invariants hold (every card exactly once), check() accepts
 * exactly what legal() lists (in every position: legal() is each game's own direct generator, check()
 * the rules' authority) and refuses the rest with a reason and without touching the state,
 * action text round-trips (and each text key always means one text), check on texts accepts exactly
 * legal()'s texts (misspellings refused: canonical actions only), no history shows another seat the
 * names of a decision its view hides (public_text), the game_def gives everything a host needs,
 * clone equals original, same seed and actions give the same game, views
 * do not change when hidden cards are re-dealt, sample() keeps the view and changes the truth and reads
 * nothing else (from the truth and from a sample of it, one seed deals one state), undo
 * restores the exact state, save/load round-trips, a finished game has no legal actions, and playouts
 * (random games played in C for search bots) are games like any other.
 *
 * Usage: test_conformance [GAMES_PER_COUNT] (default 1000). Games run long in some games (a random
 * Bohnanza game takes about 1,800 decisions, a Babel game 90): a game and player count stops early
 * once its games have taken GAMES_PER_COUNT x 600 decisions, after 20 games at least. */
#include <stdlib.h>
#include <string.h>

#include "lua/action_texts.h"
#include "check.h"
#include <meeple/registry.h>
#include <meeple/session.h>
#include "rules/rules.h" /* split_words */

typedef struct run_context {
    const game_def *def;
    int players;
    uint64_t seed;
    int step;
    long decisions; /* over the games of this game and player count */
} run_context;

#define DECISIONS_PER_GAME 600
#define MIN_GAMES 20

#define WHERE "%s, %d players, seed %llu, decision %d: "
#define AT(c) (c)->def->name, (c)->players, (unsigned long long)(c)->seed, (c)->step

static char *table_text(const game_def *def, const void *st, int viewer) {
    text_writer t;
    text_writer_init(&t);
    def->write_table(st, viewer, &t.base);
    return t.buf; /* the caller frees */
}

/* A set of actions for one position: open addressing, emptied in O(1) by a new stamp, so comparing
 * legal() with check() over the whole action space costs a few nanoseconds an action. */
#define SET_SLOTS 8192 /* a power of two, over twice MEEPLE_MAX_SPACE */
typedef struct action_set {
    uint32_t stamp;
    uint32_t mark[SET_SLOTS];
    action_t key[SET_SLOTS];
} action_set;

static void set_clear(action_set *s) { s->stamp++; }

static size_t set_slot(const action_set *s, action_t a) {
    size_t i = (size_t)((a * 2654435761u) >> 19) & (SET_SLOTS - 1);
    while (s->mark[i] == s->stamp && s->key[i] != a) i = (i + 1) & (SET_SLOTS - 1);
    return i;
}

static bool set_has(const action_set *s, action_t a) { return s->mark[set_slot(s, a)] == s->stamp; }

/* Adds `a`; false when it was there already. */
static bool set_add(action_set *s, action_t a) {
    size_t i = set_slot(s, a);
    if (s->mark[i] == s->stamp) return false;
    s->mark[i] = s->stamp;
    s->key[i] = a;
    return true;
}

/* check() accepts exactly the actions legal() lists, over every action of the grammar here, and legal()
 * lists none twice. Run on every position: with `reasons`, also every refusal gives a reason, asking
 * for one does not change the answer, and no check touches the state. */
static void check_agrees_with_legal(const run_context *c, void *st, const action_t *legal, int n, bool reasons) {
    const game_def *def = c->def;
    static action_t space[MEEPLE_MAX_SPACE];
    static action_set listed, seen;
    char text[MEEPLE_ACTION_TEXT];
    int m = def->action_space(st, space);
    unsigned char *before = malloc(def->state_size);
    memcpy(before, st, def->state_size);
    set_clear(&listed);
    set_clear(&seen);
    for (int i = 0; i < n; i++) {
        if (set_add(&listed, legal[i])) continue;
        def->action_text(st, legal[i], text);
        CHECK(false, WHERE "legal() lists '%s' twice", AT(c), text);
    }
    int accepted = 0;
    for (int i = 0; i < m; i++) {
        if (!set_add(&seen, space[i])) continue; /* the space may name an action twice */
        bool ok = def->check(st, space[i], NULL);
        accepted += ok;
        if (ok == set_has(&listed, space[i]) && !reasons) continue;
        def->action_text(st, space[i], text);
        CHECK(ok == set_has(&listed, space[i]), WHERE "check says %s for '%s' but legal() %s it",
              AT(c), ok ? "yes" : "no", text, ok ? "omits" : "lists");
        reason why = {{0}};
        CHECK(def->check(st, space[i], &why) == ok, WHERE "check('%s') answers otherwise when asked why",
              AT(c), text);
        if (!ok) CHECK(why.text[0] != '\0', WHERE "'%s' refused without a reason", AT(c), text);
        CHECK(memcmp(before, st, def->state_size) == 0, WHERE "check('%s') changed the state", AT(c), text);
    }
    /* Every accepted action is listed, and none twice: equal counts make the sets equal. */
    for (int i = 0; i < n; i++) {
        if (set_has(&seen, legal[i])) continue;
        def->action_text(st, legal[i], text);
        CHECK(false, WHERE "legal action '%s' is not in the action space", AT(c), text);
    }
    CHECK(accepted == n, WHERE "check accepts %d actions, legal() lists %d", AT(c), accepted, n);
    CHECK(memcmp(before, st, def->state_size) == 0, WHERE "a check changed the state", AT(c));
    free(before);
}

/* Every text key (game.h text_key) met in a game's runs, with its text, both ways: hosts intern one
 * string per key (core/lua/action_texts.h), so a key must always mean the same text and a text one key. */
#define TEXT_SLOTS (1 << 17) /* a power of two; filled at most half */
typedef struct text_keys {
    const game_def *def;
    int count;
    bool used[TEXT_SLOTS], text_used[TEXT_SLOTS];
    uint32_t key[TEXT_SLOTS], text_key[TEXT_SLOTS]; /* text_key[j]: the key of the text hashed to j */
    char text[TEXT_SLOTS][MEEPLE_ACTION_TEXT];       /* text[i]: the text of key[i] */
} text_keys;

static text_keys seen_texts;

static size_t key_slot(const text_keys *t, uint32_t key) {
    size_t i = (size_t)((key * 2654435761u) >> 15) & (TEXT_SLOTS - 1);
    while (t->used[i] && t->key[i] != key) i = (i + 1) & (TEXT_SLOTS - 1);
    return i;
}

static size_t text_slot(const text_keys *t, const char *text) {
    uint32_t h = 2166136261u;
    for (const char *p = text; *p; p++) h = (h ^ (unsigned char)*p) * 16777619u;
    size_t i = h & (TEXT_SLOTS - 1);
    while (t->text_used[i] && strcmp(t->text[key_slot(t, t->text_key[i])], text) != 0) i = (i + 1) & (TEXT_SLOTS - 1);
    return i;
}

static void text_key_holds(const run_context *c, const void *st, action_t a, const char *text) {
    text_keys *t = &seen_texts;
    if (t->def != c->def) {
        memset(t, 0, sizeof *t);
        t->def = c->def;
    }
    uint32_t key = action_text_key(c->def, st, a);
    size_t k = key_slot(t, key), j = text_slot(t, text);
    if (t->used[k])
        CHECK(strcmp(t->text[k], text) == 0, WHERE "text key %#x means '%s' here and '%s' elsewhere", AT(c), key,
              text, t->text[k]);
    if (t->text_used[j])
        CHECK(t->text_key[j] == key, WHERE "'%s' has text keys %#x and %#x", AT(c), text, key, t->text_key[j]);
    if (t->used[k] || t->count >= TEXT_SLOTS / 2) return;
    t->used[k] = true;
    t->key[k] = key;
    size_t len = strlen(text); /* action_text writes at most MEEPLE_ACTION_TEXT bytes */
    if (len >= MEEPLE_ACTION_TEXT) len = MEEPLE_ACTION_TEXT - 1;
    memcpy(t->text[k], text, len);
    t->text[k][len] = '\0';
    t->text_used[j] = true;
    t->text_key[j] = key;
    t->count++;
}

/* Every legal action prints to a distinct text that parses back to itself, and its text key stands
 * for that text alone. */
static void action_text_round_trips(const run_context *c, const void *st, const action_t *legal, int n) {
    char texts[MEEPLE_MAX_ACTIONS][MEEPLE_ACTION_TEXT];
    for (int i = 0; i < n; i++) {
        c->def->action_text(st, legal[i], texts[i]);
        text_key_holds(c, st, legal[i], texts[i]);
        action_t back;
        reason why;
        CHECK(c->def->parse_action(st, texts[i], &back, &why), WHERE "'%s' does not parse: %s", AT(c),
              texts[i], why.text);
        CHECK(back == legal[i], WHERE "'%s' parses to another action", AT(c), texts[i]);
        for (int j = 0; j < i; j++)
            CHECK(strcmp(texts[i], texts[j]) != 0, WHERE "two legal actions print as '%s'", AT(c), texts[i]);
    }
}

/* Whether `text` is one of the n texts. */
static bool among(const char *text, const char (*texts)[MEEPLE_ACTION_TEXT], int n) {
    for (int i = 0; i < n; i++)
        if (strcmp(text, texts[i]) == 0) return true;
    return false;
}

/* Writes into `out` the forms of `text` a lenient parser might take for it: a leading zero or '+'
 * before its first number, a tab or two blanks for its first blank, blanks around it, and an '@'
 * qualifier added or taken away. Returns how many. */
static int misspellings(const char *text, char (*out)[2 * MEEPLE_ACTION_TEXT]) {
    int k = 0;
    size_t len = strlen(text), digit = strcspn(text, "0123456789"), blank = strcspn(text, " ");
    const char *at = strstr(text, " @");
    if (digit < len) {
        snprintf(out[k++], sizeof out[0], "%.*s0%s", (int)digit, text, text + digit);
        snprintf(out[k++], sizeof out[0], "%.*s+%s", (int)digit, text, text + digit);
    }
    if (blank < len) {
        snprintf(out[k++], sizeof out[0], "%.*s\t%s", (int)blank, text, text + blank + 1);
        snprintf(out[k++], sizeof out[0], "%.*s  %s", (int)blank, text, text + blank + 1);
    }
    snprintf(out[k++], sizeof out[0], "%s ", text);
    snprintf(out[k++], sizeof out[0], " %s", text);
    if (at) {
        snprintf(out[k++], sizeof out[0], "%.*s", (int)(at - text), text);
    } else {
        snprintf(out[k++], sizeof out[0], "%s @1", text);
        snprintf(out[k++], sizeof out[0], "%s @2", text);
    }
    return k;
}

/* A refusal that suggests a form (`did you mean 'X'`, `as in X` at its end) suggests one check() accepts:
 * a suggestion built from the words as typed ("sword 1" to oneself, "sword 02") would be refused too. */
static void suggestion_is_accepted(const run_context *c, const session *s, const char *refused, const char *why) {
    char x[MEEPLE_ACTION_TEXT] = "";
    const char *mean = strstr(why, "did you mean '"), *as_in = strstr(why, "as in ");
    if (mean) snprintf(x, sizeof x, "%.*s", (int)strcspn(mean + 14, "'"), mean + 14);
    else if (as_in) snprintf(x, sizeof x, "%s", as_in + 6);
    else return;
    reason again;
    CHECK(session_check_text(s, x, NULL, &again), WHERE "'%s' is refused suggesting '%s', which check() refuses: %s",
          AT(c), refused, x, again.text);
}

/* Canonical actions only: check(text) is true exactly for the texts legal() lists, over the texts of
 * the whole action space and misspellings of the legal ones (a refusal naming the canonical text). */
static void check_accepts_only_legal_texts(const run_context *c, const session *s, const action_t *legal, int n) {
    const game_def *def = c->def;
    static char texts[MEEPLE_MAX_ACTIONS][MEEPLE_ACTION_TEXT];
    static action_t space[MEEPLE_MAX_SPACE];
    char text[MEEPLE_ACTION_TEXT], forms[8][2 * MEEPLE_ACTION_TEXT];
    reason why;
    for (int i = 0; i < n; i++) {
        def->action_text(s->now, legal[i], texts[i]);
        CHECK(session_check_text(s, texts[i], NULL, &why), WHERE "check('%s') refuses a legal action: %s", AT(c),
              texts[i], why.text);
    }
    int m = def->action_space(s->now, space);
    for (int i = 0; i < m; i++) {
        def->action_text(s->now, space[i], text);
        bool accepted = session_check_text(s, text, NULL, &why);
        CHECK(accepted == among(text, texts, n), WHERE "check('%s') disagrees with legal()", AT(c), text);
        if (!accepted) suggestion_is_accepted(c, s, text, why.text);
        char *at = strstr(text, " @"); /* without its field: "sword 1" to oneself, with two Sword fields */
        if (!at || among(text, texts, n)) continue;
        *at = '\0';
        if (!session_check_text(s, text, NULL, &why)) suggestion_is_accepted(c, s, text, why.text);
    }
    for (int i = 0; i < n; i++) {
        int k = misspellings(texts[i], forms);
        for (int j = 0; j < k; j++) {
            if (among(forms[j], texts, n)) continue; /* "cast luck" may be legal beside "cast luck @2" */
            why.text[0] = '\0';
            CHECK(!session_check_text(s, forms[j], NULL, &why), WHERE "check accepts '%s', which legal() does not list",
                  AT(c), forms[j]);
            CHECK(why.text[0] != '\0', WHERE "'%s' refused without a reason", AT(c), forms[j]);
            suggestion_is_accepted(c, s, forms[j], why.text);
        }
    }
}

/* Every refusal names the rule that refuses: none over the action space falls back on a catch-all. */
static const char *const catch_all[] = {"that is not possible now", "no such action", "not possible", "illegal",
                                        "that is not legal", "not allowed"};

static void refusals_name_their_rule(const run_context *c, const void *st) {
    static action_t space[MEEPLE_MAX_SPACE];
    char text[MEEPLE_ACTION_TEXT];
    int m = c->def->action_space(st, space);
    for (int i = 0; i < m; i++) {
        reason why = {{0}};
        if (c->def->check(st, space[i], &why)) continue;
        for (size_t k = 0; k < sizeof catch_all / sizeof catch_all[0]; k++) {
            if (strcmp(why.text, catch_all[k]) != 0) continue;
            c->def->action_text(st, space[i], text);
            CHECK(false, WHERE "'%s' is refused with a catch-all reason: %s", AT(c), text, why.text);
        }
    }
}

/* The views of every player but the decider after `a`, one text: what the others can tell of it. */
static char *others_views(const game_def *def, const void *st, action_t a, int players, void *after) {
    memcpy(after, st, def->state_size);
    def->apply(after, a);
    size_t len = 0;
    char *all = NULL;
    for (int v = 0; v < players; v++) {
        if (v == def->to_move(st)) continue;
        char *view = table_text(def, after, v);
        size_t more = strlen(view);
        all = realloc(all, len + more + 2);
        memcpy(all + len, view, more);
        len += more;
        all[len++] = '\n';
        all[len] = '\0';
        free(view);
    }
    return all;
}

/* Whether two action texts start with the same word ("stop" and "done" may do the same, in the open). */
static bool same_verb(const char *a, const char *b) {
    size_t n = strcspn(a, " ");
    return n == strcspn(b, " ") && strncmp(a, b, n) == 0;
}

/* `text` with each number written '#': positions and seats are public (hand sizes are), names are not. */
static void names_only(const char *text, char *out) {
    for (; *text; text++) {
        bool digit = *text >= '0' && *text <= '9';
        if (!digit || text[1] < '0' || text[1] > '9') *out++ = digit ? '#' : *text;
    }
    *out = '\0';
}

/* Secret decisions stay secret: two legal actions that leave every other player's view the same changed
 * only what the decider alone sees, so the history must not show anyone else different names for them
 * (public_text), or it would tell what the views hide (Citadels' "choose architect" by the last to
 * choose, "keep library"). Numbers may differ: a hand position is public, which card lies there is not
 * ("pick 3" names the copy that moves, in the open). The decider and the whole table see the action. */
static void public_text_hides_what_views_hide(const run_context *c, const void *st, const action_t *legal, int n) {
    const game_def *def = c->def;
    int mover = def->to_move(st);
    void *after = malloc(def->state_size);
    char **seen = malloc(sizeof *seen * (size_t)n);
    static char shown[MEEPLE_MAX_PLAYERS][MEEPLE_MAX_ACTIONS][MEEPLE_PUBLIC_TEXT];
    static char texts[MEEPLE_MAX_ACTIONS][MEEPLE_ACTION_TEXT];
    char mine[MEEPLE_PUBLIC_TEXT];
    for (int i = 0; i < n; i++) {
        char *text = texts[i];
        def->action_text(st, legal[i], text);
        game_public_text(def, st, legal[i], mover, mine);
        CHECK(strcmp(mine, text) == 0, WHERE "the decider sees '%s' as '%s'", AT(c), text, mine);
        game_public_text(def, st, legal[i], -1, mine);
        CHECK(strcmp(mine, text) == 0, WHERE "the whole table sees '%s' as '%s'", AT(c), text, mine);
        seen[i] = others_views(def, st, legal[i], c->players, after);
        for (int v = 0; v < c->players; v++) {
            if (v == mover) continue;
            game_public_text(def, st, legal[i], v, shown[v][i]);
            CHECK(shown[v][i][0] != '\0', WHERE "player %d sees nothing of '%s'", AT(c), v + 1, text);
            char name_i[MEEPLE_PUBLIC_TEXT], name_j[MEEPLE_PUBLIC_TEXT];
            names_only(shown[v][i], name_i);
            for (int j = 0; j < i; j++) {
                names_only(shown[v][j], name_j);
                if (strcmp(seen[i], seen[j]) != 0 || !same_verb(texts[i], texts[j])) continue;
                CHECK(strcmp(name_i, name_j) == 0,
                      WHERE "no other player's view tells these apart, yet player %d's history shows '%s' and '%s'",
                      AT(c), v + 1, shown[v][j], shown[v][i]);
            }
        }
    }
    for (int i = 0; i < n; i++) free(seen[i]);
    free(seen);
    free(after);
}

/* An unknown word is answered with the game's own words: every word a legal action of the game
 * begins with (over all its runs), and only words its grammar knows. */
#define MAX_WORDS 64
static struct {
    const game_def *def;
    int n;
    char word[MAX_WORDS][24];
} seen_words;

static void note_words(const run_context *c, const void *st, const action_t *legal, int n) {
    if (seen_words.def != c->def) memset(&seen_words, 0, sizeof seen_words), seen_words.def = c->def;
    char text[MEEPLE_ACTION_TEXT];
    for (int i = 0; i < n; i++) {
        c->def->action_text(st, legal[i], text);
        text[strcspn(text, " ")] = '\0';
        int k = 0;
        while (k < seen_words.n && strcmp(seen_words.word[k], text) != 0) k++;
        if (k == seen_words.n && k < MAX_WORDS && strlen(text) < sizeof seen_words.word[0])
            strcpy(seen_words.word[seen_words.n++], text);
    }
}

static void unknown_word_lists_the_games_words(const game_def *def, int players) {
    param_value params[MEEPLE_MAX_PARAMS];
    params_defaults(def, params);
    reason why;
    session *s = session_new(def, players, params, 1, &why);
    CHECK(s, "%s: session_new failed: %s", def->name, why.text);
    action_t a;
    CHECK(!def->parse_action(s->now, "xyzzy 1", &a, &why), "%s: 'xyzzy 1' parses", def->name);
    CHECK(strncmp(why.text, "unknown action 'xyzzy'; ", 24) == 0, "%s: an unknown word's answer does not name it: %s",
          def->name, why.text);
    const char *list = strstr(why.text, "actions: ");
    CHECK(list, "%s: an unknown word is not answered with the game's words: %s", def->name, why.text);
    char listed[sizeof why.text + 2], *words[MAX_WORDS]; /* words apart by commas or blanks */
    snprintf(listed, sizeof listed, "%s", list + strlen("actions: "));
    for (char *p = listed; *p; p++) *p = *p == ',' ? ' ' : *p;
    int count = split_words(listed, words, MAX_WORDS);
    CHECK(count > 0, "%s: the unknown-word answer lists no words: %s", def->name, why.text);
    for (int k = 0; k < seen_words.n; k++) {
        int i = 0;
        while (i < count && strcmp(words[i], seen_words.word[k]) != 0) i++;
        CHECK(i < count, "%s: the unknown-word answer lacks '%s': %s", def->name, seen_words.word[k], why.text);
    }
    for (int i = 0; i < count; i++) { /* each listed word is one the grammar knows */
        reason bare;
        if (!def->parse_action(s->now, words[i], &a, &bare))
            CHECK(strstr(bare.text, "actions: ") == NULL, "%s: '%s' is listed but is an unknown word", def->name,
                  words[i]);
    }
    session_free(s);
}

static int sample_runs, sample_changes;

/* A sample is a function of what its viewer knows and the draws alone: from the truth and from a state
 * the viewer cannot tell from it (`world`, a sample of it), the same draws deal the same state, byte for
 * byte. A sampler that shuffled the hidden cards from their true order would fail here: whoever knows
 * the draws could undo its shuffle and read them. */
static void sample_reads_only_the_view(const run_context *c, const void *st, const void *world, int p) {
    const game_def *def = c->def;
    void *a = malloc(def->state_size), *b = malloc(def->state_size);
    memcpy(a, st, def->state_size);
    memcpy(b, world, def->state_size);
    rng ra, rb;
    rng_seed(&ra, c->seed << 20 ^ (uint64_t)c->step << 4 ^ (uint64_t)p, 11); /* the game's draws stay as they were */
    rb = ra;
    def->sample(a, p, &ra);
    def->sample(b, p, &rb);
    if (memcmp(a, b, def->state_size) != 0 || ra.state != rb.state) {
        char *from_truth = table_text(def, a, -1), *from_world = table_text(def, b, -1);
        CHECK(false, WHERE "player %d's sample reads the truth: from it and from a sample of it, one seed gives\n%s\n%s",
              AT(c), p + 1, from_truth, from_world);
    }
    free(a);
    free(b);
}

/* Re-dealing what a player cannot see changes nothing they see, and (over a game) does change the
 * truth: a sampler that hands back the real hidden cards would fail here. */
static void views_hide_what_sample_redeals(const run_context *c, const void *st, rng *r) {
    const game_def *def = c->def;
    void *sampled = malloc(def->state_size);
    char *truth = table_text(def, st, -1);
    for (int p = 0; p < c->players; p++) {
        memcpy(sampled, st, def->state_size);
        def->sample(sampled, p, r);
        reason why;
        if (!def->validate(sampled, &why)) {
            char *broken = table_text(def, sampled, -1);
            CHECK(false, WHERE "a sample for player %d is broken: %s\ntruth:  %s\nsample: %s", AT(c), p + 1, why.text,
                  truth, broken);
        }
        char *seen = table_text(def, st, p), *seen_in_sample = table_text(def, sampled, p);
        CHECK(strcmp(seen, seen_in_sample) == 0, WHERE "player %d's view differs in a sample:\n%s\n%s",
              AT(c), p + 1, seen, seen_in_sample);
        sample_reads_only_the_view(c, st, sampled, p);
        char *sampled_truth = table_text(def, sampled, -1);
        sample_runs++;
        sample_changes += strcmp(truth, sampled_truth) != 0;
        free(seen);
        free(seen_in_sample);
        free(sampled_truth);
    }
    free(truth);
    free(sampled);
}

/* A new game from `seed` with every decision of `s` played again. */
/* A game's score() (optional) is its scores() for one seat. */
static void one_score_is_all_scores(const run_context *c, const void *st) {
    if (!c->def->score) return;
    int scores[MEEPLE_MAX_PLAYERS];
    c->def->scores(st, scores);
    for (int p = 0; p < c->players; p++)
        CHECK(c->def->score(st, p) == scores[p], WHERE "score(%d) is %d, scores() says %d", AT(c), p,
              c->def->score(st, p), scores[p]);
}

/* A game's playout_worths (optional) is its playout_worth for every legal action at once. */
static void all_worths_are_each_worth(const run_context *c, const void *st, const action_t *legal, int n) {
    if (!c->def->playout_worths) return;
    int worths[MEEPLE_MAX_ACTIONS];
    c->def->playout_worths(st, legal, n, worths);
    rng r;
    rng_seed(&r, c->seed, 7); /* playout_worths is for a policy that draws nothing */
    for (int i = 0; i < n; i++) {
        int one = c->def->playout_worth(st, legal[i], &r);
        if (worths[i] != one) {
            char text[MEEPLE_ACTION_TEXT];
            c->def->action_text(st, legal[i], text);
            CHECK(false, WHERE "playout_worths gives '%s' %d, playout_worth %d", AT(c), text, worths[i], one);
        }
    }
}

/* A game's playout_pick (optional) chooses as the host does from playout_worths: the first of the
 * highest, each action as good as the best before it drawn for (rng_below of the ties so far), the
 * same draws from the same generator, for several generators. */
static void pick_is_the_host_choice(const run_context *c, const void *st, const action_t *legal, int n) {
    if (!c->def->playout_pick || n < 2) return;
    int worths[MEEPLE_MAX_ACTIONS];
    c->def->playout_worths(st, legal, n, worths);
    for (uint64_t k = 0; k < 3; k++) {
        rng host, game;
        rng_seed(&host, c->seed + k, 11);
        game = host;
        int best = 0, ties = 1;
        for (int i = 1; i < n; i++) {
            if (worths[i] > worths[best]) best = i, ties = 1;
            else if (worths[i] == worths[best] && rng_below(&host, (uint32_t)++ties) == 0) best = i;
        }
        int picked = c->def->playout_pick(st, legal, n, &game);
        char text[MEEPLE_ACTION_TEXT], want[MEEPLE_ACTION_TEXT];
        c->def->action_text(st, legal[picked >= 0 && picked < n ? picked : 0], text);
        c->def->action_text(st, legal[best], want);
        CHECK(picked == best, WHERE "playout_pick takes '%s', the host's choice is '%s'", AT(c), text, want);
        CHECK(memcmp(&host, &game, sizeof host) == 0, WHERE "playout_pick drew otherwise than the host", AT(c));
    }
}

/* A game's playout_choose (optional) names with no list the action playout_pick takes from legal()'s
 * (from a list of one, the host's draw: rng_below(1)), with the same draws from the same generator;
 * where it declines, it draws nothing. */
static long chosen_without_list; /* positions where it named one: none would leave it untested */

static void choose_is_the_pick(const run_context *c, const void *st, const action_t *legal, int n) {
    if (!c->def->playout_choose) return;
    for (uint64_t k = 0; k < 3; k++) {
        rng host, game;
        rng_seed(&host, c->seed + k, 13);
        game = host;
        action_t named = 0;
        if (!c->def->playout_choose(st, &game, &named)) {
            CHECK(memcmp(&host, &game, sizeof host) == 0, WHERE "playout_choose declined, but drew", AT(c));
            continue;
        }
        chosen_without_list++;
        action_t picked = legal[n > 1 ? c->def->playout_pick(st, legal, n, &host) : (int)rng_below(&host, 1)];
        char text[MEEPLE_ACTION_TEXT], want[MEEPLE_ACTION_TEXT];
        c->def->action_text(st, named, text);
        c->def->action_text(st, picked, want);
        CHECK(named == picked, WHERE "playout_choose takes '%s', playout_pick '%s'", AT(c), text, want);
        CHECK(memcmp(&host, &game, sizeof host) == 0, WHERE "playout_choose drew otherwise than playout_pick", AT(c));
    }
}

static session *replayed(const session *s, const param_value *params, uint64_t seed) {
    reason why;
    session *again = session_new(s->def, s->players, params, seed, &why);
    CHECK(again, "%s: session_new failed: %s", s->def->name, why.text);
    for (int i = 0; i < s->history_len; i++)
        CHECK(session_play(again, s->history[i].action, &why), "%s: replay: %s", s->def->name, why.text);
    return again;
}

/* Plays one game at random, checking everything after every decision. */
static void play_one(run_context *c, bool thorough) {
    const game_def *def = c->def;
    param_value params[MEEPLE_MAX_PARAMS];
    params_defaults(def, params);
    reason why;
    session *s = session_new(def, c->players, params, c->seed, &why);
    CHECK(s, WHERE "session_new failed: %s", AT(c), why.text);
    rng r;
    rng_seed(&r, c->seed, 99);
    static action_t legal[MEEPLE_MAX_ACTIONS];
    size_t size = def->state_size;
    int cap = 64, count = 0;
    unsigned char *snapshots = malloc(size * (size_t)cap);
    void *twin = malloc(size);
    for (c->step = 0;; c->step++) {
        CHECK(def->validate(s->now, &why), WHERE "invariant broken: %s", AT(c), why.text);
        one_score_is_all_scores(c, s->now);
        if (count == cap) snapshots = realloc(snapshots, size * (size_t)(cap *= 2));
        memcpy(snapshots + size * (size_t)count++, s->now, size);
        int n = def->legal(s->now, legal);
        CHECK(n >= 0 && n <= MEEPLE_MAX_ACTIONS, WHERE "legal() returned %d", AT(c), n);
        if (def->is_over(s->now)) {
            CHECK(n == 0 && def->to_move(s->now) == -1, WHERE "a finished game still has %d actions", AT(c), n);
            int winners[MEEPLE_MAX_PLAYERS];
            CHECK(def->winners(s->now, winners) >= 1, WHERE "a finished game has no winner", AT(c));
            break;
        }
        CHECK(n > 0, WHERE "a running game has no legal action", AT(c));
        CHECK(c->step < 100000, WHERE "the game does not end", AT(c));
        check_agrees_with_legal(c, s->now, legal, n, thorough);
        all_worths_are_each_worth(c, s->now, legal, n);
        pick_is_the_host_choice(c, s->now, legal, n);
        choose_is_the_pick(c, s->now, legal, n);
        action_text_round_trips(c, s->now, legal, n);
        if (thorough && c->step % 5 == 0) check_accepts_only_legal_texts(c, s, legal, n);
        if (thorough && c->step % 7 == 0) views_hide_what_sample_redeals(c, s->now, &r);
        if (thorough && c->step % 11 == 3) public_text_hides_what_views_hide(c, s->now, legal, n);
        if (thorough) refusals_name_their_rule(c, s->now);
        note_words(c, s->now, legal, n);
        action_t a = legal[rng_below(&r, (uint32_t)n)];
        c->decisions++;
        memcpy(twin, s->now, size); /* a clone is a copy: the same action gives the same bytes */
        def->apply(twin, a);
        CHECK(session_play(s, a, &why), WHERE "a legal action was refused: %s", AT(c), why.text);
        CHECK(memcmp(twin, s->now, size) == 0, WHERE "a clone diverged from its original", AT(c));
    }

    /* The same seed and the same actions give the same game, bit for bit. */
    session *again = replayed(s, params, c->seed);
    CHECK(memcmp(again->now, s->now, size) == 0, WHERE "replaying the same seed and actions differs", AT(c));
    session_free(again);

    /* Saving and loading rebuild the game exactly. */
    char *text = session_save(s);
    session *loaded = session_load(text, &why);
    CHECK(loaded, WHERE "a save does not load: %s\n%s", AT(c), why.text, text);
    CHECK(memcmp(loaded->now, s->now, size) == 0 && loaded->history_len == s->history_len,
          WHERE "a loaded save differs from the game", AT(c));
    session_free(loaded);
    free(text);

    /* Undo restores the exact state of every earlier decision. */
    while (s->history_len > 0) {
        int back = 1 + (int)rng_below(&r, 5);
        session_undo(s, back);
        CHECK(memcmp(s->now, snapshots + size * (size_t)s->history_len, size) == 0,
              WHERE "undo to decision %d does not restore it", AT(c), s->history_len);
    }
    free(twin);
    free(snapshots);
    session_free(s);
}

/* session_playout, the search bots' inner loop: random, partly and wholly greedy games end in a valid
 * state, every decision in the history (a replay from the seed reaches the same bytes), and a limit
 * stops it exactly. */
static void playouts_are_games(const game_def *def, int players, int games) {
    param_value params[MEEPLE_MAX_PARAMS];
    params_defaults(def, params);
    CHECK(def->state_size <= MEEPLE_MAX_STATE, "%s: a state of %zu bytes is over MEEPLE_MAX_STATE", def->name,
          def->state_size);
    for (int i = 0; i < games; i++) {
        reason why;
        session *s = session_new(def, players, params, (uint64_t)i + 1, &why);
        rng r;
        rng_seed(&r, (uint64_t)i, 7);
        CHECK(session_playout(s, &r, 5, 0.5) == 5 && s->history_len == 5, "%s: a playout of 5 decisions", def->name);
        static const double greedy[] = {0.0, 0.3, 1.0}; /* 1: the game's playout policy alone must end it */
        int played = session_playout(s, &r, -1, greedy[i % 3]);
        CHECK(played > 0 && def->is_over(s->now) && s->history_len == played + 5,
              "%s, seed %d: a playout stopped short", def->name, i + 1);
        CHECK(def->validate(s->now, &why), "%s, seed %d: a playout broke an invariant: %s", def->name, i + 1,
              why.text);
        session *again = replayed(s, params, (uint64_t)i + 1);
        CHECK(memcmp(again->now, s->now, def->state_size) == 0, "%s, seed %d: a playout's history does not replay",
              def->name, i + 1);
        session_free(again);
        session_free(s);
    }
}

/* playout_choose at the positions a search's playouts reach and others: games where a decision is
 * playout_pick's or, one in `random_every`, random (random games seldom fill a field and greedy ones
 * harvest it at once: a field full while a deal is built, when the free actions after the builder's
 * weigh most, needs both). */
static void choose_along_greedy_games(const game_def *def, int players, int games, int random_every) {
    if (!def->playout_choose) return;
    param_value params[MEEPLE_MAX_PARAMS];
    params_defaults(def, params);
    for (int i = 0; i < games; i++) {
        reason why;
        run_context c = {def, players, (uint64_t)i + 1, 0, 0};
        session *s = session_new(def, players, params, c.seed, &why);
        CHECK(s, "%s: session_new failed: %s", def->name, why.text);
        rng r;
        rng_seed(&r, c.seed, 17);
        action_t legal[MEEPLE_MAX_ACTIONS];
        for (int n; !def->is_over(s->now) && (n = def->legal(s->now, legal)) > 0; c.step++) {
            choose_is_the_pick(&c, s->now, legal, n);
            bool random = rng_below(&r, (uint32_t)random_every) == 0;
            int at = random ? (int)rng_below(&r, (uint32_t)n) : n > 1 ? def->playout_pick(s->now, legal, n, &r) : 0;
            def->apply(s->now, legal[at]);
        }
        session_free(s);
    }
}

/* A game that forgets what the others see of an action, or whether it hides anything, is refused by
 * name: the registry's check is what holds every game here to it. */
static void a_game_must_say_what_others_see(void) {
    game_def forgot = *meeple_games[0];
    forgot.public_text = NULL;
    const char *missing = game_def_problem(&forgot);
    CHECK(missing && strstr(missing, "public_text"), "a game_def without public_text passes: %s", missing ? missing : "");
    forgot = *meeple_games[0];
    forgot.information = INFORMATION_UNSAID;
    missing = game_def_problem(&forgot);
    CHECK(missing && strstr(missing, "hidden information"), "a game_def that does not say whether it has hidden "
          "information passes: %s", missing ? missing : "");
}

/* A playout hook is held to another: playout_pick to the host's scan of playout_worths, playout_choose
 * to playout_pick. A game that gives the hook without the other has nothing the conformance check
 * could hold it to, and is refused by name. */
static bool gives_pick(const game_def *def) { return def->playout_pick; }
static void forget_worths(game_def *def) { def->playout_worths = NULL; }
static bool gives_choose(const game_def *def) { return def->playout_choose; }
static void forget_pick(game_def *def) { def->playout_pick = NULL; }

static void a_playout_hook_needs_what_it_is_held_to(void) {
    static const struct {
        const char *hook, *other;
        bool (*given)(const game_def *);
        void (*forget_other)(game_def *);
    } hooks[] = {{"playout_pick", "playout_worths", gives_pick, forget_worths},
                 {"playout_choose", "playout_pick", gives_choose, forget_pick}};
    for (size_t h = 0; h < sizeof hooks / sizeof hooks[0]; h++) {
        int g = 0;
        while (g < meeple_game_count && !hooks[h].given(meeple_games[g])) g++;
        CHECK(g < meeple_game_count, "no game gives a %s, so the registry's check on it is not tested", hooks[h].hook);
        game_def forgot = *meeple_games[g];
        hooks[h].forget_other(&forgot);
        const char *missing = game_def_problem(&forgot);
        CHECK(missing && strstr(missing, hooks[h].hook), "%s: a %s without %s passes", forgot.name, hooks[h].hook,
              hooks[h].other);
    }
}

int main(int argc, char **argv) {
    int games = argc > 1 ? atoi(argv[1]) : 1000;
    a_game_must_say_what_others_see();
    a_playout_hook_needs_what_it_is_held_to();
    for (int g = 0; g < meeple_game_count; g++) {
        const game_def *def = meeple_games[g];
        const char *missing = game_def_problem(def);
        CHECK(!missing, "%s: the game_def gives no %s", def->name, missing);
        for (int players = def->min_players; players <= def->max_players; players++) {
            run_context c = {def, players, 0, 0, 0};
            sample_runs = sample_changes = 0;
            chosen_without_list = 0;
            int played = 0;
            for (int i = 0; i < games; i++) {
                if (i >= MIN_GAMES && c.decisions >= (long)games * DECISIONS_PER_GAME) break;
                c.seed = (uint64_t)i + 1;
                play_one(&c, i % 5 == 0); /* the exhaustive checks on a fifth of the games */
                played++;
            }
            playouts_are_games(def, players, played / 10 + 1);
            choose_along_greedy_games(def, players, played / 4 + 1, 3);
            unknown_word_lists_the_games_words(def, players);
            CHECK(!def->playout_choose || chosen_without_list > 0,
                  "%s, %d players: playout_choose never named an action, so nothing held it to playout_pick",
                  def->name, players);
            CHECK(sample_changes * 2 > sample_runs, "%s: only %d of %d samples differ from the truth",
                  def->name, sample_changes, sample_runs);
            printf("%s, %d players: %d games (%ld decisions) conform (%d of %d samples re-dealt hidden cards)\n",
                   def->name, players, played, c.decisions, sample_changes, sample_runs);
        }
    }
    return 0;
}
