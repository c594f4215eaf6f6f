-- report.lua — what match logs say about the bots that played them (`meeple report`, and the plots of
-- `meeple compare --html`). A chunk returning a table:
--   read(meeple, paths) -> games         every record of the logs, checked (raises "FILE, line N: why")
--   summarize(games, ratings) -> stats    per bot and per seat: results, intervals, times, forfeits,
--                                        ratings (ratings = the chunk of scripts/ratings.lua)
--   text(stats) -> string, json(stats) -> table (snake_case keys), html(stats, parts) -> page
--   comparison(base, variant, labels, parts) -> page   two rule sets side by side
--   write(path, text)                    the file written, or raises "cannot write PATH: why"
-- Log records of format 1 and 2 are read; times exist only in format 2 (`decisions`, `ms`, `ms_max`).

local concat, format, sort = table.concat, string.format, table.sort

local M = {}

local Z95 = 1.959963984540054
local MAX_LOG_BYTES = 1 << 30
local MAX_TEXT = 4096
local MAX_SEATS = 8
local MAX_BOTS = 256

-- ---------------------------------------------------------------- files

-- Set by the host (repl/report.c), in C:
--   M.write(path, text)  written beside and renamed over path, or not at all; never over what is not
--                        a regular file
--   M.lines(path)        an iterator over a log's lines: a regular file only, each line bounded in bytes
--                        and in the JSON values it holds; errors name the line

-- ---------------------------------------------------------------- reading

local function is_text(v) return type(v) == "string" and #v <= MAX_TEXT end
local function is_whole(v, lo, hi) return math.type(v) == "integer" and v >= lo and v <= hi end

local function numbers(v, n)
  if type(v) ~= "table" or #v ~= n then return false end
  for i = 1, n do
    if type(v[i]) ~= "number" then return false end
  end
  return true
end

-- Why a record cannot be counted, or nil. Only checked fields are used afterwards.
local function problem(r)
  if type(r) ~= "table" then return "not a game of a match log (a JSON object per line)" end
  if not is_text(r.game) then return "no game name ('game')" end
  local seats = r.seats
  if type(seats) ~= "table" or #seats < 1 or #seats > MAX_SEATS then return "no seats ('seats')" end
  for i = 1, #seats do
    if not is_text(seats[i]) then return "'seats' must be the bots' names" end
  end
  local n = #seats
  if not numbers(r.scores, n) then return "'scores' must be one number per seat" end
  if type(r.winners) ~= "table" or #r.winners > n then return "'winners' must list seats" end
  for _, w in ipairs(r.winners) do
    if not is_whole(w, 1, n) then return "'winners' must list seats" end
  end
  if type(r.forfeits) ~= "table" or #r.forfeits > n then return "'forfeits' must list {seat, reason}" end
  for _, f in ipairs(r.forfeits) do
    if type(f) ~= "table" or not is_whole(f.seat, 1, n) or not is_text(f.reason) then
      return "'forfeits' must list {seat, reason}"
    end
  end
  if type(r.actions) ~= "table" then return "no actions ('actions')" end
  if r.unfinished ~= nil and not is_whole(r.unfinished, 1, 1 << 53) then
    return "'unfinished' must be the decision cap the game reached"
  end
  if r.deal ~= nil and not is_whole(r.deal, 1, 1 << 53) then return "'deal' must be a deal's number" end
  for _, key in ipairs { "decisions", "ms", "ms_max" } do
    if r[key] ~= nil and not numbers(r[key], n) then return ("'%s' must be one number per seat"):format(key) end
  end
  return nil
end

local function read_log(meeple, path, games)
  local line_no, first, bytes = 0, #games + 1, 0
  for line in M.lines(path) do
    line_no = line_no + 1
    bytes = bytes + #line + 1
    if bytes > MAX_LOG_BYTES then error(("%s: larger than %d MiB"):format(path, MAX_LOG_BYTES >> 20), 0) end
    if line:find("%S") then
      local r, reason = meeple.json.decode(line)
      if r == nil then
        error(("%s, line %d: not JSON (%s); is this a match log?"):format(path, line_no, reason), 0)
      end
      local bad = problem(r)
      if bad then error(("%s, line %d: %s"):format(path, line_no, bad), 0) end
      r.log, r.line = path, line_no
      games[#games + 1] = r
    end
  end
  if #games < first then error(("the log '%s' is empty"):format(path), 0) end
end

function M.read(meeple, paths)
  local games = {}
  for _, path in ipairs(paths) do read_log(meeple, path, games) end
  for _, g in ipairs(games) do
    if g.game ~= games[1].game then
      error(("%s is a log of %s, %s one of %s: report on one game at a time"):format(g.log, g.game,
        games[1].log, games[1].game), 0)
    end
  end
  return games
end

-- ---------------------------------------------------------------- statistics

-- A proportion with its 95% Wilson interval.
local function proportion(k, n)
  if n == 0 then return { value = nil, lo = nil, hi = nil } end
  local p, z2 = k / n, Z95 * Z95
  local denom = 1 + z2 / n
  local centre = (p + z2 / (2 * n)) / denom
  local half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
  return { value = p, lo = math.max(0.0, centre - half), hi = math.min(1.0, centre + half) }
end

-- A mean with its 95% normal interval.
local function mean_of(list)
  local n = #list
  if n == 0 then return { value = nil, lo = nil, hi = nil } end
  local sum = 0
  for _, x in ipairs(list) do sum = sum + x end
  local m = sum / n
  local sq = 0
  for _, x in ipairs(list) do sq = sq + (x - m) ^ 2 end
  local se = n > 1 and math.sqrt(sq / (n - 1) / n) or 0
  return { value = m, lo = m - Z95 * se, hi = m + Z95 * se }
end
M.proportion, M.mean_of = proportion, mean_of

-- A win rate's 95% interval from games that come in deals (format-3 logs: the games of a deal share
-- their luck, so they are not independent trials): the cluster-robust normal interval over the deals,
-- `deals` a map of {games, wins} by deal. Wilson's on the games when every deal is one game or the
-- logs have no deals (nil).
local function by_deal(k, n, deals)
  local count, bigger = 0, false
  for _, d in pairs(deals or {}) do
    count = count + 1
    bigger = bigger or d.games > 1
  end
  if not deals or count < 2 or not bigger then return proportion(k, n) end
  local p, sq = k / n, 0
  for _, d in pairs(deals) do sq = sq + (d.wins - p * d.games) ^ 2 end
  local half = Z95 * math.sqrt(sq * count / (count - 1)) / n
  return { value = p, lo = math.max(0.0, p - half), hi = math.min(1.0, p + half) }
end
M.by_deal = by_deal

-- A reason with its numbers masked, so "took 1210 ms" and "took 1304 ms" count together.
local function reason_kind(text)
  return (text:gsub("%d+%.?%d*", "N"):sub(1, 120))
end

local function new_bot(name)
  return { name = name, games = 0, wins = 0, draws = 0, losses = 0, forfeits = 0, scores = {}, seats = {},
    decisions = 0, ms = 0, ms_max = nil, timed = 0, reasons = {}, deals = {} }
end

-- The rank a seat ended with, for the ratings: winners first, then those who did not forfeit, then score.
local function ranks(g)
  local out, forfeited = {}, {}
  for _, f in ipairs(g.forfeits) do forfeited[f.seat] = true end
  local won = {}
  for _, w in ipairs(g.winners) do won[w] = true end
  for seat = 1, #g.seats do
    -- Scores are bounded far below 1e6, so the three keys never mix.
    out[seat] = (won[seat] and 2e12 or 0) + (forfeited[seat] and 0 or 1e6) + g.scores[seat]
  end
  return out
end

local function count_game(stats, g, by_name)
  local alone = #g.winners == 1 and g.winners[1] or nil
  local shared = {}
  if #g.winners > 1 then for _, w in ipairs(g.winners) do shared[w] = true end end
  local forfeited = {}
  for _, f in ipairs(g.forfeits) do forfeited[f.seat] = f.reason end
  for seat, name in ipairs(g.seats) do
    local b = by_name[name]
    if not b then
      if #stats.bots == MAX_BOTS then error(("more than %d bots in these logs"):format(MAX_BOTS), 0) end
      b = new_bot(name)
      by_name[name] = b
      stats.bots[#stats.bots + 1] = b
    end
    b.games = b.games + 1
    if b.deals and g.deal then
      local key = g.log .. "\0" .. g.deal
      local d = b.deals[key] or { games = 0, wins = 0 }
      b.deals[key] = d
      d.games = d.games + 1
      if alone == seat then d.wins = d.wins + 1 end
    else
      b.deals = nil -- a game without a deal: the games are the trials
    end
    if alone == seat then b.wins = b.wins + 1
    elseif shared[seat] then b.draws = b.draws + 1
    else b.losses = b.losses + 1 end
    b.scores[#b.scores + 1] = g.scores[seat]
    local at = b.seats[seat] or { games = 0, wins = 0 }
    b.seats[seat] = at
    at.games = at.games + 1
    if alone == seat then at.wins = at.wins + 1 end
    local s = stats.seats[seat] or { games = 0, wins = 0 }
    stats.seats[seat] = s
    s.games = s.games + 1
    if alone == seat then s.wins = s.wins + 1 end
    if forfeited[seat] then
      b.forfeits = b.forfeits + 1
      local kind = reason_kind(forfeited[seat])
      b.reasons[kind] = (b.reasons[kind] or 0) + 1
    end
    if g.ms and g.decisions then
      b.timed = b.timed + 1
      b.decisions = b.decisions + g.decisions[seat]
      b.ms = b.ms + g.ms[seat]
      if g.ms_max then b.ms_max = math.max(b.ms_max or 0, g.ms_max[seat]) end
    end
  end
end

function M.summarize(games, ratings)
  local stats = { games = #games, bots = {}, seats = {}, logs = {}, game = games[1] and games[1].game,
    list = games, lengths = {}, unfinished = 0 }
  local by_name, seen_log = {}, {}
  for _, g in ipairs(games) do
    count_game(stats, g, by_name)
    if g.unfinished then -- stopped at match's decision cap: its winners are every seat, a draw
      stats.unfinished = stats.unfinished + 1
      stats.cap = math.max(stats.cap or 0, g.unfinished)
    end
    stats.lengths[#stats.lengths + 1] = #g.actions
    if not seen_log[g.log] then
      seen_log[g.log] = true
      stats.logs[#stats.logs + 1] = g.log
    end
  end
  local index, names, comparisons = {}, {}, {}
  for i, b in ipairs(stats.bots) do
    index[b.name], names[i] = i, b.name
  end
  for _, g in ipairs(games) do ratings.pairs(g.seats, ranks(g), index, comparisons) end
  local fitted = ratings.fit(names, comparisons)
  for i, b in ipairs(stats.bots) do
    b.rating, b.rating_sd = fitted[i].rating, fitted[i].sd
    b.win = by_deal(b.wins, b.games, b.deals)
    b.score = mean_of(b.scores)
  end
  for seat = 1, #stats.seats do
    stats.seats[seat] = stats.seats[seat] or { games = 0, wins = 0 }
    stats.seats[seat].win = proportion(stats.seats[seat].wins, stats.seats[seat].games)
    local effect = fitted.seats[seat] or { effect = 0, sd = 0 }
    stats.seats[seat].effect, stats.seats[seat].effect_sd = effect.effect, effect.sd
  end
  stats.length = mean_of(stats.lengths)
  sort(stats.bots, function(a, b)
    if a.rating ~= b.rating then return a.rating > b.rating end
    return a.name < b.name
  end)
  return stats
end

-- ---------------------------------------------------------------- text and JSON

local function pct(x) return x and format("%.1f%%", 100 * x) or "-" end
local function num(x, digits) return x and format("%." .. (digits or 1) .. "f", x) or "-" end
local function ms_per_decision(b)
  if b.timed == 0 or b.decisions == 0 then return nil end
  return b.ms / b.decisions
end

local function sorted_reasons(b)
  local list = {}
  for reason, count in pairs(b.reasons) do list[#list + 1] = { reason = reason, count = count } end
  sort(list, function(x, y)
    if x.count ~= y.count then return x.count > y.count end
    return x.reason < y.reason
  end)
  return list
end

function M.text(stats, escape)
  local out = {}
  local function line(...) out[#out + 1] = format(...) end
  line("%s: %d games from %s; a win is a game won alone, a draw a shared win; intervals are 95%%",
    stats.game, stats.games, concat(stats.logs, ", "))
  if stats.unfinished > 0 then
    line("%d game%s of %d unfinished at %d decisions (match --max-decisions), counted as a draw shared by all seats",
      stats.unfinished, stats.unfinished == 1 and "" or "s", stats.games, stats.cap)
  end
  line("")
  line("%-20s %6s %5s %5s %6s %4s  %-22s %-20s %-14s %s", "bot", "games", "wins", "draws", "losses", "ff",
    "win rate", "mean score", "rating", "ms/decision")
  for _, b in ipairs(stats.bots) do
    line("%-20s %6d %5d %5d %6d %4d  %-22s %-20s %-14s %s", escape(b.name):sub(1, 20), b.games, b.wins, b.draws,
      b.losses, b.forfeits, format("%s [%s, %s]", pct(b.win.value), pct(b.win.lo), pct(b.win.hi)),
      format("%s [%s, %s]", num(b.score.value), num(b.score.lo), num(b.score.hi)),
      format("%.0f ± %.0f", b.rating, b.rating_sd), ms_per_decision(b) and num(ms_per_decision(b), 2) or "—")
  end
  line("")
  local head = { format("%-20s", "win rate by seat") }
  for seat = 1, #stats.seats do head[#head + 1] = format("%-16s", "seat " .. seat) end
  line("%s", concat(head, " "))
  local all = { format("%-20s", "all bots") }
  for _, s in ipairs(stats.seats) do all[#all + 1] = format("%-16s", pct(s.win.value) .. " of " .. s.games) end
  line("%s", concat(all, " "))
  for _, b in ipairs(stats.bots) do
    local row = { format("%-20s", escape(b.name):sub(1, 20)) }
    for seat = 1, #stats.seats do
      local at = b.seats[seat]
      row[#row + 1] = format("%-16s", at and (pct(at.wins / at.games) .. " of " .. at.games) or "-")
    end
    line("%s", concat(row, " "))
  end
  for _, b in ipairs(stats.bots) do
    for _, r in ipairs(sorted_reasons(b)) do
      line("forfeits of %s: %d × %s", escape(b.name), r.count, escape(r.reason))
    end
  end
  local effects = { format("%-20s", "seat effect (Elo)") }
  for seat, s in ipairs(stats.seats) do
    effects[#effects + 1] = format("%-16s", seat == 1 and "0 (reference)" or format("%+.0f ± %.0f", s.effect, s.effect_sd))
  end
  line("%s", concat(effects, " "))
  line("")
  line("Ratings: Bradley–Terry over each game's pairs of seats, on the Elo scale (mean 1500; ± one standard error),")
  line("fitted with a term per seat (its advantage over seat 1), so no bot is credited with its seats' luck.")
  return concat(out, "\n") .. "\n"
end

local function interval_fields(t, e, prefix)
  t[prefix] = e.value
  t[prefix == "win_rate" and "ci_low" or prefix .. "_ci_low"] = e.lo
  t[prefix == "win_rate" and "ci_high" or prefix .. "_ci_high"] = e.hi
end

function M.json(stats, null)
  local function or_null(v) if v == nil then return null end return v end
  local bots = {}
  for _, b in ipairs(stats.bots) do
    local t = { name = b.name, games = b.games, wins = b.wins, draws = b.draws, losses = b.losses,
      forfeits = b.forfeits, rating = b.rating, rating_sd = b.rating_sd, decisions = b.timed > 0 and b.decisions or null,
      ms_per_decision = or_null(ms_per_decision(b)), ms_max = or_null(b.ms_max) }
    interval_fields(t, b.win, "win_rate")
    t.mean_score = b.score.value
    t.score_ci_low, t.score_ci_high = b.score.lo, b.score.hi
    t.seats = {}
    for seat = 1, #stats.seats do
      local at = b.seats[seat] or { games = 0, wins = 0 }
      local e = proportion(at.wins, at.games)
      t.seats[seat] = { seat = seat, games = at.games, wins = at.wins, win_rate = or_null(e.value),
        ci_low = or_null(e.lo), ci_high = or_null(e.hi) }
    end
    t.forfeit_reasons = sorted_reasons(b)
    bots[#bots + 1] = t
  end
  local seats = {}
  for seat, s in ipairs(stats.seats) do
    seats[seat] = { seat = seat, games = s.games, wins = s.wins, win_rate = or_null(s.win.value),
      ci_low = or_null(s.win.lo), ci_high = or_null(s.win.hi), effect = s.effect, effect_sd = s.effect_sd }
  end
  return { game = stats.game, games = stats.games, logs = stats.logs, bots = bots, seats = seats,
    mean_length = or_null(stats.length.value), unfinished = stats.unfinished, max_decisions = or_null(stats.cap) }
end

-- ---------------------------------------------------------------- plots (inline SVG)

local function esc(text)
  return (tostring(text):gsub("[&<>\"']", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;",
    ['"'] = "&quot;", ["'"] = "&#39;" }))
end

local LABEL_W, PLOT_W, ROW_H = 170, 360, 24

-- A plot's frame: its caption, the SVG element, five ticks over [min, max] written by `fmt`, and a
-- dashed line at `mark`. Returns the parts list (to add rows to and close with plot_end), the
-- position of a value, and the y of row i.
local function plot_begin(caption, nrows, min, max, fmt, mark)
  local h = 30 + ROW_H * nrows + 24
  local x = function(v) return LABEL_W + PLOT_W * (math.max(min, math.min(max, v)) - min) / math.max(max - min, 1e-9) end
  local out = { format('<figure><figcaption>%s</figcaption><svg class="plot" role="img" width="%d" height="%d" '
    .. 'xmlns="http://www.w3.org/2000/svg">', esc(caption), LABEL_W + PLOT_W + 90, h) }
  for i = 0, 4 do
    local v = min + (max - min) * i / 4
    out[#out + 1] = format('<line x1="%.1f" y1="20" x2="%.1f" y2="%d" stroke="#ddd"/><text x="%.1f" y="%d" '
      .. 'font-size="10" text-anchor="middle" fill="#666">%s</text>', x(v), x(v), h - 20, x(v), h - 6, esc(fmt(v)))
  end
  if mark then
    out[#out + 1] = format('<line x1="%.1f" y1="20" x2="%.1f" y2="%d" stroke="#c99" stroke-dasharray="4 3"/>',
      x(mark), x(mark), h - 20)
  end
  return out, x, function(i) return 20 + ROW_H * (i - 0.5) end
end

-- Opens row `label`'s group at height y, its label on the left.
local function plot_row(out, class, label, y)
  out[#out + 1] = format('<g class="%s" data-label="%s"><text x="%d" y="%.1f" font-size="12" text-anchor="end" '
    .. 'dominant-baseline="middle">%s</text>', class, esc(label), LABEL_W - 8, y, esc(label))
end

local function plot_end(out)
  out[#out + 1] = "</svg></figure>"
  return concat(out)
end

-- Rows {label, value, lo, hi} as dots with interval bars over [min, max]; `fmt` writes a value.
local function interval_plot(caption, rows, min, max, fmt, mark)
  local out, x, row_y = plot_begin(caption, #rows, min, max, fmt, mark)
  for i, r in ipairs(rows) do
    local y = row_y(i)
    plot_row(out, "bar", r.label, y)
    if r.value then
      out[#out + 1] = format('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#2d62b3" stroke-width="2"/>'
        .. '<circle cx="%.1f" cy="%.1f" r="4" fill="#2d62b3"/><text x="%d" y="%.1f" font-size="11" '
        .. 'dominant-baseline="middle">%s</text>', x(r.lo), y, x(r.hi), y, x(r.value), y,
        LABEL_W + PLOT_W + 6, y, esc(fmt(r.value)))
    end
    out[#out + 1] = "</g>"
  end
  return plot_end(out)
end

local function quantile(sorted, q)
  local pos = 1 + (#sorted - 1) * q
  local lo = math.floor(pos)
  local hi = math.min(lo + 1, #sorted)
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo)
end

-- Each bot's scores as a box (quartiles), whiskers (min, max) and its mean.
local function score_plot(bots, min, max)
  local out, x, row_y = plot_begin("Score distribution (box: middle half; whiskers: lowest and highest; dot: mean)",
    #bots, min, max, function(v) return num(v) end)
  for i, b in ipairs(bots) do
    local s = {}
    for k, v in ipairs(b.scores) do s[k] = v end
    sort(s)
    local y = row_y(i)
    plot_row(out, "box", b.name, y)
    if #s > 0 then
      local q1, med, q3 = quantile(s, 0.25), quantile(s, 0.5), quantile(s, 0.75)
      out[#out + 1] = format('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#777"/>'
        .. '<rect x="%.1f" y="%.1f" width="%.1f" height="12" fill="#cfe0f7" stroke="#2d62b3"/>'
        .. '<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#2d62b3" stroke-width="2"/>'
        .. '<circle cx="%.1f" cy="%.1f" r="3" fill="#c0392b"/>',
        x(s[1]), y, x(s[#s]), y, x(q1), y - 6, math.max(x(q3) - x(q1), 1), x(med), y - 6, x(med), y + 6,
        x(b.score.value), y)
    end
    out[#out + 1] = "</g>"
  end
  return plot_end(out)
end

local function pct_fmt(v) return format("%.0f%%", 100 * v) end

-- The plots of one set of results, as a list of four figures.
local function plots(stats, score_range)
  local wins, seat_rows, rating_rows = {}, {}, {}
  local lo_r, hi_r = 1500, 1500
  for _, b in ipairs(stats.bots) do
    wins[#wins + 1] = { label = b.name, value = b.win.value, lo = b.win.lo, hi = b.win.hi }
    local lo, hi = b.rating - Z95 * b.rating_sd, b.rating + Z95 * b.rating_sd
    rating_rows[#rating_rows + 1] = { label = b.name, value = b.rating, lo = lo, hi = hi }
    lo_r, hi_r = math.min(lo_r, lo), math.max(hi_r, hi)
  end
  for seat, s in ipairs(stats.seats) do
    seat_rows[#seat_rows + 1] = { label = "seat " .. seat, value = s.win.value, lo = s.win.lo, hi = s.win.hi }
  end
  local pad = math.max(50, (hi_r - lo_r) * 0.05)
  local fair = #stats.seats > 0 and 1 / #stats.seats or nil
  return {
    interval_plot("Win rate per bot (95% interval)", wins, 0, 1, pct_fmt, fair),
    interval_plot("Win rate by seat, all bots (95% interval; dashed: an even share)", seat_rows, 0, 1, pct_fmt, fair),
    score_plot(stats.bots, score_range[1], score_range[2]),
    interval_plot("Rating (Elo scale, mean 1500; bars: 95% interval)", rating_rows, lo_r - pad, hi_r + pad,
      function(v) return format("%.0f", v) end, 1500),
  }
end

local function score_range(...)
  local lo, hi = math.huge, -math.huge
  for _, stats in ipairs { ... } do
    for _, b in ipairs(stats.bots) do
      for _, s in ipairs(b.scores) do lo, hi = math.min(lo, s), math.max(hi, s) end
    end
  end
  if lo > hi then return { 0, 1 } end
  if lo == hi then return { lo - 1, hi + 1 } end
  return { lo, hi }
end

-- ---------------------------------------------------------------- tables for the page

local function cell(v) return "<td>" .. v .. "</td>" end

local function bot_table(stats)
  local out = { '<table class="bots"><thead><tr><th>bot</th><th>games</th><th>wins</th><th>draws</th><th>losses</th>'
    .. '<th>forfeits</th><th>win rate [95%]</th><th>mean score [95%]</th><th>rating ± se</th><th>ms / decision</th>'
    .. '<th>longest decision (ms)</th></tr></thead><tbody>' }
  for _, b in ipairs(stats.bots) do
    out[#out + 1] = '<tr data-bot="' .. esc(b.name) .. '"><th>' .. esc(b.name) .. "</th>" .. cell(b.games)
      .. cell(b.wins) .. cell(b.draws) .. cell(b.losses) .. cell(b.forfeits)
      .. cell(format("%s [%s, %s]", pct(b.win.value), pct(b.win.lo), pct(b.win.hi)))
      .. cell(format("%s [%s, %s]", num(b.score.value), num(b.score.lo), num(b.score.hi)))
      .. cell(format("%.0f ± %.0f", b.rating, b.rating_sd))
      .. cell(ms_per_decision(b) and num(ms_per_decision(b), 2) or "—")
      .. cell(b.ms_max and num(b.ms_max, 0) or "—") .. "</tr>"
  end
  out[#out + 1] = "</tbody></table>"
  local seats = { '<table class="seats"><thead><tr><th>win rate by seat</th>' }
  for seat = 1, #stats.seats do seats[#seats + 1] = "<th>seat " .. seat .. "</th>" end
  seats[#seats + 1] = "</tr></thead><tbody><tr><th>all bots</th>"
  for _, s in ipairs(stats.seats) do
    seats[#seats + 1] = cell(format("%s [%s, %s] of %d", pct(s.win.value), pct(s.win.lo), pct(s.win.hi), s.games))
  end
  seats[#seats + 1] = "</tr>"
  for _, b in ipairs(stats.bots) do
    seats[#seats + 1] = "<tr><th>" .. esc(b.name) .. "</th>"
    for seat = 1, #stats.seats do
      local at = b.seats[seat]
      seats[#seats + 1] = cell(at and format("%s of %d", pct(at.wins / at.games), at.games) or "—")
    end
    seats[#seats + 1] = "</tr>"
  end
  seats[#seats + 1] = "</tbody></table>"
  local ff = {}
  for _, b in ipairs(stats.bots) do
    for _, r in ipairs(sorted_reasons(b)) do
      ff[#ff + 1] = "<li>" .. esc(b.name) .. ": " .. r.count .. " × " .. esc(r.reason) .. "</li>"
    end
  end
  return concat(out) .. concat(seats) .. (#ff > 0 and "<h3>Forfeits by reason</h3><ul>" .. concat(ff) .. "</ul>" or "")
end

-- The games, each with a link to its replay page when one was written (`replays[i]`, a relative path).
local function game_table(stats, replays)
  local out = { '<table class="games"><thead><tr><th>#</th><th>log</th><th>seats</th><th>scores</th><th>winners</th>'
    .. '<th>decisions</th><th>forfeits</th><th>replay</th></tr></thead><tbody>' }
  for i, g in ipairs(stats.list) do
    local seats, winners, ff = {}, {}, {}
    for s, name in ipairs(g.seats) do seats[s] = "P" .. s .. " " .. esc(name) end
    for k, w in ipairs(g.winners) do winners[k] = "P" .. w end
    for k, f in ipairs(g.forfeits) do ff[k] = "P" .. f.seat .. ": " .. esc(f.reason) end
    local scores = {}
    for s, v in ipairs(g.scores) do scores[s] = num(v, 0) end
    local link = replays and replays[i]
    out[#out + 1] = '<tr data-game="' .. i .. '">' .. cell(i) .. cell(esc(g.log) .. ":" .. g.line)
      .. cell(concat(seats, ", ")) .. cell(concat(scores, " / ")) .. cell(concat(winners, ", "))
      .. cell(#g.actions) .. cell(concat(ff, "; "))
      .. cell(link and link.href and ('<a href="' .. esc(link.href) .. '">watch</a>') or esc(link and link.why or ""))
      .. "</tr>"
  end
  out[#out + 1] = "</tbody></table>"
  return concat(out)
end

local STYLE = [[
body { font: 14px/1.4 system-ui, sans-serif; margin: 16px; color: #222; background: #f6f5f1; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 24px; }
table { border-collapse: collapse; background: #fff; margin: 8px 0; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; font-size: 13px; }
thead th { background: #ebe8df; }
figure { display: inline-block; margin: 8px 16px 8px 0; background: #fff; border: 1px solid #ddd; padding: 6px; }
figcaption { font-weight: 600; font-size: 13px; margin-bottom: 4px; }
.columns { display: flex; gap: 24px; } .columns > section { flex: 1 1 0; min-width: 0; overflow-x: auto; }
.columns h3 { font-size: 13px; margin: 4px 0; }
]]

local function document(title, body)
  return "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" .. esc(title)
    .. "</title><style>" .. STYLE .. "</style></head><body><h1>" .. esc(title) .. "</h1>" .. body
    .. "</body></html>\n"
end

function M.html(stats, replays)
  local title = format("%s: %d games, %d bots", stats.game, stats.games, #stats.bots)
  local body = "<p>From " .. esc(concat(stats.logs, ", ")) .. ". A win is a game won alone; a draw a shared "
    .. "win. Intervals are 95%. Ratings: Bradley–Terry over each game's pairs of seats, on the Elo scale "
    .. "(400 points: 10 to 1 odds), mean 1500.</p>"
    .. "<h2>Bots</h2>" .. bot_table(stats) .. "<h2>Plots</h2>" .. concat(plots(stats, score_range(stats)))
    .. "<h2>Games</h2>" .. game_table(stats, replays)
  return document(title, body)
end

-- Two rule sets' results side by side: their tables, then each plot of the base rules beside the
-- variant's, on the same scales.
function M.comparison(base, variant, labels)
  local range = score_range(base, variant)
  local title = format("%s: %s against %s, %d games each", base.game, labels[1], labels[2], base.games)
  local sides, figures = {}, {}
  for i, stats in ipairs { base, variant } do
    sides[i] = "<section data-rules=\"" .. esc(labels[i]) .. "\"><h2>" .. esc(labels[i]) .. "</h2>"
      .. format("<p>mean length %s decisions [%s, %s]</p>", num(stats.length.value), num(stats.length.lo),
        num(stats.length.hi))
      .. bot_table(stats) .. "</section>"
    figures[i] = plots(stats, range)
  end
  local rows = {}
  for k = 1, #figures[1] do
    rows[k] = '<div class="columns">' .. "<section><h3>" .. esc(labels[1]) .. "</h3>" .. figures[1][k]
      .. "</section><section><h3>" .. esc(labels[2]) .. "</h3>" .. figures[2][k] .. "</section></div>"
  end
  return document(title, "<p>The same bots and seeds under both rule sets. Intervals are 95%.</p>"
    .. '<div class="columns">' .. concat(sides) .. "</div><h2>Plots</h2>" .. concat(rows))
end

return M
