/* report.h — the report's Lua side, shared by `meeple report` and `meeple compare --html`. */
#ifndef MEEPLE_REPORT_H
#define MEEPLE_REPORT_H

#include <lua.h>
#include <stdbool.h>
#include <stddef.h>

/* Pushes a table of the compiled-in modules: report (scripts/report.lua), ratings, viewer, parts (the
 * replay page's template and scripts), escape (text for the terminal), render (scripts/render.lua) and titles (game name -> title).
 * Raises on a module that does not load. */
void report_push_modules(lua_State *L);

/* Pushes a function to lua_pcall: it runs the Lua source `chunk` (named `name` in errors; static text)
 * with (meeple, modules, the function's own arguments...) and returns what the chunk returns. */
void report_push_runner(lua_State *L, const char *chunk, const char *name);

/* Writes text[0..len) to `path` whole (beside it, then renamed over it) or not at all; an existing path
 * that is not a regular file is refused (cli_out_open). False with the reason in err. */
bool report_write_file(const char *path, const char *text, size_t len, char *err, size_t errn);

#endif
