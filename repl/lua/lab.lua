-- lab.lua — the variant lab (repl/lab.c): `meeple evaluate` measures a game (or a variant beside the
-- base rules) by the game-design metrics of docs/lab.md, each with a 95% interval; `meeple tune`
-- finds parameter values for an objective by successive halving, then a confirmation run of the one chosen.
--
-- Run with (meeple, request): request.command ("evaluate" or "tune"), request.args (the command's
-- arguments), request.tmp (a fresh folder, emptied here), request.tty, and the C side's play(spec),
-- os_seed(), is_bot(arg) and write_file(path, text). Returns the exit status, or a refusal for the C
-- side to say: {bad = reason} (a bad argument), {no_bot = arg}, or {status = N} (a failure the match
-- already said).
local meeple, req = ...
local json = meeple.json
local cmd = req.command

-- A bad argument: caught in main, said by the C side as "meeple CMD: reason" and the usage line.
local function bad(fmt, ...) error({ bad = fmt:format(...) }, 0) end

-- ======================================================================== statistics

-- log Γ(x), x > 0 (Lanczos, g = 7): for the t distribution's incomplete beta function.
local lanczos = { 0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
  -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7 }
local function lgamma(x)
  if x < 0.5 then return math.log(math.pi / math.abs(math.sin(math.pi * x))) - lgamma(1 - x) end
  x = x - 1
  local a, t = lanczos[1], x + 7.5
  for i = 2, 9 do a = a + lanczos[i] / (x + i - 1) end
  return 0.5 * math.log(2 * math.pi) + (x + 0.5) * math.log(t) - t + math.log(a)
end

-- The regularized incomplete beta function I_x(a, b), by its continued fraction (Lentz).
local function incomplete_beta(a, b, x)
  if x <= 0 then return 0 elseif x >= 1 then return 1 end
  if x > (a + 1) / (a + b + 2) then return 1 - incomplete_beta(b, a, 1 - x) end
  local front = math.exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * math.log(x) + b * math.log(1 - x)) / a
  local tiny, f, c, d = 1e-300, 1, 1, 0
  for i = 0, 300 do
    local m, num = i // 2, nil
    if i == 0 then num = 1
    elseif i % 2 == 0 then num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
    else num = -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1)) end
    d = 1 + num * d
    d = math.abs(d) < tiny and tiny or d
    d = 1 / d
    c = 1 + num / c
    c = math.abs(c) < tiny and tiny or c
    f = f * c * d
    if math.abs(1 - c * d) < 1e-12 then break end
  end
  return front * (f - 1)
end

-- P(T <= t) for Student's t with df degrees of freedom.
local function t_cdf(t, df)
  local tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t))
  return t > 0 and 1 - tail or tail
end

-- The t quantile for the two-sided level 1 - alpha, by bisection (df >= 1).
local function t_critical(alpha, df)
  local lo, hi = 0, 1e4
  for _ = 1, 200 do
    local mid = (lo + hi) / 2
    if t_cdf(mid, df) < 1 - alpha / 2 then lo = mid else hi = mid end
  end
  return (lo + hi) / 2
end

local Z95 = 1.959963984540054

-- The mean of per-deal values with its t interval over the deals (the independent units), at the
-- two-sided level 1 - alpha. {value, lo, hi, se, n, per}: per[key] is deal key's value (the paired
-- comparison's input), when the deals' keys are given.
local function over_deals(values, alpha, keys)
  local n, sum = #values, 0
  for _, v in ipairs(values) do sum = sum + v end
  if n == 0 then return nil end
  local m, ss = sum / n, 0
  for _, v in ipairs(values) do ss = ss + (v - m) ^ 2 end
  local se = n > 1 and math.sqrt(ss / (n - 1) / n) or math.huge
  local half = n > 1 and t_critical(alpha or 0.05, n - 1) * se or math.huge
  if se == 0 then half = 0 end
  local per
  if keys then
    per = {}
    for i, v in ipairs(values) do per[keys[i]] = v end
  end
  return { value = m, lo = m - half, hi = m + half, se = se, n = n, per = per }
end

-- A ratio of sums over deals (sum of num / sum of den), its interval by linearization: the deals'
-- residuals num - R den, as for a cluster sample. per[key]: the deal's linearized value
-- R + (num - R den) / mean den, whose mean is R (the paired comparison's input).
local function ratio_over_deals(num, den, keys)
  local n, sn, sd = #num, 0, 0
  for i = 1, n do sn, sd = sn + num[i], sd + den[i] end
  if n == 0 or sd == 0 then return nil end
  local r, ss, per = sn / sd, 0, {}
  for i = 1, n do
    ss = ss + (num[i] - r * den[i]) ^ 2
    per[keys[i]] = r + (num[i] - r * den[i]) / (sd / n)
  end
  local se = n > 1 and math.sqrt(ss / (n - 1) / n) / (sd / n) or math.huge
  local half = se == 0 and 0 or n > 1 and t_critical(0.05, n - 1) * se or math.huge
  return { value = r, lo = r - half, hi = r + half, se = se, n = n, per = per }
end

-- The share of D alike deals' population that may differ from what all D showed: Wilson's score
-- bound for 0 in D (as `meeple match` uses at 0 or all wins), with quantile z.
local function wilson_share(d, z) return z * z / (d + z * z) end

-- The estimate's interval cut to the metric's range [lo, hi]. When every deal gave the same value
-- (no spread seen), a t interval would have width 0; instead up to Wilson's share of deals may
-- differ, each as far as the range's bound — or, for a count (no upper bound), by `step` (one unit).
local function clamp(e, lo, hi, step)
  if not e then return nil end
  e.lo, e.hi = math.max(lo, e.lo), math.min(hi, e.hi)
  if e.se == 0 and e.n > 1 then
    local p = wilson_share(e.n, Z95)
    e.lo = e.value - math.min(e.value - lo, step or math.huge) * p
    e.hi = e.value + (hi < math.huge and (hi - e.value) or step) * p
    e.se = (e.hi - e.lo) / (2 * Z95)
  end
  return e
end

-- The two-sided p-value of a change between two estimates over the same deals: a paired t test
-- on the deals both have (the per-deal differences of their values, or linearized values). When
-- every deal moved by the same amount the t test cannot be taken: then the sign test (all K deals
-- moved the same way: 2 · 2^-K), or 1 when none moved. nil without per-deal values.
local function paired_p(a, b)
  if not a or not b or not a.per or not b.per then return nil end
  local keys, diffs = {}, {}
  for key in pairs(a.per) do if b.per[key] then keys[#keys + 1] = key end end
  table.sort(keys) -- the sums in one order: the same p-value on every run
  for i, key in ipairs(keys) do diffs[i] = b.per[key] - a.per[key] end
  local k = #diffs
  if k < 2 then return 1 end
  local sum, ss = 0, 0
  for _, x in ipairs(diffs) do sum = sum + x end
  local m = sum / k
  for _, x in ipairs(diffs) do ss = ss + (x - m) ^ 2 end
  local scale = math.max(math.abs(m), 1e-300)
  if ss <= (1e-12 * scale) ^ 2 * k then
    if math.abs(m) < 1e-12 then return 1 end
    return math.min(1, 2 * 0.5 ^ k)
  end
  local t = math.abs(m) / math.sqrt(ss / (k - 1) / k)
  return 2 * (1 - t_cdf(t, k - 1))
end

-- Whether two intervals do not meet (for the estimates with no per-deal form: balance, luck).
local function apart(a, b)
  if not a or not b then return false end
  return a.hi < b.lo or b.hi < a.lo
end

-- Holm's step-down over the p-values (a list of {p = …}, nil p left out): marks `beyond` on those
-- rejected so that all together err at most alpha. Returns the family's size.
local function holm(tests, alpha)
  local list = {}
  for _, t in ipairs(tests) do if t.p then list[#list + 1] = t end end
  table.sort(list, function(x, y) return x.p < y.p end)
  local m = #list
  for i, t in ipairs(list) do
    if t.p > alpha / (m - i + 1) then break end
    t.beyond = true
  end
  return m
end

-- ======================================================================== the games, measured

-- Turns are rounds in Citadels (s:turn() counts rounds there, turns begun elsewhere).
local turns_are_rounds = { citadels = true }

-- The records a match logged (our own match's log, in our own folder).
local function read_log(path)
  local records = {}
  for line in io.lines(path) do records[#records + 1] = assert(json.decode(line)) end
  return records
end

-- What the scores say at one moment of a game, into its running figures: the sole leader and how
-- often it changed, the winners' margin over everyone else (below zero: behind), the widest spread.
local function observe(g, scores, winner)
  local best, second, leader = -math.huge, -math.huge, nil
  local win_best, other_best, low = -math.huge, -math.huge, math.huge
  for seat, v in ipairs(scores) do
    if v > best then best, second, leader = v, best, seat elseif v > second then second = v end
    if winner[seat] then win_best = math.max(win_best, v) else other_best = math.max(other_best, v) end
    low = math.min(low, v)
  end
  if best == second then leader = nil end -- a tie for the lead: no one leads
  if leader then
    if g.leader and leader ~= g.leader then g.lead_changes = g.lead_changes + 1 end
    g.leader = leader
  end
  g.spread = math.max(g.spread, best - low)
  local margin = win_best - other_best -- +inf when every seat won
  g.worst = math.max(g.worst, -margin)
  if margin <= 0 then g.last_unclear = g.moments end -- the winners were not alone ahead here
  g.moments = g.moments + 1
end

-- One logged game played again from its seed and actions: its decisions' legal actions (by phase),
-- the scores after every decision, its length in rounds.
local function measure(game, variant, rec)
  local n = #rec.seats
  local s = meeple.new(game, { seed = rec.seed, players = n, variant = variant })
  local winner = {}
  for _, w in ipairs(rec.winners) do winner[w] = true end
  local g = { deal = rec.deal, seats = rec.seats, nwinners = #rec.winners, winner = winner, unfinished = rec.unfinished,
              decisions = #rec.actions, legal = 0, phase_legal = {}, phase_decisions = {},
              lead_changes = 0, spread = 0, worst = -math.huge, moments = 0, last_unclear = -1 }
  for _, a in ipairs(rec.actions) do
    observe(g, s:scores(), winner)
    local legal, phase = #s:legal(), s:table().phase or "play"
    g.legal = g.legal + legal
    g.phase_legal[phase] = (g.phase_legal[phase] or 0) + legal
    g.phase_decisions[phase] = (g.phase_decisions[phase] or 0) + 1
    local ok, why = s:try(a)
    if not ok then error(("the logged game %d does not play again: %s"):format(rec.index, why), 0) end
  end
  observe(g, s:scores(), winner)
  local turn = s:turn()
  g.rounds = turns_are_rounds[game] and turn or math.ceil(turn / n)
  g.drama = (#rec.winners > 0 and g.spread > 0) and math.max(0, g.worst) / g.spread or 0
  g.uncertainty = #rec.winners > 0 and (g.last_unclear + 1) / g.moments or nil
  g.leader, g.worst, g.last_unclear, g.moments = nil, nil, nil, nil
  return g
end

-- Every game of a log, measured; a progress line on a terminal.
local function measure_log(game, variant, path, label)
  local records, games = read_log(path), {}
  for i, rec in ipairs(records) do
    games[i] = measure(game, variant, rec)
    if req.tty and (i % 20 == 0 or i == #records) then
      io.stderr:write(("\r\27[K%s, %s: measured %d/%d games"):format(cmd, label, i, #records))
    end
  end
  if req.tty then io.stderr:write("\r\27[K") end
  return games, records[1]
end

-- ======================================================================== the metrics

-- Each seat's share of a game's win: 1 alone, 1/k shared by k, else 0.
local function share(g, seat) return g.winner[seat] and 1 / g.nwinners or 0 end

local function mean_of(games, f)
  local sum, k = 0, 0
  for _, g in ipairs(games) do
    local v = f(g)
    if v then sum, k = sum + v, k + 1 end
  end
  return k > 0 and sum / k or nil
end

-- The games by deal, in deal order: the deal is the unit of every interval (its games share cards
-- and seeds, so they are not independent of each other). A deal is known by its round (tune plays a
-- new match each round, numbering its deals from 1 again) and its number in that match; each deal's
-- list carries that key.
local function by_deal(games)
  local deals, order = {}, {}
  for _, g in ipairs(games) do
    local key = (g.round or 0) * 1e9 + g.deal
    if not deals[key] then deals[key] = { key = key }; order[#order + 1] = key end
    table.insert(deals[key], g)
  end
  table.sort(order)
  local list = {}
  for i, d in ipairs(order) do list[i] = deals[d] end
  return list
end

-- A per-deal figure for every deal (the deals where f gives nil left out), and the deals' keys.
local function per_deal(deals, f)
  local values, keys = {}, {}
  for _, d in ipairs(deals) do
    local v = f(d)
    if v then values[#values + 1], keys[#keys + 1] = v, d.key end
  end
  return values, keys
end

-- The mean over the deals of a per-deal figure, with its interval (over_deals).
local function mean_over(deals, f, alpha)
  local values, keys = per_deal(deals, f)
  return over_deals(values, alpha, keys)
end

local ASSUME_MEAN = "deals independent; t interval over the deals"
local ASSUME_RATIO = "deals independent; ratio of sums over the deals, interval by linearization"
local ASSUME_SPREAD = "deals independent; simultaneous t intervals (Bonferroni) on every pair of seats"
local ASSUME_LUCK = "deals independent, seats' hands independent; one-way random-effects ANOVA, F interval (normal theory)"

-- The spread of the seats' win rates: max over pairs of |w_i - w_j|, each pair's difference paired
-- within deals; the bounds are those of the pairs' simultaneous intervals, so they hold together.
local function seat_spread(deals, n)
  local pairs_count = n * (n - 1) / 2
  local est = { value = 0, lo = 0, hi = 0 }
  for i = 1, n - 1 do
    for j = i + 1, n do
      local diff = mean_over(deals, function(d)
        return mean_of(d, function(g) return share(g, i) - share(g, j) end)
      end, 0.05 / pairs_count)
      if not diff then return nil end
      if diff.se == 0 and diff.n > 1 then -- every deal alike: Wilson's share of deals may differ, as clamp
        local p = wilson_share(diff.n, t_critical(0.05 / pairs_count, diff.n - 1))
        diff.lo, diff.hi = diff.value - (diff.value + 1) * p, diff.value + (1 - diff.value) * p
      end
      est.value = math.max(est.value, math.abs(diff.value))
      est.lo = math.max(est.lo, diff.lo > 0 and diff.lo or diff.hi < 0 and -diff.hi or 0)
      est.hi = math.max(est.hi, math.abs(diff.lo), math.abs(diff.hi))
    end
  end
  est.hi, est.n = math.min(est.hi, 1), #deals
  return est
end

-- P(F <= x) for Fisher's F with d1 and d2 degrees of freedom, and its quantile (by bisection).
local function f_cdf(x, d1, d2)
  if x <= 0 then return 0 end
  return incomplete_beta(d1 / 2, d2 / 2, d1 * x / (d1 * x + d2))
end

local function f_quantile(p, d1, d2)
  local lo, hi = 0, 1
  while f_cdf(hi, d1, d2) < p and hi < 1e12 do lo, hi = hi, hi * 2 end
  for _ = 1, 100 do
    local mid = (lo + hi) / 2
    if f_cdf(mid, d1, d2) < p then lo = mid else hi = mid end
  end
  return (lo + hi) / 2
end

-- Luck: the share of the variance of a seat's win share that the deal explains. The unit is a seat
-- of a deal (the hand that seat is dealt), observed once for each game of the deal, with each bot
-- there equally often. Each seat's mean is removed first (a seat advantage is not luck), then the
-- one-way random-effects ANOVA over those cells: between-cell and within-cell mean squares MSB, MSW
-- (m games a cell), the deal's variance (MSB - MSW) / m (unbiased), and its share of the total,
-- the intraclass correlation ICC(1), truncated to [0, 1]; its interval the F interval of Shrout and
-- Fleiss (1979). No variance left once the seats are removed (a seat always wins): 0.
local function luck_of(deals, n)
  local seat_sum, count = {}, 0
  for s = 1, n do seat_sum[s] = 0 end
  for _, d in ipairs(deals) do
    for _, g in ipairs(d) do
      count = count + 1
      for s = 1, n do seat_sum[s] = seat_sum[s] + share(g, s) end
    end
  end
  local D = #deals
  local ssb, ssw, df2 = 0, 0, 0
  for _, d in ipairs(deals) do
    df2 = df2 + n * (#d - 1)
    for s = 1, n do
      local cell = mean_of(d, function(g) return share(g, s) end)
      ssb = ssb + #d * (cell - seat_sum[s] / count) ^ 2
      for _, g in ipairs(d) do ssw = ssw + (share(g, s) - cell) ^ 2 end
    end
  end
  local df1, m = n * (D - 1), count / D
  if D < 2 or df2 < 1 then return nil end
  local msb, msw, p = ssb / df1, ssw / df2, wilson_share(D, Z95)
  local e = { n = D }
  if msw <= 1e-15 then -- no spread within a seat of a deal: at a bound, Wilson's reach as clamp
    if msb <= 1e-15 then e.value, e.lo, e.hi = 0, 0, p else e.value, e.lo, e.hi = 1, 1 - p, 1 end
    return e
  end
  local deal_var = (msb - msw) / m
  e.value = math.max(0, deal_var / (deal_var + msw))
  local f = msb / msw
  local fl, fu = f / f_quantile(0.975, df1, df2), f * f_quantile(0.975, df2, df1)
  e.lo = math.min(e.value, math.max(0, (fl - 1) / (fl + m - 1)))
  e.hi = math.min(1, math.max(e.value, (fu - 1) / (fu + m - 1)))
  if e.hi <= e.lo then e.hi = math.min(1, e.lo + p) end
  return e
end

-- How far a share w is above an even split 1/n, on a scale where 1 is "always".
local function above_even(w, n) return (w - 1 / n) / (1 - 1 / n) end

-- Whether every seat holds the same bot: then each deal's games are one game, seated alike (bots
-- draw their randomness from the deal's seed and their seat), and luck is 1 by construction.
local function mirror(games)
  local seats = games[1] and games[1].seats or {}
  local function bot(i) return (seats[i]:gsub("#%d+$", "")) end -- match names a second copy "random#2"
  for i = 2, #seats do if bot(i) ~= bot(1) then return false end end
  return #seats > 1
end

-- The metrics of one rule set's games, in the order they are printed. first_bot: the bot the skill
-- is of (the first listed).
local function metrics(games, n, first_bot, block)
  local deals, out = by_deal(games), {}
  local function add(key, label, est, unit, assumes)
    if est then out[#out + 1] = { key = key, label = label, est = est, unit = unit, assumes = assumes } end
  end
  add("balance", "balance (seat spread)", seat_spread(deals, n), "share", ASSUME_SPREAD)
  add("first_player", "first-player advantage", clamp(mean_over(deals, function(d)
    return above_even(mean_of(d, function(g) return share(g, 1) end), n)
  end), -1 / (n - 1), 1), "share", ASSUME_MEAN)
  add("drawishness", "drawishness (shared wins)", clamp(mean_over(deals, function(d)
    return mean_of(d, function(g) return g.nwinners > 1 and 1 or 0 end)
  end), 0, 1), "share", ASSUME_MEAN)
  add("decisions", "duration (decisions)", clamp(mean_over(deals, function(d)
    return mean_of(d, function(g) return g.decisions end)
  end), 0, math.huge, 1), "count", ASSUME_MEAN)
  add("rounds", "duration (rounds)", clamp(mean_over(deals, function(d)
    return mean_of(d, function(g) return g.rounds end)
  end), 0, math.huge, 1), "count", ASSUME_MEAN)
  local function ratio(num_field, den_field, phase)
    local function sums(field)
      return per_deal(deals, function(d)
        local sum = 0
        for _, g in ipairs(d) do sum = sum + (phase and (g[field][phase] or 0) or g[field]) end
        return sum
      end)
    end
    local num, keys = sums(num_field)
    return clamp(ratio_over_deals(num, sums(den_field), keys), 0, math.huge, 1)
  end
  add("branching", "branching factor", ratio("legal", "decisions"), "count", ASSUME_RATIO)
  local phases, seen = {}, {}
  for _, g in ipairs(games) do
    for phase in pairs(g.phase_decisions) do
      if not seen[phase] then seen[phase] = true; phases[#phases + 1] = phase end
    end
  end
  table.sort(phases)
  for _, phase in ipairs(phases) do
    add("branching." .. phase, "  in phase " .. phase, ratio("phase_legal", "phase_decisions", phase), "count",
        ASSUME_RATIO)
  end
  add("skill", ("skill (%s)"):format(first_bot), clamp(mean_over(deals, function(d)
    return above_even(mean_of(d, function(g)
      for seat, name in ipairs(g.seats) do if name == first_bot then return share(g, seat) end end
    end), n)
  end), -1 / (n - 1), 1), "share", ASSUME_MEAN)
  if block >= n and not mirror(games) then -- the deal's games put every bot in every seat
    add("luck", "luck (deal's share of variance)", luck_of(deals, n), "share", ASSUME_LUCK)
  end
  local function decided(f)
    return mean_over(deals, function(d)
      return mean_of(d, function(g) return g.nwinners > 0 and not g.unfinished and f(g) or nil end)
    end)
  end
  add("lead_changes", "lead changes per game", clamp(decided(function(g) return g.lead_changes end), 0, math.huge, 1),
      "count", ASSUME_MEAN)
  add("drama", "drama (winner's worst deficit)", clamp(decided(function(g) return g.drama end), 0, 1), "share",
      ASSUME_MEAN)
  add("uncertainty", "uncertainty (winner clear at)", clamp(decided(function(g) return g.uncertainty end), 0, 1),
      "share", ASSUME_MEAN)
  return out, #deals
end

local function find(list, key)
  for _, m in ipairs(list) do if m.key == key then return m end end
end

-- ======================================================================== arguments

local SEATINGS = { rotate = true, balanced = true, permute = true, random = true }

-- Games a deal for the design (match's seating_block).
local function block_of(seating, n)
  if seating == "rotate" then return n
  elseif seating == "balanced" then return n * (n - 1)
  elseif seating == "random" then return 1 end
  local f = 1
  for i = 2, n do f = f * i end
  return f
end

local function whole(text, lo, hi, what)
  local v = text:match("^%d+$") and math.tointeger(tonumber(text))
  if not v or v < lo or v > hi then bad("%s takes a whole number from %d to %d, got '%s'", what, lo, hi, text) end
  return v
end

local SEED_MAX = 9007199254740991
local MAX_DECISIONS = 200000 -- match's highest --max-decisions (MATCHLOG_MAX_DECISIONS)

-- The options both commands take; `extra(opt, value)` takes the command's own (true when it did).
local function parse(args, valued, flags, extra)
  local a = { bots = {}, seating = "balanced", jobs = 1 }
  local i = 1
  while i <= #args do
    local arg = args[i]
    if valued[arg] then
      local value = args[i + 1]
      if not value then bad("%s needs a value", arg) end
      i = i + 1
      if arg == "--games" then a.games = whole(value, 1, 100000000, "--games")
      elseif arg == "--seed" then a.seed = whole(value, 0, SEED_MAX, "--seed")
      elseif arg == "--jobs" then a.jobs = whole(value, 0, 256, "--jobs")
      elseif arg == "--max-decisions" then a.max_decisions = whole(value, 1, MAX_DECISIONS, "--max-decisions")
      elseif arg == "--ms" then a.ms = whole(value, 1, 3600000, "--ms")
      elseif arg == "--seating" then
        if not SEATINGS[value] then bad("--seating must be one of rotate, balanced, permute, random, got '%s'", value) end
        a.seating = value
      else extra(a, arg, value) end
    elseif flags[arg] then
      a[arg:sub(3)] = true
    elseif arg:sub(1, 1) == "-" then
      local names = {}
      for k in pairs(valued) do names[#names + 1] = k end
      for k in pairs(flags) do names[#names + 1] = k end
      table.sort(names)
      bad("unknown option '%s' (options: %s)", arg, table.concat(names, ", "))
    elseif not a.game then a.game = arg
    else a.bots[#a.bots + 1] = arg end
    i = i + 1
  end
  if not a.game then bad("which game? games: %s", table.concat(meeple.games(), ", ")) end
  local known = false
  for _, g in ipairs(meeple.games()) do known = known or g == a.game end
  if not known then bad("unknown game '%s'; games: %s", a.game, table.concat(meeple.games(), ", ")) end
  if #a.bots < 1 then bad("name a bot for every seat (for example: random random)") end
  for _, bot in ipairs(a.bots) do
    if not req.is_bot(bot) then error({ no_bot = bot }, 0) end
  end
  return a
end

-- The whole deals a match of about `games` plays: as match rounds its default, and refused when given.
local function deal_games(a, default)
  local block = block_of(a.seating, #a.bots)
  if a.seating == "permute" and #a.bots > 5 then bad("--seating permute stops at 5 players") end
  if not a.games then return (default + block - 1) // block * block, block end
  if a.games % block ~= 0 then
    local below = a.games // block * block
    bad("--games %d is not a whole number of deals: %s seating plays %d games a deal with %d players; give --games %s",
        a.games, a.seating, block, #a.bots, below > 0 and ("%d or %d"):format(below, below + block) or tostring(block))
  end
  return a.games, block
end

-- A game the rules set up with these players, variant and parameters; else a bad argument saying why.
local function check_setup(a, variant, params)
  local ok, why = pcall(meeple.new, a.game, { players = #a.bots, variant = variant, params = params })
  if not ok then bad("%s", (tostring(why):gsub("^new: ", ""))) end
end

local function match_seed(a)
  if a.seed then return a.seed end
  local seed = req.os_seed()
  if not seed then error("cannot draw a seed from the system: give one with --seed", 0) end
  return seed
end

-- Plays one match into `log` and measures its games. A failed match (said by it, as ours) stops here.
local function play_and_measure(a, spec)
  spec.game, spec.bots, spec.seating, spec.jobs, spec.max_decisions = a.game, a.bots, a.seating, a.jobs, a.max_decisions
  spec.ms = a.ms
  local status = req.play(spec)
  if status ~= 0 then
    os.remove(spec.log)
    error({ status = status == 2 and 2 or 1 }, 0)
  end
  local ok, games, first = pcall(measure_log, a.game, spec.variant, spec.log, spec.label or spec.variant or "base rules")
  os.remove(spec.log)
  if not ok then error(games, 0) end
  return games, first
end

-- ======================================================================== reports

local function fmt(v, unit)
  if v == math.huge then return "inf" elseif v == -math.huge then return "-inf" end
  return (unit == "share" and "%.3f" or "%.2f"):format(v)
end

local function interval(e, unit) return ("[%s, %s]"):format(fmt(e.lo, unit), fmt(e.hi, unit)) end

local function estimate_json(m)
  return { value = m.est.value, ci_low = m.est.lo, ci_high = m.est.hi, deals = m.est.n, assumes = m.assumes,
           unit = m.unit }
end

local function finite(t)
  for k, v in pairs(t) do
    if type(v) == "number" and (v ~= v or v == math.huge or v == -math.huge) then t[k] = json.null
    elseif type(v) == "table" then finite(v) end
  end
  return t
end

local function html_escape(s)
  return (tostring(s):gsub("[&<>\"']", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;",
                                         ["'"] = "&#39;" }))
end

-- A share's interval drawn on -1..1 (0 in the middle) as a small inline picture.
local function svg_interval(e, unit)
  if unit ~= "share" then return "" end
  local function x(v) return 4 + 152 * math.max(0, math.min(1, (v + 1) / 2)) end -- -1..1
  return ('<svg width="160" height="14" role="img" aria-label="interval"><line x1="4" x2="156" y1="7" y2="7" '
          .. 'class="axis"/><line x1="80" x2="80" y1="2" y2="12" class="axis"/><line x1="%.1f" x2="%.1f" y1="7" '
          .. 'y2="7" class="ci"/><circle cx="%.1f" cy="7" r="3" class="pt"/></svg>'):format(x(e.lo), x(e.hi), x(e.value))
end

local PAGE_STYLE = [[
body{font-family:system-ui,sans-serif;margin:2em;color:#222;background:#fff}
table{border-collapse:collapse}td,th{padding:.3em .8em;text-align:left;border-bottom:1px solid #ddd}
td.num{font-variant-numeric:tabular-nums}.axis{stroke:#bbb}.ci{stroke:#246;stroke-width:3}.pt{fill:#c33}
.beyond{font-weight:bold;color:#a40}p.note{color:#555;max-width:50em}
]]

-- One page, everything inline (no network), as the report pages are.
local function write_page(path, title, head, rows, note)
  local out = { "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>", html_escape(title),
                "</title><style>", PAGE_STYLE, "</style></head><body><h1>", html_escape(title), "</h1><p>",
                html_escape(head), "</p><table><tr>" }
  for _, h in ipairs(rows[1]) do out[#out + 1] = "<th>" .. html_escape(h) .. "</th>" end
  out[#out + 1] = "</tr>"
  for i = 2, #rows do
    out[#out + 1] = rows[i].beyond and '<tr class="beyond">' or "<tr>"
    for _, cell in ipairs(rows[i]) do
      out[#out + 1] = type(cell) == "table" and ('<td class="num">' .. cell.html .. "</td>")
                      or ("<td>" .. html_escape(cell) .. "</td>")
    end
    out[#out + 1] = "</tr>"
  end
  out[#out + 1] = "</table><p class=\"note\">" .. html_escape(note) .. "</p></body></html>\n"
  local ok, why = req.write_file(path, table.concat(out))
  if not ok then error(why, 0) end
  io.stderr:write(("meeple %s: wrote %s\n"):format(cmd, path))
end

-- Text cut into lines of at most `width` columns, at spaces.
local function wrap(text, width)
  local lines, line = {}, ""
  for word in text:gmatch("%S+") do
    if #line > 0 and #line + 1 + #word > width then lines[#lines + 1], line = line, word
    else line = #line > 0 and line .. " " .. word or word end
  end
  lines[#lines + 1] = line
  return table.concat(lines, "\n")
end

local NOTE = "Intervals are 95%%, over the %d deals (a deal's games share its cards and seeds, so the deal is "
  .. "the unit); the seating design puts each bot in each seat equally often within a deal, so seat and bot "
  .. "effects do not bias each other. docs/lab.md defines each metric and what its interval assumes."

local MIRROR_NOTE = "Luck is left out: with the same bot in every seat a deal's games replay one game (the bots "
  .. "draw their randomness from the deal's seed and their seat), so the deal would decide it by construction."

-- What a * says (the Holm family's size).
local MARKS = "* marks a change beyond chance: for the %d metrics with per-deal values, a paired t test over the "
  .. "deals both rule sets played, Holm-corrected so that all of them together err at most 5%%; for balance and "
  .. "luck, 95%% intervals that do not meet."

-- ======================================================================== evaluate

local function evaluate_args()
  local a = parse(req.args, { ["--variant"] = true, ["--games"] = true, ["--seed"] = true, ["--jobs"] = true,
                              ["--seating"] = true, ["--html"] = true, ["--max-decisions"] = true, ["--ms"] = true }, { ["--json"] = true },
    function(a, opt, value)
      if opt == "--variant" then a.variant = value else a.html = value end
    end)
  if a.json and a.html then bad("--json or --html, not both (--html writes a file; --json prints)") end
  check_setup(a, nil)
  if a.variant then check_setup(a, a.variant) end
  a.games, a.block = deal_games(a, 200)
  a.seed = match_seed(a)
  return a
end

-- n with thousands separated by commas, as match prints it: 200,000.
local function thousands(n)
  local text = tostring(n):reverse():gsub("(%d%d%d)", "%1,"):reverse()
  return (text:gsub("^,", ""))
end

-- The games the decision cap stopped (match --max-decisions), and the cap: each is a draw shared by
-- all seats, as Ludii counts a game at its move limit.
local function unfinished_of(games)
  local k, cap = 0, nil
  for _, g in ipairs(games) do
    if g.unfinished then k, cap = k + 1, math.max(cap or 0, g.unfinished) end
  end
  return k, cap
end

-- The sentence that says so, or nil when every game ended; `metric`: evaluate's, where drawishness
-- includes them.
local function unfinished_sentence(games, label, metric)
  local k, cap = unfinished_of(games)
  if k == 0 then return nil end
  return ("%s%d game%s of %d unfinished at %s decisions, counted as a draw shared by all seats "
    .. "(%s--max-decisions)."):format(
    label and label .. ": " or "", k, k == 1 and "" or "s", #games, thousands(cap),
    metric and ("drawishness includes %s; "):format(k == 1 and "it" or "them") or "")
end

local function headline(a, first, ndeals)
  local others = {}
  for i = 2, #first.bots do others[#others + 1] = first.bots[i] end
  return ("%s: %s against %s, %d games (%d deals of %d, %s seating), match seed %d (--seed)"):format(
    a.game, first.bots[1], table.concat(others, ", "), a.games, ndeals, a.block, a.seating, a.seed)
end

local function print_single(list)
  print(("%-34s %10s   %s"):format("metric", "value", "95% interval"))
  for _, m in ipairs(list) do
    print(("%-34s %10s   %s"):format(m.label, fmt(m.est.value, m.unit), interval(m.est, m.unit)))
  end
end

-- Both rule sets' metrics side by side, each row's change and whether it is beyond chance: the
-- metrics with per-deal values by a paired test over the deals (both rule sets play the same deals),
-- Holm-corrected across them; balance and luck (no per-deal form) when their intervals do not meet.
-- Returns the rows and the size of the Holm family.
local function side_by_side(base, var)
  local rows = {}
  for _, b in ipairs(base) do
    local v = find(var, b.key)
    local row = { m = b, base = b.est, var = v and v.est }
    if v then
      row.p = paired_p(b.est, v.est)
      if not row.p then row.beyond = apart(b.est, v.est) end
    end
    rows[#rows + 1] = row
  end
  for _, v in ipairs(var) do
    if not find(base, v.key) then rows[#rows + 1] = { m = v, var = v.est } end
  end
  return rows, holm(rows, 0.05)
end

local function cell(e, unit) return e and ("%s %s"):format(fmt(e.value, unit), interval(e, unit)) or "-" end

local function print_pair(rows, variant)
  print(("%-34s %-26s %-26s %s"):format("metric", "base rules", variant, "change"))
  for _, r in ipairs(rows) do
    local change = (r.base and r.var) and ("%+" .. (r.m.unit == "share" and ".3f" or ".2f")):format(
      r.var.value - r.base.value) or ""
    print(("%-34s %-26s %-26s %s%s"):format(r.m.label, cell(r.base, r.m.unit), cell(r.var, r.m.unit), change,
                                           r.beyond and "  *" or ""))
  end
end

-- What changed beyond chance, as a sentence (compare's).
local function changes_sentence(rows, variant)
  local said = {}
  for _, r in ipairs(rows) do
    if r.beyond then
      local what = r.m.key:match("^branching%.(.+)") and "branching factor in phase " .. r.m.key:sub(11) or r.m.label
      said[#said + 1] = ("%s %s from %s to %s"):format(what, r.var.value > r.base.value
        and "rises" or "falls", fmt(r.base.value, r.m.unit), fmt(r.var.value, r.m.unit))
    end
  end
  if #said == 0 then return "Nothing changed beyond chance; more games (--games) would show smaller effects." end
  local list = #said == 1 and said[1] or table.concat(said, "; ", 1, #said - 1) .. (#said == 2 and " and " or "; and ")
    .. said[#said]
  return ("Under %s, %s. No other change is beyond chance (which is not evidence of no change)."):format(variant, list)
end

local function evaluate()
  local a = evaluate_args()
  local n = #a.bots
  local base, first = play_and_measure(a, { games = a.games, seed = a.seed, log = req.tmp .. "/base.jsonl" })
  local first_bot = first.bots[1]
  local base_metrics, ndeals = metrics(base, n, first_bot, a.block)
  local var_metrics, var
  if a.variant then
    var = play_and_measure(a, { games = a.games, seed = a.seed, variant = a.variant,
                                      log = req.tmp .. "/variant.jsonl" })
    var_metrics = metrics(var, n, first_bot, a.block)
  end
  local head, note = headline(a, first, ndeals), NOTE:format(ndeals)
  if a.block >= n and mirror(base) then note = note .. " " .. MIRROR_NOTE end
  if a.json then
    local function map(list)
      local t = {}
      for _, m in ipairs(list) do t[m.key] = estimate_json(m) end
      return t
    end
    local out = { game = a.game, bots = first.bots, games = a.games, deals = ndeals, games_a_deal = a.block,
                  seating = a.seating, match_seed = a.seed, metrics = map(base_metrics) }
    out.unfinished, out.max_decisions = unfinished_of(base)
    if var_metrics then
      out.variant, out.variant_metrics, out.differences = a.variant, map(var_metrics), {}
      out.variant_unfinished, out.variant_max_decisions = unfinished_of(var)
      for _, r in ipairs(side_by_side(base_metrics, var_metrics)) do
        if r.base and r.var then
          out.differences[r.m.key] = { change = r.var.value - r.base.value, beyond_chance = r.beyond or false,
                                       p_value = r.p, test = r.p and "paired t over the deals, Holm" or "intervals apart" }
        end
      end
    end
    print(json.encode(finite(out), { indent = true }))
    return 0
  end
  print(head .. "\n")
  local rows, family
  if var_metrics then
    rows, family = side_by_side(base_metrics, var_metrics)
    print_pair(rows, a.variant)
    print("\n" .. wrap(MARKS:format(family), 100) .. "\n")
    print(wrap(changes_sentence(rows, a.variant), 100))
  else
    print_single(base_metrics)
  end
  note = note:gsub("%%%%", "%%")
  local capped = { unfinished_sentence(base, var and "base rules", true),
                   var and unfinished_sentence(var, a.variant, true) }
  for i = 1, 2 do if capped[i] then print("\n" .. wrap(capped[i], 100)) end end
  print("\n" .. wrap(note, 100))
  if a.html then
    local table_rows
    if var_metrics then
      table_rows = { { "metric", "base rules", "", a.variant, "", "change" } }
      for _, r in ipairs(rows) do
        local change = (r.base and r.var) and ("%+.3f"):format(r.var.value - r.base.value) .. (r.beyond and " *" or "") or ""
        table_rows[#table_rows + 1] = { r.m.label, cell(r.base, r.m.unit), { html = r.base and svg_interval(r.base, r.m.unit) or "" },
                                        cell(r.var, r.m.unit), { html = r.var and svg_interval(r.var, r.m.unit) or "" },
                                        change, beyond = r.beyond }
      end
    else
      table_rows = { { "metric", "value", "95% interval", "", "assumes" } }
      for _, m in ipairs(base_metrics) do
        table_rows[#table_rows + 1] = { m.label, fmt(m.est.value, m.unit), interval(m.est, m.unit),
                                        { html = svg_interval(m.est, m.unit) }, m.assumes }
      end
    end
    write_page(a.html, ("meeple evaluate %s"):format(a.game), head, table_rows, note)
  end
  return 0
end

-- ======================================================================== tune

-- What an objective minimizes (a loss) and the estimate it reads.
local OBJECTIVES = {
  balance = { metric = "balance", loss = function(v) return v end, says = "smallest seat spread" },
  first_player = { metric = "first_player", loss = function(v) return math.abs(v) end,
                   says = "first-player advantage nearest 0" },
  lead_changes = { metric = "lead_changes", loss = function(v) return -v end, says = "most lead changes" },
  decisiveness = { metric = "skill", loss = function(v) return -v end, says = "the first bot's skill highest" },
}

local function objective_of(text)
  local rounds = text:match("^duration:(%d+)$")
  if rounds then
    local target = math.tointeger(tonumber(rounds))
    return { metric = "rounds", loss = function(v) return math.abs(v - target) end,
             says = ("mean rounds nearest %d"):format(target), name = text }
  end
  local o = OBJECTIVES[text]
  if not o then bad("--objective must be balance, first_player, duration:N (N rounds), lead_changes or decisiveness, got '%s'", text) end
  o.name = text
  return o
end

local MAX_CANDIDATES = 64

local function param_of(text)
  local key, lo, hi = text:match("^([%a_][%w_]*)=(%-?%d+)%.%.(%-?%d+)$")
  lo, hi = math.tointeger(tonumber(lo)), math.tointeger(tonumber(hi))
  if not key or not lo or not hi then bad("--param must be KEY=LO..HI with whole numbers (e.g. end_total=10..20), got '%s'", text) end
  if lo > hi then bad("--param %s: %d..%d is empty (LO must not be above HI)", key, lo, hi) end
  if hi - lo + 1 > MAX_CANDIDATES then bad("--param %s: %d values is more than %d candidates", key, hi - lo + 1, MAX_CANDIDATES) end
  return { key = key, lo = lo, hi = hi }
end

-- Every combination of the ranges' values.
local function candidates_of(params)
  local list = { {} }
  for _, p in ipairs(params) do
    local grown = {}
    for _, c in ipairs(list) do
      for v = p.lo, p.hi do
        local copy = {}
        for k, x in pairs(c) do copy[k] = x end
        copy[p.key] = v
        grown[#grown + 1] = copy
      end
    end
    list = grown
    if #list > MAX_CANDIDATES then bad("the ranges make %d candidates or more; at most %d (narrow a range)", #list, MAX_CANDIDATES) end
  end
  return list
end

-- The text of tune's --variant: a file (a name in scripts/variants/ is not looked up here).
local function variant_source(path)
  if not (path:find("/", 1, true) or path:match("%.lua$")) then
    bad("--variant for tune takes a variant file (a path, or a name ending in .lua), got '%s'", path)
  end
  local f = io.open(path, "rb")
  local text = f and f:read(1048577)
  if f then f:close() end
  if not text then bad("cannot read the variant file '%s'", path) end
  return text
end

local function tune_args()
  local a = parse(req.args, { ["--param"] = true, ["--objective"] = true, ["--games"] = true, ["--seed"] = true,
                              ["--jobs"] = true, ["--seating"] = true, ["--out"] = true, ["--variant"] = true,
                              ["--max-decisions"] = true, ["--ms"] = true },
    { ["--json"] = true },
    function(a, opt, value)
      if opt == "--variant" then a.variant = value
      elseif opt == "--param" then
        a.params = a.params or {}
        local p = param_of(value)
        for _, q in ipairs(a.params) do if q.key == p.key then bad("--param %s is given twice", p.key) end end
        a.params[#a.params + 1] = p
      elseif opt == "--objective" then a.objective = objective_of(value)
      else a.out = value end
    end)
  if not a.params then bad("--param KEY=LO..HI names a parameter to tune (meeple rules %s lists them)", a.game) end
  if not a.objective then bad("--objective says what to tune for: balance, first_player, duration:N, lead_changes or decisiveness") end
  if a.objective.metric == "skill" and #a.bots < 2 then bad("--objective decisiveness needs two bots or more") end
  a.candidates = candidates_of(a.params)
  check_setup(a, a.variant)
  if a.variant then a.variant_source = variant_source(a.variant) end
  for _, c in ipairs(a.candidates) do check_setup(a, a.variant, c) end
  a.games, a.block = deal_games(a, 20)
  a.seed = match_seed(a)
  a.out = a.out or (a.game .. "-tuned.lua")
  return a
end

local function params_text(c, params, sep)
  local parts = {}
  for _, p in ipairs(params) do parts[#parts + 1] = ("%s%s%d"):format(p.key, sep or "=", c[p.key]) end
  return table.concat(parts, sep and ", " or " ")
end

-- The variant file that sets a candidate's parameters: over --variant's own (its text, run as a
-- function, gives its table; the candidate's values replace its params), or the base rules'.
local function variant_text(a, c, comment)
  if a.variant_source then
    local lines = { "-- " .. comment, "local variant = (function(...)", a.variant_source, "end)()",
                    "variant.params = variant.params or {}" }
    for _, p in ipairs(a.params) do lines[#lines + 1] = ("variant.params.%s = %d"):format(p.key, c[p.key]) end
    lines[#lines + 1] = ("variant.name = \"tuned\"\nvariant.description = %q\nreturn variant\n"):format(
      ("tuned for %s: %s"):format(a.objective.name, params_text(c, a.params)))
    return table.concat(lines, "\n")
  end
  return ("-- %s\nreturn {\n  game = %q,\n  name = \"tuned\",\n  description = %q,\n  params = { %s },\n}\n"):format(
    comment, a.game, ("tuned for %s: %s"):format(a.objective.name, params_text(c, a.params)),
    params_text(c, a.params, " = "))
end

-- One round of successive halving: every survivor plays `games` more games on the round's seed (the
-- same deals for all, so they are compared on equal cards), and is measured over all its games.
local function play_round(a, round, survivors, games, seed)
  for _, c in ipairs(survivors) do
    local file = ("%s/candidate-%d.lua"):format(req.tmp, c.id)
    local f = assert(io.open(file, "w"))
    f:write(variant_text(a, c.values, "a candidate of meeple tune"))
    f:close()
    local played, first = play_and_measure(a, { games = games, seed = seed, variant = file, quiet = true,
                                         label = ("round %d, %s"):format(round, params_text(c.values, a.params)),
                                         log = ("%s/candidate-%d.jsonl"):format(req.tmp, c.id) })
    os.remove(file)
    a.first_bot = first.bots[1] -- the name the match gives the first bot (its file's own name)
    for _, g in ipairs(played) do
      g.round = round -- each round is a match of its own: its deal 1 is not an earlier round's
      c.games[#c.games + 1] = g
    end
    local list = metrics(c.games, #a.bots, a.first_bot, a.block)
    c.est, c.fp_est = find(list, a.objective.metric), find(list, "first_player")
    c.loss = c.est and a.objective.loss(c.est.est.value) or math.huge
  end
  table.sort(survivors, function(x, y) if x.loss ~= y.loss then return x.loss < y.loss end return x.id < y.id end)
end

local function tune()
  local a = tune_args()
  local survivors, rounds = {}, {}
  for i, values in ipairs(a.candidates) do survivors[i] = { id = i, values = values, games = {} } end
  local everyone = table.move(survivors, 1, #survivors, 1, {})
  local games, round = a.games, 0
  if not a.json then
    print(("%s: tuning %s for %s (%s), %d candidates, match seed %d (--seed)"):format(a.game,
      params_text(a.candidates[1], a.params):gsub("=%-?%d+", ""), a.objective.name, a.objective.says,
      #a.candidates, a.seed))
  end
  repeat
    round = round + 1
    local seed = (a.seed + round - 1) % (SEED_MAX + 1)
    io.stderr:write(("meeple tune: round %d, %d candidates, %d games each...\n"):format(round, #survivors, games))
    play_round(a, round, survivors, games, seed)
    local keep = #survivors > 1 and math.ceil(#survivors / 2) or 1
    local evidence = { round = round, seed = seed, games = games, candidates = {} }
    if not a.json then print(("\nround %d: %d games each on seed %d"):format(round, games, seed)) end
    for rank, c in ipairs(survivors) do
      local e = c.est and c.est.est
      evidence.candidates[rank] = { params = c.values, games = #c.games, deals = e and e.n, estimate = e and e.value,
                                    ci_low = e and e.lo, ci_high = e and e.hi, kept = rank <= keep }
      if not a.json then
        print(("  %-28s %5d games   %s %s   %s"):format(params_text(c.values, a.params), #c.games,
          c.est and c.est.label:gsub("^%s+", "") or a.objective.metric, c.est and cell(e, c.est.unit) or "-",
          rank <= keep and (keep == 1 and "best" or "kept") or "dropped"))
      end
    end
    rounds[round] = evidence
    for i = #survivors, keep + 1, -1 do survivors[i] = nil end
    games = games * 2
  until #survivors == 1
  local chosen, result, confirmation = survivors[1], survivors[1], nil
  if #a.candidates > 1 then
    -- The halving chose the candidate whose estimate came out best, so that estimate is biased in
    -- its favour (the winner's curse). A fresh run on a new seed, the last round's games, is not.
    round = round + 1
    local seed = (a.seed + round - 1) % (SEED_MAX + 1)
    games = games // 2
    io.stderr:write(("meeple tune: confirming %s, %d games on a new seed...\n"):format(
      params_text(chosen.values, a.params), games))
    result = { id = chosen.id, values = chosen.values, games = {} }
    play_round(a, round, { result }, games, seed)
    confirmation = { seed = seed, games = games }
    if not a.json then
      print("\n" .. wrap(("confirmation: %s on %d fresh games (seed %d). The halving picked it for its estimate,"
             .. " which is therefore biased in its favour (the winner's curse); the result below is this run's"
             .. " alone."):format(params_text(chosen.values, a.params), games, seed), 100))
    end
  end
  local all = {}
  for _, c in ipairs(everyone) do for _, g in ipairs(c.games) do all[#all + 1] = g end end
  if confirmation then for _, g in ipairs(result.games) do all[#all + 1] = g end end
  local capped, cap = unfinished_of(all)
  local e, fp = result.est and result.est.est, result.fp_est and result.fp_est.est
  local summary = ("%s over %d %sgames: %s %s"):format(params_text(result.values, a.params), #result.games,
    confirmation and "confirmation " or "", a.objective.metric, e and cell(e, result.est.unit) or "-")
  local ok, why = req.write_file(a.out, variant_text(a, result.values, ("meeple tune %s %s: %s"):format(
    a.game, table.concat(a.bots, " "), summary)))
  if not ok then error(why, 0) end
  if a.json then
    print(json.encode(finite({ game = a.game, bots = a.bots, objective = a.objective.name, match_seed = a.seed,
      best = { params = result.values, games = #result.games, deals = e and e.n, estimate = e and e.value,
               ci_low = e and e.lo, ci_high = e and e.hi, halving_games = #chosen.games,
               first_player = fp and { value = fp.value, ci_low = fp.lo, ci_high = fp.hi } },
      confirmation = confirmation, rounds = rounds, variant_file = a.out, unfinished = capped,
      max_decisions = cap }), { indent = true }))
  else
    print(("\nbest: %s"):format(summary))
    if fp and a.objective.metric ~= "first_player" then
      print(("      first-player advantage %s"):format(cell(fp, "share")))
    end
    local said = unfinished_sentence(all)
    if said then print(wrap(said, 100)) end
    print(("wrote %s: play it with --variant %s"):format(a.out, a.out))
  end
  return 0
end

-- ======================================================================== main

local ok, result = pcall(cmd == "tune" and tune or evaluate)
-- What a failure left in the folder (the C side removes the folder itself).
for _, name in ipairs({ "base.jsonl", "variant.jsonl" }) do os.remove(req.tmp .. "/" .. name) end
for id = 1, MAX_CANDIDATES do
  os.remove(("%s/candidate-%d.lua"):format(req.tmp, id))
  os.remove(("%s/candidate-%d.jsonl"):format(req.tmp, id))
end
if ok then return result end
if type(result) == "table" then return result end
error(result, 0)
