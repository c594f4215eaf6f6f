-- render.lua — plain-text rendering of state tables for people: tostring(s) in Lua, the shell, `play`.
-- A chunk returning render(t) -> string. Babel gets a board; any other game an indented listing.

local concat, sort, format = table.concat, table.sort, string.format

local LOCATIONS = { "medes", "sumerians", "hittites", "persians", "assyrians" }

-- "a b c" for a list, "-" for an empty one, the number itself when a view gives a count.
local function items(list)
  if type(list) ~= "table" then return tostring(list) end
  if #list == 0 then return "-" end
  local out = {}
  for i, v in ipairs(list) do out[i] = tostring(v) end
  return concat(out, " ")
end

local function size(list)
  if type(list) == "table" then return #list end
  return tonumber(list) or 0
end

local function top(list)
  if type(list) == "table" then return list[#list] end
  return nil
end

local function yes(v) return v and "yes" or "no" end

-- ---------------------------------------------------------------- Babel

local function babel_total(player)
  local total = 0
  for _, loc in ipairs(LOCATIONS) do total = total + (top(player.temples and player.temples[loc]) or 0) end
  return total
end

local function babel_header(t)
  local parts = { format("Babel · turn %s", tostring(t.turn or "?")) }
  if t.phase == "over" or t.to_move == nil then
    parts[#parts + 1] = "game over"
  else
    if t.active and t.active ~= t.to_move then parts[#parts + 1] = format("player %d's turn", t.active) end
    parts[#parts + 1] = format("player %d to move", t.to_move)
    local phase = t.phase or "?"
    if phase == "halve" and t.halve_left then phase = format("halve: %d more to discard", t.halve_left) end
    parts[#parts + 1] = phase
  end
  parts[#parts + 1] = "migrated " .. yes(t.migrated)
  parts[#parts + 1] = "end phase " .. yes(t.end_phase)
  return concat(parts, " · ")
end

local function babel_location(out, t, loc)
  out[#out + 1] = loc
  for i, p in ipairs(t.players) do
    local row = p.rows and p.rows[loc] or {}
    local temple = p.temples and p.temples[loc] or {}
    local here = p.pawn == loc and "  <- pawn" or ""
    out[#out + 1] = format("  P%d  temple %-11s height %d  row %s%s", i, items(temple), top(temple) or 0,
      items(row), here)
  end
end

local function babel_player(t, i, p)
  local hand = p.hand
  local hand_text
  if type(hand) == "table" then
    hand_text = format("hand %d: %s", #hand, items(hand))
  else
    hand_text = format("hand %s cards", tostring(hand))
  end
  local first = p.first_turn and " · first turn" or ""
  return format("P%d  pawn %s · reserve %s · %s · total %d%s", i, tostring(p.pawn), items(p.reserve),
    hand_text, babel_total(p), first)
end

local function babel_decks(t)
  local deck = format("temple deck %d", size(t.temple_deck))
  if type(t.temple_top) == "table" and #t.temple_top > 0 then
    deck = deck .. format(" (known on top: %s)", items(t.temple_top))
  end
  return format("%s · people deck %d · discard %d", deck, size(t.people_deck), size(t.discard))
end

local function render_babel(t)
  local out = { babel_header(t), "" }
  for _, loc in ipairs(LOCATIONS) do babel_location(out, t, loc) end
  out[#out + 1] = ""
  for i, p in ipairs(t.players) do out[#out + 1] = babel_player(t, i, p) end
  out[#out + 1] = babel_decks(t)
  return concat(out, "\n")
end

-- ---------------------------------------------------------------- any other game

local function scalar(v)
  if type(v) == "string" then return format("%q", v) end
  return tostring(v)
end

local function is_flat_list(v)
  if #v == 0 and next(v) ~= nil then return false end
  for k, x in pairs(v) do
    if math.type(k) ~= "integer" or type(x) == "table" then return false end
  end
  return true
end

-- Keys sorted (numbers first, then names) so the listing is the same on every run.
local function sorted_keys(v)
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  sort(keys, function(a, b)
    if type(a) == type(b) and (type(a) == "number" or type(a) == "string") then return a < b end
    return type(a) == "number"
  end)
  return keys
end

local function listing(out, v, indent)
  for _, k in ipairs(sorted_keys(v)) do
    local x = v[k]
    local name = indent .. tostring(k)
    if type(x) ~= "table" then
      out[#out + 1] = name .. " = " .. scalar(x)
    elseif is_flat_list(x) then
      local parts = {}
      for i, y in ipairs(x) do parts[i] = scalar(y) end
      out[#out + 1] = name .. " = {" .. concat(parts, ", ") .. "}"
    else
      out[#out + 1] = name .. ":"
      listing(out, x, indent .. "  ")
    end
  end
end

local function render_generic(t)
  local out = {}
  listing(out, t, "")
  return concat(out, "\n")
end

local function render(t)
  if type(t) ~= "table" then return tostring(t) end
  if t.game == "babel" and type(t.players) == "table" then return render_babel(t) end
  return render_generic(t)
end

return render
