/* fuzz_report.c — a log through `meeple report LOG --json` as the command runs it: the file opened only
 * if regular, its lines read bounded in bytes and in JSON values (report.c's line reader), each decoded
 * and checked by scripts/report.lua, then summarized and rated. A refusal is one line and status 1;
 * anything else (a crash, a sanitizer's report, another status) is a finding. */
#include "cli.h"
#include "fuzz.h"
#include "fuzz_logfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_log_file(data, size);
    if (!path) return 0;
    char *argv[] = {"report", (char *)path, "--json", NULL};
    cli_options opts = {0};
    int status = report_main(3, argv, &opts);
    if (status != 0 && status != 1) fuzz_fail("report ended with status %d", status);
    return 0;
}
