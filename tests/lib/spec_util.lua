-- spec_util.lua — what the Lua specs share: where the build is, temporary files, shell quoting,
-- deep comparison and small list helpers. ctest puts tests/lib on LUA_PATH.
local M = {}

M.exe = os.getenv("MEEPLE_EXE") or "build/meeple"
M.root = os.getenv("MEEPLE_ROOT") or "."

-- The soak (`ctest -L soak`, which CI runs) sets MEEPLE_SOAK: a long loop then runs its full count,
-- and otherwise a quick count of the same checks. A test whose count comes from here carries the tag
-- #soak in its name, so that the soak entry (busted --tags=soak) runs it alone (tests/CMakeLists.txt).
M.soak = (os.getenv("MEEPLE_SOAK") or "") ~= ""
function M.soak_count(quick, full) return M.soak and full or quick end

-- A word for /bin/sh, quoted whatever it holds.
function M.quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- Under ctest, temporary files go to the suite's own folder ($TMPDIR), which the last test checks is
-- empty (tests/leftovers.lua): os.tmpname itself always uses /tmp.
-- The names it gave are removed when the spec's process ends, with the files named after them (NAME.jsonl,
-- NAME.lua: a spec's own); a file meeple left beside one (NAME.tmp-XXXXXX, say) is not, and the check
-- reports it.
local suite_tmp = os.getenv("MEEPLE_SUITE")
if suite_tmp then
  local given = {}
  os.tmpname = function()
    local p = assert(io.popen("mktemp " .. M.quote(suite_tmp .. "/lua_XXXXXX")))
    local name = p:read("l")
    p:close()
    given[#given + 1] = assert(name, "mktemp failed in " .. suite_tmp)
    return name
  end
  -- busted ends with os.exit(code, true): the state is closed, and this collected last.
  M._cleanup = setmetatable({}, { __gc = function()
    local p = io.popen("ls -A " .. M.quote(suite_tmp))
    local present = {}
    for name in p:lines() do present[#present + 1] = suite_tmp .. "/" .. name end
    p:close()
    for _, base in ipairs(given) do
      for _, name in ipairs(present) do
        if name == base or (name:sub(1, #base) == base and name:sub(#base + 1):match("^%.%w+$")) then
          os.remove(name)
        end
      end
    end
  end })
end

-- Writes `text` to a new temporary file (ending in `suffix`, if given) and returns its name.
function M.write(text, suffix)
  local base = os.tmpname()
  local name = base .. (suffix or "")
  local f = assert(io.open(name, "w"))
  f:write(text)
  f:close()
  if suffix then os.remove(base) end -- os.tmpname made it: without this, one empty file a call is left
  return name
end

-- Runs a shell command; returns its output and exit status.
function M.sh(command)
  local p = assert(io.popen(command))
  local out = p:read("a")
  local _, _, code = p:close()
  return out, code
end

-- Runs the meeple executable with `args` (already shell words); returns stdout and stderr together
-- (or stderr alone) and the exit status.
function M.run(args, stderr_only)
  return M.sh(M.quote(M.exe) .. " " .. args .. (stderr_only and " 2>&1 >/dev/null" or " 2>&1"))
end

-- Runs `jq -e FILTER` over `json_text`; returns jq's output and exit status (0 when the filter's last
-- value is neither false nor null, 1 when it is, other values when the text is not JSON).
function M.jq(json_text, filter)
  local name = M.write(json_text)
  local out, code = M.sh("jq -e " .. M.quote(filter) .. " <" .. M.quote(name) .. " 2>&1")
  os.remove(name)
  return out, code
end

-- The non-empty lines of `text`.
function M.lines(text)
  local t = {}
  for line in text:gmatch("[^\n]+") do t[#t + 1] = line end
  return t
end

function M.read(name)
  local f = assert(io.open(name))
  local text = f:read("a")
  f:close()
  return text
end

-- The bytes of file `name`, or nil when there is none.
function M.read_bytes(name)
  local f = io.open(name, "rb")
  if not f then return nil end
  local text = f:read("a")
  f:close()
  return text
end

-- Writes `text` to the file `name` (made anew).
function M.write_bytes(name, text)
  local f = assert(io.open(name, "wb"))
  f:write(text)
  f:close()
end

-- Plays `n` actions chosen with a seeded generator (fewer if the game ends); returns the state.
function M.advance(s, n, seed)
  local r = seed or 1
  for _ = 1, n do
    if s:is_over() then break end
    local legal = s:legal()
    r = (r * 1103515245 + 12345) % 2147483648
    s:play(legal[r % #legal + 1])
  end
  return s
end

function M.deep_equal(a, b)
  if type(a) ~= type(b) then return false end
  if type(a) ~= "table" then return a == b end
  for k, v in pairs(a) do
    if not M.deep_equal(v, b[k]) then return false end
  end
  for k in pairs(b) do
    if a[k] == nil then return false end
  end
  return true
end

-- The lists given, one after the other, in a new list.
function M.cat(...)
  local t = {}
  for _, l in ipairs { ... } do
    for _, c in ipairs(l) do t[#t + 1] = c end
  end
  return t
end

function M.count(list, x)
  local n = 0
  for _, v in ipairs(list or {}) do
    if v == x then n = n + 1 end
  end
  return n
end

function M.has(list, x) return M.count(list, x) > 0 end

function M.sorted(list)
  local t = M.cat(list or {})
  table.sort(t)
  return t
end

-- Multiset difference: `all` without the cards of `used` (each taken once).
function M.minus(all, used)
  local left = M.cat(all)
  for _, c in ipairs(used) do
    for i, v in ipairs(left) do
      if v == c then
        table.remove(left, i)
        break
      end
    end
  end
  return left
end

-- The helpers below assert with luassert (what busted calls `assert`) and belong in specs.
local assert = require "luassert"

-- A bad command line: status 2, two lines on stderr (the reason, starting `reason_prefix`, then
-- the usage, starting `usage_prefix`), and no traceback.
function M.assert_usage_error(args, reason_prefix, usage_prefix)
  local out, code = M.run(args, true)
  assert.equal(2, code)
  local l = M.lines(out)
  assert.equal(2, #l, out)
  assert.truthy(l[1]:find(reason_prefix, 1, true) == 1, out)
  assert.truthy(l[2]:find(usage_prefix, 1, true) == 1, out)
  assert.is_nil(out:find("traceback", 1, true))
end

function M.legal_text(s) return table.concat(s:legal(), ", ") end

-- `a` is legal: s:check agrees and s:legal lists it.
function M.assert_legal(s, a)
  local ok, why = s:check(a)
  assert.is_true(ok, ("%q should be legal, check said: %s"):format(a, tostring(why)))
  assert.is_true(M.has(s:legal(), a), ("%q should be listed; legal: %s"):format(a, M.legal_text(s)))
end

-- `a` is illegal: s:check gives a reason (mentioning `word`, if given), s:legal omits it, s:play
-- raises, s:try refuses with a reason, and nothing changes.
function M.assert_illegal(s, a, word)
  local before = s:table()
  local ok, why = s:check(a)
  assert.is_falsy(ok, ("%q should be illegal; legal: %s"):format(a, M.legal_text(s)))
  assert.is_string(why, ("%q: check should give a reason"):format(a))
  assert.is_true(#why > 0, ("%q: the reason must not be empty"):format(a))
  if word then
    assert.truthy(why:lower():find(word, 1, true), ("reason for %q should mention %q: %s"):format(a, word, why))
  end
  assert.is_false(M.has(s:legal(), a), ("%q must not be listed; legal: %s"):format(a, M.legal_text(s)))
  local played, err = pcall(s.play, s, a)
  assert.is_false(played, ("%q should raise"):format(a))
  assert.is_true(#tostring(err) > 0)
  local tried, why2 = s:try(a)
  assert.is_falsy(tried)
  assert.is_true(type(why2) == "string" and #why2 > 0, ("%q: try should give a reason"):format(a))
  assert.same(before, s:table())
end

-- Plays legal actions in order, asserting each is legal first.
function M.play(s, ...)
  for _, a in ipairs { ... } do
    M.assert_legal(s, a)
    s:play(a)
  end
  return s
end

-- A match log without its timing fields ("ms", "ms_max": measured, so they differ between runs;
-- they end every record), for comparing logs of the same match byte for byte.
function M.untimed(log)
  if not log then return nil end
  return (log:gsub(',"ms":%[[^%]]*%],"ms_max":%[[^%]]*%]}\n', "}\n"))
end

return M
