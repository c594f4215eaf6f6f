/* citadels.c — Citadels, the base game for 2 to 7 players, by shared/rules/citadels.md.
 *
 * The file follows the digest: components; setup; a round (choosing characters, with every player
 * count's draft as a script; character turns: the action, income, building, each power's check beside
 * its effect, the purple districts); the end of a round, scoring and the end; then the boundary
 * (action text, state tables, views, sampling) and the game_def. Players are 0-based here. */
#include "rules/games/citadels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/hotpath.h"
#include "rules/invariant.h"
#include "rules/rules.h"
#include "rules/table.h"
#include "rules/worth_pick.h"

/* ==================================================================== components */

/* The stream of a Citadels state's own generator (PCG32's sequence): setup, a table's deal and a re-deal
 * (sample) seed it alike, so that a seed deals the same cards however the state was made. */
#define CITADELS_RNG_STREAM 0xc17ade15

enum { ASSASSIN, THIEF, MAGICIAN, KING, BISHOP, MERCHANT, ARCHITECT, WARLORD, NUM_CHARACTERS };
enum { YELLOW, BLUE, GREEN, RED, PURPLE, NUM_COLOURS, NO_COLOUR = NUM_COLOURS };

static const char *const character_name[NUM_CHARACTERS] = {
    "assassin", "thief", "magician", "king", "bishop", "merchant", "architect", "warlord"};
/* The colour a character takes income for. */
static const uint8_t character_colour[NUM_CHARACTERS] = {
    NO_COLOUR, NO_COLOUR, NO_COLOUR, YELLOW, BLUE, GREEN, NO_COLOUR, RED};

typedef struct district_def {
    const char *name;
    uint8_t cost, copies, colour;
} district_def;

/* Every district: its name, cost, copies and colour, in catalogue order. A list that expands X for
 * each (with `arg` passed through), so that the enum, the table and the masks below are made from one
 * source and cannot disagree. */
#define DISTRICT_LIST(X, arg) \
    X(arg, MANOR, "manor", 3, 5, YELLOW) X(arg, CASTLE, "castle", 4, 4, YELLOW) \
    X(arg, PALACE, "palace", 5, 3, YELLOW) \
    X(arg, TEMPLE, "temple", 1, 3, BLUE) X(arg, CHURCH, "church", 2, 3, BLUE) \
    X(arg, MONASTERY, "monastery", 3, 3, BLUE) X(arg, CATHEDRAL, "cathedral", 5, 2, BLUE) \
    X(arg, TAVERN, "tavern", 1, 5, GREEN) X(arg, MARKET, "market", 2, 4, GREEN) \
    X(arg, TRADING_POST, "trading_post", 2, 3, GREEN) X(arg, DOCKS, "docks", 3, 3, GREEN) \
    X(arg, HARBOR, "harbor", 4, 3, GREEN) X(arg, TOWN_HALL, "town_hall", 5, 2, GREEN) \
    X(arg, WATCHTOWER, "watchtower", 1, 3, RED) X(arg, PRISON, "prison", 2, 3, RED) \
    X(arg, BATTLEFIELD, "battlefield", 3, 3, RED) X(arg, FORTRESS, "fortress", 5, 2, RED) \
    X(arg, HAUNTED_CITY, "haunted_city", 2, 1, PURPLE) X(arg, KEEP, "keep", 3, 2, PURPLE) \
    X(arg, LABORATORY, "laboratory", 5, 1, PURPLE) X(arg, SMITHY, "smithy", 5, 1, PURPLE) \
    X(arg, OBSERVATORY, "observatory", 5, 1, PURPLE) X(arg, GRAVEYARD, "graveyard", 5, 1, PURPLE) \
    X(arg, DRAGON_GATE, "dragon_gate", 6, 1, PURPLE) X(arg, UNIVERSITY, "university", 6, 1, PURPLE) \
    X(arg, LIBRARY, "library", 6, 1, PURPLE) X(arg, GREAT_WALL, "great_wall", 6, 1, PURPLE) \
    X(arg, SCHOOL_OF_MAGIC, "school_of_magic", 6, 1, PURPLE)

#define DISTRICT_ID(arg, id, name, cost, copies, colour) id,
enum { DISTRICT_LIST(DISTRICT_ID, 0) NUM_TYPES };

#define DISTRICT_DEF(arg, id, name, cost, copies, colour) [id] = {name, cost, copies, colour},
static const district_def districts[NUM_TYPES] = {DISTRICT_LIST(DISTRICT_DEF, 0)};

/* Bits of the districts that cost at most `gold`, up to the dearest district's cost (for the
 * generator: one mask instead of a cost compared per card in hand). */
#define MAX_COST 6
#define AFFORDABLE_BIT(gold, id, name, cost, copies, colour) | ((cost) <= (gold) ? 1u << (id) : 0u)
#define AFFORDABLE(gold) (0u DISTRICT_LIST(AFFORDABLE_BIT, gold))
static const uint32_t affordable_types[MAX_COST + 1] = {
    AFFORDABLE(0), AFFORDABLE(1), AFFORDABLE(2), AFFORDABLE(3), AFFORDABLE(4), AFFORDABLE(5), AFFORDABLE(6)};
#define MAX_COST_BIT(arg, id, name, cost, copies, colour) _Static_assert((cost) <= MAX_COST, "MAX_COST");
DISTRICT_LIST(MAX_COST_BIT, 0)
#define MAX_COPIES(arg, id, name, cost, copies, colour) _Static_assert((copies) <= 8, "a sample's pool: 8 copies a store");
DISTRICT_LIST(MAX_COPIES, 0)

/* Bits of the districts of each colour (for income: one count of bits). */
#define COLOUR_BIT(want, id, name, cost, copies, colour) | ((colour) == (want) ? 1u << (id) : 0u)
#define COLOUR_TYPES(want) (0u DISTRICT_LIST(COLOUR_BIT, want))
static const uint32_t colour_types[NUM_COLOURS] = {
    COLOUR_TYPES(YELLOW), COLOUR_TYPES(BLUE), COLOUR_TYPES(GREEN), COLOUR_TYPES(RED), COLOUR_TYPES(PURPLE)};

#define NUM_DISTRICTS 66
#define MAX_SEATS 7
#define NOBODY 0xff
#define NONE 0xff

/* The district deck, bottom first: draws take the top, put-backs go under the bottom. */
typedef struct district_pile {
    uint8_t n;
    uint8_t card[NUM_DISTRICTS];
} district_pile;

typedef struct cit_player {
    /* Bits of the districts in hand (hand[d] > 0) and in the city, for the generator and the rules'
     * "owns": every change keeps them, validate checks them. */
    uint32_t hand_types, city_types;
    uint16_t gold;
    uint8_t hand[NUM_TYPES];  /* cards of each district: a hand's order carries no information */
    uint8_t city_n;
    uint8_t city[NUM_TYPES];  /* in building order; never two of one name, so at most one of each */
    uint8_t passed;           /* characters passed to this player while choosing this round (bits) */
    uint8_t buried;           /* characters this player put face down this round (bits) */
} cit_player;

enum { PHASE_CHOOSE, PHASE_TURNS, PHASE_OVER };
/* Decisions inside a turn that must be finished before anything else. */
enum { SUB_NONE, SUB_KEEP, SUB_REPLACE, SUB_GRAVEYARD };
/* How a character left the pack this round: what the sampler needs to re-deal them consistently. */
enum { PLACED_NOT, PLACED_UNSEEN, PLACED_UP, PLACED_PICK, PLACED_DOWN };
#define STEP_BEFORE_DRAFT (-1)
#define STEP_UNPLACED 100

typedef struct cit_rules {
    uint8_t city_size, start_gold, start_cards, max_rounds;
    uint8_t face_up[MAX_SEATS + 1]; /* by player count */
} cit_rules;

typedef struct citadels {
    rng rng;
    cit_rules rules;
    uint8_t players, phase, round, crown, to_move;
    /* choosing */
    uint8_t step;                   /* the draft script's step now */
    uint8_t pack;                   /* characters still to choose from (bits) */
    uint8_t aside_up, aside_down;   /* (bits) */
    uint8_t holder[NUM_CHARACTERS]; /* who holds each character this round, or NOBODY */
    uint8_t placed_kind[NUM_CHARACTERS], placed_by[NUM_CHARACTERS];
    int8_t placed_step[NUM_CHARACTERS];
    /* character turns */
    uint8_t current, killed, robbed; /* characters, or NONE */
    bool acted, income_taken, power_used, lab_used, smithy_used;
    uint8_t builds_left;
    uint8_t sub;
    uint8_t keep_left, drawn_n, drawn[3];
    uint8_t marked[NUM_TYPES];      /* the magician's cards going under the deck */
    uint8_t grave_card, grave_owner;
    uint8_t first_complete;         /* seat, or NOBODY */
    uint8_t haunted_round;          /* the round the haunted city was last built; 0: never */
    district_pile deck;
    cit_player player[MAX_SEATS];
} citadels;

static uint8_t bit(int c) { return (uint8_t)(1u << c); }
static bool has(uint8_t mask, int c) { return mask >> c & 1; }
/* Without a loop (the policy counts colours, where a loop's end mispredicted) or a library call. */
static int count_bits(uint32_t mask) {
    mask = mask - (mask >> 1 & 0x55555555u);
    mask = (mask & 0x33333333u) + (mask >> 2 & 0x33333333u);
    mask = (mask + (mask >> 4)) & 0x0f0f0f0fu;
    return (int)((mask * 0x01010101u) >> 24);
}

/* Characters as bits; none for NONE. */
static uint8_t character_bit(int c) { return c < NUM_CHARACTERS ? bit(c) : 0; }

static int hand_size(const cit_player *p) {
    int n = 0;
    for (int d = 0; d < NUM_TYPES; d++) n += p->hand[d];
    return n;
}

static uint32_t type_bit(int d) { return 1u << d; }

static bool owns(const cit_player *p, int d) { return p->city_types >> d & 1; }

static void hand_add(cit_player *p, int d) {
    p->hand[d]++;
    p->hand_types |= type_bit(d);
}

/* The card moves below trust the check that came before them; where a broken check would wrap a count
 * (a card, or 65,535 gold, made from nothing) or write past a stack, NEVER stops a Debug build there,
 * and a release build leaves the state as it was instead. */

/* A card of `d` out of the hand; false (and nothing taken) when there is none. */
static bool hand_take(cit_player *p, int d) {
    if (NEVER(p->hand[d] == 0)) return false;
    if (!--p->hand[d]) p->hand_types &= ~type_bit(d);
    return true;
}

static void city_add(cit_player *p, int d) {
    p->city[p->city_n++] = (uint8_t)d;
    p->city_types |= type_bit(d);
}

static void city_remove(cit_player *p, int d) {
    int i = 0;
    while (p->city[i] != d) i++;
    memmove(&p->city[i], &p->city[i + 1], (size_t)(p->city_n - i - 1));
    p->city_n--;
    p->city_types &= ~type_bit(d);
}

/* The bits a hand and a city should have: to check them, and to set them after a hand or city was
 * rewritten whole (a table read, a re-deal, a variant's move). Cities hold districts only here. */
static uint32_t hand_types_of(const cit_player *p) {
    uint32_t mask = 0;
    for (int d = 0; d < NUM_TYPES; d++) mask |= (uint32_t)(p->hand[d] != 0) << d;
    return mask;
}

static uint32_t city_types_of(const cit_player *p) {
    uint32_t mask = 0;
    for (int i = 0; i < p->city_n; i++) mask |= type_bit(p->city[i]);
    return mask;
}

static void recount_types(citadels *g) {
    for (int seat = 0; seat < g->players; seat++) {
        g->player[seat].hand_types = hand_types_of(&g->player[seat]);
        g->player[seat].city_types = city_types_of(&g->player[seat]);
    }
}

static void deck_draw_into_hand(citadels *g, cit_player *p, int count) {
    for (int i = 0; i < count && g->deck.n; i++) hand_add(p, g->deck.card[--g->deck.n]);
}

/* Puts cards[0..k) under the deck one by one, so the last ends at the bottom; one move of the deck
 * for them all. */
static void deck_put_under_each(citadels *g, const uint8_t *cards, int k) {
    if (NEVER(g->deck.n + k > NUM_DISTRICTS)) return;
    memmove(g->deck.card + k, g->deck.card, g->deck.n);
    for (int i = 0; i < k; i++) g->deck.card[k - 1 - i] = cards[i];
    g->deck.n = (uint8_t)(g->deck.n + k);
}

static void deck_put_under(citadels *g, int d) {
    uint8_t card = (uint8_t)d;
    deck_put_under_each(g, &card, 1);
}

/* A gold counter stops at GOLD_MAX: no position, however built, makes it wrap. */
#define GOLD_MAX 60000
static void gain_gold(cit_player *p, int amount) {
    p->gold = (uint16_t)(p->gold + amount > GOLD_MAX ? GOLD_MAX : p->gold + amount);
}

/* The effects apply dispatches to, and the generator's rarer parts, stay out of line (NOT_INLINED):
 * inlined all into one function they made each of its calls save and restore six registers
 * (callgrind: a tenth of apply's cost), and apply becomes a jump to the effect. */

/* ==================================================================== parameters */

enum { P_CITY_SIZE, P_START_GOLD, P_START_CARDS, P_FACE_UP, P_MAX_ROUNDS, NUM_PARAMS };

/* Face-up discards by player count, from 2 to 7 players. */
static const int32_t default_face_up[6] = {0, 0, 2, 1, 0, 0};

/* The largest city: never two districts of one name in it, so one of each of the 28 names. A
 * city_size above it could never be reached, and the city array holds exactly that many. */
#define CITY_MAX 28
_Static_assert(CITY_MAX == NUM_TYPES, "a city holds at most one district of each name");
/* The most cards dealt to one hand: the whole deck split between the fewest players (2). How many a
 * game may deal depends on its player count: citadels_params_check refuses a deal the deck cannot make. */
#define START_CARDS_MAX (NUM_DISTRICTS / 2)

static const param_def citadels_params[NUM_PARAMS] = {
    [P_CITY_SIZE] = {"city_size", PARAM_INT, 8, 1, CITY_MAX, NULL,
                     "districts in a city that end the game after the round (at most 28: a city never holds "
                     "two districts of one name, and there are 28 names)", NULL, 0},
    [P_START_GOLD] = {"start_gold", PARAM_INT, 2, 0, 100, NULL,
                      "gold each player starts with (at most 100: kept in one byte, and 100 nearly buys one "
                      "district of every name, 106 gold in all)", NULL, 0},
    [P_START_CARDS] = {"start_cards", PARAM_INT, 4, 0, START_CARDS_MAX, NULL,
                       "district cards each player starts with; all players together at most the deck's 66 "
                       "(so 33 with 2 players, 9 with 7): a deal the deck cannot make is refused", NULL, 0},
    [P_FACE_UP] = {"face_up", PARAM_PER_SEAT, 0, 0, 6, NULL,
                   "characters put aside face up each round, by player count from 2 to 7 (one "
                   "number: for every count); at most what leaves every draft step a character (8 "
                   "characters, one face down, one a step: 6 steps with 2 or 3 players, else one a player): "
                   "1 with 2, 3 or 6 players, 3 with 4, 2 with 5, 0 with 7; more is refused",
                   default_face_up, 6},
    [P_MAX_ROUNDS] = {"max_rounds", PARAM_INT, 100, 1, 200, NULL,
                      "the game ends after this round even if no city is complete (no first-city bonus); at "
                      "most 200, a bound on games where nobody builds (one byte counts the rounds)", NULL, 0},
};

static cit_rules rules_from_params(const param_value *params) {
    cit_rules r = {0};
    r.city_size = (uint8_t)params[P_CITY_SIZE].v[0];
    r.start_gold = (uint8_t)params[P_START_GOLD].v[0];
    r.start_cards = (uint8_t)params[P_START_CARDS].v[0];
    r.max_rounds = (uint8_t)params[P_MAX_ROUNDS].v[0];
    const param_value *up = &params[P_FACE_UP];
    for (int n = 2; n <= MAX_SEATS; n++)
        r.face_up[n] = (uint8_t)(up->count == 1 ? up->v[0] : n - 2 < up->count ? up->v[n - 2] : 0);
    return r;
}

/* ==================================================================== choosing characters */

/* The draft as a script: each step names a seat (counted from the crown) and what it does. Two players
 * take turns choosing and burying as the digest describes; three go round twice; more go round once. */
enum { STEP_CHOOSE, STEP_BURY };
typedef struct draft_step {
    uint8_t seat_offset, kind;
} draft_step;

static const draft_step two_player_draft[] = {
    {0, STEP_CHOOSE}, {1, STEP_CHOOSE}, {1, STEP_BURY}, {0, STEP_CHOOSE}, {0, STEP_BURY}, {1, STEP_CHOOSE}};

static int draft_length(int players) { return players == 2 ? 6 : players == 3 ? 6 : players; }

/* Characters that may go aside face up with `players` players: the 8, less the one face down and one a
 * draft step. */
static int face_up_room(int players) { return NUM_CHARACTERS - 1 - draft_length(players); }

/* The face-up characters must leave every draft step a choice: refused, never cut short. */
static bool face_up_check(const cit_rules *r, int players, reason *why) {
    if (r->face_up[players] <= face_up_room(players)) return true;
    return deny(why, "face_up = %d with %d players leaves a draft step without a character (at most %d: 8 "
                "characters, one face down, %d chosen)", r->face_up[players], players, face_up_room(players),
                draft_length(players));
}

/* And the deal must fit the deck: a game that cannot be dealt as asked is refused, never dealt short. */
static bool cit_rules_check(const cit_rules *r, int players, reason *why) {
    if (players * r->start_cards > NUM_DISTRICTS)
        return deny(why, "start_cards = %d with %d players deals %d cards, and the deck holds %d (at most %d each)",
                    r->start_cards, players, players * r->start_cards, NUM_DISTRICTS, NUM_DISTRICTS / players);
    return face_up_check(r, players, why);
}

static bool citadels_params_check(const param_value *params, int players, reason *why) {
    cit_rules r = rules_from_params(params);
    return cit_rules_check(&r, players, why);
}

/* x modulo the player count, for the small x of the draft (a step, a seat plus an offset): a
 * division would cost more than the rest of a draft step. */
static int wrap_seat(int x, int players) {
    while (x >= players) x -= players;
    return x;
}

static draft_step draft_at(int players, int step) {
    if (players == 2) return two_player_draft[step];
    return (draft_step){(uint8_t)wrap_seat(step, players), STEP_CHOOSE};
}

static int seat_of_step(const citadels *g, int step) {
    return wrap_seat(g->crown + draft_at(g->players, step).seat_offset, g->players);
}

/* With seven players the last chooser may take the face-down card instead of the one passed on. */
static bool last_pick_of_seven(const citadels *g) {
    return g->players == 7 && g->step == draft_length(7) - 1;
}

static int unseen_card(const citadels *g) {
    for (int c = 0; c < NUM_CHARACTERS; c++)
        if (g->placed_kind[c] == PLACED_UNSEEN) return c;
    return NONE;
}

static void place(citadels *g, int c, int kind, int by) {
    g->placed_kind[c] = (uint8_t)kind;
    g->placed_by[c] = (uint8_t)by;
    g->placed_step[c] = (int8_t)(kind == PLACED_UNSEEN || kind == PLACED_UP ? STEP_BEFORE_DRAFT : g->step);
    g->pack &= (uint8_t)~bit(c);
}

/* `seat` puts character c face down. */
static void put_down(citadels *g, int c, int seat) {
    place(g, c, PLACED_DOWN, seat);
    g->aside_down |= bit(c);
    g->player[seat].buried |= bit(c);
}

/* The characters left in the pack, put face down by `seat`. */
static void put_down_pack(citadels *g, int seat) {
    for (uint8_t left = g->pack; left; left &= (uint8_t)(left - 1)) put_down(g, lowest_bit(left), seat);
}

/* The chooser of this step sees the pack (and, the last of seven, the face-down card). */
static void begin_step(citadels *g) {
    int seat = seat_of_step(g, g->step);
    g->to_move = (uint8_t)seat;
    g->player[seat].passed |= g->pack;
    if (last_pick_of_seven(g) && unseen_card(g) != NONE) g->player[seat].passed |= bit(unseen_card(g));
}

static void start_turns(citadels *g);

/* The last card left is put face down by the last chooser. */
static void next_step(citadels *g) {
    if (++g->step < draft_length(g->players)) {
        begin_step(g);
        return;
    }
    int last = seat_of_step(g, g->step - 1);
    g->step = (uint8_t)draft_length(g->players);
    put_down_pack(g, last);
    start_turns(g);
}

/* The crown holder shuffles the characters, one goes aside face down unseen, some face up (never the
 * king), and the draft begins with the crown. A face-up count that would leave a step without a card
 * was refused with the parameters (face_up_check). */
static void start_round(citadels *g) {
    g->phase = PHASE_CHOOSE;
    g->round++;
    g->step = 0;
    g->pack = 0xff;
    g->aside_up = g->aside_down = 0;
    g->current = g->killed = g->robbed = NONE;
    memset(g->holder, NOBODY, sizeof g->holder);
    memset(g->placed_kind, PLACED_NOT, sizeof g->placed_kind);
    memset(g->placed_by, NOBODY, sizeof g->placed_by);
    memset(g->placed_step, STEP_UNPLACED, sizeof g->placed_step);
    for (int p = 0; p < g->players; p++) g->player[p].passed = g->player[p].buried = 0;
    int unseen = (int)rng_below(&g->rng, NUM_CHARACTERS);
    place(g, unseen, PLACED_UNSEEN, NOBODY);
    g->aside_down = bit(unseen);
    int room = face_up_room(g->players); /* more was refused (cit_rules_check): the cap only guards */
    int up = g->rules.face_up[g->players] < room ? g->rules.face_up[g->players] : room;
    for (int i = 0; i < up; i++) {
        uint8_t candidates = g->pack & (uint8_t)~bit(KING);
        if (!candidates) break;
        /* The k-th candidate in rank order. */
        for (uint32_t k = rng_below(&g->rng, (uint32_t)count_bits(candidates)); k; k--)
            candidates &= (uint8_t)(candidates - 1);
        int c = lowest_bit(candidates);
        place(g, c, PLACED_UP, NOBODY);
        g->aside_up |= bit(c);
    }
    begin_step(g);
}

static void setup_players(citadels *g) {
    for (int p = 0; p < g->players; p++) {
        g->player[p].gold = g->rules.start_gold;
        deck_draw_into_hand(g, &g->player[p], g->rules.start_cards);
    }
}

static void citadels_setup(void *st, int players, const param_value *params, uint64_t seed) {
    citadels *g = st;
    memset(g, 0, sizeof *g);
    g->rules = rules_from_params(params);
    g->players = (uint8_t)players;
    g->first_complete = NOBODY;
    g->grave_card = g->grave_owner = NONE;
    rng_seed(&g->rng, seed, CITADELS_RNG_STREAM);
    for (int d = 0; d < NUM_TYPES; d++)
        for (int c = 0; c < districts[d].copies; c++) g->deck.card[g->deck.n++] = (uint8_t)d;
    rng_shuffle_bytes(&g->rng, g->deck.card, g->deck.n);
    setup_players(g);
    g->crown = 0; /* ruling: player 1 holds the crown first */
    start_round(g);
}

/* ---- the choosing actions ---- */

static bool choose_allowed(const citadels *g, int c, reason *why) {
    if (has(g->pack, c)) return true;
    if (last_pick_of_seven(g) && c == unseen_card(g)) return true;
    if (has(g->aside_up, c)) return deny(why, "the %s is face up: nobody can choose it this round", character_name[c]);
    return deny(why, "the %s is not among the characters passed to you", character_name[c]);
}

NOT_INLINED static void choose(citadels *g, int c) {
    int seat = g->to_move;
    if (last_pick_of_seven(g) && c == unseen_card(g)) {
        /* The passed card takes the face-down card's place. */
        g->aside_down &= (uint8_t)~bit(c);
        put_down_pack(g, seat);
    }
    place(g, c, PLACED_PICK, seat);
    g->holder[c] = (uint8_t)seat;
    next_step(g);
}

static bool bury_allowed(const citadels *g, int c, reason *why) {
    if (!has(g->pack, c)) return deny(why, "the %s is not among the characters passed to you", character_name[c]);
    return true;
}

NOT_INLINED static void bury(citadels *g, int c) {
    put_down(g, c, g->to_move);
    next_step(g);
}

/* ==================================================================== character turns */

static void end_round(citadels *g);

/* Calls the characters from `from` on in rank order: the holder reveals it; a murdered character
 * misses its turn; the thief's take happens as the victim is revealed, before it acts; the king takes
 * the crown when called. A character nobody holds is skipped. */
static void call_from(citadels *g, int from) {
    /* In a character's turn every character is held or lies aside (validate: each is in one place). */
    uint8_t held = (uint8_t)~(g->aside_up | g->aside_down);
    uint8_t callable = held & (uint8_t)~character_bit(g->killed) & (uint8_t)(0xffu << from);
    if (callable) {
        int c = lowest_bit(callable), seat = g->holder[c];
        g->current = (uint8_t)c;
        cit_player *p = &g->player[seat];
        if (c == g->robbed && g->holder[THIEF] != NOBODY) {
            gain_gold(&g->player[g->holder[THIEF]], p->gold);
            p->gold = 0;
        }
        if (c == KING) g->crown = (uint8_t)seat;
        g->to_move = (uint8_t)seat;
        g->acted = g->income_taken = g->power_used = g->lab_used = g->smithy_used = false;
        g->builds_left = c == ARCHITECT ? 3 : 1;
        g->sub = SUB_NONE;
        return;
    }
    end_round(g);
}

static void start_turns(citadels *g) {
    g->phase = PHASE_TURNS;
    call_from(g, 0);
}

NOT_INLINED static void end_turn(citadels *g) {
    g->sub = SUB_NONE;
    call_from(g, g->current + 1);
}

static cit_player *mover(citadels *g) { return &g->player[g->to_move]; }
static const cit_player *mover_c(const citadels *g) { return &g->player[g->to_move]; }

static const char *current_name(const citadels *g) { return character_name[g->current]; }

/* ---- the action: 2 gold, or draw 2 and keep 1 (observatory: draw 3; library: keep all, or 2 of 3).
 * After it the merchant takes 1 gold more and the architect 2 cards. ---- */

static bool action_allowed(const citadels *g, reason *why) {
    if (g->acted) return deny(why, "you have already taken this turn's action");
    return true;
}

static void after_action(citadels *g) {
    g->acted = true;
    if (g->current == MERCHANT) gain_gold(mover(g), 1);
    if (g->current == ARCHITECT) deck_draw_into_hand(g, mover(g), 2);
}

static void take_gold(citadels *g) {
    gain_gold(mover(g), 2);
    after_action(g);
}

NOT_INLINED static void draw_districts(citadels *g) {
    const cit_player *p = mover_c(g);
    bool observatory = owns(p, OBSERVATORY), library = owns(p, LIBRARY);
    int draw = observatory ? 3 : 2;
    int keep = library ? (observatory ? 2 : draw) : 1;
    g->drawn_n = 0;
    while (g->drawn_n < draw && g->deck.n) g->drawn[g->drawn_n++] = g->deck.card[--g->deck.n];
    g->keep_left = (uint8_t)(keep < g->drawn_n ? keep : g->drawn_n);
    if (g->keep_left == g->drawn_n) { /* nothing to choose: keep them all */
        for (int i = 0; i < g->drawn_n; i++) hand_add(mover(g), g->drawn[i]);
        g->drawn_n = g->keep_left = 0;
        after_action(g);
        return;
    }
    g->sub = SUB_KEEP;
}

static int drawn_index(const citadels *g, int d) {
    for (int i = 0; i < g->drawn_n; i++)
        if (g->drawn[i] == d) return i;
    return -1;
}

static bool keep_allowed(const citadels *g, int d, reason *why) {
    if (drawn_index(g, d) < 0) return deny(why, "you did not draw a %s", districts[d].name);
    return true;
}

/* The cards not kept go under the deck, in the order drawn. */
NOT_INLINED static void keep(citadels *g, int d) {
    int i = drawn_index(g, d);
    hand_add(mover(g), d);
    g->drawn[i] = g->drawn[--g->drawn_n];
    if (--g->keep_left) return;
    deck_put_under_each(g, g->drawn, g->drawn_n);
    g->drawn_n = 0;
    g->sub = SUB_NONE;
    after_action(g);
}

/* ---- income: 1 gold per district of the character's colour (the school of magic counts as it),
 * once a turn, at any time, all at once ---- */

static int income_of(const citadels *g, int seat, int character) {
    uint32_t paying = colour_types[character_colour[character]] | type_bit(SCHOOL_OF_MAGIC);
    return count_bits(g->player[seat].city_types & paying);
}

static bool income_allowed(const citadels *g, reason *why) {
    if (character_colour[g->current] == NO_COLOUR)
        return deny(why, "the %s takes no income", current_name(g));
    if (g->income_taken) return deny(why, "you have already taken this turn's income");
    return true;
}

NOT_INLINED static void take_income(citadels *g) {
    gain_gold(mover(g), income_of(g, g->to_move, g->current));
    g->income_taken = true;
}

/* ---- building: after the action, one district (the architect up to three), paid in full, never two
 * of one name ---- */

static bool build_allowed(const citadels *g, int d, reason *why) {
    const cit_player *p = mover_c(g);
    const char *name = districts[d].name;
    if (!g->acted) return deny(why, "take your action (gold or draw) before building");
    if (!g->builds_left)
        return deny(why, g->current == ARCHITECT ? "the architect builds at most three districts a turn"
                                                 : "you have already built this turn");
    if (!p->hand[d]) return deny(why, "you have no %s in hand", name);
    if (owns(p, d)) return deny(why, "you already have a %s", name);
    if (p->gold < districts[d].cost)
        return deny(why, "you need %d gold to build the %s; you have %d", districts[d].cost, name, p->gold);
    return true;
}

NOT_INLINED static void build(citadels *g, int d) {
    cit_player *p = mover(g);
    /* Never two of a name in a city: so a city never outgrows its NUM_TYPES slots either. */
    if (NEVER(p->gold < districts[d].cost || owns(p, d)) || !hand_take(p, d)) return;
    p->gold -= districts[d].cost;
    city_add(p, d);
    g->builds_left--;
    if (d == HAUNTED_CITY) g->haunted_round = g->round;
    if (p->city_n >= g->rules.city_size && g->first_complete == NOBODY) g->first_complete = g->to_move;
}

/* ---- powers, once a turn ---- */

static bool power_free(const citadels *g, int character, reason *why) {
    if (g->current != character) return deny(why, "only the %s can do that", character_name[character]);
    if (g->power_used) return deny(why, "the %s has already used the power this turn", character_name[character]);
    return true;
}

/* assassin: names a character (not face up, not himself); it misses its whole turn. */
static bool kill_allowed(const citadels *g, int c, reason *why) {
    if (!power_free(g, ASSASSIN, why)) return false;
    if (c == ASSASSIN) return deny(why, "the assassin cannot kill himself");
    if (has(g->aside_up, c)) return deny(why, "the %s is face up: it is not in play", character_name[c]);
    return true;
}

static void kill(citadels *g, int c) {
    g->killed = (uint8_t)c;
    g->power_used = true;
}

/* thief: names a character (not the assassin, not the murdered one, not face up); its player's gold
 * goes to the thief's player when it is revealed. */
static bool rob_allowed(const citadels *g, int c, reason *why) {
    if (!power_free(g, THIEF, why)) return false;
    if (c == ASSASSIN || c == THIEF) return deny(why, "the thief cannot rob the %s", character_name[c]);
    if (c == g->killed) return deny(why, "the %s has been murdered: there is nothing to rob", character_name[c]);
    if (has(g->aside_up, c)) return deny(why, "the %s is face up: it is not in play", character_name[c]);
    return true;
}

static void rob(citadels *g, int c) {
    g->robbed = (uint8_t)c;
    g->power_used = true;
}

/* magician: exchanges whole hands with another player, or puts cards under the deck (marked one by
 * one, then `replace done`) and draws as many. */
static bool swap_allowed(const citadels *g, int seat, reason *why) {
    if (!power_free(g, MAGICIAN, why)) return false;
    if (seat >= g->players) return deny(why, "there is no player %d", seat + 1);
    if (seat == g->to_move) return deny(why, "swap your hand with another player's");
    return true;
}

NOT_INLINED static void swap_hands(citadels *g, int seat) {
    cit_player *me = mover(g), *other = &g->player[seat];
    uint8_t mine[NUM_TYPES];
    uint32_t my_types = me->hand_types;
    memcpy(mine, me->hand, NUM_TYPES);
    memcpy(me->hand, other->hand, NUM_TYPES);
    memcpy(other->hand, mine, NUM_TYPES);
    me->hand_types = other->hand_types;
    other->hand_types = my_types;
    g->power_used = true;
}

static bool replace_allowed(const citadels *g, int d, reason *why) {
    if (g->sub != SUB_REPLACE && !power_free(g, MAGICIAN, why)) return false;
    if (!mover_c(g)->hand[d]) return deny(why, "you have no %s in hand", districts[d].name);
    return true;
}

static void mark_for_replacing(citadels *g, int d) {
    if (!hand_take(mover(g), d)) return;
    g->marked[d]++;
    g->power_used = true;
    g->sub = SUB_REPLACE;
}

static bool replace_done_allowed(const citadels *g, reason *why) {
    if (g->sub != SUB_REPLACE) return deny(why, "you have not marked any card to replace");
    return true;
}

NOT_INLINED static void replace_marked(citadels *g) {
    uint8_t cards[NUM_DISTRICTS];
    int count = 0;
    for (int d = 0; d < NUM_TYPES; d++)
        for (; g->marked[d]; g->marked[d]--) cards[count++] = (uint8_t)d;
    deck_put_under_each(g, cards, count);
    deck_draw_into_hand(g, mover(g), count);
    g->sub = SUB_NONE;
}

/* warlord: at the end of his turn, destroys one district for its cost minus 1 (the great wall makes the
 * owner's others cost 1 more) — never in a completed city, never the keep, never a live bishop's.
 * Destroying ends the turn; the graveyard's owner may then buy the card back for 1 gold. */
static int destroy_cost(const citadels *g, int seat, int d) {
    int cost = districts[d].cost - 1;
    if (d != GREAT_WALL && owns(&g->player[seat], GREAT_WALL)) cost++;
    return cost;
}

static bool destroy_allowed(const citadels *g, int seat, int d, reason *why) {
    if (!power_free(g, WARLORD, why)) return false;
    if (!g->acted) return deny(why, "take your action (gold or draw) before destroying at the end of your turn");
    if (seat >= g->players) return deny(why, "there is no player %d", seat + 1);
    const cit_player *target = &g->player[seat];
    const char *name = districts[d].name;
    if (!owns(target, d)) return deny(why, "player %d has no %s", seat + 1, name);
    if (target->city_n >= g->rules.city_size)
        return deny(why, "the warlord cannot destroy in a completed city");
    if (d == KEEP) return deny(why, "the keep cannot be destroyed");
    if (g->holder[BISHOP] == seat && g->killed != BISHOP)
        return deny(why, "player %d is the bishop: the warlord cannot touch their districts", seat + 1);
    int cost = destroy_cost(g, seat, d);
    if (mover_c(g)->gold < cost)
        return deny(why, "destroying the %s costs %d gold; you have %d", name, cost, mover_c(g)->gold);
    return true;
}

static int graveyard_owner(const citadels *g) {
    for (int p = 0; p < g->players; p++)
        if (owns(&g->player[p], GRAVEYARD)) return p;
    return NONE;
}

NOT_INLINED static void destroy(citadels *g, int seat, int d) {
    cit_player *target = &g->player[seat];
    /* city_remove looks for the district until it finds it. */
    if (NEVER(!owns(target, d) || mover(g)->gold < destroy_cost(g, seat, d))) return;
    mover(g)->gold -= (uint16_t)destroy_cost(g, seat, d);
    city_remove(target, d);
    g->power_used = true;
    /* The graveyard saves any district the warlord destroys, another player's too (the card: "when the
     * Warlord destroys a district"); never for the warlord himself, and a destroyed graveyard is gone. */
    int keeper = graveyard_owner(g);
    if (keeper != NONE && keeper != g->to_move && g->player[keeper].gold >= 1) {
        g->sub = SUB_GRAVEYARD;
        g->grave_card = (uint8_t)d;
        g->grave_owner = (uint8_t)keeper;
        g->to_move = (uint8_t)keeper;
        return;
    }
    deck_put_under(g, d);
    end_turn(g);
}

NOT_INLINED static void graveyard_answer(citadels *g, bool buy) {
    cit_player *owner = &g->player[g->grave_owner];
    if (buy && ALWAYS(owner->gold >= 1)) {
        owner->gold -= 1;
        hand_add(owner, g->grave_card);
    } else {
        deck_put_under(g, g->grave_card);
    }
    g->grave_card = g->grave_owner = NONE;
    end_turn(g);
}

/* ---- purple districts used in a turn ---- */

/* laboratory: once a turn, a card from hand under the deck for 1 gold. */
static bool lab_allowed(const citadels *g, int d, reason *why) {
    if (!owns(mover_c(g), LABORATORY)) return deny(why, "you have no laboratory");
    if (g->lab_used) return deny(why, "you have already used the laboratory this turn");
    if (!mover_c(g)->hand[d]) return deny(why, "you have no %s in hand", districts[d].name);
    return true;
}

NOT_INLINED static void use_lab(citadels *g, int d) {
    if (!hand_take(mover(g), d)) return;
    deck_put_under(g, d);
    gain_gold(mover(g), 1);
    g->lab_used = true;
}

/* smithy: once a turn, 2 gold for 3 cards. */
static bool smithy_allowed(const citadels *g, reason *why) {
    if (!owns(mover_c(g), SMITHY)) return deny(why, "you have no smithy");
    if (g->smithy_used) return deny(why, "you have already used the smithy this turn");
    if (mover_c(g)->gold < 2) return deny(why, "the smithy costs 2 gold; you have %d", mover_c(g)->gold);
    return true;
}

NOT_INLINED static void use_smithy(citadels *g) {
    if (NEVER(mover(g)->gold < 2)) return;
    mover(g)->gold -= 2;
    deck_draw_into_hand(g, mover(g), 3);
    g->smithy_used = true;
}

static bool end_allowed(const citadels *g, reason *why) {
    if (!g->acted) return deny(why, "take your action (gold or draw) before ending your turn");
    return true;
}

/* ==================================================================== the end of a round and scoring */

/* A murdered king's player takes the crown now; with no king in play it stays. The game ends after the
 * round in which a city was completed, or after round max_rounds (a game where nobody builds would
 * otherwise never end). */
static void end_round(citadels *g) {
    g->current = NONE;
    if (g->killed == KING && g->holder[KING] != NOBODY) g->crown = g->holder[KING];
    if (g->first_complete != NOBODY || g->round >= g->rules.max_rounds) {
        g->phase = PHASE_OVER;
        g->to_move = NOBODY;
        return;
    }
    start_round(g);
}

/* A district's points: its cost, but 8 for the dragon gate and the university. */
#define DISTRICT_POINTS(arg, id, name, cost, copies, colour) [id] = (id) == DRAGON_GATE || (id) == UNIVERSITY ? 8 : (cost),
static const uint8_t points_by_type[NUM_TYPES] = {DISTRICT_LIST(DISTRICT_POINTS, 0)};

static int points_of(int d) { return points_by_type[d]; }

static int district_points(const cit_player *p) {
    int points = 0;
    for (int i = 0; i < p->city_n; i++) points += points_of(p->city[i]);
    return points;
}

/* All five colours: the haunted city stands for a missing one, unless it was built in the last round
 * (the round now, when the game has ended). Read off city_types, which validate holds to the city (a
 * city never holds two of one name): a search scores every playout's end. */
static bool has_five_colours(const citadels *g, const cit_player *p) {
    int missing = 0;
    for (int c = 0; c < NUM_COLOURS; c++) missing += (p->city_types & colour_types[c]) == 0;
    if (missing == 0) return true;
    bool haunted = owns(p, HAUNTED_CITY) && g->haunted_round < g->round;
    if (!haunted || missing > 1) return false;
    /* The haunted city is the purple one itself: standing for the missing colour, it leaves purple to
     * another purple district. */
    return count_bits(p->city_types & colour_types[PURPLE]) >= 2;
}

/* The score of a seat whose districts are worth `points`. */
static int score_with(const citadels *g, int seat, int points) {
    const cit_player *p = &g->player[seat];
    int score = points;
    if (has_five_colours(g, p)) score += 3;
    if (g->first_complete == seat) score += 4;
    else if (p->city_n >= g->rules.city_size) score += 2;
    return score;
}

static int score_of(const citadels *g, int seat) { return score_with(g, seat, district_points(&g->player[seat])); }

/* ==================================================================== actions */

/* An action packs its kind in bits 0-4, `x` (a character, district or seat) in 5-12, `y` (the
 * district a warlord destroys) in 13-20. */
enum {
    ACT_CHOOSE, ACT_BURY, ACT_GOLD, ACT_DRAW, ACT_KEEP, ACT_INCOME, ACT_BUILD, ACT_KILL, ACT_ROB,
    ACT_SWAP, ACT_REPLACE, ACT_REPLACE_DONE, ACT_LAB, ACT_SMITHY, ACT_DESTROY, ACT_GRAVE_YES,
    ACT_GRAVE_NO, ACT_END, NUM_KINDS
};

static action_t make_action(int kind, int x, int y) {
    return (action_t)kind | (action_t)x << 5 | (action_t)y << 13;
}
static int act_kind(action_t a) { return (int)(a & 0x1f); }
static int act_x(action_t a) { return (int)(a >> 5 & 0xff); }
static int act_y(action_t a) { return (int)(a >> 13 & 0xff); }

static bool takes_character(int kind) {
    return kind == ACT_CHOOSE || kind == ACT_BURY || kind == ACT_KILL || kind == ACT_ROB;
}
static bool takes_district(int kind) {
    return kind == ACT_KEEP || kind == ACT_BUILD || kind == ACT_REPLACE || kind == ACT_LAB;
}

/* What the state allows now, before the action itself is asked about. */
static bool phase_allows(const citadels *g, int kind, reason *why) {
    if (g->phase == PHASE_OVER) return deny(why, "the game is over");
    if (g->phase == PHASE_CHOOSE) {
        int step_kind = draft_at(g->players, g->step).kind;
        if (kind == ACT_CHOOSE && step_kind == STEP_CHOOSE) return true;
        if (kind == ACT_BURY && step_kind == STEP_BURY) return true;
        return deny(why, step_kind == STEP_BURY ? "put one of the characters face down (bury C)"
                                                : "choose one of the characters passed to you (choose C)");
    }
    switch (g->sub) {
    case SUB_KEEP:
        if (kind == ACT_KEEP) return true;
        return deny(why, "keep %d of the districts you drew first (keep D)", g->keep_left);
    case SUB_REPLACE:
        if (kind == ACT_REPLACE || kind == ACT_REPLACE_DONE) return true;
        return deny(why, "finish replacing first: replace D for another card, or replace done");
    case SUB_GRAVEYARD:
        if (kind == ACT_GRAVE_YES || kind == ACT_GRAVE_NO) return true;
        return deny(why, "the warlord destroyed a %s: answer graveyard yes (pay 1 gold to take it into your "
                    "hand) or graveyard no", districts[g->grave_card].name);
    }
    if (kind == ACT_CHOOSE || kind == ACT_BURY) return deny(why, "the characters are chosen already");
    if (kind == ACT_KEEP) return deny(why, "keep comes after draw");
    if (kind == ACT_GRAVE_YES || kind == ACT_GRAVE_NO) return deny(why, "no district of yours is being destroyed");
    return true;
}

static bool citadels_check(const void *st, action_t a, reason *why) {
    const citadels *g = st;
    int kind = act_kind(a), x = act_x(a), y = act_y(a);
    if (kind >= NUM_KINDS) return deny(why, "no such action");
    if (takes_character(kind) && x >= NUM_CHARACTERS) return deny(why, "no such character");
    if ((takes_district(kind) && x >= NUM_TYPES) || (kind == ACT_DESTROY && y >= NUM_TYPES))
        return deny(why, "no such district");
    if ((kind == ACT_SWAP || kind == ACT_DESTROY) && x >= g->players) return deny(why, "there is no player %d", x + 1);
    if (!phase_allows(g, kind, why)) return false;
    switch (kind) {
    case ACT_CHOOSE: return choose_allowed(g, x, why);
    case ACT_BURY: return bury_allowed(g, x, why);
    case ACT_GOLD: case ACT_DRAW: return action_allowed(g, why);
    case ACT_KEEP: return keep_allowed(g, x, why);
    case ACT_INCOME: return income_allowed(g, why);
    case ACT_BUILD: return build_allowed(g, x, why);
    case ACT_KILL: return kill_allowed(g, x, why);
    case ACT_ROB: return rob_allowed(g, x, why);
    case ACT_SWAP: return swap_allowed(g, x, why);
    case ACT_REPLACE: return replace_allowed(g, x, why);
    case ACT_REPLACE_DONE: return replace_done_allowed(g, why);
    case ACT_LAB: return lab_allowed(g, x, why);
    case ACT_SMITHY: return smithy_allowed(g, why);
    case ACT_DESTROY: return destroy_allowed(g, x, y, why);
    case ACT_GRAVE_YES: case ACT_GRAVE_NO: return true; /* the phase let it through: it is theirs */
    default: return end_allowed(g, why);
    }
}

static void citadels_apply(void *st, action_t a) {
    citadels *g = st;
    int x = act_x(a);
    assert(g->phase != PHASE_OVER); /* check() refuses every action of an ended game */
    switch (act_kind(a)) {
    case ACT_CHOOSE: choose(g, x); break;
    case ACT_BURY: bury(g, x); break;
    case ACT_GOLD: take_gold(g); break;
    case ACT_DRAW: draw_districts(g); break;
    case ACT_KEEP: keep(g, x); break;
    case ACT_INCOME: take_income(g); break;
    case ACT_BUILD: build(g, x); break;
    case ACT_KILL: kill(g, x); break;
    case ACT_ROB: rob(g, x); break;
    case ACT_SWAP: swap_hands(g, x); break;
    case ACT_REPLACE: mark_for_replacing(g, x); break;
    case ACT_REPLACE_DONE: replace_marked(g); break;
    case ACT_LAB: use_lab(g, x); break;
    case ACT_SMITHY: use_smithy(g); break;
    case ACT_DESTROY: destroy(g, x, act_y(a)); break;
    case ACT_GRAVE_YES: graveyard_answer(g, true); break;
    case ACT_GRAVE_NO: graveyard_answer(g, false); break;
    case ACT_END: end_turn(g); break;
    }
}

/* ---- legal actions, generated directly ----
 * Each action is emitted only when legal, in the order logs and seeded bots rely on (the action, income,
 * each district in hand: build, replace, lab; then replace done, smithy, the power, end). The conditions
 * are citadels_check's, read off the state once (which districts the mover owns, what the phase allows)
 * instead of asked action by action. test_conformance asserts on every position of many games that this
 * lists exactly what citadels_check accepts. */

/* The keep actions: each district drawn, once per name. */
static int keep_actions(const citadels *g, action_t *out, int n) {
    for (int i = 0; i < g->drawn_n; i++) {
        bool repeat = false;
        for (int j = 0; j < i; j++) repeat |= g->drawn[j] == g->drawn[i];
        if (!repeat) out[n++] = make_action(ACT_KEEP, g->drawn[i], 0);
    }
    return n;
}

/* While the magician replaces: another card from hand, or done. */
static int replace_actions(const citadels *g, action_t *out, int n) {
    for (uint32_t hand = mover_c(g)->hand_types; hand; hand &= hand - 1)
        out[n++] = make_action(ACT_REPLACE, lowest_bit(hand), 0);
    out[n++] = make_action(ACT_REPLACE_DONE, 0, 0);
    return n;
}

/* The warlord's targets: every district of a city not completed, not the keep, not a live bishop's,
 * that he can pay for (its cost minus 1, and 1 more for the great wall's owner's other districts). */
static int destroy_actions(const citadels *g, action_t *out, int n) {
    /* What he can pay for, by name: cost - 1 <= gold, or cost <= gold in a city with the great wall
     * (but for the wall itself). */
    int gold = mover_c(g)->gold;
    uint32_t plain = affordable_types[gold + 1 < MAX_COST ? gold + 1 : MAX_COST] & ~type_bit(KEEP);
    uint32_t walled = (affordable_types[gold < MAX_COST ? gold : MAX_COST] & ~type_bit(KEEP)) |
                      (plain & type_bit(GREAT_WALL));
    for (int seat = 0; seat < g->players; seat++) {
        const cit_player *target = &g->player[seat];
        if (target->city_n >= g->rules.city_size) continue;
        if (g->holder[BISHOP] == seat && g->killed != BISHOP) continue;
        uint32_t payable = owns(target, GREAT_WALL) ? walled : plain;
        /* Written whatever the test, kept by counting it (out has MEEPLE_MAX_ACTIONS, far more than
         * any list): a search's playouts met these tests as branches that mispredicted. */
        for (int i = 0; i < target->city_n; i++) {
            int d = target->city[i];
            out[n] = make_action(ACT_DESTROY, seat, d);
            n += payable >> d & 1;
        }
    }
    return n;
}

/* Each character in `mask`, in rank order. */
static int character_actions(int kind, uint8_t mask, action_t *out, int n) {
    for (; mask; mask &= (uint8_t)(mask - 1)) out[n++] = make_action(kind, lowest_bit(mask), 0);
    return n;
}

/* The power of the character called, once a turn. */
static int power_actions(const citadels *g, action_t *out, int n) {
    switch (g->current) {
    case ASSASSIN:
        return character_actions(ACT_KILL, (uint8_t)(~bit(ASSASSIN) & ~g->aside_up), out, n);
    case THIEF:
        return character_actions(ACT_ROB, (uint8_t)(~(bit(ASSASSIN) | bit(THIEF)) & ~g->aside_up & ~character_bit(g->killed)),
                                 out, n);
    case MAGICIAN:
        for (int seat = 0; seat < g->players; seat++)
            if (seat != g->to_move) out[n++] = make_action(ACT_SWAP, seat, 0);
        break;
    case WARLORD:
        if (g->acted) n = destroy_actions(g, out, n);
        break;
    }
    return n;
}

/* The power, then the end of the turn. Out of line, like the magician's and the laboratory's hand:
 * turn_actions, which calls each last, then keeps nothing in registers across a call. */
NOT_INLINED static int power_and_end_actions(const citadels *g, action_t *out, int n) {
    if (!g->power_used) n = power_actions(g, out, n);
    if (g->acted) out[n++] = make_action(ACT_END, 0, 0);
    return n;
}

/* Each district in hand, in catalogue order: build it, replace it (the magician), put it in the
 * laboratory. */
NOT_INLINED static int hand_actions(const citadels *g, uint32_t buildable, bool can_replace, bool can_lab,
                                    action_t *out, int n) {
    for (uint32_t hand = mover_c(g)->hand_types; hand; hand &= hand - 1) {
        int d = lowest_bit(hand);
        if (buildable >> d & 1) out[n++] = make_action(ACT_BUILD, d, 0);
        if (can_replace) out[n++] = make_action(ACT_REPLACE, d, 0);
        if (can_lab) out[n++] = make_action(ACT_LAB, d, 0);
    }
    return n;
}

/* A character's turn with nothing pending: the action, income, the hand, the smithy, the power, end.
 * Without the magician's power or the laboratory to offer, only the districts that can be built (in
 * hand, not in the city, paid for) are visited. */
static int turn_actions(const citadels *g, action_t *out, int n) {
    const cit_player *p = mover_c(g);
    uint32_t owned = p->city_types;
    if (!g->acted) {
        out[n++] = make_action(ACT_GOLD, 0, 0);
        out[n++] = make_action(ACT_DRAW, 0, 0);
    }
    if (character_colour[g->current] != NO_COLOUR && !g->income_taken) out[n++] = make_action(ACT_INCOME, 0, 0);
    uint32_t affordable = affordable_types[p->gold < MAX_COST ? p->gold : MAX_COST];
    uint32_t buildable = g->acted && g->builds_left ? p->hand_types & ~owned & affordable : 0;
    bool can_replace = g->current == MAGICIAN && !g->power_used;
    bool can_lab = (owned >> LABORATORY & 1) && !g->lab_used;
    if (can_replace || can_lab) {
        n = hand_actions(g, buildable, can_replace, can_lab, out, n);
    } else {
        for (; buildable; buildable &= buildable - 1) out[n++] = make_action(ACT_BUILD, lowest_bit(buildable), 0);
    }
    if ((owned >> SMITHY & 1) && !g->smithy_used && p->gold >= 2) out[n++] = make_action(ACT_SMITHY, 0, 0);
    return power_and_end_actions(g, out, n);
}

/* The draft: the characters this step may choose or bury (the last of seven may also take the unseen
 * card). */
static int draft_actions(const citadels *g, action_t *out, int n) {
    if (draft_at(g->players, g->step).kind == STEP_BURY) return character_actions(ACT_BURY, g->pack, out, n);
    uint8_t choices = g->pack;
    if (last_pick_of_seven(g)) choices |= character_bit(unseen_card(g));
    return character_actions(ACT_CHOOSE, choices, out, n);
}

static int citadels_legal(const void *st, action_t *out) {
    const citadels *g = st;
    if (g->phase == PHASE_OVER) return 0;
    if (g->phase == PHASE_CHOOSE) return draft_actions(g, out, 0);
    switch (g->sub) {
    case SUB_KEEP: return keep_actions(g, out, 0);
    case SUB_REPLACE: return replace_actions(g, out, 0);
    case SUB_GRAVEYARD:
        out[0] = make_action(ACT_GRAVE_YES, 0, 0);
        out[1] = make_action(ACT_GRAVE_NO, 0, 0);
        return 2;
    default: return turn_actions(g, out, 0);
    }
}

/* Every action of the grammar, with every argument. */
static int citadels_action_space(const void *st, action_t *out) {
    const citadels *g = st;
    int n = 0;
    static const int plain[] = {ACT_GOLD, ACT_DRAW, ACT_INCOME, ACT_REPLACE_DONE, ACT_SMITHY,
                                ACT_GRAVE_YES, ACT_GRAVE_NO, ACT_END};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) out[n++] = make_action(plain[i], 0, 0);
    for (int c = 0; c < NUM_CHARACTERS; c++) {
        out[n++] = make_action(ACT_CHOOSE, c, 0);
        out[n++] = make_action(ACT_BURY, c, 0);
        out[n++] = make_action(ACT_KILL, c, 0);
        out[n++] = make_action(ACT_ROB, c, 0);
    }
    for (int d = 0; d < NUM_TYPES; d++) {
        out[n++] = make_action(ACT_KEEP, d, 0);
        out[n++] = make_action(ACT_BUILD, d, 0);
        out[n++] = make_action(ACT_REPLACE, d, 0);
        out[n++] = make_action(ACT_LAB, d, 0);
    }
    for (int seat = 0; seat < g->players; seat++) {
        out[n++] = make_action(ACT_SWAP, seat, 0);
        for (int d = 0; d < NUM_TYPES; d++) out[n++] = make_action(ACT_DESTROY, seat, d);
    }
    return n;
}

/* ==================================================================== queries */

static int citadels_num_players(const void *st) { return ((const citadels *)st)->players; }
static int citadels_turn(const void *st) { return ((const citadels *)st)->round; }

static int citadels_to_move(const void *st) {
    const citadels *g = st;
    return g->phase == PHASE_OVER ? -1 : g->to_move;
}

/* A turn is a character's turn; while choosing, each step of the draft. */
static uint32_t citadels_turn_key(const void *st, int *owner) {
    const citadels *g = st;
    *owner = g->phase == PHASE_OVER ? -1 : g->phase == PHASE_CHOOSE ? g->to_move : g->holder[g->current];
    int within = g->phase == PHASE_CHOOSE ? g->step : g->phase == PHASE_TURNS ? 16 + g->current : 31;
    return (uint32_t)g->round << 5 | (uint32_t)within;
}

static bool citadels_is_over(const void *st) { return ((const citadels *)st)->phase == PHASE_OVER; }

static int citadels_score(const void *st, int seat) { return score_of(st, seat); }

static void citadels_scores(const void *st, int *out) {
    const citadels *g = st;
    for (int seat = 0; seat < g->players; seat++) out[seat] = score_of(g, seat);
}

/* The highest score; on a tie the higher district points alone, then more gold; still tied, a shared
 * win (ruling). */
static int citadels_winners(const void *st, int *out) {
    const citadels *g = st;
    if (g->phase != PHASE_OVER) return 0;
    long best = -1;
    long key[MAX_SEATS];
    for (int seat = 0; seat < g->players; seat++) {
        const cit_player *p = &g->player[seat];
        int points = district_points(p);
        key[seat] = ((long)score_with(g, seat, points) * 1000 + points) * 100000 + p->gold;
        if (key[seat] > best) best = key[seat];
    }
    int n = 0;
    for (int seat = 0; seat < g->players; seat++)
        if (key[seat] == best) out[n++] = seat;
    return n;
}

/* ==================================================================== action text */

static const char *const kind_word[NUM_KINDS] = {
    [ACT_CHOOSE] = "choose", [ACT_BURY] = "bury", [ACT_GOLD] = "gold", [ACT_DRAW] = "draw",
    [ACT_KEEP] = "keep", [ACT_INCOME] = "income", [ACT_BUILD] = "build", [ACT_KILL] = "kill",
    [ACT_ROB] = "rob", [ACT_SWAP] = "swap", [ACT_REPLACE] = "replace", [ACT_REPLACE_DONE] = "replace",
    [ACT_LAB] = "lab", [ACT_SMITHY] = "smithy", [ACT_DESTROY] = "destroy",
    [ACT_GRAVE_YES] = "graveyard", [ACT_GRAVE_NO] = "graveyard", [ACT_END] = "end"};

static const char *district_name_or(int d) { return d < NUM_TYPES ? districts[d].name : "?"; }

static void citadels_action_text(const void *st, action_t a, char *out) {
    (void)st;
    int kind = act_kind(a), x = act_x(a);
    const char *word = kind < NUM_KINDS ? kind_word[kind] : "?";
    if (takes_character(kind))
        snprintf(out, MEEPLE_ACTION_TEXT, "%s %s", word, x < NUM_CHARACTERS ? character_name[x] : "?");
    else if (takes_district(kind))
        snprintf(out, MEEPLE_ACTION_TEXT, "%s %s", word, district_name_or(x));
    else if (kind == ACT_SWAP)
        snprintf(out, MEEPLE_ACTION_TEXT, "swap %d", x + 1);
    else if (kind == ACT_DESTROY)
        snprintf(out, MEEPLE_ACTION_TEXT, "destroy %d %s", x + 1, district_name_or(act_y(a)));
    else if (kind == ACT_REPLACE_DONE)
        snprintf(out, MEEPLE_ACTION_TEXT, "replace done");
    else if (kind == ACT_GRAVE_YES || kind == ACT_GRAVE_NO)
        snprintf(out, MEEPLE_ACTION_TEXT, "graveyard %s", kind == ACT_GRAVE_YES ? "yes" : "no");
    else
        snprintf(out, MEEPLE_ACTION_TEXT, "%s", word);
}

/* The names alone, for table_name_index: from the district list, like everything else about them. */
#define DISTRICT_NAME(arg, id, name, cost, copies, colour) [id] = name,
static const char *const district_names[NUM_TYPES] = {DISTRICT_LIST(DISTRICT_NAME, 0)};

static bool parse_seat(const citadels *g, const char *word, int *out, reason *why) {
    char *end;
    long n = strtol(word, &end, 10);
    if (*end || n < 1 || n > g->players) return deny(why, "'%s' is not a player: 1 to %d", word, g->players);
    *out = (int)n - 1;
    return true;
}

static bool parse_district(const char *word, int *out, reason *why) {
    *out = table_name_index(word, district_names, NUM_TYPES);
    if (*out < 0) return deny(why, "'%s' is not a district (names are lower case, with _ for spaces)", word);
    return true;
}

static bool citadels_parse_action(const void *st, const char *text, action_t *out, reason *why) {
    const citadels *g = st;
    char copy[MEEPLE_ACTION_TEXT * 2], *words[4] = {0};
    int count = 0;
    if (strlen(text) >= sizeof copy) return deny(why, "that action is too long to be one");
    strcpy(copy, text);
    for (char *c = copy; *c;) {
        while (*c == ' ' || *c == '\t') *c++ = '\0';
        if (!*c) break;
        if (count == 3) return deny(why, "too many words in '%s'", text);
        words[count++] = c;
        while (*c && *c != ' ' && *c != '\t') c++;
    }
    if (!count) return deny(why, "no action given");
    int kind = table_name_index(words[0], kind_word, NUM_KINDS), x = 0, y = 0;
    if (kind < 0)
        return deny(why, "unknown action '%s'; actions: choose, bury, gold, draw, keep, income, build, "
                    "kill, rob, swap, replace, lab, smithy, destroy, graveyard, end", words[0]);
    if (kind == ACT_REPLACE && count == 2 && strcmp(words[1], "done") == 0) kind = ACT_REPLACE_DONE;
    if (kind == ACT_GRAVE_YES) {
        if (count != 2 || (strcmp(words[1], "yes") && strcmp(words[1], "no")))
            return deny(why, "say graveyard yes or graveyard no");
        kind = strcmp(words[1], "yes") == 0 ? ACT_GRAVE_YES : ACT_GRAVE_NO;
        *out = make_action(kind, 0, 0);
        return true;
    }
    int want = kind == ACT_DESTROY ? 3 : takes_character(kind) || takes_district(kind) || kind == ACT_SWAP ? 2
             : kind == ACT_REPLACE_DONE ? 2 : 1;
    if (count != want) return deny(why, "'%s' takes %d word%s after it", words[0], want - 1, want == 2 ? "" : "s");
    if (takes_character(kind)) {
        x = table_name_index(words[1], character_name, NUM_CHARACTERS);
        if (x < 0)
            return deny(why, "'%s' is not a character: assassin, thief, magician, king, bishop, "
                        "merchant, architect, warlord", words[1]);
    } else if (takes_district(kind)) {
        if (!parse_district(words[1], &x, why)) return false;
    } else if (kind == ACT_SWAP) {
        if (!parse_seat(g, words[1], &x, why)) return false;
    } else if (kind == ACT_DESTROY) {
        if (!parse_seat(g, words[1], &x, why) || !parse_district(words[2], &y, why)) return false;
    }
    *out = make_action(kind, x, y);
    return true;
}

/* ==================================================================== state tables */

static const char *const phase_name[] = {"choose", "turns", "over"};
static const char *const placed_name[] = {"none", "unseen", "up", "pick", "down"};

static void write_characters(tree_writer *w, uint8_t mask) {
    w->open_list(w);
    for (int c = 0; c < NUM_CHARACTERS; c++)
        if (has(mask, c)) w->str(w, character_name[c]);
    w->close(w);
}

static void write_counts(tree_writer *w, const uint8_t *counts) {
    w->open_list(w);
    for (int d = 0; d < NUM_TYPES; d++)
        for (int c = 0; c < counts[d]; c++) w->str(w, districts[d].name);
    w->close(w);
}

static int count_of(const uint8_t *counts) {
    int n = 0;
    for (int d = 0; d < NUM_TYPES; d++) n += counts[d];
    return n;
}

static uint8_t characters_of(const citadels *g, int seat) {
    uint8_t mask = 0;
    for (int c = 0; c < NUM_CHARACTERS; c++)
        if (g->holder[c] == seat) mask |= bit(c);
    return mask;
}

/* A held character is known to all once it has been called (murdered ones too: they say so). */
static uint8_t revealed_characters(const citadels *g) {
    uint8_t mask = 0;
    for (int c = 0; c < NUM_CHARACTERS; c++)
        if (g->holder[c] != NOBODY &&
            (g->phase == PHASE_OVER || (g->phase == PHASE_TURNS && c <= g->current)))
            mask |= bit(c);
    return mask;
}

static void write_player(const citadels *g, int seat, int viewer, tree_writer *w) {
    const cit_player *p = &g->player[seat];
    bool sees_all = viewer < 0 || viewer == seat;
    uint8_t held = characters_of(g, seat);
    w->open_map(w);
    tw_key_num(w, "gold", p->gold);
    w->key(w, "hand");
    if (sees_all) write_counts(w, p->hand);
    else w->num(w, hand_size(p));
    w->key(w, "city");
    w->open_list(w);
    for (int i = 0; i < p->city_n; i++) w->str(w, districts[p->city[i]].name);
    w->close(w);
    w->key(w, "characters");
    write_characters(w, sees_all ? held : held & revealed_characters(g));
    int count = 0;
    for (int c = 0; c < NUM_CHARACTERS; c++) count += has(held, c);
    tw_key_num(w, "character_count", count);
    if (sees_all) {
        w->key(w, "passed");
        write_characters(w, p->passed);
        w->key(w, "buried");
        write_characters(w, p->buried);
    }
    w->close(w);
}

static void write_cards(tree_writer *w, const uint8_t *cards, int n) {
    w->open_list(w);
    for (int i = 0; i < n; i++) w->str(w, districts[cards[i]].name);
    w->close(w);
}

/* The turn's progress: who has done what, and the cards in the middle of a decision. */
static void write_turn(const citadels *g, int viewer, tree_writer *w) {
    bool owner_sees = viewer < 0 || (g->current != NONE && viewer == g->holder[g->current]);
    if (g->current != NONE) tw_key_str(w, "current", character_name[g->current]);
    tw_key_bool(w, "acted", g->acted);
    tw_key_bool(w, "income_taken", g->income_taken);
    tw_key_bool(w, "power_used", g->power_used);
    tw_key_bool(w, "lab_used", g->lab_used);
    tw_key_bool(w, "smithy_used", g->smithy_used);
    tw_key_num(w, "builds_left", g->builds_left);
    if (tw_key(w, "drawn")) {
        if (owner_sees) write_cards(w, g->drawn, g->drawn_n);
        else w->num(w, g->drawn_n);
    }
    tw_key_num(w, "keep_left", g->keep_left);
    if (tw_key(w, "marked")) {
        if (owner_sees) write_counts(w, g->marked);
        else w->num(w, count_of(g->marked));
    }
    if (g->sub == SUB_GRAVEYARD && tw_key(w, "pending")) {
        w->open_map(w);
        tw_key_str(w, "district", districts[g->grave_card].name);
        tw_key_num(w, "owner", g->grave_owner + 1);
        w->close(w);
    }
}

/* The draft's record, in the order the characters were placed (the god view only: it says who took
 * what). */
static void write_draft(const citadels *g, tree_writer *w) {
    if (!tw_key(w, "draft")) return;
    w->open_list(w);
    for (int step = STEP_BEFORE_DRAFT; step <= draft_length(g->players); step++)
        for (int c = 0; c < NUM_CHARACTERS; c++) {
            if (g->placed_kind[c] == PLACED_NOT || g->placed_step[c] != step) continue;
            w->open_map(w);
            tw_key_str(w, "character", character_name[c]);
            tw_key_str(w, "kind", placed_name[g->placed_kind[c]]);
            if (g->placed_by[c] != NOBODY) tw_key_num(w, "by", g->placed_by[c] + 1);
            tw_key_num(w, "step", step + 1);
            w->close(w);
        }
    w->close(w);
}

static void citadels_write_table(const void *st, int viewer, tree_writer *w) {
    const citadels *g = st;
    w->open_map(w);
    tw_key_str(w, "game", "citadels");
    tw_key_str(w, "phase", phase_name[g->phase]);
    tw_key_num(w, "round", g->round);
    tw_key_num(w, "crown", g->crown + 1);
    if (g->phase != PHASE_OVER) tw_key_num(w, "to_move", g->to_move + 1);
    if (g->killed != NONE) tw_key_str(w, "killed", character_name[g->killed]);
    if (g->robbed != NONE) tw_key_str(w, "robbed", character_name[g->robbed]);
    if (tw_key(w, "players")) {
        w->open_list(w);
        for (int seat = 0; seat < g->players; seat++) write_player(g, seat, viewer, w);
        w->close(w);
    }
    if (tw_key(w, "deck")) {
        if (viewer < 0) write_cards(w, g->deck.card, g->deck.n);
        else w->num(w, g->deck.n);
    }
    if (tw_key(w, "aside_up")) write_characters(w, g->aside_up);
    if (tw_key(w, "aside_down")) {
        if (viewer < 0) write_characters(w, g->aside_down);
        else w->num(w, count_bits(g->aside_down));
    }
    if (g->first_complete != NOBODY) tw_key_num(w, "first_complete", g->first_complete + 1);
    tw_key_num(w, "haunted_round", g->haunted_round);
    if (g->phase == PHASE_CHOOSE) {
        tw_key_num(w, "step", g->step + 1);
        if (tw_key(w, "pack")) {
            if (viewer < 0 || viewer == g->to_move) write_characters(w, g->pack);
            else w->num(w, count_bits(g->pack));
        }
    }
    if (g->phase == PHASE_TURNS) write_turn(g, viewer, w);
    if (viewer < 0) write_draft(g, w);
    w->close(w);
}

/* ---- reading a (partial) table ----
 * Zones a table names hold exactly what it lists; a hand, deck, pile of drawn or marked cards, or
 * characters given as a number get that many dealt from those listed nowhere. The deck takes every
 * district left over; characters left over go to the pack while choosing, else face down. Scalars
 * left out take their values at the start of the round (phase "turns" when players hold characters);
 * the draft's record, if not given, is made up in the script's order. */

typedef struct table_cards {
    int districts_left[NUM_TYPES];
    uint8_t characters_left;  /* bits */
    int hand_wanted[MAX_SEATS], characters_wanted[MAX_SEATS];
    int deck_wanted, aside_down_wanted, pack_wanted, drawn_wanted, marked_wanted; /* -1: listed */
    bool deck_named, aside_down_named, pack_named;
    int current;              /* the character whose turn it is, if the table says */
} table_cards;

static const char *const table_keys[] = {
    "game", "seed", "params", "phase", "round", "crown", "to_move", "current", "killed", "robbed",
    "players", "deck", "aside_up", "aside_down", "first_complete", "haunted_round", "step", "pack",
    "acted", "income_taken", "power_used", "lab_used", "smithy_used", "builds_left", "drawn",
    "keep_left", "marked", "pending", "draft", NULL};
static const char *const player_keys[] = {"gold", "hand", "city", "characters", "character_count",
                                          "passed", "buried", NULL};

/* One district card from what is left, by name. */
static bool take_district(tree_reader *r, table_cards *cards, int *out, reason *why) {
    const char *name = r->get_str(r);
    int d = name ? table_name_index(name, district_names, NUM_TYPES) : -1;
    char what[120];
    if (d < 0) {
        snprintf(what, sizeof what, "'%.40s' is not a district", name ? name : "(not a name)");
        return table_refuse(r, why, what);
    }
    if (cards->districts_left[d] == 0) {
        snprintf(what, sizeof what, "more %s cards than the game's %d", name, districts[d].copies);
        return table_refuse(r, why, what);
    }
    cards->districts_left[d]--;
    *out = d;
    return true;
}

/* A list of districts into counts, or into an ordered array; or a number to deal later. */
static bool read_districts(tree_reader *r, const char *key, table_cards *cards, uint8_t *counts,
                           uint8_t *ordered, uint8_t *n, int cap, int *wanted, reason *why) {
    tree_kind kind = r->enter_key(r, key);
    bool ok = true;
    int64_t number;
    if (kind == TREE_TABLE) {
        int len = r->length(r);
        if (len > cap) ok = table_refuse(r, why, "more cards than fit there");
        for (int i = 1; ok && i <= len; i++) {
            int d;
            r->enter_index(r, i);
            ok = take_district(r, cards, &d, why);
            r->leave(r);
            if (ok && counts) counts[d]++;
            if (ok && ordered) ordered[(*n)++] = (uint8_t)d;
        }
        if (wanted) *wanted = -1;
    } else if (kind == TREE_NUM && wanted && r->get_int(r, &number) && number >= 0 && number <= cap) {
        *wanted = (int)number;
    } else if (kind != TREE_ABSENT) {
        ok = table_refuse(r, why, wanted ? "a list of districts, or a number of cards" : "a list of districts");
    }
    r->leave(r);
    return ok;
}

/* A list of character names into bits, each taken from what is left. */
static bool read_characters(tree_reader *r, const char *key, table_cards *cards, uint8_t *mask,
                            bool take, int *wanted, reason *why) {
    tree_kind kind = r->enter_key(r, key);
    bool ok = true;
    int64_t number;
    if (kind == TREE_TABLE) {
        int len = r->length(r);
        for (int i = 1; ok && i <= len && i <= NUM_CHARACTERS + 1; i++) {
            r->enter_index(r, i);
            const char *name = r->get_str(r);
            int c = name ? table_name_index(name, character_name, NUM_CHARACTERS) : -1;
            if (c < 0) ok = table_refuse(r, why, "not a character");
            else if (take && !has(cards->characters_left, c)) ok = table_refuse(r, why, "this character is elsewhere already");
            r->leave(r);
            if (!ok) break;
            if (take) cards->characters_left &= (uint8_t)~bit(c);
            *mask |= bit(c);
        }
        if (wanted) *wanted = -1;
    } else if (kind == TREE_NUM && wanted && r->get_int(r, &number) && number >= 0 && number <= NUM_CHARACTERS) {
        *wanted = (int)number;
    } else if (kind != TREE_ABSENT) {
        ok = table_refuse(r, why, "a list of characters");
    }
    r->leave(r);
    return ok;
}

static bool read_player(tree_reader *r, citadels *g, int seat, table_cards *cards, reason *why) {
    cit_player *p = &g->player[seat];
    int gold = g->rules.start_gold, count = -1;
    uint8_t held = 0, city_counts[NUM_TYPES] = {0};
    bool ok = table_check_keys(r, player_keys, why) && table_read_int(r, "gold", 0, GOLD_MAX, &gold, why) &&
              read_districts(r, "hand", cards, p->hand, NULL, NULL, NUM_DISTRICTS, &cards->hand_wanted[seat], why) &&
              read_districts(r, "city", cards, city_counts, p->city, &p->city_n, NUM_TYPES, NULL, why) &&
              read_characters(r, "characters", cards, &held, true, NULL, why) &&
              table_read_int(r, "character_count", 0, 2, &count, why) &&
              read_characters(r, "passed", cards, &p->passed, false, NULL, why) &&
              read_characters(r, "buried", cards, &p->buried, false, NULL, why);
    if (!ok) return false;
    for (int d = 0; d < NUM_TYPES; d++)
        if (city_counts[d] > 1) return deny(why, "players[%d].city: two %s in one city", seat + 1, districts[d].name);
    p->gold = (uint16_t)gold;
    for (int c = 0; c < NUM_CHARACTERS; c++)
        if (has(held, c)) g->holder[c] = (uint8_t)seat;
    if (count >= 0 && count < count_bits(held))
        return deny(why, "players[%d]: character_count is less than the characters listed", seat + 1);
    cards->characters_wanted[seat] = count < 0 ? 0 : count - count_bits(held);
    return true;
}

static bool read_players(tree_reader *r, citadels *g, table_cards *cards, reason *why) {
    bool ok = true;
    if (r->enter_key(r, "players") != TREE_TABLE) {
        ok = table_refuse(r, why, "a Citadels table lists its 2 to 7 players");
    } else {
        int n = r->length(r);
        if (n < 2 || n > MAX_SEATS) ok = table_refuse(r, why, "Citadels has 2 to 7 players");
        g->players = (uint8_t)n;
        for (int seat = 0; ok && seat < n; seat++) {
            if (r->enter_index(r, seat + 1) == TREE_TABLE) ok = read_player(r, g, seat, cards, why);
            else ok = table_refuse(r, why, "each player is a table");
            r->leave(r);
        }
    }
    r->leave(r);
    return ok;
}

static bool read_pending(tree_reader *r, citadels *g, table_cards *cards, reason *why) {
    tree_kind kind = r->enter_key(r, "pending");
    bool ok = true;
    if (kind == TREE_TABLE) {
        int owner = 0, d = 0;
        static const char *const keys[] = {"district", "owner", NULL};
        ok = table_check_keys(r, keys, why) && table_read_int(r, "owner", 1, g->players, &owner, why);
        if (ok && r->enter_key(r, "district") == TREE_STR) ok = take_district(r, cards, &d, why);
        else if (ok) ok = table_refuse(r, why, "the district being destroyed");
        r->leave(r);
        if (ok && !owner) ok = table_refuse(r, why, "pending needs the graveyard's owner");
        g->grave_card = (uint8_t)d;
        g->grave_owner = (uint8_t)(owner - 1);
        g->sub = SUB_GRAVEYARD;
    } else if (kind != TREE_ABSENT) {
        ok = table_refuse(r, why, "{district = D, owner = N}");
    }
    r->leave(r);
    return ok;
}

static bool read_zones(tree_reader *r, citadels *g, table_cards *cards, reason *why) {
    uint8_t marked_list[NUM_DISTRICTS], marked_n = 0;
    bool ok = read_characters(r, "aside_up", cards, &g->aside_up, true, NULL, why) &&
              read_characters(r, "aside_down", cards, &g->aside_down, true, &cards->aside_down_wanted, why) &&
              read_characters(r, "pack", cards, &g->pack, true, &cards->pack_wanted, why) &&
              read_districts(r, "drawn", cards, NULL, g->drawn, &g->drawn_n, 3, &cards->drawn_wanted, why) &&
              read_districts(r, "marked", cards, g->marked, marked_list, &marked_n, NUM_DISTRICTS,
                             &cards->marked_wanted, why) &&
              read_pending(r, g, cards, why) &&
              read_districts(r, "deck", cards, NULL, g->deck.card, &g->deck.n, NUM_DISTRICTS, &cards->deck_wanted, why);
    if (!ok) return false;
    cards->aside_down_named = cards->aside_down_wanted != -2 || g->aside_down;
    cards->pack_named = cards->pack_wanted != -2 || g->pack;
    cards->deck_named = cards->deck_wanted != -2 || g->deck.n;
    return true;
}

/* Deals what the table asked for by number, then the rest to the deck (and the pack or face down). */
static bool deal_rest(citadels *g, table_cards *cards, reason *why) {
    uint8_t pool[NUM_DISTRICTS];
    int n = 0;
    for (int d = 0; d < NUM_TYPES; d++)
        for (int c = 0; c < cards->districts_left[d]; c++) pool[n++] = (uint8_t)d;
    rng_shuffle_bytes(&g->rng, pool, n);
    int wanted_total = cards->drawn_wanted > 0 ? cards->drawn_wanted : 0;
    for (int seat = 0; seat < g->players; seat++) wanted_total += cards->hand_wanted[seat] > 0 ? cards->hand_wanted[seat] : 0;
    wanted_total += cards->marked_wanted > 0 ? cards->marked_wanted : 0;
    wanted_total += cards->deck_wanted > 0 ? cards->deck_wanted : 0;
    if (wanted_total > n) return deny(why, "the table asks for %d more districts than are left (%d)", wanted_total, n);
    for (int seat = 0; seat < g->players; seat++)
        for (int c = 0; c < cards->hand_wanted[seat]; c++) hand_add(&g->player[seat], pool[--n]);
    for (int c = 0; c < cards->drawn_wanted; c++) g->drawn[g->drawn_n++] = pool[--n];
    for (int c = 0; c < cards->marked_wanted; c++) g->marked[pool[--n]]++;
    int deck = cards->deck_wanted >= 0 ? cards->deck_wanted : cards->deck_named ? 0 : n;
    for (int c = 0; c < deck; c++) g->deck.card[g->deck.n++] = pool[--n];
    if (n) return deny(why, "%d district cards are placed nowhere (leave the deck out to have them dealt there)", n);

    /* Characters called before the current one and not shown by a player lie face down: they are
     * dealt to nobody. The others are shuffled, and the players' come from the front. */
    uint8_t chars[NUM_CHARACTERS];
    int m = 0;
    bool turns = g->phase == PHASE_TURNS;
    for (int c = 0; c < NUM_CHARACTERS; c++)
        if (has(cards->characters_left, c) && !(turns && c < cards->current)) chars[m++] = (uint8_t)c;
    int open = m, dealt = 0;
    for (int c = 0; c < NUM_CHARACTERS; c++)
        if (has(cards->characters_left, c) && turns && c < cards->current) chars[m++] = (uint8_t)c;
    rng_shuffle_bytes(&g->rng, chars, open);
    for (int seat = 0; seat < g->players; seat++)
        for (int i = 0; i < cards->characters_wanted[seat]; i++) {
            if (dealt == open) return deny(why, "not enough characters are left for players[%d]", seat + 1);
            g->holder[chars[dealt++]] = (uint8_t)seat;
        }
    memmove(chars, chars + dealt, (size_t)(m - dealt));
    m -= dealt;
    rng_shuffle_bytes(&g->rng, chars, m);
    int pack = cards->pack_wanted >= 0 ? cards->pack_wanted : (g->phase == PHASE_CHOOSE && !cards->pack_named) ? m : 0;
    for (int i = 0; i < pack && m; i++) g->pack |= bit(chars[--m]);
    int down = cards->aside_down_wanted >= 0 ? cards->aside_down_wanted : cards->aside_down_named ? 0 : m;
    for (int i = 0; i < down && m; i++) g->aside_down |= bit(chars[--m]);
    if (m) return deny(why, "%d characters are placed nowhere", m);
    return true;
}

/* Makes up the draft's record the script would give: players' characters picked in the script's
 * order, the face-down ones put aside at its end (by whoever says they buried them). */
static void synthesize_draft(citadels *g) {
    for (int c = 0; c < NUM_CHARACTERS; c++) {
        g->placed_step[c] = STEP_UNPLACED;
        g->placed_by[c] = NOBODY;
        g->placed_kind[c] = PLACED_NOT;
        if (has(g->aside_up, c)) g->placed_kind[c] = PLACED_UP, g->placed_step[c] = STEP_BEFORE_DRAFT;
        if (has(g->aside_down, c)) {
            g->placed_kind[c] = PLACED_DOWN;
            g->placed_step[c] = (int8_t)draft_length(g->players);
            for (int seat = 0; seat < g->players; seat++)
                if (has(g->player[seat].buried, c)) g->placed_by[c] = (uint8_t)seat;
        }
    }
    int length = draft_length(g->players);
    for (int step = 0; step < length; step++) {
        int seat = seat_of_step(g, step);
        for (int c = 0; c < NUM_CHARACTERS; c++)
            if (g->holder[c] == seat && g->placed_kind[c] == PLACED_NOT) {
                g->placed_kind[c] = PLACED_PICK;
                g->placed_by[c] = (uint8_t)seat;
                g->placed_step[c] = (int8_t)step;
                break;
            }
    }
    for (int c = 0; c < NUM_CHARACTERS; c++)
        if (g->holder[c] != NOBODY && g->placed_kind[c] == PLACED_NOT) {
            g->placed_kind[c] = PLACED_PICK;
            g->placed_by[c] = g->holder[c];
            g->placed_step[c] = (int8_t)length;
        }
}

static bool read_draft(tree_reader *r, citadels *g, reason *why) {
    tree_kind kind = r->enter_key(r, "draft");
    bool ok = true;
    if (kind == TREE_TABLE) {
        static const char *const keys[] = {"character", "kind", "by", "step", NULL};
        int n = r->length(r);
        for (int i = 1; ok && i <= n && i <= NUM_CHARACTERS; i++) {
            int c = -1, placed = PLACED_NOT, by = 0, step = 0;
            r->enter_index(r, i);
            ok = table_check_keys(r, keys, why) &&
                 table_read_name(r, "character", character_name, NUM_CHARACTERS, &c, "a character", why) &&
                 table_read_name(r, "kind", placed_name, 5, &placed, "unseen, up, pick or down", why) &&
                 table_read_int(r, "by", 0, g->players, &by, why) &&
                 table_read_int(r, "step", 0, draft_length(g->players) + 1, &step, why);
            if (ok && c < 0) ok = table_refuse(r, why, "each entry names its character");
            r->leave(r);
            if (!ok) break;
            g->placed_kind[c] = (uint8_t)placed;
            g->placed_by[c] = by ? (uint8_t)(by - 1) : NOBODY;
            g->placed_step[c] = (int8_t)(step - 1);
        }
    } else if (kind != TREE_ABSENT) {
        ok = table_refuse(r, why, "a list of {character, kind, by, step}");
    }
    r->leave(r);
    return ok;
}

static bool read_flow(tree_reader *r, citadels *g, reason *why) {
    int phase = g->phase, round = 1, crown = 1, to_move = 0, step = 1, current = NONE, killed = NONE,
        robbed = NONE, first = 0, haunted = 0, builds = -1, keep_left = -1;
    bool ok = table_read_name(r, "phase", phase_name, 3, &phase, "phase is choose, turns or over", why) &&
              table_read_int(r, "round", 1, 255, &round, why) &&
              table_read_int(r, "crown", 1, g->players, &crown, why) &&
              table_read_int(r, "to_move", 1, g->players, &to_move, why) &&
              table_read_int(r, "step", 1, draft_length(g->players), &step, why) &&
              table_read_name(r, "current", character_name, NUM_CHARACTERS, &current, "a character", why) &&
              table_read_name(r, "killed", character_name, NUM_CHARACTERS, &killed, "a character", why) &&
              table_read_name(r, "robbed", character_name, NUM_CHARACTERS, &robbed, "a character", why) &&
              table_read_int(r, "first_complete", 1, g->players, &first, why) &&
              table_read_int(r, "haunted_round", 0, 255, &haunted, why) &&
              table_read_bool(r, "acted", &g->acted, why) &&
              table_read_bool(r, "income_taken", &g->income_taken, why) &&
              table_read_bool(r, "power_used", &g->power_used, why) &&
              table_read_bool(r, "lab_used", &g->lab_used, why) &&
              table_read_bool(r, "smithy_used", &g->smithy_used, why) &&
              table_read_int(r, "builds_left", 0, 3, &builds, why) &&
              table_read_int(r, "keep_left", 0, 3, &keep_left, why);
    if (!ok) return false;
    g->phase = (uint8_t)phase;
    g->round = (uint8_t)round;
    g->crown = (uint8_t)(crown - 1);
    g->step = (uint8_t)(step - 1);
    g->killed = (uint8_t)killed;
    g->robbed = (uint8_t)robbed;
    g->haunted_round = (uint8_t)haunted;
    g->first_complete = first ? (uint8_t)(first - 1) : NOBODY;
    if (g->phase == PHASE_TURNS && current == NONE)
        for (int c = NUM_CHARACTERS - 1; c >= 0; c--)
            if (g->holder[c] != NOBODY && c != killed) current = c;
    if (g->phase == PHASE_TURNS && (current == NONE || g->holder[current] == NOBODY))
        return deny(why, "current: in phase turns the character whose turn it is must be held by a player");
    g->current = g->phase == PHASE_TURNS ? (uint8_t)current : NONE;
    g->builds_left = (uint8_t)(builds >= 0 ? builds : current == ARCHITECT ? 3 : 1);
    if (g->drawn_n && g->sub == SUB_NONE) g->sub = SUB_KEEP;
    if (count_of(g->marked) && g->sub == SUB_NONE) g->sub = SUB_REPLACE;
    g->keep_left = (uint8_t)(keep_left >= 0 ? keep_left : g->sub == SUB_KEEP ? 1 : 0);
    int expected = g->phase == PHASE_CHOOSE  ? seat_of_step(g, g->step)
                 : g->phase == PHASE_OVER    ? NOBODY
                 : g->sub == SUB_GRAVEYARD   ? g->grave_owner
                                             : g->holder[g->current];
    if (to_move && to_move - 1 != expected)
        return deny(why, "to_move: player %d decides now, not %d", expected + 1, to_move);
    g->to_move = (uint8_t)expected;
    return true;
}

static bool citadels_validate(const void *st, reason *why);

static bool citadels_read_table(void *st, tree_reader *r, const param_value *params, uint64_t seed,
                                reason *why) {
    citadels *g = st;
    memset(g, 0, sizeof *g);
    g->rules = rules_from_params(params);
    rng_seed(&g->rng, seed, CITADELS_RNG_STREAM);
    memset(g->holder, NOBODY, sizeof g->holder);
    g->grave_card = g->grave_owner = NONE;
    table_cards cards = {.characters_left = 0xff, .deck_wanted = -2, .aside_down_wanted = -2,
                         .pack_wanted = -2, .drawn_wanted = -2, .marked_wanted = -2};
    for (int d = 0; d < NUM_TYPES; d++) cards.districts_left[d] = districts[d].copies;
    if (!table_check_keys(r, table_keys, why) || !read_players(r, g, &cards, why) ||
        !face_up_check(&g->rules, g->players, why) || !read_zones(r, g, &cards, why))
        return false;
    bool anyone_holds = false;
    for (int seat = 0; seat < g->players; seat++)
        anyone_holds |= cards.characters_wanted[seat] > 0;
    for (int c = 0; c < NUM_CHARACTERS; c++) anyone_holds |= g->holder[c] != NOBODY;
    g->phase = anyone_holds ? PHASE_TURNS : PHASE_CHOOSE;
    int phase = g->phase;
    if (!table_read_name(r, "phase", phase_name, 3, &phase, "phase is choose, turns or over", why)) return false;
    g->phase = (uint8_t)phase;
    cards.current = NUM_CHARACTERS;
    if (!table_read_name(r, "current", character_name, NUM_CHARACTERS, &cards.current, "a character", why) ||
        !deal_rest(g, &cards, why))
        return false;
    /* The flow first: the draft made up below starts at the crown it reads. */
    if (!read_flow(r, g, why)) return false;
    synthesize_draft(g);
    if (!read_draft(r, g, why)) return false;
    if (g->phase == PHASE_CHOOSE) g->player[g->to_move].passed |= g->pack;
    if (g->first_complete == NOBODY)
        for (int i = 0; i < g->players; i++) {
            int seat = (g->crown + i) % g->players;
            if (g->player[seat].city_n >= g->rules.city_size) {
                g->first_complete = (uint8_t)seat;
                break;
            }
        }
    recount_types(g);
    return citadels_validate(g, why);
}

/* ==================================================================== invariants */

static bool validate_districts(const citadels *g, reason *why) {
    int count[NUM_TYPES] = {0};
    if (g->deck.n > NUM_DISTRICTS || g->drawn_n > 3) return deny(why, "a pile holds more cards than the game has");
    for (int i = 0; i < g->deck.n; i++) {
        if (g->deck.card[i] >= NUM_TYPES) return deny(why, "a deck card is no district");
        count[g->deck.card[i]]++;
    }
    for (int i = 0; i < g->drawn_n; i++) {
        if (g->drawn[i] >= NUM_TYPES) return deny(why, "a drawn card is no district");
        count[g->drawn[i]]++;
    }
    for (int d = 0; d < NUM_TYPES; d++) count[d] += g->marked[d];
    if (g->sub == SUB_GRAVEYARD) {
        if (g->grave_card >= NUM_TYPES || g->grave_owner >= g->players) return deny(why, "the graveyard's card is damaged");
        count[g->grave_card]++;
    }
    for (int seat = 0; seat < g->players; seat++) {
        const cit_player *p = &g->player[seat];
        if (p->city_n > NUM_TYPES) return deny(why, "player %d's city is too large", seat + 1);
        if (p->gold > GOLD_MAX) return deny(why, "player %d has more gold than a counter holds (%d)", seat + 1, GOLD_MAX);
        for (int d = 0; d < NUM_TYPES; d++) count[d] += p->hand[d];
        for (int i = 0; i < p->city_n; i++) {
            if (p->city[i] >= NUM_TYPES) return deny(why, "a city holds no district");
            for (int j = 0; j < i; j++)
                if (p->city[j] == p->city[i])
                    return deny(why, "player %d has two %s in the city", seat + 1, districts[p->city[i]].name);
            count[p->city[i]]++;
        }
        if (p->hand_types != hand_types_of(p) || p->city_types != city_types_of(p))
            return deny(why, "player %d's record of which districts are in hand and city is damaged", seat + 1);
    }
    for (int d = 0; d < NUM_TYPES; d++)
        if (count[d] != districts[d].copies)
            return deny(why, "there are %d %s cards; the game has %d", count[d], districts[d].name, districts[d].copies);
    return true;
}

/* The draft's record says how each character left the pack, and it must say where the character is:
 * the sampler re-deals characters by their records (a face-down record for each character known to lie
 * face down), so a record that disagrees with the character's place makes it read past its slots. */
static bool validate_draft(const citadels *g, reason *why) {
    int unseen = 0, length = draft_length(g->players);
    if (g->phase != PHASE_CHOOSE && g->pack) return deny(why, "characters are left in the pack after the draft");
    for (int c = 0; c < NUM_CHARACTERS; c++) {
        int kind = g->placed_kind[c], step = g->placed_step[c], by = g->placed_by[c];
        bool placed_in_draft = kind == PLACED_PICK || kind == PLACED_DOWN;
        bool where = kind == PLACED_NOT      ? has(g->pack, c)
                   : kind == PLACED_UP       ? has(g->aside_up, c)
                   : kind == PLACED_PICK     ? g->holder[c] != NOBODY && g->holder[c] == by
                                             : has(g->aside_down, c);
        bool when = kind == PLACED_NOT ? step == STEP_UNPLACED
                  : placed_in_draft    ? step >= 0 && step <= length
                                       : step == STEP_BEFORE_DRAFT;
        bool who = placed_in_draft ? by == NOBODY || by < g->players : by == NOBODY;
        if (!where || !when || !who)
            return deny(why, "the draft's record of the %s does not fit where it is", character_name[c]);
        unseen += kind == PLACED_UNSEEN;
    }
    if (unseen > 1) return deny(why, "the draft's record has %d unseen characters; a round has one", unseen);
    return true;
}

static bool validate_characters(const citadels *g, reason *why) {
    for (int c = 0; c < NUM_CHARACTERS; c++) {
        int places = has(g->aside_up, c) + has(g->aside_down, c) + has(g->pack, c) + (g->holder[c] != NOBODY);
        if (places != 1)
            return deny(why, "the %s is in %d places; every character is in exactly one", character_name[c], places);
        if (g->holder[c] != NOBODY && g->holder[c] >= g->players)
            return deny(why, "the %s is held by nobody at the table", character_name[c]);
        if (g->placed_kind[c] > PLACED_DOWN || g->placed_step[c] < STEP_BEFORE_DRAFT ||
            (g->placed_step[c] > draft_length(g->players) && g->placed_step[c] != STEP_UNPLACED) ||
            (g->placed_by[c] != NOBODY && g->placed_by[c] >= g->players))
            return deny(why, "the draft's record is damaged");
    }
    if (has(g->aside_up, KING)) return deny(why, "the king is never put aside face up");
    if (!validate_draft(g, why)) return false;
    bool names_ok = (g->killed == NONE || g->killed < NUM_CHARACTERS) &&
                    (g->robbed == NONE || g->robbed < NUM_CHARACTERS) &&
                    (g->current == NONE || g->current < NUM_CHARACTERS);
    if (!names_ok) return deny(why, "a character name is damaged");
    if (g->killed == ASSASSIN) return deny(why, "the assassin cannot be killed");
    if (g->robbed != NONE && (g->robbed == ASSASSIN || g->robbed == THIEF || g->robbed == g->killed))
        return deny(why, "the thief cannot rob the %s", character_name[g->robbed]);
    return true;
}

static bool validate_flow(const citadels *g, reason *why) {
    if (g->phase > PHASE_OVER) return deny(why, "the phase is damaged");
    if (g->crown >= g->players) return deny(why, "the crown is with nobody at the table");
    if (g->first_complete != NOBODY && g->first_complete >= g->players) return deny(why, "first_complete is damaged");
    if (g->phase != PHASE_TURNS && (g->sub != SUB_NONE || g->drawn_n || g->keep_left || count_of(g->marked) ||
                                    g->current != NONE))
        return deny(why, "a character's turn is under way outside phase turns");
    if (g->phase == PHASE_CHOOSE && (g->killed != NONE || g->robbed != NONE))
        return deny(why, "a character is killed or robbed before the characters are chosen");
    if (g->phase == PHASE_CHOOSE) {
        if (g->step >= draft_length(g->players)) return deny(why, "the draft is over but the phase is choose");
        if (g->to_move != seat_of_step(g, g->step)) return deny(why, "the wrong player is choosing");
        if (!g->pack) return deny(why, "the pack is empty while choosing");
        return true;
    }
    if (g->phase == PHASE_OVER) return g->to_move == NOBODY || deny(why, "a finished game has a player to move");
    if (g->current == NONE || g->holder[g->current] == NOBODY) return deny(why, "no character is taking a turn");
    if (g->builds_left > 3 || g->sub > SUB_GRAVEYARD) return deny(why, "the turn is damaged");
    if (g->sub == SUB_KEEP && !(g->keep_left >= 1 && g->keep_left < g->drawn_n))
        return deny(why, "keep_left must be at least 1 and less than the cards drawn");
    if (g->sub != SUB_KEEP && (g->drawn_n || g->keep_left)) return deny(why, "drawn cards wait outside a keep");
    if ((g->sub == SUB_REPLACE) != (count_of(g->marked) > 0)) return deny(why, "marked cards wait outside a replace");
    if (g->sub == SUB_GRAVEYARD &&
        (!owns(&g->player[g->grave_owner], GRAVEYARD) || g->player[g->grave_owner].gold < 1 ||
         g->grave_owner == g->holder[g->current]))
        return deny(why, "the graveyard's question must go to another player than the warlord's, with the graveyard and 1 gold");
    int expected = g->sub == SUB_GRAVEYARD ? g->grave_owner : g->holder[g->current];
    if (g->to_move != expected) return deny(why, "player %d should decide now, not %d", expected + 1, g->to_move + 1);
    return true;
}

/* Each seat holds one character per choice the draft's script gave it so far: no more (a seat that
 * chooses again would hold three), no fewer. Run after validate_flow, which keeps the step in the script. */
static bool validate_holdings(const citadels *g, reason *why) {
    int held[MAX_SEATS] = {0}, picks[MAX_SEATS] = {0};
    int steps = g->phase == PHASE_CHOOSE ? g->step : draft_length(g->players);
    for (int c = 0; c < NUM_CHARACTERS; c++)
        if (g->holder[c] != NOBODY) held[g->holder[c]]++;
    for (int step = 0; step < steps; step++)
        if (draft_at(g->players, step).kind == STEP_CHOOSE) picks[seat_of_step(g, step)]++;
    for (int seat = 0; seat < g->players; seat++)
        if (held[seat] != picks[seat])
            return deny(why, "player %d holds %d characters; the draft has given them %d so far", seat + 1, held[seat],
                        picks[seat]);
    return true;
}

static bool citadels_validate(const void *st, reason *why) {
    const citadels *g = st;
    if (!bytes_are_bools(&g->acted, 1) || !bytes_are_bools(&g->income_taken, 1) || !bytes_are_bools(&g->power_used, 1) ||
        !bytes_are_bools(&g->lab_used, 1) || !bytes_are_bools(&g->smithy_used, 1))
        return deny(why, "a yes-or-no field of the state is damaged");
    if (g->players < 2 || g->players > MAX_SEATS) return deny(why, "Citadels has 2 to 7 players");
    if (g->rules.city_size < 1 || g->rules.city_size > CITY_MAX || g->rules.max_rounds < 1 || g->rules.max_rounds > 200)
        return deny(why, "the rule parameters are out of range");
    /* start_round caps face_up only as a guard: a damaged start state is refused here, never cut short */
    if (!face_up_check(&g->rules, g->players, why)) return false;
    if (g->round < 1 || g->round > g->rules.max_rounds)
        return deny(why, "round %d is past the last round, %d (max_rounds)", g->round, g->rules.max_rounds);
    /* Characters first: the flow's checks read the character whose turn it is. */
    return validate_districts(g, why) && validate_characters(g, why) && validate_flow(g, why) &&
           validate_holdings(g, why);
}

/* ==================================================================== sampling */

/* What `viewer` does not know of the districts — others' hands, the deck, and the cards in the middle
 * of someone else's turn — is pooled, shuffled (from the cards sorted: the pool's order is the truth's)
 * and dealt back in the same sizes. */
static void sample_districts(citadels *g, int viewer, rng *r) {
    /* The pool is built sorted, from each district's count (rng_shuffle_multiset's order, which sorts
     * what it is given): a search deals once an iteration. Counts fit a byte: 66 cards in all. */
    uint8_t pool[NUM_DISTRICTS + 8], count[NUM_TYPES] = {0};
    bool others_turn = g->phase == PHASE_TURNS && g->holder[g->current] != viewer;
    for (int seat = 0; seat < g->players; seat++)
        if (seat != viewer)
            for (int d = 0; d < NUM_TYPES; d++) count[d] = (uint8_t)(count[d] + g->player[seat].hand[d]);
    for (int i = 0; i < g->deck.n; i++) count[g->deck.card[i]]++;
    if (others_turn) {
        for (int i = 0; i < g->drawn_n; i++) count[g->drawn[i]]++;
        for (int d = 0; d < NUM_TYPES; d++) count[d] = (uint8_t)(count[d] + g->marked[d]);
    }
    /* A district's copies (at most 5, validate: as many as the game has) in one 8-byte store each; the
     * bytes past them are overwritten by the next district's or lie past the pool's count. */
    int n = 0;
    for (int d = 0; d < NUM_TYPES; d++) {
        uint64_t copies = 0x0101010101010101u * (uint64_t)d;
        memcpy(pool + n, &copies, 8);
        n += count[d];
    }
    rng_shuffle_bytes(r, pool, n);
    for (int seat = 0; seat < g->players; seat++) {
        if (seat == viewer) continue;
        int size = hand_size(&g->player[seat]);
        memset(g->player[seat].hand, 0, NUM_TYPES);
        while (size--) g->player[seat].hand[pool[--n]]++;
        g->player[seat].hand_types = hand_types_of(&g->player[seat]);
    }
    if (others_turn) {
        for (int i = 0; i < g->drawn_n; i++) g->drawn[i] = pool[--n];
        int marked = count_of(g->marked);
        memset(g->marked, 0, NUM_TYPES);
        while (marked--) g->marked[pool[--n]]++;
    }
    memcpy(g->deck.card, pool, g->deck.n); /* what is left is exactly the deck's size */
}

/* The characters `viewer` does not know are re-dealt among the places they could be. The viewer saw the
 * pack at each of their steps, so between two of their looks the characters placed by others can be
 * permuted freely among those placings; characters called with nobody answering stay face down. */

/* The seat that held the crown when this round's draft began: once the king is called the crown may
 * have moved on, but the draft's first pick stays where it was made. */
static int draft_crown(const citadels *g) {
    if (g->phase != PHASE_CHOOSE)
        for (int c = 0; c < NUM_CHARACTERS; c++)
            if (g->placed_kind[c] == PLACED_PICK && g->placed_step[c] == 0) return g->placed_by[c];
    return g->crown;
}

/* The steps at which `seat` looked at the pack so far, in order: each run of its own steps is one look.
 * `crown` is draft_crown's (worked out once for every seat). */
static int looks_of(const citadels *g, int seat, int crown, int *steps) {
    int n = 0, last = g->phase == PHASE_CHOOSE ? g->step : draft_length(g->players) - 1;
    for (int s = 0, before = -1; s <= last; s++) {
        int at = wrap_seat(crown + draft_at(g->players, s).seat_offset, g->players);
        if (at == seat && before != seat) steps[n++] = s;
        before = at;
    }
    return n;
}

static bool known_to(const citadels *g, int viewer, int c, uint8_t revealed) {
    int kind = g->placed_kind[c];
    return g->holder[c] == viewer || (kind == PLACED_DOWN && g->placed_by[c] == viewer) ||
           kind == PLACED_UP || has(revealed, c) ||
           (kind == PLACED_UNSEEN && has(g->player[viewer].passed, c)) ||
           (g->phase == PHASE_CHOOSE && g->to_move == viewer && has(g->pack, c));
}

/* Called, and nobody answered: everyone knows it lies face down. */
static bool known_absent(const citadels *g, int c) {
    bool called = g->phase == PHASE_OVER || (g->phase == PHASE_TURNS && c < g->current);
    return called && g->holder[c] == NOBODY && !has(g->aside_up, c);
}

typedef struct slot {
    uint8_t kind, by;
    int8_t step;
} slot;

static bool is_down(slot s) { return s.kind == PLACED_DOWN || s.kind == PLACED_UNSEEN; }

static int slot_key(slot s) { return (s.step + 1) << 16 | s.kind << 8 | s.by; }

/* The places in an order of their own, not their true characters': the deal below picks places by
 * index, and whoever knows the seed must learn nothing from which index held whom. */
static void sort_slots(slot *slots, int n) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && slot_key(slots[j]) < slot_key(slots[j - 1]); j--) {
            slot t = slots[j];
            slots[j] = slots[j - 1];
            slots[j - 1] = t;
        }
}

/* Puts character c in slot s, and everything that follows from where it is. */
static void put_in_slot(citadels *g, int c, slot s) {
    g->placed_kind[c] = s.kind;
    g->placed_by[c] = s.by;
    g->placed_step[c] = s.step;
    g->holder[c] = s.kind == PLACED_PICK ? s.by : NOBODY;
    g->aside_down &= (uint8_t)~bit(c);
    g->pack &= (uint8_t)~bit(c);
    if (is_down(s)) g->aside_down |= bit(c);
    if (s.kind == PLACED_NOT) g->pack |= bit(c);
}

/* Others' records of what they saw and buried, made to fit the re-dealt characters. */
static void recount_knowledge(citadels *g, int viewer) {
    int crown = draft_crown(g);
    for (int seat = 0; seat < g->players; seat++) {
        if (seat == viewer) continue;
        cit_player *p = &g->player[seat];
        int steps[NUM_CHARACTERS], n = looks_of(g, seat, crown, steps);
        p->passed = p->buried = 0;
        for (int c = 0; c < NUM_CHARACTERS; c++) {
            if (g->placed_kind[c] == PLACED_DOWN && g->placed_by[c] == seat) p->buried |= bit(c);
            /* Seen at a look if placed at or after it: at or after the first. */
            if (n && g->placed_step[c] >= steps[0] && g->placed_kind[c] != PLACED_UNSEEN && g->placed_kind[c] != PLACED_UP)
                p->passed |= bit(c);
            if (g->placed_kind[c] == PLACED_UNSEEN && g->players == 7 && n && steps[n - 1] == draft_length(7) - 1)
                p->passed |= bit(c);
        }
    }
}

static void sample_characters(citadels *g, int viewer, rng *r) {
    int looks[NUM_CHARACTERS], n_looks = looks_of(g, viewer, draft_crown(g), looks);
    uint8_t revealed = revealed_characters(g);
    for (int w = 0; w <= n_looks; w++) {
        uint8_t chars[NUM_CHARACTERS], down_slots[NUM_CHARACTERS], other_slots[NUM_CHARACTERS];
        slot slots[NUM_CHARACTERS];
        int n = 0, n_down = 0, n_other = 0;
        for (int c = 0; c < NUM_CHARACTERS; c++) {
            if (known_to(g, viewer, c, revealed)) continue;
            int window = 0;
            while (window < n_looks && looks[window] <= g->placed_step[c]) window++;
            if (window != w) continue;
            slots[n] = (slot){g->placed_kind[c], g->placed_by[c], g->placed_step[c]};
            chars[n++] = (uint8_t)c;
        }
        sort_slots(slots, n);
        for (int i = 0; i < n; i++) {
            if (is_down(slots[i])) down_slots[n_down++] = (uint8_t)i;
            else other_slots[n_other++] = (uint8_t)i;
        }
        /* The characters known to lie face down take face-down places first; the rest shuffle. */
        rng_shuffle_bytes(r, down_slots, n_down);
        uint8_t free_slots[NUM_CHARACTERS], rest[NUM_CHARACTERS];
        int n_free = 0, n_rest = 0, next_down = 0;
        for (int i = 0; i < n; i++) {
            if (known_absent(g, chars[i])) put_in_slot(g, chars[i], slots[down_slots[next_down++]]);
            else rest[n_rest++] = chars[i];
        }
        for (int i = next_down; i < n_down; i++) free_slots[n_free++] = down_slots[i];
        for (int i = 0; i < n_other; i++) free_slots[n_free++] = other_slots[i];
        rng_shuffle_bytes(r, free_slots, n_free);
        for (int i = 0; i < n_rest; i++) put_in_slot(g, rest[i], slots[free_slots[i]]);
    }
    recount_knowledge(g, viewer);
}

static void citadels_sample(void *st, int viewer, rng *r) {
    citadels *g = st;
    sample_districts(g, viewer, r);
    sample_characters(g, viewer, r);
    uint64_t seed = rng_next64(r);
    rng_seed(&g->rng, seed, CITADELS_RNG_STREAM);
}

/* ==================================================================== variants' primitives */

/* Citadels' zones: hands (unordered), cities (in building order, never two of one name) and the deck
 * (bottom first). Its counters: each player's gold. */
typedef enum { ZONE_HAND, ZONE_CITY, ZONE_DECK } zone_kind;
typedef struct zone {
    zone_kind kind;
    int seat;
} zone;

static bool citadels_zone(const citadels *g, const char *text, zone *z, reason *why) {
    table_path path;
    if (!table_path_parse(text, g->players, &path, why)) return false;
    if (path.player < 0 && !path.sub[0] && strcmp(path.key, "deck") == 0) return *z = (zone){ZONE_DECK, -1}, true;
    if (path.player >= 0 && !path.sub[0] && strcmp(path.key, "hand") == 0) return *z = (zone){ZONE_HAND, path.player}, true;
    if (path.player >= 0 && !path.sub[0] && strcmp(path.key, "city") == 0) return *z = (zone){ZONE_CITY, path.player}, true;
    return deny(why, "'%.60s' is no zone; zones: players[N].hand, players[N].city, deck", text);
}

/* Takes one district out of a zone (`card` names it; NULL takes the top: the deck's or the city's last
 * built). */
static int zone_take(citadels *g, zone z, const char *card, reason *why) {
    int wanted = card ? table_name_index(card, district_names, NUM_TYPES) : -1;
    if (card && wanted < 0) return deny(why, "'%.40s' is not a district", card), -1;
    if (z.kind == ZONE_HAND) {
        cit_player *p = &g->player[z.seat];
        if (wanted < 0) return deny(why, "say which card: a hand has no top"), -1;
        if (!p->hand[wanted]) return deny(why, "there is no %s there", districts[wanted].name), -1;
        hand_take(p, wanted);
        return wanted;
    }
    uint8_t *cards = z.kind == ZONE_DECK ? g->deck.card : g->player[z.seat].city;
    uint8_t *n = z.kind == ZONE_DECK ? &g->deck.n : &g->player[z.seat].city_n;
    for (int i = *n - 1; i >= 0; i--)
        if (wanted < 0 || cards[i] == wanted) {
            int d = cards[i];
            memmove(&cards[i], &cards[i + 1], (size_t)(*n - i - 1));
            (*n)--;
            if (z.kind == ZONE_CITY) g->player[z.seat].city_types &= ~type_bit(d);
            return d;
        }
    return deny(why, wanted < 0 ? "the zone is empty" : "there is no such district there"), -1;
}

static bool zone_put(citadels *g, zone z, int d, bool to_bottom, reason *why) {
    if (z.kind == ZONE_HAND) {
        hand_add(&g->player[z.seat], d);
        return true;
    }
    if (z.kind == ZONE_DECK) {
        if (to_bottom) deck_put_under(g, d);
        else g->deck.card[g->deck.n++] = (uint8_t)d;
        return true;
    }
    cit_player *p = &g->player[z.seat];
    if (owns(p, d)) return deny(why, "player %d already has a %s", z.seat + 1, districts[d].name);
    if (to_bottom) memmove(p->city + 1, p->city, p->city_n);
    p->city[to_bottom ? 0 : p->city_n] = (uint8_t)d;
    p->city_n++;
    p->city_types |= type_bit(d);
    if (p->city_n >= g->rules.city_size && g->first_complete == NOBODY) g->first_complete = (uint8_t)z.seat;
    return true;
}

static bool citadels_move(void *st, const char *from, const char *to, const card_move *m, reason *why) {
    citadels *g = st, before = *g;
    zone src, dst;
    bool ok = citadels_zone(g, from, &src, why) && citadels_zone(g, to, &dst, why);
    for (int i = 0; ok && i < (m->count > 0 ? m->count : 1); i++) {
        int d = zone_take(g, src, m->card, why);
        ok = d >= 0 && zone_put(g, dst, d, m->to_bottom, why);
    }
    if (ok) ok = citadels_validate(g, why);
    if (!ok) *g = before;
    return ok;
}

static bool citadels_add(void *st, const char *counter, int delta, reason *why) {
    citadels *g = st;
    table_path path;
    if (!table_path_parse(counter, g->players, &path, why)) return false;
    if (path.player < 0 || path.sub[0] || strcmp(path.key, "gold") != 0)
        return deny(why, "'%.60s' is no counter; counters: players[N].gold", counter);
    long gold = (long)g->player[path.player].gold + delta;
    if (gold < 0) return deny(why, "player %d has only %d gold", path.player + 1, g->player[path.player].gold);
    if (gold > GOLD_MAX) return deny(why, "that is more gold than a counter holds (%d)", GOLD_MAX);
    g->player[path.player].gold = (uint16_t)gold;
    return true;
}

/* ==================================================================== the catalogue */

static const char *const colour_name[NUM_COLOURS] = {"yellow", "blue", "green", "red", "purple"};

/* What a purple district does (the rules text's wording, shortened). */
static const char *purple_text(int d) {
    switch (d) {
    case HAUNTED_CITY: return "counts as any colour at scoring, unless built in the last round";
    case KEEP: return "cannot be destroyed by the warlord";
    case LABORATORY: return "once a turn: put a card under the deck for 1 gold (lab D)";
    case SMITHY: return "once a turn: pay 2 gold to draw 3 cards (smithy)";
    case OBSERVATORY: return "drawing: draw 3, keep 1";
    case GRAVEYARD: return "when the warlord destroys a district, pay 1 gold to take it into hand";
    case DRAGON_GATE: case UNIVERSITY: return "costs 6, scores 8";
    case LIBRARY: return "drawing: keep every card drawn";
    case GREAT_WALL: return "the warlord pays 1 more to destroy your other districts";
    case SCHOOL_OF_MAGIC: return "counts as the colour of your character for income";
    }
    return NULL;
}

/* Each character's power, in the words of the rules summary, for the catalogue. */
static const char *const character_text[NUM_CHARACTERS] = {
    "kill C: C misses its whole turn",
    "rob C: when C is revealed, its player's gold goes to the thief's",
    "swap N: exchange hands with player N; or replace cards from hand with as many from the deck",
    "takes the crown when called; income for yellow",
    "income for blue; the warlord cannot destroy his districts unless he was murdered",
    "income for green; 1 gold more after the action",
    "2 cards more after the action; builds up to three",
    "income for red; at the end of his turn destroy N D, paying D's cost minus 1",
};

/* Districts (count, cost, colour, points, text) and characters (rank, power text, the colour they
 * take income for). */
static void citadels_write_cards(const void *st, tree_writer *w) {
    (void)st;
    w->open_map(w);
    for (int d = 0; d < NUM_TYPES; d++) {
        w->key(w, districts[d].name);
        w->open_map(w);
        tw_key_str(w, "kind", "district");
        tw_key_num(w, "count", districts[d].copies);
        tw_key_num(w, "cost", districts[d].cost);
        tw_key_str(w, "colour", colour_name[districts[d].colour]);
        tw_key_num(w, "points", points_of(d));
        if (purple_text(d)) tw_key_str(w, "text", purple_text(d));
        w->close(w);
    }
    for (int c = 0; c < NUM_CHARACTERS; c++) {
        w->key(w, character_name[c]);
        w->open_map(w);
        tw_key_str(w, "kind", "character");
        tw_key_num(w, "rank", c + 1);
        tw_key_str(w, "text", character_text[c]);
        if (character_colour[c] != NO_COLOUR) tw_key_str(w, "colour", colour_name[character_colour[c]]);
        w->close(w);
    }
    w->close(w);
}

/* ==================================================================== the definition */

static const char citadels_rules_text[] =
    "Citadels (the original base game) — 2 to 7 players build cities of districts with the help of\n"
    "eight characters chosen in secret each round.\n"
    "\n"
    "Cards: 66 districts (name cost x copies): yellow manor 3x5, castle 4x4, palace 5x3; blue temple\n"
    "1x3, church 2x3, monastery 3x3, cathedral 5x2; green tavern 1x5, market 2x4, trading_post 2x3,\n"
    "docks 3x3, harbor 4x3, town_hall 5x2; red watchtower 1x3, prison 2x3, battlefield 3x3, fortress\n"
    "5x2; purple haunted_city 2, keep 3x2, laboratory 5, smithy 5, observatory 5, graveyard 5,\n"
    "dragon_gate 6, university 6, library 6, great_wall 6, school_of_magic 6.\n"
    "Characters in rank order: assassin, thief, magician, king (yellow), bishop (blue), merchant\n"
    "(green), architect, warlord (red).\n"
    "\n"
    "Setup: each player gets 4 districts and 2 gold; player 1 holds the crown.\n"
    "\n"
    "Choosing: one character goes aside face down unseen; some face up (4 players 2, 5 players 1,\n"
    "6-7 none; never the king). From the crown, each player chooses one of the characters passed to\n"
    "them; the last card left goes face down. Seven players: the last may take the face-down card\n"
    "instead, putting the passed one face down. Three: the pack goes round twice (two characters\n"
    "each). Two: A chooses; B chooses and buries one; A chooses and buries one; B chooses, the last\n"
    "card goes face down.\n"
    "\n"
    "Turns: characters are called in rank order; a character's holder takes a turn (two characters,\n"
    "two turns). A turn: first exactly one action — 2 gold, or draw 2 districts and keep 1 (the other\n"
    "goes under the deck) — then build districts from hand by paying their cost: one, the architect\n"
    "up to three; never two of one name. Income (1 gold per district of the character's colour) once,\n"
    "at any time. Powers once a turn, at any time unless said:\n"
    "  assassin   kill C: C misses its whole turn (not face up, not himself)\n"
    "  thief      rob C: when C is revealed, before it acts, its player's gold goes to the thief's\n"
    "             (not the assassin, not the murdered character, not face up)\n"
    "  magician   swap N: exchange hands with player N; or replace D ... replace done: put those\n"
    "             cards under the deck and draw as many\n"
    "  king       takes the crown when called; income for yellow\n"
    "  bishop     income for blue; the warlord cannot destroy his districts unless he was murdered\n"
    "  merchant   income for green; 1 gold more after the action\n"
    "  architect  2 cards more after the action; builds up to three\n"
    "  warlord    income for red; at the end of his turn destroy N D: pay D's cost minus 1 to destroy\n"
    "             it (not in a city of 8, never the keep, never a live bishop's); it goes under the deck\n"
    "Purple: haunted_city counts as any colour at scoring, unless built in the last round; keep\n"
    "cannot be destroyed; laboratory: once a turn, lab D (a card under the deck) for 1 gold; smithy:\n"
    "once a turn, 2 gold for 3 cards; observatory: draw 3, keep 1; library: keep all you draw (with\n"
    "the observatory, 2 of 3); graveyard: when the warlord destroys any district (another player's\n"
    "too), the graveyard's owner may pay 1 gold to take it into hand; dragon_gate and university cost 6 and score 8;\n"
    "great_wall: the warlord pays 1 more for its owner's other districts; school_of_magic: counts as\n"
    "the colour of its owner's character for income.\n"
    "\n"
    "End: after the round in which a city reaches 8 districts. Score: district costs (dragon_gate\n"
    "and university 8), +3 for all five colours, +4 for the first city of 8, +2 for the other cities\n"
    "of 8. Ties: the higher district points alone, then more gold.\n"
    "\n"
    "Rulings (this project's, where the texts are silent):\n"
    "  - Player 1 holds the crown first. Still tied after gold: a shared win.\n"
    "  - A game where no city is completed ends after round max_rounds (100; real games take under 10\n"
    "    rounds), scored as usual without the first-city bonus. Gold counters stop at 60000.\n"
    "  - The graveyard saves any district the warlord destroys, not itself (a destroyed graveyard is\n"
    "    discarded), and never when its owner is the warlord; its owner answers during the warlord's\n"
    "    turn (graveyard yes / graveyard no).\n"
    "  - A turn must take its action before building, destroying or ending.\n"
    "  - Destroying ends the warlord's turn (take income first).\n"
    "  - Once the magician marks a card to replace, he finishes replacing (replace done) before\n"
    "    anything else; the power is then used.\n"
    "  - Cards put under the deck (not kept, replaced, lab, destroyed) go one by one under it.\n"
    "  - Drawing from an empty deck draws what there is.\n"
    "  - Face-up counts are capped so every player can still choose.\n"
    "  - A murdered character is revealed when called (its player says so), like the others.\n"
    "\n"
    "Action grammar: choose C, bury C, gold, draw, keep D, income, build D, kill C, rob C, swap N,\n"
    "replace D, replace done, lab D, smithy, destroy N D, graveyard yes, graveyard no, end.\n"
    "(C a character, D a district as named above, N a player number.)\n"
    "\n"
    "State table: game, phase (choose, turns, over), round, crown, to_move, current, killed, robbed,\n"
    "players[i] = {gold, hand, city (in building order), characters, character_count, passed (seen\n"
    "while choosing this round), buried (put face down this round)}, deck (bottom to top), aside_up,\n"
    "aside_down, first_complete, haunted_round; while choosing: step, pack; in a turn: acted,\n"
    "income_taken, power_used, lab_used, smithy_used, builds_left, drawn, keep_left, marked, pending\n"
    "(the destroyed district awaiting the graveyard's answer); draft (who placed which character).\n"
    "In a player's view: others' hands are their sizes, others' characters only those revealed, the\n"
    "deck and aside_down are sizes, the pack a size unless it is theirs to choose from.\n"
    "meeple.from_table: zones named hold what they list; a hand, the deck, drawn or marked cards, or\n"
    "character_count given as a number are dealt from what is listed nowhere; the deck takes the\n"
    "districts left over, and the characters left over go to the pack while choosing, else face down.\n";

_Static_assert(sizeof(citadels) <= MEEPLE_MAX_STATE, "a state must fit MEEPLE_MAX_STATE (game.h)");

/* ==================================================================== playout policy */

/* A search playout's choice, as greedy_citadels plays (bots/greedy_citadels.lua): its rules in their
 * order of priority, each a band of worths, and within a band what that rule prefers. Imagined
 * opponents then draft, build, kill and rob as the real greedy ones do. Worths are hundredths. */
enum {
    BAND_CHOOSE = 20, BAND_BURY = 19, BAND_GRAVE_YES = 18, BAND_KEEP = 17, BAND_REPLACE_DONE = 16,
    BAND_ACTION = 15, BAND_BUILD = 14, BAND_INCOME = 13, BAND_KILL = 12, BAND_ROB = 11, BAND_SWAP = 10,
    BAND_SMITHY = 9, BAND_DESTROY = 8, BAND_GRAVE_NO = 7, BAND_END = 6,
};
#define BAND(b) ((b) * 100000)

/* Districts of `colour` in a player's city (a city never holds two of one name). */
static int city_colour_count(const cit_player *p, int colour) {
    return count_bits(p->city_types & colour_types[colour]);
}

/* hand_size for the policy, without a loop or a branch: the hand's 28 counts summed bytewise in four
 * words (a lane holds at most four counts of at most 5), then the lanes by one multiplication (a hand
 * holds at most 66 cards). */
static int cards_in_hand(const cit_player *p) {
    _Static_assert(NUM_TYPES == 28, "the hand's counts are three words and a half");
    uint64_t w0, w1, w2;
    uint32_t w3;
    memcpy(&w0, p->hand, 8), memcpy(&w1, p->hand + 8, 8), memcpy(&w2, p->hand + 16, 8), memcpy(&w3, p->hand + 24, 4);
    uint64_t lanes = w0 + w1 + w2 + w3;
    return (int)((lanes * 0x0101010101010101u) >> 56);
}

/* What the worths of one decision's actions share, worked out on first use: the others' biggest city
 * (whose, the first of equals, and its size) and most gold, the mover's hand (hand < 0 until then);
 * each character's worth to the mover while drafting or burying (characters_known); the seat the
 * magician would swap hands with (NOBODY: none; -1 until worked out). */
typedef struct draft_memo {
    int leader, lead, richest, hand, swap_with;
    bool characters_known;
    int character[NUM_CHARACTERS];
} draft_memo;

/* (In locals and conditional moves: the comparisons go either way, and mispredicted as branches.)
 * Inlined in a draft's choice, out of line elsewhere (draft_memo_fill). */
static inline ALWAYS_INLINED void fill_memo(const citadels *g, draft_memo *m) {
    int leader = NOBODY, lead = -1, richest = 0;
    for (int seat = 0; seat < g->players; seat++) {
        const cit_player *p = &g->player[seat];
        bool other = seat != g->to_move, bigger = other && p->city_n > lead;
        leader = bigger ? seat : leader;
        lead = bigger ? p->city_n : lead;
        richest = other && p->gold > richest ? p->gold : richest;
    }
    m->leader = leader, m->lead = lead, m->richest = richest, m->hand = cards_in_hand(mover_c(g));
}

NOT_INLINED static void draft_memo_fill(const citadels *g, draft_memo *m) { fill_memo(g, m); }

/* What each character is worth to the mover this round, drafting or burying: all eight at once, in
 * straight lines (a draft's few actions then look theirs up, where a call each mispredicted). */
static inline ALWAYS_INLINED void fill_character_worths(const citadels *g, draft_memo *m) {
    const cit_player *me = mover_c(g);
    bool leads = m->lead >= 6;
    uint32_t city = me->city_types;
    m->character[ASSASSIN] = leads ? 300 : 150;
    m->character[THIEF] = 100 + 100 * m->richest / 3;
    m->character[MAGICIAN] = m->hand == 0 ? 300 : 100;
    m->character[KING] = 100 * count_bits(city & colour_types[YELLOW]) + 50 + (g->crown != g->to_move ? 70 : 0);
    m->character[BISHOP] = 100 * count_bits(city & colour_types[BLUE]) + 50 + (me->city_n >= 5 ? 100 : 0);
    m->character[MERCHANT] = 100 * count_bits(city & colour_types[GREEN]) + 50 + 100;
    m->character[ARCHITECT] = m->hand >= 2 && me->gold >= 4 ? 350 : 200;
    m->character[WARLORD] = 100 * count_bits(city & colour_types[RED]) + 50 + (leads ? 200 : 0);
    m->characters_known = true;
}

/* The same, the memo filled first if need be: out of line, for action_worth's rarer cases. */
NOT_INLINED static void character_worths(const citadels *g, draft_memo *m) {
    if (m->hand < 0) draft_memo_fill(g, m);
    fill_character_worths(g, m);
}
_Static_assert(NUM_CHARACTERS == 8 && WARLORD == 7, "character_worths gives every character its worth");

/* A drawn card to keep: not one the city or hand has, affordable soon, worth the most. */
static int keep_worth(const cit_player *me, int d) {
    if (owns(me, d)) return -1000;
    if (me->hand[d]) return -500;
    int short_of = districts[d].cost - me->gold - 2;
    return 100 * points_of(d) - (short_of > 0 ? 70 * short_of : 0);
}

/* Gold while the hand holds a district the city lacks (every district costs at most gold + 6),
 * cards when it does not. */
static bool wants_gold(const cit_player *me) { return (me->hand_types & ~me->city_types) != 0; }

/* A district to build: its points, and more in a colour the city lacks. */
static int build_worth(const cit_player *me, int d) {
    return 100 * points_of(d) + (city_colour_count(me, districts[d].colour) ? 0 : 150);
}

static const int16_t kill_worth[NUM_CHARACTERS] = {
    [THIEF] = 200, [MAGICIAN] = 100, [KING] = 200, [BISHOP] = 150, [MERCHANT] = 300, [ARCHITECT] = 300,
    [WARLORD] = 250};
static const int16_t rob_worth[NUM_CHARACTERS] = {
    [MAGICIAN] = 100, [KING] = 250, [BISHOP] = 150, [MERCHANT] = 300, [ARCHITECT] = 200, [WARLORD] = 200};

/* The magician swaps with the player holding the most cards (the first of equals), two more than his:
 * that seat, or NOBODY. */
NOT_INLINED static int swap_partner(const citadels *g) {
    int best = NOBODY, most = -1;
    for (int other = 0; other < g->players; other++) {
        int n = cards_in_hand(&g->player[other]);
        if (other != g->to_move && n > most) best = other, most = n;
    }
    return most >= cards_in_hand(mover_c(g)) + 2 ? best : NOBODY;
}

/* The warlord knocks down the leader's district worth most that costs at most one more than his gold,
 * once the leader has five. */
static int destroy_worth(const citadels *g, const draft_memo *m, int seat, int d) {
    if (seat != m->leader || m->lead < 5 || districts[d].cost - 1 > mover_c(g)->gold) return -1;
    return BAND(BAND_DESTROY) + 100 * points_of(d);
}

/* What greedy_citadels makes of `a`: its rule's band, and within it the rule's preference; `m` what
 * the worths share, worked out on first use. Inlined into the loop over a decision's actions, its
 * rarer parts out of line: a call each cost as much as the worth. */
static inline ALWAYS_INLINED int action_worth(const citadels *g, draft_memo *m, action_t a) {
    const cit_player *me = mover_c(g);
    int x = act_x(a);
    switch (act_kind(a)) {
    case ACT_CHOOSE:
    case ACT_BURY:
        if (!m->characters_known) character_worths(g, m);
        return BAND(act_kind(a) == ACT_CHOOSE ? BAND_CHOOSE : BAND_BURY) + m->character[x];
    case ACT_GRAVE_YES: return me->gold >= 2 ? BAND(BAND_GRAVE_YES) : -1;
    case ACT_KEEP: return BAND(BAND_KEEP) + keep_worth(me, x);
    case ACT_REPLACE_DONE: return BAND(BAND_REPLACE_DONE);
    case ACT_GOLD: return wants_gold(me) ? BAND(BAND_ACTION) : -1;
    case ACT_DRAW: return wants_gold(me) ? -1 : BAND(BAND_ACTION);
    case ACT_BUILD: return BAND(BAND_BUILD) + build_worth(me, x);
    case ACT_INCOME: return BAND(BAND_INCOME);
    case ACT_KILL: return BAND(BAND_KILL) + kill_worth[x];
    case ACT_ROB: return BAND(BAND_ROB) + rob_worth[x];
    case ACT_SWAP:
        if (m->swap_with < 0) m->swap_with = swap_partner(g);
        return x == m->swap_with ? BAND(BAND_SWAP) : -1;
    case ACT_SMITHY: return me->gold >= 5 && cards_in_hand(me) <= 1 ? BAND(BAND_SMITHY) : -1;
    case ACT_DESTROY:
        if (m->hand < 0) draft_memo_fill(g, m);
        return destroy_worth(g, m, x, act_y(a));
    case ACT_GRAVE_NO: return BAND(BAND_GRAVE_NO);
    case ACT_END: return BAND(BAND_END);
    default: return -1; /* replace a card, the laboratory: greedy_citadels never does */
    }
}

/* citadels_playout_worth of every legal action at once: a draft's characters, a warlord's targets
 * share one memo. */
static void citadels_playout_worths(const void *st, const action_t *acts, int n, int *out) {
    draft_memo m = {.hand = -1, .swap_with = -1};
    for (int i = 0; i < n; i++) out[i] = action_worth(st, &m, acts[i]);
}

/* The most any action of a kind can be worth (a rule's preference within its band is under 1,000 but
 * for a character's, which the richest player's gold can push past its band): playout_pick passes over
 * an action whose kind cannot reach the best so far unweighed, as the host's scan passes it by (a worse
 * action draws nothing). */
#define PREFERENCE_MAX 999
static const int kind_top[32] = {
    [ACT_CHOOSE] = INT_MAX, [ACT_BURY] = INT_MAX, [ACT_GRAVE_YES] = BAND(BAND_GRAVE_YES),
    [ACT_KEEP] = BAND(BAND_KEEP) + PREFERENCE_MAX, [ACT_REPLACE_DONE] = BAND(BAND_REPLACE_DONE),
    [ACT_GOLD] = BAND(BAND_ACTION), [ACT_DRAW] = BAND(BAND_ACTION),
    [ACT_BUILD] = BAND(BAND_BUILD) + PREFERENCE_MAX, [ACT_INCOME] = BAND(BAND_INCOME),
    [ACT_KILL] = BAND(BAND_KILL) + PREFERENCE_MAX, [ACT_ROB] = BAND(BAND_ROB) + PREFERENCE_MAX,
    [ACT_SWAP] = BAND(BAND_SWAP), [ACT_SMITHY] = BAND(BAND_SMITHY),
    [ACT_DESTROY] = BAND(BAND_DESTROY) + PREFERENCE_MAX, [ACT_GRAVE_NO] = BAND(BAND_GRAVE_NO),
    [ACT_END] = BAND(BAND_END), [ACT_REPLACE] = -1, [ACT_LAB] = -1,
};

/* A draft's choice: all its actions of one kind and one band, so the characters' worths decide. */
NOT_INLINED static int draft_pick(const citadels *g, const action_t *acts, int n, rng *r) {
    draft_memo m = {.hand = -1, .swap_with = -1};
    fill_memo(g, &m);
    fill_character_worths(g, &m);
    worth_pick pick = worth_pick_none();
    for (int i = 0; i < n; i++) worth_pick_next(&pick, r, i, m.character[act_x(acts[i])]);
    return pick.best;
}

/* The kinds turn_actions lists after the hand (the smithy, the power, the end): none is worth income. */
static const bool after_the_hand[32] = {
    [ACT_SMITHY] = true, [ACT_KILL] = true, [ACT_ROB] = true, [ACT_SWAP] = true, [ACT_DESTROY] = true,
    [ACT_END] = true};
_Static_assert(BAND(BAND_INCOME) > BAND(BAND_KILL) + PREFERENCE_MAX && BAND_INCOME > BAND_ROB &&
                   BAND_INCOME > BAND_SWAP && BAND_INCOME > BAND_SMITHY && BAND_INCOME > BAND_DESTROY &&
                   BAND_INCOME > BAND_END,
               "after_the_hand: the kinds after the hand are worth less than income");

/* Any other choice: each action weighed that could be chosen. Once income or a district to build is
 * the best, what follows the hand (a warlord's targets, an assassin's) is passed over at once. */
NOT_INLINED static int weighed_pick(const citadels *g, const action_t *acts, int n, rng *r) {
    draft_memo m = {.hand = -1, .swap_with = -1};
    worth_pick pick = worth_pick_none();
    for (int i = 0; i < n; i++) {
        int kind = act_kind(acts[i]);
        if (kind_top[kind] >= pick.best_worth) worth_pick_next(&pick, r, i, action_worth(g, &m, acts[i]));
        else if (after_the_hand[kind] && pick.best_worth >= BAND(BAND_INCOME)) break;
    }
    return pick.best;
}

/* The host's choice from citadels_playout_worths, draw for draw, weighing only the actions that could
 * be chosen. A turn's first decision is gold or cards: listed first (turn_actions), one of them in the
 * highest band on the list and the other -1, so the choice needs no look at the rest and draws nothing
 * (and no frame: the rest are out of line). */
static int citadels_playout_pick(const void *st, const action_t *acts, int n, rng *r) {
    const citadels *g = st;
    if (g->phase == PHASE_TURNS && g->sub == SUB_NONE && !g->acted) return wants_gold(mover_c(g)) ? 0 : 1;
    return g->phase == PHASE_CHOOSE ? draft_pick(g, acts, n, r) : weighed_pick(g, acts, n, r);
}

static int citadels_playout_worth(const void *st, action_t a, rng *r) {
    (void)r; /* greedy_citadels varies nowhere; equals go to the host's random tie-break */
    int worth;
    citadels_playout_worths(st, &a, 1, &worth);
    return worth;
}

/* The choosing is secret (which character, which one face down), and so is which district card a
 * player keeps, marks for the Magician or discards at the Laboratory: those cards go face down. */
static bool citadels_public_text(const void *st, action_t a, int viewer, char *out) {
    (void)st, (void)viewer;
    const char *secret = NULL;
    switch (act_kind(a)) {
    case ACT_CHOOSE: secret = "chooses a character"; break;
    case ACT_BURY: secret = "puts a character aside face down"; break;
    case ACT_KEEP: secret = "keeps one of the drawn cards"; break;
    case ACT_REPLACE: secret = "marks a card to replace"; break;
    case ACT_LAB: secret = "discards a card for 1 gold"; break;
    }
    if (secret) snprintf(out, MEEPLE_PUBLIC_TEXT, "(%s)", secret);
    return secret != NULL;
}

const game_def citadels_game = {
    .name = "citadels",
    .title = "Citadels",
    .rules = citadels_rules_text,
    .min_players = 2,
    .max_players = 7,
    .default_players = 4,
    .max_decisions = 10000, /* ten times or more the longest game the shipped bots played: 736 decisions */
    .state_size = sizeof(citadels),
    .params = citadels_params,
    .num_params = NUM_PARAMS,
    .params_check = citadels_params_check,
    .setup = citadels_setup,
    .num_players = citadels_num_players,
    .turn = citadels_turn,
    .to_move = citadels_to_move,
    .turn_key = citadels_turn_key,
    .is_over = citadels_is_over,
    .legal = citadels_legal,
    .check = citadels_check,
    .apply = citadels_apply,
    .scores = citadels_scores,
    .score = citadels_score,
    .winners = citadels_winners,
    .action_text = citadels_action_text,
    .public_text = citadels_public_text,
    .information = INFORMATION_HIDDEN,
    .parse_action = citadels_parse_action,
    .action_space = citadels_action_space,
    .write_table = citadels_write_table,
    .read_table = citadels_read_table,
    .write_cards = citadels_write_cards,
    .validate = citadels_validate,
    .sample = citadels_sample,
    .move = citadels_move,
    .add = citadels_add,
    .playout_worth = citadels_playout_worth,
    .playout_worths = citadels_playout_worths,
    .playout_pick = citadels_playout_pick,
};
