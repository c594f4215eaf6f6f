/* bohnanza.c — Bohnanza, the base game for 3 to 5 players, by shared/rules/bohnanza.md.
 *
 * What only the base game has: its cards and editions, its parameters, setup, the turn's automatic
 * steps (phase 1 and 2, phase 3's planters, phase 4's draw and the end), its checks and the game_def.
 * Everything both bean games share (zones, planting, harvests, passes, trading, tables, sampling) is
 * the bean core, beans.c. */
#include "rules/games/bohnanza.h"

#include <string.h>

#include "rules/games/beans.h"
#include "rules/invariant.h"
#include "rules/table.h"

/* ==================================================================== components */

enum { COFFEE, WAX, BLUE, CHILI, STINK, GREEN, SOY, BLACK_EYED, RED, GARDEN, COCOA, NUM_TYPES };

/* Meters from the cards (both rulebooks and the peer implementations agree). */
static const bean_kind beans[NUM_TYPES] = {
    [COFFEE] = {"coffee", "Kaffeebohne", 24, {4, 7, 10, 12}},
    [WAX] = {"wax", "Weinbrandbohne", 22, {4, 7, 9, 11}},
    [BLUE] = {"blue", "Blaue Bohne", 20, {4, 6, 8, 10}},
    [CHILI] = {"chili", "Feuerbohne", 18, {3, 6, 8, 9}},
    [STINK] = {"stink", "Saubohne", 16, {3, 5, 7, 8}},
    [GREEN] = {"green", "Brechbohne", 14, {3, 5, 6, 7}},
    [SOY] = {"soy", "Sojabohne", 12, {2, 4, 6, 7}},
    [BLACK_EYED] = {"black_eyed", "Augenbohne", 10, {2, 4, 5, 6}},
    [RED] = {"red", "Rote Bohne", 8, {2, 3, 4, 5}},
    [GARDEN] = {"garden", "Gartenbohne", 6, {0, 2, 3, 0}},
    [COCOA] = {"cocoa", "Kakaobohne", 4, {0, 2, 3, 4}},
};

static const char *const bean_names[NUM_TYPES + 1] = {
    "coffee", "wax", "blue", "chili", "stink", "green", "soy", "black_eyed", "red", "garden", "cocoa", NULL};



/* ==================================================================== parameters and editions */

enum {
    P_EDITION, P_DECK, P_BEANOMETER, P_FIELDS, P_THIRD_FIELD_COST, P_PASSES, P_TIE_BREAK, P_HAND_START,
    P_REVEAL, P_DRAW, P_DUPLICATE_FIELDS, P_TRADE_LIMIT, NUM_PARAMS
};
enum { AMIGO, RIOGRANDE };

/* The generator's stream: what a seed deals depends on it, so saves and goldens do. */
#define BOHNANZA_RNG_STREAM 0xbea115

static const char *const edition_names[] = {"amigo", "riogrande", NULL};
static const int32_t default_fields[] = {PARAM_UNSET, PARAM_UNSET, PARAM_UNSET, 3, 2, 2};

static const param_def bohnanza_params[NUM_PARAMS] = {
    [P_EDITION] = {"edition", PARAM_CHOICE, AMIGO, 0, 0, edition_names,
                   "\"amigo\" (the publisher's current rules) or \"riogrande\" (Rio Grande's English rules: 154 "
                   "cards less cocoa with 3 players or coffee with 4-5, a third field for 3 coins with 4-5 "
                   "players, 2 passes with 3 players, the most cards in hand wins a tie). It sets the default of "
                   "every parameter below; those set explicitly win.",
                   NULL, 0, 0, false},
    [P_DECK] = {"deck", PARAM_BY_NAME, 0, 0, 60, bean_names,
                "cards of each bean type; types not named keep the edition's count (amigo: blue 20, chili 18, "
                "stink 16, green 14, soy 12, black_eyed 10, red 8, garden 6; riogrande adds coffee 24 (3 "
                "players), wax 22, cocoa 4 (4-5 players)). deck = {wax = 0} takes a type out. At most 60 of a "
                "type and 160 in all, the cards a state holds; at least one more than the hands dealt.",
                NULL, 0, 1, true},
    [P_BEANOMETER] = {"beanometer", PARAM_BY_NAME, 0, 0, 60, bean_names,
                      "cards needed for 1, 2, 3 and 4 coins, by type ({blue = {4, 6, 8, 10}}); 0: that payout "
                      "does not exist. Types not named keep the cards' meters (`meeple rules bohnanza`, Beans). "
                      "At most 60, the most cards a type may have.",
                      NULL, 0, 4, false},
    [P_FIELDS] = {"fields", PARAM_BY_PLAYERS, 2, 1, BEAN_MAX_FIELDS, NULL,
                  "fields each player starts with, by player count: 1 to 4 (the most a player's state holds; "
                  "with 4 fields a bean hardly ever has to be planted where it hurts, which is the game)",
                  default_fields, 6, 0, false},
    [P_THIRD_FIELD_COST] = {"third_field_cost", PARAM_BY_PLAYERS, 0, 0, 20, NULL,
                            "coins a third field costs, once per game (0: it cannot be bought); amigo 0, riogrande "
                            "3 with 4-5 players. The 1997 first edition: fields = 2, third_field_cost = 3. At most "
                            "20, a bound of this host (a player rarely earns that many coins)",
                            NULL, 0, 0, true},
    [P_PASSES] = {"passes", PARAM_BY_PLAYERS, 3, 1, 9, NULL,
                  "passes through the deck; the game ends when the last one runs out (amigo 3; riogrande 2 "
                  "with 3 players, else 3). At most 9, a bound of this host: three times the longest game",
                  NULL, 0, 0, true},
    [P_TIE_BREAK] = BEAN_PARAM_TIE_BREAK("among tied players: \"seat\", the one farthest clockwise from the start "
                                         "player (amigo); \"hand\", the most cards in hand (riogrande), still "
                                         "tied a shared win; \"none\", a shared win",
                                         true),
    [P_HAND_START] = BEAN_PARAM_HAND_START,
    [P_REVEAL] = BEAN_PARAM_REVEAL,
    [P_DRAW] = BEAN_PARAM_DRAW,
    [P_DUPLICATE_FIELDS] = BEAN_PARAM_DUPLICATE_FIELDS("the same type may grow on two fields at once (amigo says "
                                                       "so); false: a bean whose type grows on a field must go "
                                                       "there"),
    [P_TRADE_LIMIT] = BEAN_PARAM_TRADE_LIMIT("trade steps (proposals, invitations, offers) per turn: this host's "
                                             "bound, so every turn ends (at most 100: ten times what ordinary "
                                             "play needs)"),
};

/* The edition's rules, before the parameters set theirs (bean_rules_from). */
static void bohnanza_rules_defaults(const param_value *params, int players, bean_rules *r) {
    bool rio = param_int_or(&params[P_EDITION], AMIGO) == RIOGRANDE;
    r->types = NUM_TYPES;
    for (int t = 0; t < NUM_TYPES; t++) {
        bool in_edition = t == COFFEE ? rio && players == 3 : t == COCOA ? rio && players >= 4 : t == WAX ? rio : true;
        r->count[t] = in_edition ? beans[t].cards : 0;
        memcpy(r->meter[t], beans[t].meter, sizeof r->meter[t]);
    }
    r->fields = players == 3 ? 3 : 2;
    r->third_field_cost = rio && players >= 4 ? 3 : 0;
    r->passes = rio && players == 3 ? 2 : 3;
    r->tie_break = rio ? BEAN_TIE_HAND : BEAN_TIE_SEAT;
}

/* ==================================================================== Bohnanza's turn
 *
 * The decisions of a turn, and the automatic steps between them (settle): a phase 1 with nothing
 * (more) to plant turns the cards up; phase 3 passes from planter to planter and then draws; the
 * draw passes the turn, or ends the game when the last pass runs out. */

static const bean_game bohnanza_beans;

/* The score is the coins. */
static void bohnanza_scores(const void *st, int *out) {
    const bean_table *g = st;
    for (int p = 0; p < g->players; p++) out[p] = bean_coins(g, p);
}

static void end_game(bean_table *g) {
    bean_final_harvest(g, g->active);
    g->phase = BEAN_OVER;
    g->to_move = BEAN_NOBODY;
    g->invited = BEAN_NOBODY;
}

static void begin_turn(bean_table *g, int seat) {
    g->active = (uint8_t)seat;
    g->phase = BEAN_PLANT;
    g->planted = g->trade_steps = 0;
    g->traded = false;
    if (g->turn < 60000) g->turn++; /* stops at its table's bound, never past it nor wrapping */
}

/* Phase 2 begins: the top cards are turned up (only what there is, when the last pass runs out). */
static void reveal(bean_table *g) {
    for (int i = 0; i < g->rules.reveal && bean_draw(g, BEAN_ZONE_FACE_UP); i++) continue;
    g->phase = BEAN_TRADE;
}

/* Phase 4: the active player draws to the back of the hand; a last pass running out ends the game
 * at once, the remaining draws skipped. last_pass_over marks a run-out before phase 4 (the turn
 * still ends), so it is not left set by one here. */
static void draw_and_pass(bean_table *g) {
    for (int i = 0; i < g->rules.draw && !g->last_pass_over; i++) bean_draw(g, BEAN_ZONE_HAND(g->active));
    if (!g->last_pass_over) {
        begin_turn(g, bean_next_seat(g, g->active));
        return;
    }
    g->last_pass_over = false;
    end_game(g);
}

static void settle(void *st) {
    bean_table *g = st;
    for (;;) {
        switch (g->phase) {
        case BEAN_PLANT:
            if (bean_hand_len(g, g->active) == 0 || g->planted >= 2) {
                reveal(g);
                continue;
            }
            g->to_move = g->active;
            return;
        case BEAN_TRADE:
            bean_trade_settle(g);
            g->to_move = (uint8_t)bean_trade_mover(g);
            return;
        case BEAN_PLANT_TRADED: {
            int planter = bean_next_planter(g, g->active); /* those before in the order are done */
            if (planter >= 0) {
                g->to_move = (uint8_t)planter;
                return;
            }
            if (g->last_pass_over) end_game(g);
            else draw_and_pass(g);
            continue;
        }
        default:
            g->to_move = BEAN_NOBODY;
            return;
        }
    }
}

static void bohnanza_setup(void *st, int players, const param_value *params, uint64_t seed) {
    bean_table *g = st;
    bean_rules rules;
    bean_rules_from(&bohnanza_beans, params, players, &rules);
    if (!bean_rules_check(&rules, players, NULL)) { /* refused earlier by bohnanza_params_check */
        memset(g, 0, sizeof *g);
        return;
    }
    bean_setup(&bohnanza_beans, g, players, &rules, seed);
    settle(g);
}

/* ---- phase 1 ---- */

static bool plant_front_check(const bean_table *g, int field, reason *why) {
    if (g->phase != BEAN_PLANT)
        return deny(why, "planting from the hand is phase 1; %s", g->phase == BEAN_TRADE ? "it is the trading phase"
                                                                                       : "plant your traded cards: plant B F");
    int type = bean_zone(g, BEAN_ZONE_HAND(g->active))[0];
    return bean_plant_check(&bohnanza_beans, g, g->active, type, field, why);
}

static bool done_check(const bean_table *g, reason *why) {
    if (g->phase == BEAN_PLANT)
        return g->planted >= 1 || deny(why, "you must plant your front card first (plant F)");
    if (g->phase == BEAN_TRADE) return bean_trade_check(&bohnanza_beans, g, bean_action(BEAN_ACT_DONE, 0, 0, 0), why);
    return deny(why, "plant every traded and kept card first (plant B F)");
}

/* ---- every decision: its actions, their checks and effects ---- */

/* An action decoded and encoded again must give itself: one text, one code. */
static bool canonical(action_t a) {
    int kind = bean_act_kind(a), x = bean_act_x(a), y = bean_act_y(a), z = bean_act_z(a);
    if (a >> 30 || kind >= BEAN_ACTS || z) return false;
    bool takes_x = kind == BEAN_ACT_PLANT || kind == BEAN_ACT_PLANT_TYPE || kind == BEAN_ACT_HARVEST || kind == BEAN_ACT_PROPOSE ||
                   kind == BEAN_ACT_GIVE_UP || kind == BEAN_ACT_GIVE || kind == BEAN_ACT_WANT || kind == BEAN_ACT_PICK;
    return (takes_x || x == 0) && (kind == BEAN_ACT_PLANT_TYPE || y == 0);
}

static bool bohnanza_check(const void *st, action_t a, reason *why) {
    const bean_table *g = st;
    int kind = bean_act_kind(a), x = bean_act_x(a), y = bean_act_y(a);
    if (!canonical(a)) return deny(why, "no such action");
    if (g->phase == BEAN_OVER) return deny(why, "the game is over");
    switch (kind) {
    case BEAN_ACT_HARVEST: return bean_harvest_check(&bohnanza_beans, g, g->to_move, x, why);
    case BEAN_ACT_BUY: return bean_buy_check(g, g->to_move, why);
    case BEAN_ACT_PLANT: return plant_front_check(g, x, why);
    case BEAN_ACT_DONE: return done_check(g, why);
    case BEAN_ACT_PLANT_TYPE:
        if (g->phase != BEAN_PLANT_TRADED) return deny(why, "traded and kept cards are planted in phase 3");
        return bean_plant_type_check(&bohnanza_beans, g, x, y, why);
    }
    if (g->phase != BEAN_TRADE) return deny(why, "trading is phase 2");
    return bean_trade_check(&bohnanza_beans, g, a, why);
}

static void bohnanza_apply(void *st, action_t a) {
    bean_table *g = st;
    if (NEVER(g->phase == BEAN_OVER)) return; /* check() refuses every action then */
    int x = bean_act_x(a);
    switch (bean_act_kind(a)) {
    case BEAN_ACT_HARVEST: bean_harvest(g, g->to_move, x); break;
    case BEAN_ACT_BUY: bean_buy(g, g->to_move); break;
    case BEAN_ACT_PLANT:
        bean_plant(g, g->active, BEAN_ZONE_HAND(g->active), 0, x);
        g->planted++;
        break;
    case BEAN_ACT_DONE:
        if (g->phase == BEAN_PLANT) reveal(g);
        else bean_trade_apply(g, a);
        break;
    case BEAN_ACT_PLANT_TYPE: bean_plant_type(g, x, bean_act_y(a)); break;
    default:
        if (NEVER(bean_act_kind(a) >= BEAN_ACTS)) return; /* no such action: check() refuses it */
        bean_trade_apply(g, a);
        break;
    }
    settle(g);
}

/* Harvests (and buying) are free actions of whoever decides; they come after the phase's own. */
static int free_actions(const bean_table *g, action_t *out, int n) {
    int seat = g->to_move;
    n = bean_harvest_legal(g, seat, out, n);
    if (g->rules.third_field_cost && bean_buy_check(g, seat, NULL)) /* most games have nothing to buy */
        out[n++] = bean_action(BEAN_ACT_BUY, 0, 0, 0);
    return n;
}

/* A playout's decision while a deal is built, with no list (playout_choose): the builder's actions
 * and the free actions after them, as bohnanza_legal lists them. */
static bool bohnanza_playout_choose(const void *st, rng *r, action_t *out) {
    const bean_table *g = st;
    if (g->phase != BEAN_TRADE || g->deal.stage != BEAN_DEAL_BUILD) return false;
    action_t tail[BEAN_MAX_FIELDS + 1]; /* a harvest a field, and buying */
    *out = bean_playout_build(g, tail, free_actions(g, tail, 0), r);
    return true;
}

static int bohnanza_legal(const void *st, action_t *out) {
    const bean_table *g = st;
    int n = 0;
    switch (g->phase) {
    case BEAN_PLANT: {
        unsigned fits = bean_fitting_fields(g, g->active, bean_zone(g, BEAN_ZONE_HAND(g->active))[0]);
        for (int f = 0; fits >> f; f++) /* field order */
            if (fits >> f & 1) out[n++] = bean_action(BEAN_ACT_PLANT, f, 0, 0);
        if (g->planted >= 1) out[n++] = bean_action(BEAN_ACT_DONE, 0, 0, 0);
        break;
    }
    case BEAN_TRADE: n = bean_trade_legal(g, out, n); break;
    case BEAN_PLANT_TRADED: n = bean_plant_type_legal(g, out, n); break;
    default: return 0;
    }
    return free_actions(g, out, n);
}

static void bohnanza_action_text(const void *st, action_t a, char *out) {
    (void)st;
    bean_action_text(&bohnanza_beans, a, out);
}

static bool bohnanza_parse_action(const void *st, const char *text, action_t *out, reason *why) {
    return bean_parse_action(&bohnanza_beans, st, text, out, why);
}

static int bohnanza_action_space(const void *st, action_t *out) { return bean_action_space(st, out, 0); }

/* ==================================================================== Bohnanza's boundary */

static const char *const phase_names[] = {"plant", "trade", "plant_traded", "over"};
static const char *const up_names[NUM_TYPES] = {"up coffee", "up wax",        "up blue", "up chili",
                                                "up stink",  "up green",      "up soy",  "up black_eyed",
                                                "up red",    "up garden",     "up cocoa"};

static const char *const hand_names[NUM_TYPES][BEAN_MAX_CARDS] = {
    BEAN_HAND_NAMES("coffee"), BEAN_HAND_NAMES("wax"),   BEAN_HAND_NAMES("blue"),       BEAN_HAND_NAMES("chili"),
    BEAN_HAND_NAMES("stink"),  BEAN_HAND_NAMES("green"), BEAN_HAND_NAMES("soy"),        BEAN_HAND_NAMES("black_eyed"),
    BEAN_HAND_NAMES("red"),    BEAN_HAND_NAMES("garden"), BEAN_HAND_NAMES("cocoa")};

static const bean_game bohnanza_beans = {
    .name = "bohnanza",
    .kinds = beans,
    .types = NUM_TYPES,
    .up_names = up_names,
    .hand_names = hand_names,
    .hand_knowledge = true,
    .phase_names = phase_names,
    .num_phases = 4,
    .phase_expect = "the phase is plant, trade, plant_traded or over",
    .words = "plant, done, harvest, buy, propose, ask, offer, pass, give, want, send, cancel, accept, reject, pick",
    .params = bohnanza_params,
    .num_params = NUM_PARAMS,
    .rules_defaults = bohnanza_rules_defaults,
    .rng_stream = BOHNANZA_RNG_STREAM,
    .settle = settle,
    .state_size = sizeof(bean_table),
    .scores = bohnanza_scores,
};

static bool bohnanza_params_check(const param_value *params, int players, reason *why) {
    bean_rules rules;
    bean_rules_from(&bohnanza_beans, params, players, &rules);
    return bean_rules_check(&rules, players, why);
}

static void bohnanza_write_table(const void *st, int viewer, tree_writer *w) {
    bean_write_table(&bohnanza_beans, st, viewer, w);
}

static bool bohnanza_validate(const void *st, reason *why) {
    const bean_table *g = st;
    if (g->players < 3 || g->players > 5) return deny(why, "Bohnanza has 3 to 5 players");
    if (!bean_validate(g, why)) return false;
    if (g->phase >= BEAN_GAME_PHASES) return deny(why, "the phase is damaged");
    if (bean_zone_len(g, BEAN_ZONE_PENDING)) return deny(why, "Bohnanza has no pending cards");
    for (int p = 0; p < g->players; p++) {
        for (int f = 0; f < BEAN_MAX_FIELDS; f++)
            if (g->enchanted[p][f]) return deny(why, "Bohnanza has no enchanted beans");
        if (g->third_field[p] && g->rules.fields != 2)
            return deny(why, "player %d bought a third field, but only a player with 2 fields buys one", p + 1);
    }
    return bean_at_decision(&bohnanza_beans, g, why);
}

static bool bohnanza_read_table(void *st, tree_reader *r, const param_value *params, uint64_t seed, reason *why) {
    bean_table *g = st;
    bean_reading rd;
    int to_move;
    memset(g, 0, sizeof *g);
    if (!bean_read_begin(&bohnanza_beans, r, params, seed, g, why)) return false;
    if (!bean_read_table(&bohnanza_beans, &rd, r, g, &to_move, why) || !bean_validate(g, why)) return false;
    return bean_read_end(&bohnanza_beans, g, to_move, bohnanza_validate, why);
}

static void bohnanza_sample(void *st, int viewer, rng *r) { bean_sample(st, viewer, false, r); }

static void bohnanza_write_cards(const void *st, tree_writer *w) { bean_write_cards(&bohnanza_beans, st, w); }

static bool bohnanza_move(void *st, const char *from, const char *to, const card_move *m, reason *why) {
    return bean_move_cards(&bohnanza_beans, st, from, to, m, bohnanza_validate, why);
}

static bool bohnanza_add(void *st, const char *counter, int delta, reason *why) {
    (void)st, (void)delta;
    return deny(why, "'%.60s' is no counter: Bohnanza counts with cards (coins are cards: move them)", counter);
}

static int bohnanza_winners(const void *st, int *out) { return bean_winners(&bohnanza_beans, st, out); }

/* ==================================================================== the definition */

static const char bohnanza_rules_text[] =
    "Bohnanza (Uwe Rosenberg, Amigo 1997) — 3 to 5 players plant, trade and harvest beans for coins.\n"
    "\n"
    "Beans (cards; cards needed for 1/2/3/4 coins): coffee 24 (4/7/10/12), wax 22 (4/7/9/11), blue 20\n"
    "(4/6/8/10), chili 18 (3/6/8/9), stink 16 (3/5/7/8), green 14 (3/5/6/7), soy 12 (2/4/6/7), black_eyed 10\n"
    "(2/4/5/6), red 8 (2/3/4/5), garden 6 (-/2/3/-), cocoa 4 (-/2/3/4). Amigo (the default) plays the 104\n"
    "cards from blue to garden; Rio Grande (edition = \"riogrande\") all 11 types less cocoa with 3 players\n"
    "or coffee with 4-5.\n"
    "\n"
    "Setup: 5 cards to each player, one at a time; a hand keeps its order, front (planted next) to back.\n"
    "Fields: 3 each with 3 players, 2 with 4-5. Player 1 starts; turns go to the left.\n"
    "\n"
    "A turn of the active player:\n"
    "  1. Plant: the front hand card onto a field holding its type or an empty one (plant F); then may\n"
    "     plant the next one (plant F) or stop (done). A card that fits nowhere forces a harvest first.\n"
    "  2. Trade: the top 2 deck cards are turned up; they are the active player's. Trading, as single\n"
    "     decisions: propose N opens a proposal to player N, built one item at a time (give up B: a\n"
    "     face-up card; give K: the hand card at position K; want B: a bean from N's hand), then send or\n"
    "     cancel; N answers accept or reject and, when it matters, says which cards it gives (pick K,\n"
    "     pick up). ask invites offers: every other player in turn may offer (the same builder, wanting\n"
    "     from the active player's face-up or hand cards) or pass; the active player answers each at once.\n"
    "     Uneven deals and gifts both ways are fine; only the active player trades with the others.\n"
    "     Received cards go to the receiver's set-aside area, out of trading. done ends trading.\n"
    "  3. Plant traded cards: every set-aside card, and the active player's kept face-up cards, must be\n"
    "     planted (plant B F), the active player first, then clockwise.\n"
    "  4. Draw 3 cards to the back of the hand. The turn passes left.\n"
    "\n"
    "Harvest (harvest F), at any of one's own decisions: the whole field; coins = the largest payout\n"
    "whose meter entry is at most the cards harvested (those cards go face down onto the coin pile), the\n"
    "rest go onto the discard pile. Bean protection: a field of one card cannot be harvested while another\n"
    "of the player's fields holds two or more. With third_field_cost > 0 (Rio Grande with 4-5 players,\n"
    "the 1997 first edition), buy once per game a third field: the top coins go onto the discard pile.\n"
    "\n"
    "The deck runs out the moment its last card is drawn: the discard pile is shuffled into a new deck\n"
    "(the next pass), until the last pass (3; Rio Grande with 3 players 2). When the last one runs out in\n"
    "phase 2, the turn finishes phases 2 and 3; in phase 4, the game ends at once. Then every field is\n"
    "harvested (no protection), hands are worth nothing; score = coins. Ties: the tied player farthest\n"
    "clockwise from the start player (amigo), the most cards in hand (riogrande), see tie_break.\n"
    "\n"
    "Rulings (this project's, where the texts are silent or a host must decide; see\n"
    "docs/games/bohnanza.md):\n"
    "  - Player 1 starts. The same type may grow on two fields (duplicate_fields).\n"
    "  - Harvest is a free action at one's own decisions only; it never passes the decision.\n"
    "  - A harvest lays the field on the discard pile bottom card first: its top card ends on top.\n"
    "  - Phase 3 goes the active player first, then clockwise; players with nothing to plant are skipped.\n"
    "  - A deck that runs out with an empty discard pile ends the game as the last pass would.\n"
    "  - Ties still tied after the hand count: a shared win.\n"
    "  - Trading is a protocol of single decisions (above). Each proposal, invitation and offer is a\n"
    "    trade step, at most trade_limit (10) a turn. Asking for a gift (want with nothing given) is\n"
    "    allowed both ways. Proposals and answers are public. Offered cards are shown: give K shows that\n"
    "    hand card's bean to everyone as it is added (a deal is an agreement on named beans), and it\n"
    "    stays known while it stays in that hand, after reject or cancel too. Picked cards are revealed\n"
    "    as they move.\n"
    "    A cancelled proposal still used its step; when the steps run out during an invitation round,\n"
    "    the players not yet asked are skipped. propose N, ask and offer are listed only when some deal\n"
    "    with that partner is possible; an invited player who can offer nothing still answers pass.\n"
    "  - Two face-up cards of one type are identical: give up B takes either. A picked card goes to the\n"
    "    proposer's set-aside area at once (the deal is accepted; nothing can undo it).\n"
    "  - Legal-action lists never reveal hidden cards: a proposer wants bean types, whether or not the\n"
    "    partner holds them; only the partner's answer depends on the partner's hand.\n"
    "  - want B is limited to the cards the partner could hold: the type's total less those in sight\n"
    "    (fields, coin piles, discard pile, set-aside areas, the face-up cards unless the partner owns\n"
    "    them) and in the proposer's hand; and in all to the partner's cards.\n"
    "  - Lists name only distinct choices: an empty field only as the lowest-numbered one; give K and pick\n"
    "    K only for the frontmost of a run of identical cards (the same bean, and shown to all or to\n"
    "    none: a shown card and its hidden twin are two choices); cards of one bean are picked front to\n"
    "    back, face-up cards last; a pick only when it changes the result.\n"
    "  - Every game ends: reveal = 0 with draw = 0 is refused (the deck would never run out).\n"
    "  - A third field is bought by a player with 2 fields, once. Its coins go onto the discard pile bean\n"
    "    side up, one at a time from the top of the coin pile, and so come back with the next pass.\n"
    "\n"
    "Action grammar: plant F, done, plant B F, harvest F, buy, propose N, ask, offer, pass, give up B,\n"
    "give K, want B, send, cancel, accept, reject, pick K, pick up. (F a field 1-4, K a hand position from\n"
    "the front, N a player, B a bean.)\n"
    "\n"
    "State table: game, phase (plant, trade, plant_traded, over), turn, active, start, to_move, pass,\n"
    "planted, trade_steps, last_pass_over (the last pass ran out before phase 4), face_up, invited (an\n"
    "invitation round's player), proposal =\n"
    "{from, to, give = {\"up blue\", \"hand 2 garden\"}, want = {\"soy\"}, stage (build, answer, pick), picked,\n"
    "pick_from = {soy = 3}}, players[i] = {hand (front first), fields (each a list, bottom first), harvest\n"
    "= {{pays, protected}} (by field: the coins a harvest pays now, and whether bean protection forbids it;\n"
    "from_table ignores it), coins (bottom first), set_aside, shown = {{at, bean}} (offered hand cards\n"
    "everyone has seen), third_field}, deck, discard (bottom first). A player's view shows other hands and\n"
    "the deck as sizes.\n"
    "meeple.from_table: zones named hold what they list; a hand or the deck given as a number is dealt\n"
    "from the cards listed nowhere; the deck takes what is left over (the discard pile when the deck is\n"
    "named); scalars default to the start of player 1's turn; a position without a decision is played on\n"
    "to the next decision.\n";

_Static_assert(sizeof(bean_table) <= MEEPLE_MAX_STATE, "a state must fit MEEPLE_MAX_STATE (game.h)");

/* Every decision is made in the open: trades name beans or shown cards, plants come from the front. */
static bool bohnanza_public_text(const void *st, action_t a, int viewer, char *out) {
    (void)st, (void)a, (void)viewer, (void)out;
    return false;
}

const game_def bohnanza_game = {
    .name = "bohnanza",
    .title = "Bohnanza",
    .rules = bohnanza_rules_text,
    .min_players = 3,
    .max_players = 5,
    .default_players = 4,
    .max_decisions = 25000, /* ten times or more the longest game the shipped bots played: 2,439 decisions */
    .state_size = sizeof(bean_table),
    .params = bohnanza_params,
    .num_params = NUM_PARAMS,
    .params_check = bohnanza_params_check,
    .setup = bohnanza_setup,
    .num_players = bean_num_players,
    .turn = bean_turn,
    .to_move = bean_to_move,
    .turn_key = bean_turn_key,
    .is_over = bean_is_over,
    .legal = bohnanza_legal,
    .check = bohnanza_check,
    .apply = bohnanza_apply,
    .scores = bohnanza_scores,
    .winners = bohnanza_winners,
    .action_text = bohnanza_action_text,
    .public_text = bohnanza_public_text,
    .information = INFORMATION_HIDDEN,
    .parse_action = bohnanza_parse_action,
    .action_space = bohnanza_action_space,
    .write_table = bohnanza_write_table,
    .read_table = bohnanza_read_table,
    .write_cards = bohnanza_write_cards,
    .validate = bohnanza_validate,
    .sample = bohnanza_sample,
    .move = bohnanza_move,
    .add = bohnanza_add,
    .playout_worth = bean_playout_worth,
    .playout_worths = bean_playout_worths,
    .playout_pick = bean_playout_pick,
    .playout_choose = bohnanza_playout_choose,
};
