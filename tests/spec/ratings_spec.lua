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
    local r = fit({ "strong", "middle", "weak" }, {
      { { "strong", "middle" }, { 1, 0 }, times = 30 }, { { "middle", "strong" }, { 1, 0 }, times = 10 },
      { { "middle", "weak" }, { 1, 0 }, times = 30 }, { { "weak", "middle" }, { 1, 0 }, times = 10 },
      { { "strong", "weak" }, { 1, 0 }, times = 35 }, { { "weak", "strong" }, { 1, 0 }, times = 5 },
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
    local even = fit({ "a", "b" }, { { { "a", "b" }, { 1, 0 }, times = 10 }, { { "b", "a" }, { 1, 0 }, times = 10 } })
    local more = fit({ "a", "b" }, { { { "a", "b" }, { 1, 0 }, times = 400 }, { { "b", "a" }, { 1, 0 }, times = 400 } })
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
