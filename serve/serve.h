/* serve.h — `meeple serve` (docs/serve.md): games for people and bots over HTTP, kept in SQLite.
 *
 * The parts: serve_main.c reads the arguments and runs the server until SIGINT/SIGTERM; serve_store.c
 * keeps every game's creation and events in SQLite (committed before any answer); serve_game.c holds the
 * games being played (each in a lua_State of its own, its bot seats in their sandboxes) and builds their
 * documents; serve_bots.c moves the bot seats on worker threads; serve_http.c answers HTTP (the JSON
 * API, the pages, Server-Sent Events) through libmicrohttpd. SERVE-CONTRACT: docs/serve.md. */
#ifndef MEEPLE_SERVE_H
#define MEEPLE_SERVE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "bots/bot.h"
#include <meeple/game.h>

#define SERVE_TOKEN_BYTES 32          /* 256 random bits a token, 64 hex digits */
#define SERVE_TOKEN_LEN (2 * SERVE_TOKEN_BYTES)
#define SERVE_ID_LEN 16               /* a game's id: 64 random bits, 16 hex digits */
#define SERVE_NAME_LEN 128            /* a seat's name: "human", a bot's name or exec: command */
#define SERVE_REASON_LEN 300

typedef struct serve_config {
    const char *bind, *db;
    int port;
    bool allow_exec, durable;        /* durable: synchronous=FULL, a commit survives a power cut too */
    long long max_games, max_connections, max_body, threads, bot_workers;
    bot_limits limits;
} serve_config;

typedef struct serve_seat {
    bool human;
    char name[SERVE_NAME_LEN];
    char token[SERVE_TOKEN_LEN + 1]; /* a human seat's; "" for a bot */
    bot *b;                          /* a bot seat's, its own sandboxed lua_State */
    bot_code *code;                  /* its code: the server's cache's, or its own (own_code: an exec: bot) */
    bool own_code;
} serve_seat;

typedef struct sse_stream sse_stream;

typedef struct serve_game {
    pthread_mutex_t lock;            /* everything below; never held while waiting for a bot */
    char id[SERVE_ID_LEN + 1];
    const game_def *def;
    int players;
    uint64_t seed;
    char variant[64];
    char *params_json;               /* as created: "{}" or the object given */
    long long created;
    serve_seat seats[MEEPLE_MAX_PLAYERS];
    lua_State *L;                    /* the game (serve_game.lua's G at index 1) */
    void *bot_state;                 /* a copy of the plain state a bot decides on, the lock released */
    long long events;                /* events stored: the next one's number is events + 1 */
    long long version;               /* bumped at each change: the live streams compare it */
    int forfeit;                     /* 1-based seat that forfeited, 0: none */
    char forfeit_reason[SERVE_REASON_LEN];
    bool ended;                      /* its end event is stored */
    bool bot_queued;                 /* waiting in the bots' queue or being decided */
    bool broken;                     /* read-only: the database refused a write, or its stored game does */
    char broken_reason[SERVE_REASON_LEN]; /* not replay (resume): the document's "broken" says why */
    char game_name[32];              /* as stored, for a game that could not be made (def NULL) */
    bool counted;                    /* counts towards --max-games (unfinished); sv->lock */
    long long final_decisions;       /* once retired (L closed): its decisions, its documents in docs[] */
    sse_stream *streams;             /* live streams of this game */
    struct {                         /* each reader's last document (0: spectators), and its version: a */
        long long version;           /* seat's answer to its action and its live stream share one */
        char *text;
    } docs[MEEPLE_MAX_PLAYERS + 1];
    struct serve_game *next_queued;
} serve_game;

/* ---- serve_store.c: the database ---- */
typedef struct serve_store serve_store;
/* Opens (creating) the database and checks it is one of ours; NULL with one line in err. */
serve_store *store_open(const char *path, bool durable, char *err, size_t n);
void store_close(serve_store *st);
/* The game's creation, committed. */
bool store_create(serve_store *st, const serve_game *g, const char *seats_json, char *err, size_t n);
/* One event (n = 1, 2, ...): kind "action" (text: the action), "forfeit" (text: the reason) or "end"
 * (text: the scores as JSON), committed. */
bool store_event(serve_store *st, const char *id, long long n, const char *kind, int seat, const char *text,
                 char *err, size_t errn);
/* Every stored game, oldest first, to `each`; false (err says why) when the database cannot be read.
 * A game the callbacks refuse (they return false) is their business: they are called on. */
/* finished: an end or forfeit event is stored for it. */
typedef bool (*store_game_fn)(void *ud, const char *id, const char *game, long long players, long long seed,
                              const char *variant, const char *params, const char *seats, long long created,
                              bool finished, char *err, size_t n);
typedef bool (*store_event_fn)(void *ud, const char *id, long long n, const char *kind, long long seat,
                               const char *text, char *err, size_t errn);
bool store_load(serve_store *st, void *ud, store_game_fn on_game, store_event_fn on_event, char *err, size_t n);

/* ---- serve_game.c: the games ---- */
typedef struct serve_server serve_server;
struct MHD_Daemon;
struct serve_server {
    serve_config cfg;
    serve_store *store;
    pthread_mutex_t lock;            /* games, ngames, and the bot codes */
    serve_game **games;
    long long ngames, cap;           /* cap: the array's room, grown as needed */
    long long unfinished;            /* games not over, and slots reserved by creations under way */
    struct bot_cache *codes;
    /* the bots' queue */
    pthread_mutex_t qlock;
    pthread_cond_t qcond;
    serve_game *qhead, *qtail;       /* games with a human seat: someone is waiting for the bot's move */
    serve_game *bhead, *btail;       /* games of bots alone: served one pick in BOTS_ONLY_SHARE */
    int picks;                       /* picks from the first queue since the last from the second */
    pthread_t *workers;
    int nworkers;
    volatile bool stopping;
    bool resuming;                   /* replaying the database: nothing is stored, no end written */
    struct MHD_Daemon *daemon;
};

/* HTTP status and a one-line reason, the answer of a request that failed. */
typedef struct serve_error {
    int status;
    char why[SERVE_REASON_LEN];
} serve_error;

bool serve_error_set(serve_error *e, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

serve_game *serve_find(serve_server *sv, const char *id);
/* POST /api/games: the body's object; the answer (201's body) as JSON text, or NULL and e set. */
char *serve_create(serve_server *sv, const char *body, size_t len, serve_error *e);
/* The seat (1-based) a token names in g, 0 for no token (a spectator), -1 for a wrong one. Constant
 * time in the token's bytes. Lock held. */
int serve_token_seat(const serve_game *g, const char *token);
/* The game document for `seat` (0: spectators), JSON text (caller frees). Lock held. */
char *serve_document(serve_game *g, int seat);
/* POST /api/games/ID/actions: plays `action` for the token's seat; the document, or NULL and e set. */
char *serve_act(serve_server *sv, serve_game *g, const char *body, size_t len, serve_error *e);
/* GET /api/games, GET /api/catalog. */
char *serve_list(serve_server *sv);
char *serve_catalog(serve_server *sv);
/* Every stored game played again (at start). False with one line in err. */
bool serve_resume(serve_server *sv, char *err, size_t n);
void serve_games_free(serve_server *sv);

/* ---- serve_bots.c: bot seats move by themselves ---- */
bool bots_start(serve_server *sv);
void bots_stop(serve_server *sv);
/* Queues g when a bot seat is to decide (lock of g held). */
void bots_wake(serve_server *sv, serve_game *g);
/* A bot seat's decision, played (called by the workers). */
void serve_bot_move(serve_server *sv, serve_game *g);
/* The plain state under the game (lock held). */
const void *serve_plain_state(serve_game *g);

/* ---- serve_http.c ---- */
bool http_start(serve_server *sv, char *err, size_t n);
/* The port the daemon listens on. */
int http_port(serve_server *sv);
void http_stop(serve_server *sv);
/* A change to g: its live streams send the new document (lock of g held). */
void http_changed(serve_game *g);
/* Ends every live stream (at stop). */
void http_end_streams(serve_server *sv);

#endif
