/* test_playout.c — playouts end: on a made-up game that never ends (one legal action, forever), as a
 * playout policy going round in circles would play, session_playout stops at SESSION_PLAYOUT_MAX, and a
 * bot's s:playout stops where its budget ends, its history never growing past what its memory allows
 * (the playout runs in C, out of the instruction hook's reach). And a game without a playout policy
 * (every shipped game has one) plays its greedy decisions, and ranks, by the mover's score. */
#include <string.h>

#include "bots/bot.h"
#include "check.h"
#include <meeple/session.h>
#include "rules/rules.h"

typedef struct endless {
    int64_t steps;
} endless;

static void endless_setup(void *st, int players, const param_value *params, uint64_t seed) {
    (void)players, (void)params, (void)seed;
    memset(st, 0, sizeof(endless));
}
static int one(const void *st) { return (void)st, 1; }
static int seat_zero(const void *st) { return (void)st, 0; }
static bool never_over(const void *st) { return (void)st, false; }
static int step_only(const void *st, action_t *out) { return (void)st, out[0] = 0, 1; }
static bool step_is_legal(const void *st, action_t a, reason *why) { return (void)st, (void)why, a == 0; }
static void take_step(void *st, action_t a) { (void)a, ((endless *)st)->steps++; }
static void no_scores(const void *st, int *out) { (void)st, out[0] = 0; }
static int no_winners(const void *st, int *out) { return (void)st, (void)out, 0; }
static void step_text(const void *st, action_t a, char *out) { (void)st, (void)a, strcpy(out, "step"); }
static void write_steps(const void *st, int viewer, tree_writer *w) {
    (void)viewer;
    w->open_map(w);
    tw_key_num(w, "steps", ((const endless *)st)->steps);
    w->close(w);
}
static void nothing_hidden(void *st, int viewer, rng *r) { (void)st, (void)viewer, (void)r; }
static uint32_t one_turn(const void *st, int *owner) { return (void)st, *owner = 0, 0; }

static const game_def endless_game = {
    .name = "endless", .title = "Endless", .min_players = 1, .max_players = 1, .default_players = 1,
    .state_size = sizeof(endless), .setup = endless_setup, .num_players = one, .turn = seat_zero,
    .to_move = seat_zero, .turn_key = one_turn, .is_over = never_over, .legal = step_only,
    .check = step_is_legal, .apply = take_step, .scores = no_scores, .winners = no_winners,
    .action_text = step_text, .write_table = write_steps, .sample = nothing_hidden,
};

/* A climb with no playout policy: step 0, 1 or 2 rungs, the score the rungs climbed. */
static int three_steps(const void *st, action_t *out) { return (void)st, out[0] = 0, out[1] = 1, out[2] = 2, 3; }
static bool step_of_three(const void *st, action_t a, reason *why) { return (void)st, (void)why, a <= 2; }
static void climb(void *st, action_t a) { ((endless *)st)->steps += a; }
static void rungs(const void *st, int *out) { out[0] = (int)((const endless *)st)->steps; }

static param_value no_params[MEEPLE_MAX_PARAMS];

static void without_a_policy_the_score_decides(void) {
    game_def climb_game = endless_game; /* the endless game's frame, with choices that score */
    climb_game.name = "climb", climb_game.legal = three_steps, climb_game.check = step_of_three;
    climb_game.apply = climb, climb_game.scores = rungs;
    reason why;
    session *s = session_new(&climb_game, 1, no_params, 1, &why);
    CHECK(s, "%s", why.text);
    rng r;
    rng_seed(&r, 1, 2);
    action_t order[MEEPLE_MAX_ACTIONS];
    CHECK(session_ranked(s, &r, order) == 3 && order[0] == 2 && order[1] == 1 && order[2] == 0,
          "ranked by the score after each action: %d %d %d", (int)order[0], (int)order[1], (int)order[2]);
    CHECK(session_playout(s, &r, 5, 1) == 5, "five greedy decisions");
    int score;
    climb_game.scores(s->now, &score);
    CHECK(score == 10, "each climbed two rungs: %d", score);
    session_free(s);
}

static void session_playout_stops(void) {
    reason why;
    session *s = session_new(&endless_game, 1, no_params, 1, &why);
    CHECK(s, "%s", why.text);
    rng r;
    rng_seed(&r, 1, 2);
    CHECK(session_playout(s, &r, -1, 0) == SESSION_PLAYOUT_MAX, "a playout to the end stops at the cap");
    CHECK(session_playout(s, &r, 5, 1) == 5, "and a limit below it holds");
    session_free(s);
}

static void bot_playout_stops_at_its_budget(void) {
    bot_limits limits = {60000, 1000000, 64u << 20, 0};
    char err[300];
    bot_code *code = bot_code_from_text(
        "return { choose = function(view, legal, ctx) ctx.sample():playout(1, nil, 1) return legal[1] end }",
        "test", &limits, err, sizeof err);
    CHECK(code, "%s", err);
    endless st;
    endless_setup(&st, 1, no_params, 1);
    bot *b = bot_new(code, &endless_game, no_params, &limits, false);
    CHECK(b && bot_begin(b, &st, 0, 1), "%s", b ? bot_reason(b) : "out of memory");
    action_t acts[1] = {0};
    CHECK(bot_choose(b, &st, acts, 1) < 0 && bot_fault_of(b) == BOT_INSTRUCTIONS,
          "the playout spends the budget: %s", bot_reason(b));
    size_t peak;
    bot_memory(b, &peak);
    /* 10,001 decisions of history at most (the budget's), not the cap's 1,000,000 (8 MB). */
    CHECK(peak < (1u << 20), "the history stopped at the budget: peak %zu bytes", peak);
    bot_free(b);
    bot_code_free(code);
}

int main(void) {
    session_playout_stops();
    bot_playout_stops_at_its_budget();
    without_a_policy_the_score_decides();
    printf("playouts stop: at the cap, and at a bot's budget; without a policy the score decides\n");
    return 0;
}
