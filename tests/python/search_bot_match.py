"""search_bot_match.py MEEPLE ROOT — ctest's python_search_bot_plays_whole_games: the example search bot
(examples/python/ismcts_bot.py) plays a short match against greedy_babel at a small time limit, asks for
samples and searches them at its decisions, and finishes every game without a forfeit. Not a win-rate
test. Exits 77 (skipped) when the Python module was not built."""
import json
import os
import re
import shlex
import subprocess
import sys

try:
    import meeple  # noqa: F401 (the bot imports it; without it there is nothing to test)
except ImportError as missing:
    print("python_search_bot_plays_whole_games: skipped: %s (python3-dev)" % missing)
    sys.exit(77)

exe, root = sys.argv[1], sys.argv[2]
# 50 ms of thought a decision (a tenth of 500 ms): short games, and a wide margin on a loaded machine.
bot = "exec:%s %s --think 0.1" % (shlex.quote(sys.executable),
                                  shlex.quote(os.path.join(root, "examples/python/ismcts_bot.py")))
games = 4
run = subprocess.run([exe, "--debug", "match", "babel", bot, "greedy_babel", "--games", str(games), "--seed", "3",
                      "--jobs", "2", "--ms", "500", "--json"], capture_output=True, text=True, timeout=120)
if run.returncode != 0:
    sys.exit("meeple match exited with %d: %s" % (run.returncode, run.stderr[-2000:]))
result = json.loads(run.stdout)
me = result["bots"][0]
failures = []
if result["unfinished_games"] or me["games"] != games:
    failures.append("played %d of %d games" % (me["games"], games))
if result["forfeit_count"]:
    failures.append("forfeits: %s" % json.dumps(result["forfeits"]))
# The bot reports each search on stderr ("K samples, N playouts, T ms"), which --debug copies.
searches = [tuple(map(int, m)) for m in re.findall(r"(\d+) samples, (\d+) playouts, (\d+) ms", run.stderr)]
if not searches:
    failures.append("the bot never searched: %s" % run.stderr[-1000:])
elif not all(k > 0 for k, _, _ in searches) or sum(n for _, n, _ in searches) == 0:
    failures.append("searches without samples or playouts: %s" % searches[:10])
for failure in failures:
    print("python_search_bot_plays_whole_games: " + failure)
print("%d games, %d searches, %.0f playouts and %.0f ms a search" % (
    me["games"], len(searches), sum(s[1] for s in searches) / max(1, len(searches)),
    sum(s[2] for s in searches) / max(1, len(searches))))
sys.exit(1 if failures else 0)
