/* guards.c — C library calls priced before they run (guards.h).
 *
 * Such a call is priced before it starts: instructions charged for its size, and an upper bound on
 * its wall-clock time held against what is left of the sandbox's call. One that cannot fit is refused
 * before it starts, so the host never waits on a C loop past the clock.
 *
 * Every guard closure holds its meter as upvalue 1, so one guard serves any sandbox without asking
 * the lua_State who runs it; Lua's own function, when there is one, is upvalue 2 and the function's
 * full name ("string.find"), when messages need it, upvalue 3. */
#include "sandbox/guards.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include <lauxlib.h>

#define UV_METER lua_upvalueindex(1)
#define UV_ORIGINAL lua_upvalueindex(2)
#define UV_NAME lua_upvalueindex(3)

/* What C work costs, in nanoseconds of wall-clock time: twice the CPU time measured on a loaded
 * 2-core machine (where a busy process gets about half a core), rounded up, so that an estimate errs
 * towards refusing. */
#define NS_PATTERN_STEP 10.0  /* one pattern item tried at one place */
#define NS_FIND_PLACE 16.0    /* a plain find trying one place... */
#define NS_FIND_BYTE 0.25     /* ...and comparing one byte there */
#define NS_BYTE 8.0           /* a byte made, copied or scanned (fresh pages included) */
#define NS_NUMBER 1500.0      /* a number written as text */
#define NS_DIGIT 25.0         /* a byte read by tonumber */
#define NS_PACKED 20.0        /* a byte written by string.pack (one call each) */
#define NS_PIECE 30.0         /* a piece appended to a buffer: a repetition, a gsub match */
#define NS_SLOT GUARD_NS_SLOT /* a table slot read or written */
#define NS_NEW_SLOT 400.0     /* a slot written past a table's end (it grows and rehashes) */
#define NS_STACK_SLOT 200.0   /* a value pushed by table.unpack or string.byte (the stack grows) */
#define NS_COMPARE 30.0       /* a comparison in table.sort */
#define NS_LOAD_BYTE 100.0    /* a byte of source compiled by load */
#define NS_NEGLIGIBLE GUARD_NS_NEGLIGIBLE

static guard_meter *meter_of(lua_State *L) { return lua_touserdata(L, UV_METER); }

static size_t memory_left(lua_State *L) {
    guard_meter *m = meter_of(L);
    return m->memory_left(L, m);
}

/* Asks the meter for the call `what` about to run; returns only when it may. */
static void price_call(lua_State *L, const char *what, double steps, double worst_ns) {
    guard_meter *m = meter_of(L);
    m->price(L, m, what, steps, worst_ns);
}

/* Calls Lua's own function with the arguments given; returns all it returns. */
static int forward(lua_State *L) {
    lua_pushvalue(L, UV_ORIGINAL);
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* The end (exclusive) of the set that opens at p[i] == '[', as Lua's matcher reads it. */
static size_t set_end(const char *p, size_t plen, size_t i) {
    size_t j = i + 1;
    if (j < plen && p[j] == '^') j++;
    do { /* the first character is part of the set even when it is ']' */
        if (j >= plen) return plen;
        if (p[j++] == '%') j++;
    } while (j < plen && p[j] != ']');
    return j + 1;
}

/* An upper bound on the steps Lua's matcher takes from one start over `n` bytes. Read from the
 * right, the steps for the pattern from an item on are: the item's own (its length, a set scanning
 * itself; a backreference or %b a scan of the subject) plus the rest's; a *, + or - item expands
 * over up to n bytes and tries the rest after each, (n + 1) times both (the rest once when it only
 * closes captures: the first try matches); a ? item tries the rest twice. Summed from the left: each
 * item's own steps times the product of the multipliers before it. Loose, but a pattern under it is
 * safe. */
static double pattern_steps_per_start(const char *p, size_t plen, double n) {
    double steps = 0, times = 1;
    for (size_t i = p[0] == '^'; i < plen && times < 1e300;) {
        size_t j;
        double own, then = 1;
        if (p[i] == '%' && i + 1 < plen && (p[i + 1] == 'b' || (p[i + 1] >= '0' && p[i + 1] <= '9'))) {
            own = n + 1;
            j = i + (p[i + 1] == 'b' ? 4 : 2);
        } else if (p[i] == '%' && i + 1 < plen && p[i + 1] == 'f') {
            j = i + 2 < plen && p[i + 2] == '[' ? set_end(p, plen, i + 2) : i + 2;
            own = (double)(j - i);
        } else if (p[i] == '(' || p[i] == ')') {
            own = 1;
            j = i + 1;
        } else {
            j = p[i] == '%' ? i + 2 : p[i] == '[' ? set_end(p, plen, i) : i + 1;
            own = (double)(j - i);
            if (j < plen && (p[j] == '*' || p[j] == '+' || p[j] == '-')) {
                own *= n + 1;
                then = j + 1 + strspn(p + j + 1, ")") >= plen ? 1 : n + 1;
                j++;
            } else if (j < plen && p[j] == '?') {
                then = 2;
                j++;
            }
        }
        steps += times * own;
        times *= then;
        i = j;
    }
    return steps + times;
}

/* Whether string.find takes the pattern as plain text: asked to, or no character in it is special. */
static bool find_is_plain(lua_State *L, const char *p, size_t plen) {
    if (lua_toboolean(L, 4)) return true;
    for (size_t i = 0; i < plen; i++)
        if (memchr("^$*+?.([%-", p[i], 10)) return false;
    return true;
}

/* The bytes a search looks at: from its init (argument 3 of find, match and gmatch) to the end. */
static double subject_from_init(lua_State *L, bool has_init, size_t n) {
    lua_Integer init = has_init ? luaL_optinteger(L, 3, 1) : 1;
    if (init < 0) init = init < -(lua_Integer)n ? 1 : (lua_Integer)n + init + 1;
    if (init < 1) init = 1;
    return (double)init > (double)n + 1 ? 0 : (double)n - (double)init + 1;
}

/* An upper bound on the bytes string.gsub writes with a string replacement (argument 3): the subject,
 * the replacement for each match, and for each %0..%9 in it a copy of a part of each match; matches
 * do not overlap, so those copies add up to the subject at most. A result past the memory cap is
 * refused as it grows, so no more than the memory left is ever written. */
static double gsub_output(lua_State *L, double n) {
    size_t rlen;
    const char *r = lua_type(L, 3) == LUA_TSTRING ? lua_tolstring(L, 3, &rlen) : NULL;
    if (!r) return 0; /* a table or function: each value comes from Lua, under the hook */
    double refs = 0, matches = n + 1;
    for (size_t i = 0; i + 1 < rlen; i++)
        if (r[i] == '%' && r[++i] >= '0' && r[i] <= '9') refs++;
    if (lua_isinteger(L, 4) && (double)lua_tointeger(L, 4) < matches) matches = (double)lua_tointeger(L, 4);
    double out = n + (matches > 0 ? matches : 0) * (double)rlen + refs * n;
    double left = (double)memory_left(L);
    return out < left ? out : left;
}

/* A gmatch iterator's step: each may run to the end of the subject, so each is held to the bound of
 * the whole iteration. Upvalues: the meter, the iterator, that bound (ns), the function's name. */
static int sb_gmatch_step(lua_State *L) {
    price_call(L, lua_tostring(L, lua_upvalueindex(4)), 1, lua_tonumber(L, lua_upvalueindex(3)));
    return forward(L);
}

/* string.find, match, gmatch, gsub: priced by the worst case of the pattern over the subject. */
static int sb_pattern(lua_State *L) {
    size_t len, plen;
    luaL_checklstring(L, 1, &len);
    const char *p = luaL_checklstring(L, 2, &plen);
    const char *what = lua_tostring(L, UV_NAME), *name = what + sizeof "string";
    bool gsub = name[1] == 's', gmatch = name[1] == 'm' && name[0] == 'g';
    double n = subject_from_init(L, !gsub, len), worst;
    if (name[0] == 'f' && find_is_plain(L, p, plen)) {
        worst = (n + 1) * (NS_FIND_PLACE + (double)plen * NS_FIND_BYTE);
    } else {
        double starts = p[0] == '^' && !gmatch ? 1 : n + 1;
        worst = starts * pattern_steps_per_start(p, plen, n) * NS_PATTERN_STEP;
        if (gsub) worst += (n + 1) * NS_PIECE + gsub_output(L, n) * NS_BYTE;
    }
    price_call(L, what, n + (double)plen, worst);
    int results = forward(L);
    if (gmatch && worst > NS_NEGLIGIBLE) {
        lua_pushvalue(L, UV_METER);
        lua_insert(L, -2);
        lua_pushnumber(L, worst);
        lua_pushstring(L, what);
        lua_pushcclosure(L, sb_gmatch_step, 4);
    }
    return results;
}

/* string.rep: priced by the bytes it writes; a result past the memory cap is refused by the
 * allocator before any is written. */
static int sb_rep(lua_State *L) {
    size_t len, seplen;
    luaL_checklstring(L, 1, &len);
    lua_Integer reps = luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &seplen);
    double bytes = reps > 0 ? (double)reps * (double)len + (double)(reps - 1) * (double)seplen : 0;
    if (bytes <= (double)memory_left(L))
        price_call(L, "string.rep", bytes + (double)reps, bytes * NS_BYTE + (double)reps * NS_PIECE);
    return forward(L);
}

/* string.upper, lower, reverse, format, unpack, packsize, char, and utf8's functions: priced by the
 * bytes of their string arguments and the numbers they may write as text. */
static int sb_by_bytes(lua_State *L) {
    double bytes = 0, numbers = 0;
    for (int i = 1, n = lua_gettop(L); i <= n; i++) {
        if (lua_type(L, i) == LUA_TSTRING) bytes += (double)lua_rawlen(L, i);
        else numbers++;
    }
    price_call(L, lua_tostring(L, UV_NAME), bytes + numbers * 48,
               bytes * NS_BYTE + numbers * NS_NUMBER);
    return forward(L);
}

/* string.pack: priced by the bytes its format and strings can write (each size in the format, up to
 * 16 for each option, each string), no more than the memory left. */
static int sb_pack(lua_State *L) {
    size_t flen;
    const char *fmt = luaL_checklstring(L, 1, &flen);
    double bytes = 16 * (double)flen, size = 0;
    for (size_t i = 0; i < flen; i++) {
        if (fmt[i] >= '0' && fmt[i] <= '9') {
            size = size * 10 + (fmt[i] - '0');
        } else {
            bytes += size;
            size = 0;
        }
    }
    bytes += size;
    for (int i = 2, n = lua_gettop(L); i <= n; i++)
        if (lua_type(L, i) == LUA_TSTRING) bytes += (double)lua_rawlen(L, i);
    double left = (double)memory_left(L);
    if (bytes > left) bytes = left;
    price_call(L, "string.pack", bytes, bytes * NS_PACKED);
    return forward(L);
}

/* tonumber: priced by the bytes of a string it reads. */
static int sb_tonumber(lua_State *L) {
    if (lua_type(L, 1) == LUA_TSTRING) {
        double bytes = (double)lua_rawlen(L, 1);
        price_call(L, "tonumber", bytes, bytes * NS_DIGIT);
    }
    return forward(L);
}

/* table.pack: priced by the slots it fills. */
static int sb_table_pack(lua_State *L) {
    double n = (double)lua_gettop(L);
    price_call(L, "table.pack", n, n * NS_SLOT);
    return forward(L);
}

/* The range i..j of string.sub and string.byte, as Lua reads it: its length, clipped to the string. */
static double string_range(lua_State *L, lua_Integer j_default) {
    size_t len;
    luaL_checklstring(L, 1, &len);
    lua_Integer n = (lua_Integer)len, i = luaL_optinteger(L, 2, 1), j = luaL_optinteger(L, 3, j_default);
    if (i < 0) i = i < -n ? 1 : n + i + 1;
    if (j < 0) j = j < -n ? 0 : n + j + 1;
    if (i < 1) i = 1;
    if (j > n) j = n;
    return i > j ? 0 : (double)j - (double)i + 1;
}

/* string.sub: priced by the bytes it copies. */
static int sb_sub(lua_State *L) {
    double bytes = string_range(L, -1);
    price_call(L, "string.sub", bytes, bytes * NS_BYTE);
    return forward(L);
}

/* string.byte: priced by the values it pushes. */
static int sb_byte(lua_State *L) {
    lua_Integer i = luaL_optinteger(L, 2, 1);
    double values = string_range(L, i);
    price_call(L, "string.byte", values, values * NS_STACK_SLOT);
    return forward(L);
}

/* load's reader, when a function: each piece it returns is priced before the compiler reads it.
 * Upvalue 2: the caller's reader. */
static int sb_load_piece(lua_State *L) {
    lua_pushvalue(L, UV_ORIGINAL);
    lua_call(L, 0, 1);
    if (lua_type(L, -1) == LUA_TSTRING) {
        double bytes = (double)lua_rawlen(L, -1);
        price_call(L, "load", bytes, bytes * NS_LOAD_BYTE);
    }
    return 1;
}

/* load, for text only, priced by the bytes it compiles; the environment is the caller's globals
 * unless one is given. */
static int sb_load(lua_State *L) {
    int n = lua_gettop(L);
    if (n > 4) lua_settop(L, n = 4);
    while (n < 3) {
        lua_pushnil(L);
        n++;
    }
    lua_pushliteral(L, "t");
    lua_replace(L, 3);
    if (lua_type(L, 1) == LUA_TSTRING) {
        double bytes = (double)lua_rawlen(L, 1);
        price_call(L, "load", bytes, bytes * NS_LOAD_BYTE);
    } else if (lua_type(L, 1) == LUA_TFUNCTION) {
        lua_pushvalue(L, UV_METER);
        lua_pushvalue(L, 1);
        lua_pushcclosure(L, sb_load_piece, 2);
        lua_replace(L, 1);
    }
    lua_pushvalue(L, UV_ORIGINAL);
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

/* table.sort: charged n log n comparisons first. */
static int sb_sort(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    double n = (double)luaL_len(L, 1);
    if (n > 1) price_call(L, "table.sort", n * log2(n), n * log2(n) * NS_COMPARE);
    lua_settop(L, 2);
    forward(L);
    return 0;
}

/* table.move: charged one instruction per element first, each priced as a slot that may be new
 *. */
static int sb_move(lua_State *L) {
    lua_Integer f = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3);
    double n = (double)e - (double)f + 1;
    if (n > 0) price_call(L, "table.move", n, n * NS_NEW_SLOT);
    forward(L);
    return 1;
}

/* The range i..j of table.concat and table.unpack, from arguments `at` and `at + 1`; j defaults to
 * the length, read here once so that the original, given both, never reads it again. */
static double table_range(lua_State *L, int at, lua_Integer *i, lua_Integer *j) {
    *i = luaL_optinteger(L, at, 1);
    *j = lua_isnoneornil(L, at + 1) ? luaL_len(L, 1) : luaL_checkinteger(L, at + 1);
    lua_settop(L, at + 1);
    lua_pushinteger(L, *i);
    lua_replace(L, at);
    lua_pushinteger(L, *j);
    lua_replace(L, at + 1);
    return *i > *j ? 0 : (double)*j - (double)*i + 1;
}

/* table.concat: priced by its pieces, then by their bytes, counted raw when no metamethod can
 * answer in their place. */
static int sb_concat(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    size_t seplen;
    luaL_optlstring(L, 2, "", &seplen);
    lua_Integer i, j;
    double pieces = table_range(L, 3, &i, &j);
    price_call(L, "table.concat", pieces, pieces * (NS_SLOT + NS_PIECE));
    if (pieces > 0 && !lua_getmetatable(L, 1)) {
        double bytes = pieces * (double)seplen, numbers = 0;
        for (lua_Integer k = i; k <= j; k++) {
            int type = lua_rawgeti(L, 1, k);
            if (type == LUA_TSTRING) bytes += (double)lua_rawlen(L, -1);
            else numbers++;
            lua_pop(L, 1);
            if (type != LUA_TSTRING && type != LUA_TNUMBER) break; /* the original stops there too */
        }
        price_call(L, "table.concat", bytes + numbers * 48, bytes * NS_BYTE + numbers * NS_NUMBER);
    } else if (pieces > 0) {
        lua_pop(L, 1);
    }
    return forward(L);
}

/* table.unpack: priced by the values it pushes. */
static int sb_unpack(lua_State *L) {
    lua_Integer i, j;
    double n = table_range(L, 2, &i, &j);
    if (n < 1e6) price_call(L, "table.unpack", n, n * NS_STACK_SLOT); /* more: Lua refuses at once */
    return forward(L);
}

/* table.insert and table.remove, as Lua's, with the shift priced first and the length read once: a
 * __len that answers differently the second time cannot stretch the loop. */
static int sb_insert(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer end = (lua_Integer)((lua_Unsigned)luaL_len(L, 1) + 1u), pos = end;
    if (lua_gettop(L) == 3) {
        pos = luaL_checkinteger(L, 2);
        luaL_argcheck(L, (lua_Unsigned)pos - 1u < (lua_Unsigned)end, 2, "position out of bounds");
        double shift = (double)end - (double)pos;
        if (shift > 0) price_call(L, "table.insert", shift, shift * NS_SLOT);
        for (lua_Integer k = end; k > pos; k--) {
            lua_geti(L, 1, k - 1);
            lua_seti(L, 1, k);
        }
    } else if (lua_gettop(L) != 2) {
        return luaL_error(L, "wrong number of arguments to 'insert'");
    }
    lua_seti(L, 1, pos);
    return 0;
}

static int sb_remove(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer size = luaL_len(L, 1), pos = luaL_optinteger(L, 2, size);
    if (pos != size)
        luaL_argcheck(L, (lua_Unsigned)pos - 1u <= (lua_Unsigned)size, 2, "position out of bounds");
    double shift = (double)size - (double)pos;
    if (shift > 0) price_call(L, "table.remove", shift, shift * NS_SLOT);
    lua_geti(L, 1, pos);
    for (; pos < size; pos++) {
        lua_geti(L, 1, pos + 1);
        lua_seti(L, 1, pos);
    }
    lua_pushnil(L);
    lua_seti(L, 1, pos);
    return 1;
}

/* ---- Installing ---- */

/* Replaces lib[name], when it is there, with `fn` over the meter, the original and the full name
 * ("string.find") for messages. */
static void wrap(lua_State *L, guard_meter *meter, int lib, const char *lib_name, const char *name,
                 lua_CFunction fn) {
    lib = lua_absindex(L, lib);
    if (lua_getfield(L, lib, name) == LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    lua_pushlightuserdata(L, meter);
    lua_insert(L, -2);
    if (lib_name) lua_pushfstring(L, "%s.%s", lib_name, name);
    else lua_pushstring(L, name);
    lua_pushcclosure(L, fn, 3);
    lua_setfield(L, lib, name);
}

/* Sets lib[name] to `fn` over the meter alone (table.insert and remove: no original to call). */
static void replace(lua_State *L, guard_meter *meter, int lib, const char *name, lua_CFunction fn) {
    lua_pushlightuserdata(L, meter);
    lua_pushcclosure(L, fn, 1);
    lua_setfield(L, lib < 0 ? lib - 1 : lib, name);
}

/* The functions guarded, by library (NULL: a field of `libs` itself). */
static const struct {
    const char *lib, *name;
    lua_CFunction fn;
} guarded[] = {
    {"string", "find", sb_pattern},       {"string", "match", sb_pattern},
    {"string", "gmatch", sb_pattern},     {"string", "gsub", sb_pattern},
    {"string", "rep", sb_rep},            {"string", "sub", sb_sub},
    {"string", "byte", sb_byte},          {"string", "pack", sb_pack},
    {"string", "upper", sb_by_bytes},     {"string", "lower", sb_by_bytes},
    {"string", "reverse", sb_by_bytes},   {"string", "format", sb_by_bytes},
    {"string", "unpack", sb_by_bytes},    {"string", "packsize", sb_by_bytes},
    {"string", "char", sb_by_bytes},      {"utf8", "len", sb_by_bytes},
    {"utf8", "codepoint", sb_by_bytes},   {"utf8", "offset", sb_by_bytes},
    {"utf8", "codes", sb_by_bytes},       {"utf8", "char", sb_by_bytes},
    {"table", "sort", sb_sort},           {"table", "move", sb_move},
    {"table", "concat", sb_concat},       {"table", "unpack", sb_unpack},
    {"table", "pack", sb_table_pack},     {NULL, "tonumber", sb_tonumber},
    {NULL, "load", sb_load},
};

void guards_install(lua_State *L, guard_meter *meter, int libs) {
    libs = lua_absindex(L, libs);
    for (size_t i = 0; i < sizeof guarded / sizeof guarded[0]; i++) {
        if (!guarded[i].lib) {
            wrap(L, meter, libs, NULL, guarded[i].name, guarded[i].fn);
        } else {
            if (lua_getfield(L, libs, guarded[i].lib) == LUA_TTABLE)
                wrap(L, meter, -1, guarded[i].lib, guarded[i].name, guarded[i].fn);
            lua_pop(L, 1);
        }
    }
    if (lua_getfield(L, libs, "table") == LUA_TTABLE) {
        replace(L, meter, -1, "insert", sb_insert);
        replace(L, meter, -1, "remove", sb_remove);
    }
    lua_pop(L, 1);
}
