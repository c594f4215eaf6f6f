/* lmodule.c — the entry point stock Lua looks for when it loads meeple.so (`require "meeple"`). */
#include <lauxlib.h>
#include <lua.h>

#include "lua/lmeeple.h"

LUAMOD_API int luaopen_meeple(lua_State *L) { return meeple_open(L); }
