/* search.c — the ISMCTS engine (search.h): the tree in one pool of nodes grown geometrically, the walk,
 * the playouts in C and the backup, with the reference's draws and tie-breaks. */
#include "host/search.h"
#include "host/playout.h"
#include "host/timing.h"
#include <meeple/session.h>

#include <math.h>
#include <pthread.h>
#include <string.h>

#define DRAW_SEED 0x7fffffff

/* log(k) of the small counts, k < SMALL_LOGS: the selection takes the log of every offered child's
 * availability at every step, some twenty a Rabohnzel iteration, and libm's log was a fifteenth of the
 * search's own cost there. The table holds log's own results, so the choices stay the same, bit for
 * bit, as the reference's math.log. */
enum { SMALL_LOGS = 4096 };
static double small_logs[SMALL_LOGS];
static pthread_once_t small_logs_once = PTHREAD_ONCE_INIT;

static void fill_small_logs(void) {
    for (int k = 0; k < SMALL_LOGS; k++) small_logs[k] = log((double)k);
}

static inline double log_count(uint32_t k) { return k < SMALL_LOGS ? small_logs[k] : log((double)k); }

void search_init(search_tree *t, const game_def *def, int players, const search_config *cfg,
                 const search_hooks *hooks, rng *draws) {
    pthread_once(&small_logs_once, fill_small_logs);
    memset(t, 0, sizeof *t);
    t->def = def;
    t->players = players;
    t->cfg = *cfg;
    t->hooks = *hooks;
    t->draws = draws;
}

static void release(search_tree *t, void **p, size_t bytes) {
    if (*p) t->hooks.alloc(t->hooks.ud, *p, bytes, 0);
    *p = NULL;
}

void search_free(search_tree *t) {
    release(t, (void **)&t->nodes, sizeof *t->nodes * (size_t)t->cap);
    release(t, (void **)&t->slot_key, sizeof *t->slot_key * t->slots);
    release(t, (void **)&t->slot_stamp, sizeof *t->slot_stamp * t->slots);
    release(t, (void **)&t->slot_node, sizeof *t->slot_node * t->slots);
    release(t, (void **)&t->root_text, sizeof *t->root_text * (size_t)t->root_text_cap);
    release(t, (void **)&t->st, t->def->state_size);
    release(t, (void **)&t->spare, t->def->state_size);
    t->cap = t->count = t->root_text_cap = 0;
    t->slots = 0;
}

/* Grows the block at *p from `old` to `new` bytes (its contents kept), or calls out_of_memory. The
 * pointer is updated before anything can longjmp, so search_free always frees what is held. */
static void grow(search_tree *t, void **p, size_t old, size_t new) {
    void *q = t->hooks.alloc(t->hooks.ud, *p, *p ? old : 0, new);
    if (!q) t->hooks.out_of_memory(t->hooks.ud);
    *p = q;
}

static int32_t new_node(search_tree *t, int32_t parent, uint32_t key, int player) {
    if (t->count == t->cap) {
        if (t->cap > INT32_MAX / 2) t->hooks.out_of_memory(t->hooks.ud);
        int32_t cap = t->cap ? t->cap * 2 : 1024;
        grow(t, (void **)&t->nodes, sizeof *t->nodes * (size_t)t->cap, sizeof *t->nodes * (size_t)cap);
        t->cap = cap;
    }
    int32_t i = t->count++;
    t->nodes[i] = (search_node){.key = key, .parent = parent, .first_child = -1, .last_child = -1,
                                .next_sibling = -1, .player = player};
    if (parent >= 0) {
        search_node *p = &t->nodes[parent];
        if (p->last_child >= 0) t->nodes[p->last_child].next_sibling = i;
        else p->first_child = i;
        p->last_child = i;
        p->children++;
    }
    return i;
}

/* ---- the children of one node by key: open addressing over stamped slots ---- */

static uint32_t slot_of(const search_tree *t, uint32_t key) { return (key * 0x9e3779b1u) & (t->slots - 1); }

/* Makes the slots the children of `node`; at least twice as many slots as children. */
static void index_children(search_tree *t, int32_t node) {
    uint32_t need = (uint32_t)t->nodes[node].children * 2;
    if (need > t->slots) {
        uint32_t slots = t->slots ? t->slots : 256;
        while (slots < need) slots *= 2;
        /* Their contents are rebuilt below: all three are freed first and t->slots is their new size
         * before any is asked for, so a refusal between them leaves search_free the right sizes. */
        release(t, (void **)&t->slot_key, sizeof *t->slot_key * t->slots);
        release(t, (void **)&t->slot_node, sizeof *t->slot_node * t->slots);
        release(t, (void **)&t->slot_stamp, sizeof *t->slot_stamp * t->slots);
        t->slots = slots;
        grow(t, (void **)&t->slot_key, 0, sizeof *t->slot_key * slots);
        grow(t, (void **)&t->slot_node, 0, sizeof *t->slot_node * slots);
        grow(t, (void **)&t->slot_stamp, 0, sizeof *t->slot_stamp * slots);
        memset(t->slot_stamp, 0, sizeof *t->slot_stamp * slots);
        t->stamp = 0;
    }
    if (++t->stamp == 0) { /* wrapped: every stamp is stale again */
        memset(t->slot_stamp, 0, sizeof *t->slot_stamp * t->slots);
        t->stamp = 1;
    }
    for (int32_t c = t->nodes[node].first_child; c >= 0; c = t->nodes[c].next_sibling) {
        uint32_t key = t->nodes[c].key, i = slot_of(t, key);
        while (t->slot_stamp[i] == t->stamp) i = (i + 1) & (t->slots - 1);
        t->slot_stamp[i] = t->stamp;
        t->slot_key[i] = key;
        t->slot_node[i] = c;
    }
}

/* The child indexed with this key, or -1. */
static int32_t child_with(const search_tree *t, uint32_t key) {
    for (uint32_t i = slot_of(t, key); t->slot_stamp[i] == t->stamp; i = (i + 1) & (t->slots - 1))
        if (t->slot_key[i] == key) return t->slot_node[i];
    return -1;
}

static uint32_t key_of(const game_def *def, const void *st, action_t a) {
    return def->text_key ? def->text_key(st, a) : a;
}

/* 1..n from the search's generator: ctx.rng(n)'s draw. */
static uint32_t draw(search_tree *t, uint32_t n) {
    int64_t v = 1;
    rng_between(t->draws, 1, n, &v);
    return (uint32_t)v;
}

/* ---- rewards ---- */

/* How much the score lead of seat p is worth, from 0 to 1 (a lead of `scale` about 0.76). */
static double lead_worth(const int *scores, int p, int players, double scale) {
    int best_other = INT32_MIN;
    bool any = false;
    for (int q = 0; q < players; q++)
        if (q != p && (!any || scores[q] > best_other)) best_other = scores[q], any = true;
    double lead = any ? (double)(-(scores[p] - best_other)) : -HUGE_VAL;
    return 1 / (1 + exp(lead / scale * 1.15));
}

void search_rewards(const game_def *def, const void *st, int players, double margin, double scale, double *r) {
    int winners[MEEPLE_MAX_PLAYERS], nw = 0;
    bool over = def->is_over(st);
    if (over) nw = def->winners(st, winners);
    if (over && margin == 0) {
        for (int p = 0; p < players; p++) r[p] = 0;
        for (int i = 0; i < nw; i++) r[winners[i]] = 1.0 / nw;
        return;
    }
    int scores[MEEPLE_MAX_PLAYERS] = {0};
    def->scores(st, scores);
    for (int p = 0; p < players; p++) r[p] = lead_worth(scores, p, players, scale);
    if (over) {
        for (int p = 0; p < players; p++) r[p] = margin * r[p];
        for (int i = 0; i < nw; i++) r[winners[i]] = r[winners[i]] + (1 - margin) / nw;
    }
}

/* ---- one iteration ---- */

/* The end of one playout scored: a finished game by its result, an unfinished one by the hook when
 * there is one, else by the score lead. */
static void score_end(search_tree *t, const void *st, double *r) {
    if (t->hooks.evaluate && !t->def->is_over(st) && t->hooks.evaluate(t->hooks.ud, st, r)) return;
    search_rewards(t->def, st, t->players, t->cfg.margin, t->cfg.scale, r);
}

/* One playout of at most `depth` decisions, in stretches between which the clock is read: false when
 * abandoned at cfg.abandon_at. The stretches draw from `r` as one call would. */
static bool play_out(search_tree *t, void *st, rng *r, int depth) {
    int played = 0;
    while (played < depth) {
        int stretch = t->cfg.abandon_at > 0 && depth - played > SEARCH_CLOCK_DECISIONS ? SEARCH_CLOCK_DECISIONS
                                                                                        : depth - played;
        int n = state_playout(t->def, st, r, stretch, t->cfg.greedy);
        t->decisions += n;
        played += n;
        if (n < stretch) break; /* over, or stuck */
        if (t->cfg.abandon_at > 0 && played < depth && timing_now_ms() > t->cfg.abandon_at) return false;
    }
    return true;
}

/* play_out, its time counted in t->playout_ms: the decisions alone (the scoring of the end and its
 * hook are the search's own). */
static bool timed_play_out(search_tree *t, void *st, rng *r, int depth) {
    double before = timing_now_ms();
    bool done = play_out(t, st, r, depth);
    t->playout_ms += timing_now_ms() - before;
    return done;
}

/* The mean rewards of cfg.playouts playouts from t->st (the last plays on t->st itself); false when
 * one was abandoned. */
static bool playouts(search_tree *t, double *mean) {
    const game_def *def = t->def;
    int depth = t->cfg.playout_depth < 0 ? SEARCH_PLAYOUT_CAP : t->cfg.playout_depth, k = t->cfg.playouts;
    double r[MEEPLE_MAX_PLAYERS];
    rng pr;
    for (int p = 0; p < t->players; p++) mean[p] = 0;
    for (int i = 1; i <= k; i++) {
        unsigned char *game = t->st;
        if (i < k) {
            memcpy(t->spare, t->st, def->state_size);
            game = t->spare;
        }
        rng_seed(&pr, draw(t, DRAW_SEED), SESSION_PLAYOUT_STREAM);
        if (!timed_play_out(t, game, &pr, depth)) return false;
        score_end(t, game, r);
        for (int p = 0; p < t->players; p++) mean[p] = mean[p] + r[p] / k;
    }
    return true;
}

/* Whether a node visited `visits` times takes a new child, `tried` of this deal's actions having one and
 * `untried` not. */
static bool may_expand(const search_tree *t, uint32_t visits, int tried, int untried) {
    if (untried == 0) return false;
    if (t->cfg.widen <= 0) return true;
    double most = ceil(t->cfg.widen * sqrt((double)visits));
    return tried < (most < 1 ? 1 : most);
}

/* Which untried action of acts[0..n) (child[i] < 0) a new node tries. */
static int pick_untried(search_tree *t, const action_t *acts, const int32_t *child, int n, int untried) {
    const game_def *def = t->def;
    if (t->hooks.prior) {
        double weights[MEEPLE_MAX_ACTIONS];
        t->hooks.prior(t->hooks.ud, t->st, acts, n, weights);
        int best = -1;
        for (int i = 0; i < n; i++)
            if (child[i] < 0 && (best < 0 || weights[i] > weights[best])) best = i;
        return best;
    }
    if (t->cfg.widen > 0 || t->cfg.expand_policy) {
        bool tried[MEEPLE_MAX_ACTIONS];
        for (int i = 0; i < n; i++) tried[i] = child[i] >= 0;
        rng rr;
        rng_seed(&rr, draw(t, DRAW_SEED), SESSION_RANKED_STREAM);
        return state_first_ranked(def, t->st, &rr, acts, n, tried);
    }
    uint32_t k = draw(t, (uint32_t)untried);
    for (int i = 0; i < n; i++)
        if (child[i] < 0 && --k == 0) return i;
    return -1;
}

/* A root child's text, kept for the answer (the root's actions are the searching seat's own). */
static void keep_root_text(search_tree *t, action_t a) {
    int32_t nth = t->nodes[0].children - 1;
    if (nth >= t->root_text_cap) {
        int32_t cap = t->root_text_cap ? t->root_text_cap * 2 : 64;
        grow(t, (void **)&t->root_text, sizeof *t->root_text * (size_t)t->root_text_cap,
             sizeof *t->root_text * (size_t)cap);
        t->root_text_cap = cap;
    }
    t->def->action_text(t->st, a, t->root_text[nth]);
}

static void iterate(search_tree *t) {
    const game_def *def = t->def;
    action_t acts[MEEPLE_MAX_ACTIONS];
    int32_t child[MEEPLE_MAX_ACTIONS];
    t->hooks.deal(t->hooks.ud, t->st);
    int32_t node = 0;
    int n = def->is_over(t->st) ? 0 : def->legal(t->st, acts);
    while (n > 0) {
        int untried = 0;
        if (t->nodes[node].children) index_children(t, node);
        for (int i = 0; i < n; i++) {
            child[i] = t->nodes[node].children ? child_with(t, key_of(def, t->st, acts[i])) : -1;
            if (child[i] >= 0) t->nodes[child[i]].avail++;
            else untried++;
        }
        if (may_expand(t, t->nodes[node].visits, n - untried, untried)) {
            int i = pick_untried(t, acts, child, n, untried);
            int32_t made = new_node(t, node, key_of(def, t->st, acts[i]), def->to_move(t->st));
            t->nodes[made].avail = 1;
            if (node == 0) keep_root_text(t, acts[i]);
            def->apply(t->st, acts[i]);
            node = made;
            break;
        }
        int best = -1;
        double best_ucb = 0, c = t->cfg.c;
        for (int i = 0; i < n; i++) {
            if (child[i] < 0) continue; /* (with widening, not every action offered has a child yet) */
            const search_node *ch = &t->nodes[child[i]];
            double visits = ch->visits;
            double ucb = ch->wins / visits + c * sqrt(log_count(ch->avail) / visits);
            if (best < 0 || ucb > best_ucb) best = i, best_ucb = ucb;
        }
        def->apply(t->st, acts[best]);
        node = child[best];
        n = def->is_over(t->st) ? 0 : def->legal(t->st, acts);
    }
    double r[MEEPLE_MAX_PLAYERS];
    bool done = playouts(t, r);
    t->now = timing_now_ms();
    if (!done) {
        t->abandoned = true;
        return;
    }
    for (; node >= 0; node = t->nodes[node].parent) {
        search_node *at = &t->nodes[node];
        at->visits++;
        if (at->player >= 0) at->wins = at->wins + r[at->player];
    }
}

int32_t search_run(search_tree *t) {
    double start = timing_now_ms();
    t->count = 0;
    t->iterations = 0;
    t->playout_ms = 0;
    t->decisions = 0;
    if (!t->st) grow(t, (void **)&t->st, 0, t->def->state_size);
    if (t->cfg.playouts > 1 && !t->spare) grow(t, (void **)&t->spare, 0, t->def->state_size);
    new_node(t, -1, 0, -1);
    t->abandoned = false;
    do {
        iterate(t);
        if (t->abandoned) break;
        t->iterations++;
    } while (!t->hooks.stop(t->hooks.ud, t->iterations, t->now) &&
             (t->cfg.iterations <= 0 || t->iterations < t->cfg.iterations));
    t->total_ms = timing_now_ms() - start;
    int32_t best = -1;
    for (int32_t c = t->nodes[0].first_child; c >= 0; c = t->nodes[c].next_sibling)
        if (best < 0 || t->nodes[c].visits > t->nodes[best].visits) best = c;
    return best;
}
