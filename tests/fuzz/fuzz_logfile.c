/* fuzz_logfile.c — the input as a log file on disk (fuzz_logfile.h). */
#define _POSIX_C_SOURCE 200809L

#include "fuzz_logfile.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char in_path[1024], out_path[1024];

static void remove_files(void) {
    remove(in_path);
    remove(out_path);
}

static void name_files(void) {
    if (in_path[0]) return;
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = "/tmp";
    snprintf(in_path, sizeof in_path, "%.900s/meeple-fuzz-%ld.jsonl", tmp, (long)getpid());
    snprintf(out_path, sizeof out_path, "%.900s/meeple-fuzz-%ld-out.jsonl", tmp, (long)getpid());
    atexit(remove_files);
    /* What the commands print on success (tables) is not the finding: only what they do. */
    if (!freopen("/dev/null", "w", stdout)) return;
}

const char *fuzz_log_file(const uint8_t *data, size_t size) {
    name_files();
    FILE *f = fopen(in_path, "wb");
    if (!f) return NULL;
    bool ok = fwrite(data, 1, size, f) == size;
    if (fclose(f) != 0 || !ok) return NULL;
    return in_path;
}

const char *fuzz_out_file(void) {
    name_files();
    remove(out_path);
    return out_path;
}
