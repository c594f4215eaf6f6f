/* game.h — the interface every game implements; the host, the bindings and the tests know games only
 * through a game_def.
 *
 * A game's state is flat, fixed-size memory (def->state_size bytes, no pointers), so cloning is one
 * memcpy and two states compare with memcmp. Players are 0-based here; the Lua side adds 1.
 * Legal-action generation and apply are the hot path: no allocation, no Lua, no formatting there. */
#ifndef MEEPLE_GAME_H
#define MEEPLE_GAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <meeple/rng.h>
#include <meeple/tree.h>

#define MEEPLE_MAX_PLAYERS 8
#define MEEPLE_MAX_ACTIONS 512     /* legal actions in any one position, for every game */
#define MEEPLE_MAX_SPACE (4 * MEEPLE_MAX_ACTIONS) /* action_space()'s (casts grow with a hand) */
#define MEEPLE_MAX_PARAMS 16
#define MEEPLE_PARAM_LIST 8        /* a per-seat list parameter holds at most this many integers */
#define MEEPLE_PARAM_VALUES 48     /* integers in any parameter's value (a by-name table's all) */
#define PARAM_UNSET INT32_MIN      /* an entry a by-count or by-name table leaves to the game */
#define MEEPLE_ACTION_TEXT 64      /* longest canonical action string, with its terminator */
#define MEEPLE_MAX_STATE 4096      /* bytes of any game's state: room for a trial copy on the stack */

/* An action in a game's own compact encoding; only its game can read it. */
typedef uint32_t action_t;

/* Why something is not allowed: one sentence a player understands (`text`, NUL-terminated, one line).
 * Every call that can refuse takes a `meeple_reason *why`, which may be NULL when the caller does not
 * want the sentence (then none is formatted). */
typedef struct meeple_reason {
    char text[320]; /* room for an unknown word's answer with Rabohnzel's 32 action words */
} meeple_reason;

/* ---- Parameters: each game documents its own, with defaults; variants set them. ---- */
typedef enum {
    PARAM_INT,        /* one integer in [min, max] */
    PARAM_PER_SEAT,   /* one integer for all, or a list of them (by seat, or as the doc says) */
    PARAM_CHOICE,     /* one of `choices`, stored as its index */
    PARAM_BY_PLAYERS, /* one integer for every player count, or a table keyed by player count
                       * ({[3] = 2, [4] = 3}): v[n] for n players, PARAM_UNSET where not given */
    PARAM_BY_NAME,    /* a table keyed by the names in `choices` ({blue = {4, 6, 8, 10}}), each an
                       * integer or a list of `width`: v[name * width + j], PARAM_UNSET where not given */
    PARAM_BOOL        /* true or false, stored as 1 or 0 */
} param_kind;

typedef struct param_def {
    const char *name;
    param_kind kind;
    int32_t fallback;             /* the default: a value, or an index into choices */
    int32_t min, max;             /* for PARAM_INT and PARAM_PER_SEAT */
    const char *const *choices;   /* for PARAM_CHOICE, NULL-terminated */
    const char *doc;
    const int32_t *fallback_list; /* for PARAM_PER_SEAT and PARAM_BY_PLAYERS: a default list */
    int32_t fallback_count;
    int32_t width;                /* for PARAM_BY_NAME: integers per name (0 or 1: one) */
    /* The default is the game's to decide from other parameters (an edition preset): the value
     * stays empty (count 0) until a variant or a caller sets it. */
    bool game_default;
} param_def;

typedef struct param_value {
    int32_t count;                /* 1 for an integer or a choice; the list length otherwise; 0 for
                                   * a game_default parameter not set */
    int32_t v[MEEPLE_PARAM_VALUES];
} param_value;

/* ---- Variants' primitives: the only ways a house rule changes a state, so that no card is ever
 * created or lost. Zones and counters are named by their path in the state table
 * ("players[1].hand", "players[2].rows.medes", "discard", "players[1].gold"). ---- */
typedef struct card_move {
    const char *card;  /* which card, by its name in the table ("medes", "3"); NULL: the top card */
    int count;         /* how many cards (each chosen the same way) */
    bool to_bottom;    /* under the destination instead of on top */
} card_move;

/* What the players of a game may not see. Every game says it: the zero value is no answer, and the
 * registry refuses a game that leaves it so (game_def_problem). */
typedef enum game_information {
    INFORMATION_UNSAID = 0,
    INFORMATION_PERFECT, /* everyone sees everything but the future (a shuffled deck's order) */
    INFORMATION_HIDDEN   /* some cards or decisions are one player's alone (a hand, a secret pick) */
} game_information;

/* The longest public text of an action (game_def.public_text), with its terminator. */
#define MEEPLE_PUBLIC_TEXT MEEPLE_ACTION_TEXT

/* ---- The game definition ---- */
typedef struct game_def {
    const char *name;             /* "babel": lower case, as on the command line */
    const char *title;            /* "Babel" */
    const char *rules;            /* `meeple rules NAME`: summary, rulings, parameters, action grammar */
    int min_players, max_players, default_players;
    /* A match's cap on a game's decisions, past which it ends unfinished, a draw (`meeple match
     * --max-decisions`'s default): about ten times the longest game the shipped bots play, so that no
     * real game is cut and a looping one stops in seconds. 0: 30,000. */
    int max_decisions;
    size_t state_size;
    const param_def *params;
    int num_params;

    /* Whether the parameters make a game at this player count (a deck big enough to deal from);
     * NULL when every value in range does. */
    bool (*params_check)(const param_value *params, int players, meeple_reason *why);
    /* Deals a new game. `params` has num_params entries, already validated against the defs and by
     * params_check. */
    void (*setup)(void *st, int players, const param_value *params, uint64_t seed);

    int (*num_players)(const void *st);
    int (*turn)(const void *st);
    int (*to_move)(const void *st);            /* whose decision it is; -1 once the game is over */
    /* A number that changes whenever a player's turn ends, and whose turn it is (for the turn_end
     * hook: in Babel a halving's discards are the opponent's decisions inside the active turn). */
    uint32_t (*turn_key)(const void *st, int *owner);
    bool (*is_over)(const void *st);

    /* Every legal action for to_move, in a stable order; returns the count (<= MEEPLE_MAX_ACTIONS).
     * `out` has MEEPLE_MAX_ACTIONS slots, any of which it may write (Babel's generator and the bean
     * games' builder lists write past the count as scratch). */
    int (*legal)(const void *st, action_t *out);
    /* Whether `a` is legal now, and if not, why. The single authority on legality: legal() lists
     * exactly the actions this accepts, which the conformance test asserts. */
    bool (*check)(const void *st, action_t a, meeple_reason *why);
    /* Applies a legal action. Calling it with an action check() refuses is a bug in the caller. */
    void (*apply)(void *st, action_t a);

    void (*scores)(const void *st, int *out);  /* num_players entries */
    int (*winners)(const void *st, int *out);  /* fills 0-based seats; 0 while running */

    /* Action text at the boundary: canonical strings as legal() lists them, and their parser.
     * parse_action knows the grammar; whether the action is legal is check()'s business. */
    void (*action_text)(const void *st, action_t a, char *out /* MEEPLE_ACTION_TEXT */);
    bool (*parse_action)(const void *st, const char *text, action_t *out, meeple_reason *why);
    /* The text of `a` at `st` is a function of text_key(st, a) alone, and distinct keys have distinct
     * texts: hosts intern one string per key instead of formatting a text per decision. The key folds
     * in what of the position a text shows (Babel's "@2"). NULL: the text depends on `a` alone. The
     * conformance test holds every game to this. */
    uint32_t (*text_key)(const void *st, action_t a);
    /* What `viewer` (0-based, not the player who decides) sees of the legal action `a` decided at
     * `st`: false (`out` untouched) when they see the action itself, as for most actions; true with
     * `out` set when some of it is secret to them: what they see, in parentheses ("(chooses a
     * character)"). No formatting for a public action: bots' histories ask this for every seat at
     * every decision. Required: every host that shows another seat's decision (replays, `meeple
     * play`, bots' histories) asks here, so a secret stays secret everywhere (game_public_text wraps
     * it: the decider and the whole table see the action itself). */
    bool (*public_text)(const void *st, action_t a, int viewer, char *out /* MEEPLE_PUBLIC_TEXT */);
    /* Whether some of the game is one player's alone (game_information). */
    game_information information;
    /* Every well-formed action of the grammar that could be meant in this position, legal or not
     * (for the conformance test: check() must accept exactly legal()'s subset of these). */
    int (*action_space)(const void *st, action_t *out);

    /* The state table (API.md "State tables"). viewer -1 writes everything; a seat writes only
     * what that player sees (hidden stacks become their sizes). */
    void (*write_table)(const void *st, int viewer, tree_writer *w);
    /* Builds a state from a (partial) table; what it does not name is dealt from the remaining
     * cards with `seed`. Refuses a table that cannot exist, with the reason. */
    bool (*read_table)(void *st, tree_reader *r, const param_value *params, uint64_t seed,
                       meeple_reason *why);
    /* The card catalogue of the game as this state plays it (its parameters applied): a map from
     * card name to its data ({count = 20, meter = {4, 6, 8, 10}}, {cost = 3, colour = "red"}). */
    void (*write_cards)(const void *st, tree_writer *w);
    /* Every invariant of a state that could exist: every card exactly once, stacks well-formed. */
    bool (*validate)(const void *st, meeple_reason *why);
    /* Re-deals, with `r`, everything `viewer` cannot see, keeping what they see unchanged. */
    void (*sample)(void *st, int viewer, rng *r);

    /* Moves cards between zones; refuses (changing nothing) a zone that does not exist, a card that
     * is not there, or a result the rules forbid outright (a temple that does not rise). */
    bool (*move)(void *st, const char *from, const char *to, const card_move *m, meeple_reason *why);
    /* Adds delta to a counter (gold); refuses a counter that does not exist or would go negative. */
    bool (*add)(void *st, const char *counter, int delta, meeple_reason *why);

    /* How much a plain greedy player of this game wants the legal action `a` now (the higher the
     * better; s:playout's `greedy` share of decisions takes the best, ties broken at random), drawing
     * from `r` where such a player would vary. It leaves the state as it is and allocates nothing (it
     * may try an action on a copy of its own). NULL: those decisions take the action that most raises
     * the mover's score. */
    int (*playout_worth)(const void *st, action_t a, rng *r);
    /* playout_worth of every action of acts[0..n) at once, into out (optional, for a policy that draws
     * nothing from its rng): acts is exactly legal()'s list, in its order, so what the actions' worths
     * share is worked out once a decision. Given, it must agree with playout_worth action for action. */
    void (*playout_worths)(const void *st, const action_t *acts, int n, int *out);
    /* The index of the action a greedy playout decision takes among acts[0..n) (legal()'s list, n >= 2).
     * Optional; a game that gives it gives playout_worth and playout_worths too (game_def_problem says
     * so), and test_conformance holds it to the host's scan of playout_worths: the highest worth, each
     * action worth more than the best so far replacing it and setting the tie count to 1, each worth as
     * much drawing rng_below(r, ++ties) and replacing it on 0. Given, it must choose and draw exactly so;
     * it need not weigh an action it knows to be worse than the best so far (such an action draws
     * nothing). Why: the pick is made as the actions are weighed, with no list of worths written and
     * read again, a tenth of a bean playout decision. */
    int (*playout_pick)(const void *st, const action_t *acts, int n, rng *r);
    /* The action a greedy playout decision takes, named without legal()'s list where the game can
     * (optional; a game that gives it gives playout_pick too): true with that action in *out, drawn
     * for exactly as the host and playout_pick would draw on the whole list (a list of one action
     * draws rng_below(r, 1)); false, drawing nothing, where the host is to list and pick as usual.
     * test_conformance holds it to legal() and playout_pick at every position it plays. Why: a bean
     * deal is built one card a decision from some twenty actions, and writing them out and reading
     * them back was a third of a bean playout. */
    bool (*playout_choose)(const void *st, rng *r, action_t *out);
    /* One seat's score, as scores() gives it (optional): a score-greedy decision (a game without a
     * playout policy) weighs every legal action by the mover's score alone, and scoring all seats
     * each time was a fifth of a Citadels search when Citadels had no policy. */
    int (*score)(const void *st, int player);
} game_def;

/* What `viewer` sees of the action `a` decided at `st` (game_def.public_text): viewer -1 (the whole
 * table) and the one who decides see its text, the others what the game shows them. */
void game_public_text(const game_def *def, const void *st, action_t a, int viewer, char out[MEEPLE_PUBLIC_TEXT]);

#endif
