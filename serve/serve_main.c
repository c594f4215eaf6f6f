/* serve_main.c — `meeple serve`: reads its options, opens the database and plays every stored game
 * again, then serves until SIGINT or SIGTERM, and stops cleanly (the streams ended, the bots stopped,
 * the database closed). */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "serve.h"

static int serve_option(const char *opt, const char *value, serve_config *c) {
    long long v;
    if (strcmp(opt, "--port") == 0) {
        if (!cli_parse_int(value, 0, 65535, &v)) return cli_bad_args("serve", "--port must be 0..65535, got '%s'", value);
        c->port = (int)v;
    } else if (strcmp(opt, "--bind") == 0) {
        c->bind = value;
    } else if (strcmp(opt, "--db") == 0) {
        c->db = value;
    } else if (strcmp(opt, "--max-games") == 0) {
        if (!cli_parse_int(value, 1, 1000000, &c->max_games))
            return cli_bad_args("serve", "--max-games must be 1..1000000, got '%s'", value);
    } else if (strcmp(opt, "--max-connections") == 0) {
        if (!cli_parse_int(value, 4, 100000, &c->max_connections))
            return cli_bad_args("serve", "--max-connections must be 4..100000, got '%s'", value);
    } else if (strcmp(opt, "--threads") == 0) {
        if (!cli_parse_int(value, 1, 64, &c->threads)) return cli_bad_args("serve", "--threads must be 1..64, got '%s'", value);
    } else if (strcmp(opt, "--bot-threads") == 0) {
        if (!cli_parse_int(value, 1, 64, &c->bot_workers))
            return cli_bad_args("serve", "--bot-threads must be 1..64, got '%s'", value);
    } else if (strcmp(opt, "--ms") == 0) {
        if (!cli_parse_int(value, 1, 3600000, &v)) return cli_bad_args("serve", "--ms must be 1..3600000, got '%s'", value);
        c->limits.ms = (double)v;
    } else if (strcmp(opt, "--memory") == 0) {
        if (!cli_parse_int(value, 1, 1 << 20, &v)) return cli_bad_args("serve", "--memory must be 1..1048576 (MiB), got '%s'", value);
        c->limits.memory = c->limits.program_memory = (size_t)v << 20;
    }
    return 0;
}

static int serve_parse(int argc, char **argv, serve_config *c) {
    static const char *const valued[] = {"--port", "--bind", "--db", "--max-games", "--max-connections", "--threads",
                                         "--bot-threads", "--ms", "--memory", NULL};
    *c = (serve_config){.bind = "127.0.0.1", .db = "meeple-serve.db", .port = 8080, .max_games = 1000,
                        .max_connections = 512, .max_body = 64 * 1024, .threads = 2, .bot_workers = 2,
                        .limits = {BOT_DEFAULT_MS, BOT_DEFAULT_INSTRUCTIONS, BOT_DEFAULT_MEMORY, 0}};
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        bool takes_value = false;
        for (const char *const *v = valued; *v; v++) takes_value |= strcmp(opt, *v) == 0;
        if (takes_value && i + 1 == argc) return cli_bad_args("serve", "%s needs a value", opt);
        if (takes_value) {
            int bad = serve_option(opt, argv[++i], c);
            if (bad) return bad;
        } else if (strcmp(opt, "--allow-exec") == 0) {
            c->allow_exec = true;
        } else if (strcmp(opt, "--durable") == 0) {
            c->durable = true;
        } else if (opt[0] == '-') {
            return cli_unknown_option("serve", opt);
        } else {
            return cli_bad_args("serve", "unexpected argument '%s'", opt);
        }
    }
    return 0;
}

static int serve_run(serve_server *sv) {
    char err[600];
    /* The database holds the seats' tokens: readable by its owner alone (SQLite gives its -wal and
     * -shm files the same mode). */
    umask(077);
    sv->store = store_open(sv->cfg.db, sv->cfg.durable, err, sizeof err);
    if (!sv->store) return cli_fail("serve", "database '%s': %s", sv->cfg.db, err);
    sv->cap = 64;
    sv->games = calloc((size_t)sv->cap, sizeof *sv->games);
    if (!sv->games) return cli_fail("serve", "out of memory");
    if (!serve_resume(sv, err, sizeof err)) return cli_fail("serve", "database '%s': %s", sv->cfg.db, err);
    /* SIGINT and SIGTERM are waited for here alone: every thread started from now on blocks them. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (!bots_start(sv)) return cli_fail("serve", "cannot start the bots' threads");
    if (!http_start(sv, err, sizeof err)) {
        bots_stop(sv);
        return cli_fail("serve", "%s", err);
    }
    const char *host = sv->cfg.bind;
    bool v6 = strchr(host, ':') != NULL;
    printf("meeple serve: http://%s%s%s:%d/ (database %s, %lld games)\n", v6 ? "[" : "", host, v6 ? "]" : "",
           http_port(sv), sv->cfg.db, sv->ngames);
    fflush(stdout);
    int sig = 0;
    sigwait(&stop, &sig);
    fprintf(stderr, "meeple serve: stopping (%s)\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    bots_stop(sv);
    http_end_streams(sv);
    http_stop(sv);
    return 0;
}

int serve_main(int argc, char **argv, const cli_options *opts) {
    (void)opts;
    serve_server *sv = calloc(1, sizeof *sv);
    if (!sv) return cli_fail("serve", "out of memory");
    int bad = serve_parse(argc, argv, &sv->cfg);
    if (bad) return free(sv), bad;
    pthread_mutex_init(&sv->lock, NULL);
    pthread_mutex_init(&sv->qlock, NULL);
    pthread_cond_init(&sv->qcond, NULL);
    int status = serve_run(sv);
    serve_games_free(sv);
    store_close(sv->store);
    pthread_mutex_destroy(&sv->lock);
    pthread_mutex_destroy(&sv->qlock);
    pthread_cond_destroy(&sv->qcond);
    free(sv);
    return status;
}
