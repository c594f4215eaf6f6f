-- ratings_spec.lua — the rating fit behind `meeple report` (scripts/ratings.lua): known results give
-- the known order, symmetric results give equal ratings, and every rating stays finite.
local util = require "spec_util"
local ratings = dofile(util.root .. "/scripts/ratings.lua")

-- The ratings by name after `games`, each {bots by seat, ranks by seat} repeated `times`.
local function fit(names, games)
  local index, comparisons = {}, {}
  for i, name in ipairs(names) do index[name] = i end
  for _, g in ipairs(games) do
    for _ = 1, g.times or 1 do ratings.pairs(g[1], g[2], index, comparisons) end
  end
  local out = {}
  for i, r in ipairs(ratings.fit(names, comparisons)) do out[names[i]] = r end
  return out
end

local function close(a, b, tolerance) return math.abs(a - b) <= (tolerance or 1e-6) end

describe("ratings", function()
  it("a bot that wins more is rated higher, in the order of the results", function()
    -- Each result from both seats alike, so the seat terms have nothing to explain.
    local r = fit({ "strong", "middle", "weak" }, {
      { { "strong", "middle" }, { 1, 0 }, times = 15 }, { { "middle", "strong" }, { 0, 1 }, times = 15 },
      { { "middle", "strong" }, { 1, 0 }, times = 5 }, { { "strong", "middle" }, { 0, 1 }, times = 5 },
      { { "middle", "weak" }, { 1, 0 }, times = 15 }, { { "weak", "middle" }, { 0, 1 }, times = 15 },
      { { "weak", "middle" }, { 1, 0 }, times = 5 }, { { "middle", "weak" }, { 0, 1 }, times = 5 },
      { { "strong", "weak" }, { 1, 0 }, times = 17 }, { { "weak", "strong" }, { 0, 1 }, times = 18 },
      { { "weak", "strong" }, { 1, 0 }, times = 3 }, { { "strong", "weak" }, { 0, 1 }, times = 2 },
    })
    assert.is_true(r.strong.rating > r.middle.rating and r.middle.rating > r.weak.rating)
    -- 3:1 odds between neighbours is about 190 points on the Elo scale
    assert.is_true(r.strong.rating - r.middle.rating > 120 and r.strong.rating - r.middle.rating < 260,
      r.strong.rating - r.middle.rating)
  end)

  it("symmetric results give equal ratings at 1500, whatever the seat order", function()
    local r = fit({ "a", "b" }, {
      { { "a", "b" }, { 1, 0 }, times = 7 }, { { "b", "a" }, { 1, 0 }, times = 7 },
    })
    assert.is_true(close(r.a.rating, 1500) and close(r.b.rating, 1500), r.a.rating .. " " .. r.b.rating)
    assert.is_true(close(r.a.sd, r.b.sd))
    local three = fit({ "x", "y", "z" }, {
      { { "x", "y", "z" }, { 2, 1, 0 } }, { { "y", "z", "x" }, { 2, 1, 0 } }, { { "z", "x", "y" }, { 2, 1, 0 } },
    })
    assert.is_true(close(three.x.rating, three.y.rating) and close(three.y.rating, three.z.rating))
  end)

  it("draws count half a win each", function()
    local r = fit({ "a", "b" }, { { { "a", "b" }, { 1, 1 }, times = 20 } })
    assert.is_true(close(r.a.rating, r.b.rating))
  end)

  it("an undefeated bot stays finite, and more games make a rating surer", function()
    local few = fit({ "a", "b" }, { { { "a", "b" }, { 1, 0 }, times = 5 } })
    local many = fit({ "a", "b" }, { { { "a", "b" }, { 1, 0 }, times = 5 }, { { "b", "a" }, { 1, 0 }, times = 1 },
      { { "a", "b" }, { 1, 0 }, times = 400 } })
    for _, r in pairs { few.a, few.b, many.a, many.b } do
      assert.is_true(r.rating == r.rating and math.abs(r.rating) < 1e5 and r.sd > 0 and r.sd < 1e5)
    end
    assert.is_true(few.a.rating > few.b.rating)
    -- Even results, each from both seats alike.
    local function evenly(times)
      return fit({ "a", "b" }, { { { "a", "b" }, { 1, 0 }, times = times }, { { "a", "b" }, { 0, 1 }, times = times },
        { { "b", "a" }, { 1, 0 }, times = times }, { { "b", "a" }, { 0, 1 }, times = times } })
    end
    local even, more = evenly(5), evenly(200)
    assert.is_true(more.a.sd < even.a.sd / 3, more.a.sd .. " vs " .. even.a.sd)
  end)

  it("bots that never met are rated through the bots they both met", function()
    -- a beats c often, c beats b often; a and b never meet: a > c > b
    local r = fit({ "a", "b", "c" }, {
      { { "a", "c" }, { 1, 0 }, times = 20 }, { { "c", "a" }, { 1, 0 }, times = 5 },
      { { "c", "b" }, { 1, 0 }, times = 20 }, { { "b", "c" }, { 1, 0 }, times = 5 },
    })
    assert.is_true(r.a.rating > r.c.rating and r.c.rating > r.b.rating)
  end)

  it("a multi-player game counts as one game's evidence per player", function()
    -- four players, the same bot ranked first every time; the others tied
    local r = fit({ "w", "p", "q", "s" }, { { { "w", "p", "q", "s" }, { 1, 0, 0, 0 }, times = 12 } })
    assert.is_true(r.w.rating > r.p.rating)
    assert.is_true(close(r.p.rating, r.q.rating) and close(r.q.rating, r.s.rating))
    local mean = (r.w.rating + r.p.rating + r.q.rating + r.s.rating) / 4
    assert.is_true(close(mean, 1500))
  end)
end)

describe("ratings with a term per seat", function()
  it("credit a seat's advantage to the seat, not to the bot that sat there more often", function()
    -- Seat 1 wins every game; a sat there three times as often as b. Equal bots, a strong seat.
    local index, comparisons = { a = 1, b = 2 }, {}
    for _ = 1, 30 do ratings.pairs({ "a", "b" }, { 1, 0 }, index, comparisons) end
    for _ = 1, 10 do ratings.pairs({ "b", "a" }, { 1, 0 }, index, comparisons) end
    local r = ratings.fit({ "a", "b" }, comparisons)
    assert.is_true(math.abs(r[1].rating - r[2].rating) < r[1].sd, r[1].rating .. " against " .. r[2].rating)
    assert.is_true(r.seats[2].effect < -2 * r.seats[2].sd, r.seats[2].effect .. " ± " .. r.seats[2].sd)
    assert.equal(0, r.seats[1].effect)
  end)

  it("find no seat effect where seats win alike", function()
    local index, comparisons = { a = 1, b = 2 }, {}
    for _ = 1, 20 do
      ratings.pairs({ "a", "b" }, { 1, 0 }, index, comparisons)
      ratings.pairs({ "a", "b" }, { 0, 1 }, index, comparisons)
      ratings.pairs({ "b", "a" }, { 1, 0 }, index, comparisons)
      ratings.pairs({ "b", "a" }, { 0, 1 }, index, comparisons)
    end
    local r = ratings.fit({ "a", "b" }, comparisons)
    assert.is_true(math.abs(r.seats[2].effect) < 1e-6)
    assert.is_true(math.abs(r[1].rating - 1500) < 1e-6)
  end)
end)
