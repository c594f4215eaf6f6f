/* fuzz_merge.c — a log through `meeple merge LOG --log OUT` as the command runs it: the file opened only
 * if regular, its lines read bounded (merge's own line reader), each record checked (matchlog_read),
 * every game played again, the merged log written beside OUT and renamed. A refusal is one line and
 * status 1 or 2; anything else (a crash, a sanitizer's report, another status) is a finding. */
#include <stdbool.h>

#include "cli.h"
#include "fuzz.h"
#include "fuzz_logfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_log_file(data, size);
    if (!path) return 0;
    char *argv[] = {"merge", (char *)path, "--log", (char *)fuzz_out_file(), NULL};
    cli_options opts = {0};
    int status = merge_main(4, argv, &opts);
    if (status < 0 || status > 2) fuzz_fail("merge ended with status %d", status);
    return 0;
}
