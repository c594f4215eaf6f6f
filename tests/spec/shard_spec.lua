-- shard_spec.lua — a match cut into shards (match --shard K/N) and joined again (meeple merge): the
-- same log and table as one machine; merge refusing logs that are not one whole match, in one line;
-- match --json, --jobs 0, a match of forfeits, and SIGINT; the log checked against docs/log.schema.json.
local util = require "spec_util"
local exe, root, quote, meeple, lines, sh = util.exe, util.root, util.quote, util.run, util.lines, util.sh
local read, write, untimed = util.read_bytes, util.write_bytes, util.untimed

-- The results table without what is measured or local (decision times, bot files, at its end).
local function results(out) return (out:match("^(.-)\n[^\n]*decision time")) end

local match_args = "match babel greedy_babel random --games 10 --seed 7"

-- Plays the match whole and as `n` shards; returns the logs' names (whole first) and the outputs.
local function whole_and_shards(n)
  local whole = os.tmpname()
  local out = meeple(match_args .. " --log " .. quote(whole), true)
  local logs, outs = {}, {}
  for k = 1, n do
    logs[k] = os.tmpname()
    local o, code = meeple(match_args .. " --shard " .. k .. "/" .. n .. " --log " .. quote(logs[k]))
    assert.equal(0, code, o)
    outs[k] = o
  end
  return whole, logs, outs
end

local function remove_all(list) for _, name in ipairs(list) do os.remove(name) end end

local function quoted(list)
  local words = {}
  for i, name in ipairs(list) do words[i] = quote(name) end
  return table.concat(words, " ")
end

describe("meeple match --shard and meeple merge", function()
  local whole, logs, outs
  setup(function() whole, logs, outs = whole_and_shards(3) end)
  teardown(function() remove_all(logs); os.remove(whole) end)

  it("a shard plays the whole deals d with (d-1) mod N = K-1, logged with their global index", function()
    for k = 1, 3 do
      local index = {}
      for line in read(logs[k]):gmatch("[^\n]+") do index[#index + 1] = tonumber(line:match('"index":(%d+)')) end
      local want = {} -- a deal is two games here (balanced seating, two players)
      for d = k, 5, 3 do want[#want + 1] = 2 * d - 1; want[#want + 1] = 2 * d end
      assert.same(want, index)
      assert.truthy(outs[k]:find("Shard " .. k .. " of 3", 1, true), outs[k])
    end
  end)

  it("merged, 3 shards give the whole match's log record for record and its table", function()
    local merged, discarded = os.tmpname(), os.tmpname()
    local out_whole = meeple(match_args .. " --log " .. quote(discarded)) -- logged as the shards are (a log is a regular file)
    os.remove(discarded)
    local out, code = meeple("merge " .. quoted { logs[3], logs[1], logs[2] } .. " --log " .. quote(merged))
    local text = read(merged)
    os.remove(merged)
    assert.equal(0, code, out)
    assert.equal(10, #lines(text))
    assert.equal(untimed(read(whole)), untimed(text))
    assert.truthy(results(out), out)
    assert.equal(results(out_whole), results(out))
  end)

  it("merge --json and match --json give the same object, timing aside", function()
    local jq = [[jq -c 'del(.bots[].ms_per_decision)']]
    local a, code = sh(quote(exe) .. " " .. match_args .. " --json | " .. jq)
    assert.equal(0, code, a)
    local b, code2 = sh(quote(exe) .. " merge " .. quoted(logs) .. " --json | " .. jq)
    assert.equal(0, code2, b)
    assert.equal(a, b)
  end)

  it("a shard resumes its own log", function()
    local cut = os.tmpname()
    local text = read(logs[2])
    write(cut, text:sub(1, #text - 50))
    local out, code = meeple(match_args .. " --shard 2/3 --log " .. quote(cut) .. " --resume")
    local again = read(cut)
    os.remove(cut)
    assert.equal(0, code, out)
    assert.truthy(out:find("from the log, whose line 4 was cut short", 1, true), out)
    assert.equal(untimed(text), untimed(again))
  end)

  -- merge's stderr and status with the logs `names`.
  local function merge(names) return meeple("merge " .. quoted(names), true) end

  it("refuses a shard given twice, naming the game, in one line", function()
    local out, code = merge { logs[1], logs[2], logs[2], logs[3] }
    assert.equal(1, code, out)
    assert.equal(1, #lines(out), out)
    assert.truthy(out:find("^meeple merge: game 3 is logged twice"), out)
  end)

  it("refuses logs of two matches, naming the field that differs, in one line", function()
    local other = os.tmpname()
    meeple("match babel greedy_babel random --games 10 --seed 8 --shard 2/3 --log " .. quote(other))
    local out, code = merge { logs[1], other, logs[3] }
    os.remove(other)
    assert.equal(1, code, out)
    assert.equal(1, #lines(out), out)
    assert.truthy(out:find('its "match_seed" differs', 1, true), out)
  end)

  it("refuses a missing shard, naming the games missing", function()
    local out, code = merge { logs[1], logs[3] }
    assert.equal(1, code, out)
    assert.equal(1, #lines(out), out)
    assert.truthy(out:find("4 of the match's 10 games are missing (3, 4, 9, 10)", 1, true), out)
  end)

  it("treats a log as hostile: every damaged line is refused in one line naming it", function()
    local first = lines(read(logs[1]))[1]
    local cases = {
      { "not json\n", "line 1: it is not JSON" },
      { first:gsub('"by":%[%d+,', '"by":[') .. "\n", 'is not as long as its "actions"' },
      { first:gsub('"scores":%[', '"scores":["x",') .. "\n", '"scores" are damaged' },
      { first:gsub('"log":3', '"log":4') .. "\n", 'its "log" is not format 3' },
      { first:gsub('"log":3', '"log":2') .. "\n", 'its "log" is format 2: a log from meeple 0.2' },
      { first:gsub('"deal":1', '"deal":2') .. "\n", 'its "deal" is not the one its index gives under balanced seating' },
      { first:gsub('"seating":"balanced"', '"seating":"shuffled"') .. "\n", 'its "seating" is not a design' },
      { first:gsub('"seed":%d+', '"seed":1') .. "\n", 'its "seed" is not the one match_seed 7 gives game 1' },
      { first:gsub('"seats":%["greedy_babel","random"%]', '"seats":["random","greedy_babel"]') .. "\n",
        "its seat 1 is not the bot the balanced seating puts there" },
      { first:gsub('"index":1,', '"index":1,"index":4,') .. "\n", "it is not JSON: duplicate object key" },
      { first:gsub('"random"', '"rand\\u0000om"') .. "\n", "\\u0000 is not allowed" },
      { first, "line 1: cut short" },
      { '{"index":1' .. string.rep(" ", 17 * 1024 * 1024) .. "}\n", "line 1: longer than" },
      { "", "is empty" },
    }
    for _, case in ipairs(cases) do
      local bad = os.tmpname()
      write(bad, case[1])
      local out, code = merge { bad, logs[2], logs[3] }
      os.remove(bad)
      assert.equal(1, code, out)
      assert.equal(1, #lines(out), out)
      assert.truthy(out:find(case[2], 1, true), case[2] .. " in: " .. out)
    end
  end)

  it("plays every game again: an edited score, winner or action is refused, naming its line", function()
    local text = read(logs[1])
    local edits = {
      { (text:gsub('"scores":%[%d+,', '"scores":[99,', 1)), "line 1: its scores are not those its actions give" },
      { (text:gsub('"winners":%[(%d)%]', function(w) return '"winners":[' .. (3 - w) .. ']' end, 1)),
        "line 1: its winners are not those its actions give" },
      { (text:gsub('"actions":%["[^"]*"', '"actions":["travel babylon"', 1)), 'line 1: decision 1, "travel babylon"' },
    }
    for _, edit in ipairs(edits) do
      local bad, merged = os.tmpname(), os.tmpname()
      write(bad, edit[1])
      local out, code = meeple("merge " .. quoted { bad, logs[2], logs[3] } .. " --log " .. quote(merged), true)
      local left = read(merged)
      os.remove(bad)
      os.remove(merged)
      assert.equal(1, code, out)
      assert.equal(1, #lines(out), out)
      assert.truthy(out:find(edit[2], 1, true), edit[2] .. " in: " .. out)
      -- --log names a file that exists (os.tmpname made it): a refusal leaves it as it was, never removed
      -- nor half-written (issue 29: never delete what meeple did not create)
      assert.equal("", left, "the file given as --log is left as it was")
    end
  end)

  it("refuses to write the merged log over one of the logs", function()
    local out, code = meeple("merge " .. quoted(logs) .. " --log " .. quote(logs[1]), true)
    assert.equal(1, code, out)
    assert.truthy(out:find("is one of the logs merged", 1, true), out)
    assert.equal(4, #lines(read(logs[1])))
  end)

  it("refuses bad arguments with one line, the usage and status 2", function()
    util.assert_usage_error("merge", "meeple merge: which logs?", "usage: meeple merge LOG...")
    util.assert_usage_error("merge --frobnicate x", "meeple merge: unknown option", "usage: meeple merge")
    util.assert_usage_error(match_args:gsub("%-%-seed 7", "") .. " --shard 1/3",
      "meeple match: --shard needs --seed: the shards of one match share one seed", "usage: meeple match")
    for _, bad in ipairs { "0/3", "4/3", "1/0", "a/b", "1", "1/3/4", "-1/3" } do
      util.assert_usage_error(match_args .. " --shard " .. bad, "meeple match: --shard must be K/N", "usage: meeple match")
    end
    util.assert_usage_error(match_args .. " --shard 6/6", "meeple match: --shard 6/6: more shards than the 5 deals",
      "usage: meeple match")
    util.assert_usage_error(match_args .. " --shard 1/2 --sprt 0.5,0.6",
      "meeple match: --sprt cannot run in a shard", "usage: meeple match")
  end)
end)

describe("meeple match --json, --jobs 0, forfeits, signals", function()
  it("--json prints one object with snake_case keys, the table's figures", function()
    local out, code = sh(quote(exe) .. " " .. match_args ..
      [[ --json 2>/dev/null | jq -e '(.game == "babel") and (.games == 10) and (.match_seed == 7) and (.seed == 7)
        and (.variant == null) and (.seating == "balanced") and (.deals == 5) and (.deal_games == 2) and (.sprt == null)
        and (.bots | length == 2) and (.bots[0] | keys == ["ci_high","ci_low","decisions","draws","forfeits",
        "games","losses","mean_score","ms_per_decision","name","score","score_high","score_low","win_rate","wins"])
        and (.bots[0].name == "greedy_babel") and (.bots[0].games == 10)
        and ([.bots[].wins] | add) + ([.bots[].draws] | add) / 2 <= 10
        and (.seats | map(.seat) == [1,2]) and (.seats[0] | keys == ["ci_high","ci_low","games","seat","win_rate","wins"])
        and (.forfeits == []) and (.bots[0].ci_low <= .bots[0].win_rate) and (.bots[0].win_rate <= .bots[0].ci_high)']])
    assert.equal(0, code, out)
    assert.equal("true\n", out)
  end)

  it("--jobs 0 plays one worker per core, with the same results", function()
    local a = meeple(match_args .. " --jobs 0", true)
    local b = meeple(match_args)
    assert.equal("", a)
    assert.equal(results(meeple(match_args .. " --jobs 0")), results(b))
  end)

  it("a match where every game ended in a forfeit says so and exits 1; its forfeits are in --json", function()
    local bot = util.write("return { name = 'broken', choose = function() error('no idea', 0) end }", ".lua")
    local out, code = sh(quote(exe) .. " match babel " .. quote(bot) .. " " .. quote(bot) ..
      " --games 4 --seed 1 --json 2>" .. quote(bot .. ".err"))
    local err = read(bot .. ".err")
    os.remove(bot .. ".err")
    os.remove(bot)
    assert.equal(1, code, out)
    assert.truthy(err:find("every game ended in a forfeit", 1, true), err)
    local checked = sh("printf '%s' " .. quote(out) .. [[ | jq -c '[.forfeit_count, (.forfeits | map([.game, .seat, .bot, .reason]))]']])
    assert.equal('[4,[[1,1,"broken","error: no idea"],[2,1,"broken#2","error: no idea"],[3,1,"broken","error: no idea"],'
      .. '[4,1,"broken#2","error: no idea"]]]\n',
      checked)
  end)

  -- The match's games: 16 deals in the quick suite, 66 in the soak (#soak: ctest -L soak); the resumed
  -- log must be the whole match's either way.
  local games = util.soak_count(96, 396)
  it("SIGINT stops a match cleanly: finished games logged, the table printed, status 130, resumable #soak", function()
    local log, whole = os.tmpname(), os.tmpname()
    local args = "match bohnanza greedy_bohnanza random random --games " .. games .. " --seed 5 --jobs 2 "
    -- The signal goes as soon as a first game is logged: a fixed sleep let a fast machine finish them all.
    local script = ("%s %s --log %s >%s.out 2>%s.err & pid=$!; i=0; "
      .. "while [ ! -s %s ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done; kill -INT $pid; wait $pid; echo $?")
      :format(quote(exe), args, quote(log), quote(log), quote(log), quote(log))
    local status = tonumber((sh(script)))
    local out, err = read(log .. ".out"), read(log .. ".err")
    os.remove(log .. ".out")
    os.remove(log .. ".err")
    assert.equal(130, status, err)
    local played = #lines(read(log))
    assert.truthy(played > 0 and played < games, "interrupted after " .. played .. " games")
    assert.truthy(out:find("bohnanza: " .. played .. " games, " .. played // 6 .. " deal", 1, true), out)
    assert.truthy(out:find("Interrupted after " .. played .. " of " .. games .. " games", 1, true), out)
    -- The results count whole deals only: an unfinished deal's games would tilt the rates to its seats.
    local whole_games, left = played // 6 * 6, played % 6
    assert.equal(whole_games, tonumber(out:match("\ngreedy_bohnanza +(%d+)")), out)
    assert.equal(whole_games, tonumber(out:match("\n1 +(%d+)")), out)
    if left > 0 then
      assert.truthy(out:find("The unfinished deal's " .. left .. " game" .. (left == 1 and " is" or "s are")
        .. " left out of the results", 1, true), out)
    else
      assert.falsy(out:find("unfinished deal", 1, true), out)
    end
    assert.truthy(err:find("stopped by a signal", 1, true), err)
    local resumed, code = meeple(args .. "--log " .. quote(log) .. " --resume")
    assert.equal(0, code, resumed)
    assert.truthy(resumed:find(games .. " games, " .. games // 6 .. " deals of 6, balanced seating, seed 5 (" .. played
      .. " from the log)", 1, true),
      resumed)
    meeple(args .. "--log " .. quote(whole))
    assert.equal(untimed(read(whole)), untimed(read(log)))
    os.remove(log)
    os.remove(whole)
  end)
end)

describe("the match log against docs/log.schema.json", function()
  it("every record has the schema's required fields, of their types; `by` is as long as `actions`", function()
    local log, variant_log = os.tmpname(), os.tmpname()
    meeple("match citadels greedy_citadels random random --games 6 --seed 3 --log " .. quote(log))
    meeple("match babel greedy_babel random --games 4 --seed 3 --variant short --log " .. quote(variant_log))
    write(log, read(log) .. read(variant_log))
    os.remove(variant_log)
    local schema = quote(root .. "/docs/log.schema.json")
    -- For each record: the required fields it lacks, a field whose JSON type the schema does not allow,
    -- and whether by and the per-seat lists have their lengths.
    local out, code = sh("jq -c --slurpfile s " .. schema .. [[ '
      def types: (if type == "array" then . else [.] end) | map(if . == "integer" then "number" else . end);
      . as $r | $s[0] as $schema
      | [$schema.required[] | . as $f | select($r | has($f) | not)] as $missing
      | [$schema.properties | to_entries[] | .key as $k | .value.type as $t
         | select($t != null and ($r | has($k)))
         | select($t | types | any(. == ($r[$k] | type)) | not) | $k] as $wrong
      | {missing: $missing, wrong: $wrong,
         by: (($r.by | length) == ($r.actions | length)),
         seats: (([$r.seats, $r.scores, $r.decisions, $r.ms, $r.ms_max, $r.bots] | map(length) | unique) == [$r.players])}
    ' ]] .. quote(log) .. " 2>&1 | sort | uniq -c")
    local records = #lines(read(log))
    os.remove(log)
    assert.equal(0, code, out)
    assert.equal(10, records)
    assert.equal(('     10 {"missing":[],"wrong":[],"by":true,"seats":true}\n'), out)
  end)

  it("the schema lists every field a record has, each documented", function()
    local log = os.tmpname()
    meeple("match babel greedy_babel random --games 20 --seed 3 --sprt 0.5,0.6 --log " .. quote(log))
    -- and games the decision cap stopped ("unfinished")
    local capped = os.tmpname()
    meeple("match babel random random --games 2 --seed 1 --max-decisions 40 --log " .. quote(capped))
    assert.truthy(read(capped):find('"unfinished":40', 1, true))
    write(log, read(log) .. read(capped))
    os.remove(capped)
    local out = sh("jq -r --slurpfile s " .. quote(root .. "/docs/log.schema.json") ..
      [[ '$s[0].properties as $p | keys[] | . as $k | select(($p[$k] // {}) | has("description") | not)' ]] ..
      quote(log) .. " 2>&1")
    os.remove(log)
    assert.equal("", out)
    local doc = read(root .. "/docs/log-format.md")
    for _, field in ipairs { "index", "log", "meeple", "by", "decisions", "ms_max", "params", "match_seed", "deal", "seating", "sprt", "unfinished" } do
      assert.truthy(doc:find("`" .. field .. "`", 1, true), field)
    end
  end)
end)
