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
-- {a, b, score of a, weight} to `out`, with a and b indexes into `index` (name -> number).
function M.pairs(bots, rank, index, out)
  local n = #bots
  if n < 2 then return end
  local w = 1 / (n - 1)
  for i = 1, n - 1 do
    for j = i + 1, n do
      local a, b = index[bots[i]], index[bots[j]]
      if a ~= b then
        local s = rank[i] > rank[j] and 1 or rank[i] < rank[j] and 0 or 0.5
        out[#out + 1] = { a, b, s, w }
      end
    end
  end
end

-- Fits ratings for `names` (a list) from `comparisons` (as M.pairs makes them). Returns a list by
-- name's position of {rating = Elo-scale number, sd = its standard error on the same scale}.
function M.fit(names, comparisons)
  local n = #names
  -- Comparisons between the same two bots add up: one term per pair of bots, however many games.
  local merged, by_pair = {}, {}
  for _, c in ipairs(comparisons) do
    local a, b, s, w = c[1], c[2], c[3], c[4]
    if a > b then a, b, s = b, a, 1 - s end
    local key = a * (n + 1) + b
    local m = by_pair[key]
    if not m then
      m = { a, b, 0, 0 }
      by_pair[key] = m
      merged[#merged + 1] = m
    end
    m[3] = m[3] + w * s
    m[4] = m[4] + w
  end
  local r = {}
  for i = 1, n do r[i] = 0 end
  local info
  for _ = 1, MAX_STEPS do
    local g, h = {}, {}
    for i = 1, n do
      g[i] = -r[i] / PRIOR_SD ^ 2
      h[i] = {}
      for j = 1, n do h[i][j] = i == j and 1 / PRIOR_SD ^ 2 or 0 end
    end
    for _, m in ipairs(merged) do
      local a, b, won, w = m[1], m[2], m[3], m[4]
      local p = logistic(r[a] - r[b])
      g[a] = g[a] + won - w * p
      g[b] = g[b] - won + w * p
      local q = w * p * (1 - p)
      h[a][a] = h[a][a] + q
      h[b][b] = h[b][b] + q
      h[a][b] = h[a][b] - q
      h[b][a] = h[b][a] - q
    end
    info = cholesky(h, n) -- h is the negative Hessian: positive definite thanks to the prior
    local step = solve(info, n, g)
    local biggest = 0
    for i = 1, n do
      r[i] = r[i] + step[i]
      biggest = math.max(biggest, math.abs(step[i]))
    end
    if biggest < 1e-10 then break end
  end
  -- A rating is read against the mean of all: its uncertainty is that of r_i - mean(r), v' C v with
  -- v = e_i - 1/n and C the inverse of the information.
  local mean = 0
  for i = 1, n do mean = mean + r[i] / n end
  local out = {}
  for i = 1, n do
    local v = {}
    for j = 1, n do v[j] = (i == j and 1 or 0) - 1 / n end
    local cv = solve(info, n, v)
    local var = 0
    for j = 1, n do var = var + v[j] * cv[j] end
    out[i] = { rating = 1500 + ELO * (r[i] - mean), sd = ELO * math.sqrt(math.max(var, 0)) }
  end
  return out
end

return M
