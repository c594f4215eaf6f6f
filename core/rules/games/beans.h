/* beans.h — the bean core both bean games play (beans.c): Bohnanza (bohnanza.c) and Rabohnzel
 * (rabohnzel.c), by shared/rules/bohnanza.md.
 *
 * The bean core is what a bean game calls rather than copies: the cards and
 * their zones, planting, harvest and its payout, bean protection, the deck's passes, the trading
 * protocol as single decisions, the final harvest, and the boundary (action text, state tables,
 * views, sampling, variants' primitives). A game built on it puts a bean_table first in its own
 * state and describes what differs in a bean_game. Players are 0-based here. */
#ifndef MEEPLE_BEANS_H
#define MEEPLE_BEANS_H

#include "rules/hotpath.h"
#include "rules/rules.h"

#define BEAN_MAX_TYPES 11
#define BEAN_MAX_CARDS 160
#define BEAN_MIN_SEATS 3 /* both bean games seat 3 to 5 */
#define BEAN_MAX_SEATS 5
/* Fields a player may have: 2 or 3 in the games, up to 4 as a parameter (docs/games/bohnanza.md). */
#define BEAN_MAX_FIELDS 4
#define BEAN_MAX_FACE_UP 15
#define BEAN_NOBODY 0xff
#define BEAN_NONE 0xff

/* ==================================================================== the catalogue */

typedef struct bean_kind {
    const char *name;       /* "black_eyed": lower case, as in actions and tables */
    const char *german;     /* "Augenbohne" */
    uint8_t cards;          /* how many exist: the bean's number */
    uint8_t meter[4];       /* cards needed for 1, 2, 3, 4 coins; 0: no such payout */
} bean_kind;

/* ==================================================================== zones
 *
 * Every card lies in one array, cut into consecutive zones: zone z holds card[start(z) .. end(z)-1],
 * bottom (or a hand's front) first. Moving a card shifts the cards between two zones by one place,
 * so a card can never be lost or doubled, and a state stays one flat block. */
enum { BEAN_ZONE_DECK, BEAN_ZONE_DISCARD, BEAN_ZONE_FACE_UP, BEAN_ZONE_PENDING, BEAN_ZONE_FIRST_SEAT };
enum { BEAN_SEAT_HAND, BEAN_SEAT_COINS, BEAN_SEAT_SET_ASIDE, BEAN_SEAT_FIELDS, BEAN_SEAT_ZONES = BEAN_SEAT_FIELDS + BEAN_MAX_FIELDS };
#define BEAN_ZONES (BEAN_ZONE_FIRST_SEAT + BEAN_MAX_SEATS * BEAN_SEAT_ZONES)
#define BEAN_ZONE_HAND(p) (BEAN_ZONE_FIRST_SEAT + (p) * BEAN_SEAT_ZONES + BEAN_SEAT_HAND)
#define BEAN_ZONE_COINS(p) (BEAN_ZONE_FIRST_SEAT + (p) * BEAN_SEAT_ZONES + BEAN_SEAT_COINS)
#define BEAN_ZONE_SET_ASIDE(p) (BEAN_ZONE_FIRST_SEAT + (p) * BEAN_SEAT_ZONES + BEAN_SEAT_SET_ASIDE)
#define BEAN_ZONE_FIELD(p, f) (BEAN_ZONE_FIRST_SEAT + (p) * BEAN_SEAT_ZONES + BEAN_SEAT_FIELDS + (f))

/* ==================================================================== the state */

enum { BEAN_TIE_SEAT, BEAN_TIE_HAND, BEAN_TIE_NONE };

typedef struct bean_rules {
    uint8_t types;                      /* bean types in the game's catalogue */
    uint8_t count[BEAN_MAX_TYPES];      /* cards of each type in this deck */
    uint8_t meter[BEAN_MAX_TYPES][4];   /* cards for 1..4 coins; 0: no such payout */
    uint8_t fields;                     /* fields each player starts with */
    uint8_t third_field_cost;           /* 0: a third field cannot be bought (only a player with 2 may) */
    uint8_t passes, tie_break, hand_start, reveal, draw, trade_limit;
    bool duplicate_fields;
} bean_rules;

/* The phases the core runs; a game built on it numbers its own from BEAN_GAME_PHASES. */
enum { BEAN_PLANT, BEAN_TRADE, BEAN_PLANT_TRADED, BEAN_OVER, BEAN_GAME_PHASES };

/* A proposal (the active player to another) or an offer (an invited player to the active one). */
enum { BEAN_DEAL_NONE, BEAN_DEAL_BUILD, BEAN_DEAL_ANSWER, BEAN_DEAL_PICK };
/* An item naming a card: a hand position (0-based, when the deal was made), or a face-up card. */
#define BEAN_ITEM_UP(i) (0xf0 | (i))
#define BEAN_ITEM_IS_UP(x) ((x) >= 0xf0)
#define BEAN_ITEM_UP_INDEX(x) ((x) & 0x0f)

typedef struct bean_deal {
    /* While the deal is built: the hand positions the builder may give, a bit each (the frontmost of
     * each run of like cards not in the deal), counted again at each card given. */
    uint64_t give_fronts[(BEAN_MAX_CARDS + 63) / 64];
    uint8_t stage, from, to;            /* `to` supplies the wanted cards */
    uint8_t n_give, n_want;
    uint8_t n_picks;                    /* wanted cards handed over so far (stage pick) */
    uint8_t give[BEAN_MAX_CARDS];       /* from's items, leaving when the last pick is made */
    uint8_t want[BEAN_MAX_CARDS];       /* bean types */
    /* Picks of one bean go front to back, face-up cards last, so that two orders of the same cards are
     * one choice: by type, the hand position the next pick may start at (BEAN_DEAL_UP_ONLY after `pick up`). */
    uint8_t pick_from[BEAN_MAX_TYPES];
    /* While the deal is built: by type, how many more the builder may still want (what the addressee
     * could hold as the builder sees it, less those wanted already). Nothing the builder may do while
     * building changes what is hidden from them, so it is counted once, when the deal opens; wherever
     * cards move otherwise (samples, tables, variants) bean_deal_refresh counts again. give_fronts and
     * room are 0 at other stages; bean_validate holds them to a fresh count. */
    uint8_t room[BEAN_MAX_TYPES];
    uint16_t room_beans;                /* bit t: room[t] > 0 (the want list, by bean) */
    uint16_t up_given;                  /* bit i: face-up card i is in `give` (the give up list) */
} bean_deal;
#define BEAN_DEAL_UP_ONLY 0xff

typedef struct bean_table {
    rng rng;
    bean_rules rules;
    uint8_t players, phase, active, start, to_move;
    uint8_t pass, planted, trade_steps;
    uint8_t invited;                    /* the seat to offer in an invitation round, or BEAN_NOBODY */
    bool last_pass_over;                /* the last pass ran out: the turn ends the game */
    bool traded;                        /* a proposal or offer was accepted this turn */
    uint16_t turn;
    uint8_t fields[BEAN_MAX_SEATS];     /* fields each player has now */
    bool third_field[BEAN_MAX_SEATS];   /* one field more than the rules' fields: bought (Bohnanza's third),
                                         * or a spell's (Rabohnzel's bean_field) */
    uint8_t enchanted[BEAN_MAX_SEATS][BEAN_MAX_FIELDS]; /* cards at a field's bottom counting as its
                                                         * type (Rabohnzel); always 0 in Bohnanza */
    bean_deal deal;
    /* Cards of each bean in the deck, kept by bean_move and the passes (bean_deal_refresh counts
     * again after other moves): a deal's opening counts what is hidden without reading the deck. */
    uint8_t deck_count[BEAN_MAX_TYPES];
    /* Where the zones begin, and one past the last: zone z is card[zone_bound[z] .. zone_bound[z + 1] - 1]
     * (zone_bound[0] = 0), so that a zone's start is read without a test for the first. */
    uint8_t zone_bound[BEAN_ZONES + 1];
    uint8_t card[BEAN_MAX_CARDS];
    uint8_t shown[BEAN_MAX_CARDS];      /* 1: a hand card everyone has seen where it lies (offered in a
                                         * deal, Rabohnzel's Pluck); moves with its card, 0 outside hands */
} bean_table;

/* ==================================================================== reading tables */

/* A table being read: the cards each zone names, what is left to deal, and how many to deal where. */
typedef struct bean_reading {
    int left[BEAN_MAX_TYPES];           /* cards of each type no zone named yet */
    int count[BEAN_MAX_TYPES];          /* the deck's cards of each type */
    uint8_t cards[BEAN_ZONES][BEAN_MAX_CARDS];
    int len[BEAN_ZONES];
    int dealt[BEAN_ZONES];              /* cards to deal into a zone from what is left, or -1 */
    bool named[BEAN_ZONES];
    uint8_t fixed[BEAN_MAX_SEATS][BEAN_MAX_CARDS]; /* a dealt hand's shown cards, by position (or NONE) */
    uint8_t shown[BEAN_MAX_SEATS][BEAN_MAX_CARDS]; /* hand positions everyone has seen */
    void *extra;                        /* the game's own reading state, for its hooks */
} bean_reading;

/* A deal's hand items as tables write them, "hand 2 garden": constants (a tree writer may keep its
 * strings), one row of BEAN_MAX_CARDS positions per bean name. */
#define BEAN_HAND_NAME(tens, ones, bean) "hand " #tens #ones " " bean
#define BEAN_HAND_NAMES_TENS(tens, bean)                                                                      \
    BEAN_HAND_NAME(tens, 0, bean), BEAN_HAND_NAME(tens, 1, bean), BEAN_HAND_NAME(tens, 2, bean),               \
        BEAN_HAND_NAME(tens, 3, bean), BEAN_HAND_NAME(tens, 4, bean), BEAN_HAND_NAME(tens, 5, bean),           \
        BEAN_HAND_NAME(tens, 6, bean), BEAN_HAND_NAME(tens, 7, bean), BEAN_HAND_NAME(tens, 8, bean),           \
        BEAN_HAND_NAME(tens, 9, bean)
#define BEAN_HAND_NAMES(bean)                                                                                 \
    {"hand 1 " bean, "hand 2 " bean, "hand 3 " bean, "hand 4 " bean, "hand 5 " bean, "hand 6 " bean,         \
     "hand 7 " bean, "hand 8 " bean, "hand 9 " bean, BEAN_HAND_NAMES_TENS(1, bean),                          \
     BEAN_HAND_NAMES_TENS(2, bean), BEAN_HAND_NAMES_TENS(3, bean), BEAN_HAND_NAMES_TENS(4, bean),             \
     BEAN_HAND_NAMES_TENS(5, bean), BEAN_HAND_NAMES_TENS(6, bean), BEAN_HAND_NAMES_TENS(7, bean),             \
     BEAN_HAND_NAMES_TENS(8, bean), BEAN_HAND_NAMES_TENS(9, bean), BEAN_HAND_NAMES_TENS(10, bean),            \
     BEAN_HAND_NAMES_TENS(11, bean), BEAN_HAND_NAMES_TENS(12, bean), BEAN_HAND_NAMES_TENS(13, bean),          \
     BEAN_HAND_NAMES_TENS(14, bean), BEAN_HAND_NAMES_TENS(15, bean), "hand 160 " bean}

/* ==================================================================== what differs between games */

typedef struct bean_game bean_game;
struct bean_game {
    const char *name;                   /* "bohnanza": the table's `game` */
    const bean_kind *kinds;             /* the catalogue, `types` entries */
    int types;
    const char *const *up_names;        /* "up blue", by type: deal items as tables write them */
    const char *const (*hand_names)[BEAN_MAX_CARDS]; /* "hand 2 garden", by type and position
                                                       * (BEAN_HAND_NAMES) */
    const char *const *phase_names;     /* by phase number, for tables */
    int num_phases;
    const char *phase_expect;           /* "the phase is plant, trade, ..." */
    const char *words;                  /* the game's action words, for an unknown one: "plant, done, ..." */
    bool hand_knowledge;                /* hands may hold shown cards: tables carry `shown` */
    bool temporary_third_field;         /* third_field is a spell's field, not a bought one */
    /* Tables: the keys a game's table and player entries may hold (NULL: the core's), extra keys
     * written at the top level and in each player's entry, how a field is written and read (NULL: a
     * list of bean names). */
    const char *const *table_keys, *const *player_keys;
    void (*write_extra)(const void *st, int viewer, tree_writer *w);
    void (*write_player_extra)(const void *st, int seat, int viewer, tree_writer *w);
    void (*write_field)(const void *st, int seat, int field, tree_writer *w);
    /* What else a harvest of the field would bring now, into its `harvest` entry (Rabohnzel: spell). */
    void (*write_harvest_extra)(const void *st, int seat, int field, tree_writer *w);
    bool (*read_extra)(const bean_game *bg, bean_reading *rd, tree_reader *r, void *st, reason *why);
    bool (*read_player_extra)(const bean_game *bg, bean_reading *rd, tree_reader *r, void *st, int seat, reason *why);
    bool (*read_field)(const bean_game *bg, bean_reading *rd, tree_reader *r, void *st, int seat, int field,
                       reason *why);    /* Parameters: the game's table (its game_def's); the core reads the rules it knows by their names
     * (bean_rules_from), over the rules before any parameter: the deck, the meters and the defaults
     * the game (its edition) gives at this player count. */
    const param_def *params;
    int num_params;
    void (*rules_defaults)(const param_value *params, int players, bean_rules *r);
    uint64_t rng_stream;                /* the game's generator stream: part of what a seed deals */
    /* Plays the automatic steps up to the next decision (a table read, a validation's check). */
    void (*settle)(void *st);
    size_t state_size;
    void (*scores)(const void *st, int *out);  /* the game_def's: what decides the winners */
};

/* ==================================================================== the core's functions */

/* ---- zones ---- */
static inline int bean_zone_start(const bean_table *g, int z) { return g->zone_bound[z]; }
static inline int bean_zone_end(const bean_table *g, int z) { return g->zone_bound[z + 1]; }
static inline int bean_zone_len(const bean_table *g, int z) { return bean_zone_end(g, z) - bean_zone_start(g, z); }
static inline const uint8_t *bean_zone(const bean_table *g, int z) { return g->card + bean_zone_start(g, z); }
static inline int bean_zone_top(const bean_table *g, int z) { return g->card[bean_zone_end(g, z) - 1]; }
/* The hand zones, a bit each: every card's move asks, without a division. */
_Static_assert(BEAN_MAX_SEATS == 5 && BEAN_ZONES <= 64, "BEAN_HAND_ZONES names five hands in a 64-bit mask");
#define BEAN_HAND_ZONES                                                                                     \
    (1ull << BEAN_ZONE_HAND(0) | 1ull << BEAN_ZONE_HAND(1) | 1ull << BEAN_ZONE_HAND(2) | 1ull << BEAN_ZONE_HAND(3) | \
     1ull << BEAN_ZONE_HAND(4))
static inline bool bean_is_hand_zone(int z) { return (unsigned)z < BEAN_ZONES && (BEAN_HAND_ZONES >> z & 1); }
static inline int bean_hand_len(const bean_table *g, int seat) { return bean_zone_len(g, BEAN_ZONE_HAND(seat)); }
static inline bool bean_is_shown(const bean_table *g, int seat, int k) { return g->shown[bean_zone_start(g, BEAN_ZONE_HAND(seat)) + k]; }
/* Hand cards j and k are alike to everyone: the same bean, and shown to all or to none. */
static inline bool bean_same_card(const bean_table *g, int seat, int j, int k) {
    const uint8_t *hand = g->card + bean_zone_start(g, BEAN_ZONE_HAND(seat));
    return hand[j] == hand[k] && bean_is_shown(g, seat, j) == bean_is_shown(g, seat, k);
}
/* Clockwise, without a division (asked in loops over the seats at many decisions). */
static inline int bean_next_seat(const bean_table *g, int seat) { return seat + 1 < g->players ? seat + 1 : 0; }
/* Card i of zone `from` moves to position j of zone `to` (j = its length: on top, or a hand's back). */
void bean_move(bean_table *g, int from, int i, int to, int j);
int bean_count_in(const bean_table *g, int zone, int type);

/* ---- parameters and setup ---- */
/* The rules the game's parameters make (already checked against their definitions), read by name:
 * deck, beanometer, fields, third_field_cost, passes, tie_break, hand_start, reveal, draw,
 * duplicate_fields, trade_limit; a game without one of them keeps its rules_defaults' value. */
void bean_rules_from(const bean_game *bg, const param_value *params, int players, bean_rules *r);
/* The rules make a game at this player count: one that ends, with a deck that fits and deals. */
bool bean_rules_check(const bean_rules *rules, int players, reason *why);
void bean_setup(const bean_game *bg, bean_table *g, int players, const bean_rules *rules, uint64_t seed);

/* The parameters both bean games take with the same meaning: one definition each (a game's own
 * words where they tell its players more). */
extern const char *const bean_tie_break_names[];
#define BEAN_PARAM_HAND_START                                                                                 \
    {"hand_start", PARAM_INT, 5, 0, 10, NULL,                                                                  \
     "cards dealt to each player (at most 10, twice the rules' 5; a deck too small to deal them all and one "  \
     "more is refused)", NULL, 0, 0, false}
#define BEAN_PARAM_REVEAL                                                                                     \
    {"reveal", PARAM_INT, 2, 0, 6, NULL,                                                                       \
     "cards turned up in phase 2 (at most 6: the face-up cards, with what spells add, stay within the 15 "    \
     "places a state has for them; reveal = 0 needs draw > 0)", NULL, 0, 0, false}
#define BEAN_PARAM_DRAW                                                                                       \
    {"draw", PARAM_INT, 3, 0, 10, NULL,                                                                        \
     "cards drawn in phase 4 (at most 10, a bound of this host; draw = 0 needs reveal > 0, or the deck "     \
     "would never run out)", NULL, 0, 0, false}
#define BEAN_PARAM_TRADE_LIMIT(doc) {"trade_limit", PARAM_INT, 10, 0, 100, NULL, doc, NULL, 0, 0, false}
#define BEAN_PARAM_DUPLICATE_FIELDS(doc) {"duplicate_fields", PARAM_BOOL, true, 0, 1, NULL, doc, NULL, 0, 0, false}
/* game_default: the edition decides the default (Bohnanza's riogrande breaks ties by hands). */
#define BEAN_PARAM_TIE_BREAK(doc, game_default)                                                               \
    {"tie_break", PARAM_CHOICE, BEAN_TIE_SEAT, 0, 0, bean_tie_break_names, doc, NULL, 0, 0, game_default}

/* ---- fields and planting ---- */
/* Asked at nearly every decision: inline. */
static inline int bean_field_size(const bean_table *g, int seat, int field) {
    return bean_zone_len(g, BEAN_ZONE_FIELD(seat, field));
}
/* A field's type is that of its cards; enchanted cards at its bottom count as it. BEAN_NONE when empty. */
static inline int bean_field_type(const bean_table *g, int seat, int field) {
    int n = bean_field_size(g, seat, field), e = g->enchanted[seat][field];
    return n > e ? bean_zone(g, BEAN_ZONE_FIELD(seat, field))[e] : BEAN_NONE;
}
/* Whether a bean of `type` may go onto the field (matching, or the lowest empty one). */
bool bean_fits(const bean_table *g, int seat, int type, int field);
int bean_first_fit(const bean_table *g, int seat, int type);          /* -1 when none */
/* bean_fits for each field: bit f set when a bean of `type` may go onto field f (the legal lists). */
unsigned bean_fitting_fields(const bean_table *g, int seat, int type);
bool bean_plant_check(const bean_game *bg, const bean_table *g, int seat, int type, int field, reason *why);
void bean_plant(bean_table *g, int seat, int from_zone, int index, int field);

/* ---- harvest ---- */
int bean_payout(const bean_table *g, int type, int cards);
/* The coins a harvest of the field pays now: bean_payout, at most one per real (not enchanted) card. */
int bean_harvest_coins(const bean_table *g, int seat, int field);
bool bean_harvest_check(const bean_game *bg, const bean_table *g, int seat, int field, reason *why);
/* Harvests a field and returns the coins; the field's zone is empty after it. */
int bean_harvest(bean_table *g, int seat, int field);
bool bean_buy_check(const bean_table *g, int seat, reason *why);
void bean_buy(bean_table *g, int seat);
static inline int bean_coins(const bean_table *g, int seat) { return bean_zone_len(g, BEAN_ZONE_COINS(seat)); }
/* Empty fields move behind the others, which keep their order (a spell's third field gone); the cards
 * stay where they lie. order[new] = old, for the game's own per-field data. */
void bean_compact_fields(bean_table *g, int seat, int *order);

/* ---- the deck ---- */
/* Draws the top card to zone `to` (on top, or a hand's back); when that empties the deck, the pass
 * ends: the discard pile becomes the new deck, or, after the last pass (or with no discard pile),
 * last_pass_over is set. False when there was no card to draw. */
bool bean_draw(bean_table *g, int to);

/* ---- actions ---- */
/* An action packs its kind in bits 0-5 and three 8-bit arguments: x (a field, seat, type or
 * position), y, z. A game built on the core numbers its own kinds from BEAN_ACTS. */
enum {
    BEAN_ACT_PLANT, BEAN_ACT_DONE, BEAN_ACT_PLANT_TYPE, BEAN_ACT_HARVEST, BEAN_ACT_BUY, BEAN_ACT_PROPOSE, BEAN_ACT_ASK, BEAN_ACT_OFFER,
    BEAN_ACT_PASS, BEAN_ACT_GIVE_UP, BEAN_ACT_GIVE, BEAN_ACT_WANT, BEAN_ACT_SEND, BEAN_ACT_CANCEL, BEAN_ACT_ACCEPT, BEAN_ACT_REJECT, BEAN_ACT_PICK,
    BEAN_ACT_PICK_UP, BEAN_ACTS
};
static inline action_t bean_action(int kind, int x, int y, int z) {
    return (action_t)kind | (action_t)x << 6 | (action_t)y << 14 | (action_t)z << 22;
}
static inline int bean_act_kind(action_t a) { return (int)(a & 0x3f); }
static inline int bean_act_x(action_t a) { return (int)(a >> 6 & 0xff); }
static inline int bean_act_y(action_t a) { return (int)(a >> 14 & 0xff); }
static inline int bean_act_z(action_t a) { return (int)(a >> 22 & 0xff); }

/* ---- harvests' list ---- */
/* The harvests bean_harvest_check allows `seat`, in field order, appended at out[n]: every field but the
 * empty ones, and but a lone bean while another field holds two or more. Inline: every decision asks. */
static inline int bean_harvest_legal(const bean_table *g, int seat, action_t *out, int n) {
    const uint8_t *end = &g->zone_bound[BEAN_ZONE_FIELD(seat, 0) + 1]; /* a seat's fields are consecutive zones */
    /* Every decision lists harvests: the four field zones are read at once, with no loop, the seat's
     * or not (a field the seat lacks is empty: bean_validate). */
    _Static_assert(BEAN_MAX_FIELDS == 4, "bean_harvest_legal reads four fields");
    /* The four sizes as the four bytes of one word, field f in byte f: the bounds never decrease, so
     * no byte's difference borrows from the next. */
    uint32_t ends = load_le32(end);
    uint32_t sizes = ends - (ends << 8 | end[-1]);
    unsigned big = bytes_nonzero32(sizes & 0xfefefefe), lone = ~bytes_nonzero32(sizes ^ 0x01010101) & 0xf;
    for (unsigned fields = big ? big : lone; fields; fields &= fields - 1)
        out[n++] = bean_action(BEAN_ACT_HARVEST, lowest_bit(fields), 0, 0);
    return n;
}

/* ---- trading (phase 2): the active player's main decision, builders, answers, picks, invitations ---- */
/* A deal or an invitation round is open: the active player's main decision is not. */
static inline bool bean_trading_now(const bean_table *g) {
    return g->deal.stage != BEAN_DEAL_NONE || g->invited != BEAN_NOBODY;
}
/* Who decides in phase 2: the builder, the addressee (answer, picks), the invited player, or A. */
static inline int bean_trade_mover(const bean_table *g) {
    switch (g->deal.stage) {
    case BEAN_DEAL_BUILD: return g->deal.from;
    case BEAN_DEAL_ANSWER: case BEAN_DEAL_PICK: return g->deal.to;
    }
    return g->invited != BEAN_NOBODY ? g->invited : g->active;
}
/* Counts again the deck's beans (bean_table.deck_count), the face-up places a deal gives
 * (bean_deal.up_given) and what the deal being built may still give and want (give_fronts, room):
 * after cards moved other than by bean_move, bean_draw and the trade's own actions (a shuffle, a
 * sample, a table read). */
void bean_deal_refresh(bean_table *g);
/* Writes up to three slots past the count it returns as scratch: `out` has MEEPLE_MAX_ACTIONS. */
int bean_trade_legal(const bean_table *g, action_t *out, int n);
/* The active player's openings of a trade with no deal running (propose K, ask), without `done`:
 * a game with more to do in phase 2 lists its own actions between them and its `done`. */
int bean_trade_openings(const bean_table *g, action_t *out, int n);
bool bean_trade_check(const bean_game *bg, const bean_table *g, action_t a, reason *why);
/* What the open deal or invitation round asks for, as a refusal (a game's own action there). */
bool bean_trade_deny_open(const bean_game *bg, const bean_table *g, reason *why);
/* `done` at the main decision moves to phase 3 (BEAN_PLANT_TRADED). */
void bean_trade_apply(bean_table *g, action_t a);
/* Plays what is not a choice: a pick with one distinct outcome (the deal completes after its last
 * pick), an invited player skipped once the trade steps ran out. Asked after every trading action,
 * most of which leave nothing to play (a deal being built): that is told here, without a call. */
void bean_trade_settle_picks(bean_table *g);
static inline void bean_trade_settle(bean_table *g) {
    if (g->deal.stage == BEAN_DEAL_PICK || (g->deal.stage == BEAN_DEAL_NONE && g->invited != BEAN_NOBODY))
        bean_trade_settle_picks(g);
}

/* ---- phase 3 ---- */
/* Cards `seat` must still plant in phase 3 (set-aside, and the active player's face-up cards). */
int bean_to_plant(const bean_table *g, int seat);
bool bean_plant_type_check(const bean_game *bg, const bean_table *g, int type, int field, reason *why);
void bean_plant_type(bean_table *g, int type, int field);
int bean_plant_type_legal(const bean_table *g, action_t *out, int n);
/* The first seat from `from` on, in phase 3's order (the active player, then clockwise), with cards
 * left to plant; -1 when everyone is done. */
int bean_next_planter(const bean_table *g, int from);

/* ---- the end ---- */
/* Harvests every field of every player (no protection), seats from `first` clockwise. */
void bean_final_harvest(bean_table *g, int first);
/* Once the game is over (none before): the highest scores (the game's), then the tie_break rule;
 * returns how many share the win. */
int bean_winners(const bean_game *bg, const void *st, int *out);

/* ---- queries: a game_def's own, for any state that begins with its bean_table ---- */
int bean_num_players(const void *st);
int bean_turn(const void *st);
bool bean_is_over(const void *st);
int bean_to_move(const void *st);
uint32_t bean_turn_key(const void *st, int *owner);

/* ---- the playout policy ---- */
/* A search playout's policy for both bean games (game_def.playout_worth): plant, harvest and trade as
 * greedy_bohnanza does (bots/lib/beans.lua). Its worths run up to 700 + BEAN_MAX_FIELDS. */
int bean_playout_worth(const void *st, action_t a, rng *r);
/* bean_playout_worth of every action of acts[0..n) (game_def.playout_worths). */
void bean_playout_worths(const void *st, const action_t *acts, int n, int *out);
/* game_def.playout_pick: the action bean_playout_worths ranks highest, ties drawn as the host draws them. */
int bean_playout_pick(const void *st, const action_t *acts, int n, rng *r);
/* What one more bean of `type` is worth to `seat`'s fields, in quarters of a bean (beans.worth):
 * joining a field of its kind 8 + that field's size, an empty field 2, forcing a harvest -6. */
int bean_worth_quarters(const bean_table *g, int seat, int type);
#define BEAN_GROWS 8 /* bean_worth_quarters of a bean that joins a field: the bots' "worth >= 2" */
/* Whether a field of `type` that pays `coins` (bean_payout) pays the most its meter can: the greedy
 * bots harvest such a field before anything else. */
bool bean_pays_most(const bean_table *g, int type, int coins);

/* bean_pays_most(g, type, bean_payout(g, type, cards)), with one look at the meter: the most a field
 * pays is its highest step's coins, reached when it holds that step's cards. */
static inline bool bean_policy_full(const bean_table *g, int type, int cards) {
    if ((unsigned)type >= BEAN_MAX_TYPES) return bean_pays_most(g, type, bean_payout(g, type, cards));
    const uint8_t *m = g->rules.meter[type];
    uint32_t steps = load_le32(m);
    return steps && m[highest_bit(steps) >> 3] <= cards;
}

/* What a decision's actions share in the policy's eyes, worked out when an action first asks and kept
 * for the others, so that weighing all of a decision's actions costs little more than one: a seat's
 * fields as bean_worth_quarters reads them, whether the card to plant is stuck, whether a face-up card
 * hurts. One per decision, over a state that does not change meanwhile; a game's own policy
 * (Rabohnzel's) asks it too. */
typedef struct bean_policy {
    const bean_table *g;
    bool building;                      /* a deal is being built (phase 2): most of a playout's worths */
    int8_t stuck, hurts;                /* -1 until asked */
    int seat;                           /* whose fields the next three describe; -1: nobody's yet */
    bool empty;                         /* one of them is empty */
    unsigned grows;                     /* bit t: one holds beans of type t */
    uint8_t size[BEAN_MAX_TYPES];       /* for those types, the size of the first that does */
} bean_policy;
static inline void bean_policy_open(bean_policy *p, const bean_table *g) {
    p->g = g;
    p->building = g->phase == BEAN_TRADE && g->deal.stage == BEAN_DEAL_BUILD;
    p->stuck = g->phase == BEAN_PLANT || g->phase == BEAN_PLANT_TRADED ? -1 : 0; /* planting_stuck's first test */
    p->hurts = -1;
    p->seat = -1;
}
/* bean_playout_worth of `a`. */
int bean_policy_worth(bean_policy *p, action_t a);
/* A planting onto `seat`'s field: onto its own kind first, the fuller the better, else an empty one. */
static inline int bean_policy_plant_worth(const bean_table *g, int seat, int field) {
    int size = bean_field_size(g, seat, field);
    return size ? 500 + size : 400;
}
/* The same for a trading action (done, or a kind from propose on) while trading (phase 2, no deal
 * being built): a game weighing its own decisions asks it without bean_policy_worth's other cases. */
int bean_policy_trade_worth(bean_policy *p, action_t a);
/* Whether the active player's proposal to seat x may be the one the policy makes at trading's main
 * decision (the next player clockwise for each step taken, while steps remain): its every other
 * proposal, there and at every other trading decision but a deal's building, is worth -1. */
static inline bool bean_policy_proposes_to(const bean_table *g, int x) {
    return g->trade_steps < g->players - 1 && x == (g->to_move + 1 + g->trade_steps) % g->players;
}
/* Whether the mover's card to plant fits no field (phases 1 and 3): then harvests are worth taking. */
bool bean_policy_stuck_now(bean_policy *p);
static inline bool bean_policy_stuck(bean_policy *p) { return p->stuck >= 0 ? p->stuck : bean_policy_stuck_now(p); }
/* A harvest of a field that can still pay more, of `type` and `size` cards: worth taking when the card
 * to plant is stuck, the field paying most first. */
static inline int bean_policy_stuck_harvest_worth(bean_policy *p, int type, int size) {
    return bean_policy_stuck(p) ? 300 + 10 * bean_payout(p->g, type, size) - size : -1;
}
/* A harvest of the seat's field: a field that can pay no more goes first of all (the first such field
 * first, as the bots take it), before even a third field is bought; when the card to plant is stuck,
 * the field paying most. Inline: most decisions list a harvest for every field. */
ALWAYS_INLINED static inline int bean_policy_harvest_worth_inline(bean_policy *p, int seat, int field) {
    const bean_table *g = p->g;
    int type = bean_field_type(g, seat, field), size = bean_field_size(g, seat, field);
    if (bean_policy_full(g, type, size)) return 700 + BEAN_MAX_FIELDS - field;
    return bean_policy_stuck_harvest_worth(p, type, size);
}
/* The same, left to the compiler. The _inline form is forced into the bean core's loops over a
 * decision's actions (a call saved an action); Rabohnzel's harvest rule calls this one, which the
 * compiler may keep out of line (inlined there, it cost Rabohnzel 14 instructions a decision). */
static inline int bean_policy_harvest_worth(bean_policy *p, int seat, int field) {
    return bean_policy_harvest_worth_inline(p, seat, field);
}
void bean_policy_fields(bean_policy *p, int seat);
/* Whether a bean of `type` joins one of `seat`'s fields (bean_worth_quarters >= BEAN_GROWS). */
static inline bool bean_policy_grows(bean_policy *p, int seat, int type) {
    if (p->seat != seat) bean_policy_fields(p, seat);
    return (unsigned)type < BEAN_MAX_TYPES && p->grows >> type & 1;
}
/* bean_worth_quarters. */
static inline int bean_policy_quarters(bean_policy *p, int seat, int type) {
    if ((unsigned)type >= BEAN_MAX_TYPES) return bean_worth_quarters(p->g, seat, type);
    if (bean_policy_grows(p, seat, type)) return 8 + p->size[type];
    return p->empty ? 2 : -6;
}
/* Whether a bean of `type` would force `seat` to harvest (bean_worth_quarters < 0). */
static inline bool bean_policy_hurts(bean_policy *p, int seat, int type) {
    if ((unsigned)type >= BEAN_MAX_TYPES) return bean_worth_quarters(p->g, seat, type) < 0;
    return !bean_policy_grows(p, seat, type) && !p->empty;
}
/* The worths of a deal's building actions (give up, give, want, send, cancel) while one is built
 * (p->building), the others' from `other`: most of a playout's worths, twenty-odd actions a decision,
 * the deal built one card a decision. */
void bean_build_worths(bean_policy *p, const action_t *acts, int n, int *out, int (*other)(void *ctx, action_t a),
                       void *ctx);
/* The index of the highest of those worths among acts[0..n) (n >= 1), ties drawn from `r` as the host
 * draws them (worth_pick): a playout's decision while a deal is built. */
int bean_build_pick(bean_policy *p, const action_t *acts, int n, rng *r, int (*other)(void *ctx, action_t a),
                    void *ctx);

/* The action bean_build_pick would take among the builder's list followed by tail[0..n_tail) (the
 * game's free actions), drawn for exactly as there, without the list being written: a playout's
 * decision while a deal is built (p->building). */
action_t bean_build_choose(bean_policy *p, const action_t *tail, int n_tail, rng *r,
                           int (*other)(void *ctx, action_t a), void *ctx);
/* Bohnanza's playout_choose while a deal is built: bean_build_choose with the bean policy's worths. */
action_t bean_playout_build(const bean_table *g, const action_t *tail, int n_tail, rng *r);

/* ---- the boundary ---- */
void bean_action_text(const bean_game *bg, action_t a, char *out);
/* Parses the core's grammar. */
bool bean_parse_action(const bean_game *bg, const bean_table *g, const char *text, action_t *out, reason *why);
int bean_action_space(const bean_table *g, action_t *out, int n);
int bean_type_index(const bean_game *bg, const char *name);
void bean_write_names(const bean_game *bg, tree_writer *w, const uint8_t *cards, int n);
void bean_write_table(const bean_game *bg, const void *st, int viewer, tree_writer *w);
void bean_write_cards(const bean_game *bg, const void *st, tree_writer *w);
/* Reading: the table's player count, the rules the parameters make at it, the seats' fields and the
 * game's generator (false, why says, when they make no game); then everything the core knows, into
 * `g`. *to_move gets the table's to_move (0: not given). */
bool bean_read_begin(const bean_game *bg, tree_reader *r, const param_value *params, uint64_t seed, bean_table *g,
                     reason *why);
bool bean_read_table(const bean_game *bg, bean_reading *rd, tree_reader *r, bean_table *g, int *to_move, reason *why);
/* The reading ends: the position settled to its decision, the table's to_move (if given) the one who
 * decides there, and the game's validation passed. */
bool bean_read_end(const bean_game *bg, void *st, int to_move, bool (*validate)(const void *st, reason *why),
                   reason *why);
/* Deals again the hands the table gave as numbers (and the deck, if it was not listed): a game whose
 * decisions depend on hidden cards tries again until the position is one it can be in. */
bool bean_redeal_unnamed(bean_table *g, const bean_reading *rd);
bool bean_take_card(const bean_game *bg, bean_reading *rd, tree_reader *r, int *type, reason *why);
bool bean_read_cards(const bean_game *bg, bean_reading *rd, tree_reader *r, int zone, reason *why);
bool bean_validate(const bean_table *g, reason *why);
/* The state is at a decision: the game's settle changes nothing (else why not: who decides, or
 * nobody). bean_settled_already says only whether. */
bool bean_at_decision(const bean_game *bg, const void *st, reason *why);
bool bean_settled_already(const bean_game *bg, const void *st);
/* Re-deals the cards `viewer` cannot see: other hands (but their shown cards), the deck and, when
 * `pending_hidden`, the pending card; the same for every state the viewer cannot tell from this one. */
void bean_sample(bean_table *g, int viewer, bool pending_hidden, rng *r);
/* Variants' primitives: a move between zones named by their path in the table, kept only when
 * `validate` accepts the result. */
bool bean_move_cards(const bean_game *bg, bean_table *g, const char *from, const char *to, const card_move *m,
                     bool (*validate)(const void *st, reason *why), reason *why);

#endif
