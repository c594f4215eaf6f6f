-- replay_spec.lua — `meeple replay` beyond stepping forward: a seat's view (--seat), going back at a
-- terminal, the game as one HTML page (--html), and logs that are not logs.
local util = require "spec_util"
local meeple, quote, write, read = util.run, util.quote, util.write, util.read

describe("meeple replay", function()
  local log
  setup(function()
    log = os.tmpname()
    local out, code = meeple("match babel greedy_babel random --games 2 --seed 7 --log " .. quote(log))
    assert.are.equal(0, code, out)
  end)
  teardown(function() os.remove(log) end)

  it("--seat P prints the boards as that seat saw them: the other hand is a count", function()
    local god = meeple("replay " .. quote(log) .. " </dev/null")
    local seat1 = meeple("replay " .. quote(log) .. " --seat 1 </dev/null")
    assert.truthy(seat1:find("as P1 (greedy_babel) saw it", 1, true), seat1)
    assert.truthy(seat1:find("\nP2 [^\n]*hand %d+ cards"), seat1)
    assert.is_nil(god:find("\nP2 [^\n]*hand %d+ cards"), god)
    assert.truthy(seat1:find("\nP1 [^\n]*hand %d+: %a"), seat1)
    local out, code = meeple("replay " .. quote(log) .. " --seat 3", true)
    assert.are.equal(2, code)
    assert.truthy(out:find("meeple replay: --seat 3: game 1 has 2 seats\nusage: meeple replay", 1, true) == 1, out)
  end)

  it("shows bean fields with their beanometers, at the terminal and in the page's data", function()
    for _, game in ipairs { "bohnanza", "rabohnzel" } do
      local beans = os.tmpname()
      local out, code = meeple("match " .. game .. " random random random --games 1 --seating random --seed 3 --log " ..
        quote(beans))
      assert.are.equal(0, code, out)
      local board = meeple("replay " .. quote(beans) .. " </dev/null")
      assert.truthy(board:find("\n    field %d  %a+[^\n]*  %[[%d: ]+%][^ ]*  pays %d now\n"), game)
      assert.equal(game == "rabohnzel", board:find("\n† provisional beanometer", 1, true) ~= nil, game)
      local page = beans .. ".html"
      out, code = meeple("replay " .. quote(beans) .. " --html " .. quote(page))
      assert.are.equal(0, code, out)
      local html = read(page)
      -- the meters with the terminal's text of them, and the terminal's colours (render.lua's)
      local meter = game == "rabohnzel" and '"sword":{"meter":[4,6,8,10],"provisional":true,"text":"[4:1 6:2 8:3 10:4]"}'
        or '"garden":{"meter":[0,2,3,0],"provisional":false,"text":"[2:2 3:3]"}'
      assert.truthy(html:find(meter, 1, true), game .. ": the page carries the meters it draws")
      local colour = game == "rabohnzel" and '"cape":"red"' or '"chili":"red"'
      assert.truthy(html:find('"colours":{', 1, true) and html:find(colour, 1, true), game .. ": the page's colours")
      -- what a harvest pays is the table's own figure, in every step's table
      assert.truthy(html:find('"harvest":[{"pays":', 1, true), game .. ": the tables carry each field's payout")
      os.remove(beans)
      os.remove(page)
    end
  end)

  it("goes back a decision with b at a terminal", function()
    local out = util.sh("printf '\\n\\nb\\nq\\n' | script -qec " ..
      quote(quote(util.exe) .. " replay " .. quote(log)) .. " /dev/null")
    local first = out:match("== decision 1: ([^\r\n]+)")
    assert.truthy(out:find("== decision 2:", 1, true), out)
    assert.truthy(out:find("== back to decision 1: " .. first:gsub("%p", "%%%0")), out)
  end)

  it("--html writes one self-contained page with the game's data, and says its size", function()
    local page = os.tmpname() .. ".html"
    local out, code = meeple("replay " .. quote(log) .. " --game 2 --html " .. quote(page))
    assert.are.equal(0, code, out)
    assert.truthy(out:find("^meeple replay: wrote [^\n]+ %(%d+ decisions, %d+ KiB%)\n$"), out)
    local html = read(page)
    os.remove(page)
    assert.truthy(html:find("<!doctype html>", 1, true))
    assert.truthy(html:find('"seats":["random","greedy_babel"]', 1, true), "the data names the seats")
    assert.truthy(html:find("MEEPLE_DRAW", 1, true), "the drawing functions are inline")
    for _, outside in ipairs { "<link", "src=", "http://", "https://", "import(" } do
      assert.is_nil(html:find(outside, 1, true), outside)
    end
    out, code = meeple("replay " .. quote(log) .. " --html " .. quote(page) .. " --seat 1", true)
    assert.are.equal(2, code, out)
    out, code = meeple("replay " .. quote(log) .. " --html /nonexistent/dir/x.html", true)
    assert.are.equal(1, code, out)
    assert.truthy(out:find("^meeple replay: [^\n]*cannot write"), out)
  end)

  it("stores each step as what changed: a long game's page stays small", function()
    local long = os.tmpname()
    local out, code = meeple("match bohnanza random random random random --games 1 --seating random --seed 2 --log " .. quote(long))
    assert.are.equal(0, code, out)
    local page = os.tmpname() .. ".html"
    out, code = meeple("replay " .. quote(long) .. " --html " .. quote(page))
    assert.are.equal(0, code, out)
    local decisions, kib = out:match("%((%d+) decisions, (%d+) KiB%)")
    assert.truthy(tonumber(decisions) > 800, out)
    -- five perspectives a step in full would be megabytes; the changes are well under one
    assert.truthy(tonumber(kib) < 1024, out)
    os.remove(long)
    os.remove(page)
  end)

  it("says in one line what is wrong with a folder, an empty file or a file that is not JSON", function()
    local empty, garbage = write(""), write("not json at all\n")
    local cases = {
      { "replay /tmp", 2, "^meeple replay: '/tmp' is a folder" },
      { "replay " .. quote(empty), 1, "^meeple replay: the log '[^']+' is empty\n$" },
      { "replay " .. quote(garbage), 1, "^meeple replay: [^\n]+, game 1: not JSON [^\n]+\n$" },
      { "replay " .. quote(garbage) .. " --html /tmp/x.html", 1, "^meeple replay: [^\n]+ not JSON" },
    }
    for _, c in ipairs(cases) do
      local out, code = meeple(c[1] .. " </dev/null", true)
      assert.are.equal(c[2], code, c[1] .. ": " .. out)
      assert.truthy(out:find(c[3]), c[1] .. ": " .. out)
    end
    os.remove(empty)
    os.remove(garbage)
  end)

  it("escapes a name from the log wherever the terminal replay prints it", function()
    local file = write('{"index":1,"game":"babel","seed":1,"variant":null,"seats":["a\\u001b[2Jb","c"],'
      .. '"scores":[0,0],"winners":[1],"forfeits":[],"actions":["travel medes"]}\n')
    local out, code = meeple("replay " .. quote(file) .. " </dev/null")
    os.remove(file)
    assert.are.equal(0, code, out)
    assert.truthy(out:find("== decision 1: P1 (a\\x1b[2Jb) travel medes", 1, true), out)
    assert.is_nil(out:find("\27", 1, true), out)
  end)

  it("refuses a record that lacks what a replay needs before anything runs", function()
    for _, record in ipairs {
      '{"game":"babel","seed":1,"seats":["a","b"]}',
      '{"game":"babel","seed":-4,"seats":["a","b"],"actions":[]}',
      '{"game":"babel","seed":1,"seats":["a","b"],"actions":[1,2]}',
      '{"game":"babel","seed":1,"seats":[],"actions":[]}',
      '{"game":"babel","seed":1,"seats":["a","b"],"actions":[],"winners":[3]}',
      '{"game":"babel","seed":1,"seats":["a","b"],"actions":[],"scores":[1]}',
      '[1,2,3]',
    } do
      local file = write(record .. "\n")
      local out, code = meeple("replay " .. quote(file) .. " </dev/null", true)
      os.remove(file)
      assert.are.equal(1, code, record .. ": " .. out)
      assert.are.equal(1, #util.lines(out), out)
      assert.truthy(out:find("^meeple replay: [^\n]+, game 1: "), out)
    end
  end)
end)
