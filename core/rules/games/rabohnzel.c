/* rabohnzel.c — Rabohnzel, by shared/rules/rabohnzel.md (read after bohnanza.md).
 *
 * Only what differs from Bohnanza is here; the bean core (beans.c) plays the rest: the cards'
 * zones, planting, harvests and their payout, bean protection, the deck's passes, the trading
 * protocol. The file follows the digest: components and parameters; setup and the countdown;
 * spells (activating, using, the end of a turn); a turn (phase 1; phase 1½ with its guard window,
 * the bean powers, casting and the Sword attack; phase 2; phase 3; phase 4); the Cape bonus and the
 * temporary third field (in the harvest); the end and scoring; then the boundary (actions, tables,
 * views, sampling, primitives), the playout policy and the game_def. Players are 0-based here. */
#include "rules/games/rabohnzel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/table.h"
#include "rules/games/beans.h"
#include "rules/hotpath.h"
#include "rules/invariant.h"
#include "rules/worth_pick.h"

/* ==================================================================== components */

enum { PLUCK, CAPE, COMMON, WISE, MAGIC, PRINCESS, SWORD, NUM_TYPES };

/* The card counts are the beans' numbers. The meters are PROVISIONAL (the digest's Components): the
 * real ones are unknown to this project; a variant's `beanometer` replaces them. */
static const bean_kind beans[NUM_TYPES] = {
    [PLUCK] = {"pluck", "Pflückbohne", 9, {2, 4, 5, 6}},
    [CAPE] = {"cape", "Kapbohne", 11, {3, 4, 6, 0}},
    [COMMON] = {"common", "Gemeine Bohne", 13, {3, 5, 6, 7}},
    [WISE] = {"wise", "Weisse Bohne", 14, {3, 5, 6, 7}},
    [MAGIC] = {"magic", "Zauberbohne", 15, {3, 5, 7, 8}},
    [PRINCESS] = {"princess", "Prinzessbohne", 17, {2, 4, 5, 6}},
    [SWORD] = {"sword", "Schwertbohne", 19, {4, 6, 8, 10}},
};
static const char *const bean_names[NUM_TYPES + 1] = {"pluck", "cape", "common", "wise", "magic", "princess",
                                                      "sword", NULL};
static bool has_power(int type) { return type == PLUCK || type == COMMON || type == WISE || type == MAGIC || type == SWORD; }

/* The uses a field's power gives when the magic phase begins or the field is planted fresh: once, and
 * a magic field with 4+ beans twice. Beans added later do not change it; a field only ever loses beans
 * all at once (a harvest, which loses the power too), so one that could be used twice still holds 4+
 * at its second use. */
static int fresh_power(int type, int size) {
    if (type == BEAN_NONE || !has_power(type)) return 0;
    return type == MAGIC && size >= 4 ? 2 : 1;
}

enum {
    AGGRESSION, BEAN_FIELD, CARD_EXCHANGE, COMMERCE, CARD_RIVER, DECK_SPELL, BEAN_ENCHANTMENT,
    PLAYER_ENCHANTMENT, RELOCATION, HAND_CARDS, LUCK, NUM_SPELLS
};
#define NO_SPELL 0xff

typedef struct spell_def {
    const char *name, *german;
    uint8_t value; /* in Bohnpfennig */
} spell_def;

static const spell_def spells[NUM_SPELLS] = {
    [AGGRESSION] = {"aggression", "Angriffszauber", 1},
    [BEAN_FIELD] = {"bean_field", "Bohnenfeldzauber", 1},
    [CARD_EXCHANGE] = {"card_exchange", "Zauberkartentausch", 2},
    [COMMERCE] = {"commerce", "Handelszauber", 3},
    [CARD_RIVER] = {"card_river", "Magischer Kartenfluss", 4},
    [DECK_SPELL] = {"deck_spell", "Stapelzauber", 5},
    [BEAN_ENCHANTMENT] = {"bean_enchantment", "Verzauberung der Bohnen", 6},
    [PLAYER_ENCHANTMENT] = {"player_enchantment", "Verzauberung der Mitspieler", 7},
    [RELOCATION] = {"relocation", "Umsteckzauber", 8},
    [HAND_CARDS] = {"hand_cards", "Handkartenzauber", 9},
    [LUCK] = {"luck", "Zufallszauber", 10},
};

/* ==================================================================== parameters */

enum {
    P_BEANOMETER, P_PASSES, P_FIELDS, P_HAND_START, P_REVEAL, P_DRAW, P_HAND_CARDS_DRAW, P_TRADE_LIMIT,
    P_GUARD_WINDOW, P_SWORD_CHAIN_MAX, P_PLUCK_CARD, P_CAPE_FINAL_HARVEST, P_TIE_BREAK, P_DUPLICATE_FIELDS,
    NUM_PARAMS
};
enum { PLUCK_LAST, PLUCK_RANDOM };

/* The generator's stream: what a seed deals depends on it, so saves and goldens do. */
#define RABOHNZEL_RNG_STREAM 0x7ab0

static const char *const pluck_card_names[] = {"last", "random", NULL};
static const int32_t default_passes[] = {PARAM_UNSET, PARAM_UNSET, PARAM_UNSET, 3, 4, 4};

static const param_def rabohnzel_params[NUM_PARAMS] = {
    [P_BEANOMETER] = {"beanometer", PARAM_BY_NAME, 0, 0, 60, bean_names,
                      "cards needed for 1, 2, 3 and 4 coins, by bean ({sword = {4, 6, 8, 10}}; 0: no such payout). "
                      "The defaults are PROVISIONAL: the real Rabohnzel meters are unknown to this project (see "
                      "the Beans above). Beans not named keep the provisional meter. Edit "
                      "scripts/variants/rabohnzel/beanometers.lua and play --variant beanometers to use the real "
                      "ones. At most 60, as in Bohnanza.",
                      NULL, 0, 4, false},
    [P_PASSES] = {"passes", PARAM_BY_PLAYERS, 3, 1, 9, NULL, "passes through the deck, by player count (at most 9, as in Bohnanza)",
                  default_passes, 6, 0, false},
    [P_FIELDS] = {"fields", PARAM_INT, 2, 1, BEAN_MAX_FIELDS, NULL,
                  "fields each player has: 1 to 4, the most a player's state holds (the bean_field spell adds one "
                  "more while there are fewer than 4)",
                  NULL, 0, 0, false},
    [P_HAND_START] = BEAN_PARAM_HAND_START,
    [P_REVEAL] = BEAN_PARAM_REVEAL,
    [P_DRAW] = BEAN_PARAM_DRAW,
    [P_HAND_CARDS_DRAW] = {"hand_cards_draw", PARAM_INT, 5, 0, 10, NULL,
                           "cards drawn in phase 4 with the hand_cards spell (at most 10, as draw)", NULL, 0, 0, false},
    [P_TRADE_LIMIT] = BEAN_PARAM_TRADE_LIMIT("trade steps (proposals, invitations, offers) per turn, as in Bohnanza "
                                             "(at most 100)"),
    [P_GUARD_WINDOW] = {"guard_window", PARAM_BOOL, true, 0, 1, NULL,
                        "before the active player acts in the magic phase with a sword or common field, every other "
                        "player may harvest (false: only at their other decisions)",
                        NULL, 0, 0, false},
    [P_SWORD_CHAIN_MAX] = {"sword_chain_max", PARAM_INT, 100, 1, 1000, NULL,
                           "coin draws in one Sword attack at most (a safety bound: a chain of draws ends; 1000 is "
                           "more coins than a game holds)", NULL, 0, 0, false},
    [P_PLUCK_CARD] = {"pluck_card", PARAM_CHOICE, PLUCK_LAST, 0, 0, pluck_card_names,
                      "the card the Pluck Bean takes: \"last\" (the back of the hand, the English rules) or "
                      "\"random\" (the Korean card texts)",
                      NULL, 0, 0, false},
    [P_CAPE_FINAL_HARVEST] = {"cape_final_harvest", PARAM_BOOL, true, 0, 1, NULL,
                              "the Cape harvest bonus (a spell) applies at the final harvest too", NULL, 0, 0, false},
    [P_TIE_BREAK] = BEAN_PARAM_TIE_BREAK("after taler and pfennig: \"seat\" (farthest clockwise from the start "
                                         "player), \"hand\" (most cards in hand), \"none\" (a shared win)",
                                         false),
    [P_DUPLICATE_FIELDS] = BEAN_PARAM_DUPLICATE_FIELDS("the same bean may grow on two fields, as in Bohnanza"),
};

typedef struct rab_rules {
    uint8_t provisional;            /* beans whose meter is the provisional default (bits) */
    uint8_t hand_cards_draw, pluck_card;
    bool guard_window, cape_final_harvest;
    uint16_t sword_chain_max;
} rab_rules;

/* The deck and its provisional meters, before the parameters set theirs (bean_rules_from). */
static void rabohnzel_rules_defaults(const param_value *params, int players, bean_rules *b) {
    (void)params;
    b->types = NUM_TYPES;
    for (int t = 0; t < NUM_TYPES; t++) {
        b->count[t] = beans[t].cards;
        memcpy(b->meter[t], beans[t].meter, sizeof b->meter[t]);
    }
    b->passes = players == 3 ? 3 : 4;
}

/* Rabohnzel's own rules; the bean core's are bean_rules_from's. */
static void rab_rules_from(const param_value *params, rab_rules *r) {
    memset(r, 0, sizeof *r);
    for (int t = 0; t < NUM_TYPES; t++)
        if (param_by_name(&params[P_BEANOMETER], t, 0, 4, PARAM_UNSET) == PARAM_UNSET) r->provisional |= (uint8_t)(1u << t);
    r->hand_cards_draw = (uint8_t)params[P_HAND_CARDS_DRAW].v[0];
    r->pluck_card = (uint8_t)params[P_PLUCK_CARD].v[0];
    r->guard_window = params[P_GUARD_WINDOW].v[0] != 0;
    r->cape_final_harvest = params[P_CAPE_FINAL_HARVEST].v[0] != 0;
    r->sword_chain_max = (uint16_t)params[P_SWORD_CHAIN_MAX].v[0];
}

static const bean_game rabohnzel_beans;

/* Parameters that could make an endless game are refused (bean_rules_check). */
static bool rabohnzel_params_check(const param_value *params, int players, reason *why) {
    bean_rules b;
    bean_rules_from(&rabohnzel_beans, params, players, &b);
    return bean_rules_check(&b, players, why);
}

/* ==================================================================== the state */

enum { PHASE_MAGIC = BEAN_GAME_PHASES, PHASE_DRAW, NUM_PHASES };

/* A decision inside a phase that must be settled before anything else. */
enum {
    SUB_NONE,
    SUB_PENDING,  /* a stolen or drawn card: keep, or plant F (pending_owner decides) */
    SUB_CHOOSE,   /* aggression: the attacker chooses one of two drawn coins */
    SUB_ACTIVATE, /* a Magic coin: the attacker may activate a spell */
    SUB_GUARD,    /* the guard window: sub_seat may harvest, then pass */
    SUB_ENCHANT,  /* player_enchantment: sub_seat plants its front card (the active player: or skip) */
    SUB_RELOCATE, /* relocation: the active player orders the hand from the front */
    SUB_PLACE,    /* card_exchange: the taken spell, face up or face down */
    NUM_SUBS
};
enum { FROM_PLUCK, FROM_WISE, FROM_COIN };
enum { PLACE_NONE, PLACE_ROW, PLACE_LUCK }; /* the taken spell: at the row's end, or in the luck slot */

typedef struct rabohnzel {
    bean_table b;                                   /* the bean core: first, so the core can read it */
    rab_rules rules;
    /* spells: rows in the order acquired, the pile (bottom first), the luck slots */
    uint8_t row[BEAN_MAX_SEATS][NUM_SPELLS], row_n[BEAN_MAX_SEATS];
    uint8_t pile[NUM_SPELLS], pile_n;
    uint8_t luck[BEAN_MAX_SEATS];                   /* the luck slot's spell, or NO_SPELL */
    bool up[NUM_SPELLS];                            /* active (face up) */
    uint8_t known[NUM_SPELLS];                      /* seats that know the card where it lies (bits) */
    bool dealt[NUM_SPELLS];                         /* the setup card, never shown nor moved */
    uint8_t countdown;                              /* the start player's card, shown at setup */
    /* the turn */
    uint8_t power[BEAN_MAX_SEATS][BEAN_MAX_FIELDS]; /* uses left this magic phase */
    uint8_t sub, sub_seat;
    uint8_t pending_owner, pending_from;
    uint8_t relocated;                              /* relocation: cards placed from the front */
    uint8_t placing;                                /* card_exchange: where the spell to place lies */
    uint8_t attacker, defender;                     /* BEAN_NOBODY outside an attack */
    uint8_t drawn_coin[2];                          /* aggression: positions in the defender's coins */
    uint16_t draws;
    bool aggression;                                /* this attack's first draw takes two coins */
    bool river, drawn, commerce, active_done;
    bool guard_again;                               /* a Sword or Common power came fresh in the magic
                                                     * phase: the guard window opens again (settle) */
    uint8_t commerce_type;
} rabohnzel;

static int active(const rabohnzel *g) { return g->b.active; }
static bool in_attack(const rabohnzel *g) { return g->attacker != BEAN_NOBODY; }
static int hand_len(const rabohnzel *g, int seat) { return bean_hand_len(&g->b, seat); }
static int coins(const rabohnzel *g, int seat) { return bean_coins(&g->b, seat); }
static const uint8_t *hand(const rabohnzel *g, int seat) { return bean_zone(&g->b, BEAN_ZONE_HAND(seat)); }
static int field_size(const rabohnzel *g, int seat, int f) { return bean_field_size(&g->b, seat, f); }
static int field_type(const rabohnzel *g, int seat, int f) { return bean_field_type(&g->b, seat, f); }
static uint8_t all_seats(const rabohnzel *g) { return (uint8_t)((1u << g->b.players) - 1); }

/* ==================================================================== spells: where each card lies */

/* The seat whose row or luck slot holds spell s (the row's index in *at; -1 in the luck slot), or -1
 * when it lies in the pile. */
static int spell_owner(const rabohnzel *g, int s, int *at) {
    for (int p = 0; p < g->b.players; p++) {
        for (int i = 0; i < g->row_n[p]; i++)
            if (g->row[p][i] == s) return *at = i, p;
        if (g->luck[p] == s) return *at = -1, p;
    }
    return *at = -1, -1;
}

static bool holds_active(const rabohnzel *g, int seat, int s) {
    int at;
    return g->up[s] && spell_owner(g, s, &at) == seat;
}

/* The spells a seat holds face up (its row and luck slot), a bit each: holds_active for every spell
 * at once. */
static unsigned active_spells(const rabohnzel *g, int seat) {
    unsigned held = 0;
    for (int i = 0; i < g->row_n[seat]; i++)
        if (g->up[g->row[seat][i]]) held |= 1u << g->row[seat][i];
    if (g->luck[seat] != NO_SPELL && g->up[g->luck[seat]]) held |= 1u << g->luck[seat];
    return held;
}

/* Some spell lies face up, anywhere: up[] read as two words, not spell by spell. */
static bool any_spell_up(const rabohnzel *g) {
    _Static_assert(sizeof g->up == NUM_SPELLS && NUM_SPELLS == 11, "up[] is read as 8 bytes and 3");
    uint64_t first;
    memcpy(&first, g->up, sizeof first);
    return first || g->up[8] || g->up[9] || g->up[10];
}

/* bean_field lends one field more, while its last one is not there and the state has room for it. */
static bool lends_field(const rabohnzel *g, int seat) {
    return !g->b.third_field[seat] && g->b.fields[seat] < BEAN_MAX_FIELDS;
}

/* Face-down spells a seat could activate, in row order, then the luck slot's. */
static int face_down_spells(const rabohnzel *g, int seat, uint8_t *out) {
    int n = 0;
    for (int i = 0; i < g->row_n[seat]; i++)
        if (!g->up[g->row[seat][i]]) out[n++] = g->row[seat][i];
    if (g->luck[seat] != NO_SPELL && !g->up[g->luck[seat]]) out[n++] = g->luck[seat];
    return n;
}

/* Activated: turned face up, for everyone to see. */
static void activate(rabohnzel *g, int s) {
    if (NEVER(s < 0 || s >= NUM_SPELLS)) return; /* no such spell: a write past the spell lists */
    g->up[s] = true;
    g->known[s] = all_seats(g);
    g->dealt[s] = false;
}

static void remove_from_row(rabohnzel *g, int seat, int at) {
    if (NEVER(at < 0 || at >= g->row_n[seat])) return; /* the row's count would go negative */
    memmove(&g->row[seat][at], &g->row[seat][at + 1], (size_t)(g->row_n[seat] - at - 1));
    g->row[seat][--g->row_n[seat]] = 0;
}

static void add_to_row(rabohnzel *g, int seat, int s) {
    if (NEVER(g->row_n[seat] >= NUM_SPELLS)) return; /* every spell is in one place: a row never fills */
    g->row[seat][g->row_n[seat]++] = (uint8_t)s;
}

/* The pile takes a card back and is shuffled: nobody knows its order, but whoever knew the card's
 * name now knows it lies in the pile (for a pile card, `known` holds the seats that know it is there). */
static void return_to_pile(rabohnzel *g, int s) {
    if (NEVER(g->pile_n >= NUM_SPELLS)) return; /* the pile cannot hold every spell and one more */
    g->pile[g->pile_n++] = (uint8_t)s;
    g->up[s] = false;
    g->dealt[s] = false;
    rng_shuffle_bytes(&g->b.rng, g->pile, g->pile_n);
}

/* The Cape bonus: the pile's top spell, face down, seen only by its new owner. The others no longer
 * know which of the cards they knew in the pile is still there. */
static void draw_spell(rabohnzel *g, int seat) {
    if (!g->pile_n) return;
    int s = g->pile[--g->pile_n];
    g->pile[g->pile_n] = 0;
    add_to_row(g, seat, s);
    g->up[s] = false;
    g->known[s] = (uint8_t)(1u << seat);
    for (int i = 0; i < g->pile_n; i++) g->known[g->pile[i]] &= (uint8_t)(1u << seat);
}

/* The end of a seat's turn: its active spells turn face down; the luck slot's card goes back. */
static void spells_end_turn(rabohnzel *g, int seat) {
    for (int i = 0; i < g->row_n[seat]; i++) g->up[g->row[seat][i]] = false;
    if (g->luck[seat] != NO_SPELL) {
        int s = g->luck[seat];
        g->luck[seat] = NO_SPELL;
        return_to_pile(g, s);
    }
}

/* Pfennig: the values of the spells in the row (the luck slot's card is borrowed). */
static int pfennig(const rabohnzel *g, int seat) {
    int pf = 0;
    for (int i = 0; i < g->row_n[seat]; i++) pf += spells[g->row[seat][i]].value;
    return pf;
}

/* ==================================================================== setup and the countdown */

static void settle(void *st);

/* A position is a decision: settling it again changes nothing. */
static bool settled_already(const rabohnzel *g) { return bean_settled_already(&rabohnzel_beans, g); }

/* The spells are shuffled and one dealt to each player; the highest value starts, shows its card,
 * and everyone then knows each other dealt card is worth less. */
static int deal_spells(rabohnzel *g) {
    uint8_t order[NUM_SPELLS];
    for (int s = 0; s < NUM_SPELLS; s++) order[s] = (uint8_t)s;
    rng_shuffle_bytes(&g->b.rng, order, NUM_SPELLS);
    int start = 0;
    for (int p = 0; p < g->b.players; p++) {
        int s = order[p];
        add_to_row(g, p, s);
        g->known[s] = (uint8_t)(1u << p);
        g->dealt[s] = true;
        if (spells[s].value > spells[g->row[start][0]].value) start = p;
    }
    for (int i = NUM_SPELLS - 1; i >= g->b.players; i--) g->pile[g->pile_n++] = order[i];
    int shown = g->row[start][0];
    g->known[shown] = all_seats(g);
    g->dealt[shown] = false;
    g->countdown = (uint8_t)shown;
    return start;
}

static void reset_turn(rabohnzel *g) {
    g->sub = SUB_NONE;
    g->sub_seat = g->pending_owner = BEAN_NOBODY;
    g->attacker = g->defender = BEAN_NOBODY;
    g->placing = PLACE_NONE;
    g->river = g->drawn = g->commerce = g->active_done = g->aggression = false;
    g->draws = 0;
    memset(g->power, 0, sizeof g->power);
}

static void rabohnzel_setup(void *st, int players, const param_value *params, uint64_t seed) {
    rabohnzel *g = st;
    bean_rules brules;
    memset(g, 0, sizeof *g);
    bean_rules_from(&rabohnzel_beans, params, players, &brules);
    rab_rules_from(params, &g->rules);
    bean_setup(&rabohnzel_beans, &g->b, players, &brules, seed);
    memset(g->luck, NO_SPELL, sizeof g->luck);
    reset_turn(g);
    int start = deal_spells(g);
    g->b.start = g->b.active = (uint8_t)start;
    settle(g);
}

/* ==================================================================== harvest, the Cape bonus, the temporary field */

/* A harvest: the core's payout; the field's power is gone; a Cape field of 2+ cards draws a spell;
 * and a bean_field third field disappears at its owner's next harvest (the fields close ranks). */
static void harvest(rabohnzel *g, int seat, int field, bool final) {
    if (NEVER(field < 0 || field >= BEAN_MAX_FIELDS)) return; /* another seat's field and powers */
    int type = field_type(g, seat, field), size = field_size(g, seat, field);
    bean_harvest(&g->b, seat, field);
    g->power[seat][field] = 0;
    if (type == CAPE && size >= 2 && (!final || g->rules.cape_final_harvest)) draw_spell(g, seat);
    if (!final && g->b.third_field[seat]) {
        int order[BEAN_MAX_FIELDS];
        uint8_t power[BEAN_MAX_FIELDS];
        bean_compact_fields(&g->b, seat, order);
        for (int f = 0; f < BEAN_MAX_FIELDS; f++) power[f] = g->power[seat][order[f]];
        memcpy(g->power[seat], power, sizeof power);
        g->b.third_field[seat] = false;
        g->b.fields[seat] = g->b.rules.fields;
    }
}

/* A bean planted: onto an empty field of the active player in the magic phase it brings the field's
 * power, fresh — except a Pluck coin's card. */
static void plant(rabohnzel *g, int seat, int zone, int index, int field, bool fresh) {
    bool empty = field_size(g, seat, field) == 0;
    bean_plant(&g->b, seat, zone, index, field);
    int type = field_type(g, seat, field);
    if (fresh && empty && seat == active(g) && g->b.phase == PHASE_MAGIC && has_power(type)) {
        g->power[seat][field] = (uint8_t)fresh_power(type, 1);
        g->guard_again |= type == SWORD || type == COMMON; /* phase 1½ step 3 */
    }
}

/* ==================================================================== the turn
 *
 * Decisions, and the automatic steps between them (settle). A main decision of the active player
 * (phase 1, the magic phase, trading, the active player's phase 3, after the draw) is where spells
 * are used, powers applied and beans cast; one with nothing left but `done` (and harvests) ends by
 * itself, as Bohnanza's turn does. */

static int spell_uses(const rabohnzel *g, action_t *out, int n);
static int magic_actions(const rabohnzel *g, action_t *out, int n);
static int power_actions(const rabohnzel *g, const uint8_t *down, int n_down, action_t *out, int n);
static const uint8_t *first_magic(const rabohnzel *g);

static bool attack_open(const rabohnzel *g) { return in_attack(g) || g->sub != SUB_NONE; }

/* The active player's part of phase 3 is open (before `done`), or phase 4's draw is made. */
static bool at_main(const rabohnzel *g) {
    int phase = g->b.phase;
    if (phase == BEAN_OVER || attack_open(g) || bean_trading_now(&g->b)) return false;
    if (phase == BEAN_PLANT_TRADED) return !g->active_done;
    if (phase == PHASE_DRAW) return g->drawn;
    return true;
}

static int count_spell_uses(const rabohnzel *g) {
    action_t acts[MEEPLE_MAX_ACTIONS];
    return at_main(g) ? spell_uses(g, acts, 0) : 0;
}

/* A running river is a decision until its player ends it (stop, or done), even with an empty hand
 * (the digest's card river scenario: no trading before `stop`). */
static bool river_open(const rabohnzel *g) { return g->river; }

static bool phase1_open(const rabohnzel *g) {
    int in_hand = hand_len(g, active(g));
    if (in_hand == 0 && g->b.planted == 0) return false; /* an empty hand skips phase 1 */
    return (in_hand > 0 && g->b.planted < 2) || river_open(g) || count_spell_uses(g) > 0;
}

/* magic_actions lists something, asked part by part: a cast needs only a face-down spell and a Magic
 * Bean in hand, and a running river covers the front plantings. Its parts restate magic_actions', so
 * the Debug build holds it to what it was, river_open or a list, at every call. */
static bool magic_open(const rabohnzel *g) {
    action_t acts[MEEPLE_MAX_ACTIONS];
    uint8_t down[NUM_SPELLS];
    int n_down = face_down_spells(g, active(g), down);
    bool open = river_open(g) || power_actions(g, down, n_down, acts, 0) > 0 || (n_down && first_magic(g)) ||
                spell_uses(g, acts, 0) > 0;
    assert(open == (river_open(g) || magic_actions(g, acts, 0) > 0));
    return open;
}

static bool active_part_open(const rabohnzel *g) {
    return bean_to_plant(&g->b, active(g)) > 0 || river_open(g) || count_spell_uses(g) > 0;
}

/* The phase-4 choice between drawing 3 and using hand_cards: only when nothing was traded. */
static bool draw_choice(const rabohnzel *g) {
    return !g->drawn && holds_active(g, active(g), HAND_CARDS) && !g->b.traded;
}

/* ---- from phase to phase ---- */

static void begin_turn(rabohnzel *g, int seat) {
    g->b.active = (uint8_t)seat;
    g->b.phase = BEAN_PLANT;
    g->b.planted = g->b.trade_steps = 0;
    g->b.traded = false;
    if (g->b.turn < 60000) g->b.turn++; /* stops at its table's bound, never past it nor wrapping */
    reset_turn(g);
}

/* The end: the luck card goes back; every field is harvested, clockwise from the player whose turn
 * it was (Cape bonuses and all, ruling 20); score = 100 x taler + pfennig. */
static void end_game(rabohnzel *g) {
    spells_end_turn(g, active(g));
    for (int i = 0; i < g->b.players; i++) {
        int seat = (active(g) + i) % g->b.players;
        for (int f = 0; f < g->b.fields[seat]; f++)
            if (field_size(g, seat, f)) harvest(g, seat, f, true);
    }
    reset_turn(g);
    g->b.phase = BEAN_OVER;
    g->b.to_move = BEAN_NOBODY;
}

static void end_turn(rabohnzel *g) {
    spells_end_turn(g, active(g));
    begin_turn(g, bean_next_seat(&g->b, active(g)));
}

/* The first seat from `from` on, clockwise and before the active player, that may harvest. */
static int next_guard(const rabohnzel *g, int from) {
    for (int seat = from; seat != active(g); seat = bean_next_seat(&g->b, seat))
        for (int f = 0; f < g->b.fields[seat]; f++)
            if (bean_harvest_check(&rabohnzel_beans, &g->b, seat, f, NULL)) return seat;
    return -1;
}

static bool has_field_of(const rabohnzel *g, int seat, int type) {
    for (int f = 0; f < g->b.fields[seat]; f++)
        if (field_type(g, seat, f) == type) return true;
    return false;
}

static void enter_trade(rabohnzel *g);

/* The guard window (phase 1½ step 3): while the active player has a Sword or Common field, every other
 * player who may harvest decides first, clockwise from the active player's left. */
static bool open_guard(rabohnzel *g) {
    int a = active(g);
    g->guard_again = false;
    if (!g->rules.guard_window || !(has_field_of(g, a, SWORD) || has_field_of(g, a, COMMON))) return false;
    int guard = next_guard(g, bean_next_seat(&g->b, a));
    if (guard < 0) return false;
    g->sub = SUB_GUARD, g->sub_seat = (uint8_t)guard;
    return true;
}

/* Phase 1½: each field of a power type gets its power; the phase (guard window too) is skipped when
 * the active player has no such field, cannot cast and holds no spell usable now. */
static void enter_magic(rabohnzel *g) {
    int a = active(g);
    bool power_field = false;
    g->b.phase = PHASE_MAGIC;
    g->river = false;
    for (int f = 0; f < g->b.fields[a]; f++) {
        int type = field_type(g, a, f);
        g->power[a][f] = (uint8_t)fresh_power(type, field_size(g, a, f));
        power_field |= g->power[a][f] > 0;
    }
    if (!power_field && !magic_open(g)) {
        enter_trade(g);
        return;
    }
    open_guard(g);
}

/* Phase 2: the powers are gone; the top cards are turned up (none if the deck ran out in 1½). */
static void enter_trade(rabohnzel *g) {
    memset(g->power, 0, sizeof g->power);
    g->river = false;
    g->b.phase = BEAN_TRADE;
    for (int i = 0; i < g->b.rules.reveal && bean_draw(&g->b, BEAN_ZONE_FACE_UP); i++) continue;
}

/* Phase 4: draw to the back of the hand; a last pass running out ends the game at once (and is
 * not marked: last_pass_over is a run-out before phase 4, whose turn still ends). */
static void draw_cards(rabohnzel *g, int count) {
    for (int i = 0; i < count && !g->b.last_pass_over; i++) bean_draw(&g->b, BEAN_ZONE_HAND(active(g)));
    g->drawn = true;
    if (!g->b.last_pass_over) return;
    g->b.last_pass_over = false;
    end_game(g);
}

/* The commerce card is the last face-up card while one of its type is there (cards taken go from the
 * front, deck-spell cards go before it). */
static void track_commerce(rabohnzel *g) {
    if (g->commerce && !bean_count_in(&g->b, BEAN_ZONE_FACE_UP, g->commerce_type)) g->commerce = false;
}

static int decider(const rabohnzel *g) {
    if (g->sub == SUB_NONE) { /* most decisions, trading's above all: asked first */
        if (g->b.phase == BEAN_TRADE) return bean_trade_mover(&g->b);
        if (g->b.phase == BEAN_PLANT_TRADED && g->active_done) return bean_next_planter(&g->b, bean_next_seat(&g->b, active(g)));
        return active(g);
    }
    switch (g->sub) {
    case SUB_PENDING: return g->pending_owner;
    case SUB_CHOOSE: case SUB_ACTIVATE: return g->attacker;
    case SUB_GUARD: case SUB_ENCHANT: return g->sub_seat;
    default: return active(g);
    }
}

static void settle(void *st) {
    rabohnzel *g = st;
    for (;;) {
        int phase = g->b.phase;
        track_commerce(g);
        if (phase == BEAN_OVER) {
            g->b.to_move = BEAN_NOBODY;
            return;
        }
        if (attack_open(g)) break;
        if (phase == BEAN_TRADE) { /* the most frequent phase first */
            bean_trade_settle(&g->b);
            if (g->b.phase == BEAN_TRADE) break;
            g->river = false;
            continue;
        }
        if (phase == BEAN_PLANT) {
            if (phase1_open(g)) break;
            enter_magic(g);
            continue;
        }
        if (phase == PHASE_MAGIC) {
            /* a Sword or Common power gained since the last window: no attack or purge before the
             * others had a chance to harvest (phase 1½ step 3) */
            if (g->guard_again && open_guard(g)) break;
            if (magic_open(g)) break;
            enter_trade(g);
            continue;
        }
        if (phase == BEAN_PLANT_TRADED) {
            if (!g->active_done && active_part_open(g)) break;
            g->active_done = true;
            g->river = false;
            if (bean_next_planter(&g->b, bean_next_seat(&g->b, active(g))) >= 0) break;
            if (g->b.last_pass_over) {
                end_game(g);
                continue;
            }
            g->b.phase = PHASE_DRAW;
            g->drawn = false;
            continue;
        }
        /* phase 4 */
        if (draw_choice(g)) break;
        if (!g->drawn) {
            draw_cards(g, g->b.rules.draw);
            continue;
        }
        if (river_open(g) || count_spell_uses(g) > 0) break;
        end_turn(g);
    }
    g->b.to_move = (uint8_t)decider(g);
}

/* ==================================================================== actions */

/* Rabohnzel's actions after the core's: x, y, z as beans.h packs them. */
enum {
    ACT_KEEP = BEAN_ACTS, /* the pending card to the back of the hand */
    ACT_PLUCK,            /* x seat, y field */
    ACT_WISE,             /* y field */
    ACT_COMMON,           /* y field */
    ACT_MAGIC,            /* x spell, y field */
    ACT_SWORD,            /* x seat, y field, z 1 with aggression */
    ACT_CHOOSE,           /* x bean */
    ACT_ACTIVATE,         /* x spell */
    ACT_ACTIVATE_NONE,
    ACT_CAST,             /* x spell, y hand position of the Magic Bean */
    ACT_USE,              /* x spell; card_exchange: y seat, z row position */
    ACT_PLACE_UP,
    ACT_PLACE_DOWN,
    ACT_STOP,
    ACT_ENCHANT,          /* x bean, y field */
    ACT_DISCARD,          /* x bean */
    ACT_SKIP,
    ACT_ORDER,            /* x bean */
    ACT_DRAW,
    RAB_ACTS
};

static action_t act(int kind, int x, int y, int z) { return bean_action(kind, x, y, z); }

/* ---- the bean powers (the active player, magic phase, once per field) ---- */

static bool common_ready(const rabohnzel *g, int field) {
    int size = field_size(g, active(g), field);
    return size >= 4 || (size >= 1 && holds_active(g, active(g), AGGRESSION));
}

static bool others_have_coins(const rabohnzel *g) {
    for (int p = 0; p < g->b.players; p++)
        if (p != active(g) && coins(g, p)) return true;
    return false;
}


/* Each power only while it can act: a target, the threshold met (ruling 8). down[0..n_down): the
 * active player's face-down spells (face_down_spells). */
static int power_actions(const rabohnzel *g, const uint8_t *down, int n_down, action_t *out, int n) {
    int a = active(g);
    for (int f = 0; f < g->b.fields[a]; f++) {
        if (!g->power[a][f] || !field_size(g, a, f)) continue;
        switch (field_type(g, a, f)) {
        case PLUCK:
            for (int i = 1; i < g->b.players; i++) {
                int seat = (a + i) % g->b.players;
                if (hand_len(g, seat)) out[n++] = act(ACT_PLUCK, seat, f, 0);
            }
            break;
        case WISE:
            if (bean_zone_len(&g->b, BEAN_ZONE_DECK)) out[n++] = act(ACT_WISE, 0, f, 0);
            break;
        case COMMON:
            if (common_ready(g, f) && others_have_coins(g)) out[n++] = act(ACT_COMMON, 0, f, 0);
            break;
        case MAGIC:
            for (int i = 0; i < n_down; i++) out[n++] = act(ACT_MAGIC, down[i], f, 0);
            break;
        case SWORD:
            for (int i = 1; i < g->b.players; i++) {
                int seat = (a + i) % g->b.players;
                if (!coins(g, seat)) continue;
                out[n++] = act(ACT_SWORD, seat, f, 0);
                if (holds_active(g, a, AGGRESSION)) out[n++] = act(ACT_SWORD, seat, f, 1);
            }
            break;
        }
    }
    return n;
}

/* A hand position stands for its run of identical cards: the frontmost is named. A shown copy and a
 * hidden twin are not identical: spending one or the other leaves the others knowing different things. */
static bool run_front(const rabohnzel *g, int seat, int k) { return k == 0 || !bean_same_card(&g->b, seat, k - 1, k); }

/* The first Magic Bean in the active player's hand, or NULL: one to cast. */
static const uint8_t *first_magic(const rabohnzel *g) {
    int a = active(g), len = hand_len(g, a);
    return len ? memchr(hand(g, a), MAGIC, (size_t)len) : NULL;
}

/* Cast: a Magic Bean from the hand (each distinct place) for each face-down spell. */
static int cast_actions(const rabohnzel *g, const uint8_t *down, int n_down, action_t *out, int n) {
    int a = active(g);
    const uint8_t *cards = hand(g, a), *magic = n_down ? first_magic(g) : NULL;
    for (int k = magic ? (int)(magic - cards) : hand_len(g, a); k < hand_len(g, a); k++)
        if (cards[k] == MAGIC && run_front(g, a, k))
            for (int i = 0; i < n_down; i++) out[n++] = act(ACT_CAST, down[i], k, 0);
    return n;
}

/* The front hand card onto each field it fits: phase 1, the river, player_enchantment. */
static int front_plants(const rabohnzel *g, int seat, action_t *out, int n) {
    if (!hand_len(g, seat)) return n;
    unsigned fits = bean_fitting_fields(&g->b, seat, hand(g, seat)[0]);
    for (int f = 0; fits >> f; f++) /* field order */
        if (fits >> f & 1) out[n++] = act(BEAN_ACT_PLANT, f, 0, 0);
    return n;
}

static int enchant_actions(const rabohnzel *g, action_t *out, int n) {
    int a = active(g);
    for (int t = 0; t < NUM_TYPES; t++) {
        if (!bean_count_in(&g->b, BEAN_ZONE_SET_ASIDE(a), t) && !bean_count_in(&g->b, BEAN_ZONE_FACE_UP, t)) continue;
        for (int f = 0; f < g->b.fields[a]; f++)
            if (field_size(g, a, f) == 1 && field_type(g, a, f) != t) out[n++] = act(ACT_ENCHANT, t, f, 0);
    }
    return n;
}

/* The spells the active player may use at this main decision. The river allows nothing but its
 * plants, harvests and `stop` outside the magic phase. */
static int spell_uses(const rabohnzel *g, action_t *out, int n) {
    int a = active(g), phase = g->b.phase;
    if (g->river && phase != PHASE_MAGIC) return n;
    if (!any_spell_up(g)) return n; /* most decisions: no spell is face up */
    unsigned held = active_spells(g, a);
    if (!held) return n;
    if (held >> CARD_EXCHANGE & 1)
        for (int i = 1; i < g->b.players; i++) {
            int seat = (a + i) % g->b.players;
            for (int k = 0; k < g->row_n[seat]; k++) out[n++] = act(ACT_USE, CARD_EXCHANGE, seat, k);
        }
    if ((held >> CARD_RIVER & 1) && !g->river) out[n++] = act(ACT_USE, CARD_RIVER, 0, 0);
    if (held >> PLAYER_ENCHANTMENT & 1) out[n++] = act(ACT_USE, PLAYER_ENCHANTMENT, 0, 0);
    if ((held >> RELOCATION & 1) && hand_len(g, a) >= 2) out[n++] = act(ACT_USE, RELOCATION, 0, 0);
    if ((held >> LUCK & 1) && g->pile_n && g->luck[a] == NO_SPELL) out[n++] = act(ACT_USE, LUCK, 0, 0);
    int face_up = bean_zone_len(&g->b, BEAN_ZONE_FACE_UP);
    if (phase == BEAN_TRADE && face_up < BEAN_MAX_FACE_UP) {
        if ((held >> COMMERCE & 1) && !g->b.trade_steps && !g->commerce && bean_zone_len(&g->b, BEAN_ZONE_DECK))
            out[n++] = act(ACT_USE, COMMERCE, 0, 0);
        if ((held >> DECK_SPELL & 1) && bean_zone_len(&g->b, BEAN_ZONE_DISCARD)) out[n++] = act(ACT_USE, DECK_SPELL, 0, 0);
    }
    if (phase == BEAN_PLANT_TRADED) {
        if ((held >> BEAN_FIELD & 1) && lends_field(g, a)) out[n++] = act(ACT_USE, BEAN_FIELD, 0, 0);
        if (held >> BEAN_ENCHANTMENT & 1) n = enchant_actions(g, out, n);
    }
    return n;
}

/* Everything the active player can do in the magic phase but harvest and `done`. */
static int magic_actions(const rabohnzel *g, action_t *out, int n) {
    uint8_t down[NUM_SPELLS];
    int n_down = face_down_spells(g, active(g), down);
    if (g->river) n = front_plants(g, active(g), out, n);
    n = power_actions(g, down, n_down, out, n);
    n = cast_actions(g, down, n_down, out, n);
    return spell_uses(g, out, n);
}

/* ---- the legal actions of the decision open ---- */

/* Harvests are free actions of whoever decides, but for the two players of a Sword attack. */
static int harvests(const rabohnzel *g, int seat, action_t *out, int n) {
    if (in_attack(g) && (seat == g->attacker || seat == g->defender)) return n;
    return bean_harvest_legal(&g->b, seat, out, n);
}

static int pending_type(const rabohnzel *g) { return bean_zone_top(&g->b, BEAN_ZONE_PENDING); }

static int sub_legal(const rabohnzel *g, action_t *out, int n) {
    int seat = decider(g);
    switch (g->sub) {
    case SUB_PENDING:
        out[n++] = act(ACT_KEEP, 0, 0, 0);
        for (int f = 0; f < g->b.fields[seat]; f++)
            if (bean_fits(&g->b, seat, pending_type(g), f)) out[n++] = act(BEAN_ACT_PLANT, f, 0, 0);
        break;
    case SUB_CHOOSE: {
        const uint8_t *pile = bean_zone(&g->b, BEAN_ZONE_COINS(g->defender));
        int first = pile[g->drawn_coin[0]], second = pile[g->drawn_coin[1]];
        out[n++] = act(ACT_CHOOSE, first, 0, 0);
        if (second != first) out[n++] = act(ACT_CHOOSE, second, 0, 0);
        break;
    }
    case SUB_ACTIVATE: {
        uint8_t down[NUM_SPELLS];
        int n_down = face_down_spells(g, seat, down);
        for (int i = 0; i < n_down; i++) out[n++] = act(ACT_ACTIVATE, down[i], 0, 0);
        out[n++] = act(ACT_ACTIVATE_NONE, 0, 0, 0);
        break;
    }
    case SUB_GUARD:
        n = harvests(g, seat, out, n);
        out[n++] = act(BEAN_ACT_PASS, 0, 0, 0);
        return n;
    case SUB_ENCHANT:
        n = front_plants(g, seat, out, n);
        if (seat == active(g)) out[n++] = act(ACT_SKIP, 0, 0, 0);
        break;
    case SUB_RELOCATE: {
        bool listed[NUM_TYPES] = {false};
        for (int k = g->relocated; k < hand_len(g, seat); k++) {
            int t = hand(g, seat)[k];
            if (!listed[t]) out[n++] = act(ACT_ORDER, t, 0, 0), listed[t] = true;
        }
        break;
    }
    case SUB_PLACE:
        out[n++] = act(ACT_PLACE_UP, 0, 0, 0);
        out[n++] = act(ACT_PLACE_DOWN, 0, 0, 0);
        break;
    }
    if (g->sub != SUB_PENDING || g->pending_from != FROM_COIN) n = harvests(g, seat, out, n);
    return n;
}

/* The active player's main decision in each phase: the phase's own actions, spells, harvests, done. */
static int main_legal(const rabohnzel *g, action_t *out, int n) {
    int a = active(g), phase = g->b.phase;
    bool river = g->river;
    switch (phase) {
    case BEAN_PLANT:
        if (g->b.planted < 2 || river) n = front_plants(g, a, out, n);
        n = spell_uses(g, out, n);
        break;
    case PHASE_MAGIC: n = magic_actions(g, out, n); break;
    case BEAN_TRADE:
        if (river) {
            n = front_plants(g, a, out, n);
        } else {
            n = bean_trade_openings(&g->b, out, n);
            n = spell_uses(g, out, n);
        }
        break;
    case BEAN_PLANT_TRADED:
        if (river) {
            n = front_plants(g, a, out, n);
        } else {
            n = bean_plant_type_legal(&g->b, out, n);
            if (g->commerce) out[n++] = act(ACT_DISCARD, g->commerce_type, 0, 0);
            n = spell_uses(g, out, n);
        }
        break;
    case PHASE_DRAW:
        if (river) n = front_plants(g, a, out, n);
        n = spell_uses(g, out, n);
        break;
    }
    if (river) out[n++] = act(ACT_STOP, 0, 0, 0);
    n = harvests(g, a, out, n);
    bool done = phase == BEAN_PLANT ? g->b.planted >= 1 || !hand_len(g, a)
                : phase == BEAN_PLANT_TRADED ? !bean_to_plant(&g->b, a) : true;
    if (done) out[n++] = act(BEAN_ACT_DONE, 0, 0, 0);
    return n;
}

/* Every decision but one inside trading's protocol: out of line, so that the main decision's and the
 * sub-decisions' registers and arrays cost trading (most decisions) nothing. */
static NOT_INLINED int legal_own(const rabohnzel *g, action_t *out) {
    int n = 0;
    if (g->b.phase == BEAN_OVER) return 0;
    if (attack_open(g)) return sub_legal(g, out, n);
    if (at_main(g)) return main_legal(g, out, n);
    if (g->b.phase == PHASE_DRAW) { /* the choice before drawing */
        out[n++] = act(ACT_DRAW, 0, 0, 0);
        out[n++] = act(ACT_USE, HAND_CARDS, 0, 0);
        return harvests(g, active(g), out, n);
    }
    if (g->b.phase == BEAN_TRADE) n = bean_trade_legal(&g->b, out, n); /* a deal or an invitation */
    else n = bean_plant_type_legal(&g->b, out, n);                     /* another player's phase 3 */
    return harvests(g, g->b.to_move, out, n);
}

static int rabohnzel_legal(const void *st, action_t *out) {
    const rabohnzel *g = st;
    if (g->b.phase != BEAN_OVER && !attack_open(g) && bean_trading_now(&g->b)) /* a deal or an invitation */
        return harvests(g, g->b.to_move, out, bean_trade_legal(&g->b, out, 0));
    return legal_own(g, out);
}

/* ==================================================================== effects */

/* ---- the Sword attack ---- */

static void attack_end(rabohnzel *g) {
    g->attacker = g->defender = BEAN_NOBODY;
    g->draws = 0;
    g->aggression = false;
    if (g->sub == SUB_CHOOSE || g->sub == SUB_ACTIVATE) g->sub = SUB_NONE;
}

static bool only_swords(const rabohnzel *g, int seat) {
    return bean_count_in(&g->b, BEAN_ZONE_COINS(seat), SWORD) == coins(g, seat);
}

/* One drawn coin decides (the digest's step 2). */
static void attack_resolve(rabohnzel *g, int pos) {
    int x = g->attacker, y = g->defender, type = bean_zone(&g->b, BEAN_ZONE_COINS(y))[pos];
    g->draws++;
    g->aggression = false;
    switch (type) {
    case PRINCESS: /* the princess is freed: the coin goes to the attacker */
        bean_move(&g->b, BEAN_ZONE_COINS(y), pos, BEAN_ZONE_COINS(x), coins(g, x));
        attack_end(g);
        return;
    case SWORD: /* a counterattack, unless nothing could ever change (ruling) */
        if (only_swords(g, x) && only_swords(g, y)) {
            attack_end(g);
            return;
        }
        g->attacker = (uint8_t)y;
        g->defender = (uint8_t)x;
        return;
    case PLUCK: /* the defender takes the attacker's back card, shown; no power for its field */
        if (!hand_len(g, x)) {
            attack_end(g);
            return;
        }
        bean_move(&g->b, BEAN_ZONE_HAND(x), hand_len(g, x) - 1, BEAN_ZONE_PENDING, 0);
        g->sub = SUB_PENDING;
        g->pending_owner = (uint8_t)y;
        g->pending_from = FROM_COIN;
        return;
    case MAGIC: { /* the attacker may activate a spell */
        uint8_t down[NUM_SPELLS];
        if (face_down_spells(g, x, down)) g->sub = SUB_ACTIVATE;
        else attack_end(g);
        return;
    }
    }
    attack_end(g);
}

/* Draws coins until a decision or the end: one at random (two, the first time, with aggression). */
static void attack_run(rabohnzel *g) {
    while (in_attack(g) && g->sub == SUB_NONE) {
        int y = g->defender, n = coins(g, y);
        if (!n || g->draws >= g->rules.sword_chain_max) {
            attack_end(g);
            return;
        }
        if (g->aggression && n >= 2) {
            g->drawn_coin[0] = (uint8_t)rng_below(&g->b.rng, (uint32_t)n);
            g->drawn_coin[1] = (uint8_t)((g->drawn_coin[0] + 1 + rng_below(&g->b.rng, (uint32_t)n - 1)) % n);
            g->sub = SUB_CHOOSE;
            return;
        }
        attack_resolve(g, (int)rng_below(&g->b.rng, (uint32_t)n));
    }
}

static void choose_coin(rabohnzel *g, int type) {
    const uint8_t *pile = bean_zone(&g->b, BEAN_ZONE_COINS(g->defender));
    int pos = pile[g->drawn_coin[0]] == type ? g->drawn_coin[0] : g->drawn_coin[1];
    g->sub = SUB_NONE;
    attack_resolve(g, pos);
    attack_run(g);
}

/* ---- the powers ---- */

/* Common: a coin of each other player with coins, at random; those of the highest number go back,
 * the others onto the discard pile in seat order (a lone coin always goes back). */
static void common_purge(rabohnzel *g) {
    int seat[BEAN_MAX_SEATS], pos[BEAN_MAX_SEATS], n = 0, best = 0;
    for (int i = 1; i < g->b.players; i++) {
        int p = (active(g) + i) % g->b.players;
        if (!coins(g, p)) continue;
        seat[n] = p;
        pos[n] = (int)rng_below(&g->b.rng, (uint32_t)coins(g, p));
        int number = beans[bean_zone(&g->b, BEAN_ZONE_COINS(p))[pos[n]]].cards;
        if (number > best) best = number;
        n++;
    }
    for (int i = 0; i < n; i++)
        if (beans[bean_zone(&g->b, BEAN_ZONE_COINS(seat[i]))[pos[i]]].cards < best)
            bean_move(&g->b, BEAN_ZONE_COINS(seat[i]), pos[i], BEAN_ZONE_DISCARD, bean_zone_len(&g->b, BEAN_ZONE_DISCARD));
}

static void use_power(rabohnzel *g, action_t a) {
    int x = bean_act_x(a), f = bean_act_y(a), me = active(g);
    g->power[me][f]--;
    switch (bean_act_kind(a)) {
    case ACT_PLUCK: { /* the back card (or a random one), shown to all */
        int k = g->rules.pluck_card == PLUCK_RANDOM ? (int)rng_below(&g->b.rng, (uint32_t)hand_len(g, x)) : hand_len(g, x) - 1;
        bean_move(&g->b, BEAN_ZONE_HAND(x), k, BEAN_ZONE_PENDING, 0);
        g->sub = SUB_PENDING, g->pending_owner = (uint8_t)me, g->pending_from = FROM_PLUCK;
        break;
    }
    case ACT_WISE: /* with 4+ Wise Beans the card may be planted; else it joins the hand, unseen */
        if (field_size(g, me, f) >= 4) {
            bean_draw(&g->b, BEAN_ZONE_PENDING);
            g->sub = SUB_PENDING, g->pending_owner = (uint8_t)me, g->pending_from = FROM_WISE;
        } else {
            bean_draw(&g->b, BEAN_ZONE_HAND(me));
        }
        break;
    case ACT_COMMON:
        if (field_size(g, me, f) < 4) g->up[AGGRESSION] = false; /* aggression let it work */
        common_purge(g);
        break;
    case ACT_MAGIC: activate(g, x); break;
    case ACT_SWORD:
        if (bean_act_z(a)) g->up[AGGRESSION] = false;
        g->attacker = (uint8_t)me, g->defender = (uint8_t)x;
        g->aggression = bean_act_z(a) != 0;
        g->draws = 0;
        attack_run(g);
        break;
    }
}

/* The pending card: to the back of its owner's hand (shown, unless Wise drew it), or planted. */
static void settle_pending(rabohnzel *g, action_t a) {
    int owner = g->pending_owner, from = g->pending_from;
    if (bean_act_kind(a) == ACT_KEEP) {
        bean_move(&g->b, BEAN_ZONE_PENDING, 0, BEAN_ZONE_HAND(owner), hand_len(g, owner));
        if (from != FROM_WISE) g->b.shown[bean_zone_start(&g->b, BEAN_ZONE_HAND(owner)) + hand_len(g, owner) - 1] = 1;
    } else {
        plant(g, owner, BEAN_ZONE_PENDING, 0, bean_act_x(a), from != FROM_COIN);
    }
    g->sub = SUB_NONE;
    g->pending_owner = BEAN_NOBODY;
    if (from == FROM_COIN) attack_end(g);
}

/* ---- spells ---- */

/* The spell card_exchange took, waiting to be placed. */
static int placed_spell(const rabohnzel *g) {
    int a = active(g);
    if (g->placing == PLACE_LUCK) return g->luck[a];
    return g->placing == PLACE_ROW && g->row_n[a] ? g->row[a][g->row_n[a] - 1] : NO_SPELL;
}

/* card_exchange: this card goes face down to N, known to all; the spell at N's position K comes to
 * the active player (into the luck slot when card_exchange itself came from it) to be placed. */
static void exchange(rabohnzel *g, int seat, int k) {
    int me = active(g), at, taken = g->row[seat][k];
    bool from_luck = g->luck[me] == CARD_EXCHANGE;
    if (from_luck) g->luck[me] = NO_SPELL;
    else spell_owner(g, CARD_EXCHANGE, &at), remove_from_row(g, me, at);
    remove_from_row(g, seat, k);
    add_to_row(g, seat, CARD_EXCHANGE);
    g->up[CARD_EXCHANGE] = false;
    g->known[CARD_EXCHANGE] = all_seats(g);
    g->dealt[CARD_EXCHANGE] = false;
    if (from_luck) g->luck[me] = (uint8_t)taken;
    else add_to_row(g, me, taken);
    g->known[taken] = g->up[taken] ? all_seats(g) : (uint8_t)(g->known[taken] | 1u << me | 1u << seat);
    g->up[taken] = false;
    g->dealt[taken] = false;
    g->sub = SUB_PLACE;
    g->placing = from_luck ? PLACE_LUCK : PLACE_ROW;
}

static bool relocation_decided(const rabohnzel *g);

/* The first of the other players with a hand, clockwise from `from`; the active player last. */
static int next_enchanted(const rabohnzel *g, int from) {
    for (int seat = from; seat != active(g); seat = bean_next_seat(&g->b, seat))
        if (hand_len(g, seat)) return seat;
    return active(g);
}

static void use_spell(rabohnzel *g, action_t a) {
    int s = bean_act_x(a), me = active(g);
    g->up[s] = false; /* used: face down, to be activated again some day */
    switch (s) {
    case CARD_EXCHANGE: exchange(g, bean_act_y(a), bean_act_z(a)); break;
    case CARD_RIVER: g->river = true; break;
    case PLAYER_ENCHANTMENT:
        g->sub = SUB_ENCHANT;
        g->sub_seat = (uint8_t)next_enchanted(g, bean_next_seat(&g->b, me));
        break;
    case RELOCATION: /* what everyone knew of the hand's places is gone */
        memset(g->b.shown + bean_zone_start(&g->b, BEAN_ZONE_HAND(me)), 0, (size_t)hand_len(g, me));
        g->relocated = 0;
        g->sub = relocation_decided(g) ? SUB_NONE : SUB_RELOCATE;
        break;
    case LUCK: {
        int drawn = g->pile[--g->pile_n];
        g->pile[g->pile_n] = 0;
        g->luck[me] = (uint8_t)drawn;
        activate(g, drawn);
        break;
    }
    case COMMERCE: /* a third face-up card, the commerce card: always the last one */
        bean_draw(&g->b, BEAN_ZONE_FACE_UP);
        g->commerce = true;
        g->commerce_type = (uint8_t)bean_zone_top(&g->b, BEAN_ZONE_FACE_UP);
        break;
    case DECK_SPELL: { /* the discard pile's top joins the face-up cards, before the commerce card */
        int up = bean_zone_len(&g->b, BEAN_ZONE_FACE_UP);
        bean_move(&g->b, BEAN_ZONE_DISCARD, bean_zone_len(&g->b, BEAN_ZONE_DISCARD) - 1, BEAN_ZONE_FACE_UP, g->commerce ? up - 1 : up);
        break;
    }
    case BEAN_FIELD:
        g->b.third_field[me] = true;
        g->b.fields[me]++;
        break;
    case HAND_CARDS: draw_cards(g, g->rules.hand_cards_draw); break;
    }
}

/* bean_enchantment: a B from the set-aside (first) or face-up cards onto a lone bean of another type,
 * which is enchanted: it counts as B but never pays. */
static void enchant(rabohnzel *g, int type, int field) {
    int me = active(g), zone = bean_count_in(&g->b, BEAN_ZONE_SET_ASIDE(me), type) ? BEAN_ZONE_SET_ASIDE(me) : BEAN_ZONE_FACE_UP;
    const uint8_t *cards = bean_zone(&g->b, zone);
    int i = 0, n = bean_zone_len(&g->b, zone);
    while (i < n && cards[i] != type) i++;
    if (NEVER(i == n || field < 0 || field >= BEAN_MAX_FIELDS)) return; /* no such card, or no such field */
    bean_plant(&g->b, me, zone, i, field);
    g->b.enchanted[me][field] = 1;
    g->up[BEAN_ENCHANTMENT] = false;
}

/* relocation: the next card from the front is a B; the rest follows when only one kind is left. */
static void order(rabohnzel *g, int type) {
    int me = active(g), k = g->relocated, n = hand_len(g, me);
    while (k < n && hand(g, me)[k] != type) k++;
    if (NEVER(k == n)) return; /* no such card left to order */
    bean_move(&g->b, BEAN_ZONE_HAND(me), k, BEAN_ZONE_HAND(me), g->relocated);
    g->relocated++;
}

static bool relocation_decided(const rabohnzel *g) {
    const uint8_t *cards = hand(g, active(g));
    for (int k = g->relocated + 1; k < hand_len(g, active(g)); k++)
        if (cards[k] != cards[g->relocated]) return false;
    return true;
}

/* ---- every action's effect ---- */

static void guard_next(rabohnzel *g, int from) {
    int seat = from == active(g) ? -1 : next_guard(g, from);
    if (seat < 0) g->sub = SUB_NONE, g->sub_seat = BEAN_NOBODY;
    else g->sub_seat = (uint8_t)seat;
}

/* `plant F`: the pending card, the next front card under player_enchantment, or the active player's
 * front card (phase 1, the river). */
static void plant_front_or_pending(rabohnzel *g, int field) {
    if (g->sub == SUB_PENDING) {
        settle_pending(g, act(BEAN_ACT_PLANT, field, 0, 0));
        return;
    }
    if (g->sub == SUB_ENCHANT) {
        int seat = g->sub_seat;
        plant(g, seat, BEAN_ZONE_HAND(seat), 0, field, true);
        if (seat == active(g)) g->sub = SUB_NONE, g->sub_seat = BEAN_NOBODY;
        else g->sub_seat = (uint8_t)next_enchanted(g, bean_next_seat(&g->b, seat));
        return;
    }
    plant(g, active(g), BEAN_ZONE_HAND(active(g)), 0, field, true);
    if (g->b.phase == BEAN_PLANT && g->b.planted < 2) g->b.planted++;
}

static void done(rabohnzel *g, action_t a) {
    switch (g->b.phase) {
    case BEAN_PLANT: enter_magic(g); break;
    case PHASE_MAGIC: enter_trade(g); break;
    case BEAN_TRADE:
        bean_trade_apply(&g->b, a);
        g->river = false;
        g->active_done = false;
        break;
    case BEAN_PLANT_TRADED:
        g->active_done = true;
        g->river = false;
        break;
    default: end_turn(g); break;
    }
}

/* Every action but trading's (rabohnzel_apply's hot path): out of line, so that the many cases'
 * registers and arrays cost a trading decision nothing. */
static NOT_INLINED void apply_own(rabohnzel *g, action_t a) {
    int kind = bean_act_kind(a), x = bean_act_x(a), y = bean_act_y(a);
    switch (kind) {
    case BEAN_ACT_HARVEST:
        harvest(g, g->b.to_move, x, false);
        if (g->sub == SUB_GUARD) guard_next(g, g->sub_seat); /* on while a harvest is left to them */
        break;
    case BEAN_ACT_PLANT: plant_front_or_pending(g, x); break;
    case BEAN_ACT_DONE: done(g, a); break;
    case BEAN_ACT_PLANT_TYPE: bean_plant_type(&g->b, x, y); break;
    case BEAN_ACT_PASS:
        if (g->sub == SUB_GUARD) guard_next(g, bean_next_seat(&g->b, g->sub_seat));
        else bean_trade_apply(&g->b, a);
        break;
    case ACT_KEEP: settle_pending(g, a); break;
    case ACT_PLUCK: case ACT_WISE: case ACT_COMMON: case ACT_MAGIC: case ACT_SWORD: use_power(g, a); break;
    case ACT_CHOOSE: choose_coin(g, x); break;
    case ACT_ACTIVATE: activate(g, x); /* fall through */
    case ACT_ACTIVATE_NONE: attack_end(g); break;
    case ACT_CAST: /* a Magic Bean from anywhere in the hand onto the discard pile (ruling 2, 3) */
        bean_move(&g->b, BEAN_ZONE_HAND(active(g)), y, BEAN_ZONE_DISCARD, bean_zone_len(&g->b, BEAN_ZONE_DISCARD));
        activate(g, x);
        break;
    case ACT_USE: use_spell(g, a); break;
    case ACT_PLACE_UP: activate(g, placed_spell(g)); /* fall through */
    case ACT_PLACE_DOWN:
        g->sub = SUB_NONE;
        g->placing = PLACE_NONE;
        break;
    case ACT_STOP: g->river = false; break;
    case ACT_ENCHANT: enchant(g, x, y); break;
    case ACT_DISCARD: /* the commerce card, instead of planting it */
        bean_move(&g->b, BEAN_ZONE_FACE_UP, bean_zone_len(&g->b, BEAN_ZONE_FACE_UP) - 1, BEAN_ZONE_DISCARD,
                  bean_zone_len(&g->b, BEAN_ZONE_DISCARD));
        g->commerce = false;
        break;
    case ACT_SKIP: g->sub = SUB_NONE, g->sub_seat = BEAN_NOBODY; break;
    case ACT_ORDER:
        order(g, x);
        if (relocation_decided(g)) g->sub = SUB_NONE;
        break;
    case ACT_DRAW: draw_cards(g, g->b.rules.draw); break;
    default:
        if (NEVER(kind >= BEAN_ACTS)) return; /* no such action: check() refuses it */
        bean_trade_apply(&g->b, a);
        break;
    }
}

static void rabohnzel_apply(void *st, action_t a) {
    rabohnzel *g = st;
    int kind = bean_act_kind(a);
    if (NEVER(g->b.phase == BEAN_OVER)) return; /* check() refuses every action then */
    /* The trading protocol's own actions (PASS may be the guard window's: apply_own tells) */
    if (kind >= BEAN_ACT_PROPOSE && kind < BEAN_ACTS && kind != BEAN_ACT_PASS) bean_trade_apply(&g->b, a);
    else apply_own(g, a);
    settle(g);
}

/* ==================================================================== checks and reasons
 *
 * check() is the authority: it asks what the decision open now is (a sub-decision, the active
 * player's main decision, the phase-4 choice, a deal or invitation, another player's phase 3), then
 * the rule each action of it must meet, and a refusal names that rule. The legal lists above
 * generate the same actions directly (the hot path); the conformance test holds the two together. */

static const char *spell_name(int s) { return s < NUM_SPELLS ? spells[s].name : "?"; }
static const char *bean_name(int t) { return t < NUM_TYPES ? beans[t].name : "?"; }

/* Every argument an action does not take is 0: one action, one code. */
static bool canonical(action_t a) {
    int kind = bean_act_kind(a), x = bean_act_x(a), y = bean_act_y(a), z = bean_act_z(a);
    if (a >> 30 || kind >= RAB_ACTS) return false;
    switch (kind) {
    case BEAN_ACT_PLANT: case BEAN_ACT_HARVEST: case BEAN_ACT_PROPOSE: case BEAN_ACT_GIVE_UP: case BEAN_ACT_GIVE: case BEAN_ACT_WANT:
    case BEAN_ACT_PICK: case ACT_CHOOSE: case ACT_ACTIVATE: case ACT_DISCARD: case ACT_ORDER:
        return y == 0 && z == 0;
    case BEAN_ACT_PLANT_TYPE: case ACT_PLUCK: case ACT_MAGIC: case ACT_CAST: case ACT_ENCHANT: return z == 0;
    case ACT_WISE: case ACT_COMMON: return x == 0 && z == 0;
    case ACT_SWORD: return z <= 1;
    case ACT_USE: return x == CARD_EXCHANGE || (y == 0 && z == 0);
    }
    return x == 0 && y == 0 && z == 0;
}

static bool own_face_down(const rabohnzel *g, int seat, int s) {
    int at;
    return s < NUM_SPELLS && !g->up[s] && spell_owner(g, s, &at) == seat;
}

/* What a sub-decision asks for. */
static bool deny_sub(const rabohnzel *g, reason *why) {
    int who = g->b.to_move + 1;
    switch (g->sub) {
    case SUB_PENDING:
        return deny(why, "player %d decides about the %s first: keep, or plant F", who,
                    g->pending_from == FROM_WISE ? "drawn card" : bean_name(pending_type(g)));
    case SUB_CHOOSE: return deny(why, "player %d chooses one of the two coins drawn: choose B", who);
    case SUB_ACTIVATE: return deny(why, "player %d answers the Magic coin first: activate S, or activate none", who);
    case SUB_GUARD: return deny(why, "the guard window is open: player %d may harvest F, or pass", who);
    case SUB_ENCHANT:
        return deny(why, "player %d plants their front card first (plant F%s)", who, who - 1 == active(g) ? ", or skip" : "");
    case SUB_RELOCATE: return deny(why, "finish reordering your hand first: order B");
    }
    return deny(why, "place the spell you took first: place up, or place down");
}

/* Harvests are free actions of whoever decides (design choice 2), but for the two players of a Sword
 * attack (the Sword lock) and a card a Pluck coin brought. */
static bool harvest_check(const rabohnzel *g, int field, reason *why) {
    int seat = g->b.to_move;
    if (in_attack(g) && (seat == g->attacker || seat == g->defender))
        return deny(why, "no harvests during a Sword attack: attacker and defender are locked until it ends");
    return bean_harvest_check(&rabohnzel_beans, &g->b, seat, field, why);
}

/* The front hand card of `seat` onto `field`. */
static bool front_plant_check(const rabohnzel *g, int seat, int field, reason *why) {
    if (!hand_len(g, seat)) return deny(why, "your hand is empty: there is no front card to plant");
    return bean_plant_check(&rabohnzel_beans, &g->b, seat, hand(g, seat)[0], field, why);
}

static bool sub_check(const rabohnzel *g, action_t a, reason *why) {
    int kind = bean_act_kind(a), x = bean_act_x(a), seat = decider(g);
    if (kind == BEAN_ACT_HARVEST) {
        if (g->sub == SUB_PENDING && g->pending_from == FROM_COIN)
            return deny(why, "no harvests during a Sword attack: keep the card, or plant it");
        return harvest_check(g, x, why);
    }
    switch (g->sub) {
    case SUB_PENDING:
        if (kind == ACT_KEEP) return true;
        if (kind == BEAN_ACT_PLANT) return bean_plant_check(&rabohnzel_beans, &g->b, seat, pending_type(g), x, why);
        break;
    case SUB_CHOOSE:
        if (kind == ACT_CHOOSE) {
            const uint8_t *pile = bean_zone(&g->b, BEAN_ZONE_COINS(g->defender));
            int first = pile[g->drawn_coin[0]], second = pile[g->drawn_coin[1]];
            return x == first || x == second ||
                   deny(why, "the coins drawn are %s and %s: choose one of them", bean_name(first), bean_name(second));
        }
        break;
    case SUB_ACTIVATE:
        if (kind == ACT_ACTIVATE_NONE) return true;
        if (kind == ACT_ACTIVATE)
            return own_face_down(g, seat, x) ||
                   deny(why, "%s is not one of your face-down spells (only those can be activated)", spell_name(x));
        break;
    case SUB_GUARD:
        if (kind == BEAN_ACT_PASS) return true;
        break;
    case SUB_ENCHANT:
        if (kind == BEAN_ACT_PLANT) return front_plant_check(g, seat, x, why);
        if (kind == ACT_SKIP)
            return seat == active(g) || deny(why, "only the enchanting player may skip; player %d must plant", seat + 1);
        break;
    case SUB_RELOCATE:
        if (kind == ACT_ORDER) {
            for (int k = g->relocated; x < NUM_TYPES && k < hand_len(g, seat); k++)
                if (hand(g, seat)[k] == x) return true;
            return deny(why, "no %s is left in your hand to place next", bean_name(x));
        }
        break;
    case SUB_PLACE:
        if (kind == ACT_PLACE_UP || kind == ACT_PLACE_DOWN) return true;
        break;
    }
    return deny_sub(g, why);
}

/* ---- the active player's main decision ---- */

static const int power_bean[] = {[ACT_PLUCK - ACT_PLUCK] = PLUCK, [ACT_WISE - ACT_PLUCK] = WISE,
                                 [ACT_COMMON - ACT_PLUCK] = COMMON, [ACT_MAGIC - ACT_PLUCK] = MAGIC,
                                 [ACT_SWORD - ACT_PLUCK] = SWORD};

/* A field's power, once per field and phase, only while it can act (ruling 8). */
static bool power_check(const rabohnzel *g, action_t a, reason *why) {
    int kind = bean_act_kind(a), x = bean_act_x(a), f = bean_act_y(a), me = active(g), type = power_bean[kind - ACT_PLUCK];
    if (g->b.phase != PHASE_MAGIC) return deny(why, "bean powers act in the magic phase (phase 1½)");
    if (f >= g->b.fields[me]) return deny(why, "you have %d fields, not %d", g->b.fields[me], f + 1);
    if (field_type(g, me, f) != type) {
        if (!has_field_of(g, me, type)) return deny(why, "you have no %s field: its power needs one", bean_name(type));
        return deny(why, "field %d holds no %s bean", f + 1, bean_name(type));
    }
    if (!g->power[me][f]) {
        if (type == MAGIC && field_size(g, me, f) >= 4)
            return deny(why, "field %d's magic power is used: a second use needs 4 Magic Beans when the phase "
                        "begins (or when planted fresh)", f + 1);
        return deny(why, "field %d's %s power is used (or the field is new this phase)", f + 1, bean_name(type));
    }
    switch (kind) {
    case ACT_PLUCK: case ACT_SWORD:
        if (x == me) return deny(why, "you cannot %s yourself", kind == ACT_PLUCK ? "pluck" : "attack");
        if (x >= g->b.players) return deny(why, "there is no player %d: %d play", x + 1, g->b.players);
        if (kind == ACT_PLUCK) return hand_len(g, x) || deny(why, "player %d has no hand card to take", x + 1);
        if (!coins(g, x)) return deny(why, "player %d has no coins to attack", x + 1);
        return !bean_act_z(a) || holds_active(g, me, AGGRESSION) || deny(why, "your aggression spell is not active");
    case ACT_WISE: return bean_zone_len(&g->b, BEAN_ZONE_DECK) || deny(why, "the deck is empty: Wise has nothing to draw");
    case ACT_COMMON:
        if (!common_ready(g, f))
            return deny(why, "the Common Bean's power needs 4 beans in one field (or an active aggression); field %d "
                        "has %d", f + 1, field_size(g, me, f));
        return others_have_coins(g) || deny(why, "no other player has a coin");
    }
    return own_face_down(g, me, x) ||
           deny(why, "%s is not one of your face-down spells (only those can be activated)", spell_name(x));
}

/* cast S: a Magic Bean of the hand (the frontmost of its run) activates the face-down spell S. */
static bool cast_check(const rabohnzel *g, int s, int k, reason *why) {
    int me = active(g);
    if (g->b.phase != PHASE_MAGIC) return deny(why, "Magic Beans are cast in the magic phase (phase 1½)");
    if (k >= hand_len(g, me)) return deny(why, "your hand has %d card%s, not %d", hand_len(g, me), hand_len(g, me) == 1 ? "" : "s", k + 1);
    if (hand(g, me)[k] != MAGIC) return deny(why, "card %d of your hand is no Magic Bean", k + 1);
    if (!run_front(g, me, k))
        return deny(why, "card %d is a Magic Bean like the one before it: cast from the first of the run", k + 1);
    return own_face_down(g, me, s) ||
           deny(why, "%s is not one of your face-down spells (only those can be activated)", spell_name(s));
}

/* bean_enchantment: a B from the set-aside or face-up cards onto a field holding one bean of another type. */
static bool enchant_check(const rabohnzel *g, int type, int field, reason *why) {
    int me = active(g);
    if (type >= NUM_TYPES || (!bean_count_in(&g->b, BEAN_ZONE_SET_ASIDE(me), type) && !bean_count_in(&g->b, BEAN_ZONE_FACE_UP, type)))
        return deny(why, "you have no %s to plant (set aside or face up)", bean_name(type));
    if (field >= g->b.fields[me]) return deny(why, "you have %d fields, not %d", g->b.fields[me], field + 1);
    if (field_size(g, me, field) != 1 || field_type(g, me, field) == type)
        return deny(why, "enchant B F needs field F to hold exactly one bean of another type");
    return true;
}

/* A spell the active player uses: held face up, and within its card's timing (the digest's Spells). */
static bool spell_check(const rabohnzel *g, action_t a, reason *why) {
    int kind = bean_act_kind(a), s = kind == ACT_ENCHANT ? BEAN_ENCHANTMENT : bean_act_x(a), me = active(g), phase = g->b.phase;
    int at;
    if (s >= NUM_SPELLS) return deny(why, "there is no such spell");
    if (spell_owner(g, s, &at) != me) return deny(why, "you do not hold the %s spell", spell_name(s));
    if (!g->up[s]) return deny(why, "your %s is face down: activate it first (magic S, cast S)", spell_name(s));
    if (s == HAND_CARDS) return deny(why, "hand_cards is used in phase 4, before drawing, when nothing was traded");
    if (s == AGGRESSION) return deny(why, "aggression is used through common or sword N aggression");
    if (g->river && phase != PHASE_MAGIC) return deny(why, "while the river runs: plant F, harvest F or stop");
    bool phase2 = phase == BEAN_TRADE, phase3 = phase == BEAN_PLANT_TRADED;
    if (phase2 && bean_zone_len(&g->b, BEAN_ZONE_FACE_UP) >= BEAN_MAX_FACE_UP && (s == COMMERCE || s == DECK_SPELL))
        return deny(why, "no more cards fit among the face-up cards");
    switch (s) {
    case CARD_EXCHANGE: {
        int seat = bean_act_y(a), k = bean_act_z(a);
        if (seat == me) return deny(why, "you cannot exchange a spell with yourself");
        if (seat >= g->b.players) return deny(why, "there is no player %d: %d play", seat + 1, g->b.players);
        return k < g->row_n[seat] || deny(why, "player %d's row has %d spells, not %d", seat + 1, g->row_n[seat], k + 1);
    }
    case CARD_RIVER: return !g->river || deny(why, "the river runs already");
    case PLAYER_ENCHANTMENT: return true;
    case RELOCATION: return hand_len(g, me) >= 2 || deny(why, "relocation needs two cards in your hand");
    case LUCK:
        if (!g->pile_n) return deny(why, "the spell pile is empty");
        return g->luck[me] == NO_SPELL || deny(why, "your luck slot holds a card already: it holds one until your turn ends");
    case COMMERCE:
        if (!phase2) return deny(why, "commerce is used in phase 2");
        if (g->b.trade_steps) return deny(why, "commerce is used before the first trade step");
        if (g->commerce) return deny(why, "the commerce card is turned up already");
        return bean_zone_len(&g->b, BEAN_ZONE_DECK) || deny(why, "the deck is empty");
    case DECK_SPELL:
        if (!phase2) return deny(why, "deck_spell is used in phase 2");
        return bean_zone_len(&g->b, BEAN_ZONE_DISCARD) || deny(why, "the discard pile is empty");
    case BEAN_FIELD:
        if (!phase3) return deny(why, "bean_field is used in phase 3");
        if (g->b.third_field[me]) return deny(why, "bean_field's field is yours already (one at a time)");
        return lends_field(g, me) || deny(why, "you have %d fields already, the most there can be", g->b.fields[me]);
    }
    /* bean_enchantment */
    if (kind == ACT_USE) return deny(why, "bean_enchantment is used by planting: enchant B F");
    if (!phase3) return deny(why, "bean_enchantment is used in phase 3");
    return enchant_check(g, bean_act_x(a), bean_act_y(a), why);
}

/* plant F at the main decision: the front card, in phase 1 (two at most) or while the river runs. */
static bool main_plant_check(const rabohnzel *g, int field, reason *why) {
    int phase = g->b.phase;
    if (!g->river) {
        if (phase == BEAN_PLANT_TRADED) return deny(why, "plant your traded and kept cards: plant B F");
        if (phase != BEAN_PLANT) return deny(why, "planting from the hand is phase 1 (or the card_river spell)");
        if (g->b.planted >= 2) return deny(why, "two cards are planted: say done (the card_river spell plants more)");
    }
    return front_plant_check(g, active(g), field, why);
}

static bool main_check(const rabohnzel *g, action_t a, reason *why) {
    int kind = bean_act_kind(a), x = bean_act_x(a), phase = g->b.phase, me = active(g);
    switch (kind) {
    case BEAN_ACT_HARVEST: return harvest_check(g, x, why);
    case BEAN_ACT_PLANT: return main_plant_check(g, x, why);
    case ACT_STOP: return g->river || deny(why, "no river runs (stop ends the card_river spell)");
    case BEAN_ACT_DONE:
        if (phase == BEAN_PLANT)
            return g->b.planted >= 1 || !hand_len(g, me) || deny(why, "you must plant your front card first (plant F)");
        return phase != BEAN_PLANT_TRADED || !bean_to_plant(&g->b, me) ||
               deny(why, "plant every traded and kept card first (plant B F)");
    case BEAN_ACT_PLANT_TYPE: case ACT_DISCARD:
        if (phase != BEAN_PLANT_TRADED) return deny(why, "traded and kept cards are planted in phase 3");
        if (g->river) return deny(why, "while the river runs: plant F (your front card), or stop");
        if (kind == BEAN_ACT_PLANT_TYPE) return bean_plant_type_check(&rabohnzel_beans, &g->b, x, bean_act_y(a), why);
        if (!g->commerce) return deny(why, "there is no commerce card to discard");
        return x == g->commerce_type || deny(why, "only the commerce card (a %s) may be discarded", bean_name(g->commerce_type));
    case ACT_PLUCK: case ACT_WISE: case ACT_COMMON: case ACT_MAGIC: case ACT_SWORD: return power_check(g, a, why);
    case ACT_CAST: return cast_check(g, x, bean_act_y(a), why);
    case ACT_USE: case ACT_ENCHANT: return spell_check(g, a, why);
    case BEAN_ACT_BUY: return deny(why, "a third field can never be bought in Rabohnzel (the bean_field spell lends one)");
    case ACT_DRAW: return deny(why, "draw is phase 4's choice before drawing, when hand_cards could be used");
    case ACT_KEEP: return deny(why, "no stolen or drawn card waits to be kept");
    case ACT_CHOOSE: case ACT_ACTIVATE: case ACT_ACTIVATE_NONE: return deny(why, "no Sword attack waits for a decision");
    case ACT_PLACE_UP: case ACT_PLACE_DOWN: return deny(why, "no spell taken by card_exchange waits to be placed");
    case ACT_SKIP: return deny(why, "skip answers player_enchantment; no one is enchanted now");
    case ACT_ORDER: return deny(why, "order answers relocation; use relocation first");
    }
    /* the trade grammar: A's main decision in phase 2 */
    if (phase != BEAN_TRADE) return deny(why, kind == BEAN_ACT_PASS ? "there is no guard window or invitation to pass" : "trading is phase 2");
    if (g->river) return deny(why, "no trading while the river runs: stop it first");
    return bean_trade_check(&rabohnzel_beans, &g->b, a, why);
}

/* Someone else decides: a deal or invitation, or another player's phase 3. */
static bool others_check(const rabohnzel *g, action_t a, reason *why) {
    int kind = bean_act_kind(a), x = bean_act_x(a);
    if (kind == BEAN_ACT_HARVEST) return harvest_check(g, x, why);
    if (g->b.phase == BEAN_TRADE) {
        if (kind >= BEAN_ACT_PROPOSE && kind <= BEAN_ACT_PICK_UP) return bean_trade_check(&rabohnzel_beans, &g->b, a, why);
        return bean_trade_deny_open(&rabohnzel_beans, &g->b, why);
    }
    if (kind == BEAN_ACT_PLANT_TYPE) return bean_plant_type_check(&rabohnzel_beans, &g->b, x, bean_act_y(a), why);
    return deny(why, "player %d plants their traded cards: plant B F (or harvest F)", g->b.to_move + 1);
}

static bool rabohnzel_check(const void *st, action_t a, reason *why) {
    const rabohnzel *g = st;
    int kind = bean_act_kind(a), x = bean_act_x(a);
    if (!canonical(a)) return deny(why, "no action of Rabohnzel's grammar has this code");
    if (g->b.phase == BEAN_OVER) return deny(why, "the game is over");
    if (attack_open(g)) return sub_check(g, a, why);
    if (at_main(g)) return main_check(g, a, why);
    if (g->b.phase == PHASE_DRAW) { /* the choice before drawing */
        if (kind == ACT_DRAW || (kind == ACT_USE && x == HAND_CARDS)) return true;
        if (kind == BEAN_ACT_HARVEST) return harvest_check(g, x, why);
        return deny(why, "phase 4 begins with a choice: draw, or use hand_cards");
    }
    return others_check(g, a, why);
}

/* ==================================================================== action text */

/* Another field of the active player offers the same power: the action names its field (`@F`). */
static bool power_twice(const rabohnzel *g, int field) {
    int me = active(g), type = field < g->b.fields[me] ? field_type(g, me, field) : BEAN_NONE;
    for (int f = 0; f < g->b.fields[me]; f++)
        if (f != field && type != BEAN_NONE && field_type(g, me, f) == type && g->power[me][f]) return true;
    return false;
}

/* Magic Beans lie in more than one place of the hand (runs apart): a cast names its place (`@K`). */
static int magic_places(const rabohnzel *g) {
    const uint8_t *cards = hand(g, active(g));
    int n = 0;
    for (int k = 0; k < hand_len(g, active(g)); k++) n += cards[k] == MAGIC && run_front(g, active(g), k);
    return n;
}

/* A power's or a cast's place (`@K`) shows in its text only where power_twice or magic_places say so:
 * the key keeps the place then (and says so in bit 31, above every action), and drops it otherwise. */
static uint32_t rabohnzel_text_key(const void *st, action_t a) {
    const rabohnzel *g = st;
    int kind = bean_act_kind(a);
    bool placed = kind >= ACT_PLUCK && kind <= ACT_SWORD;
    if (!placed && kind != ACT_CAST) return a;
    if (placed ? power_twice(g, bean_act_y(a)) : magic_places(g) > 1) return a | 1u << 31;
    return a & ~(action_t)(0xffu << 14);
}

static void rabohnzel_action_text(const void *st, action_t a, char *out) {
    const rabohnzel *g = st;
    int kind = bean_act_kind(a), x = bean_act_x(a), y = bean_act_y(a), z = bean_act_z(a);
    char at[16] = "";
    if ((kind >= ACT_PLUCK && kind <= ACT_SWORD) && power_twice(g, y)) snprintf(at, sizeof at, " @%d", y + 1);
    if (kind == ACT_CAST && magic_places(g) > 1) snprintf(at, sizeof at, " @%d", y + 1);
    switch (kind) {
    case ACT_KEEP: snprintf(out, MEEPLE_ACTION_TEXT, "keep"); break;
    case ACT_PLUCK: snprintf(out, MEEPLE_ACTION_TEXT, "pluck %d%s", x + 1, at); break;
    case ACT_WISE: snprintf(out, MEEPLE_ACTION_TEXT, "wise%s", at); break;
    case ACT_COMMON: snprintf(out, MEEPLE_ACTION_TEXT, "common%s", at); break;
    case ACT_MAGIC: snprintf(out, MEEPLE_ACTION_TEXT, "magic %s%s", spell_name(x), at); break;
    case ACT_SWORD: snprintf(out, MEEPLE_ACTION_TEXT, "sword %d%s%s", x + 1, z ? " aggression" : "", at); break;
    case ACT_CHOOSE: snprintf(out, MEEPLE_ACTION_TEXT, "choose %s", bean_name(x)); break;
    case ACT_ACTIVATE: snprintf(out, MEEPLE_ACTION_TEXT, "activate %s", spell_name(x)); break;
    case ACT_ACTIVATE_NONE: snprintf(out, MEEPLE_ACTION_TEXT, "activate none"); break;
    case ACT_CAST: snprintf(out, MEEPLE_ACTION_TEXT, "cast %s%s", spell_name(x), at); break;
    case ACT_USE:
        if (x == CARD_EXCHANGE) snprintf(out, MEEPLE_ACTION_TEXT, "use card_exchange %d %d", y + 1, z + 1);
        else snprintf(out, MEEPLE_ACTION_TEXT, "use %s", spell_name(x));
        break;
    case ACT_PLACE_UP: snprintf(out, MEEPLE_ACTION_TEXT, "place up"); break;
    case ACT_PLACE_DOWN: snprintf(out, MEEPLE_ACTION_TEXT, "place down"); break;
    case ACT_STOP: snprintf(out, MEEPLE_ACTION_TEXT, "stop"); break;
    case ACT_ENCHANT: snprintf(out, MEEPLE_ACTION_TEXT, "enchant %s %d", bean_name(x), y + 1); break;
    case ACT_DISCARD: snprintf(out, MEEPLE_ACTION_TEXT, "discard %s", bean_name(x)); break;
    case ACT_SKIP: snprintf(out, MEEPLE_ACTION_TEXT, "skip"); break;
    case ACT_ORDER: snprintf(out, MEEPLE_ACTION_TEXT, "order %s", bean_name(x)); break;
    case ACT_DRAW: snprintf(out, MEEPLE_ACTION_TEXT, "draw"); break;
    default: bean_action_text(&rabohnzel_beans, a, out); break;
    }
}

static int spell_index(const char *name) {
    for (int s = 0; s < NUM_SPELLS; s++)
        if (strcmp(spells[s].name, name) == 0) return s;
    return -1;
}

static bool parse_spell(const char *word, int *out, reason *why) {
    *out = spell_index(word);
    return *out >= 0 || deny(why, "'%.30s' is no spell; spells: aggression, bean_field, card_exchange, commerce, "
                                  "card_river, deck_spell, bean_enchantment, player_enchantment, relocation, "
                                  "hand_cards, luck", word);
}

static bool parse_rab_bean(const char *word, int *out, reason *why) {
    *out = bean_type_index(&rabohnzel_beans, word);
    return *out >= 0 || deny(why, "'%.30s' is no bean; beans: pluck, cape, common, wise, magic, princess, sword", word);
}

static bool parse_count(const char *word, int max, int *out) {
    char *end;
    long v = strtol(word, &end, 10);
    if (end == word || *end || v < 1 || v > max) return false;
    *out = (int)v - 1;
    return true;
}

/* The field a power without `@F` means: the one of that type with uses left (else the first). */
static int power_field(const rabohnzel *g, int type, int *count) {
    int me = active(g), found = -1, first = -1;
    *count = 0;
    for (int f = 0; f < g->b.fields[me]; f++) {
        if (field_type(g, me, f) != type) continue;
        if (first < 0) first = f;
        if (g->power[me][f]) found = found < 0 ? f : found, (*count)++;
    }
    return found >= 0 ? found : first;
}

static bool parse_power(const rabohnzel *g, char **w, int n, action_t *out, reason *why) {
    static const struct { const char *word; int kind, type; } powers[] = {
        {"pluck", ACT_PLUCK, PLUCK}, {"wise", ACT_WISE, WISE}, {"common", ACT_COMMON, COMMON},
        {"magic", ACT_MAGIC, MAGIC}, {"sword", ACT_SWORD, SWORD}};
    int p = 0;
    while (strcmp(powers[p].word, w[0]) != 0) p++;
    int kind = powers[p].kind, x = 0, z = 0, field = -1, count = 0;
    if (n > 1 && w[n - 1][0] == '@') {
        if (!parse_count(w[n - 1] + 1, BEAN_MAX_FIELDS, &field)) return deny(why, "@F names a field, 1 to 4");
        n--;
    }
    for (int i = 1; i < n; i++)
        if (!strcmp(w[i], "@")) return deny(why, "@F is written as one word, without a space: @1, @2 or @3");
    int args = kind == ACT_WISE || kind == ACT_COMMON ? 1 : kind == ACT_SWORD ? (n == 3 ? 3 : 2) : 2;
    if (n != args) return deny(why, "%s takes %s", w[0], kind == ACT_MAGIC ? "a spell: magic S" : kind == ACT_PLUCK ? "a player: pluck N"
                                                      : kind == ACT_SWORD ? "a player: sword N, or sword N aggression"
                                                      : "nothing but its field, @F, when two fields offer it");
    if ((kind == ACT_PLUCK || kind == ACT_SWORD) && !parse_count(w[1], BEAN_MAX_SEATS, &x))
        return deny(why, "%s N: N is a player's number", w[0]);
    if (kind == ACT_MAGIC && !parse_spell(w[1], &x, why)) return false;
    if (kind == ACT_SWORD && n == 3) {
        if (strcmp(w[2], "aggression") != 0) return deny(why, "sword N aggression: only the aggression spell goes there");
        z = 1;
    }
    if (field < 0) {
        field = power_field(g, powers[p].type, &count);
        if (count > 1) {
            /* The suggestion is the action's own text, and only an action check() accepts: a bad target
             * or an illegal use gets its rule's reason instead of a form that would be refused too. */
            char said[MEEPLE_ACTION_TEXT];
            action_t a = act(kind, x, field, z);
            if (!rabohnzel_check(g, a, why)) return false;
            rabohnzel_action_text(g, a, said);
            return deny(why, "two fields offer this power: say which, as in %s", said);
        }
        if (field < 0) field = 0;
    }
    *out = act(kind, x, field, z);
    return true;
}

static bool parse_use(char **w, int n, action_t *out, reason *why) {
    int s, seat, k;
    if (n < 2 || !parse_spell(w[1], &s, why)) return n < 2 ? deny(why, "use S: which spell?") : false;
    if (s != CARD_EXCHANGE) return n == 2 ? (*out = act(ACT_USE, s, 0, 0), true) : deny(why, "use %s takes nothing more", w[1]);
    if (n != 4 || !parse_count(w[2], BEAN_MAX_SEATS, &seat) || !parse_count(w[3], NUM_SPELLS, &k))
        return deny(why, "use card_exchange N K: N a player, K a place in their row of spells");
    *out = act(ACT_USE, CARD_EXCHANGE, seat, k);
    return true;
}

static bool rabohnzel_parse_action(const void *st, const char *text, action_t *out, reason *why) {
    const rabohnzel *g = st;
    char buf[MEEPLE_ACTION_TEXT], *w[5];
    if (strlen(text) >= sizeof buf) return deny(why, "that action is too long to be one");
    strcpy(buf, text);
    int n = split_words(buf, w, 5), x;
    if (n <= 0) return deny(why, n < 0 ? "too many words" : "no action given");
    static const struct { const char *text; int kind; } fixed[] = {
        {"keep", ACT_KEEP}, {"activate none", ACT_ACTIVATE_NONE}, {"place up", ACT_PLACE_UP},
        {"place down", ACT_PLACE_DOWN}, {"stop", ACT_STOP}, {"skip", ACT_SKIP}, {"draw", ACT_DRAW}};
    char joined[MEEPLE_ACTION_TEXT] = "";
    for (int i = 0; i < n; i++) snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "%s%s", i ? " " : "", w[i]);
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (strcmp(joined, fixed[i].text) == 0) return *out = act(fixed[i].kind, 0, 0, 0), true;
    if (!strcmp(w[0], "place")) return deny(why, "place up, or place down");
    if (!strcmp(w[0], "keep") || !strcmp(w[0], "stop") || !strcmp(w[0], "skip") || !strcmp(w[0], "draw"))
        return deny(why, "'%s' takes nothing after it", w[0]);
    if (!strcmp(w[0], "pluck") || !strcmp(w[0], "wise") || !strcmp(w[0], "common") || !strcmp(w[0], "magic") ||
        !strcmp(w[0], "sword"))
        return parse_power(g, w, n, out, why);
    if (!strcmp(w[0], "use")) return parse_use(w, n, out, why);
    if (!strcmp(w[0], "activate")) return n == 2 && parse_spell(w[1], &x, why) ? (*out = act(ACT_ACTIVATE, x, 0, 0), true) : n == 2 ? false : deny(why, "activate S, or activate none");
    if (!strcmp(w[0], "cast")) {
        int k = -1;
        if (n == 3 && (w[2][0] != '@' || !parse_count(w[2] + 1, BEAN_MAX_CARDS, &k))) return deny(why, "cast S @K: K a place in your hand");
        if ((n != 2 && n != 3) || !parse_spell(w[1], &x, why)) return n == 2 || n == 3 ? false : deny(why, "cast S: which spell?");
        if (k < 0) {
            const uint8_t *cards = hand(g, active(g));
            for (k = 0; k < hand_len(g, active(g)) && cards[k] != MAGIC; k++) continue;
        }
        *out = act(ACT_CAST, x, k, 0);
        return true;
    }
    static const struct { const char *word; int kind; } one_bean[] = {
        {"choose", ACT_CHOOSE}, {"discard", ACT_DISCARD}, {"order", ACT_ORDER}};
    for (size_t i = 0; i < sizeof one_bean / sizeof one_bean[0]; i++)
        if (!strcmp(w[0], one_bean[i].word)) {
            if (n != 2) return deny(why, "%s B: which bean?", w[0]);
            if (!parse_rab_bean(w[1], &x, why)) return false;
            return *out = act(one_bean[i].kind, x, 0, 0), true;
        }
    if (!strcmp(w[0], "enchant")) {
        int f;
        if (n != 3 || !parse_rab_bean(w[1], &x, why)) return n == 3 ? false : deny(why, "enchant B F");
        if (!parse_count(w[2], BEAN_MAX_FIELDS, &f)) return deny(why, "enchant B F: F is a field, 1 to 4");
        return *out = act(ACT_ENCHANT, x, f, 0), true;
    }
    if (!strcmp(w[0], "buy")) /* Bohnanza's word: say why there is none here */
        return deny(why, "a third field can never be bought in Rabohnzel (the bean_field spell lends one)");
    return bean_parse_action(&rabohnzel_beans, &g->b, text, out, why);
}

static int rabohnzel_action_space(const void *st, action_t *out) {
    const rabohnzel *g = st;
    int n = bean_action_space(&g->b, out, 0);
    static const int plain[] = {ACT_KEEP, ACT_ACTIVATE_NONE, ACT_PLACE_UP, ACT_PLACE_DOWN, ACT_STOP, ACT_SKIP, ACT_DRAW};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) out[n++] = act(plain[i], 0, 0, 0);
    for (int f = 0; f < BEAN_MAX_FIELDS; f++) {
        out[n++] = act(ACT_WISE, 0, f, 0);
        out[n++] = act(ACT_COMMON, 0, f, 0);
        for (int seat = 0; seat < g->b.players; seat++) {
            out[n++] = act(ACT_PLUCK, seat, f, 0);
            out[n++] = act(ACT_SWORD, seat, f, 0);
            out[n++] = act(ACT_SWORD, seat, f, 1);
        }
        for (int s = 0; s < NUM_SPELLS; s++) out[n++] = act(ACT_MAGIC, s, f, 0);
        for (int t = 0; t < NUM_TYPES; t++) out[n++] = act(ACT_ENCHANT, t, f, 0);
    }
    for (int t = 0; t < NUM_TYPES; t++) {
        out[n++] = act(ACT_CHOOSE, t, 0, 0);
        out[n++] = act(ACT_DISCARD, t, 0, 0);
        out[n++] = act(ACT_ORDER, t, 0, 0);
    }
    for (int s = 0; s < NUM_SPELLS; s++) {
        out[n++] = act(ACT_ACTIVATE, s, 0, 0);
        if (s != CARD_EXCHANGE) out[n++] = act(ACT_USE, s, 0, 0);
        for (int k = 0; k <= hand_len(g, active(g)) && k < BEAN_MAX_CARDS; k++) out[n++] = act(ACT_CAST, s, k, 0);
    }
    for (int seat = 0; seat < g->b.players; seat++)
        for (int k = 0; k <= g->row_n[seat]; k++) out[n++] = act(ACT_USE, CARD_EXCHANGE, seat, k);
    return n;
}

/* ==================================================================== state tables */

static const char *const phase_names[NUM_PHASES] = {"plant", "trade", "plant_traded", "over", "magic", "draw"};
static const char *const from_names[] = {"pluck", "wise", "coin"};
static const char *const stage_names[] = {"choose", "activate", "pluck"};
static const char *const spell_names[NUM_SPELLS + 1] = {
    "aggression", "bean_field", "card_exchange", "commerce", "card_river", "deck_spell", "bean_enchantment",
    "player_enchantment", "relocation", "hand_cards", "luck", NULL};
static const char *const up_names[NUM_TYPES] = {"up pluck", "up cape", "up common", "up wise", "up magic",
                                                "up princess", "up sword"};

static bool sees(const rabohnzel *g, int viewer, int s) { return viewer < 0 || (g->known[s] >> viewer & 1); }

static void write_seats(tree_writer *w, uint8_t seats) {
    w->open_list(w);
    for (int p = 0; p < BEAN_MAX_SEATS; p++)
        if (seats >> p & 1) w->num(w, p + 1);
    w->close(w);
}

static void write_spell_row(const rabohnzel *g, int seat, int viewer, tree_writer *w) {
    w->key(w, "spells");
    w->open_list(w);
    for (int i = 0; i < g->row_n[seat]; i++) {
        int s = g->row[seat][i];
        w->open_map(w);
        if (sees(g, viewer, s)) tw_key_str(w, "name", spells[s].name);
        tw_key_bool(w, "up", g->up[s]);
        w->key(w, "known");
        write_seats(w, g->known[s]);
        tw_key_bool(w, "dealt", g->dealt[s]);
        w->close(w);
    }
    w->close(w);
}

static void rab_write_player_extra(const void *st, int seat, int viewer, tree_writer *w) {
    const rabohnzel *g = st;
    write_spell_row(g, seat, viewer, w);
    int s = g->luck[seat];
    if (s != NO_SPELL) { /* drawn face up, known to all; or taken by its card_exchange and placed down */
        w->key(w, "luck_slot");
        w->open_map(w);
        if (sees(g, viewer, s)) tw_key_str(w, "name", spells[s].name);
        tw_key_bool(w, "up", g->up[s]);
        w->key(w, "known");
        write_seats(w, g->known[s]);
        w->close(w);
    }
}

static void rab_write_field(const void *st, int seat, int field, tree_writer *w) {
    const rabohnzel *g = st;
    w->open_map(w);
    w->key(w, "beans");
    bean_write_names(&rabohnzel_beans, w, bean_zone(&g->b, BEAN_ZONE_FIELD(seat, field)), field_size(g, seat, field));
    tw_key_num(w, "enchanted", g->b.enchanted[seat][field]);
    tw_key_num(w, "power", g->power[seat][field]);
    w->close(w);
}

/* The Cape harvest bonus, as harvest() gives it outside the final harvest: a spell while the pile has one. */
static void rab_write_harvest_extra(const void *st, int seat, int field, tree_writer *w) {
    const rabohnzel *g = st;
    if (field_type(g, seat, field) == CAPE && field_size(g, seat, field) >= 2 && g->pile_n > 0)
        tw_key_bool(w, "spell", true);
}

static void write_attack(const rabohnzel *g, tree_writer *w) {
    if (!tw_key(w, "attack")) return;
    w->open_map(w);
    tw_key_num(w, "attacker", g->attacker + 1);
    tw_key_num(w, "defender", g->defender + 1);
    tw_key_num(w, "draws", g->draws);
    tw_key_bool(w, "aggression", g->aggression);
    if (g->sub == SUB_CHOOSE) {
        const uint8_t *pile = bean_zone(&g->b, BEAN_ZONE_COINS(g->defender));
        w->key(w, "drawn");
        w->open_list(w);
        w->str(w, beans[pile[g->drawn_coin[0]]].name);
        w->str(w, beans[pile[g->drawn_coin[1]]].name);
        w->close(w);
    }
    tw_key_str(w, "stage", stage_names[g->sub == SUB_CHOOSE ? 0 : g->sub == SUB_ACTIVATE ? 1 : 2]);
    w->close(w);
}

static void rab_write_extra(const void *st, int viewer, tree_writer *w) {
    const rabohnzel *g = st;
    tw_key_bool(w, "river", g->river);
    tw_key_bool(w, "traded", g->b.traded);
    tw_key_bool(w, "drawn", g->drawn);
    if (g->commerce) tw_key_num(w, "commerce_card", bean_zone_len(&g->b, BEAN_ZONE_FACE_UP));
    /* A table-built game may start without one: then nobody's spells are known to be lower. */
    if (g->countdown != NO_SPELL) tw_key_str(w, "countdown", spells[g->countdown].name);
    if (tw_key(w, "spell_pile")) {
        if (viewer < 0) {
            w->open_list(w);
            for (int i = 0; i < g->pile_n; i++) w->str(w, spells[g->pile[i]].name);
            w->close(w);
        } else {
            w->num(w, g->pile_n);
        }
    }
    if (g->sub == SUB_PENDING && tw_key(w, "pending")) {
        w->open_map(w);
        if (viewer < 0 || g->pending_from != FROM_WISE || viewer == g->pending_owner)
            tw_key_str(w, "card", beans[pending_type(g)].name);
        tw_key_num(w, "owner", g->pending_owner + 1);
        tw_key_str(w, "from", from_names[g->pending_from]);
        w->close(w);
    }
    if (in_attack(g)) write_attack(g, w);
    if (g->sub == SUB_GUARD) tw_key_num(w, "guard", g->sub_seat + 1);
    if (g->sub == SUB_ENCHANT) tw_key_num(w, "enchanting", g->sub_seat + 1);
    if (g->sub == SUB_RELOCATE) tw_key_num(w, "relocating", g->relocated);
    if (g->sub == SUB_PLACE) tw_key_str(w, "placing", g->placing == PLACE_LUCK ? "luck_slot" : "row");
}

/* ---- reading ---- */

/* A table's spells while being read: the named ones are placed at once; a row entry without a name
 * (a view's face-down card) waits to be dealt from the spells named nowhere. */
typedef struct spell_slot {
    uint8_t seat, at, known;
    bool dealt, luck; /* luck: the seat's luck slot, not its row */
} spell_slot;

typedef struct rab_reading {
    bool named[NUM_SPELLS];
    spell_slot unnamed[NUM_SPELLS];
    int n_unnamed;
    int pile_wanted; /* -1: not given (the pile takes what is left); else how many to deal there */
    int drawn[2];    /* an attack's two drawn coins, by bean, while the attacker chooses */
} rab_reading;

static bool take_spell(rab_reading *sr, tree_reader *r, int *s, reason *why) {
    const char *name = r->get_str(r);
    *s = name ? spell_index(name) : -1;
    if (*s < 0) return table_refuse(r, why, "not a spell of Rabohnzel");
    if (sr->named[*s]) {
        char what[80];
        snprintf(what, sizeof what, "the %s spell is in two places", spells[*s].name);
        return table_refuse(r, why, what);
    }
    sr->named[*s] = true;
    return true;
}

static bool read_known(tree_reader *r, int players, uint8_t *out, reason *why) {
    tree_kind kind = r->enter_key(r, "known");
    bool ok = kind == TREE_ABSENT || kind == TREE_TABLE || table_refuse(r, why, "a list of seats");
    int n = kind == TREE_TABLE ? r->length(r) : 0;
    for (int i = 0; ok && i < n; i++) {
        int64_t seat;
        r->enter_index(r, i + 1);
        ok = (r->get_int(r, &seat) && seat >= 1 && seat <= players) || table_refuse(r, why, "a seat number");
        if (ok) *out |= (uint8_t)(1u << (seat - 1));
        r->leave(r);
    }
    r->leave(r);
    return ok;
}

static const char *const spell_keys[] = {"name", "up", "known", "dealt", NULL};
static const char *const luck_keys[] = {"name", "up", "known", NULL};

/* {name, up, known, dealt}: a spell of `seat`'s row (its owner always knows it). */
static bool read_spell_entry(rabohnzel *g, rab_reading *sr, tree_reader *r, int seat, reason *why) {
    bool up = false, dealt = false;
    uint8_t known = 0;
    int s = NO_SPELL;
    if (r->kind(r) != TREE_TABLE) return table_refuse(r, why, "a spell is {name, up, known, dealt}");
    bool ok = table_check_keys(r, spell_keys, why) && table_read_bool(r, "up", &up, why) &&
              table_read_bool(r, "dealt", &dealt, why) && read_known(r, g->b.players, &known, why);
    if (!known) known = up ? all_seats(g) : 0; /* a face-up card is seen by all; without `known`, say so */
    known |= (uint8_t)(1u << seat);
    bool named = ok && r->enter_key(r, "name") != TREE_ABSENT;
    if (named) ok = take_spell(sr, r, &s, why);
    r->leave(r);
    if (!ok) return false;
    int at = g->row_n[seat]++;
    if (named) {
        g->row[seat][at] = (uint8_t)s;
        g->up[s] = up, g->known[s] = known, g->dealt[s] = dealt;
        return true;
    }
    if (up) return table_refuse(r, why, "a face-up spell is known to all: name it");
    sr->unnamed[sr->n_unnamed++] = (spell_slot){(uint8_t)seat, (uint8_t)at, known, dealt, false};
    g->row[seat][at] = NO_SPELL;
    return true;
}

static bool read_spells_of(rabohnzel *g, rab_reading *sr, tree_reader *r, int seat, reason *why) {
    tree_kind kind = r->enter_key(r, "spells");
    bool ok = kind == TREE_ABSENT || kind == TREE_TABLE || table_refuse(r, why, "a list of spells");
    int n = kind == TREE_TABLE ? r->length(r) : 0;
    if (ok && n > NUM_SPELLS) ok = table_refuse(r, why, "more spells than the game has");
    for (int i = 0; ok && i < n; i++) {
        r->enter_index(r, i + 1);
        ok = read_spell_entry(g, sr, r, seat, why);
        r->leave(r);
    }
    r->leave(r);
    if (!ok) return false;
    kind = r->enter_key(r, "luck_slot");
    if (kind == TREE_TABLE) {
        int s;
        bool up = true;
        uint8_t known = 0;
        ok = table_check_keys(r, luck_keys, why) && table_read_bool(r, "up", &up, why) &&
             read_known(r, g->b.players, &known, why);
        if (!known) known = all_seats(g);
        bool named = ok && r->enter_key(r, "name") != TREE_ABSENT;
        if (named) ok = take_spell(sr, r, &s, why);
        r->leave(r);
        if (ok && named) g->luck[seat] = (uint8_t)s, g->up[s] = up, g->known[s] = (uint8_t)(known | 1u << seat);
        if (ok && !named) {
            if (up) ok = table_refuse(r, why, "a face-up spell is known to all: name it");
            sr->unnamed[sr->n_unnamed++] = (spell_slot){(uint8_t)seat, 0, known, false, true};
        }
    } else if (kind != TREE_ABSENT) {
        ok = table_refuse(r, why, "the luck slot is {name, up, known}");
    }
    r->leave(r);
    return ok;
}

static const char *const player_keys[] = {"hand", "fields", "harvest", "coins", "set_aside", "third_field", "shown",
                                          "spells", "luck_slot", NULL};
static const char *const field_keys[] = {"beans", "enchanted", "power", NULL};

static bool rab_read_player_extra(const bean_game *bg, bean_reading *rd, tree_reader *r, void *st, int seat, reason *why) {
    (void)bg;
    return read_spells_of(st, rd->extra, r, seat, why);
}

/* A field: {beans = {...}, enchanted = N, power = N}, or a plain list of beans. */
static bool rab_read_field(const bean_game *bg, bean_reading *rd, tree_reader *r, void *st, int seat, int field,
                           reason *why) {
    rabohnzel *g = st;
    int zone = BEAN_ZONE_FIELD(seat, field), enchanted = 0, power = -1;
    bool ok;
    if (r->kind(r) != TREE_TABLE) return table_refuse(r, why, "a field is {beans = {...}, enchanted = N, power = N}");
    if (r->length(r) > 0 || r->enter_key(r, "beans") == TREE_ABSENT) { /* a plain list (or an empty table) */
        if (r->length(r) == 0) r->leave(r);
        ok = bean_read_cards(bg, rd, r, zone, why);
    } else {
        ok = bean_read_cards(bg, rd, r, zone, why);
        r->leave(r);
        ok = ok && table_check_keys(r, field_keys, why) &&
             table_read_int(r, "enchanted", 0, BEAN_MAX_CARDS, &enchanted, why) && table_read_int(r, "power", 0, 2, &power, why);
    }
    if (power < 0) { /* unsaid: the power the magic phase gave the active player's field as it began */
        int type = rd->len[zone] ? rd->cards[zone][rd->len[zone] - 1] : BEAN_NONE;
        bool fresh = g->b.phase == PHASE_MAGIC && seat == g->b.active && type != BEAN_NONE && has_power(type);
        power = fresh ? fresh_power(type, rd->len[zone]) : 0;
    }
    g->b.enchanted[seat][field] = (uint8_t)enchanted;
    g->power[seat][field] = (uint8_t)power;
    return ok;
}

static const char *const table_keys[] = {
    "game", "phase", "turn", "active", "start", "to_move", "pass", "planted", "trade_steps", "last_pass_over",
    "face_up", "invited", "proposal", "players", "deck", "discard", "river", "traded", "drawn", "commerce_card",
    "countdown", "spell_pile", "pending", "attack", "guard", "enchanting", "relocating", "placing", NULL};

static bool read_pile(rabohnzel *g, rab_reading *sr, tree_reader *r, reason *why) {
    tree_kind kind = r->enter_key(r, "spell_pile");
    int64_t n;
    bool ok = true;
    sr->pile_wanted = -1;
    if (kind == TREE_NUM && r->get_int(r, &n) && n >= 0 && n <= NUM_SPELLS) {
        sr->pile_wanted = (int)n;
    } else if (kind == TREE_TABLE) {
        int len = r->length(r);
        if (len > NUM_SPELLS) ok = table_refuse(r, why, "more spells than the game has");
        for (int i = 0; ok && i < len; i++) {
            int s;
            r->enter_index(r, i + 1);
            ok = take_spell(sr, r, &s, why);
            r->leave(r);
            g->pile[g->pile_n++] = (uint8_t)s;
        }
        sr->pile_wanted = 0;
    } else if (kind != TREE_ABSENT) {
        ok = table_refuse(r, why, "a list of spells, or their number");
    }
    r->leave(r);
    return ok;
}

static const char *const pending_keys[] = {"card", "owner", "from", NULL};
static const char *const attack_keys[] = {"attacker", "defender", "draws", "aggression", "drawn", "stage", NULL};

static bool read_pending(rabohnzel *g, bean_reading *rd, tree_reader *r, reason *why) {
    tree_kind kind = r->enter_key(r, "pending");
    bool ok = kind == TREE_ABSENT || kind == TREE_TABLE || table_refuse(r, why, "{card, owner, from}");
    if (ok && kind == TREE_TABLE) {
        int owner = 0, from = FROM_PLUCK, type;
        ok = table_check_keys(r, pending_keys, why) && table_read_int(r, "owner", 1, g->b.players, &owner, why) &&
             table_read_name(r, "from", from_names, 3, &from, "from is pluck, wise or coin", why);
        if (ok && !owner) ok = table_refuse(r, why, "a pending card names its owner");
        if (ok && r->enter_key(r, "card") != TREE_ABSENT) {
            ok = bean_take_card(&rabohnzel_beans, rd, r, &type, why);
            if (ok) rd->cards[BEAN_ZONE_PENDING][rd->len[BEAN_ZONE_PENDING]++] = (uint8_t)type;
        } else if (ok) {
            rd->dealt[BEAN_ZONE_PENDING] = 1; /* a Wise card the view does not show */
        }
        r->leave(r);
        rd->named[BEAN_ZONE_PENDING] = true;
        g->sub = SUB_PENDING, g->pending_owner = (uint8_t)(owner - 1), g->pending_from = (uint8_t)from;
    }
    r->leave(r);
    return ok;
}

static bool read_attack(rabohnzel *g, tree_reader *r, int *drawn, reason *why) {
    tree_kind kind = r->enter_key(r, "attack");
    bool ok = kind == TREE_ABSENT || kind == TREE_TABLE || table_refuse(r, why, "{attacker, defender, draws, ...}");
    if (ok && kind == TREE_TABLE) {
        int attacker = 0, defender = 0, draws = 0, stage = 2;
        bool aggression = false;
        ok = table_check_keys(r, attack_keys, why) && table_read_int(r, "attacker", 1, g->b.players, &attacker, why) &&
             table_read_int(r, "defender", 1, g->b.players, &defender, why) &&
             table_read_int(r, "draws", 0, 1000, &draws, why) && table_read_bool(r, "aggression", &aggression, why) &&
             table_read_name(r, "stage", stage_names, 3, &stage, "the stage is choose, activate or pluck", why);
        if (ok && (!attacker || !defender || attacker == defender)) ok = table_refuse(r, why, "an attack needs two players");
        if (ok && r->enter_key(r, "drawn") == TREE_TABLE && r->length(r) == 2)
            for (int i = 0; ok && i < 2; i++) {
                r->enter_index(r, i + 1);
                const char *name = r->get_str(r);
                drawn[i] = name ? bean_type_index(&rabohnzel_beans, name) : -1;
                ok = drawn[i] >= 0 || table_refuse(r, why, "a drawn coin is a bean");
                r->leave(r);
            }
        r->leave(r);
        g->attacker = (uint8_t)(attacker - 1), g->defender = (uint8_t)(defender - 1);
        g->draws = (uint16_t)draws, g->aggression = aggression;
        if (stage == 0) g->sub = SUB_CHOOSE;
        if (stage == 1) g->sub = SUB_ACTIVATE;
    }
    r->leave(r);
    return ok;
}

static bool read_subs(rabohnzel *g, tree_reader *r, reason *why) {
    static const char *const place_names[] = {"row", "luck_slot"};
    int guard = 0, enchanting = 0, relocating = -1, placing = -1;
    bool ok = table_read_int(r, "guard", 1, g->b.players, &guard, why) &&
              table_read_int(r, "enchanting", 1, g->b.players, &enchanting, why) &&
              table_read_int(r, "relocating", 0, BEAN_MAX_CARDS, &relocating, why) &&
              table_read_name(r, "placing", place_names, 2, &placing,
                              "placing is row (the row's last spell) or luck_slot", why);
    int subs = (guard > 0) + (enchanting > 0) + (relocating >= 0) + (placing >= 0) + (g->sub != SUB_NONE);
    if (ok && subs > 1) ok = deny(why, "two decisions are open at once (pending, attack, guard, enchanting, relocating, placing)");
    if (guard) g->sub = SUB_GUARD, g->sub_seat = (uint8_t)(guard - 1);
    if (enchanting) g->sub = SUB_ENCHANT, g->sub_seat = (uint8_t)(enchanting - 1);
    if (relocating >= 0) g->sub = SUB_RELOCATE, g->relocated = (uint8_t)relocating;
    if (placing >= 0) g->sub = SUB_PLACE, g->placing = placing ? PLACE_LUCK : PLACE_ROW;
    return ok;
}

static bool rab_read_extra(const bean_game *bg, bean_reading *rd, tree_reader *r, void *st, reason *why) {
    rabohnzel *g = st;
    rab_reading *sr = rd->extra;
    int commerce = 0, countdown = NO_SPELL;
    bool traded = false;
    (void)bg;
    bool ok = table_read_bool(r, "river", &g->river, why) && table_read_bool(r, "traded", &traded, why) &&
              table_read_bool(r, "drawn", &g->drawn, why) &&
              table_read_int(r, "commerce_card", 1, BEAN_MAX_FACE_UP, &commerce, why) &&
              table_read_name(r, "countdown", spell_names, NUM_SPELLS, &countdown, "a spell", why) &&
              read_pile(g, sr, r, why) && read_pending(g, rd, r, why) && read_attack(g, r, sr->drawn, why) &&
              read_subs(g, r, why);
    g->b.traded = traded;
    g->countdown = (uint8_t)countdown;
    if (ok && commerce) {
        if (commerce != rd->len[BEAN_ZONE_FACE_UP]) return deny(why, "commerce_card: the commerce card is the last face-up card");
        g->commerce = true;
        g->commerce_type = rd->cards[BEAN_ZONE_FACE_UP][commerce - 1];
    }
    return ok;
}

/* The spells no entry named go to the unnamed row entries (a dealt card worth less than the
 * countdown's) and then the pile; what the pile does not take is refused. */
static bool deal_unnamed_spells(rabohnzel *g, rab_reading *sr, reason *why) {
    uint8_t free[NUM_SPELLS];
    int n = 0;
    for (int s = 0; s < NUM_SPELLS; s++)
        if (!sr->named[s]) free[n++] = (uint8_t)s;
    rng_shuffle_bytes(&g->b.rng, free, n);
    int limit = g->countdown == NO_SPELL ? 99 : spells[g->countdown].value;
    for (int pass = 0; pass < 2; pass++) /* the dealt slots first: they have fewer cards to choose from */
        for (int i = 0; i < sr->n_unnamed; i++) {
            spell_slot *slot = &sr->unnamed[i];
            if (slot->dealt != (pass == 0)) continue;
            int k = 0;
            while (k < n && slot->dealt && spells[free[k]].value >= limit) k++;
            if (k == n) return deny(why, "no spell is left for player %d's unnamed spell", slot->seat + 1);
            int s = free[k];
            free[k] = free[--n];
            if (slot->luck) g->luck[slot->seat] = (uint8_t)s;
            else g->row[slot->seat][slot->at] = (uint8_t)s;
            g->known[s] = (uint8_t)(slot->known | 1u << slot->seat);
            g->dealt[s] = slot->dealt;
        }
    int pile = sr->pile_wanted < 0 ? n : sr->pile_wanted;
    if (pile > n) return deny(why, "spell_pile: %d spells are wanted there, %d are left", pile, n);
    while (pile--) g->pile[g->pile_n++] = free[--n];
    if (n) return deny(why, "%d spells are placed nowhere (leave out spell_pile to have them put there)", n);
    return true;
}

/* The attacker chooses between two drawn coins: their places in the defender's pile. */
static bool place_drawn_coins(rabohnzel *g, const int *drawn, reason *why) {
    const uint8_t *pile = bean_zone(&g->b, BEAN_ZONE_COINS(g->defender));
    int found = 0;
    for (int i = 0; i < 2; i++) {
        int k = 0;
        while (k < coins(g, g->defender) && (pile[k] != drawn[i] || (found && g->drawn_coin[0] == k))) k++;
        if (k == coins(g, g->defender)) return deny(why, "attack.drawn: the defender has no such coin");
        g->drawn_coin[found++] = (uint8_t)k;
    }
    return true;
}

static bool rabohnzel_validate(const void *st, reason *why);

static bool rabohnzel_read_table(void *st, tree_reader *r, const param_value *params, uint64_t seed, reason *why) {
    rabohnzel *g = st;
    bean_reading rd;
    rab_reading sr;
    int to_move;
    memset(g, 0, sizeof *g);
    memset(&sr, 0, sizeof sr);
    memset(sr.drawn, 0xff, sizeof sr.drawn);
    if (!bean_read_begin(&rabohnzel_beans, r, params, seed, &g->b, why)) return false;
    rab_rules_from(params, &g->rules);
    reset_turn(g);
    memset(g->luck, NO_SPELL, sizeof g->luck);
    g->countdown = NO_SPELL;
    rd.extra = &sr;
    if (!bean_read_table(&rabohnzel_beans, &rd, r, &g->b, &to_move, why) || !deal_unnamed_spells(g, &sr, why))
        return false;
    if (g->sub == SUB_CHOOSE && (sr.drawn[0] < 0 || !place_drawn_coins(g, sr.drawn, why)))
        return sr.drawn[0] < 0 ? deny(why, "attack.drawn: the two coins the attacker chooses from") : false;
    /* Another player deciding in phase 3 means the active player's part is over, unless they still have
     * cards to plant (then another player's decision interrupts it). */
    if (g->b.phase == BEAN_PLANT_TRADED && to_move && to_move - 1 != g->b.active && !bean_to_plant(&g->b, g->b.active))
        g->active_done = true;
    if (!bean_validate(&g->b, why)) return false;
    g->b.to_move = (uint8_t)decider(g);
    /* Hands dealt from numbers must keep the decisions the table shows (see rabohnzel_sample). */
    for (int attempt = 0; attempt < 200 && !settled_already(g) && bean_redeal_unnamed(&g->b, &rd); attempt++)
        g->b.to_move = (uint8_t)decider(g);
    return bean_read_end(&rabohnzel_beans, g, to_move, rabohnzel_validate, why);
}

/* ==================================================================== invariants */

static bool validate_spells(const rabohnzel *g, reason *why) {
    int places[NUM_SPELLS] = {0};
    uint8_t all = all_seats(g);
    if (g->pile_n > NUM_SPELLS) return deny(why, "the spell pile is damaged");
    for (int i = 0; i < g->pile_n; i++) {
        int s = g->pile[i];
        if (s >= NUM_SPELLS) return deny(why, "a spell in the pile is damaged");
        if (g->up[s] || (g->known[s] & ~all) || g->dealt[s]) return deny(why, "a spell in the pile is face up or dealt");
        places[s]++;
    }
    for (int p = 0; p < g->b.players; p++) {
        if (g->row_n[p] > NUM_SPELLS) return deny(why, "player %d's spells are damaged", p + 1);
        for (int i = 0; i < g->row_n[p]; i++) {
            int s = g->row[p][i];
            if (s >= NUM_SPELLS) return deny(why, "a spell of player %d is damaged", p + 1);
            if (!(g->known[s] >> p & 1) || g->known[s] & ~all) return deny(why, "the %s's knowledge is damaged", spells[s].name);
            if (g->up[s] && g->known[s] != all) return deny(why, "the face-up %s is known to all", spells[s].name);
            if (g->dealt[s] && (g->up[s] || g->known[s] != (1u << p)))
                return deny(why, "player %d's %s was shown or moved: it is no longer the dealt card", p + 1, spells[s].name);
            places[s]++;
        }
        int s = g->luck[p];
        if (s != NO_SPELL && (s >= NUM_SPELLS || !(g->known[s] >> p & 1) || g->known[s] & ~all || g->dealt[s] ||
                              (g->up[s] && g->known[s] != all)))
            return deny(why, "a luck slot is damaged");
        if (s != NO_SPELL) places[s]++;
    }
    for (int p = g->b.players; p < BEAN_MAX_SEATS; p++)
        if (g->row_n[p] || g->luck[p] != NO_SPELL) return deny(why, "spells lie at an empty seat");
    for (int s = 0; s < NUM_SPELLS; s++)
        if (places[s] != 1) return deny(why, "the %s spell is in %d places; every spell is in one", spells[s].name, places[s]);
    if (g->countdown != NO_SPELL && g->countdown >= NUM_SPELLS) return deny(why, "the countdown's card is damaged");
    for (int s = 0; s < NUM_SPELLS; s++)
        if (g->dealt[s] && g->countdown != NO_SPELL && spells[s].value >= spells[g->countdown].value)
            return deny(why, "the %s cannot be a dealt card: the start player's %s was the highest", spells[s].name,
                        spells[g->countdown].name);
    return true;
}

static bool validate_fields(const rabohnzel *g, reason *why) {
    for (int p = 0; p < g->b.players; p++) {
        if (g->b.fields[p] != g->b.rules.fields + g->b.third_field[p]) return deny(why, "player %d's fields are damaged", p + 1);
        for (int f = 0; f < BEAN_MAX_FIELDS; f++) {
            int power = g->power[p][f], type = f < g->b.fields[p] ? field_type(g, p, f) : BEAN_NONE;
            bool may = g->b.phase == PHASE_MAGIC && p == active(g) && type != BEAN_NONE && has_power(type);
            if (power > (may ? fresh_power(type, field_size(g, p, f)) : 0))
                return deny(why, "player %d's field %d has a power it cannot have", p + 1, f + 1);
        }
    }
    return true;
}

static bool validate_subs(const rabohnzel *g, reason *why) {
    int pending = bean_zone_len(&g->b, BEAN_ZONE_PENDING), n = g->b.players, a = active(g);
    if (g->sub >= NUM_SUBS) return deny(why, "the decision open is damaged");
    if ((g->sub == SUB_PENDING) != (pending == 1) || pending > 1) return deny(why, "a pending card waits outside its decision");
    if (g->sub == SUB_PENDING) {
        bool coin = g->pending_from == FROM_COIN;
        if (g->pending_from > FROM_COIN || g->pending_owner >= n) return deny(why, "the pending card is damaged");
        if (coin ? !in_attack(g) || g->pending_owner != g->defender
                 : in_attack(g) || g->pending_owner != a || g->b.phase != PHASE_MAGIC)
            return deny(why, "the pending card belongs to another moment");
    }
    if (in_attack(g)) {
        if (g->attacker >= n || g->defender >= n || g->attacker == g->defender || g->b.phase != PHASE_MAGIC)
            return deny(why, "the attack's players are damaged");
        if (g->sub != SUB_CHOOSE && g->sub != SUB_ACTIVATE && g->sub != SUB_PENDING)
            return deny(why, "an attack waits without a decision");
        if (g->sub == SUB_CHOOSE && (g->drawn_coin[0] >= coins(g, g->defender) || g->drawn_coin[1] >= coins(g, g->defender) ||
                                     g->drawn_coin[0] == g->drawn_coin[1]))
            return deny(why, "the attack's drawn coins are damaged");
    } else if (g->sub == SUB_CHOOSE || g->sub == SUB_ACTIVATE) {
        return deny(why, "an attack's decision without an attack");
    }
    if ((g->sub == SUB_GUARD || g->sub == SUB_ENCHANT) && g->sub_seat >= n) return deny(why, "the deciding player is damaged");
    if (g->sub == SUB_GUARD && (g->sub_seat == a || g->b.phase != PHASE_MAGIC)) return deny(why, "the guard window is damaged");
    if (g->sub == SUB_RELOCATE && g->relocated >= hand_len(g, a)) return deny(why, "the relocation is damaged");
    if ((g->sub == SUB_PLACE) != (g->placing != PLACE_NONE) || g->placing > PLACE_LUCK ||
        (g->sub == SUB_PLACE && placed_spell(g) == NO_SPELL))
        return deny(why, "the spell to place is damaged");
    return true;
}

static bool validate_flow(const rabohnzel *g, reason *why) {
    if (g->b.phase >= NUM_PHASES) return deny(why, "the phase is damaged");
    if (g->b.rules.third_field_cost) return deny(why, "the rules are damaged: no field is bought in Rabohnzel");
    if (g->commerce && (!bean_zone_len(&g->b, BEAN_ZONE_FACE_UP) || bean_zone_top(&g->b, BEAN_ZONE_FACE_UP) != g->commerce_type))
        return deny(why, "the commerce card is the last face-up card");
    if (g->drawn && g->b.phase != PHASE_DRAW) return deny(why, "cards are drawn outside phase 4");
    /* Phase 3 goes on past the active player once their part is done: cards they still had to plant
     * would be left set aside into phase 4 (fuzz_table found a table saying so). */
    if (g->b.phase == BEAN_PLANT_TRADED && g->active_done && bean_to_plant(&g->b, active(g)))
        return deny(why, "player %d still has cards to plant, but their part of phase 3 is over", active(g) + 1);
    if (g->b.phase == BEAN_OVER && (g->river || g->sub || in_attack(g))) return deny(why, "a finished game has decisions open");
    if (g->rules.sword_chain_max < 1 || g->rules.pluck_card > PLUCK_RANDOM) return deny(why, "the rules are damaged");
    if (g->draws > g->rules.sword_chain_max) return deny(why, "the attack has drawn more coins than it may");
    return true;
}

static bool rabohnzel_validate(const void *st, reason *why) {
    const rabohnzel *g = st;
    if (g->b.players < 3 || g->b.players > 5) return deny(why, "Rabohnzel has 3 to 5 players");
    if (!bytes_are_bools(&g->rules.guard_window, 1) || !bytes_are_bools(&g->rules.cape_final_harvest, 1) ||
        !bytes_are_bools(g->up, sizeof g->up) || !bytes_are_bools(g->dealt, sizeof g->dealt) ||
        !bytes_are_bools(&g->aggression, 1) || !bytes_are_bools(&g->river, 1) || !bytes_are_bools(&g->drawn, 1) ||
        !bytes_are_bools(&g->commerce, 1) || !bytes_are_bools(&g->active_done, 1) ||
        !bytes_are_bools(&g->guard_again, 1))
        return deny(why, "a yes-or-no field of the state is damaged");
    return bean_validate(&g->b, why) && validate_flow(g, why) && validate_spells(g, why) && validate_fields(g, why) &&
           validate_subs(g, why) && bean_at_decision(&rabohnzel_beans, g, why);
}

/* ==================================================================== sampling */

/* The spells `viewer` does not know (in others' rows, luck slots and the pile) are dealt again among
 * their places; a place holding a dealt card gets one worth less than the countdown's. */
/* What everyone knows of the dealt spells: the start player's is the highest (the countdown). Its
 * value bounds the others' when it was shown (countdown) or the viewer sees it; else (a table built
 * without a countdown) *floor gets the highest dealt value the viewer sees elsewhere, which the start
 * player's hidden card must beat. */
static int dealt_limit(const rabohnzel *g, int viewer, int *floor) {
    if (g->countdown != NO_SPELL) return spells[g->countdown].value;
    int start = g->b.start;
    for (int i = 0; i < g->row_n[start]; i++) {
        int s = g->row[start][i];
        if (g->dealt[s] && (start == viewer || sees(g, viewer, s))) return spells[s].value;
    }
    for (int p = 0; p < g->b.players; p++)
        for (int i = 0; p != start && i < g->row_n[p]; i++) {
            int s = g->row[p][i];
            if (g->dealt[s] && (p == viewer || sees(g, viewer, s)) && spells[s].value > *floor) *floor = spells[s].value;
        }
    return 99;
}

/* rng_shuffle_multiset for the spells: each is one card, so a bit each sorts them. */
static void shuffle_spells(uint8_t *cards, int n, rng *r) {
    _Static_assert(NUM_SPELLS <= 32, "a spell is a bit of a word");
    uint32_t set = 0;
    int distinct = 0;
    for (int i = 0; i < n; i++)
        if (cards[i] < NUM_SPELLS) distinct += !(set >> cards[i] & 1), set |= 1u << cards[i];
    if (distinct != n) { /* no valid state gets here: a spell twice, or no spell */
        rng_shuffle_multiset(r, cards, n);
        return;
    }
    for (int i = 0; set; set &= set - 1) cards[i++] = (uint8_t)lowest_bit(set);
    rng_shuffle_bytes(r, cards, n);
}

/* Spell cards[k] goes to *slot (taken out of the `left` still to place), known to the seats `known`. */
static void place_spell(rabohnzel *g, uint8_t *slot, uint8_t *cards, int k, int *left, uint8_t known, bool dealt) {
    int s = cards[k];
    cards[k] = cards[--*left];
    *slot = (uint8_t)s;
    g->known[s] = known;
    g->dealt[s] = dealt;
    g->up[s] = false;
}

static void sample_spells(rabohnzel *g, int viewer, rng *r) {
    uint8_t cards[NUM_SPELLS], *slot[NUM_SPELLS];
    bool dealt_slot[NUM_SPELLS];
    int n = 0, start = g->b.start, start_slot = -1;
    for (int p = 0; p < g->b.players; p++)
        for (int i = 0; p != viewer && i < g->row_n[p]; i++)
            if (!sees(g, viewer, g->row[p][i])) {
                if (p == start && g->dealt[g->row[p][i]]) start_slot = n;
                slot[n] = &g->row[p][i], dealt_slot[n] = g->dealt[g->row[p][i]], cards[n++] = g->row[p][i];
            }
    for (int p = 0; p < g->b.players; p++)
        if (p != viewer && g->luck[p] != NO_SPELL && !sees(g, viewer, g->luck[p]))
            slot[n] = &g->luck[p], dealt_slot[n] = false, cards[n++] = g->luck[p];
    for (int i = 0; i < g->pile_n; i++) /* a card the viewer knows to be in the pile stays there */
        if (!sees(g, viewer, g->pile[i])) slot[n] = &g->pile[i], dealt_slot[n] = false, cards[n++] = g->pile[i];
    uint8_t known[NUM_SPELLS];
    for (int i = 0; i < n; i++) known[i] = g->known[cards[i]];
    shuffle_spells(cards, n, r); /* from the spells sorted: their places are the truth */
    int floor = 0, limit = dealt_limit(g, viewer, &floor), left = n;
    /* A shown countdown bounds every hidden dealt card, the start player's too (as validate checks): in
     * play the start player's dealt card is the countdown, shown, but a table may hold both. */
    if (g->countdown != NO_SPELL) start_slot = -1;
    /* the start player's hidden dealt card first (the highest dealt: above every other one seen), then
     * the other dealt places (only lower values), then the rest */
    if (start_slot >= 0) {
        int k = 0;
        while (k < left - 1 && spells[cards[k]].value <= floor) k++; /* the truth shows one exists */
        limit = spells[cards[k]].value;
        place_spell(g, slot[start_slot], cards, k, &left, known[start_slot], true);
    }
    for (int i = 0; i < n; i++)
        if (dealt_slot[i] && i != start_slot) {
            int k = 0;
            while (k < left - 1 && spells[cards[k]].value >= limit) k++;
            place_spell(g, slot[i], cards, k, &left, known[i], true);
        }
    for (int i = 0; i < n; i++)
        if (!dealt_slot[i]) place_spell(g, slot[i], cards, 0, &left, known[i], false);
}

static void sample_once(rabohnzel *g, int viewer, rng *r) {
    /* A Wise card waiting for its owner's decision is one of the unseen cards to the others. */
    bean_sample(&g->b, viewer, g->sub == SUB_PENDING && g->pending_from == FROM_WISE && viewer != g->pending_owner, r);
    sample_spells(g, viewer, r);
}

/* Some decisions exist because of hidden cards (a magic phase held open only by a Magic Bean to cast;
 * a relocation with two kinds of card left): everyone sees that they exist, so a sample keeps them,
 * dealing again until it does (a few tries: the true deal is one of the many that do). */
static void rabohnzel_sample(void *st, int viewer, rng *r) {
    rabohnzel *g = st, original = *g;
    for (int attempt = 0; attempt < 200; attempt++) {
        if (attempt) *g = original;
        sample_once(g, viewer, r);
        if (settled_already(g)) return;
    }
}

/* ==================================================================== variants' primitives */

static bool rabohnzel_move(void *st, const char *from, const char *to, const card_move *m, reason *why) {
    return bean_move_cards(&rabohnzel_beans, &((rabohnzel *)st)->b, from, to, m, rabohnzel_validate, why);
}

static bool rabohnzel_add(void *st, const char *counter, int delta, reason *why) {
    (void)st, (void)delta;
    return deny(why, "'%.60s' is no counter: Rabohnzel counts with cards (coins are cards: move them)", counter);
}

/* ==================================================================== queries and scoring */

/* 100 Bohnpfennig make a Bohntaler, and the pfennig never reach 100: score = 100 x taler + pf. */
static void rabohnzel_scores(const void *st, int *out) {
    const rabohnzel *g = st;
    for (int p = 0; p < g->b.players; p++) out[p] = 100 * coins(g, p) + pfennig(g, p);
}

static int rabohnzel_winners(const void *st, int *out) { return bean_winners(&rabohnzel_beans, st, out); }

static void rabohnzel_write_table(const void *st, int viewer, tree_writer *w) {
    bean_write_table(&rabohnzel_beans, st, viewer, w);
}

/* The beans (count, provisional meter, power) and the spells (value, timing). */
static void rabohnzel_write_cards(const void *st, tree_writer *w) {
    static const char *const power_text[NUM_TYPES] = {
        [PLUCK] = "pluck N: take the back card of player N's hand", [CAPE] = "none; a harvest of 2+ draws a spell",
        [COMMON] = "common: a coin of each other player at random; all but the highest numbers are discarded (4+ beans)",
        [WISE] = "wise: draw a card (plant it at once with 4+ beans)", [MAGIC] = "magic S: activate a spell (twice with 4+)",
        [PRINCESS] = "none", [SWORD] = "sword N: attack player N's coins"};
    static const char *const spell_text[NUM_SPELLS] = {
        [AGGRESSION] = "magic phase: common with 1+ beans, or a sword attack drawing two coins, keeping one",
        [BEAN_FIELD] = "phase 3: a third field until your next harvest",
        [CARD_EXCHANGE] = "any time: give this card to N, take N's spell at position K",
        [COMMERCE] = "phase 2, before trading: a third face-up card, which you may discard in phase 3",
        [CARD_RIVER] = "any time: plant your front card again and again until stop or the phase's end",
        [DECK_SPELL] = "phase 2: the discard pile's top card joins your face-up cards",
        [BEAN_ENCHANTMENT] = "phase 3: plant a bean onto a lone bean of another type, which counts as it",
        [PLAYER_ENCHANTMENT] = "any time: every other player plants their front card; then you may",
        [RELOCATION] = "any time (also after drawing): reorder your hand",
        [HAND_CARDS] = "phase 4, when nothing was traded: draw 5 instead of 3",
        [LUCK] = "any time: the spell pile's top card is yours, face up, until your turn ends"};
    const rabohnzel *g = st;
    w->open_map(w);
    for (int t = 0; t < NUM_TYPES; t++) {
        w->key(w, beans[t].name);
        w->open_map(w);
        tw_key_str(w, "kind", "bean");
        tw_key_num(w, "count", g->b.rules.count[t]);
        w->key(w, "meter");
        w->open_list(w);
        for (int k = 0; k < 4; k++) w->num(w, g->b.rules.meter[t][k]);
        w->close(w);
        tw_key_bool(w, "provisional", g->rules.provisional >> t & 1);
        tw_key_str(w, "text", power_text[t]);
        tw_key_str(w, "german", beans[t].german);
        w->close(w);
    }
    for (int s = 0; s < NUM_SPELLS; s++) {
        w->key(w, spells[s].name);
        w->open_map(w);
        tw_key_str(w, "kind", "spell");
        tw_key_num(w, "count", 1);
        tw_key_num(w, "value", spells[s].value);
        tw_key_str(w, "text", spell_text[s]);
        tw_key_str(w, "german", spells[s].german);
        w->close(w);
    }
    w->close(w);
}

/* ==================================================================== the definition */

static const char rabohnzel_rules_text[] =
    "Rabohnzel (Uwe Rosenberg) — the fairy-tale Bohnanza for 3 to 5 players: magic beans, eleven spells,\n"
    "Sword attacks. Bohnanza's rules hold (`meeple rules bohnanza`: trading as single decisions, harvests,\n"
    "bean protection, hands in order) except where this says otherwise.\n"
    "\n"
    "THE BEANOMETERS ARE PROVISIONAL. Nobody on this project has found the real Rabohnzel meters. Each\n"
    "bean takes the Bohnanza meter of the bean with the nearest card count (the less generous on a tie);\n"
    "Princess and Cape follow the rulebook's hints instead (Princess \"a very good beanometer despite 17\n"
    "cards\"; Cape pays 1-3 coins from 3 cards up). To use the real ones, write them into\n"
    "scripts/variants/rabohnzel/beanometers.lua and play with --variant beanometers (or pass\n"
    "params = {beanometer = {...}}). meeple.cards(\"rabohnzel\") says which meters are provisional.\n"
    "\n"
    "Beans (cards; power; provisional coins for 1/2/3/4): pluck 9 (take a hand's back card; 2/4/5/6),\n"
    "cape 11 (none, a harvest of 2+ draws a spell; 3/4/6/-), common 13 (coin purge with 4+; 3/5/6/7),\n"
    "wise 14 (draw a card, plant it with 4+; 3/5/6/7), magic 15 (activate a spell, twice with 4+; 3/5/7/8),\n"
    "princess 17 (none; 2/4/5/6), sword 19 (attack a player's coins; 4/6/8/10).\n"
    "Spells (value in pfennig): aggression 1, bean_field 1, card_exchange 2, commerce 3, card_river 4,\n"
    "deck_spell 5, bean_enchantment 6, player_enchantment 7, relocation 8, hand_cards 9, luck 10.\n"
    "\n"
    "Setup: one spell face down to each player, the rest the spell pile; the highest value starts (the\n"
    "countdown) and shows it: everyone knows each other dealt spell is worth less. 5 cards each; always 2\n"
    "fields (a third is never bought). The deck runs out 3 times with 3 players, 4 with 4-5.\n"
    "\n"
    "A turn: phase 1 plant (as Bohnanza); phase 1½ magic; phase 2 trade; phase 3 plant; phase 4 draw.\n"
    "Magic phase: each field of a power type gets its power (once, a magic field of 4+ twice), lost when\n"
    "the field is emptied, fresh when a card goes onto an empty field during the phase (not a Pluck\n"
    "coin's). First the guard window: when the active player has a sword or common field, every other\n"
    "player in turn may harvest (harvest F ... pass); it opens again before the next main decision\n"
    "whenever a Sword or Common power comes fresh during the phase. Then: pluck N, wise, common, magic\n"
    "S, sword N [aggression] (@F names the field when two offer a power), cast S (a Magic Bean from the\n"
    "hand onto the discard pile activates face-down spell S), spells, harvest F, done. The phase is\n"
    "skipped when there is no power field, nothing to cast and no spell usable.\n"
    "  pluck N   the back card of N's hand, shown: keep (back of your hand, known to all) or plant F\n"
    "  wise      the deck's top card: to your hand unseen; with 4+ Wise Beans keep it or plant F\n"
    "  common    (4+ Common Beans, or 1+ with aggression) a random coin of each other player with coins;\n"
    "            those of the highest bean number go back, the others onto the discard pile\n"
    "  sword N   a random coin of N's: princess -> yours; sword -> N counterattacks (roles swap);\n"
    "            pluck -> N takes your back card (keep or plant F, no harvest, no power); magic -> you\n"
    "            may activate a spell; cape, common, wise -> nothing. No harvests during an attack.\n"
    "            With aggression the first draw takes two coins and you choose one (choose B).\n"
    "Cape bonus: harvesting a cape field of 2+ cards also takes the spell pile's top card, face down.\n"
    "Spells: activated = face up (magic S, cast S, a Magic coin, place up, luck); used once (use S ...),\n"
    "then face down again; all of a player's active spells turn face down at the end of their turn.\n"
    "Used at the active player's main decision of a phase: card_exchange, card_river, player_enchantment,\n"
    "relocation, luck any time; commerce (before the first trade step) and deck_spell in phase 2;\n"
    "bean_field and bean_enchantment (enchant B F) in phase 3; hand_cards in phase 4; aggression in the\n"
    "magic phase through common and sword N aggression.\n"
    "End: the last pass running out ends the game as in Bohnanza (also in phase 1½: phases 2 and 3 are\n"
    "played). Every field is harvested clockwise from the player whose turn it was (Cape bonus too).\n"
    "Score = 100 x coins (taler) + the row's spell values (pfennig); ties: tie_break.\n"
    "\n"
    "Rulings (this project's; see docs/games/rabohnzel.md):\n"
    "  1. Beanometers: PROVISIONAL, as above.\n"
    "  2. Cast Magic Beans go face up onto the discard pile (the seed; deck_spell relies on it).\n"
    "  3. A Magic Bean is cast from any place in the hand; the rest keeps its order.\n"
    "  4. Powers are per field: two fields of one type give two powers.\n"
    "  5. A fresh power comes with every plant onto an empty field in the magic phase (a stolen or drawn\n"
    "     card, a river plant, the active player's own player_enchantment plant), not a Pluck coin's.\n"
    "  6. Thresholds (4 or more) count the one field's cards, enchanted ones too, when used.\n"
    "  7. Common hits every other player with coins; ties for the highest number all go back; discards\n"
    "     go in seat order.\n"
    "  8. Powers and spells are listed only when they can act (a coin to attack, a card to take, a\n"
    "     spell to take).\n"
    "  9. The counterattack is automatic; neither party of an attack may harvest until it ends. When a\n"
    "     counterattack would start and both hold only Sword coins, the attack ends; so it does after\n"
    "     sword_chain_max draws.\n"
    " 10. Aggression's double draw is the first draw of an attack with one's own Sword field; both coins\n"
    "     are shown; one must be chosen.\n"
    " 11. A Magic coin's activation is optional (activate none).\n"
    " 12. Spells stay with their owner after use and may be activated again; only face-down cards are\n"
    "     activated.\n"
    " 13. bean_field's third field ends at its owner's next harvest of any field, in any turn; the\n"
    "     occupied fields close ranks (powers and all).\n"
    " 14. card_exchange takes a spell by its place in the other row (face-down cards blind), and the\n"
    "     taken card is then placed: place up (active) or place down.\n"
    " 15. commerce: only the third card may be discarded; it is usable until the first trade step. A\n"
    "     face-up card given, picked or planted is never the commerce card while another of its type is\n"
    "     there.\n"
    " 16. hand_cards: \"without trading\" means no accepted proposal or offer (a gift counts).\n"
    " 17. luck: not usable with an empty spell pile, nor with a card in the luck slot; the borrowed card\n"
    "     is not scored and goes back (the pile shuffled) when the turn ends, also when the game ends.\n"
    " 18. The guard window (guard_window); harvests otherwise only at one's own decisions. It opens\n"
    "     again when the active player gains a Sword or Common power mid-phase (a stolen, drawn, river\n"
    "     or enchanted card planted on an empty field): no attack or purge before its targets could\n"
    "     harvest.\n"
    " 19. A deck run out in phase 1½ (a Wise draw) still lets the turn play phases 2 and 3.\n"
    " 20. The final harvest goes clockwise from the player whose turn it was: it decides who gets the\n"
    "     last spells of the pile.\n"
    " 21. The start player's card is public (shown at setup).\n"
    " 22. Pluck takes the back card (pluck_card; the Korean card texts say a random one).\n"
    " 23. In the seed's first example only the harvested Pluck field's power is lost.\n"
    "  -  Offered cards are shown, as in Bohnanza: give K shows the hand card to all, and it stays known\n"
    "     while it stays in that hand. A known card and its hidden twin are two choices wherever an\n"
    "     action names a hand position (give K, pick K, cast S @K).\n"
    "  -  Every game ends: reveal = 0 with draw = 0 is refused (the deck would never run out).\n"
    "  -  Spells are used, powers applied and beans cast only at the active player's main decision of a\n"
    "     phase (not inside a proposal, a pending card, an attack, a relocation, an enchantment). A main\n"
    "     decision with nothing but done left ends by itself.\n"
    "  -  While card_river runs, only its plants (plant F), harvests and stop are possible (and in the\n"
    "     magic phase powers, casts and spells); it ends with the phase (stop, or done). A phase under a\n"
    "     running river never ends by itself, even with an empty hand: no trading before stop.\n"
    "  -  The luck slot holds one card: luck used again in the same turn (re-activated) is refused while\n"
    "     the slot holds the first card (the texts never give a player two slot cards).\n"
    "Open question (the sources are silent): the real beanometers (see Beanometers above).\n"
    "\n"
    "Action grammar, besides Bohnanza's (no buy): keep, pass (guard window), pluck N, wise, common,\n"
    "magic S, sword N [aggression] (each [@F]), choose B, activate S, activate none, cast S [@K], use S\n"
    "(use card_exchange N K), place up, place down, stop, enchant B F, discard B, skip, order B, draw.\n"
    "\n"
    "State table: Bohnanza's, fields as {beans, enchanted, power}, harvest entries with spell = true when\n"
    "harvesting that Cape field of 2+ draws a spell (the pile has one), and river, traded, drawn,\n"
    "commerce_card, countdown, spell_pile, pending {card, owner, from}, attack {attacker, defender, draws,\n"
    "aggression, drawn, stage}, guard, enchanting, relocating, placing; per player spells = {{name, up,\n"
    "known, dealt}}, luck_slot = {name, up, known}, shown = {{at, bean}}. A view hides face-down spells from those\n"
    "not in known, the spell pile (a size), other hands (sizes, but shown cards) and another's Wise card.\n";

static const char *const hand_names[NUM_TYPES][BEAN_MAX_CARDS] = {
    BEAN_HAND_NAMES("pluck"), BEAN_HAND_NAMES("cape"),     BEAN_HAND_NAMES("common"), BEAN_HAND_NAMES("wise"),
    BEAN_HAND_NAMES("magic"), BEAN_HAND_NAMES("princess"), BEAN_HAND_NAMES("sword")};

static const bean_game rabohnzel_beans = {
    .name = "rabohnzel",
    .kinds = beans,
    .types = NUM_TYPES,
    .up_names = up_names,
    .hand_names = hand_names,
    .phase_names = phase_names,
    .num_phases = NUM_PHASES,
    .phase_expect = "the phase is plant, magic, trade, plant_traded, draw or over",
    .words = "plant, done, harvest, propose, ask, offer, pass, give, want, send, cancel, accept, reject, pick, keep, "
             "pluck, wise, common, magic, sword, choose, activate, cast, use, place, stop, enchant, discard, skip, "
             "order, draw",
    .hand_knowledge = true,
    .temporary_third_field = true,
    .table_keys = table_keys,
    .player_keys = player_keys,
    .write_extra = rab_write_extra,
    .write_player_extra = rab_write_player_extra,
    .write_field = rab_write_field,
    .write_harvest_extra = rab_write_harvest_extra,
    .read_extra = rab_read_extra,
    .read_player_extra = rab_read_player_extra,
    .read_field = rab_read_field,
    .params = rabohnzel_params,
    .num_params = NUM_PARAMS,
    .rules_defaults = rabohnzel_rules_defaults,
    .rng_stream = RABOHNZEL_RNG_STREAM,
    .settle = settle,
    .state_size = sizeof(rabohnzel),
    .scores = rabohnzel_scores,
};

_Static_assert(sizeof(rabohnzel) <= MEEPLE_MAX_STATE, "a state must fit MEEPLE_MAX_STATE (game.h)");

/* ==================================================================== playout policy */

/* A search playout's choice, as greedy_rabohnzel plays (bots/greedy_rabohnzel.lua): its magic rules in
 * their order of priority, each a band of worths, and within a band what that rule prefers; planting,
 * harvests and trading below them as the bean core's policy plays them (greedy_bohnanza's). Imagined
 * opponents then use their powers, attack and cast as the real greedy ones do: a policy that ended
 * every magic phase at once lost to them (200 games, one against three: 1.0% of the wins). */
enum {
    BAND_FULL_HARVEST = 20, BAND_PENDING = 19, BAND_CHOOSE = 18, BAND_ACTIVATE = 17, BAND_PLACE = 16,
    BAND_ORDER = 15, BAND_GUARD = 14, BAND_RIVER = 13, BAND_WISE = 12, BAND_COMMON = 11, BAND_PLUCK = 10,
    BAND_SWORD = 9, BAND_MAGIC = 8, BAND_CAST = 7, BAND_USE = 6, BAND_DISCARD = 5,
};
#define BAND(b) ((b) * 10000000) /* above every worth of the bean core's policy (beans.c) */
#define UNRANKED 0               /* no rule wants the action: only the bot's fallback score might */

/* One decision's policy: the bean core's (what the actions share, bean_policy) and the decider. */
typedef struct rab_policy {
    bean_policy bean;
    const rabohnzel *g;
    int seat;
} rab_policy;

static int quarters(rab_policy *p, int type) { return bean_policy_quarters(&p->bean, p->seat, type); }

/* Whether a bean of `type` would join one of the decider's fields. */
static bool grows(rab_policy *p, int type) { return bean_policy_grows(&p->bean, p->seat, type); }

/* The spells worth activating, best first (0: not wanted); aggression only with a field to use it. */
static int spell_rank(const rabohnzel *g, int seat, int s) {
    switch (s) {
    case LUCK: return 6;
    case HAND_CARDS: return 5;
    case AGGRESSION: return has_field_of(g, seat, SWORD) || has_field_of(g, seat, COMMON) ? 4 : 0;
    case CARD_RIVER: return 3;
    case COMMERCE: case BEAN_FIELD: return 2;
    case DECK_SPELL: return 1;
    default: return 0;
    }
}

static int ranked_spell(const rabohnzel *g, int seat, int band, int s) {
    int rank = spell_rank(g, seat, s);
    return rank ? BAND(band) + rank : UNRANKED;
}

/* A Sword target: the share of its coins a Sword takes less half the share that strikes back (with
 * aggression half a coin more), in hundred-thousandths; 0 when that share is not above nothing. */
static int sword_worth(const rabohnzel *g, int target, bool aggression) {
    int n = coins(g, target), zone = BEAN_ZONE_COINS(target);
    int twice = 2 * bean_count_in(&g->b, zone, PRINCESS) - bean_count_in(&g->b, zone, SWORD);
    if (!n || twice <= 0) return UNRANKED;
    return BAND(BAND_SWORD) + twice * 100000 / (2 * n) + (aggression ? 50000 : 0);
}

/* The coin greedy_rabohnzel takes from aggression's two: what it does in the attacker's pile. */
static int coin_result(int type) {
    switch (type) {
    case PRINCESS: return 5;
    case MAGIC: return 4;
    case PLUCK: return 1;
    case SWORD: return 0;
    default: return 3;
    }
}

/* The spells used at a main decision, in greedy_rabohnzel's order; the ones it never uses 0. */
static int use_worth(rab_policy *p, int s) {
    const rabohnzel *g = p->g;
    int seat = p->seat;
    switch (s) {
    case LUCK: return BAND(BAND_USE) + 6;
    case HAND_CARDS: return BAND(BAND_USE) + 5;
    case COMMERCE: return BAND(BAND_USE) + 4;
    case CARD_RIVER:
        return hand_len(g, seat) && grows(p, hand(g, seat)[0]) ? BAND(BAND_USE) + 3 : UNRANKED;
    case DECK_SPELL:
        return bean_zone_len(&g->b, BEAN_ZONE_DISCARD) && grows(p, bean_zone_top(&g->b, BEAN_ZONE_DISCARD))
                   ? BAND(BAND_USE) + 2 : UNRANKED;
    case BEAN_FIELD: {
        const uint8_t *aside = bean_zone(&g->b, BEAN_ZONE_SET_ASIDE(seat));
        for (int k = 0; k < bean_zone_len(&g->b, BEAN_ZONE_SET_ASIDE(seat)); k++)
            if (bean_policy_hurts(&p->bean, seat, aside[k])) return BAND(BAND_USE) + 1;
        return UNRANKED;
    }
    default: return UNRANKED;
    }
}

/* player_enchantment: the seat plants its front card as beans.plant would, onto the field it joins
 * (else the lowest empty one); in phase 1 after a planting, a card that joins no field makes the bot
 * ask for `done`, which is not on offer here, so it skips (the others plant on the first field). A
 * card that fits no field: outside phase 2 the field paying most is harvested, else it skips. */
static int enchant_worth(rab_policy *p, action_t a) {
    const rabohnzel *g = p->g;
    int seat = p->seat, front = hand_len(g, seat) ? hand(g, seat)[0] : BEAN_NONE, f = bean_act_x(a);
    bool fits = front != BEAN_NONE && bean_first_fit(&g->b, seat, front) >= 0;
    bool declines = fits && g->b.phase == BEAN_PLANT && g->b.planted >= 1 && !grows(p, front);
    switch (bean_act_kind(a)) {
    case BEAN_ACT_PLANT:
        if (declines) return 50 - f;
        return 100 + (field_size(g, seat, f) ? 10 + field_size(g, seat, f) : 0);
    case ACT_SKIP: return declines ? 100 : !fits ? 2 : -1;
    case BEAN_ACT_HARVEST: {
        if (fits) return -1;
        if (g->b.phase == BEAN_TRADE) return 0;
        int size = field_size(g, seat, f);
        return 100 + 10 * bean_payout(&g->b, field_type(g, seat, f), size) - size;
    }
    default: return -1;
    }
}

/* A harvest: a field paying its most first of all (the first such field first); in the guard window,
 * thinning out Princess coins by the field paying most; else as the bean core plays it. */
static int harvest_worth(rab_policy *p, action_t a) {
    const rabohnzel *g = p->g;
    int seat = p->seat, f = bean_act_x(a), type = field_type(g, seat, f);
    if (bean_policy_full(&g->b, type, field_size(g, seat, f))) return BAND(BAND_FULL_HARVEST) + BEAN_MAX_FIELDS - f;
    if (g->sub == SUB_GUARD) {
        int paid = bean_payout(&g->b, type, field_size(g, seat, f));
        return bean_count_in(&g->b, BEAN_ZONE_COINS(seat), PRINCESS) && paid > 0 ? BAND(BAND_GUARD) + 1 + paid : -1;
    }
    if (g->sub == SUB_ENCHANT) return enchant_worth(p, a);
    return bean_policy_harvest_worth(&p->bean, g->b.to_move, f); /* bean_policy_worth's */
}

/* A planting: a pending card only onto its own kind (else kept); the river's front card only while it
 * joins a field (else stop); otherwise as the bean core plays it. */
static int plant_worth(rab_policy *p, action_t a) {
    const rabohnzel *g = p->g;
    int seat = p->seat, f = bean_act_x(a);
    if (g->sub == SUB_ENCHANT) return enchant_worth(p, a);
    if (g->sub == SUB_PENDING)
        return field_size(g, seat, f) && field_type(g, seat, f) == pending_type(g) ? BAND(BAND_PENDING) + 1 : -1;
    if (g->river && at_main(g)) {
        if (!grows(p, hand(g, seat)[0])) return -1;
        return BAND(BAND_RIVER) + (field_size(g, seat, f) ? 10 + field_size(g, seat, f) : 0);
    }
    return bean_policy_worth(&p->bean, a);
}

static int policy_worth(rab_policy *p, action_t a) {
    const rabohnzel *g = p->g;
    int seat = p->seat, x = bean_act_x(a);
    switch (bean_act_kind(a)) {
    case BEAN_ACT_HARVEST: return harvest_worth(p, a);
    case BEAN_ACT_PLANT: return plant_worth(p, a);
    case ACT_KEEP: return BAND(BAND_PENDING);
    case ACT_CHOOSE: return BAND(BAND_CHOOSE) + coin_result(x);
    case ACT_ACTIVATE: return ranked_spell(g, seat, BAND_ACTIVATE, x);
    case ACT_PLACE_UP: return BAND(BAND_PLACE);
    case ACT_ORDER: return BAND(BAND_ORDER) + quarters(p, x);
    case BEAN_ACT_PASS:
        if (g->sub != SUB_GUARD) return bean_policy_worth(&p->bean, a);
        return BAND(BAND_GUARD) + (bean_count_in(&g->b, BEAN_ZONE_COINS(seat), PRINCESS) ? 0 : 100);
    case ACT_STOP: return BAND(BAND_RIVER);
    case ACT_WISE: return BAND(BAND_WISE);
    case ACT_COMMON: return BAND(BAND_COMMON);
    case ACT_PLUCK: return BAND(BAND_PLUCK) + hand_len(g, x);
    case ACT_SWORD: return sword_worth(g, x, bean_act_z(a) != 0);
    case ACT_MAGIC: return ranked_spell(g, seat, BAND_MAGIC, x);
    case ACT_CAST: return ranked_spell(g, seat, BAND_CAST, x);
    case ACT_USE: return use_worth(p, x);
    case ACT_DISCARD: {
        int face_up = bean_zone_len(&g->b, BEAN_ZONE_FACE_UP);
        bool hurts = face_up && bean_policy_hurts(&p->bean, seat, bean_zone_top(&g->b, BEAN_ZONE_FACE_UP));
        return hurts ? BAND(BAND_DISCARD) : UNRANKED;
    }
    /* greedy_rabohnzel's fallback score when no rule decides: end the step rather than start
     * something (done and pass keep the bean core's worths, which rank them the same way) */
    case ACT_DRAW: return 3;
    case ACT_SKIP: return g->sub == SUB_ENCHANT ? enchant_worth(p, a) : 2;
    case ACT_ACTIVATE_NONE: return 2;
    case ACT_PLACE_DOWN: case ACT_ENCHANT: return UNRANKED;
    default: return bean_policy_worth(&p->bean, a);
    }
}

static int other_worth(void *p, action_t a) { return policy_worth(p, a); }

static void policy_open(rab_policy *p, const rabohnzel *g) {
    bean_policy_open(&p->bean, &g->b);
    p->g = g;
    p->seat = decider(g);
}

static int rabohnzel_playout_worth(const void *st, action_t a, rng *r) {
    (void)r; /* no draw of its own: the host breaks ties at random */
    rab_policy p;
    policy_open(&p, st);
    return policy_worth(&p, a);
}

/* What the decision's actions share (the decider, the fields' wants) is worked out once. */
static void rabohnzel_playout_worths(const void *st, const action_t *acts, int n, int *out) {
    rab_policy p;
    policy_open(&p, st);
    if (p.bean.building) bean_build_worths(&p.bean, acts, n, out, other_worth, &p);
    else
        for (int i = 0; i < n; i++) out[i] = policy_worth(&p, acts[i]);
}

/* How rabohnzel_playout_pick weighs a decision's harvests, the same for all of them: as the bean core
 * does once a full field is ruled out (harvest_worth with no guard window or enchantment, the decider
 * the bean core's mover), by the guard window's rule, or by policy_worth. */
enum { PICK_HARVEST_CORE, PICK_HARVEST_GUARD, PICK_HARVEST_OTHER };

/* harvest_worth of the decider's field f, for PICK_HARVEST_CORE and PICK_HARVEST_GUARD (`princess`:
 * the decider holds a Princess coin, asked once for the guard window's actions). */
ALWAYS_INLINED static inline int pick_harvest_worth(rab_policy *p, int f, int mode, bool princess) {
    const bean_table *b = &p->g->b;
    int type = bean_field_type(b, p->seat, f), size = bean_field_size(b, p->seat, f);
    if (bean_policy_full(b, type, size)) return BAND(BAND_FULL_HARVEST) + BEAN_MAX_FIELDS - f;
    if (mode == PICK_HARVEST_GUARD) {
        if (!princess) return -1; /* no coin to thin out: what the field pays does not matter */
        int paid = bean_payout(b, type, size);
        return paid > 0 ? BAND(BAND_GUARD) + 1 + paid : -1;
    }
    return bean_policy_stuck_harvest_worth(&p->bean, type, size); /* the bean core's, as harvest_worth */
}

/* bean_build_choose's worth of a tail action (the decider's harvests: a deal is built with no sub-step
 * open), a harvest weighed inline when pick_harvest_worth may. */
static int choose_tail_worth(void *ctx, action_t a) {
    rab_policy *p = ctx;
    const rabohnzel *g = p->g;
    if (bean_act_kind(a) == BEAN_ACT_HARVEST && g->sub != SUB_GUARD && g->sub != SUB_ENCHANT && p->seat == g->b.to_move)
        return pick_harvest_worth(p, bean_act_x(a), PICK_HARVEST_CORE, false);
    return policy_worth(p, a);
}

/* A playout's decision while a deal is built, with no list (playout_choose): rabohnzel_legal's first
 * case, the builder's actions and the decider's harvests after them. */
static bool rabohnzel_playout_choose(const void *st, rng *r, action_t *out) {
    const rabohnzel *g = st;
    if (g->b.phase != BEAN_TRADE || g->b.deal.stage != BEAN_DEAL_BUILD || attack_open(g)) return false;
    action_t tail[BEAN_MAX_FIELDS];
    rab_policy p;
    policy_open(&p, g);
    *out = bean_build_choose(&p.bean, tail, harvests(g, g->b.to_move, tail, 0), r, choose_tail_worth, &p);
    return true;
}

/* policy_worth, the kinds most non-building decisions list weighed here and inline (harvests, the
 * bean core's plantings, done outside trading, the guard window's pass, ask, which no rule wants), the
 * bean core's other kinds handed to it directly, only Rabohnzel's own kinds to policy_worth: that call
 * and its frame were most of what a decision's weighing cost. `plain_plant`: a planting is the bean
 * core's (no pending card, no enchantment, no river). */
ALWAYS_INLINED static inline int pick_worth(rab_policy *p, action_t a, int mode, bool princess, bool plain_plant) {
    const bean_table *b = &p->g->b;
    switch (bean_act_kind(a)) {
    case BEAN_ACT_HARVEST:
        return mode != PICK_HARVEST_OTHER ? pick_harvest_worth(p, bean_act_x(a), mode, princess) : policy_worth(p, a);
    case BEAN_ACT_PLANT: /* the bean core's worth; plant_worth where the planting is Rabohnzel's own */
        if (!plain_plant) return policy_worth(p, a);
        return bean_policy_plant_worth(b, b->to_move, bean_act_x(a));
    case BEAN_ACT_PLANT_TYPE:
        return bean_policy_plant_worth(b, b->to_move, bean_act_y(a));
    case BEAN_ACT_DONE: return b->phase != BEAN_TRADE ? 450 : bean_policy_trade_worth(&p->bean, a);
    case BEAN_ACT_PASS:
        if (mode == PICK_HARVEST_GUARD) return BAND(BAND_GUARD) + (princess ? 0 : 100);
        break;
    case BEAN_ACT_ASK: return -1; /* bean_policy_worth's in every stage but a deal's building */
    case BEAN_ACT_PROPOSE: /* most proposals ruled out without the call */
        if (b->phase != BEAN_TRADE || b->deal.stage != BEAN_DEAL_NONE || !bean_policy_proposes_to(b, bean_act_x(a)))
            return -1;
        return bean_policy_trade_worth(&p->bean, a);
    case BEAN_ACT_BUY: return bean_policy_worth(&p->bean, a);
    case ACT_KEEP: return BAND(BAND_PENDING);
    case ACT_MAGIC: return ranked_spell(p->g, p->seat, BAND_MAGIC, bean_act_x(a));
    case ACT_CAST: return ranked_spell(p->g, p->seat, BAND_CAST, bean_act_x(a));
    case ACT_USE: return use_worth(p, bean_act_x(a));
    default: if (bean_act_kind(a) >= BEAN_ACTS) return policy_worth(p, a);
    }
    /* the bean core's trading kinds, as bean_policy_worth weighs them outside a deal's building */
    return b->phase == BEAN_TRADE ? bean_policy_trade_worth(&p->bean, a) : -1;
}

/* The action rabohnzel_playout_worths ranks highest, ties drawn as the host draws them (playout_pick):
 * no list of worths written and read again. */
static int rabohnzel_playout_pick(const void *st, const action_t *acts, int n, rng *r) {
    const rabohnzel *g = st;
    rab_policy p;
    policy_open(&p, g);
    if (p.bean.building) return bean_build_pick(&p.bean, acts, n, r, other_worth, &p);
    int mode = g->sub == SUB_GUARD ? PICK_HARVEST_GUARD
               : g->sub != SUB_ENCHANT && p.seat == g->b.to_move ? PICK_HARVEST_CORE : PICK_HARVEST_OTHER;
    bool princess = mode == PICK_HARVEST_GUARD && bean_count_in(&g->b, BEAN_ZONE_COINS(p.seat), PRINCESS);
    bool plain_plant = g->sub != SUB_ENCHANT && g->sub != SUB_PENDING && !g->river;
    worth_pick pick = worth_pick_first(pick_worth(&p, acts[0], mode, princess, plain_plant));
    for (int i = 1; i < n; i++) worth_pick_next(&pick, r, i, pick_worth(&p, acts[i], mode, princess, plain_plant));
    return pick.best;
}

/* Relocation's new order is its owner's secret; every other decision is made in the open. */
static bool rabohnzel_public_text(const void *st, action_t a, int viewer, char *out) {
    (void)st, (void)viewer;
    if (bean_act_kind(a) != ACT_ORDER) return false;
    snprintf(out, MEEPLE_PUBLIC_TEXT, "(rearranges their hand)");
    return true;
}

const game_def rabohnzel_game = {
    .name = "rabohnzel",
    .title = "Rabohnzel",
    .rules = rabohnzel_rules_text,
    .min_players = 3,
    .max_players = 5,
    .default_players = 4,
    .max_decisions = 30000, /* ten times or more the longest game the shipped bots played: 2,825 decisions */
    .state_size = sizeof(rabohnzel),
    .params = rabohnzel_params,
    .num_params = NUM_PARAMS,
    .params_check = rabohnzel_params_check,
    .setup = rabohnzel_setup,
    .num_players = bean_num_players,
    .turn = bean_turn,
    .to_move = bean_to_move,
    .turn_key = bean_turn_key,
    .is_over = bean_is_over,
    .legal = rabohnzel_legal,
    .check = rabohnzel_check,
    .apply = rabohnzel_apply,
    .scores = rabohnzel_scores,
    .winners = rabohnzel_winners,
    .action_text = rabohnzel_action_text,
    .public_text = rabohnzel_public_text,
    .information = INFORMATION_HIDDEN,
    .text_key = rabohnzel_text_key,
    .parse_action = rabohnzel_parse_action,
    .action_space = rabohnzel_action_space,
    .write_table = rabohnzel_write_table,
    .read_table = rabohnzel_read_table,
    .write_cards = rabohnzel_write_cards,
    .validate = rabohnzel_validate,
    .sample = rabohnzel_sample,
    .move = rabohnzel_move,
    .add = rabohnzel_add,
    .playout_worth = rabohnzel_playout_worth,
    .playout_worths = rabohnzel_playout_worths,
    .playout_pick = rabohnzel_playout_pick,
    .playout_choose = rabohnzel_playout_choose,
};
