/* bot_load.c — bot files (bot.h): reading one, trying it once in a sandbox, its name, and where its
 * `require`s come from; an external bot's command is checked (extbot.h), nothing run. */
#define _XOPEN_SOURCE 700 /* realpath */

#include "bots/bot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bots/extbot.h"
#include "bots/luabot.h"
#include "host/paths.h"
#include <meeple/registry.h>

static bool is_dir_with(const char *dir, const char *file) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    return access(path, R_OK) == 0;
}

/* Sets `out` to `dir` when it holds the helper library. */
static bool try_lib(char *out, size_t n, const char *dir) {
    if (!is_dir_with(dir, "rules.lua")) return false;
    char real[PATH_MAX];
    snprintf(out, n, "%s", realpath(dir, real) ? real : dir);
    return true;
}

void bot_lib_dir(const char *bot_path, char *out, size_t n) {
    char dir[PATH_MAX + 32];
    out[0] = '\0';
    const char *root = getenv("MEEPLE_ROOT");
    if (root && *root) {
        snprintf(dir, sizeof dir, "%s/bots/lib", root);
        snprintf(out, n, "%s", dir);
        try_lib(out, n, dir);
        return;
    }
    if (bot_path) {
        const char *slash = strrchr(bot_path, '/');
        if (slash) snprintf(dir, sizeof dir, "%.*s/lib", (int)(slash - bot_path), bot_path);
        else snprintf(dir, sizeof dir, "lib");
        if (try_lib(out, n, dir)) return;
    }
    if (meeple_find("bots/lib/rules.lua", dir, sizeof dir)) {
        *strrchr(dir, '/') = '\0';
        if (try_lib(out, n, dir)) return;
    }
    out[0] = '\0';
}

/* The bot's name for tables and logs: printable, short, without spaces. */
static void set_name(bot_code *code, const char *name, size_t len) {
    size_t k = 0;
    for (size_t i = 0; i < len && k < sizeof code->name - 1; i++) {
        unsigned char c = (unsigned char)name[i];
        code->name[k++] = c <= ' ' || c == '"' || c == '\\' || c >= 0x7f ? '_' : (char)c;
    }
    code->name[k] = '\0';
}

/* Tries the code once in a sandbox; takes its name. */
static bot_code *try_code(bot_code *code, const bot_limits *budget, char *err, size_t errn) {
    param_value params[MEEPLE_MAX_PARAMS] = {{0}};
    luabot *b = luabot_new(code, meeple_games[0], params, budget, false);
    if (!b) {
        snprintf(err, errn, "out of memory");
        bot_code_free(code);
        return NULL;
    }
    if (luabot_ops.fault(b)) {
        snprintf(err, errn, "bot file '%s': %s", code->path, luabot_ops.reason(b));
        luabot_ops.free(b);
        bot_code_free(code);
        return NULL;
    }
    size_t len;
    const char *name = luabot_table_name(b, &len);
    if (name) set_name(code, name, len);
    luabot_ops.free(b);
    return code;
}

bot_code *bot_code_from_text(const char *text, const char *chunkname, const bot_limits *budget,
                             char *err, size_t errn) {
    bot_code *code = calloc(1, sizeof *code);
    if (code) code->text = malloc(strlen(text) + 1);
    if (!code || !code->text) {
        free(code);
        snprintf(err, errn, "out of memory");
        return NULL;
    }
    code->len = strlen(text);
    memcpy(code->text, text, code->len + 1);
    snprintf(code->path, sizeof code->path, "%s", chunkname);
    set_name(code, chunkname, strlen(chunkname));
    bot_lib_dir(NULL, code->lib_dir, sizeof code->lib_dir);
    return try_code(code, budget, err, errn);
}

/* A bot file is read only when it is a regular file of at most BOT_FILE_MAX bytes: a pipe or a device
 * named as a bot would block or never end, and compiling is not under the clock (Lua's parser takes
 * time that grows faster than the text), so the size is what bounds it. */
#define BOT_FILE_MAX ((size_t)1 << 20)

static char *read_bot_file(const char *path, size_t *len, char *err, size_t errn) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errn, "cannot read the bot file '%s'", path);
        if (fd >= 0) close(fd);
        return NULL;
    }
    const char *refusal = !S_ISREG(st.st_mode) ? "is not a regular file"
                          : (size_t)st.st_size > BOT_FILE_MAX ? "is larger than 1 MiB" : NULL;
    char *text = refusal ? NULL : malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (text && got < (size_t)st.st_size) {
        ssize_t n = read(fd, text + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fd);
    if (!text || got != (size_t)st.st_size) {
        snprintf(err, errn, "the bot file '%s' %s", path, refusal ? refusal : "cannot be read whole");
        free(text);
        return NULL;
    }
    text[got] = '\0';
    *len = got;
    return text;
}


/* An external bot's code: its command, checked, and its name; nothing is run yet. */
static bot_code *external_code(bot_code *code, const char *arg, char *err, size_t errn) {
    char name[64];
    if (extbot_check(arg, name, sizeof name, err, errn)) { /* which bounds it to fit `path` */
        code->external = true;
        snprintf(code->path, sizeof code->path, "%s", arg);
        set_name(code, name, strlen(name));
        return code;
    }
    free(code);
    return NULL;
}

bot_code *bot_code_load(const char *path, const bot_limits *budget, char *err, size_t errn) {
    bot_code *code = calloc(1, sizeof *code);
    if (!code) {
        snprintf(err, errn, "out of memory");
        return NULL;
    }
    if (extbot_is_command(path) || extbot_is_program_file(path)) return external_code(code, path, err, errn);
    code->text = read_bot_file(path, &code->len, err, errn);
    if (!code->text) {
        free(code);
        return NULL;
    }
    if (code->len > 2 && memcmp(code->text, "#!", 2) == 0) { /* a program, not Lua: the mode forgotten */
        snprintf(err, errn, "the bot file '%s' is a script (#!) that is not executable: chmod +x it, or give "
                 "'exec:INTERPRETER %s'", path, path);
        bot_code_free(code);
        return NULL;
    }
    code->text[code->len] = '\0';
    snprintf(code->path, sizeof code->path, "%s", path);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (len > 4 && strcmp(base + len - 4, ".lua") == 0) len -= 4;
    set_name(code, base, len);
    bot_lib_dir(path, code->lib_dir, sizeof code->lib_dir);
    return try_code(code, budget, err, errn);
}

void bot_code_free(bot_code *code) {
    if (!code) return;
    free(code->text);
    free(code);
}