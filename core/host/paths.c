/* paths.c — the roots meeple looks names up in (see paths.h). */
#define _GNU_SOURCE /* dladdr */
#include "host/paths.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MEEPLE_SOURCE_DIR
#define MEEPLE_SOURCE_DIR ""
#endif

static bool is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The file this code runs from: meeple.so when loaded by lua5.4, else the executable. */
static bool own_file(char *out, size_t n) {
    Dl_info info;
    if (dladdr((void *)meeple_roots, &info) && info.dli_fname && info.dli_fname[0] == '/') {
        snprintf(out, n, "%s", info.dli_fname);
        return true;
    }
    ssize_t len = readlink("/proc/self/exe", out, n - 1);
    if (len <= 0) return false;
    out[len] = '\0';
    return true;
}

/* <prefix>/share/meeple above the running file (bin/meeple, lib/lua/5.4/meeple.so, lib/<arch>/...). */
static bool installed_root(char *out, size_t n) {
    char dir[PATH_MAX], probe[PATH_MAX + 32];
    if (!own_file(dir, sizeof dir)) return false;
    for (int up = 0; up < 6; up++) {
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir) return false;
        *slash = '\0';
        snprintf(probe, sizeof probe, "%s/share/meeple", dir);
        if (is_dir(probe)) {
            int w = snprintf(out, n, "%.*s", (int)(n - 1), probe);
            return w > 0 && (size_t)w < n;
        }
    }
    return false;
}

static int add_root(char roots[][MEEPLE_PATH_LEN], int count, int max, const char *dir, size_t len) {
    if (count >= max || len == 0 || len >= MEEPLE_PATH_LEN) return count;
    char path[MEEPLE_PATH_LEN];
    memcpy(path, dir, len);
    path[len] = '\0';
    if (!is_dir(path)) return count;
    for (int i = 0; i < count; i++)
        if (strcmp(roots[i], path) == 0) return count;
    memcpy(roots[count], path, len + 1);
    return count + 1;
}

int meeple_roots(char roots[][MEEPLE_PATH_LEN], int max) {
    int count = 0;
    const char *env = getenv("MEEPLE_ROOT");
    if (env && *env) count = add_root(roots, count, max, env, strlen(env));
    char own[PATH_MAX];
    if (installed_root(own, sizeof own)) count = add_root(roots, count, max, own, strlen(own));
    else count = add_root(roots, count, max, MEEPLE_SOURCE_DIR, strlen(MEEPLE_SOURCE_DIR));
    for (const char *path = getenv("MEEPLE_PATH"); path && *path;) {
        size_t len = strcspn(path, ":");
        count = add_root(roots, count, max, path, len);
        path += len + (path[len] == ':');
    }
    return count;
}

bool meeple_find(const char *relative, char *out, size_t n) {
    char roots[MEEPLE_MAX_ROOTS][MEEPLE_PATH_LEN];
    int count = meeple_roots(roots, MEEPLE_MAX_ROOTS);
    for (int i = 0; i < count; i++) {
        int w = snprintf(out, n, "%s/%s", roots[i], relative);
        if (w > 0 && (size_t)w < n && access(out, R_OK) == 0) return true;
    }
    return false;
}

bool meeple_find_bot(const char *arg, char *out, size_t n) {
    if (strncmp(arg, "exec:", 5) == 0) { /* an external bot's command line, not a file */
        int w = snprintf(out, n, "%s", arg);
        return w > 0 && (size_t)w < n;
    }
    if (strchr(arg, '/') || access(arg, R_OK) == 0) {
        snprintf(out, n, "%s", arg);
        return access(arg, R_OK) == 0;
    }
    size_t len = strlen(arg);
    bool has_ext = len > 4 && strcmp(arg + len - 4, ".lua") == 0;
    char relative[MEEPLE_PATH_LEN];
    int w = snprintf(relative, sizeof relative, "bots/%s%s", arg, has_ext ? "" : ".lua");
    if (w > 0 && (size_t)w < sizeof relative && meeple_find(relative, out, n)) return true;
    snprintf(out, n, "%s", arg);
    return false;
}
