/* babel.c — Babel for two players, by shared/rules/babel.md.
 *
 * The file follows the digest: components, setup, the turn (draw people; actions, each one's check
 * beside its effect; draw temples), scoring and the end; then the boundary (action text, state
 * tables, views, sampling) and the game_def. Players are 0 and 1 here. */
#include "rules/games/babel.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/hotpath.h"
#include "rules/invariant.h"
#include "rules/rules.h"
#include "rules/table.h"

/* ==================================================================== components */

/* The stream of a Babel state's own generator (PCG32's sequence): setup, a table's deal and a re-deal
 * (sample) seed it alike, so that a seed deals the same cards however the state was made. */
#define BABEL_RNG_STREAM 0xba6e1

enum { MEDES, SUMERIANS, HITTITES, PERSIANS, ASSYRIANS, NUM_PEOPLES };
enum { QUARRY = NUM_PEOPLES }; /* where a pawn stands before its first travel */

#define PEOPLE_CARDS 60
#define CARDS_PER_PEOPLE 12
#define TEMPLE_CARDS 45
#define MAX_LEVEL 6

static const char *const people_name[NUM_PEOPLES] = {"medes", "sumerians", "hittites", "persians",
                                                     "assyrians"};
static const int temple_copies[MAX_LEVEL + 1] = {0, 10, 9, 8, 7, 6, 5};

/* A stack of people cards, bottom first: rows, the people deck, the discard. */
typedef struct people_pile {
    uint8_t n;
    uint8_t card[PEOPLE_CARDS];
} people_pile;

/* A stack of temple cards (levels), bottom first: reserves and the temple deck. */
typedef struct temple_pile {
    uint8_t n;
    uint8_t card[TEMPLE_CARDS];
} temple_pile;

/* A temple site. Every way onto it (build +1, leap +2, steal "higher") raises the top, so its levels
 * rise strictly and six is the most it can hold. */
typedef struct temple_site {
    uint8_t n;
    uint8_t level[MAX_LEVEL];
} temple_site;

typedef struct babel_player {
    uint8_t hand[NUM_PEOPLES]; /* cards of each people: a hand's order carries no information */
    uint8_t pawn;              /* a people's location, or QUARRY */
    bool first_turn;           /* the start-temple duty applies until this player's first turn ends */
    people_pile row[NUM_PEOPLES];
    temple_site temple[NUM_PEOPLES];
    temple_pile reserve;
} babel_player;

enum { PHASE_ACTIONS, PHASE_HALVE, PHASE_OVER };

/* The rule parameters a game was dealt with (the digest's "Parameters"). */
typedef struct babel_rules {
    uint8_t hand_start[2]; /* by seat: the start player first */
    uint8_t draw_people, draw_temples, migrate_count, triple;
    uint8_t end_total, end_floor, end_phase_total;
    bool sumerians_all;
} babel_rules;

typedef struct babel {
    rng rng;
    babel_rules rules;
    babel_player player[2];
    people_pile people_deck, discard;
    temple_pile temple_deck;
    uint8_t temple_known; /* cards on top of the temple deck both players know (put back by a collapse) */
    uint8_t active;       /* whose turn it is */
    uint8_t to_move;      /* who decides now: the opponent while halving */
    uint8_t phase;
    uint8_t halve_left;   /* cards the opponent still has to discard */
    bool migrated;
    bool end_phase;
    uint16_t turn;
} babel;

/* ---- small helpers on piles ---- */

static int hand_size(const babel_player *p) {
    int n = 0;
    for (int i = 0; i < NUM_PEOPLES; i++) n += p->hand[i];
    return n;
}

/* A stack's top card, 0 when it is empty, without a branch (random play cannot predict one): a
 * stack's count byte lies just below its first card, so byte `n` of the stack is its top card, or the
 * count itself, 0, when there is none. */
_Static_assert(offsetof(temple_site, level) == 1 && offsetof(temple_pile, card) == 1,
               "a stack's cards follow its count byte");
static int site_top(const temple_site *site) { return ((const uint8_t *)site)[site->n]; }

static int total(const babel *g, int who) {
    int sum = 0;
    for (int loc = 0; loc < NUM_PEOPLES; loc++) sum += site_top(&g->player[who].temple[loc]);
    return sum;
}

/* The card moves below trust the check that came before them; where a broken check would write past a
 * stack or wrap a count (a card made from nothing), NEVER stops a Debug build there, and a release build
 * drops the move instead of the memory beside it. */
static void people_push(people_pile *pile, int card) {
    if (NEVER(pile->n >= PEOPLE_CARDS)) return;
    pile->card[pile->n++] = (uint8_t)card;
}

/* A card of `people` out of a hand; false (and nothing taken) when there is none. */
static bool hand_take(uint8_t *hand, int people) {
    if (NEVER(hand[people] == 0)) return false;
    hand[people]--;
    return true;
}

/* A temple card onto a site; false when the site is full (six levels, each higher). */
static bool site_push(temple_site *site, int level) {
    if (NEVER(site->n >= MAX_LEVEL)) return false;
    site->level[site->n++] = (uint8_t)level;
    return true;
}

static int people_pop(people_pile *pile) { return pile->card[--pile->n]; }

/* Removes the card at index i, closing the gap (rows keep their order). */
static int people_take_at(people_pile *pile, int i) {
    int card = pile->card[i];
    memmove(&pile->card[i], &pile->card[i + 1], (size_t)(pile->n - i - 1));
    pile->n--;
    return card;
}

static void temple_push(temple_pile *pile, int level) { pile->card[pile->n++] = (uint8_t)level; }

static int temple_top(const temple_pile *pile) { return ((const uint8_t *)pile)[pile->n]; }

/* Length of the run of identical cards starting at index `bottom` and going up. */
static int run_length(const people_pile *row, int bottom) {
    int i = bottom;
    while (i < row->n && row->card[i] == row->card[bottom]) i++;
    return i - bottom;
}

/* The bottom index of the first run of `triple` or more identical cards that starts at or above
 * index `from` (a run's bottom, or the row's end), and its length in *len; -1 when there is none. */
static int next_run(const people_pile *row, int from, int triple, int *len) {
    const uint8_t *card = row->card;
    int count = row->n;
    for (int bottom = from; bottom < count;) {
        int top = bottom + 1;
        while (top < count && card[top] == card[bottom]) top++;
        if (top - bottom >= triple) {
            *len = top - bottom;
            return bottom;
        }
        bottom = top;
    }
    return -1;
}

/* Whether `row` holds a run of `triple` or more identical cards: the generator's quick test, as most
 * rows hold none. A row of up to 8 cards is tested as one 64-bit word, byte i its card i: byte i of
 * `pairs` has its high bit set when cards i and i + 1 are alike (cards are below 8, so adding 0x7f
 * to their difference sets the bit exactly when it is not 0, with no carry), and `runs` when cards
 * i .. i + triple - 1 are. Only the positions where a whole run fits in the row count: they never
 * reach the zero the shift brings in, nor the stale bytes past the top. */
static bool has_run(const people_pile *row, int triple) {
    const uint8_t *card = row->card;
    int count = row->n, same = 1;
    if (count < triple) return false;
    if (count <= 8) {
        uint64_t cards = (uint64_t)card[0] | (uint64_t)card[1] << 8 | (uint64_t)card[2] << 16 |
                         (uint64_t)card[3] << 24 | (uint64_t)card[4] << 32 | (uint64_t)card[5] << 40 |
                         (uint64_t)card[6] << 48 | (uint64_t)card[7] << 56;
        const uint64_t high = 0x8080808080808080u;
        uint64_t pairs = ~((cards ^ cards >> 8) + 0x7f7f7f7f7f7f7f7fu) & high, runs = pairs;
        for (int k = 1; k < triple - 1; k++) runs &= pairs >> 8 * k;
        return (runs & high >> 8 * (7 - (count - triple))) != 0;
    }
    for (int i = 1; i < count; i++) {
        same = card[i] == card[i - 1] ? same + 1 : 1;
        if (same >= triple) return true;
    }
    return false;
}

/* Bottom indices of the runs of `people` at least `triple` long in `row`; returns how many. */
static int qualifying_runs(const people_pile *row, int people, int triple, int *bottoms) {
    int count = 0, len;
    for (int bottom = next_run(row, 0, triple, &len); bottom >= 0;
         bottom = next_run(row, bottom + len, triple, &len))
        if (row->card[bottom] == people) bottoms[count++] = bottom;
    return count;
}

/* ==================================================================== setup */

enum {
    P_HAND_START, P_DRAW_PEOPLE, P_DRAW_TEMPLES, P_MIGRATE_COUNT, P_TRIPLE,
    P_END_TOTAL, P_END_FLOOR, P_END_PHASE_TOTAL, P_SUMERIANS, NUM_PARAMS
};

static const char *const sumerian_modes[] = {"run", "all", NULL};

static const param_def babel_params[NUM_PARAMS] = {
    [P_HAND_START] = {"hand_start", PARAM_PER_SEAT, 5, 0, 20, NULL,
                      "people cards dealt to each hand; a list gives them by seat, start player "
                      "first ({3, 5}: a handicap for the start player). At most 20: two hands of 20 leave a "
                      "third of the 60 people cards to draw from"},
    [P_DRAW_PEOPLE] = {"draw_people", PARAM_INT, 3, 0, 12, NULL,
                       "people cards drawn at the start of each turn (at most 12, one people's cards: a "
                       "bound of this host, more only empties the deck sooner)"},
    [P_DRAW_TEMPLES] = {"draw_temples", PARAM_INT, 2, 1, 6, NULL,
                        "temple cards drawn at the end of each turn (at least 1: the game ends when the "
                        "last one is drawn, so with none it might never end; at most 6, the levels there are)"},
    [P_MIGRATE_COUNT] = {"migrate_count", PARAM_INT, 3, 1, 12, NULL,
                         "cards moved by a migration (and needed at its origin); 1 to 12, the copies of "
                         "one people (a bound of this host: no rule needs more)"},
    [P_TRIPLE] = {"triple", PARAM_INT, 3, 2, 12, NULL,
                  "identical adjacent cards that make a people's ability usable (at least 2: one card "
                  "is no run; at most 12: no people has more cards)"},
    [P_END_TOTAL] = {"end_total", PARAM_INT, 15, 1, 30, NULL,
                     "total that ends the game, or starts the end phase (at most 30: five temples, each "
                     "topped by a level 6 at most)"},
    [P_END_FLOOR] = {"end_floor", PARAM_INT, 10, 0, 30, NULL,
                     "an opponent under this total loses at once; in the end phase, falling under "
                     "it ends the game (0: never; at most 30, the highest total)"},
    [P_END_PHASE_TOTAL] = {"end_phase_total", PARAM_INT, 20, 1, 30, NULL,
                           "total that ends the end phase (at most 30, the highest total)"},
    [P_SUMERIANS] = {"sumerians", PARAM_CHOICE, 0, 0, 0, sumerian_modes,
                     "what the sumerian switch takes: \"run\", the top run of the opponent's row "
                     "(German and French texts), or \"all\", every card of the top card's people "
                     "in it (Korean and English texts)"},
};

static babel_rules rules_from_params(const param_value *params) {
    babel_rules r;
    const param_value *hand = &params[P_HAND_START];
    r.hand_start[0] = (uint8_t)hand->v[0];
    r.hand_start[1] = (uint8_t)(hand->count > 1 ? hand->v[1] : hand->v[0]);
    r.draw_people = (uint8_t)params[P_DRAW_PEOPLE].v[0];
    r.draw_temples = (uint8_t)params[P_DRAW_TEMPLES].v[0];
    r.migrate_count = (uint8_t)params[P_MIGRATE_COUNT].v[0];
    r.triple = (uint8_t)params[P_TRIPLE].v[0];
    r.end_total = (uint8_t)params[P_END_TOTAL].v[0];
    r.end_floor = (uint8_t)params[P_END_FLOOR].v[0];
    r.end_phase_total = (uint8_t)params[P_END_PHASE_TOTAL].v[0];
    r.sumerians_all = params[P_SUMERIANS].v[0] == 1;
    return r;
}

static void start_turn(babel *g, int who);
static void check_end(babel *g);

/* Setup 1-4: a level 1 into each reserve, the other 43 temple cards shuffled into the deck, the
 * people shuffled and dealt, pawns at the quarry; player 1 begins (with the usual people draw). */
static void babel_setup(void *st, int players, const param_value *params, uint64_t seed) {
    (void)players;
    babel *g = st;
    memset(g, 0, sizeof *g);
    g->rules = rules_from_params(params);
    rng_seed(&g->rng, seed, BABEL_RNG_STREAM);
    temple_pile *temples = &g->temple_deck;
    for (int level = 1; level <= MAX_LEVEL; level++) {
        memset(temples->card + temples->n, level, (size_t)temple_copies[level]);
        temples->n = (uint8_t)(temples->n + temple_copies[level]);
    }
    /* The deck is built in level order, so its first two cards are the two level-1 cards set aside
     * (moved out as ever, so that the bytes past the deck's top stay what they always were). */
    for (int who = 0; who < 2; who++) {
        g->player[who].reserve.card[0] = 1;
        g->player[who].reserve.n = 1;
    }
    memmove(temples->card, temples->card + 2, TEMPLE_CARDS - 2);
    temples->n = TEMPLE_CARDS - 2;
    rng_shuffle_bytes(&g->rng, temples->card, temples->n);

    for (int people = 0; people < NUM_PEOPLES; people++)
        memset(g->people_deck.card + people * CARDS_PER_PEOPLE, people, CARDS_PER_PEOPLE);
    g->people_deck.n = PEOPLE_CARDS;
    rng_shuffle_bytes(&g->rng, g->people_deck.card, g->people_deck.n);
    for (int who = 0; who < 2; who++) {
        babel_player *p = &g->player[who];
        p->pawn = QUARRY;
        p->first_turn = true;
        for (int c = 0; c < g->rules.hand_start[who] && g->people_deck.n; c++)
            p->hand[people_pop(&g->people_deck)]++;
    }
    g->turn = 0;
    start_turn(g, 0);
    check_end(g); /* apply checks the end only when a temple changes: the start is checked here */
}

/* ==================================================================== the turn */

/* 1. Draw people. An empty deck takes the shuffled discard; with both empty, what there is. */
static void draw_people(babel *g, int who) {
    people_pile *deck = &g->people_deck;
    uint8_t *hand = g->player[who].hand;
    for (int wanted = g->rules.draw_people; wanted > 0;) {
        if (deck->n == 0) {
            if (g->discard.n == 0) return;
            *deck = g->discard;
            g->discard.n = 0;
            rng_shuffle_bytes(&g->rng, deck->card, deck->n);
        }
        /* What this deck can give, counted in a local: a byte store into the hand could alias it. */
        int left = deck->n, take = wanted < left ? wanted : left;
        for (int c = 0; c < take; c++) hand[deck->card[--left]]++;
        deck->n = (uint8_t)left;
        wanted -= take;
    }
}

static void start_turn(babel *g, int who) {
    g->active = g->to_move = (uint8_t)who;
    g->phase = PHASE_ACTIONS;
    g->migrated = false;
    if (g->turn < UINT16_MAX) g->turn++; /* stops at its table's bound (65535), never wraps to 0 */
    draw_people(g, who);
}

/* ---- scoring and the end, checked after every action and every draw ---- */

static void game_over(babel *g) {
    g->phase = PHASE_OVER;
    g->to_move = 0xff;
}

/* End conditions 1 and 2 ("zu diesem Zeitpunkt": at once). The end phase, once begun, lasts even if
 * totals fall again (ruling); in it the game ends at end_phase_total or when a total drops under
 * end_floor, whoever reached end_total first. */
static void check_end(babel *g) {
    if (g->phase == PHASE_OVER) return;
    int t[2] = {total(g, 0), total(g, 1)};
    const babel_rules *r = &g->rules;
    if (!g->end_phase && t[0] < r->end_total && t[1] < r->end_total) return; /* the usual answer */
    for (int who = 0; who < 2 && !g->end_phase; who++) {
        if (t[who] < r->end_total) continue;
        if (t[1 - who] < r->end_floor) {
            game_over(g);
            return;
        }
        g->end_phase = true;
    }
    if (g->end_phase) {
        for (int who = 0; who < 2; who++)
            if (t[who] >= r->end_phase_total || t[who] < r->end_floor) game_over(g);
    }
}

/* 3. Draw temples: the higher card goes on the reserve first, so the lower lies on top. The game ends
 * at once when the last temple card is drawn (end condition 3). */
static void draw_temples(babel *g, int who) {
    temple_pile *deck = &g->temple_deck;
    temple_pile *reserve = &g->player[who].reserve;
    int left = deck->n, count = g->rules.draw_temples < left ? g->rules.draw_temples : left;
    uint8_t *drawn = reserve->card + reserve->n; /* straight onto the reserve, then put in order */
    for (int c = 0; c < count; c++) drawn[c] = deck->card[left - 1 - c];
    deck->n = (uint8_t)(left - count);
    reserve->n = (uint8_t)(reserve->n + count);
    g->temple_known = g->temple_known > count ? (uint8_t)(g->temple_known - count) : 0;
    /* Highest first: a small insertion sort, as count is two by default. */
    for (int i = 1; i < count; i++)
        for (int j = i; j > 0 && drawn[j] > drawn[j - 1]; j--) {
            uint8_t swap = drawn[j];
            drawn[j] = drawn[j - 1];
            drawn[j - 1] = swap;
        }
    if (left == count) game_over(g);
}

/* ==================================================================== actions */

/* An action packs its kind and arguments: kind in bits 0-3, `arg` (a people or location, or own/opp)
 * in bits 4-7, `dest` (migration's target) in 8-11, and an ability's run in 12-19 as the 1-based
 * row position of its bottom card (0: not said, for a caller who typed no "@N"). */
enum {
    ACT_TRAVEL, ACT_SETTLE, ACT_BUILD, ACT_MIGRATE, ACT_COLLAPSE, ACT_STEAL, ACT_EXPEL, ACT_SWITCH,
    ACT_LEAP, ACT_HALVE, ACT_DISCARD, ACT_END, NUM_KINDS
};
enum { OWN = 0, OPP = 1 };

/* The encoding as a constant expression, for the generator's tables. */
#define ACTION(kind, arg, dest) ((action_t)(kind) | (action_t)(arg) << 4 | (action_t)(dest) << 8)

static action_t make_action(int kind, int arg, int dest, int pos) {
    return ACTION(kind, arg, dest) | (action_t)pos << 12;
}
static int act_kind(action_t a) { return (int)(a & 0xf); }
static int act_arg(action_t a) { return (int)(a >> 4 & 0xf); }
static int act_dest(action_t a) { return (int)(a >> 8 & 0xf); }
static int act_pos(action_t a) { return (int)(a >> 12 & 0xff); }

/* The people whose triple pays for an ability action (halve names its own). */
static int ability_people(action_t a) {
    switch (act_kind(a)) {
    case ACT_COLLAPSE: return ASSYRIANS;
    case ACT_STEAL: return HITTITES;
    case ACT_EXPEL: return MEDES;
    case ACT_SWITCH: return SUMERIANS;
    case ACT_LEAP: return PERSIANS;
    default: return act_arg(a); /* ACT_HALVE */
    }
}

static bool is_ability(int kind) { return kind >= ACT_COLLAPSE && kind <= ACT_HALVE; }

static const char *reserve_owner(int which) { return which == OWN ? "your" : "the opponent's"; }

/* ---- travel: discard a P card, pawn to location P ---- */

static bool travel_allowed(const babel *g, int people, reason *why) {
    const babel_player *me = &g->player[g->active];
    if (me->pawn == people) return deny(why, "your pawn is already at the %s", people_name[people]);
    if (!me->hand[people]) return deny(why, "you have no %s card to travel with", people_name[people]);
    return true;
}

static void travel(babel *g, int people) {
    babel_player *me = &g->player[g->active];
    if (!hand_take(me->hand, people)) return;
    people_push(&g->discard, people);
    me->pawn = (uint8_t)people;
}

/* ---- settle: a P card from hand onto own row at the pawn's location ---- */

static bool at_a_location(const babel_player *me, reason *why) {
    if (me->pawn == QUARRY) return deny(why, "your pawn is still at the quarry; travel first");
    return true;
}

static bool settle_allowed(const babel *g, int people, reason *why) {
    const babel_player *me = &g->player[g->active];
    if (!at_a_location(me, why)) return false;
    if (!me->hand[people]) return deny(why, "you have no %s card to settle", people_name[people]);
    return true;
}

static void settle(babel *g, int people) {
    babel_player *me = &g->player[g->active];
    if (!hand_take(me->hand, people)) return;
    people_push(&me->row[me->pawn], people);
}

/* ---- build: the top of either reserve onto own temple here, exactly one level up ---- */

static bool build_allowed(const babel *g, int which, reason *why) {
    const babel_player *me = &g->player[g->active];
    if (!at_a_location(me, why)) return false;
    const temple_pile *reserve = &g->player[which == OWN ? g->active : 1 - g->active].reserve;
    if (!reserve->n) return deny(why, "%s reserve is empty", reserve_owner(which));
    int level = temple_top(reserve), next = site_top(&me->temple[me->pawn]) + 1;
    if (level != next)
        return deny(why, "your temple at the %s takes a level %d next; the top of %s reserve is a %d",
                    people_name[me->pawn], next, reserve_owner(which), level);
    if (me->row[me->pawn].n < level)
        return deny(why, "level %d needs %d people at the %s; you have %d", level, level,
                    people_name[me->pawn], me->row[me->pawn].n);
    return true;
}

static void build(babel *g, int which) {
    babel_player *me = &g->player[g->active];
    temple_pile *reserve = &g->player[which == OWN ? g->active : 1 - g->active].reserve;
    temple_site *site = &me->temple[me->pawn];
    if (NEVER(reserve->n == 0)) return;
    if (site_push(site, temple_top(reserve))) reserve->n--;
}

/* ---- migrate: the top cards of own row at X onto own row at Y, once a turn ---- */

static bool migrate_allowed(const babel *g, int from, int to, reason *why) {
    const babel_player *me = &g->player[g->active];
    int need = g->rules.migrate_count;
    if (g->migrated) return deny(why, "you have already migrated this turn");
    if (from == to) return deny(why, "a migration needs two different locations");
    if (me->row[from].n < need)
        return deny(why, "a migration moves %d people; you have %d at the %s", need, me->row[from].n,
                    people_name[from]);
    return true;
}

static NOT_INLINED void migrate(babel *g, int from, int to) {
    babel_player *me = &g->player[g->active];
    people_pile *src = &me->row[from], *dst = &me->row[to];
    int count = g->rules.migrate_count, from_n = src->n - count, to_n = dst->n;
    for (int c = 0; c < count; c++) dst->card[to_n + c] = src->card[from_n + c]; /* a few cards */
    dst->n = (uint8_t)(to_n + count);
    src->n = (uint8_t)from_n;
    g->migrated = true;
}

/* ---- abilities: a run of `triple` identical adjacent cards in own row at the pawn's location ---- */

/* Whether the run the action names exists and qualifies; shared by every ability. */
static bool run_ready(const babel *g, int people, int pos, reason *why) {
    const babel_player *me = &g->player[g->active];
    if (!at_a_location(me, why)) return false;
    const people_pile *row = &me->row[me->pawn];
    int triple = g->rules.triple;
    const char *here = people_name[me->pawn];
    if (pos == 0)
        return deny(why, "you need %d adjacent %s in your row at the %s", triple, people_name[people],
                    here);
    int bottom = pos - 1;
    if (bottom >= row->n || row->card[bottom] != people ||
        (bottom > 0 && row->card[bottom - 1] == people) || run_length(row, bottom) < triple)
        return deny(why, "no run of %d or more %s starts at position %d of your row at the %s",
                    triple, people_name[people], pos, here);
    return true;
}

/* Using an ability discards one card of its run (all its cards are alike, so which is immaterial). */
static void pay_with_run(babel *g, int pos) {
    babel_player *me = &g->player[g->active];
    people_push(&g->discard, people_take_at(&me->row[me->pawn], pos - 1));
}

/* assyrians — collapse: the opponent's temple here goes onto the temple deck, highest first. */
static bool collapse_allowed(const babel *g, reason *why) {
    int here = g->player[g->active].pawn;
    if (!g->player[1 - g->active].temple[here].n)
        return deny(why, "the opponent has no temple at the %s to collapse", people_name[here]);
    return true;
}

static void collapse(babel *g) {
    int here = g->player[g->active].pawn;
    temple_site *site = &g->player[1 - g->active].temple[here];
    /* The site rises strictly, so from its top down is highest first: the lowest ends on top. */
    for (int i = site->n - 1; i >= 0; i--) temple_push(&g->temple_deck, site->level[i]);
    g->temple_known = (uint8_t)(g->temple_known + site->n);
    site->n = 0;
}

/* hittites — steal: the opponent's top temple card here onto own temple here, if it is higher; the
 * row must hold its level, counting the hittite discarded for it (so the check runs before paying). */
static bool steal_allowed(const babel *g, reason *why) {
    const babel_player *me = &g->player[g->active];
    int here = me->pawn;
    const temple_site *theirs = &g->player[1 - g->active].temple[here];
    if (!theirs->n) return deny(why, "the opponent has no temple at the %s to steal from", people_name[here]);
    int level = site_top(theirs), mine = site_top(&me->temple[here]);
    if (level <= mine)
        return deny(why, "the opponent's top card at the %s is a %d; your temple there is already at %d",
                    people_name[here], level, mine);
    if (me->row[here].n < level)
        return deny(why, "stealing a level %d needs %d people at the %s (the hittite you discard "
                    "counts); you have %d", level, level, people_name[here], me->row[here].n);
    return true;
}

static void steal(babel *g) {
    babel_player *me = &g->player[g->active];
    temple_site *theirs = &g->player[1 - g->active].temple[me->pawn];
    temple_site *mine = &me->temple[me->pawn];
    if (NEVER(theirs->n == 0)) return;
    if (site_push(mine, site_top(theirs))) theirs->n--;
}

/* medes — expel Q: every Q card in the opponent's row here goes to the discard. */
static int count_in_row(const people_pile *row, int people) {
    int n = 0;
    for (int i = 0; i < row->n; i++) n += row->card[i] == people;
    return n;
}

static bool expel_allowed(const babel *g, int target, reason *why) {
    int here = g->player[g->active].pawn;
    if (!count_in_row(&g->player[1 - g->active].row[here], target))
        return deny(why, "the opponent has no %s at the %s to expel", people_name[target], people_name[here]);
    return true;
}

static void expel(babel *g, int target) {
    people_pile *row = &g->player[1 - g->active].row[g->player[g->active].pawn];
    int kept = 0;
    for (int i = 0; i < row->n; i++) {
        if (row->card[i] == target) people_push(&g->discard, target);
        else row->card[kept++] = row->card[i];
    }
    row->n = (uint8_t)kept;
}

/* sumerians — switch: the run of identical cards on top of the opponent's row here moves onto own
 * row, order kept; with sumerians = "all", every card of the top card's people in that row. */
static bool switch_allowed(const babel *g, reason *why) {
    int here = g->player[g->active].pawn;
    if (!g->player[1 - g->active].row[here].n)
        return deny(why, "the opponent has no people at the %s to switch", people_name[here]);
    return true;
}

static void switch_sides(babel *g) {
    int here = g->player[g->active].pawn;
    people_pile *theirs = &g->player[1 - g->active].row[here], *mine = &g->player[g->active].row[here];
    int people = theirs->card[theirs->n - 1];
    if (!g->rules.sumerians_all) {
        while (theirs->n && theirs->card[theirs->n - 1] == people) {
            theirs->n--;
            people_push(mine, people);
        }
        return;
    }
    int kept = 0;
    for (int i = 0; i < theirs->n; i++) {
        if (theirs->card[i] == people) people_push(mine, people);
        else theirs->card[kept++] = theirs->card[i];
    }
    theirs->n = (uint8_t)kept;
}

/* persians — leap: a temple card here two levels up (an empty site takes a 2), from either reserve;
 * the row must hold that many, counting the persian discarded for it. */
static bool leap_allowed(const babel *g, int which, reason *why) {
    const babel_player *me = &g->player[g->active];
    int here = me->pawn;
    const temple_pile *reserve = &g->player[which == OWN ? g->active : 1 - g->active].reserve;
    if (!reserve->n) return deny(why, "%s reserve is empty", reserve_owner(which));
    int level = temple_top(reserve), next = site_top(&me->temple[here]) + 2;
    if (level != next)
        return deny(why, "a leap at the %s takes a level %d; the top of %s reserve is a %d",
                    people_name[here], next, reserve_owner(which), level);
    if (me->row[here].n < level)
        return deny(why, "leaping to level %d needs %d people at the %s (the persian you discard "
                    "counts); you have %d", level, level, people_name[here], me->row[here].n);
    return true;
}

/* any people — halve: the opponent discards half their hand, rounded down, one chosen card at a time
 * (their decisions, in the middle of this turn). */
static bool halve_allowed(const babel *g, reason *why) {
    int theirs = hand_size(&g->player[1 - g->active]);
    if (theirs < 2)
        return deny(why, "the opponent holds %d card%s: halving would discard nothing", theirs,
                    theirs == 1 ? "" : "s");
    return true;
}

static void halve(babel *g) {
    g->halve_left = (uint8_t)(hand_size(&g->player[1 - g->active]) / 2);
    g->phase = PHASE_HALVE;
    g->to_move = (uint8_t)(1 - g->active);
}

static bool discard_allowed(const babel *g, int people, reason *why) {
    if (!g->player[g->to_move].hand[people])
        return deny(why, "you have no %s card to discard", people_name[people]);
    return true;
}

static void discard_one(babel *g, int people) {
    if (!hand_take(g->player[g->to_move].hand, people)) return;
    people_push(&g->discard, people);
    if (--g->halve_left == 0) {
        g->phase = PHASE_ACTIONS;
        g->to_move = g->active;
    }
}

/* ---- end: the start-temple duty, then the temple draw and the next turn ---- */

static bool end_allowed(const babel *g, reason *why) {
    const babel_player *me = &g->player[g->active];
    /* Ruling: the duty lapses only when the card cannot be built: an empty hand and no `build own`
     * now. So it binds while people already at the pawn's place allow the build, and no position
     * leaves a player without an action. */
    if (me->first_turn && me->reserve.n && (hand_size(me) || build_allowed(g, OWN, NULL)))
        return deny(why, "on your first turn you must build your starting temple card before ending");
    return true;
}

static NOT_INLINED void end_turn(babel *g) {
    int who = g->active;
    draw_temples(g, who);
    if (g->phase == PHASE_OVER) return;
    g->player[who].first_turn = false;
    start_turn(g, 1 - who);
}

/* ---- the one authority on legality ---- */

static bool ability_allowed(const babel *g, action_t a, reason *why) {
    if (!run_ready(g, ability_people(a), act_pos(a), why)) return false;
    switch (act_kind(a)) {
    case ACT_COLLAPSE: return collapse_allowed(g, why);
    case ACT_STEAL: return steal_allowed(g, why);
    case ACT_EXPEL: return expel_allowed(g, act_arg(a), why);
    case ACT_SWITCH: return switch_allowed(g, why);
    case ACT_LEAP: return leap_allowed(g, act_arg(a), why);
    default: return halve_allowed(g, why);
    }
}

static bool in_range(int value, int limit) { return value >= 0 && value < limit; }

static bool babel_check(const void *st, action_t a, reason *why) {
    const babel *g = st;
    int kind = act_kind(a), arg = act_arg(a);
    if (g->phase == PHASE_OVER) return deny(why, "the game is over");
    if (g->phase == PHASE_HALVE) {
        if (kind != ACT_DISCARD)
            return deny(why, "you must first discard %d more card%s (the opponent is halving your hand)",
                        g->halve_left, g->halve_left == 1 ? "" : "s");
        return in_range(arg, NUM_PEOPLES) ? discard_allowed(g, arg, why) : deny(why, "no such people");
    }
    switch (kind) {
    case ACT_TRAVEL:
    case ACT_SETTLE:
    case ACT_EXPEL:
    case ACT_HALVE:
        if (!in_range(arg, NUM_PEOPLES)) return deny(why, "no such people");
        break;
    case ACT_BUILD:
    case ACT_LEAP:
        if (arg != OWN && arg != OPP) return deny(why, "say own or opp");
        break;
    case ACT_MIGRATE:
        if (!in_range(arg, NUM_PEOPLES) || !in_range(act_dest(a), NUM_PEOPLES))
            return deny(why, "no such location");
        break;
    }
    switch (kind) {
    case ACT_TRAVEL: return travel_allowed(g, arg, why);
    case ACT_SETTLE: return settle_allowed(g, arg, why);
    case ACT_BUILD: return build_allowed(g, arg, why);
    case ACT_MIGRATE: return migrate_allowed(g, arg, act_dest(a), why);
    case ACT_DISCARD: return deny(why, "discarding only happens when your hand is being halved");
    case ACT_END: return end_allowed(g, why);
    default:
        if (is_ability(kind)) return ability_allowed(g, a, why);
        return deny(why, "no such action");
    }
}

/* An ability: one card of its run paid (after the check, which counted it), then its effect. Apart
 * from the hot actions, so that babel_apply stays small (see NOT_INLINED). */
static NOT_INLINED void use_ability(babel *g, action_t a) {
    pay_with_run(g, act_pos(a));
    switch (act_kind(a)) {
    case ACT_COLLAPSE: collapse(g); break;
    case ACT_STEAL: steal(g); break;
    case ACT_EXPEL: expel(g, act_arg(a)); return;
    case ACT_SWITCH: switch_sides(g); return;
    case ACT_LEAP: build(g, act_arg(a)); break; /* the level was checked: it is a build two up */
    default: halve(g); return;
    }
    check_end(g);
}

static void babel_apply(void *st, action_t a) {
    babel *g = st;
    int arg = act_arg(a);
    assert(g->phase != PHASE_OVER); /* check() refuses every action of an ended game */
    /* The end depends on the totals alone, and only a build or an ability on a temple changes one
     * (setup, a loaded table and a variant's move check after themselves): after anything else the
     * last check still holds. The draw at the end of a turn checks its own end. */
    switch (act_kind(a)) {
    case ACT_TRAVEL: travel(g, arg); return;
    case ACT_SETTLE: settle(g, arg); return;
    case ACT_BUILD: build(g, arg); check_end(g); return;
    case ACT_MIGRATE: migrate(g, arg, act_dest(a)); return;
    case ACT_DISCARD: discard_one(g, arg); return;
    case ACT_END: end_turn(g); return;
    default: use_ability(g, a); return;
    }
}

/* ---- legal actions, generated directly ----
 * Each action is emitted only when legal, in the order logs and seeded bots rely on (travel, settle,
 * build, migrate, the runs bottom up, end). The rule predicates are the check's own, run with no reason
 * wanted; what the generator already knows is not asked again (the pawn stands at a location, a run it
 * walks is whole and long enough). test_conformance asserts on every position of many games that this
 * lists exactly what babel_check accepts. */

/* Writes `a` at `at` and keeps it (returns the slot after it) only if it is `legal`. The generator
 * writes candidates and keeps the legal ones, so random play pays no mispredicted branch per
 * candidate; the slots past the list are scratch (callers give MEEPLE_MAX_ACTIONS slots, far more
 * than a Babel position lists). */
static action_t *emit_if(action_t *at, action_t a, bool legal) {
    *at = a;
    return at + legal;
}

/* ---- sets of peoples as 5-bit masks, and the actions of each set, tabled ----
 * Travel, settle and discard take one action per people held, migration four per row long enough: the
 * generator makes the set's mask and copies the set's actions whole from a table built at compile time
 * (the k-th member of a set is the number of p whose prefix of the set has k members or fewer). */
#define PEOPLE_SETS (1 << NUM_PEOPLES)
#define IN_SET(m, p) ((m) >> (p) & 1)
#define PREFIX_SIZE(m, p) (IN_SET(m, 0) + ((p) >= 1) * IN_SET(m, 1) + ((p) >= 2) * IN_SET(m, 2) + \
                           ((p) >= 3) * IN_SET(m, 3) + ((p) >= 4) * IN_SET(m, 4))
#define SET_SIZE(m) PREFIX_SIZE(m, 4)
#define MEMBER(m, k) ((PREFIX_SIZE(m, 0) <= (k)) + (PREFIX_SIZE(m, 1) <= (k)) + (PREFIX_SIZE(m, 2) <= (k)) + \
                      (PREFIX_SIZE(m, 3) <= (k)) + (PREFIX_SIZE(m, 4) <= (k)))
#define BY_SET_8(row, m) row(m), row(m + 1), row(m + 2), row(m + 3), row(m + 4), row(m + 5), row(m + 6), \
                         row(m + 7)
#define BY_SET(row) {BY_SET_8(row, 0), BY_SET_8(row, 8), BY_SET_8(row, 16), BY_SET_8(row, 24)}

/* One action of `kind` for each people in the set, in people order (the rest of a row is scratch). */
#define PEOPLE_ROW(kind, m) {ACTION(kind, MEMBER(m, 0), 0), ACTION(kind, MEMBER(m, 1), 0), \
                             ACTION(kind, MEMBER(m, 2), 0), ACTION(kind, MEMBER(m, 3), 0), \
                             ACTION(kind, MEMBER(m, 4), 0)}
#define TRAVEL_ROW(m) PEOPLE_ROW(ACT_TRAVEL, m)
#define SETTLE_ROW(m) PEOPLE_ROW(ACT_SETTLE, m)
#define DISCARD_ROW(m) PEOPLE_ROW(ACT_DISCARD, m)
static const action_t travel_by_set[PEOPLE_SETS][NUM_PEOPLES] = BY_SET(TRAVEL_ROW);
static const action_t settle_by_set[PEOPLE_SETS][NUM_PEOPLES] = BY_SET(SETTLE_ROW);
static const action_t discard_by_set[PEOPLE_SETS][NUM_PEOPLES] = BY_SET(DISCARD_ROW);

/* The migrations from each location of the set, to every other location in order: slot j migrates
 * from the set's (j / 4)-th location to the (j % 4)-th of the others. */
#define MIGRATION_SLOT(m, j) \
    ACTION(ACT_MIGRATE, MEMBER(m, (j) / 4), (j) % 4 + ((j) % 4 >= MEMBER(m, (j) / 4)))
#define MIGRATION_ROW_4(m, j) MIGRATION_SLOT(m, j), MIGRATION_SLOT(m, j + 1), MIGRATION_SLOT(m, j + 2), \
                              MIGRATION_SLOT(m, j + 3)
#define MIGRATION_ROW(m) {MIGRATION_ROW_4(m, 0), MIGRATION_ROW_4(m, 4), MIGRATION_ROW_4(m, 8), \
                          MIGRATION_ROW_4(m, 12), MIGRATION_ROW_4(m, 16)}
#define MIGRATIONS (NUM_PEOPLES * (NUM_PEOPLES - 1))
static const action_t migrations_by_set[PEOPLE_SETS][MIGRATIONS] = BY_SET(MIGRATION_ROW);

#define SIZE_ROW(m) SET_SIZE(m)
static const uint8_t set_size[PEOPLE_SETS] = BY_SET(SIZE_ROW);

/* Copies a table's row of `width` actions and keeps the first `count`. */
static action_t *emit_row(action_t *at, const action_t *row, size_t width, int count) {
    memcpy(at, row, width * sizeof *row);
    return at + count;
}

/* ---- five byte counts tested at once, as one word with count p in byte p ----
 * Counts are at most 60, below 0x80, so a byte's high bit is free to carry each answer; gather_set
 * then collects the five answers into a set. */
#define BYTE_HIGH_BITS 0x8080808080u

/* The set of p whose byte p of `answers` has its high bit set (the other bits are 0): the product
 * moves bit 8p (once shifted down) to bit 32 + p, every other partial product landing elsewhere
 * (8p + 32 - 7q is 32 + p only for q = p). */
static unsigned gather_set(uint64_t answers) {
    return (unsigned)(((answers >> 7) * 0x0102040810u) >> 32) & (PEOPLE_SETS - 1);
}

/* The peoples of which `hand` holds a card: adding 0x7f to a count sets its high bit exactly when
 * it is not 0, with no carry out of the byte. */
static unsigned held_set(const uint8_t hand[NUM_PEOPLES]) {
    uint64_t counts = (uint64_t)hand[0] | (uint64_t)hand[1] << 8 | (uint64_t)hand[2] << 16 |
                      (uint64_t)hand[3] << 24 | (uint64_t)hand[4] << 32;
    return gather_set((counts + 0x7f7f7f7f7fu) & BYTE_HIGH_BITS);
}

/* The locations whose row holds at least `need` (1 to 12) people: with each byte's high bit set,
 * taking `need` from every byte borrows across none and leaves the high bit set exactly when the
 * count reached `need`. */
static unsigned rows_holding(const babel_player *me, int need) {
    const people_pile *row = me->row;
    uint64_t sizes = (uint64_t)row[0].n | (uint64_t)row[1].n << 8 | (uint64_t)row[2].n << 16 |
                     (uint64_t)row[3].n << 24 | (uint64_t)row[4].n << 32;
    return gather_set(((sizes | BYTE_HIGH_BITS) - 0x0101010101u * (uint64_t)need) & BYTE_HIGH_BITS);
}

/* build_allowed's answer, for a pawn known to stand at a location whose own temple top is `top` and
 * whose own row holds `people`: the top of `reserve` is exactly one level up (an empty reserve's top
 * reads 0, never a level), and the row holds that many. */
static bool build_fits(const temple_pile *reserve, int top, int people) {
    int level = temple_top(reserve);
    return (level == top + 1) & (people >= level);
}

/* Bits of the peoples present in `row`. */
static unsigned peoples_in(const people_pile *row) {
    unsigned mask = 0;
    for (int i = 0; i < row->n; i++) mask |= 1u << row->card[i];
    return mask;
}

/* The abilities one qualifying run of `people` (its bottom card at 1-based `pos`) pays for, listed
 * from `at`; returns the slot after them. */
static action_t *run_actions(const babel *g, int people, int pos, bool halve_ok, action_t *at) {
    switch (people) {
    case ASSYRIANS:
        at = emit_if(at, make_action(ACT_COLLAPSE, 0, 0, pos), collapse_allowed(g, NULL));
        break;
    case HITTITES:
        at = emit_if(at, make_action(ACT_STEAL, 0, 0, pos), steal_allowed(g, NULL));
        break;
    case SUMERIANS:
        at = emit_if(at, make_action(ACT_SWITCH, 0, 0, pos), switch_allowed(g, NULL));
        break;
    case MEDES: {
        unsigned theirs = peoples_in(&g->player[1 - g->active].row[g->player[g->active].pawn]);
        for (int q = 0; q < NUM_PEOPLES; q++)
            at = emit_if(at, make_action(ACT_EXPEL, q, 0, pos), theirs >> q & 1);
        break;
    }
    case PERSIANS:
        at = emit_if(at, make_action(ACT_LEAP, OWN, 0, pos), leap_allowed(g, OWN, NULL));
        at = emit_if(at, make_action(ACT_LEAP, OPP, 0, pos), leap_allowed(g, OPP, NULL));
        break;
    }
    return emit_if(at, make_action(ACT_HALVE, people, 0, pos), halve_ok);
}

/* The abilities of every qualifying run in `row` (the mover's, under the pawn), bottom up, listed
 * from `at` (called when has_run found one); returns the slot after them. */
static NOT_INLINED action_t *ability_actions(const babel *g, const people_pile *row, action_t *at) {
    int triple = g->rules.triple, len;
    bool halve_ok = halve_allowed(g, NULL);
    for (int bottom = next_run(row, 0, triple, &len); bottom >= 0;
         bottom = next_run(row, bottom + len, triple, &len))
        at = run_actions(g, row->card[bottom], bottom + 1, halve_ok, at);
    return at;
}

/* `out` never overlaps the state: said with restrict, the state's bytes need no reloading after
 * each copy into the list. */
static int babel_legal(const void *st, action_t *restrict out) {
    const babel *g = st;
    if (g->phase == PHASE_OVER) return 0;
    const babel_player *me = &g->player[g->to_move];
    unsigned held = held_set(me->hand);
    if (g->phase == PHASE_HALVE)
        return (int)(emit_row(out, discard_by_set[held], NUM_PEOPLES, set_size[held]) - out);
    const temple_pile *their_reserve = &g->player[1 - g->to_move].reserve;
    unsigned here = me->pawn, destinations = held & ~(1u << here); /* no set holds the quarry's bit */
    action_t *at = emit_row(out, travel_by_set[destinations], NUM_PEOPLES, set_size[destinations]);
    bool build_own = false, at_location = here != QUARRY;
    const people_pile *row = &me->row[at_location ? here : 0];
    if (at_location) {
        at = emit_row(at, settle_by_set[held], NUM_PEOPLES, set_size[held]);
        int top = site_top(&me->temple[here]), people = row->n;
        build_own = build_fits(&me->reserve, top, people);
        at = emit_if(at, make_action(ACT_BUILD, OWN, 0, 0), build_own);
        at = emit_if(at, make_action(ACT_BUILD, OPP, 0, 0), build_fits(their_reserve, top, people));
    }
    if (!g->migrated) {
        unsigned origins = rows_holding(me, g->rules.migrate_count);
        at = emit_row(at, migrations_by_set[origins], MIGRATIONS, set_size[origins] * (NUM_PEOPLES - 1));
    }
    if (at_location && has_run(row, g->rules.triple)) at = ability_actions(g, row, at);
    /* end_allowed, with what is known already: the start-temple duty binds while the card can be built */
    bool duty = me->first_turn && me->reserve.n && (build_own || held);
    return (int)(emit_if(at, make_action(ACT_END, 0, 0, 0), !duty) - out);
}

/* Every action of the grammar that could be meant here: each kind with each argument, abilities at
 * every position of the row under the pawn (and at position 0, "not said"). */
static int babel_action_space(const void *st, action_t *out) {
    const babel *g = st;
    int n = 0, positions = 1;
    if (g->phase != PHASE_OVER) {
        const babel_player *me = &g->player[g->active];
        if (me->pawn != QUARRY) positions = me->row[me->pawn].n + 1;
    }
    for (int p = 0; p < NUM_PEOPLES; p++) {
        out[n++] = make_action(ACT_TRAVEL, p, 0, 0);
        out[n++] = make_action(ACT_SETTLE, p, 0, 0);
        out[n++] = make_action(ACT_DISCARD, p, 0, 0);
        for (int q = 0; q < NUM_PEOPLES; q++) out[n++] = make_action(ACT_MIGRATE, p, q, 0);
    }
    out[n++] = make_action(ACT_BUILD, OWN, 0, 0);
    out[n++] = make_action(ACT_BUILD, OPP, 0, 0);
    out[n++] = make_action(ACT_END, 0, 0, 0);
    for (int pos = 0; pos < positions && n + 16 <= MEEPLE_MAX_ACTIONS; pos++) {
        out[n++] = make_action(ACT_COLLAPSE, 0, 0, pos);
        out[n++] = make_action(ACT_STEAL, 0, 0, pos);
        out[n++] = make_action(ACT_SWITCH, 0, 0, pos);
        out[n++] = make_action(ACT_LEAP, OWN, 0, pos);
        out[n++] = make_action(ACT_LEAP, OPP, 0, pos);
        for (int p = 0; p < NUM_PEOPLES; p++) {
            out[n++] = make_action(ACT_EXPEL, p, 0, pos);
            out[n++] = make_action(ACT_HALVE, p, 0, pos);
        }
    }
    return n;
}

/* ==================================================================== queries */

static int babel_num_players(const void *st) {
    (void)st;
    return 2;
}

static int babel_turn(const void *st) { return ((const babel *)st)->turn; }

static int babel_to_move(const void *st) {
    const babel *g = st;
    return g->phase == PHASE_OVER ? -1 : g->to_move;
}

static uint32_t babel_turn_key(const void *st, int *owner) {
    const babel *g = st;
    *owner = g->phase == PHASE_OVER ? -1 : g->active;
    return (uint32_t)g->turn << 1 | (g->phase == PHASE_OVER);
}

static bool babel_is_over(const void *st) { return ((const babel *)st)->phase == PHASE_OVER; }

static void babel_scores(const void *st, int *out) {
    out[0] = total(st, 0);
    out[1] = total(st, 1);
}

/* The higher total wins; on a tie, more hand cards; still tied, a draw (ruling). */
static int babel_winners(const void *st, int *out) {
    const babel *g = st;
    if (g->phase != PHASE_OVER) return 0;
    int diff = total(g, 0) - total(g, 1);
    if (diff == 0) diff = hand_size(&g->player[0]) - hand_size(&g->player[1]);
    if (diff > 0) out[0] = 0;
    if (diff < 0) out[0] = 1;
    if (diff) return 1;
    out[0] = 0;
    out[1] = 1;
    return 2;
}

/* ==================================================================== action text */

static const char *const kind_word[NUM_KINDS] = {
    [ACT_TRAVEL] = "travel", [ACT_SETTLE] = "settle", [ACT_BUILD] = "build",
    [ACT_MIGRATE] = "migrate", [ACT_COLLAPSE] = "collapse", [ACT_STEAL] = "steal",
    [ACT_EXPEL] = "expel", [ACT_SWITCH] = "switch", [ACT_LEAP] = "leap", [ACT_HALVE] = "halve",
    [ACT_DISCARD] = "discard", [ACT_END] = "end"};

static const char *const side_word[2] = {"own", "opp"};

/* The runs of `people` that qualify under the mover's pawn (none at the quarry). */
static int runs_here(const babel *g, int people, int *bottoms) {
    const babel_player *me = &g->player[g->active];
    if (me->pawn == QUARRY) return 0;
    return qualifying_runs(&me->row[me->pawn], people, g->rules.triple, bottoms);
}

/* "@N" is written only where the row has two separate qualifying runs of the people (or the action
 * names a position that is not the one run), so the usual action stays short. */
static bool needs_position(const babel *g, int people, int pos) {
    int bottoms[PEOPLE_CARDS];
    int count = runs_here(g, people, bottoms);
    return pos != 0 && (count >= 2 || count == 0 || bottoms[0] + 1 != pos);
}

static void babel_action_text(const void *st, action_t a, char *out) {
    const babel *g = st;
    int kind = act_kind(a), arg = act_arg(a);
    const char *word = in_range(kind, NUM_KINDS) && kind_word[kind] ? kind_word[kind] : "?";
    const char *arg_text = "";
    switch (kind) {
    case ACT_TRAVEL: case ACT_SETTLE: case ACT_EXPEL: case ACT_HALVE: case ACT_DISCARD:
        arg_text = in_range(arg, NUM_PEOPLES) ? people_name[arg] : "?";
        break;
    case ACT_BUILD: case ACT_LEAP:
        arg_text = side_word[arg & 1];
        break;
    }
    if (kind == ACT_MIGRATE) {
        snprintf(out, MEEPLE_ACTION_TEXT, "migrate %s %s",
                 in_range(arg, NUM_PEOPLES) ? people_name[arg] : "?",
                 in_range(act_dest(a), NUM_PEOPLES) ? people_name[act_dest(a)] : "?");
        return;
    }
    int len = snprintf(out, MEEPLE_ACTION_TEXT, "%s%s%s", word, *arg_text ? " " : "", arg_text);
    if (is_ability(kind) && needs_position(g, ability_people(a), act_pos(a)))
        snprintf(out + len, (size_t)(MEEPLE_ACTION_TEXT - len), " @%d", act_pos(a));
}

/* An ability's position shows in its text only where needs_position says so: the key keeps it then
 * (and says so in bit 31, above every action), and drops it otherwise. */
static uint32_t babel_text_key(const void *st, action_t a) {
    if (!is_ability(act_kind(a))) return a;
    if (needs_position(st, ability_people(a), act_pos(a))) return a | 1u << 31;
    return a & ~(action_t)(0xff << 12);
}

static bool parse_people(const char *word, int *out, reason *why) {
    *out = word ? table_name_index(word, people_name, NUM_PEOPLES) : -1;
    if (*out < 0)
        return deny(why, "'%s' is not a people; peoples: medes, sumerians, hittites, persians, "
                    "assyrians", word ? word : "");
    return true;
}

/* Without "@N", an ability means the one qualifying run; with several, the player must say which. */
static bool resolve_position(const babel *g, action_t *a, reason *why) {
    int bottoms[PEOPLE_CARDS];
    int count = runs_here(g, ability_people(*a), bottoms);
    if (count == 1) *a |= (action_t)(bottoms[0] + 1) << 12;
    if (count < 2) return true;
    char options[160] = "";
    for (int i = 0; i < count; i++) {
        size_t used = strlen(options);
        snprintf(options + used, sizeof options - used, "%s@%d", i ? " or " : "", bottoms[i] + 1);
    }
    return deny(why, "your row here has %d separate %s runs: add %s", count,
                people_name[ability_people(*a)], options);
}

static bool babel_parse_action(const void *st, const char *text, action_t *out, reason *why) {
    const babel *g = st;
    char copy[MEEPLE_ACTION_TEXT * 2];
    if (strlen(text) >= sizeof copy) return deny(why, "that action is too long to be one");
    strcpy(copy, text);
    char *words[5] = {0};
    int count = 0, pos = -1;
    /* Split on blanks by hand: strtok's hidden state is not safe for parallel matches. */
    for (char *c = copy; *c;) {
        while (*c == ' ' || *c == '\t') *c++ = '\0';
        if (!*c) break;
        if (count == 4) return deny(why, "too many words in '%s'", text);
        words[count++] = c;
        while (*c && *c != ' ' && *c != '\t') c++;
    }
    if (count && words[count - 1][0] == '@') {
        char *end;
        long n = strtol(words[count - 1] + 1, &end, 10);
        if (*end || n < 1 || n > PEOPLE_CARDS) return deny(why, "'%s' is not a row position", words[count - 1]);
        pos = (int)n;
        words[--count] = NULL;
    }
    if (!count) return deny(why, "no action given");
    int kind = table_name_index(words[0], kind_word, NUM_KINDS);
    if (kind < 0)
        return deny(why, "unknown action '%s'; actions: travel, settle, build, migrate, collapse, "
                    "steal, expel, switch, leap, halve, discard, end", words[0]);
    int want = kind == ACT_MIGRATE ? 3
             : (kind == ACT_COLLAPSE || kind == ACT_STEAL || kind == ACT_SWITCH || kind == ACT_END) ? 1
             : 2;
    if (count != want)
        return deny(why, "'%s' takes %d word%s after it", words[0], want - 1, want == 2 ? "" : "s");
    if (pos > 0 && !is_ability(kind)) return deny(why, "only an ability takes a row position (@N)");
    int arg = 0, dest = 0;
    if (kind == ACT_BUILD || kind == ACT_LEAP) {
        arg = table_name_index(words[1], side_word, 2);
        if (arg < 0) return deny(why, "say '%s own' or '%s opp'", words[0], words[0]);
    } else if (want >= 2 && !parse_people(words[1], &arg, why)) {
        return false;
    }
    if (kind == ACT_MIGRATE && !parse_people(words[2], &dest, why)) return false;
    *out = make_action(kind, arg, dest, pos > 0 ? pos : 0);
    if (is_ability(kind) && pos < 0) return resolve_position(g, out, why);
    return true;
}

/* ==================================================================== state tables */

static void write_people(tree_writer *w, const people_pile *pile) {
    w->open_list(w);
    for (int i = 0; i < pile->n; i++) w->str(w, people_name[pile->card[i]]);
    w->close(w);
}

static void write_levels(tree_writer *w, const uint8_t *levels, int n) {
    w->open_list(w);
    for (int i = 0; i < n; i++) w->num(w, levels[i]);
    w->close(w);
}

static void write_hand(tree_writer *w, const babel_player *p) {
    w->open_list(w);
    for (int people = 0; people < NUM_PEOPLES; people++)
        for (int c = 0; c < p->hand[people]; c++) w->str(w, people_name[people]);
    w->close(w);
}

static void write_player(const babel *g, int who, int viewer, tree_writer *w) {
    const babel_player *p = &g->player[who];
    w->open_map(w);
    w->key(w, "hand");
    if (viewer < 0 || viewer == who) write_hand(w, p);
    else w->num(w, hand_size(p));
    tw_key_str(w, "pawn", p->pawn == QUARRY ? "quarry" : people_name[p->pawn]);
    w->key(w, "reserve");
    write_levels(w, p->reserve.card, p->reserve.n);
    tw_key_bool(w, "first_turn", p->first_turn);
    w->key(w, "rows");
    w->open_map(w);
    for (int loc = 0; loc < NUM_PEOPLES; loc++) {
        w->key(w, people_name[loc]);
        write_people(w, &p->row[loc]);
    }
    w->close(w);
    w->key(w, "temples");
    w->open_map(w);
    for (int loc = 0; loc < NUM_PEOPLES; loc++) {
        w->key(w, people_name[loc]);
        write_levels(w, p->temple[loc].level, p->temple[loc].n);
    }
    w->close(w);
    w->close(w);
}

static const char *const phase_name[] = {"actions", "halve", "over"};

/* Everything on the table is public; a viewer sees their own hand, the opponent's hand size, the
 * deck sizes, and the collapsed temple cards known to lie on top of the temple deck. */
static void babel_write_table(const void *st, int viewer, tree_writer *w) {
    const babel *g = st;
    w->open_map(w);
    tw_key_str(w, "game", "babel");
    tw_key_num(w, "turn", g->turn);
    tw_key_num(w, "active", g->active + 1);
    if (g->phase != PHASE_OVER) tw_key_num(w, "to_move", g->to_move + 1);
    tw_key_str(w, "phase", phase_name[g->phase]);
    tw_key_bool(w, "migrated", g->migrated);
    tw_key_bool(w, "end_phase", g->end_phase);
    tw_key_num(w, "halve_left", g->halve_left);
    if (tw_key(w, "players")) {
        w->open_list(w);
        for (int who = 0; who < 2; who++) write_player(g, who, viewer, w);
        w->close(w);
    }
    const temple_pile *deck = &g->temple_deck;
    if (tw_key(w, "temple_deck")) {
        if (viewer < 0) write_levels(w, deck->card, deck->n);
        else w->num(w, deck->n);
    }
    if (tw_key(w, "temple_top")) write_levels(w, deck->card + deck->n - g->temple_known, g->temple_known);
    if (tw_key(w, "people_deck")) {
        if (viewer < 0) write_people(w, &g->people_deck);
        else w->num(w, g->people_deck.n);
    }
    if (tw_key(w, "discard")) write_people(w, &g->discard);
    w->close(w);
}

/* ---- reading a (partial) table ----
 * Zones the table names hold exactly what it lists; a hand or deck given as a number gets that many
 * cards dealt from those not listed anywhere; every other zone it leaves out is empty, except the
 * decks, which take every card left over (people left over when the people deck is named go to an
 * unnamed discard). Scalars not named take their values at the start of a turn. */

typedef struct table_cards {
    int people_left[NUM_PEOPLES];
    int temples_left[MAX_LEVEL + 1];
    int hand_wanted[2];       /* -1: listed or empty */
    int people_deck_wanted;   /* -1: listed; -2: not named */
    int temple_deck_wanted;   /* likewise */
    bool discard_named;
} table_cards;

static const char *const table_keys[] = {"game", "seed", "params", "turn", "active", "to_move",
                                         "phase", "migrated", "end_phase", "halve_left", "players",
                                         "temple_deck", "temple_top", "people_deck", "discard", NULL};
static const char *const player_keys[] = {"hand", "pawn", "reserve", "first_turn", "rows",
                                          "temples", NULL};
static const char *const location_keys[] = {"medes", "sumerians", "hittites", "persians",
                                            "assyrians", NULL};

/* Reads the list the reader is at as people cards, taking them from what is left. `add` receives
 * each card (onto a pile or into a hand). */
static bool take_people(tree_reader *r, table_cards *cards, void (*add)(void *, int), void *zone,
                        reason *why) {
    int n = r->length(r);
    if (n > PEOPLE_CARDS) return table_refuse(r, why, "more cards than the game has");
    for (int i = 1; i <= n; i++) {
        r->enter_index(r, i);
        const char *name = r->get_str(r);
        int people = name ? table_name_index(name, people_name, NUM_PEOPLES) : -1;
        bool ok = people >= 0 && cards->people_left[people] > 0;
        if (!ok) {
            char what[120];
            if (people < 0) snprintf(what, sizeof what, "'%.40s' is not a people", name ? name : "(not a name)");
            else snprintf(what, sizeof what, "more than %d %s cards in the table", CARDS_PER_PEOPLE, name);
            table_refuse(r, why, what);
        }
        r->leave(r);
        if (!ok) return false;
        cards->people_left[people]--;
        add(zone, people);
    }
    return true;
}

static void add_to_pile(void *zone, int people) { people_push(zone, people); }
static void add_to_hand(void *zone, int people) { ((uint8_t *)zone)[people]++; }

static bool take_levels(tree_reader *r, table_cards *cards, uint8_t *levels, uint8_t *count, int cap,
                        reason *why) {
    int n = r->length(r);
    if (n > cap) return table_refuse(r, why, "more temple cards than fit there");
    for (int i = 1; i <= n; i++) {
        int64_t level = 0;
        r->enter_index(r, i);
        bool is_level = r->kind(r) == TREE_NUM && r->get_int(r, &level) && level >= 1 && level <= MAX_LEVEL;
        bool ok = is_level && cards->temples_left[level] > 0;
        if (!ok) {
            char what[120];
            if (!is_level) snprintf(what, sizeof what, "a temple card is a level from 1 to 6");
            else snprintf(what, sizeof what, "more than %d temple cards of level %d in the table",
                          temple_copies[level], (int)level);
            table_refuse(r, why, what);
        }
        r->leave(r);
        if (!ok) return false;
        cards->temples_left[level]--;
        levels[(*count)++] = (uint8_t)level;
    }
    return true;
}

/* Enters `key` and reads a list of cards or a number of cards to deal; absent keys are left alone. */
static bool read_people_zone(tree_reader *r, const char *key, table_cards *cards,
                             void (*add)(void *, int), void *zone, int *wanted, reason *why) {
    tree_kind kind = r->enter_key(r, key);
    int64_t n = 0;
    bool ok = true;
    if (kind == TREE_TABLE) ok = take_people(r, cards, add, zone, why), *wanted = -1;
    else if (kind == TREE_NUM && r->get_int(r, &n) && n >= 0 && n <= PEOPLE_CARDS) *wanted = (int)n;
    else if (kind != TREE_ABSENT) ok = table_refuse(r, why, "a list of people cards or a number of cards");
    r->leave(r);
    return ok;
}

static const char *const pawn_places[] = {"medes", "sumerians", "hittites", "persians", "assyrians",
                                          "quarry"};

static bool read_rows_and_temples(tree_reader *r, babel_player *p, table_cards *cards, reason *why) {
    bool ok = true;
    if (r->enter_key(r, "rows") == TREE_TABLE) {
        ok = table_check_keys(r, location_keys, why);
        for (int loc = 0; ok && loc < NUM_PEOPLES; loc++) {
            int wanted = -1;
            ok = read_people_zone(r, people_name[loc], cards, add_to_pile, &p->row[loc], &wanted, why);
            if (ok && wanted >= 0) ok = table_refuse(r, why, "a row must list its cards");
        }
    } else if (r->kind(r) != TREE_ABSENT) {
        ok = table_refuse(r, why, "a map from location to people cards");
    }
    r->leave(r);
    if (!ok) return false;
    if (r->enter_key(r, "temples") == TREE_TABLE) {
        ok = table_check_keys(r, location_keys, why);
        for (int loc = 0; ok && loc < NUM_PEOPLES; loc++) {
            temple_site *site = &p->temple[loc];
            if (r->enter_key(r, people_name[loc]) == TREE_TABLE)
                ok = take_levels(r, cards, site->level, &site->n, MAX_LEVEL, why);
            else if (r->kind(r) != TREE_ABSENT)
                ok = table_refuse(r, why, "a list of temple levels");
            for (int i = 1; ok && i < site->n; i++)
                if (site->level[i] <= site->level[i - 1])
                    ok = table_refuse(r, why, "a temple's levels must rise from bottom to top");
            r->leave(r);
        }
    } else if (r->kind(r) != TREE_ABSENT) {
        ok = table_refuse(r, why, "a map from location to temple levels");
    }
    r->leave(r);
    return ok;
}

static bool read_player(tree_reader *r, babel *g, int who, table_cards *cards, reason *why) {
    babel_player *p = &g->player[who];
    p->pawn = QUARRY;
    if (!table_check_keys(r, player_keys, why)) return false;
    int pawn = QUARRY;
    bool ok = read_people_zone(r, "hand", cards, add_to_hand, p->hand, &cards->hand_wanted[who], why) &&
              table_read_name(r, "pawn", pawn_places, NUM_PEOPLES + 1, &pawn,
                        "a pawn stands at the quarry or at a location (medes, sumerians, hittites, "
                        "persians, assyrians)", why) &&
              table_read_bool(r, "first_turn", &p->first_turn, why);
    p->pawn = (uint8_t)pawn;
    if (!ok) return false;
    tree_kind kind = r->enter_key(r, "reserve");
    if (kind == TREE_TABLE) ok = take_levels(r, cards, p->reserve.card, &p->reserve.n, TEMPLE_CARDS, why);
    else if (kind != TREE_ABSENT) ok = table_refuse(r, why, "a list of temple levels");
    r->leave(r);
    return ok && read_rows_and_temples(r, p, cards, why);
}

static bool read_players(tree_reader *r, babel *g, table_cards *cards, reason *why) {
    tree_kind kind = r->enter_key(r, "players");
    bool ok = true;
    if (kind == TREE_TABLE) {
        if (r->length(r) != 2) ok = table_refuse(r, why, "Babel has exactly 2 players");
        for (int who = 0; ok && who < 2; who++) {
            if (r->enter_index(r, who + 1) == TREE_TABLE) ok = read_player(r, g, who, cards, why);
            else ok = table_refuse(r, why, "each player is a table");
            r->leave(r);
        }
    } else if (kind != TREE_ABSENT) {
        ok = table_refuse(r, why, "a list of the 2 players");
    } else {
        g->player[0].pawn = g->player[1].pawn = QUARRY;
    }
    r->leave(r);
    return ok;
}

static bool read_decks(tree_reader *r, babel *g, table_cards *cards, reason *why) {
    bool ok = read_people_zone(r, "people_deck", cards, add_to_pile, &g->people_deck,
                               &cards->people_deck_wanted, why);
    tree_kind kind = r->enter_key(r, "discard");
    cards->discard_named = kind != TREE_ABSENT;
    if (ok && kind == TREE_TABLE) ok = take_people(r, cards, add_to_pile, &g->discard, why);
    else if (ok && kind != TREE_ABSENT) ok = table_refuse(r, why, "a list of people cards");
    r->leave(r);
    if (!ok) return false;

    temple_pile top = {0};
    kind = r->enter_key(r, "temple_top");
    if (kind == TREE_TABLE) ok = take_levels(r, cards, top.card, &top.n, TEMPLE_CARDS, why);
    else if (kind != TREE_ABSENT) ok = table_refuse(r, why, "a list of temple levels");
    r->leave(r);
    if (!ok) return false;
    g->temple_known = top.n;

    kind = r->enter_key(r, "temple_deck");
    int64_t n = 0;
    if (kind == TREE_TABLE) {
        /* A listed deck holds the known top cards itself: give them back, then check they match. */
        for (int i = 0; i < top.n; i++) cards->temples_left[top.card[i]]++;
        ok = take_levels(r, cards, g->temple_deck.card, &g->temple_deck.n, TEMPLE_CARDS, why);
        cards->temple_deck_wanted = -1;
        for (int i = 0; ok && i < top.n; i++)
            if (g->temple_deck.n < top.n ||
                g->temple_deck.card[g->temple_deck.n - top.n + i] != top.card[i])
                ok = table_refuse(r, why, "temple_top must be the last cards of temple_deck");
    } else if (kind == TREE_NUM && r->get_int(r, &n) && n >= top.n && n <= TEMPLE_CARDS) {
        cards->temple_deck_wanted = (int)n - top.n;
    } else if (kind != TREE_ABSENT) {
        ok = table_refuse(r, why, "a list of temple levels, or their number (counting temple_top)");
    }
    r->leave(r);
    if (ok && cards->temple_deck_wanted != -1) {
        /* Dealt below; the known cards go on top afterwards, so keep them aside in the deck's tail. */
        memcpy(g->temple_deck.card + TEMPLE_CARDS - top.n, top.card, top.n);
    }
    return ok;
}

/* Deals the cards no zone listed: first the numbers asked for, then the rest to the decks. */
static bool deal_rest(babel *g, table_cards *cards, reason *why) {
    uint8_t people[PEOPLE_CARDS];
    int n = 0;
    for (int p = 0; p < NUM_PEOPLES; p++)
        for (int c = 0; c < cards->people_left[p]; c++) people[n++] = (uint8_t)p;
    rng_shuffle_bytes(&g->rng, people, n);
    for (int who = 0; who < 2; who++)
        for (int c = 0; c < cards->hand_wanted[who]; c++) {
            if (!n) return deny(why, "not enough people cards are left to deal players[%d].hand", who + 1);
            g->player[who].hand[people[--n]]++;
        }
    int deck_cards = cards->people_deck_wanted == -2 ? n : cards->people_deck_wanted;
    for (int c = 0; c < deck_cards && cards->people_deck_wanted != -1; c++) {
        if (!n) return deny(why, "not enough people cards are left to deal the people_deck");
        people_push(&g->people_deck, people[--n]);
    }
    if (n && !cards->discard_named)
        while (n) people_push(&g->discard, people[--n]);
    if (n) return deny(why, "%d people cards are placed nowhere (each people has %d)", n, CARDS_PER_PEOPLE);

    uint8_t temples[TEMPLE_CARDS];
    int t = 0;
    for (int level = 1; level <= MAX_LEVEL; level++)
        for (int c = 0; c < cards->temples_left[level]; c++) temples[t++] = (uint8_t)level;
    if (cards->temple_deck_wanted == -1) {
        if (t) return deny(why, "%d temple cards are placed nowhere (leave temple_deck out to have "
                           "them dealt there)", t);
        return true;
    }
    int wanted = cards->temple_deck_wanted == -2 ? t : cards->temple_deck_wanted;
    if (wanted != t)
        return deny(why, "temple_deck asks for %d unknown cards, but %d are left", wanted, t);
    rng_shuffle_bytes(&g->rng, temples, t);
    uint8_t known[TEMPLE_CARDS];
    memcpy(known, g->temple_deck.card + TEMPLE_CARDS - g->temple_known, g->temple_known);
    memcpy(g->temple_deck.card, temples, (size_t)t);
    memcpy(g->temple_deck.card + t, known, g->temple_known);
    g->temple_deck.n = (uint8_t)(t + g->temple_known);
    return true;
}

static bool read_flow(tree_reader *r, babel *g, reason *why) {
    int turn = 1, active = 1, phase = PHASE_ACTIONS, to_move = 0, halve_left = 0;
    bool ok = table_read_int(r, "turn", 1, 65535, &turn, why) && table_read_int(r, "active", 1, 2, &active, why) &&
              table_read_name(r, "phase", phase_name, 3, &phase, "phase is actions, halve or over", why) &&
              table_read_int(r, "to_move", 1, 2, &to_move, why) &&
              table_read_int(r, "halve_left", 0, PEOPLE_CARDS, &halve_left, why) &&
              table_read_bool(r, "migrated", &g->migrated, why) &&
              table_read_bool(r, "end_phase", &g->end_phase, why);
    if (!ok) return false;
    g->turn = (uint16_t)turn;
    g->active = (uint8_t)(active - 1);
    g->phase = (uint8_t)phase;
    int mover = phase == PHASE_HALVE ? 1 - g->active : g->active;
    if (to_move && to_move - 1 != mover)
        return deny(why, "to_move: in phase %s player %d decides, not %d", phase_name[phase], mover + 1, to_move);
    g->to_move = phase == PHASE_OVER ? 0xff : (uint8_t)mover;
    if (phase == PHASE_HALVE) {
        int hand = hand_size(&g->player[mover]);
        if (!halve_left) halve_left = hand / 2 ? hand / 2 : 1;
        if (halve_left > hand)
            return deny(why, "halve_left: player %d holds only %d cards", mover + 1, hand);
    } else if (halve_left) {
        return deny(why, "halve_left: only phase halve has cards left to discard");
    }
    g->halve_left = (uint8_t)halve_left;
    return true;
}

static bool babel_validate(const void *st, reason *why);

static bool babel_read_table(void *st, tree_reader *r, const param_value *params, uint64_t seed,
                             reason *why) {
    babel *g = st;
    memset(g, 0, sizeof *g);
    g->rules = rules_from_params(params);
    rng_seed(&g->rng, seed, BABEL_RNG_STREAM);
    table_cards cards = {.hand_wanted = {-1, -1}, .people_deck_wanted = -2, .temple_deck_wanted = -2};
    for (int p = 0; p < NUM_PEOPLES; p++) cards.people_left[p] = CARDS_PER_PEOPLE;
    memcpy(cards.temples_left, temple_copies, sizeof temple_copies);
    if (!table_check_keys(r, table_keys, why) || !read_players(r, g, &cards, why) ||
        !read_decks(r, g, &cards, why) || !deal_rest(g, &cards, why) || !read_flow(r, g, why))
        return false;
    if (!babel_validate(g, why)) return false;
    check_end(g);
    return true;
}

/* ==================================================================== invariants */

static bool babel_validate(const void *st, reason *why) {
    const babel *g = st;
    int people[NUM_PEOPLES] = {0}, levels[MAX_LEVEL + 1] = {0};
    if (!bytes_are_bools(&g->player[0].first_turn, 1) || !bytes_are_bools(&g->player[1].first_turn, 1) ||
        !bytes_are_bools(&g->migrated, 1) || !bytes_are_bools(&g->end_phase, 1) ||
        !bytes_are_bools(&g->rules.sumerians_all, 1))
        return deny(why, "a yes-or-no field of the state is damaged");
    const people_pile *piles[2 + 2 * NUM_PEOPLES];
    int np = 0;
    piles[np++] = &g->people_deck;
    piles[np++] = &g->discard;
    for (int who = 0; who < 2; who++) {
        const babel_player *p = &g->player[who];
        if (p->pawn > QUARRY) return deny(why, "player %d's pawn is nowhere", who + 1);
        for (int k = 0; k < NUM_PEOPLES; k++) people[k] += p->hand[k];
        for (int loc = 0; loc < NUM_PEOPLES; loc++) {
            piles[np++] = &p->row[loc];
            const temple_site *site = &p->temple[loc];
            if (site->n > MAX_LEVEL) return deny(why, "a temple is higher than six cards");
            for (int i = 0; i < site->n; i++) {
                if (site->level[i] < 1 || site->level[i] > MAX_LEVEL) return deny(why, "a temple card has no level");
                if (i && site->level[i] <= site->level[i - 1])
                    return deny(why, "player %d's temple at the %s does not rise: %d on %d", who + 1,
                                people_name[loc], site->level[i], site->level[i - 1]);
                levels[site->level[i]]++;
            }
        }
    }
    for (int i = 0; i < np; i++) {
        if (piles[i]->n > PEOPLE_CARDS) return deny(why, "a pile holds more cards than the game has");
        for (int c = 0; c < piles[i]->n; c++) {
            if (piles[i]->card[c] >= NUM_PEOPLES) return deny(why, "a people card has no people");
            people[piles[i]->card[c]]++;
        }
    }
    const temple_pile *stacks[3] = {&g->temple_deck, &g->player[0].reserve, &g->player[1].reserve};
    for (int i = 0; i < 3; i++) {
        if (stacks[i]->n > TEMPLE_CARDS) return deny(why, "a pile holds more temple cards than the game has");
        for (int c = 0; c < stacks[i]->n; c++) {
            int level = stacks[i]->card[c];
            if (level < 1 || level > MAX_LEVEL) return deny(why, "a temple card has no level");
            levels[level]++;
        }
    }
    for (int k = 0; k < NUM_PEOPLES; k++)
        if (people[k] != CARDS_PER_PEOPLE)
            return deny(why, "there are %d %s cards; the game has %d", people[k], people_name[k], CARDS_PER_PEOPLE);
    for (int level = 1; level <= MAX_LEVEL; level++)
        if (levels[level] != temple_copies[level])
            return deny(why, "there are %d temple cards of level %d; the game has %d", levels[level],
                        level, temple_copies[level]);
    if (g->temple_known > g->temple_deck.n) return deny(why, "more known temple cards than the deck holds");
    if (g->active > 1 || g->phase > PHASE_OVER) return deny(why, "the turn order is damaged");
    bool mover_ok = g->phase == PHASE_OVER     ? g->to_move == 0xff
                  : g->phase == PHASE_ACTIONS ? g->to_move == g->active && !g->halve_left
                  : g->to_move == 1 - g->active && g->halve_left >= 1 &&
                        g->halve_left <= hand_size(&g->player[g->to_move]);
    if (!mover_ok) return deny(why, "whose decision it is does not fit the phase");
    const babel_rules *r = &g->rules;
    if (r->triple < 2 || r->migrate_count < 1 || r->draw_temples < 1 || r->end_total < 1 ||
        r->end_phase_total < 1 || r->triple > 12 || r->migrate_count > 12 || r->draw_temples > 6 ||
        r->draw_people > 12 || r->end_total > 30 || r->end_floor > 30 || r->end_phase_total > 30)
        return deny(why, "the rule parameters are out of range");
    return true;
}

/* ==================================================================== sampling */

/* Re-deals what `viewer` cannot see: the opponent's hand with the people deck (one pool: the viewer
 * knows only their sizes) and the unknown part of the temple deck. Each is shuffled from its cards
 * sorted, never from their true order, so the sample is the same for every state the viewer cannot
 * tell from this one. The generator is reseeded too, so later reshuffles reveal nothing of the true game. */
static void babel_sample(void *st, int viewer, rng *r) {
    babel *g = st;
    babel_player *other = &g->player[1 - viewer];
    uint8_t pool[PEOPLE_CARDS];
    int n = 0, hand = hand_size(other);
    for (int p = 0; p < NUM_PEOPLES; p++)
        for (int c = 0; c < other->hand[p]; c++) pool[n++] = (uint8_t)p;
    memcpy(pool + n, g->people_deck.card, g->people_deck.n);
    n += g->people_deck.n;
    rng_shuffle_multiset(r, pool, n);
    memset(other->hand, 0, sizeof other->hand);
    for (int c = 0; c < hand; c++) other->hand[pool[c]]++;
    memcpy(g->people_deck.card, pool + hand, (size_t)(n - hand));
    rng_shuffle_multiset(r, g->temple_deck.card, g->temple_deck.n - g->temple_known);
    uint64_t seed = rng_next64(r);
    rng_seed(&g->rng, seed, BABEL_RNG_STREAM);
}

/* ==================================================================== variants' primitives */

/* Babel's zones: hands (unordered), people stacks (rows, the people deck, the discard), temple stacks
 * (reserves, the temple deck) and temple sites (which must keep rising). */
typedef enum { ZONE_HAND, ZONE_PEOPLE, ZONE_TEMPLES, ZONE_SITE } zone_kind;
typedef struct zone {
    zone_kind kind;
    void *at;
    bool temple_deck;
} zone;

static bool babel_zone(babel *g, const char *text, zone *z, reason *why) {
    table_path path;
    if (!table_path_parse(text, 2, &path, why)) return false;
    int loc = path.sub[0] ? table_name_index(path.sub, people_name, NUM_PEOPLES) : -1;
    z->temple_deck = false;
    if (path.player < 0 && !path.sub[0]) {
        if (strcmp(path.key, "people_deck") == 0) return *z = (zone){ZONE_PEOPLE, &g->people_deck, false}, true;
        if (strcmp(path.key, "discard") == 0) return *z = (zone){ZONE_PEOPLE, &g->discard, false}, true;
        if (strcmp(path.key, "temple_deck") == 0) return *z = (zone){ZONE_TEMPLES, &g->temple_deck, true}, true;
    } else if (path.player >= 0) {
        babel_player *p = &g->player[path.player];
        if (!path.sub[0] && strcmp(path.key, "hand") == 0) return *z = (zone){ZONE_HAND, p->hand, false}, true;
        if (!path.sub[0] && strcmp(path.key, "reserve") == 0) return *z = (zone){ZONE_TEMPLES, &p->reserve, false}, true;
        if (loc >= 0 && strcmp(path.key, "rows") == 0) return *z = (zone){ZONE_PEOPLE, &p->row[loc], false}, true;
        if (loc >= 0 && strcmp(path.key, "temples") == 0) return *z = (zone){ZONE_SITE, &p->temple[loc], false}, true;
    }
    return deny(why, "'%.60s' is no zone; zones: players[N].hand, players[N].reserve, players[N].rows.P, "
                "players[N].temples.P, people_deck, temple_deck, discard", text);
}

static bool is_people_zone(const zone *z) { return z->kind == ZONE_HAND || z->kind == ZONE_PEOPLE; }

/* Takes one card (`card` names it; NULL takes the top) out of a zone: its people or level. */
static int zone_take(babel *g, zone *z, const char *card, reason *why) {
    int wanted = -1;
    if (card) {
        if (is_people_zone(z)) wanted = table_name_index(card, people_name, NUM_PEOPLES);
        else wanted = atoi(card);
        if (wanted < 0 || (!is_people_zone(z) && (wanted < 1 || wanted > MAX_LEVEL)))
            return deny(why, "'%.40s' is not a card of that zone", card), -1;
    }
    switch (z->kind) {
    case ZONE_HAND: {
        uint8_t *hand = z->at;
        if (wanted < 0) return deny(why, "say which card: a hand has no top"), -1;
        if (!hand[wanted]) return deny(why, "there is no %s card there", people_name[wanted]), -1;
        hand[wanted]--;
        return wanted;
    }
    case ZONE_PEOPLE: {
        people_pile *pile = z->at;
        for (int i = pile->n - 1; i >= 0; i--)
            if (wanted < 0 || pile->card[i] == wanted) return people_take_at(pile, i);
        return deny(why, wanted < 0 ? "the zone is empty" : "there is no such card there"), -1;
    }
    case ZONE_TEMPLES: {
        temple_pile *pile = z->at;
        for (int i = pile->n - 1; i >= 0; i--)
            if (wanted < 0 || pile->card[i] == wanted) {
                int level = pile->card[i];
                if (z->temple_deck && i >= pile->n - g->temple_known) g->temple_known--;
                memmove(&pile->card[i], &pile->card[i + 1], (size_t)(pile->n - i - 1));
                pile->n--;
                return level;
            }
        return deny(why, wanted < 0 ? "the zone is empty" : "there is no such card there"), -1;
    }
    case ZONE_SITE: {
        temple_site *site = z->at;
        for (int i = site->n - 1; i >= 0; i--)
            if (wanted < 0 || site->level[i] == wanted) {
                int level = site->level[i];
                memmove(&site->level[i], &site->level[i + 1], (size_t)(site->n - i - 1));
                site->n--;
                return level;
            }
        return deny(why, wanted < 0 ? "the zone is empty" : "there is no such card there"), -1;
    }
    }
    return -1;
}

/* Slides a pile's cards up one and lays `card` at the bottom (a pile has room for every card of its
 * kind, and the card came from another zone). */
static void put_bottom(uint8_t *cards, uint8_t *n, int card) {
    memmove(cards + 1, cards, *n);
    cards[0] = (uint8_t)card;
    (*n)++;
}

static bool zone_put(babel *g, zone *z, int card, bool to_bottom, reason *why) {
    switch (z->kind) {
    case ZONE_HAND: ((uint8_t *)z->at)[card]++; return true;
    case ZONE_PEOPLE: {
        people_pile *pile = z->at;
        if (to_bottom) put_bottom(pile->card, &pile->n, card);
        else people_push(pile, card);
        return true;
    }
    case ZONE_TEMPLES: {
        temple_pile *pile = z->at;
        if (to_bottom) {
            put_bottom(pile->card, &pile->n, card);
        } else {
            temple_push(pile, card);
            /* A card a house rule lays on the temple deck is seen by both, like collapsed ones. */
            if (z->temple_deck) g->temple_known++;
        }
        return true;
    }
    case ZONE_SITE: {
        temple_site *site = z->at;
        bool rises = to_bottom ? site->n == 0 || card < site->level[0] : card > site_top(site);
        if (!rises || site->n == MAX_LEVEL) return deny(why, "a temple's levels must rise from bottom to top");
        if (to_bottom) memmove(site->level + 1, site->level, site->n);
        site->level[to_bottom ? 0 : site->n] = (uint8_t)card;
        site->n++;
        return true;
    }
    }
    return false;
}

static bool babel_move(void *st, const char *from, const char *to, const card_move *m, reason *why) {
    babel *g = st, before = *g;
    zone src, dst;
    bool ok = babel_zone(g, from, &src, why) && babel_zone(g, to, &dst, why);
    if (ok && is_people_zone(&src) != is_people_zone(&dst))
        ok = deny(why, "people cards and temple cards have zones of their own");
    for (int i = 0; ok && i < (m->count > 0 ? m->count : 1); i++) {
        int card = zone_take(g, &src, m->card, why);
        ok = card >= 0 && zone_put(g, &dst, card, m->to_bottom, why);
    }
    if (ok) ok = babel_validate(g, why);
    if (ok) check_end(g);
    else *g = before;
    return ok;
}

static bool babel_add(void *st, const char *counter, int delta, reason *why) {
    (void)st;
    (void)delta;
    return deny(why, "Babel has no counters ('%.40s'): move cards instead", counter);
}

/* ==================================================================== the catalogue */

static const char *const people_ability[NUM_PEOPLES] = {
    "expel Q: every Q card in the opponent's row here goes to the discard",
    "switch: the run of identical cards on top of the opponent's row here moves onto yours",
    "steal: the opponent's top temple card here onto your temple here, if higher than your top",
    "leap own|opp: build two levels up from either reserve",
    "collapse: the opponent's temple here goes onto the temple deck",
};
static const char *const level_name[MAX_LEVEL + 1] = {"0", "1", "2", "3", "4", "5", "6"};

/* The people (12 cards each, with the ability a run of 3 gives) and the temple levels. */
static void babel_write_cards(const void *st, tree_writer *w) {
    (void)st;
    w->open_map(w);
    for (int p = 0; p < NUM_PEOPLES; p++) {
        w->key(w, people_name[p]);
        w->open_map(w);
        tw_key_str(w, "kind", "people");
        tw_key_num(w, "count", CARDS_PER_PEOPLE);
        tw_key_str(w, "text", people_ability[p]);
        w->close(w);
    }
    for (int level = 1; level <= MAX_LEVEL; level++) {
        w->key(w, level_name[level]);
        w->open_map(w);
        tw_key_str(w, "kind", "temple");
        tw_key_num(w, "count", temple_copies[level]);
        tw_key_num(w, "level", level);
        w->close(w);
    }
    w->close(w);
}

/* ==================================================================== the definition */

static const char babel_rules_text[] =
    "Babel — two players build temples at five locations with the help of five peoples.\n"
    "\n"
    "Cards: 45 temple cards (10x1 9x2 8x3 7x4 6x5 5x6), 60 people cards, 12 each of medes,\n"
    "sumerians, hittites, persians and assyrians. Each player has, at each of the five locations,\n"
    "a people row (bottom to top, order matters) and a temple site; a temple reserve (only its top\n"
    "card can be taken), a hidden hand, and a pawn that starts at the quarry.\n"
    "\n"
    "Setup: each player gets a level-1 temple card as their reserve; the other 43 are the temple\n"
    "deck. Each hand gets 5 people cards. Player 1 starts.\n"
    "\n"
    "A turn: (1) draw 3 people cards (an empty deck takes the shuffled discard); (2) any actions,\n"
    "in any order, migration at most once; (3) `end`: draw 2 temple cards onto your reserve, the\n"
    "higher first so the lower lies on top (1 if only 1 is left).\n"
    "\n"
    "Actions:\n"
    "  travel P     discard a P card, your pawn moves to location P\n"
    "  settle P     a P card from hand onto your row where your pawn stands\n"
    "  build own|opp  the top card of your / the opponent's reserve onto your temple here; it must\n"
    "               be exactly one level up (1 on an empty site) and your row here must hold at\n"
    "               least that many cards (a built level stays if the row shrinks later)\n"
    "  migrate X Y  once a turn, anywhere: the top 3 cards of your row at X onto your row at Y\n"
    "  abilities    need 3+ identical adjacent cards (anywhere) in your row where your pawn stands;\n"
    "               using one discards a card of that run (a run of 4+ can pay again):\n"
    "    collapse   assyrians: the opponent's temple here goes onto the temple deck, highest first,\n"
    "               so its lowest card is drawn next\n"
    "    steal      hittites: the opponent's top temple card here onto your temple here, if higher\n"
    "               than your top (skipping is fine); your row needs that many cards, counting the\n"
    "               hittite you discard\n"
    "    expel Q    medes: every Q card in the opponent's row here goes to the discard\n"
    "    switch     sumerians: the run of identical cards on top of the opponent's row here moves\n"
    "               onto your row, order kept\n"
    "    leap own|opp  persians: build two levels up (an empty site takes a 2) from either\n"
    "               reserve; your row needs that many cards, counting the persian you discard\n"
    "    halve P    any people's triple instead of its ability: the opponent discards half their\n"
    "               hand, rounded down, choosing one card at a time (`discard P`)\n"
    "  end          end the action phase\n"
    "Where your row has two separate qualifying runs of the same people, an ability names its run by\n"
    "the row position of the run's bottom card: `switch @1`. Actions are lower case, as listed by\n"
    "s:legal(); settling one of two identical cards is one action.\n"
    "\n"
    "Scoring and the end: a temple's height is its top card's level; your total is the sum of your\n"
    "heights. After every action and draw: reaching 15 while the opponent has under 10 ends the\n"
    "game; reaching 15 while the opponent has 10 or more starts the end phase, which ends the game\n"
    "as soon as a player has 20 or a total falls under 10. Drawing the last temple card ends the\n"
    "game at once. The higher total wins; a tie goes to the player with more hand cards.\n"
    "\n"
    "Rulings (this project's, where the texts are silent):\n"
    "  - The German text stands where the rule texts differ.\n"
    "  - Drawing from an empty people deck and an empty discard draws what there is.\n"
    "  - travel must move the pawn: the destination differs from where it stands.\n"
    "  - The first turn's duty: ending is illegal while your starting level-1 card is still in your\n"
    "    reserve; it lapses if the opponent took it, and when building it is impossible: your hand is\n"
    "    empty and build own is not legal now (people already at your pawn's place may allow it).\n"
    "  - collapse needs an opponent temple here; expel Q needs a Q in the opponent's row here;\n"
    "    halve needs the opponent to hold at least 2 cards (it must discard something).\n"
    "  - With two separate qualifying runs of one people, the action names its run (@N).\n"
    "  - End conditions are checked at once after every action and draw; the end phase lasts even\n"
    "    if totals fall back under 15.\n"
    "  - Hand sizes are public at all times; a tie in totals and hand sizes is a draw.\n"
    "  - The collapsed temple cards put on the deck are known to both players until drawn.\n"
    "  - A game may never end, as the texts allow: collapsed temples go back on the temple deck and\n"
    "    the discard becomes the people deck, so totals can stay between 10 and 19 in the end phase\n"
    "    for good. `meeple match` ends such a game unfinished at --max-decisions (2000 by\n"
    "    default), counted as a draw shared by both players.\n"
    "  - A halving's discards are the opponent's decisions, taken in the middle of the turn.\n"
    "\n"
    "State table: game, turn, active (whose turn), to_move (who decides now; the opponent while\n"
    "halving), phase (actions, halve, over), migrated, end_phase, halve_left, players[i] = {hand,\n"
    "pawn, reserve, first_turn, rows = {medes = {...}, ...}, temples = {medes = {1, 2}, ...}},\n"
    "temple_deck, temple_top (the known top cards), people_deck, discard. In a player's view the\n"
    "opponent's hand and both decks are their sizes.\n"
    "meeple.from_table: zones a table names hold exactly what it lists; a hand or deck given as a\n"
    "number is dealt that many cards from those listed nowhere; other zones left out are empty,\n"
    "except the decks, which take every remaining card (people left over when the people deck is\n"
    "named go to the discard, if that is not named). Scalars left out are as at the start of a\n"
    "turn: pawn at the quarry, first_turn false, turn 1, player 1 active. The end conditions are\n"
    "checked when the table is read.\n";

_Static_assert(sizeof(babel) <= MEEPLE_MAX_STATE, "a state must fit MEEPLE_MAX_STATE (game.h)");

/* ==================================================================== playout policy */

/* A search playout's choice, as greedy_babel plays (bots/greedy_babel.lua): leap, steal and build
 * whenever it can (the opponent's card first), collapse the leader's or a tall temple, halve a full
 * hand, discard the people held most; every other action by its one-ply worth, the position after it
 * valued as greedy_babel's `value` does, and ending the turn worth the position as it stands plus a
 * little. Imagined opponents then play as the real greedy one does. The worths below are that value's
 * change, in units of 1/1200 (every weight and fraction of `value` is a whole number of them), so
 * positions of equal value tie exactly, where Lua's floating point can leave a hair between them.
 * Settling, travelling and migrating, nearly every decision, are worked out from what they change,
 * without copying the state; the rare rest is tried on a copy. */
#define V_UNIT 1200
/* greedy_babel's weights, in those units (the Lua weight beside each) */
enum {
    W_TEMPLE_LEVEL = 12000, /* 10 a level of temple ahead */
    W_BONUS_AT_PAWN = 1800, /* 1.5 a next level the reserves offer, with the pawn there */
    W_BONUS = 840,          /* 0.7 elsewhere */
    W_TRIPLE = 480,         /* 0.4 a triple in a row */
    W_PAWN_NEAR = 1440,     /* 1.2 the pawn where the hand can fill the row to the next level */
    W_PAWN = 720,           /* 0.6 the pawn elsewhere but the quarry */
    W_MY_CARD = 420,        /* 0.35 a card in my hand, up to 10 */
    W_THEIR_CARD = 240,     /* 0.2 a card in theirs, up to 10, and a card they still have to discard */
    W_END = 60,             /* 0.05 ending the turn: the position as it stands, and a little more */
};
/* The policy's worths: the bands of greedy_babel's rules above every one-ply worth. */
#define BAND(rank) (1000000 * (rank))

/* The level a player's temple at `loc` needs next; above MAX_LEVEL when it is complete. */
static int next_level(const babel_player *pl, int loc) { return site_top(&pl->temple[loc]) + 1; }

static bool a_reserve_offers(const babel *g, int level) {
    return temple_top(&g->player[0].reserve) == level || temple_top(&g->player[1].reserve) == level;
}

/* Triples as greedy_babel counts them: each time a run of one people reaches three. These are the
 * triples `more` (k cards) adds when laid on top of `row` (n cards): only the row's top run matters,
 * and only up to three (a longer run counted its triple already). */
static int triples_added(const uint8_t *row, int n, const uint8_t *more, int k) {
    int run = 0, last = n ? row[n - 1] : -1;
    while (run < 3 && run < n && row[n - 1 - run] == last) run++;
    int triples = 0;
    for (int i = 0; i < k; i++) {
        run = more[i] == last ? run + 1 : 1;
        last = more[i];
        triples += run == 3;
    }
    return triples;
}

static int triples_in(const people_pile *row) { return triples_added(NULL, 0, row->card, row->n); }

/* What a row of `n` cards promises at site `loc`, its triples aside: progress toward the next level,
 * and a bonus where that level is on top of a reserve (more where the pawn stands). */
/* V_UNIT * m / need for a row of m cards (m at most need) toward a next level of `need`: looked up,
 * as a division would cost a playout decision more than the rest of the promise. */
#define PROGRESS(need)                                                                             \
    {V_UNIT * 0 / (need), V_UNIT * 1 / (need), V_UNIT * 2 / (need), V_UNIT * 3 / (need),           \
     V_UNIT * 4 / (need), V_UNIT * 5 / (need), V_UNIT * 6 / (need)}
static const int16_t progress[MAX_LEVEL + 1][MAX_LEVEL + 1] = {
    {0}, PROGRESS(1), PROGRESS(2), PROGRESS(3), PROGRESS(4), PROGRESS(5), PROGRESS(6)};
_Static_assert(MAX_LEVEL == 6, "progress[] has a row for every level");

static int site_promise(const babel *g, const babel_player *pl, int loc, int pawn, int n) {
    int need = next_level(pl, loc);
    if (need > MAX_LEVEL) return 0;
    if (n < need) return progress[need][n];
    int v = V_UNIT;
    if (a_reserve_offers(g, need)) v += pawn == loc ? W_BONUS_AT_PAWN : W_BONUS;
    return v;
}

/* A row's whole promise at `loc`, its triples counted. */
static int row_promise(const babel *g, const babel_player *pl, int loc, int pawn) {
    const people_pile *row = &pl->row[loc];
    return site_promise(g, pl, loc, pawn, row->n) + W_TRIPLE * triples_in(row);
}

/* What the pawn standing at `loc` adds to its site's promise. */
static int pawn_bonus(const babel *g, const babel_player *pl, int loc) {
    if (loc == QUARRY) return 0;
    int need = next_level(pl, loc); /* site_promise's bonus at the pawn less its bonus elsewhere */
    bool offered = need <= MAX_LEVEL && pl->row[loc].n >= need && a_reserve_offers(g, need);
    return offered ? W_BONUS_AT_PAWN - W_BONUS : 0;
}

/* The pawn where a few more settlers reach the next level is worth a card; at the quarry nothing. */
static int pawn_worth(const babel_player *pl, int pawn, int row_n, int hand) {
    if (pawn == QUARRY) return 0;
    return next_level(pl, pawn) - row_n <= hand ? W_PAWN_NEAR : W_PAWN;
}

/* A hand of `hand` cards at `weight` a card, counted up to ten. */
static int hand_worth(int hand, int weight) { return weight * (hand < 10 ? hand : 10); }

/* greedy_babel's value of the whole position to seat `me`. */
static int position_value(const babel *g, int me) {
    const babel_player *mine = &g->player[me], *theirs = &g->player[1 - me];
    int v = W_TEMPLE_LEVEL * (total(g, me) - total(g, 1 - me));
    for (int loc = 0; loc < NUM_PEOPLES; loc++)
        v += 2 * row_promise(g, mine, loc, mine->pawn) - row_promise(g, theirs, loc, theirs->pawn);
    v += hand_worth(hand_size(mine), W_MY_CARD) - hand_worth(hand_size(theirs), W_THEIR_CARD);
    if (mine->pawn != QUARRY) v += pawn_worth(mine, mine->pawn, mine->row[mine->pawn].n, hand_size(mine));
    if (g->phase == PHASE_HALVE && g->to_move != me) v += W_THEIR_CARD * g->halve_left;
    return v;
}

/* Travelling to `loc`: one card fewer, the pawn's bonus and worth move with it. */
static int travel_gain(const babel *g, const babel_player *me, int loc, int hand) {
    int from = me->pawn;
    int v = hand_worth(hand - 1, W_MY_CARD) - hand_worth(hand, W_MY_CARD);
    v += 2 * (pawn_bonus(g, me, loc) - pawn_bonus(g, me, from));
    if (from != QUARRY) v -= pawn_worth(me, from, me->row[from].n, hand);
    return v + pawn_worth(me, loc, me->row[loc].n, hand - 1);
}

/* Settling people `p` at the pawn: one card fewer, one more in the row, and a triple where the row's
 * top run of `p` was two long. */
static int settle_gain(const babel *g, const babel_player *me, int p, int hand) {
    int at = me->pawn;
    const people_pile *row = &me->row[at];
    int n = row->n;
    uint8_t card = (uint8_t)p;
    int v = hand_worth(hand - 1, W_MY_CARD) - hand_worth(hand, W_MY_CARD);
    v += 2 * W_TRIPLE * triples_added(row->card, n, &card, 1);
    v += 2 * (site_promise(g, me, at, at, n + 1) - site_promise(g, me, at, at, n));
    return v + pawn_worth(me, at, n + 1, hand - 1) - pawn_worth(me, at, n, hand);
}

/* Migrating the top cards of row `from` onto row `to`: the triples they made there go, the ones
 * they make on top of `to` come. */
static int migrate_gain(const babel *g, const babel_player *me, int from, int to) {
    const people_pile *src = &me->row[from], *dst = &me->row[to];
    int count = g->rules.migrate_count, left = src->n - count, pawn = me->pawn;
    const uint8_t *moved = src->card + left;
    int made = triples_added(dst->card, dst->n, moved, count);
    int lost = triples_added(src->card, left, moved, count);
    int v = 2 * (site_promise(g, me, from, pawn, left) - site_promise(g, me, from, pawn, src->n) +
                 site_promise(g, me, to, pawn, dst->n + count) - site_promise(g, me, to, pawn, dst->n) +
                 W_TRIPLE * (made - lost));
    if (pawn != from && pawn != to) return v;
    int hand = hand_size(me);
    if (pawn == from) v += pawn_worth(me, pawn, left, hand) - pawn_worth(me, pawn, src->n, hand);
    if (pawn == to) v += pawn_worth(me, pawn, dst->n + count, hand) - pawn_worth(me, pawn, dst->n, hand);
    return v;
}

/* Any other action, tried on a copy (an ability, or a collapse or halving the bands pass over). */
static NOT_INLINED int tried_gain(const babel *g, action_t a) {
    babel after = *g;
    babel_apply(&after, a);
    return position_value(&after, g->to_move) - position_value(g, g->to_move);
}

/* Where nothing beats ending the turn but the first turn's duty forbids it, greedy_babel plays the
 * first legal action: the earlier an action is listed, the more it is worth (all below any gain). */
static int listed_worth(const babel *g, action_t a) {
    action_t legal[MEEPLE_MAX_ACTIONS];
    int n = babel_legal(g, legal), i = 0;
    while (i < n && legal[i] != a) i++;
    return -1 - i;
}

/* One ply: twice the value's change, and one more for ending the turn, which greedy_babel keeps on
 * a tie. */
static int one_ply_worth(const babel *g, action_t a) {
    const babel_player *me = &g->player[g->to_move];
    int worth;
    switch (act_kind(a)) {
    case ACT_END: return 2 * W_END + 1;
    case ACT_TRAVEL: worth = 2 * travel_gain(g, me, act_arg(a), hand_size(me)); break;
    case ACT_SETTLE: worth = 2 * settle_gain(g, me, act_arg(a), hand_size(me)); break;
    case ACT_MIGRATE: worth = 2 * migrate_gain(g, me, act_arg(a), act_dest(a)); break;
    default: worth = 2 * tried_gain(g, a); break;
    }
    return worth <= 2 * W_END && me->first_turn && !end_allowed(g, NULL) ? listed_worth(g, a) : worth;
}

/* greedy_babel's guard on a collapse: the opponent leads (or is level), or their temple here is tall. */
static bool collapse_wanted(const babel *g) {
    const babel_player *me = &g->player[g->to_move], *opp = &g->player[1 - g->to_move];
    return total(g, 1 - g->to_move) >= total(g, g->to_move) ||
           (me->pawn != QUARRY && site_top(&opp->temple[me->pawn]) >= 3);
}

/* What greedy_babel makes of `a`: its rule's band, or the action's one-ply worth. */
static int babel_playout_worth(const void *st, action_t a, rng *r) {
    (void)r; /* greedy_babel varies nowhere; equals go to the host's random tie-break */
    const babel *g = st;
    const babel_player *me = &g->player[g->to_move], *opp = &g->player[1 - g->to_move];
    switch (act_kind(a)) {
    case ACT_DISCARD: return BAND(20) + me->hand[act_arg(a)];
    case ACT_LEAP: return act_arg(a) == OPP ? BAND(19) : BAND(18);
    case ACT_STEAL: return BAND(17);
    case ACT_BUILD: return act_arg(a) == OPP ? BAND(16) : BAND(15);
    case ACT_COLLAPSE: return collapse_wanted(g) ? BAND(14) : one_ply_worth(g, a);
    case ACT_HALVE: return hand_size(opp) >= 6 ? BAND(13) : one_ply_worth(g, a);
    default: return one_ply_worth(g, a);
    }
}

/* What the worths of one decision's actions share, worked out once for them all. */
typedef struct policy_memo {
    int hand;                /* the mover's cards */
    bool common_known;       /* settle_common and travel_common worked out */
    int settle_common;       /* settle_gain but for a triple the card makes */
    int settle_pair;         /* the people whose run tops the pawn's row two long, else -1 */
    int travel_common;       /* travel_gain but for what the pawn brings where it goes */
    int fallback;            /* the first turn's duty forbids ending it: 1, else 0; -1 not yet known */
    int collapse;            /* collapse_wanted: 1 or 0; -1 not yet known */
    unsigned origins_known;  /* a bit for each row whose parts as an origin are worked out */
    unsigned dests_known;    /* ... and as a destination */
    int n[NUM_PEOPLES];      /* the row's cards (either) */
    int leave[NUM_PEOPLES];  /* (origin) migrating from the row: its promise's change, its lost triples */
    int arrive[NUM_PEOPLES]; /* (destination) migrating onto the row: its promise's change, triples aside */
    /* The triples a migration makes on top of its destination (triples_added), in parts: the
     * destination's top people (-1: empty) and its run (up to 3); the origin's moved cards' first
     * people, and the triples they make on a row topped by other people. */
    int top[NUM_PEOPLES], run[NUM_PEOPLES];
    int moved_first[NUM_PEOPLES], made_apart[NUM_PEOPLES];
} policy_memo;

/* A row as a migration's origin (one long enough to migrate from: the legal list says so). */
static NOT_INLINED void memo_origin(const babel *g, const babel_player *me, policy_memo *m, int loc) {
    const people_pile *row = &me->row[loc];
    int count = g->rules.migrate_count, pawn = me->pawn, n = row->n, left = n - count;
    if (NEVER(left < 0)) left = 0;
    const uint8_t *moved = row->card + left;
    m->leave[loc] = site_promise(g, me, loc, pawn, left) - site_promise(g, me, loc, pawn, n) -
                    W_TRIPLE * triples_added(row->card, left, moved, count);
    m->moved_first[loc] = moved[0];
    m->made_apart[loc] = triples_added(NULL, 0, moved, count);
    m->n[loc] = n;
    m->origins_known |= 1u << loc;
}

/* A row as a migration's destination. */
static NOT_INLINED void memo_dest(const babel *g, const babel_player *me, policy_memo *m, int loc) {
    const people_pile *row = &me->row[loc];
    int count = g->rules.migrate_count, n = row->n;
    m->arrive[loc] = site_promise(g, me, loc, me->pawn, n + count) - site_promise(g, me, loc, me->pawn, n);
    m->n[loc] = n;
    m->top[loc] = n ? row->card[n - 1] : -1;
    int run = 0;
    while (run < 3 && run < n && row->card[n - 1 - run] == m->top[loc]) run++;
    m->run[loc] = run;
    m->dests_known |= 1u << loc;
}

/* migrate_gain from the memo: the same sum, the per-row parts worked out once a decision. */
static int memo_migrate_gain(const babel *g, const babel_player *me, policy_memo *m, int from, int to) {
    if (NEVER(from >= NUM_PEOPLES || to >= NUM_PEOPLES)) return 0; /* (legal: rows; said for the compiler) */
    if (!(m->origins_known >> from & 1)) memo_origin(g, me, m, from);
    if (!(m->dests_known >> to & 1)) memo_dest(g, me, m, to);
    int count = g->rules.migrate_count, left = m->n[from] - count, pawn = me->pawn, hand = m->hand;
    int made = m->moved_first[from] != m->top[to] ? m->made_apart[from]
                                                  : triples_added(me->row[to].card + m->n[to] - m->run[to],
                                                                  m->run[to], me->row[from].card + left, count);
    int v = 2 * (m->leave[from] + m->arrive[to] + W_TRIPLE * made);
    if (pawn == from) v += pawn_worth(me, pawn, left, hand) - pawn_worth(me, pawn, m->n[from], hand);
    if (pawn == to) v += pawn_worth(me, pawn, m->n[to] + count, hand) - pawn_worth(me, pawn, m->n[to], hand);
    return v;
}

/* The parts of settle_gain and travel_gain every settling or travelling action shares. */
static NOT_INLINED void memo_common(const babel *g, const babel_player *me, policy_memo *m) {
    int at = me->pawn, hand = m->hand, cards = hand_worth(hand - 1, W_MY_CARD) - hand_worth(hand, W_MY_CARD);
    m->travel_common = cards - 2 * pawn_bonus(g, me, at);
    if (at != QUARRY) m->travel_common -= pawn_worth(me, at, me->row[at].n, hand);
    m->settle_pair = -1, m->settle_common = 0; /* no settling at the quarry */
    if (at != QUARRY) {
        const people_pile *row = &me->row[at];
        int n = row->n;
        m->settle_common = cards + 2 * (site_promise(g, me, at, at, n + 1) - site_promise(g, me, at, at, n)) +
                           pawn_worth(me, at, n + 1, hand - 1) - pawn_worth(me, at, n, hand);
        if (n >= 2 && row->card[n - 1] == row->card[n - 2] && (n == 2 || row->card[n - 3] != row->card[n - 1]))
            m->settle_pair = row->card[n - 1];
    }
    m->common_known = true;
}

static int memo_settle_gain(const babel *g, const babel_player *me, policy_memo *m, int p) {
    if (!m->common_known) memo_common(g, me, m);
    return m->settle_common + (p == m->settle_pair ? 2 * W_TRIPLE : 0);
}

static int memo_travel_gain(const babel *g, const babel_player *me, policy_memo *m, int loc) {
    /* A travel goes to a people's location, never back to the quarry; said here, the optimiser knows
     * the row read below is in bounds (an optimised build warned of row[QUARRY]). */
    if ((unsigned)loc >= NUM_PEOPLES) return 0;
    if (!m->common_known) memo_common(g, me, m);
    return m->travel_common + 2 * pawn_bonus(g, me, loc) + pawn_worth(me, loc, me->row[loc].n, m->hand - 1);
}

/* one_ply_worth of the `i`th legal action, from the memo: inlined into the loop over a decision's
 * actions (a call each cost as much as most worths), its rarer parts out of line. */
static inline int memo_one_ply_worth(const babel *g, policy_memo *m, action_t a, int i) {
    const babel_player *me = &g->player[g->to_move];
    int worth;
    switch (act_kind(a)) {
    case ACT_END: return 2 * W_END + 1;
    case ACT_TRAVEL: worth = 2 * memo_travel_gain(g, me, m, act_arg(a)); break;
    case ACT_SETTLE: worth = 2 * memo_settle_gain(g, me, m, act_arg(a)); break;
    case ACT_MIGRATE: worth = 2 * memo_migrate_gain(g, me, m, act_arg(a), act_dest(a)); break;
    default: worth = 2 * tried_gain(g, a); break;
    }
    if (worth > 2 * W_END || !me->first_turn) return worth;
    if (m->fallback < 0) m->fallback = !end_allowed(g, NULL);
    return m->fallback ? -1 - i : worth; /* listed_worth: acts is the legal list */
}

/* babel_playout_worth of every legal action at once (the policy draws nothing). */
static void babel_playout_worths(const void *st, const action_t *acts, int n, int *out) {
    const babel *g = st;
    const babel_player *me = &g->player[g->to_move], *opp = &g->player[1 - g->to_move];
    policy_memo m = {.hand = hand_size(me), .fallback = -1, .collapse = -1};
    for (int i = 0; i < n; i++) {
        action_t a = acts[i];
        int band = 0; /* none: the one-ply worth (every band is above every one-ply worth) */
        switch (act_kind(a)) {
        case ACT_DISCARD: band = BAND(20) + me->hand[act_arg(a)]; break;
        case ACT_LEAP: band = act_arg(a) == OPP ? BAND(19) : BAND(18); break;
        case ACT_STEAL: band = BAND(17); break;
        case ACT_BUILD: band = act_arg(a) == OPP ? BAND(16) : BAND(15); break;
        case ACT_COLLAPSE:
            if (m.collapse < 0) m.collapse = collapse_wanted(g);
            band = m.collapse ? BAND(14) : 0;
            break;
        case ACT_HALVE: band = hand_size(opp) >= 6 ? BAND(13) : 0; break;
        }
        out[i] = band ? band : memo_one_ply_worth(g, &m, a, i);
    }
}

/* Every decision shows on the table (a halving's discard lands face up); only the hands are hidden. */
static bool babel_public_text(const void *st, action_t a, int viewer, char *out) {
    (void)st, (void)a, (void)viewer, (void)out;
    return false;
}

const game_def babel_game = {
    .name = "babel",
    .title = "Babel",
    .rules = babel_rules_text,
    .min_players = 2,
    .max_players = 2,
    .default_players = 2,
    .max_decisions = 2000, /* ten times or more the longest game the shipped bots played: 161 decisions */
    .state_size = sizeof(babel),
    .params = babel_params,
    .num_params = NUM_PARAMS,
    .setup = babel_setup,
    .num_players = babel_num_players,
    .turn = babel_turn,
    .to_move = babel_to_move,
    .turn_key = babel_turn_key,
    .is_over = babel_is_over,
    .legal = babel_legal,
    .check = babel_check,
    .apply = babel_apply,
    .scores = babel_scores,
    .winners = babel_winners,
    .action_text = babel_action_text,
    .public_text = babel_public_text,
    .information = INFORMATION_HIDDEN,
    .text_key = babel_text_key,
    .parse_action = babel_parse_action,
    .action_space = babel_action_space,
    .write_table = babel_write_table,
    .read_table = babel_read_table,
    .write_cards = babel_write_cards,
    .validate = babel_validate,
    .sample = babel_sample,
    .move = babel_move,
    .add = babel_add,
    .playout_worth = babel_playout_worth,
    .playout_worths = babel_playout_worths,
};
