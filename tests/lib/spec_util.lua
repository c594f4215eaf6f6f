-- spec_util.lua — what the Lua specs share: where the build is, temporary files, shell quoting,
-- deep comparison and small list helpers. ctest puts tests/lib on LUA_PATH.
local M = {}

M.exe = os.getenv("MEEPLE_EXE") or "build/meeple"
M.root = os.getenv("MEEPLE_ROOT") or "."

-- A word for /bin/sh, quoted whatever it holds.
function M.quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- Writes `text` to a new temporary file (ending in `suffix`, if given) and returns its name.
function M.write(text, suffix)
  local name = os.tmpname() .. (suffix or "")
  local f = assert(io.open(name, "w"))
  f:write(text)
  f:close()
  return name
end

function M.read(name)
  local f = assert(io.open(name))
  local text = f:read("a")
  f:close()
  return text
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

function M.has(list, x) -- Multiset difference: `all` without the cards of `used` (each taken once).
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

return M.count(list, x) > 0 end

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

return M
