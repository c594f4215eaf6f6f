-- variant.lua — house-rule variants: loading a variant file and playing a state under its hooks.
--
-- A state under a variant is a table wrapping a plain state (the "raw" one, where the rules live).
-- Every method a plain state has works on it; the hooks (API.md "House-rule variants") run around the
-- raw rules. The wrapper keeps its own list of decisions, so undo and save replay through the hooks.
-- Plain states never pass through here: a game without a variant pays nothing for this.
--
-- Compiled into the binaries; meeple.new, meeple.from_table and meeple.load call it when a variant is
-- named. It receives the module's raw functions (`raw`) when first loaded.
local raw = ...

local M = {}

local HOOKS = { "setup", "actions", "check", "apply", "after", "turn_end", "score", "is_over" }
local FIELDS = { game = true, name = true, params = true, hooks = true, description = true }

local function set_of(list)
  local set = {}
  for _, v in ipairs(list) do set[v] = true end
  return set
end
local HOOK_SET = set_of(HOOKS)

---------------------------------------------------------------------------------------------------
-- Finding and loading a variant file
---------------------------------------------------------------------------------------------------

-- Anything with a "/" or ending in ".lua" names a file; else it is a variant's name.
local function is_path(name)
  return name:find("/", 1, true) ~= nil or name:match("%.lua$") ~= nil
end

-- The edit distance of a and b (insertions, deletions, substitutions, swaps of neighbours).
local function distance(a, b)
  local d = {}
  for i = 0, #a do d[i] = { [0] = i } end
  for j = 0, #b do d[0][j] = j end
  for i = 1, #a do
    for j = 1, #b do
      local cost = a:byte(i) == b:byte(j) and 0 or 1
      local best = math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
      if i > 1 and j > 1 and a:byte(i) == b:byte(j - 1) and a:byte(i - 1) == b:byte(j) then
        best = math.min(best, d[i - 2][j - 2] + 1)
      end
      d[i][j] = best
    end
  end
  return d[#a][#b]
end

-- "; did you mean 'short'?" when a variant of `game` in the roots is a likely typo of `name`, else "".
local function nearest_hint(game, name)
  local best, best_d = nil, #name // 3 + 2
  for _, root in ipairs(raw.roots) do
    for _, candidate in ipairs(raw.names(("%s/scripts/variants/%s"):format(root, game))) do
      local d = distance(name, candidate)
      if d < best_d then best, best_d = candidate, d end
    end
  end
  return best and ("; did you mean '%s'?"):format(best) or ""
end

-- A name is looked up as scripts/variants/GAME/NAME.lua in meeple's roots: $MEEPLE_ROOT, meeple's own
-- (installed or the source tree), each folder of $MEEPLE_PATH; never the current directory, so a
-- name a log carries cannot find a file dropped beside the log. Returns the path and the file's text (only regular
-- files, of at most 1 MiB: raw.read_file), or nil and why.
local function find_file(game, name)
  if is_path(name) then
    local text, why = raw.read_file(name)
    if not text then return nil, why end
    return name, text
  end
  if not name:match("^[%w_%-]+$") then
    return nil, ("'%s' is not a variant's name (letters, digits, _ and -) nor a file"):format(name)
  end
  local relative = ("scripts/variants/%s/%s.lua"):format(game, name)
  for _, root in ipairs(raw.roots) do
    local path = root .. "/" .. relative
    local text, why, missing = raw.read_file(path)
    if text then return path, text end
    if not missing then return nil, why end
  end
  return nil, ("no variant '%s' for %s%s (looked for %s in %s; $MEEPLE_PATH adds folders)")
    :format(name, game, nearest_hint(game, name), relative, table.concat(raw.roots, ", "))
end

-- A library as a table of the variant's own: changing it changes nothing for the caller.
local function copy_of(lib, except)
  local copy = {}
  for k, v in pairs(lib) do
    if not (except and except[k]) then copy[k] = v end
  end
  return copy
end

-- Variant code runs with the plain Lua libraries minus everything that touches the machine or brings
-- randomness from outside the state (math.random): same seed and actions must give the same game.
-- Each variant gets copies of the libraries, so it cannot rewrite the caller's (string.format, say);
-- its code runs under a bot's limits per call (raw.limited), and its string, table, utf8 and tonumber
-- calls are priced before they run like a bot's (raw.guarded_libs): one C call cannot outlast them.
local function variant_env()
  local env = {
    assert = assert, error = error, ipairs = ipairs, next = next, pairs = pairs, pcall = pcall,
    select = select, tonumber = tonumber, tostring = tostring, type = type, print = raw.print,
    math = copy_of(math, { random = true, randomseed = true }),
  }
  -- string (no dump), table, utf8 and tonumber: fresh copies whose long C calls are priced
  for name, lib in pairs(raw.guarded_libs()) do env[name] = lib end
  return env
end

local loaded = {}

-- Loads and checks a variant file: returns the variant table and the path, or raises one clear line.
function M.load_file(game, name)
  local path, text = find_file(game, name)
  if not path then error(text, 0) end
  local v = loaded[path] or M.read_text(path, text)
  loaded[path] = v
  if v.game ~= game then
    error(("variant %s is for %s, not %s"):format(path, tostring(v.game), game), 0)
  end
  return v, path
end

-- Reads and checks a variant file on its own terms (any game).
function M.read_file(path)
  local text, why = raw.read_file(path)
  if not text then error(why, 0) end
  return M.read_text(path, text)
end

function M.read_text(path, text)
  local chunk, err = load(text, "@" .. path, "t", variant_env())
  if not chunk then error(("variant %s does not load: %s"):format(path, err), 0) end
  local ok, v = pcall(raw.limited, nil, chunk)
  if not ok then error(("variant %s failed while loading: %s"):format(path, tostring(v)), 0) end
  if type(v) ~= "table" then error(("variant %s must return a table"):format(path), 0) end
  for k in pairs(v) do
    if not FIELDS[k] then
      error(("variant %s: unknown field '%s' (fields: game, name, params, hooks, description)"):format(path, tostring(k)), 0)
    end
  end
  if type(v.game) ~= "string" then error(("variant %s: game must be a game's name"):format(path), 0) end
  if type(v.name) ~= "string" then error(("variant %s: name must be a string"):format(path), 0) end
  if v.params ~= nil and type(v.params) ~= "table" then error(("variant %s: params must be a table"):format(path), 0) end
  v.hooks = v.hooks or {}
  if type(v.hooks) ~= "table" then error(("variant %s: hooks must be a table"):format(path), 0) end
  for k, f in pairs(v.hooks) do
    if not HOOK_SET[k] then
      error(("variant %s: unknown hook '%s' (hooks: %s)"):format(path, tostring(k), table.concat(HOOKS, ", ")), 0)
    end
    if type(f) ~= "function" then error(("variant %s: hook %s must be a function"):format(path, k), 0) end
  end
  v.path = path
  return v
end

---------------------------------------------------------------------------------------------------
-- A state under a variant
---------------------------------------------------------------------------------------------------

-- The methods live apart from the metatable, so `s.__index` from a hook finds nothing to rewrite.
local Variant = {}
local Methods = {}
Variant.__index = Methods

local function refuse_change() error("a hook cannot change its state's fields (use s:move, s:add)", 2) end

-- What a hook is given for its state: the state's methods, called on the state, and none of its
-- fields. The machinery trusts those fields outside the limits: a hook that could replace `_raw`
-- with its own table would have its code run, unlimited, by the next s:is_over().
local function hook_view(s)
  local view = rawget(s, "_hook_view")
  if view then return view end
  view = setmetatable({}, {
    __index = function(_, key)
      local method = type(key) == "string" and key:sub(1, 1) ~= "_" and Methods[key]
      if method then return function(_, ...) return method(s, ...) end end
    end,
    __newindex = refuse_change,
    __tostring = function() return tostring(s._raw) end,
  })
  rawset(s, "_hook_view", view)
  return view
end

-- Runs a hook under the limits; an error in it is raised again as one line naming the variant and the
-- hook (the message already carries the file and line where it was raised).
local function call(s, hook, ...)
  local f = s._v.hooks[hook]
  local label = ("variant %s, hook %s"):format(s._v.name, hook)
  local results = table.pack(pcall(raw.limited, label, f, hook_view(s), ...))
  if not results[1] then
    local message = tostring(results[2])
    if message:sub(1, #label) == label then error(message, 0) end -- a broken limit, named already
    error(label .. ": " .. message, 0)
  end
  return table.unpack(results, 2, results.n)
end

local function wrap(state, v, name)
  return setmetatable({ _raw = state, _v = v, _name = name, _start = state, _actions = {} }, Variant)
end

-- The variant's own verdict on a game over: over, winners (nil leaves it to the rules).
local function hooked_end(s)
  if not s._v.hooks.is_over then return nil end
  local over, winners = call(s, "is_over")
  if winners ~= nil then
    local n = s._raw:num_players()
    local ok = type(winners) == "table" and #winners <= n
    for i = 1, ok and #winners or 0 do
      ok = ok and math.type(winners[i]) == "integer" and winners[i] >= 1 and winners[i] <= n
    end
    if not ok then
      error(("variant %s, hook is_over: winners must be a list of players 1..%d"):format(s._v.name, n), 0)
    end
  end
  return over, winners
end

function Methods:is_over()
  local over = hooked_end(self)
  if over ~= nil then return over and true or false end
  return self._raw:is_over()
end

function Methods:to_move()
  if self:is_over() then return nil end
  return self._raw:to_move()
end

function Methods:base_score(p) return self._raw:scores()[p] end

function Methods:scores()
  local scores = self._raw:scores()
  if not self._v.hooks.score then return scores end
  for p = 1, #scores do
    local score = call(self, "score", p)
    if type(score) ~= "number" then
      error(("variant %s, hook score: returned %s, not a number"):format(self._v.name, type(score)), 0)
    end
    scores[p] = score
  end
  return scores
end

-- Winners: the hook's, if it says; else with a score hook the highest hooked scores; else the rules'.
function Methods:winners()
  local over, winners = hooked_end(self)
  if over == false or (over == nil and not self._raw:is_over()) then return nil end
  if winners then return winners end
  if not self._v.hooks.score then return self._raw:winners() end
  local scores, best, list = self:scores(), -math.huge, {}
  for p, score in ipairs(scores) do
    if score > best then best, list = score, { p } elseif score == best then list[#list + 1] = p end
  end
  return list
end

-- Legal: the rules' list, as the actions hook changes it, less what the check hook refuses.
function Methods:legal()
  if self:is_over() then return {} end
  local list = self._raw:legal()
  local hooks = self._v.hooks
  if hooks.actions then
    list = call(self, "actions", list)
    local ok = type(list) == "table"
    for i = 1, ok and #list or 0 do ok = ok and type(list[i]) == "string" end
    if not ok then
      error(("variant %s, hook actions: must return a list of actions (strings)"):format(self._v.name), 0)
    end
  end
  if not hooks.check then return list end
  local kept = {}
  for _, a in ipairs(list) do
    if call(self, "check", a) ~= false then kept[#kept + 1] = a end
  end
  return kept
end

function Methods:check(a)
  if type(a) ~= "string" then error(("check: action must be a string, got %s"):format(type(a)), 2) end
  if self:is_over() then return false, "the game is over" end
  if self._v.hooks.check then
    local ok, why = call(self, "check", a)
    if ok == false then return false, why or ("the house rules (%s) forbid that"):format(self._v.name) end
  end
  for _, legal in ipairs(self:legal()) do
    if legal == a then return true end
  end
  local ok, why = self._raw:check(a)
  if ok then return false, ("the house rules (%s) leave that out"):format(self._v.name) end
  return false, why
end

-- Applies a legal action through the hooks: apply (or the rules), after, then turn_end if a turn ended.
local function apply(s, a)
  local key, owner = s._raw:_turn_key()
  local handled = s._v.hooks.apply and call(s, "apply", a)
  if not handled then s._raw:play(a) end
  if s._v.hooks.after then call(s, "after", a) end
  if s._v.hooks.turn_end and s._raw:_turn_key() ~= key and owner then call(s, "turn_end", owner) end
end

-- What each seat sees of `a` as the rules decide it (nil where it is the action itself): taken before
-- `a` is played, as its public text depends on the position. An action only the variant knows (its
-- actions hook added it) is seen as it is.
local function public_texts(raw, a)
  local seen
  for p = 1, raw:num_players() do
    local shown = raw:public_text(a, p)
    if shown and shown ~= a then
      seen = seen or {}
      seen[p] = shown
    end
  end
  return seen
end

function Methods:public_text(a, p)
  if type(a) ~= "string" then error(("public_text: action must be a string, got %s"):format(type(a)), 2) end
  local ok, why = self:check(a)
  if not ok then return nil, why end
  return self._raw:public_text(a, p) or a
end

function Methods:hidden_information() return self._raw:hidden_information() end

-- A decision is all or nothing: if a hook fails halfway, the state is as it was before.
function Methods:try(a)
  local ok, why = self:check(a)
  if not ok then return nil, why end
  local player, before = self:to_move(), self._raw:clone()
  local seen = public_texts(self._raw, a)
  local applied, err = pcall(apply, self, a)
  if not applied then
    self._raw = before
    error(err, 0)
  end
  self._actions[#self._actions + 1] = { player = player, action = a, seen = seen }
  return true
end

function Methods:play(a)
  local ok, why = self:try(a)
  if not ok then error(why, 2) end
  return self
end

-- The action among `legal` that leaves the mover's score highest (ties: the first listed, as in C:
-- session.c says why).
local function best_for_score(s, legal)
  local mover, best, best_score = s:to_move(), legal[1], -math.huge
  for _, a in ipairs(legal) do
    local score = s:clone():play(a):scores()[mover]
    if score > best_score then best, best_score = a, score end
  end
  return best
end

local function describe(v)
  return type(v) == "string" and ("'%s'"):format(v) or tostring(v)
end

-- The most decisions one playout plays, as the rules' (SESSION_PLAYOUT_MAX, include/meeple/session.h).
local PLAYOUT_MAX = 1000000

-- The rules' playout runs in C and would skip the hooks, so under a variant it is played here, through
-- them, with the same contract: seeded, up to n decisions (nil or -1: to the end), a `greedy` share of
-- them score-greedy.
function Methods:playout(seed, n, greedy)
  if not math.tointeger(seed) then error("playout: seed must be an integer, got " .. describe(seed), 2) end
  seed = math.tointeger(seed)
  local limit = n == nil and -1 or math.tointeger(n)
  if not limit or limit < -1 or limit > 0x7fffffff then
    error(("playout: n must be a count of decisions, got %s (nil or -1: to the end; at most %d are played)")
      :format(describe(n), PLAYOUT_MAX), 2)
  end
  if limit == -1 or limit > PLAYOUT_MAX then limit = PLAYOUT_MAX end
  greedy = greedy == nil and 0 or greedy
  if type(greedy) ~= "number" or not (greedy >= 0 and greedy <= 1) then
    error("playout: greedy must be a share between 0 and 1, got " .. describe(greedy), 2)
  end
  local x = seed
  local function uniform() -- a 64-bit LCG's top bits: deterministic is all this needs
    x = x * 6364136223846793005 + 1442695040888963407
    return (x >> 11) / 9007199254740992.0
  end
  local played = 0
  while played ~= limit and not self:is_over() do
    local legal = self:legal()
    if #legal == 0 then break end
    local a
    if greedy > 0 and #legal > 1 and (greedy >= 1 or uniform() < greedy) then a = best_for_score(self, legal)
    else a = legal[math.floor(uniform() * #legal) + 1] end
    self:play(a)
    played = played + 1
  end
  return played
end

-- The legal actions, those that leave the mover's score highest first (ties in the listed order):
-- as this playout's greedy decisions weigh them, since the rules' own policy does not know the variant.
function Methods:ranked(seed)
  if seed ~= nil and not math.tointeger(seed) then
    error("ranked: seed must be an integer, got " .. describe(seed), 2)
  end
  local legal, mover, score, order = self:legal(), self:to_move(), {}, {}
  for i, a in ipairs(legal) do
    score[a], order[a] = self:clone():play(a):scores()[mover], i
  end
  table.sort(legal, function(a, b)
    if score[a] ~= score[b] then return score[a] > score[b] end
    return order[a] < order[b]
  end)
  return legal
end

-- Undo replays the kept decisions from the start, through the hooks.
function Methods:undo(n)
  n = n == nil and 1 or n
  if math.type(n) ~= "integer" or n < 0 then error("undo: n must be a whole number, 0 or more", 2) end
  local keep = math.max(0, #self._actions - n)
  local actions = self._actions
  self._raw, self._actions = self._start:clone(), {}
  for i = 1, keep do
    apply(self, actions[i].action)
    self._actions[i] = actions[i]
  end
  return self
end

function Methods:history(p)
  if p ~= nil and (math.type(p) ~= "integer" or p < 1 or p > self:num_players()) then
    error(("history: player must be 1..%d, got %s"):format(self:num_players(), tostring(p)), 2)
  end
  local copy = {}
  for i, h in ipairs(self._actions) do
    copy[i] = { player = h.player, action = p and h.seen and h.seen[p] or h.action }
  end
  return copy
end

function Methods:clone()
  local c = wrap(self._raw:clone(), self._v, self._name)
  c._start = self._start
  for i, h in ipairs(self._actions) do c._actions[i] = h end
  return c
end

function Methods:sample(p, seed)
  local sampled = self._raw:sample(p, seed)
  return wrap(sampled, self._v, self._name)
end

-- The save: the start (with the variant's name in it) and the decisions taken since.
function Methods:save()
  local lines = { (self._start:save():gsub("\n$", "")) }
  for _, h in ipairs(self._actions) do lines[#lines + 1] = "action " .. h.action end
  return table.concat(lines, "\n") .. "\n"
end

-- Everything one decision asks of a variant shares one budget: the hooks that s:legal() runs (a
-- check for each action listed), or s:try(a) (check, apply, after, turn_end), together get a single
-- call's limits (raw.limited nests), not each hook its own.
for _, name in ipairs { "is_over", "to_move", "scores", "winners", "legal", "check", "try" } do
  local method = Methods[name]
  Methods[name] = function(self, ...) return raw.limited(nil, method, self, ...) end
end

function Methods:variant() return self._name end
function Methods:game() return self._raw:game() end
function Methods:num_players() return self._raw:num_players() end
function Methods:turn() return self._raw:turn() end
function Methods:table() return self._raw:table() end
function Methods:view(p) return self._raw:view(p) end
function Methods:cards() return self._raw:cards() end
function Methods:move(from, to, opts) self._raw:move(from, to, opts) return self end
function Methods:add(counter, n) self._raw:add(counter, n) return self end
function Methods:_turn_key() return self._raw:_turn_key() end
Variant.__tostring = function(s) return tostring(s._raw) end
Variant.__name = "meeple.state"

---------------------------------------------------------------------------------------------------
-- Construction, called by the module
---------------------------------------------------------------------------------------------------

-- The variant's parameters, overridden by those the caller gives.
local function merged_params(v, params)
  local merged = {}
  for k, val in pairs(v.params or {}) do merged[k] = val end
  for k, val in pairs(params or {}) do merged[k] = val end
  return merged
end

local function build(game, name, make)
  local v, path = M.load_file(game, name)
  local ok, state = pcall(make, v)
  if not ok then
    local message = tostring(state):gsub("^variant%.lua:%d+: ", "") -- the rules' words, not our line
    error(("variant %s: %s"):format(path, message), 0)
  end
  raw.set_variant(state, name)
  return v, state
end

-- meeple.new(game, {variant = ...}): the rules' setup, then the variant's.
function M.new(game, opts)
  local v, state = build(game, opts.variant, function(v)
    return raw.new(game, { seed = opts.seed, players = opts.players, params = merged_params(v, opts.params) })
  end)
  local s = wrap(state, v, opts.variant)
  if v.hooks.setup then
    call(s, "setup")
    raw.rebase(s._raw) -- the start is the position after the variant's setup
  end
  s._start = s._raw:clone()
  return s
end

-- meeple.from_table(t) with t.variant: the position as the table says (no setup).
function M.from_table(t)
  local v, state = build(t.game, t.variant, function(v)
    local copy = {}
    for k, val in pairs(t) do copy[k] = val end
    copy.variant, copy.params = nil, merged_params(v, t.params)
    return raw.from_table(copy)
  end)
  local s = wrap(state, v, t.variant)
  s._start = state:clone()
  return s
end

-- meeple.load(text [, {variant = FILE}]) of a save naming a variant: the start, then every action
-- through the hooks. A save names its variant by name; a file is read only when the caller names it
-- (a save may come from anyone: it must not choose which file is run).
function M.load(text, opts)
  local header, actions = {}, {}
  local name, game
  for line in (text .. "\n"):gmatch("(.-)\r?\n") do
    if line:match("^action ") then actions[#actions + 1] = line:sub(8)
    else
      header[#header + 1] = line
      name = name or line:match("^variant (.+)$")
      game = game or line:match("^game (%S+)$")
    end
  end
  if opts ~= nil and type(opts) ~= "table" then error("load: options must be a table", 2) end
  local file = opts and opts.variant
  if file ~= nil and type(file) ~= "string" then error("load: variant must be a file's path or a name", 2) end
  if is_path(name) and not file then
    error(("the save names its variant by a file's path ('%s'); saves name variants by name: pass the file "
      .. "yourself, meeple.load(text, {variant = \"%s\"})"):format(name, name), 0)
  end
  local start = raw.load(table.concat(header, "\n"))
  local v = M.load_file(game or start:game(), file or name)
  local s = wrap(start, v, name)
  s._start = start:clone()
  for i, a in ipairs(actions) do
    local ok, why = s:try(a)
    if not ok then error(("bad save, action %d '%s': %s"):format(i, a, why), 0) end
  end
  return s
end

return M
