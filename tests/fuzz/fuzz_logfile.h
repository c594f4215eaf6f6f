/* fuzz_logfile.h — the input as a log file on disk, for the targets that run a command over a path
 * (fuzz_merge, fuzz_report): one file per process, replaced at each input and removed at exit. */
#ifndef MEEPLE_FUZZ_LOGFILE_H
#define MEEPLE_FUZZ_LOGFILE_H

#include <stddef.h>
#include <stdint.h>

/* The path of a file holding data[0..size), or NULL when it cannot be written. */
const char *fuzz_log_file(const uint8_t *data, size_t size);

/* A path beside it for an output (not created), removed at exit too. */
const char *fuzz_out_file(void);

#endif
