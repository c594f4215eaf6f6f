-- render.lua — rendering of state tables for people: tostring(s) in Lua, the shell, `play`.
-- A chunk returning render(t [, opts]) -> string. Babel, Citadels, Bohnanza and Rabohnzel get a board; any other game an
-- indented listing. Plain text unless opts.color: then cards are painted in their colours with ANSI
-- codes (the shell and `meeple play` ask for it on a terminal without NO_COLOR; tostring never does).
-- render(nil, {looks = true}) returns {colour = name -> colour, meter_text = function(meter)}: the
-- looks a replay page takes from here, so the terminal and the pages name and paint alike.
-- opts.cards, the game's catalogue (s:cards()), adds each bean field's beanometer and what a harvest
-- would pay now, a field to a line (the shell, `meeple play` and `meeple replay` pass it; tostring
-- does not, and keeps its one line of fields).
--
-- The shell reads this file from the source tree when it can (see README, "The shell"), so a change
-- here shows at the next `meeple repl` without recompiling.

local concat, sort, format = table.concat, table.sort, string.format

local LOCATIONS = { "medes", "sumerians", "hittites", "persians", "assyrians" }

-- ---------------------------------------------------------------- colours

local ANSI = { red = 31, green = 32, yellow = 33, blue = 34, purple = 35, grey = 90 }

-- The colour of each card a player would name by colour: Babel's peoples, Citadels' districts by
-- kind, and the characters that take income from a kind.
local COLOUR = {
  medes = "green", sumerians = "red", hittites = "yellow", persians = "grey", assyrians = "blue",
  king = "yellow", bishop = "blue", merchant = "green", warlord = "red",
}
local DISTRICTS = {
  yellow = { "manor", "castle", "palace" },
  blue = { "temple", "church", "monastery", "cathedral" },
  green = { "tavern", "market", "trading_post", "docks", "harbor", "town_hall" },
  red = { "watchtower", "prison", "battlefield", "fortress" },
  purple = { "haunted_city", "keep", "laboratory", "smithy", "observatory", "graveyard", "dragon_gate",
    "university", "library", "great_wall", "school_of_magic" },
}
for colour, names in pairs(DISTRICTS) do
  for _, name in ipairs(names) do COLOUR[name] = colour end
end
-- Bohnanza's beans, by the colour of their cards.
local BEANS = {
  red = { "chili", "red", "cocoa" }, green = { "green", "garden" }, yellow = { "soy", "wax" },
  blue = { "blue" }, purple = { "stink" }, grey = { "black_eyed", "coffee" },
}
for colour, names in pairs(BEANS) do
  for _, name in ipairs(names) do COLOUR[name] = COLOUR[name] or colour end
end

-- Set per call by render: paints a card name in its colour, or leaves it as it is.
local paint = tostring

local function painter(color)
  if not color then return tostring end
  return function(name)
    local code = ANSI[COLOUR[name]]
    if not code then return tostring(name) end
    return format("\27[%dm%s\27[0m", code, name)
  end
end

-- "a b c" for a list, "-" for an empty one, the number itself when a view gives a count.
local function items(list)
  if type(list) ~= "table" then return tostring(list) end
  if #list == 0 then return "-" end
  local out = {}
  for i, v in ipairs(list) do out[i] = paint(v) end
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
  out[#out + 1] = paint(loc)
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

-- ---------------------------------------------------------------- Citadels

local function citadels_header(t)
  local parts = { format("Citadels · round %s", tostring(t.round or "?")) }
  if t.phase == "over" or t.to_move == nil then
    parts[#parts + 1] = "game over"
  elseif t.phase == "choose" then
    parts[#parts + 1] = format("choosing characters: player %d to choose", t.to_move)
  else
    local who = t.current and format("the %s's turn", paint(t.current)) or "turns"
    parts[#parts + 1] = format("%s: player %d to move", who, t.to_move)
  end
  parts[#parts + 1] = format("crown P%s", tostring(t.crown or "?"))
  if t.killed then parts[#parts + 1] = "killed " .. paint(t.killed) end
  if t.robbed then parts[#parts + 1] = "robbed " .. paint(t.robbed) end
  return concat(parts, " · ")
end

-- A player's characters: the names they may see, and how many more are hidden from this view.
local function citadels_characters(p)
  local known = type(p.characters) == "table" and p.characters or {}
  local hidden = (p.character_count or #known) - #known
  local text = #known > 0 and items(known) or (hidden > 0 and "" or "-")
  if hidden > 0 then text = text .. (text ~= "" and " " or "") .. format("(%d hidden)", hidden) end
  return text
end

local function citadels_player(out, t, i, p)
  local hand = type(p.hand) == "table" and format("hand %d: %s", #p.hand, items(p.hand))
    or format("hand %s cards", tostring(p.hand))
  local crown = t.crown == i and " · crown" or ""
  local first = t.first_complete == i and " · first city of 8" or ""
  out[#out + 1] = format("P%d  gold %s · %s · characters %s%s%s", i, tostring(p.gold), hand,
    citadels_characters(p), crown, first)
  local city = type(p.city) == "table" and p.city or {}
  out[#out + 1] = format("    city %d: %s", #city, items(city))
  if type(p.passed) == "table" and #p.passed > 0 then
    out[#out + 1] = "    passed: " .. items(p.passed)
  end
  if type(p.buried) == "table" and #p.buried > 0 then
    out[#out + 1] = "    put face down: " .. items(p.buried)
  end
end

local function citadels_turn(out, t)
  local drawn, marked = t.drawn, t.marked
  if type(drawn) == "table" and #drawn > 0 then out[#out + 1] = "drawn: " .. items(drawn)
  elseif tonumber(drawn) and tonumber(drawn) > 0 then out[#out + 1] = format("drawn: %d cards", drawn) end
  if type(marked) == "table" and #marked > 0 then out[#out + 1] = "marked to replace: " .. items(marked)
  elseif tonumber(marked) and tonumber(marked) > 0 then out[#out + 1] = format("marked: %d cards", marked) end
  if type(t.pending) == "table" then
    out[#out + 1] = format("graveyard: P%s may take back %s", tostring(t.pending.owner),
      paint(t.pending.district))
  end
end

local function render_citadels(t)
  local out = { citadels_header(t), "" }
  local aside = format("aside face up: %s · face down: %s", items(t.aside_up or {}),
    type(t.aside_down) == "table" and items(t.aside_down) or tostring(t.aside_down or 0))
  out[#out + 1] = aside
  if t.phase == "choose" and t.pack ~= nil then
    out[#out + 1] = type(t.pack) == "table" and "to choose from: " .. items(t.pack)
      or format("to choose from: %s characters", tostring(t.pack))
  end
  out[#out + 1] = ""
  for i, p in ipairs(t.players) do citadels_player(out, t, i, p) end
  out[#out + 1] = ""
  citadels_turn(out, t)
  out[#out + 1] = format("deck %d", size(t.deck))
  return concat(out, "\n")
end


-- ---------------------------------------------------------------- Bohnanza

local BEAN_PHASE = {
  plant = "phase 1: plant", trade = "phase 2: trade", plant_traded = "phase 3: plant traded cards",
  magic = "phase 1½: magic", draw = "phase 4: draw",
}

-- Set per call by render: the game's catalogue (s:cards()) when the caller gave it, for beanometers.
local catalogue = nil

-- A beanometer as "[2:1 3:2 4:3 5:4]": N beans pay k coins (a payout the bean lacks is left out).
local function meter_text(meter)
  local parts = {}
  for k = 1, 4 do
    local n = meter[k]
    if type(n) == "number" and n > 0 then parts[#parts + 1] = format("%d:%d", n, k) end
  end
  return "[" .. concat(parts, " ") .. "]"
end

-- The bean's card in the catalogue, when it has a beanometer.
local function bean_card(kind)
  local card = type(catalogue) == "table" and catalogue[kind]
  if type(card) == "table" and type(card.meter) == "table" then return card end
  return nil
end

-- What a harvest of a field brings now, from the game's own `harvest` entry ({pays, protected, spell}:
-- the rules work it out, enchanted beans and all): "pays 2 now", "pays 0 now + spell" (Rabohnzel's
-- Cape bonus), "would pay 1 (protected)" while bean protection forbids that harvest. nil without one.
local harvest_marks = {} -- the marks harvest_text used on this board, for the key under it
local function harvest_text(h)
  if type(h) ~= "table" or math.type(h.pays) ~= "integer" then return nil end
  harvest_marks.protected = harvest_marks.protected or h.protected == true
  harvest_marks.spell = harvest_marks.spell or h.spell == true
  local spell = h.spell and " + spell" or ""
  if h.protected then return format("would pay %d%s (protected)", h.pays, spell) end
  return format("pays %d now%s", h.pays, spell)
end

-- A field: its beans as "blue ×3" (or a Rabohnzel field's {beans, enchanted, power}), then, when the
-- catalogue is known, its beanometer and what a harvest would bring now (`h`, the player's harvest
-- entry for it). Returns the text, whether a meter was shown, and whether it is one the rules digest
-- marks provisional.
local function bean_field(f, h)
  local beans = f.beans or f
  if type(beans) ~= "table" or #beans == 0 then return "-", false, false end
  local kind = beans[#beans]
  local text = #beans > 1 and format("%s ×%d", paint(kind), #beans) or paint(kind)
  local enchanted = tonumber(f.enchanted) or 0
  if enchanted > 0 then text = text .. format(" (%d enchanted)", enchanted) end
  if (f.power or 0) > 0 then text = text .. " *" end
  local card = bean_card(kind)
  if not card then return text, false, false end
  local pays = harvest_text(h)
  return format("%s  %s%s%s", text, meter_text(card.meter), card.provisional and "†" or "",
    pays and "  " .. pays or ""), true, card.provisional == true
end

local function bean_header(t)
  local parts = { format("%s · turn %s", t.game == "rabohnzel" and "Rabohnzel" or "Bohnanza", tostring(t.turn or "?")) }
  if t.phase == "over" or t.to_move == nil then
    parts[#parts + 1] = "game over"
  else
    parts[#parts + 1] = format("P%d's turn", t.active)
    parts[#parts + 1] = BEAN_PHASE[t.phase] or tostring(t.phase)
    parts[#parts + 1] = format("P%d to decide", t.to_move)
  end
  parts[#parts + 1] = format("pass %s", tostring(t.pass or "?"))
  if t.phase == "trade" then parts[#parts + 1] = format("trade steps used %s", tostring(t.trade_steps or 0)) end
  return concat(parts, " · ")
end

-- The open proposal or offer, and who must do what about it.
local function bean_deal(t)
  local d = t.proposal
  if type(d) ~= "table" then return nil end
  local kind = d.from == t.active and "proposal" or "offer"
  local give = #d.give > 0 and concat(d.give, ", ") or "nothing"
  local want = #d.want > 0 and items(d.want) or "nothing"
  local next_step = ({
    build = format("P%d is building it", d.from),
    answer = format("P%d to accept or reject", d.to),
    pick = format("accepted; P%d picks the cards (%d of %d given)", d.to, d.picked or 0, #d.want),
  })[d.stage] or d.stage
  return format("%s P%d → P%d: gives %s · wants %s · %s", kind, d.from, d.to, give, want, next_step)
end

-- ---------------------------------------------------------------- Rabohnzel

-- Rabohnzel's beans, by their cards' colours.
for name, colour in pairs { sword = "grey", pluck = "purple", cape = "red", common = "green", wise = "blue",
  magic = "purple", princess = "yellow" } do
  COLOUR[name] = COLOUR[name] or colour
end

-- A spell row: "luck (up)" for an active card, its name if known, "?" for a face-down card the viewer
-- has not seen; "dealt" marks the setup cards the countdown still speaks of.
local function spell_row(spells)
  if type(spells) ~= "table" or #spells == 0 then return "-" end
  local out = {}
  for i, sp in ipairs(spells) do
    local text = sp.name or "?"
    if sp.up then text = text .. " (up)" end
    if sp.dealt then text = text .. " (dealt)" end
    out[i] = text
  end
  return concat(out, ", ")
end

-- What interrupts the turn's flow: a pending card, an attack, the guard window, the spells at work.
local function rabohnzel_moment(out, t)
  local pd = t.pending
  if type(pd) == "table" then
    out[#out + 1] = format("pending: P%d's %s (from %s): keep it or plant it", pd.owner, pd.card and paint(pd.card) or "card",
      tostring(pd.from))
  end
  local a = t.attack
  if type(a) == "table" then
    local text = format("attack: P%d's sword on P%d", a.attacker, a.defender)
    if a.aggression then text = text .. ", with aggression" end
    if type(a.drawn) == "table" and #a.drawn > 0 then text = text .. " · drawn " .. items(a.drawn) end
    local stage = ({ choose = format("P%d chooses the coin that counts", a.attacker),
      activate = format("P%d may activate a spell (a Magic coin)", a.attacker) })[a.stage] or a.stage
    out[#out + 1] = text .. (stage and " · " .. stage or "")
  end
  if t.guard then out[#out + 1] = format("guard window: P%d may harvest before the attack", t.guard) end
  if t.enchanting then out[#out + 1] = format("player_enchantment: P%d plants its front card", t.enchanting) end
  if t.relocating then out[#out + 1] = format("relocation: %d card(s) placed from the front", t.relocating) end
  if t.placing then out[#out + 1] = format("card_exchange: the taken spell waits to be placed (%s)", tostring(t.placing)) end
  if t.river then out[#out + 1] = "card_river: running (stop to end it)" end
end

-- A hand: the viewer's own cards, or a size with the cards everyone has seen (Rabohnzel's Pluck) at
-- their positions.
local function bean_hand(p)
  if type(p.hand) == "table" then return format("hand %d: %s", #p.hand, items(p.hand)) end
  local text = format("hand %s cards", tostring(p.hand))
  if type(p.shown) == "table" and #p.shown > 0 then
    local seen = {}
    for i, c in ipairs(p.shown) do seen[i] = format("%s at %d", paint(c.bean), c.at) end
    text = text .. " (seen: " .. concat(seen, ", ") .. ")"
  end
  return text
end

-- A player's fields. Without the catalogue, on one line, as tostring(s) draws them (the golden
-- playthroughs hold that text). With it, one line each with its beanometer, a run of empty ones in one.
-- Returns whether a meter was shown, and whether one of them is provisional.
local function bean_fields(out, t, p)
  local temporary = t.game == "rabohnzel" and p.third_field -- Bohnanza's third field is bought, for good
  local fields = type(p.fields) == "table" and p.fields or {}
  if not catalogue then
    local line = {}
    for f, field in ipairs(fields) do line[f] = format("%d: %s", f, (bean_field(field, nil))) end
    out[#out + 1] = "    fields  " .. concat(line, "   ") .. (temporary and "   (bean_field: third field)" or "")
    return false, false
  end
  local metered, provisional = false, false
  local empty = {} -- a run of empty fields, said in one line
  local function flush()
    if #empty > 0 then out[#out + 1] = format("    field%s %s  empty", #empty > 1 and "s" or "", concat(empty, ", ")) end
    empty = {}
  end
  local harvest = type(p.harvest) == "table" and p.harvest or {}
  for f, field in ipairs(fields) do
    local text, meter, marked = bean_field(field, harvest[f])
    if text == "-" then
      empty[#empty + 1] = f
    else
      flush()
      metered = metered or meter
      provisional = provisional or marked
      out[#out + 1] = format("    field %d  %s", f, text)
    end
  end
  flush()
  if temporary then out[#out + 1] = format("    (field %d is bean_field's third field, gone at this player's next harvest)", #fields) end
  return metered, provisional
end

local function bean_player(out, t, i, p)
  local coins = type(p.coins) == "table" and #p.coins or tonumber(p.coins) or 0
  local marks = {}
  if t.active == i then marks[#marks + 1] = "active" end
  if t.to_move == i then marks[#marks + 1] = "to decide" end
  out[#out + 1] = format("P%d  coins %d · %s%s", i, coins, bean_hand(p), #marks > 0 and " · " .. concat(marks, ", ") or "")
  local metered, provisional = bean_fields(out, t, p)
  if p.spells then out[#out + 1] = "    spells  " .. spell_row(p.spells) end
  if type(p.luck_slot) == "table" then
    out[#out + 1] = format("    luck slot: %s%s", p.luck_slot.name or "?", p.luck_slot.up and " (up)" or "")
  end
  if type(p.set_aside) == "table" and #p.set_aside > 0 then out[#out + 1] = "    set aside: " .. items(p.set_aside) end
  return metered, provisional
end

-- What the marks under the fields mean, once per board.
local METER_KEY = "beanometer [N:k]: N beans pay k coins; pays: the coins a harvest would give now"
local HARVEST_KEY = { protected = "would pay: bean protection forbids harvesting that lone bean now",
  spell = "+ spell: harvesting that Cape field also draws a spell" }
local PROVISIONAL_KEY = "† provisional beanometer: the real one is unknown to this project (meeple rules %s)"

-- Bohnanza's board, and Rabohnzel's: the same table with spells, powers and attacks added.
local function render_beans(t)
  local out = { bean_header(t) }
  if t.countdown then out[#out + 1] = format("countdown: the start player revealed %s (the highest spell dealt)", t.countdown) end
  if type(t.face_up) == "table" and #t.face_up > 0 then
    out[#out + 1] = "face up: " .. items(t.face_up) .. (t.commerce_card and " (the last is commerce's)" or "")
  end
  local deal = bean_deal(t)
  if deal then out[#out + 1] = deal end
  if t.invited then out[#out + 1] = format("P%d invited offers: P%d to offer or pass", t.active, t.invited) end
  rabohnzel_moment(out, t)
  out[#out + 1] = ""
  local metered, provisional = false, false
  harvest_marks = {}
  for i, p in ipairs(t.players) do
    local m, pr = bean_player(out, t, i, p)
    metered, provisional = metered or m, provisional or pr
  end
  out[#out + 1] = ""
  local discard = type(t.discard) == "table" and t.discard or {}
  out[#out + 1] = format("deck %d · discard %d%s%s", size(t.deck), #discard,
    #discard > 0 and " (top " .. paint(discard[#discard]) .. ")" or "",
    t.spell_pile ~= nil and format(" · spell pile %d", size(t.spell_pile)) or "")
  if metered then out[#out + 1] = METER_KEY end
  for _, mark in ipairs { "protected", "spell" } do
    if harvest_marks[mark] then out[#out + 1] = HARVEST_KEY[mark] end
  end
  if provisional then out[#out + 1] = format(PROVISIONAL_KEY, t.game) end
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

-- The looks the pages share with the terminal (scripts/viewer.lua puts them in a replay's data): the
-- colour of each card named by colour, and a beanometer's text. One place for both.
local LOOKS = { colour = COLOUR, meter_text = meter_text }

local function render(t, opts)
  if opts and opts.looks then return LOOKS end
  if type(t) ~= "table" then return tostring(t) end
  paint = painter(opts and opts.color)
  catalogue = opts and opts.cards
  if type(t.players) == "table" then
    if t.game == "babel" then return render_babel(t) end
    if t.game == "citadels" then return render_citadels(t) end
    if t.game == "bohnanza" or t.game == "rabohnzel" then return render_beans(t) end
  end
  return render_generic(t)
end

return render
