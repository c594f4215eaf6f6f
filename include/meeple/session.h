/* session.h — a game being played: its definition, parameters, seed, the state it started from, the
 * state now and the decisions taken. Undo, save and load live here, once for every game. */
#ifndef MEEPLE_SESSION_H
#define MEEPLE_SESSION_H

#include <meeple/game.h>

/* The largest seed meeple takes or derives (--seed, each game's seed in a match): seeds go into saves and
 * logs as JSON numbers, which hold whole numbers exactly up to 2^53. */
#define MEEPLE_SEED_MAX ((1LL << 53) - 1)

typedef struct history_entry {
    action_t action;
    int player; /* 0-based seat that decided */
} history_entry;

/* A caller reads the fields above the block's (def, params, variant, seed, players, from_table, start,
 * now, history, history_len) and changes a session only through the functions below: `now` is def's
 * state, to pass to def->legal, def->scores and the others that read one. */
typedef struct session {
    const game_def *def;
    const param_value *params; /* def->num_params values: in the session's block, or its game's defaults */
    char variant[64];        /* "" under the base rules */
    uint64_t seed;
    int players;
    bool from_table;         /* `start` came from a table rather than from dealing with `seed` */
    void *start;             /* the state before the first decision */
    void *now;
    history_entry *history;
    int history_len, history_cap;
    /* Where the memory lies (session.c): the session, its states and its first history are one block,
     * which session_free frees unless it is the caller's (session_clone_into); a history that outgrew
     * its block is the session's own. */
    bool block_is_callers;
    bool history_in_block;
    bool params_in_block;
    int block_history;       /* history entries the block has room for */
} session;

/* ---- Parameters ---- */
/* The game's defaults into `out` (def->num_params values; MEEPLE_MAX_PARAMS is room for any game's). */
void params_defaults(const game_def *def, param_value *out);
int params_index(const game_def *def, const char *name);     /* -1 when unknown */
/* Reads the map the reader is at ({end_total = 12, sumerians = "all"}) over `values`, which start as
 * the defaults. Unknown keys, wrong types, values out of range: false and the reason. */
bool params_read(const game_def *def, tree_reader *r, param_value *values, meeple_reason *why);
/* "hand_start = 3 5"-style text of one parameter's value, for saves and messages. */
void params_value_text(const game_def *def, int index, const param_value *v, char *out, size_t n);

/* ---- Lifetime ---- */
/* players 0 means the game's default count; params NULL means the game's defaults (else def->num_params
 * values, as params_defaults and params_read make them, which the session copies: the caller keeps its
 * own). NULL and the reason when `def` is NULL, the count is out of range or the parameters make no game
 * at this count. Free the session with session_free. */
session *session_new(const game_def *def, int players, const param_value *params, uint64_t seed,
                     meeple_reason *why);
/* From a (partial) state table; the reader is at the table's root. params as for session_new. */
session *session_from_table(const game_def *def, tree_reader *r, const param_value *params,
                            uint64_t seed, meeple_reason *why);
session *session_clone(const session *s);
/* A clone in memory the caller gives (session_clone_size(s) bytes, aligned for any type): the
 * session, both states and the history in that one block, as a search bot clones by the million.
 * session_free then frees only what the clone grew beyond it. */
size_t session_clone_size(const session *s);
session *session_clone_into(const session *s, void *block);
/* The same for a copy of the position alone: it starts where `s` stands, with no history (a sample,
 * which re-deals its start; session_rebase of a clone, without copying the history first). */
size_t session_position_size(const session *s);
session *session_position_into(const session *s, void *block);
void session_free(session *s);
/* Bytes the session holds in the host's heap (nothing of a block the caller gave). */
size_t session_heap_bytes(const session *s);

/* The position now becomes the start and the history is dropped (a sample, a position reached by
 * other means): its save then carries the position's bytes. */
void session_rebase(session *s);

/* A determinization, in place: what `viewer` cannot see in `s` (a copy the caller owns: a clone or a
 * position) is re-dealt from `seed`, the game's generator reseeded from the same draw (each game's
 * sample does it), and `s` rebased (session_rebase). The session's seed becomes one drawn from the
 * sample's own generator too: a sample's save carries no trace of the game it was drawn from — not its
 * seed, not its generator — and still loads and replays. s:sample, ctx.sample, Python's State.sample
 * and protocol 1's samples are all made here, alike for a seed. */
void session_sample(session *s, int viewer, uint64_t seed);
#define SESSION_SAMPLE_STREAM 0x5a3d1e
/* The generator streams a seeded playout and a seeded ranking draw from (the Lua and Python modules'
 * s:playout and s:ranked): the same seed gives the same decisions from either. */
#define SESSION_PLAYOUT_STREAM 0x91a7
#define SESSION_RANKED_STREAM 0x7a4c

/* ---- Decisions ---- */
/* Checks and applies; an illegal action leaves everything as it was and says why. */
bool session_play(session *s, action_t a, meeple_reason *why);
/* Whether an action's text (exactly as legal() prints it) is legal now; `out` (if not NULL) gets the
 * action. */
bool session_check_text(const session *s, const char *text, action_t *out, meeple_reason *why);
/* Checks and applies an action's text. */
bool session_play_text(session *s, const char *text, meeple_reason *why);
/* Plays up to `limit` decisions: 0 plays none, SESSION_PLAYOUT_TO_END (any negative limit) plays until
 * the game is over (as Lua's s:playout(seed) without a count), and never more than SESSION_PLAYOUT_MAX:
 * the search bots' playout, kept in C because it is their inner loop. A `greedy` share (0..1) of the
 * decisions follow the game's playout policy (else the action that most raises the mover's score); the
 * rest are uniformly random. Returns how many were played, or -1 when out of memory, with the
 * decisions played until then kept (all legal). */
int session_playout(session *s, rng *r, int limit, double greedy);
/* The legal actions (into `out`, MEEPLE_MAX_ACTIONS long), the ones the playout policy wants most
 * first: what a search tries first at a new node. Returns the count (0 when the game is over). */
int session_ranked(const session *s, rng *r, action_t *out);
/* session_playout's limit for "until the game is over". */
#define SESSION_PLAYOUT_TO_END (-1)
/* No game lasts this many decisions, but a policy that goes round in circles (a greedy Babel deal can)
 * would play forever: a playout stops here, the game not over. */
#define SESSION_PLAYOUT_MAX 1000000
/* Takes back the last n decisions (fewer if there are fewer); returns how many. */
int session_undo(session *s, int n);

/* ---- Saving ---- */
/* The save text: game, players, seed, variant, parameters, the start state if it came from a table,
 * then one action per line. Caller frees. */
char *session_save(const session *s);
/* Rebuilds a session from save text; a damaged text gives the reason (with its line), never a crash. */
session *session_load(const char *text, meeple_reason *why);

#endif
