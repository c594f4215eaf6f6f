-- ratings.lua — one rating per bot from many multi-player games (`meeple report`).
--
-- The model is Bradley–Terry over the pairs of each game: every two seats held by different bots are
-- one comparison, won by the seat ranked higher (a winner over a non-winner, else the higher score;
-- equal ranks are half a win each). A game of n players gives n(n-1)/2 pairs, so each pair weighs
-- 1/(n-1): a bot's evidence grows by one game's worth per game, whatever the table's size.
-- P(a beats b) = 1 / (1 + exp(r_b - r_a)). A weak normal prior (sd PRIOR_SD on that scale) keeps a bot
-- that never lost finite; Newton's method finds the maximum, and the inverse of the negative Hessian
-- there gives each rating's uncertainty.
-- Ratings are reported on the Elo scale: 400·log10 odds, shifted so their mean is 1500. A difference
-- of 400 points means 10:1 odds in a two-player game; 0 points, even odds.
-- Seats are fitted too: P(a in seat i beats b in seat j) = 1 / (1 + exp(r_b + t_j - r_a - t_i)), with
-- seat 1's t at 0. A seat's advantage is then not credited to the bot that happened to sit there more
-- often (a match played under an unbalanced design, logs of different matches pooled); under a balanced
-- design every bot sits everywhere alike, and the seat terms only take out the noise they explain.

local M = {}

local PRIOR_SD = 2.0          -- on the log-odds scale: about 350 Elo points
local ELO = 400 / math.log(10)
local MAX_STEPS = 100

-- Solves A x = b for a symmetric positive definite A (Cholesky); returns x, or nil when A is not.
local function cholesky(a, n)
  local l = {}
  for i = 1, n do
    l[i] = {}
    for j = 1, i do
      local sum = a[i][j]
      for k = 1, j - 1 do sum = sum - l[i][k] * l[j][k] end
      if i == j then
        if sum <= 0 then return nil end
        l[i][i] = math.sqrt(sum)
      else
        l[i][j] = sum / l[j][j]
      end
    end
  end
  return l
end

local function solve(l, n, b)
  local y = {}
  for i = 1, n do
    local sum = b[i]
    for k = 1, i - 1 do sum = sum - l[i][k] * y[k] end
    y[i] = sum / l[i][i]
  end
  local x = {}
  for i = n, 1, -1 do
    local sum = y[i]
    for k = i + 1, n do sum = sum - l[k][i] * x[k] end
    x[i] = sum / l[i][i]
  end
  return x
end

local function logistic(d) return 1 / (1 + math.exp(-d)) end

-- The comparisons of one game: `bots` by seat and `rank` by seat (higher is better); appends
-- {a, b, score of a, weight, seat of a, seat of b} to `out`, with a and b indexes into `index`
-- (name -> number).
function M.pairs(bots, rank, index, out)
  local n = #bots
  if n < 2 then return end
  local w = 1 / (n - 1)
  for i = 1, n - 1 do
    for j = i + 1, n do
      local a, b = index[bots[i]], index[bots[j]]
      if a ~= b then
        local s = rank[i] > rank[j] and 1 or rank[i] < rank[j] and 0 or 0.5
        out[#out + 1] = { a, b, s, w, i, j }
      end
    end
  end
end

-- Comparisons between the same two bots in the same two seats add up: one term for each, however
-- many games. Returns the merged terms and the number of seats seen.
local function merge(n, comparisons)
  local merged, by_key, seats = {}, {}, 1
  for _, c in ipairs(comparisons) do
    local a, b, s, w, i, j = c[1], c[2], c[3], c[4], c[5] or 1, c[6] or 1
    if a > b then a, b, s, i, j = b, a, 1 - s, j, i end
    seats = math.max(seats, i, j)
    local key = ((a * (n + 1) + b) * 64 + i) * 64 + j
    local m = by_key[key]
    if not m then
      m = { a, b, 0, 0, i, j }
      by_key[key] = m
      merged[#merged + 1] = m
    end
    m[3] = m[3] + w * s
    m[4] = m[4] + w
  end
  return merged, seats
end

-- Fits ratings for `names` (a list) from `comparisons` (as M.pairs makes them). Returns a list by
-- name's position of {rating = Elo-scale number, sd = its standard error on the same scale}, and in
-- its field `seats` one {effect, sd} per seat: the seat's advantage over seat 1 in Elo points.
function M.fit(names, comparisons)
  local n = #names
  local merged, seats = merge(n, comparisons)
  -- The unknowns: the n ratings, then seats 2.. (seat 1 is the reference, at 0).
  local k = n + seats - 1
  local function seat_var(seat) return seat > 1 and n + seat - 1 or nil end
  local r = {}
  for i = 1, k do r[i] = 0 end
  local info
  for _ = 1, MAX_STEPS do
    local g, h = {}, {}
    for i = 1, k do
      g[i] = -r[i] / PRIOR_SD ^ 2
      h[i] = {}
      for j = 1, k do h[i][j] = i == j and 1 / PRIOR_SD ^ 2 or 0 end
    end
    for _, m in ipairs(merged) do
      local a, b, won, w, si, sj = m[1], m[2], m[3], m[4], seat_var(m[5]), seat_var(m[6])
      -- d = r_a - r_b + t_i - t_j: the term's gradient is x (won - w p), its curvature q x x'.
      local x = { [a] = 1 }
      x[b] = (x[b] or 0) - 1
      if si then x[si] = (x[si] or 0) + 1 end
      if sj then x[sj] = (x[sj] or 0) - 1 end
      local d = 0
      for v, c in pairs(x) do d = d + c * r[v] end
      local p = logistic(d)
      local q = w * p * (1 - p)
      for u, cu in pairs(x) do
        g[u] = g[u] + cu * (won - w * p)
        for v, cv in pairs(x) do h[u][v] = h[u][v] + q * cu * cv end
      end
    end
    info = cholesky(h, k) -- h is the negative Hessian: positive definite thanks to the prior
    local step = solve(info, k, g)
    local biggest = 0
    for i = 1, k do
      r[i] = r[i] + step[i]
      biggest = math.max(biggest, math.abs(step[i]))
    end
    if biggest < 1e-10 then break end
  end
  -- A rating is read against the mean of all: its uncertainty is that of r_i - mean(r), v' C v with
  -- v = e_i - 1/n and C the inverse of the information.
  local mean = 0
  for i = 1, n do mean = mean + r[i] / n end
  local function spread(v)
    local cv = solve(info, k, v)
    local var = 0
    for j = 1, k do var = var + v[j] * cv[j] end
    return ELO * math.sqrt(math.max(var, 0))
  end
  local out = { seats = { { effect = 0, sd = 0 } } }
  for i = 1, n do
    local v = {}
    for j = 1, k do v[j] = j <= n and ((i == j and 1 or 0) - 1 / n) or 0 end
    out[i] = { rating = 1500 + ELO * (r[i] - mean), sd = spread(v) }
  end
  for seat = 2, seats do
    local v = {}
    for j = 1, k do v[j] = j == seat_var(seat) and 1 or 0 end
    out.seats[seat] = { effect = ELO * r[seat_var(seat)], sd = spread(v) }
  end
  return out
end

return M
