/* serve_store.c — `meeple serve`'s games as data in SQLite (WAL mode): a game's creation and each of
 * its events (an action, a forfeit, its end) are committed before the server answers, so a server
 * killed at any moment loses nothing it acknowledged. The file may be an attacker's: every read is
 * checked, and a database that is not ours is refused in one line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "serve.h"

#define STORE_FORMAT "meeple-serve 1"

struct serve_store {
    sqlite3 *db;
    pthread_mutex_t lock; /* one connection, used by one thread at a time */
    sqlite3_stmt *add_game, *add_event;
};

static const char *const schema =
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS games(id TEXT PRIMARY KEY, game TEXT NOT NULL, players INTEGER NOT NULL,"
    " seed INTEGER NOT NULL, variant TEXT NOT NULL, params TEXT NOT NULL, seats TEXT NOT NULL,"
    " created INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS events(game TEXT NOT NULL REFERENCES games(id), n INTEGER NOT NULL,"
    " kind TEXT NOT NULL, seat INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY(game, n));";

static bool fail(serve_store *st, const char *what, char *err, size_t n) {
    snprintf(err, n, "%s: %s", what, sqlite3_errmsg(st->db));
    return false;
}

/* The format row: present and ours, or the database is empty and gets it. */
static bool check_format(serve_store *st, char *err, size_t n) {
    sqlite3_stmt *q;
    int tables = 0;
    if (sqlite3_prepare_v2(st->db, "SELECT count(*) FROM sqlite_schema", -1, &q, NULL) != SQLITE_OK)
        return fail(st, "not a database meeple serve can read", err, n);
    if (sqlite3_step(q) == SQLITE_ROW) tables = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    if (tables == 0) {
        if (sqlite3_exec(st->db, schema, NULL, NULL, NULL) != SQLITE_OK ||
            sqlite3_exec(st->db, "INSERT INTO meta VALUES('format', '" STORE_FORMAT "')", NULL, NULL, NULL) !=
                SQLITE_OK)
            return fail(st, "cannot create its tables", err, n);
        return true;
    }
    bool ours = false;
    if (sqlite3_prepare_v2(st->db, "SELECT value FROM meta WHERE key = 'format'", -1, &q, NULL) == SQLITE_OK) {
        if (sqlite3_step(q) == SQLITE_ROW) {
            const unsigned char *v = sqlite3_column_text(q, 0);
            ours = v && strcmp((const char *)v, STORE_FORMAT) == 0;
        }
        sqlite3_finalize(q);
    }
    if (!ours) {
        snprintf(err, n, "not a meeple serve database (no '%s' format mark): give a new file to --db", STORE_FORMAT);
        return false;
    }
    /* Our tables, as we made them: a foreign or edited schema is refused before any row is read. */
    if (sqlite3_exec(st->db, schema, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(st->db, "SELECT id, game, players, seed, variant, params, seats, created FROM games LIMIT 0;"
                             "SELECT game, n, kind, seat, text FROM events LIMIT 0", NULL, NULL, NULL) != SQLITE_OK)
        return fail(st, "its tables are not meeple serve's", err, n);
    return true;
}

static bool open_db(serve_store *st, const char *path, bool durable, char *err, size_t n) {
    if (sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, NULL) !=
        SQLITE_OK)
        return fail(st, "cannot open it", err, n);
    sqlite3_busy_timeout(st->db, 2000);
    /* The file may be an attacker's: no writing to the schema or shadow tables by SQL, and no function a
     * schema names (a trigger's or a view's) run with our rights. */
    if (sqlite3_db_config(st->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL) != SQLITE_OK ||
        sqlite3_exec(st->db, "PRAGMA trusted_schema=OFF", NULL, NULL, NULL) != SQLITE_OK)
        return fail(st, "cannot make it safe to read", err, n);
    /* A damaged file shows here (SQLITE_NOTADB, SQLITE_CORRUPT) rather than halfway through a game. */
    sqlite3_stmt *q;
    bool whole = false;
    if (sqlite3_prepare_v2(st->db, "PRAGMA quick_check", -1, &q, NULL) == SQLITE_OK) {
        whole = sqlite3_step(q) == SQLITE_ROW && strcmp((const char *)sqlite3_column_text(q, 0), "ok") == 0;
        sqlite3_finalize(q);
    }
    if (!whole) return fail(st, "not a database meeple serve can read (or a damaged one)", err, n);
    /* WAL: a commit is one append to the log, in the kernel's hands before the server answers, so a
     * killed server loses nothing; --durable (FULL) also waits for the disk, against a power cut. */
    if (sqlite3_exec(st->db, durable ? "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON"
                                     : "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON",
                     NULL, NULL, NULL) != SQLITE_OK)
        return fail(st, "cannot set WAL mode", err, n);
    if (!check_format(st, err, n)) return false;
    if (sqlite3_prepare_v2(st->db, "INSERT INTO games VALUES(?, ?, ?, ?, ?, ?, ?, ?)", -1, &st->add_game, NULL) !=
            SQLITE_OK ||
        sqlite3_prepare_v2(st->db, "INSERT INTO events VALUES(?, ?, ?, ?, ?)", -1, &st->add_event, NULL) != SQLITE_OK)
        return fail(st, "cannot prepare its statements", err, n);
    return true;
}

serve_store *store_open(const char *path, bool durable, char *err, size_t n) {
    serve_store *st = calloc(1, sizeof *st);
    if (!st) return snprintf(err, n, "out of memory"), NULL;
    pthread_mutex_init(&st->lock, NULL);
    if (open_db(st, path, durable, err, n)) return st;
    store_close(st);
    return NULL;
}

void store_close(serve_store *st) {
    if (!st) return;
    sqlite3_finalize(st->add_game);
    sqlite3_finalize(st->add_event);
    sqlite3_close(st->db);
    pthread_mutex_destroy(&st->lock);
    free(st);
}

static bool run(serve_store *st, sqlite3_stmt *q, const char *what, char *err, size_t n) {
    int rc = sqlite3_step(q);
    bool ok = rc == SQLITE_DONE;
    if (!ok) fail(st, what, err, n);
    sqlite3_reset(q);
    sqlite3_clear_bindings(q);
    return ok;
}

bool store_create(serve_store *st, const serve_game *g, const char *seats_json, char *err, size_t n) {
    pthread_mutex_lock(&st->lock);
    sqlite3_stmt *q = st->add_game;
    sqlite3_bind_text(q, 1, g->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 2, g->def->name, -1, SQLITE_STATIC);
    sqlite3_bind_int(q, 3, g->players);
    sqlite3_bind_int64(q, 4, (sqlite3_int64)g->seed);
    sqlite3_bind_text(q, 5, g->variant, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 6, g->params_json, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 7, seats_json, -1, SQLITE_STATIC);
    sqlite3_bind_int64(q, 8, g->created);
    bool ok = run(st, q, "cannot store the game", err, n);
    pthread_mutex_unlock(&st->lock);
    return ok;
}

bool store_event(serve_store *st, const char *id, long long n, const char *kind, int seat, const char *text,
                 char *err, size_t errn) {
    pthread_mutex_lock(&st->lock);
    sqlite3_stmt *q = st->add_event;
    sqlite3_bind_text(q, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(q, 2, n);
    sqlite3_bind_text(q, 3, kind, -1, SQLITE_STATIC);
    sqlite3_bind_int(q, 4, seat);
    sqlite3_bind_text(q, 5, text, -1, SQLITE_STATIC);
    bool ok = run(st, q, "cannot store the event", err, errn);
    pthread_mutex_unlock(&st->lock);
    return ok;
}

/* A text column, "" for NULL; a column of another type is refused by the caller's checks. */
static const char *text_of(sqlite3_stmt *q, int col) {
    const unsigned char *t = sqlite3_column_text(q, col);
    return t ? (const char *)t : "";
}

static bool load_events(serve_store *st, const char *id, void *ud, store_event_fn on_event, char *err, size_t n) {
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(st->db, "SELECT n, kind, seat, text FROM events WHERE game = ? ORDER BY n", -1, &q, NULL) !=
        SQLITE_OK)
        return fail(st, "cannot read its events", err, n);
    sqlite3_bind_text(q, 1, id, -1, SQLITE_TRANSIENT);
    bool ok = true;
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW)
        if (!on_event(ud, id, sqlite3_column_int64(q, 0), text_of(q, 1), sqlite3_column_int64(q, 2), text_of(q, 3),
                      err, n))
            break; /* the game's own trouble: the rest of its events are not read */
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) ok = fail(st, "cannot read its events", err, n);
    sqlite3_finalize(q);
    return ok;
}

bool store_load(serve_store *st, void *ud, store_game_fn on_game, store_event_fn on_event, char *err, size_t n) {
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(st->db,
                           "SELECT id, game, players, seed, variant, params, seats, created, EXISTS(SELECT 1 "
                           "FROM events WHERE events.game = games.id AND kind IN ('end', 'forfeit')) FROM games "
                           "ORDER BY created, rowid", -1, &q, NULL) != SQLITE_OK)
        return fail(st, "cannot read its games", err, n);
    bool ok = true;
    int rc;
    while (ok && (rc = sqlite3_step(q)) == SQLITE_ROW) {
        char id[64];
        snprintf(id, sizeof id, "%s", text_of(q, 0));
        if (on_game(ud, id, text_of(q, 1), sqlite3_column_int64(q, 2), sqlite3_column_int64(q, 3), text_of(q, 4),
                    text_of(q, 5), text_of(q, 6), sqlite3_column_int64(q, 7), sqlite3_column_int(q, 8) != 0, err, n))
            ok = load_events(st, id, ud, on_event, err, n);
    }
    if (ok && rc != SQLITE_DONE) ok = fail(st, "cannot read its games", err, n);
    sqlite3_finalize(q);
    return ok;
}
