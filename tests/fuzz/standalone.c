#define _POSIX_C_SOURCE 200809L /* opendir, stat */
/* standalone.c — a main() for the fuzz targets where libFuzzer is not linked (gcc builds): runs each
 * file named, or each file in each folder named, once. ctest replays the seed corpus this way, so the
 * regressions found by fuzzing run in every build, sanitizers included. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot read %s\n", path);
        return 1;
    }
    size_t cap = 4096, len = 0, got;
    uint8_t *data = malloc(cap);
    while (data && (got = fread(data + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            uint8_t *grown = realloc(data, cap *= 2);
            if (!grown) free(data);
            data = grown;
        }
    }
    fclose(f);
    if (!data) return 1;
    LLVMFuzzerTestOneInput(data, len);
    free(data);
    return 0;
}

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A folder's files in name order, so a failing run names the same input every time. */
static int run_dir(const char *dir, int *count) {
    DIR *d = opendir(dir);
    if (!d) return 1;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            char **grown = realloc(names, sizeof *names * (cap = cap ? cap * 2 : 64));
            if (!grown) break;
            names = grown;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        if ((names[n] = malloc(len))) snprintf(names[n++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, compare_names);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        bad |= run_file(names[i]);
        free(names[i]);
        ++*count;
    }
    free(names);
    return bad;
}

int main(int argc, char **argv) {
    int bad = 0, count = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "no such file or folder: %s\n", argv[i]);
            bad = 1;
        } else if (S_ISDIR(st.st_mode)) {
            bad |= run_dir(argv[i], &count);
        } else {
            bad |= run_file(argv[i]);
            count++;
        }
    }
    printf("%d inputs run\n", count);
    return bad;
}
