-- layers.lua SOURCE LIBRARY — the core's layers hold (core/README.md): no file includes a header of a
-- higher layer, no object of the core library calls a function or reads a variable a higher layer
-- defines, no headers include each other in a cycle, and every folder says what it is for.
--
-- Layers, lowest first: rules < host < sandbox < lua < bots < repl; serve (`meeple serve`) is the top
-- layer beside repl (each may use the other: repl dispatches to it, it uses repl's cli.h). The public headers
-- (include/meeple/) belong to the layer that implements them; the Python module (python/) is a program
-- outside the core and includes the public headers alone. What is found by include lines alone
-- (a header that only declares) and what only the linker sees (a call through a forward declaration)
-- are both checked: the first from the sources, the second from the library's symbol table (nm).
local source, library = arg[1], arg[2]
assert(source and library, "usage: layers.lua SOURCE_DIR LIBRARY.a")

local order = { "rules", "host", "sandbox", "lua", "bots", "repl" }
local rank = {}
for i, name in ipairs(order) do rank[name] = i end
rank.serve = rank.repl

-- Which layer a public header is implemented in.
local public_layer = {
  ["game.h"] = "rules", ["rng.h"] = "rules", ["tree.h"] = "rules",
  ["session.h"] = "host", ["registry.h"] = "host",
}

local problems = {}
local function problem(fmt, ...) problems[#problems + 1] = string.format(fmt, ...) end

package.path = source .. "/tests/lib/?.lua;" .. package.path
local util = require "spec_util"

local function lines_of(cmd)
  local out, code = util.sh(cmd)
  assert(code == 0, cmd .. " failed (" .. tostring(code) .. ")")
  return util.lines(out)
end
local read = util.read

-- The layer of a file by its path relative to the source root; nil for a file outside the layers.
local function layer_of(rel)
  local top, second = rel:match("^([^/]+)/([^/]+)")
  if top == "core" then return rank[second] and second end
  if top == "repl" then return "repl" end
  if top == "serve" then return "serve" end
  if top == "include" then return public_layer[rel:match("([^/]+)$")] or "missing" end
  if top == "python" then return "public" end
end

-- Every C file of the layers, relative to the source root.
local files = {}
for _, rel in ipairs(lines_of("cd '" .. source .. "' && find core include repl serve python -name '*.[ch]' | LC_ALL=C sort")) do
  files[#files + 1] = rel
end
assert(#files > 20, "found only " .. #files .. " C files under " .. source)

-- Where an include line leads: a public header, a path rooted at core/, or a file beside the includer.
local function resolve(includer, name, angle)
  if angle then
    local public = name:match("^meeple/(.+)$")
    return public and ("include/meeple/" .. public) or nil
  end
  local candidates = { "core/" .. name, (includer:match("^(.*)/") or ".") .. "/" .. name }
  -- serve/ includes repl's cli.h by its name, as repl's own files do
  if includer:match("^serve/") then candidates[#candidates + 1] = "repl/" .. name end
  for _, rel in ipairs(candidates) do
    local f = io.open(source .. "/" .. rel, "rb")
    if f then f:close(); return rel end
  end
  problem("%s includes \"%s\", which is neither rooted at core/ nor beside it", includer, name)
end

local includes = {}
for _, rel in ipairs(files) do
  local layer = layer_of(rel)
  if not layer then
    problem("%s lies in no layer's folder (core/README.md names them)", rel)
  elseif layer == "missing" then
    problem("%s is a public header no layer implements (tests/layers.lua, public_layer)", rel)
  end
  includes[rel] = {}
  for open, name in read(source .. "/" .. rel):gmatch("\n%s*#%s*include%s*([<\"])([^>\"]+)[>\"]") do
    local target = resolve(rel, name, open == "<")
    if target then
      table.insert(includes[rel], target)
      local there = layer_of(target)
      if layer == "public" and not target:match("^include/meeple/") then
        problem("%s includes %s: a program outside the core uses the public headers alone", rel, target)
      elseif layer and rank[layer] and there and rank[there] and rank[there] > rank[layer] then
        problem("%s (%s) includes %s (%s, a higher layer)", rel, layer, target, there)
      end
    end
  end
end

-- Include cycles: a depth-first walk that meets a file still on its path.
local state = {}
local function walk(rel, path)
  state[rel] = "open"
  path[#path + 1] = rel
  for _, target in ipairs(includes[rel] or {}) do
    if state[target] == "open" then
      problem("include cycle: %s -> %s", table.concat(path, " -> "), target)
    elseif not state[target] then
      walk(target, path)
    end
  end
  path[#path] = nil
  state[rel] = "done"
end
for _, rel in ipairs(files) do
  if not state[rel] then walk(rel, {}) end
end

-- Calls and data across layers, from the library's symbol table: each object named after its source
-- (CMake names them FILE.c.o); a source's basename must then be unique, or the check would guess.
local source_of = {}
for _, rel in ipairs(files) do
  local base = rel:match("([^/]+)%.c$")
  if base then
    if source_of[base] then problem("two sources named %s.c (%s, %s)", base, source_of[base], rel) end
    source_of[base] = rel
  end
end
local defined_in, wanted_by = {}, {}
local objects = 0
for _, line in ipairs(lines_of("nm -A '" .. library .. "' 2>/dev/null")) do
  local object, kind, symbol = line:match("^[^:]+:([^:]+)%.c%.o:%s*%x*%s+(%a)%s+(%S+)$")
  if object then
    if not wanted_by[object] then wanted_by[object] = {}; objects = objects + 1 end
    if kind == "U" then
      table.insert(wanted_by[object], symbol)
    elseif kind:match("[TDRBC]") then
      defined_in[symbol] = object
    end
  end
end
assert(objects > 20, "nm found only " .. objects .. " objects in " .. library)
for object, symbols in pairs(wanted_by) do
  local user = source_of[object] and layer_of(source_of[object])
  for _, symbol in ipairs(symbols) do
    local definer = defined_in[symbol]
    local there = definer and source_of[definer] and layer_of(source_of[definer])
    if user and there and rank[there] > rank[user] then
      problem("%s (%s) uses %s from %s (%s, a higher layer)", source_of[object], user, symbol,
              source_of[definer], there)
    end
  end
end

-- Every folder says what it is for: core/README.md names each layer's folder.
local readme = read(source .. "/core/README.md")
for _, name in ipairs(order) do
  local folder = name == "repl" and "repl/" or ("core/" .. name .. "/")
  if not readme:find(folder, 1, true) then problem("core/README.md does not say what %s is for", folder) end
end
if not readme:find("serve/", 1, true) then problem("core/README.md does not say what serve/ is for") end

if #problems > 0 then
  table.sort(problems)
  io.stderr:write(table.concat(problems, "\n"), "\n")
  io.stderr:write(#problems, " problem(s) with the layers\n")
  os.exit(1)
end
print(string.format("layers hold: %d files, %d objects, no include or call upward, no include cycle",
                    #files, objects))
