"""The fixed action index of each game (docs/python.md, "The action index").

A game's canonical action strings leave out what the position makes plain: Babel writes `switch` when
the row has one qualifying run and `switch @4` when it has two; Rabohnzel writes `wise` or `wise @2`,
`cast luck` or `cast luck @5`. An index that learning code can rely on must not move with the position,
so the index lists every action of the game's grammar in its *full form*, with every argument written:
Babel's abilities always carry their run's row position (@N), Rabohnzel's powers their field (@F) and a
cast its place in the hand (@K). The list depends on the game alone (seats run to the game's largest
player count, names are those of meeple.cards(game), in its order), never on the seed, the position,
the player count or the parameters.

A legal action's index is that of its full form: the short form's missing part is the run, field or
Magic Bean the short form means, read from the state's table as the game's parser reads it.
"""
import meeple._meeple as _core

# The grammar's own bounds (the parsers' limits in core/rules/games/): a row position in Babel, a place
# in a bean hand, a bean field, a place in a Rabohnzel row of spells.
BABEL_ROW = 60
BEAN_HAND = 160
BEAN_FIELDS = 4  # the most fields the bean games hold (the `fields` parameter goes to 4)
SPELL_ROW = 11


def _names(game, kind):
    return [name for name, card in _core.cards(game).items() if card.get("kind") == kind]


def _babel():
    peoples = _names("babel", "people")
    sides = ["own", "opp"]
    out = ["travel " + p for p in peoples] + ["settle " + p for p in peoples]
    out += ["build " + s for s in sides]
    out += ["migrate %s %s" % (x, y) for x in peoples for y in peoples if x != y]
    out += ["discard " + p for p in peoples] + ["end"]
    abilities = ["collapse", "steal", "switch"] + ["expel " + p for p in peoples]
    abilities += ["leap " + s for s in sides] + ["halve " + p for p in peoples]
    out += ["%s @%d" % (a, n) for a in abilities for n in range(1, BABEL_ROW + 1)]
    return out


def _citadels():
    chars = _names("citadels", "character")
    districts = _names("citadels", "district")
    seats = range(1, _core.info("citadels")["max_players"] + 1)
    out = []
    for word in ("choose", "bury"):
        out += ["%s %s" % (word, c) for c in chars]
    out += ["gold", "draw"] + ["keep " + d for d in districts] + ["income"] + ["build " + d for d in districts]
    out += ["kill " + c for c in chars] + ["rob " + c for c in chars] + ["swap %d" % n for n in seats]
    out += ["replace " + d for d in districts] + ["replace done"] + ["lab " + d for d in districts]
    out += ["smithy"] + ["destroy %d %s" % (n, d) for n in seats for d in districts]
    out += ["graveyard yes", "graveyard no", "end"]
    return out


def _beans(game, beans, buy):
    fields = range(1, BEAN_FIELDS + 1)
    seats = range(1, _core.info(game)["max_players"] + 1)
    hand = range(1, BEAN_HAND + 1)
    out = ["plant %d" % f for f in fields] + ["done"]
    out += ["plant %s %d" % (b, f) for b in beans for f in fields]
    out += ["harvest %d" % f for f in fields] + (["buy"] if buy else [])
    out += ["propose %d" % n for n in seats] + ["ask", "offer", "pass"]
    out += ["give up " + b for b in beans] + ["give %d" % k for k in hand] + ["want " + b for b in beans]
    out += ["send", "cancel", "accept", "reject"] + ["pick %d" % k for k in hand] + ["pick up"]
    return out


def _bohnanza():
    return _beans("bohnanza", _names("bohnanza", "bean"), True)


def _rabohnzel():
    beans = _names("rabohnzel", "bean")
    spells = _names("rabohnzel", "spell")
    seats = range(1, _core.info("rabohnzel")["max_players"] + 1)
    fields = range(1, BEAN_FIELDS + 1)
    out = _beans("rabohnzel", beans, False)
    out += ["keep", "activate none", "place up", "place down", "stop", "skip", "draw"]
    for f in fields:
        out += ["pluck %d @%d" % (n, f) for n in seats] + ["wise @%d" % f, "common @%d" % f]
        out += ["magic %s @%d" % (s, f) for s in spells]
        out += ["sword %d @%d" % (n, f) for n in seats] + ["sword %d aggression @%d" % (n, f) for n in seats]
    for word in ("choose", "discard", "order"):
        out += ["%s %s" % (word, b) for b in beans]
    out += ["activate " + s for s in spells] + ["use " + s for s in spells if s != "card_exchange"]
    out += ["use card_exchange %d %d" % (n, k) for n in seats for k in range(1, SPELL_ROW + 1)]
    out += ["cast %s @%d" % (s, k) for s in spells for k in range(1, BEAN_HAND + 1)]
    out += ["enchant %s %d" % (b, f) for b in beans for f in fields]
    return out


# The people whose run each Babel ability uses (halve names its own).
_ABILITY_PEOPLE = {"collapse": "assyrians", "steal": "hittites", "expel": "medes", "switch": "sumerians",
                   "leap": "persians"}
_POWERS = {"pluck", "wise", "common", "magic", "sword"}


def _babel_place(state, words):
    """A short-form ability means the one qualifying run of its people in the mover's row where their
    pawn stands: the longest run there (the others are too short to qualify). Its bottom's position."""
    if words[0] not in _ABILITY_PEOPLE and words[0] != "halve":
        return None
    people = words[1] if words[0] == "halve" else _ABILITY_PEOPLE[words[0]]
    table = state.table()
    me = table["players"][table["to_move"] - 1]
    row = me["rows"].get(me["pawn"], [])
    best, best_len, i = None, 0, 0
    while i < len(row):
        j = i
        while j < len(row) and row[j] == row[i]:
            j += 1
        if row[i] == people and j - i > best_len:
            best, best_len = i + 1, j - i
        i = j
    return best


def _rabohnzel_place(state, words):
    """A short-form power means the active player's field of that bean with uses left (else the first
    of that bean); a short-form cast the first Magic Bean of their hand."""
    if words[0] not in _POWERS and words[0] != "cast":
        return None
    table = state.table()
    me = table["players"][table["active"] - 1]
    if words[0] == "cast":
        return me["hand"].index("magic") + 1 if "magic" in me["hand"] else None
    fields = [f + 1 for f, field in enumerate(me["fields"]) if field["beans"] and field["beans"][0] == words[0]]
    powered = [f for f in fields if me["fields"][f - 1]["power"] > 0]
    return (powered or fields or [None])[0]


_PLACE = {"babel": _babel_place, "rabohnzel": _rabohnzel_place}
_BUILDERS = {"babel": _babel, "citadels": _citadels, "bohnanza": _bohnanza, "rabohnzel": _rabohnzel}
_cache = {}


class ActionIndex:
    """The fixed list of a game's actions in full form: names[i] is the action with index i."""

    def __init__(self, game):
        if not isinstance(game, str):
            raise TypeError("ActionIndex: game must be a string, got %s" % type(game).__name__)
        _core.info(game)  # the core's one-line reason for an unknown game
        if game not in _BUILDERS:
            raise ValueError("ActionIndex: no action index is defined for %s yet" % game)
        self.game = game
        self.names = _BUILDERS[game]()
        self._index = {name: i for i, name in enumerate(self.names)}
        if len(self._index) != len(self.names):
            raise AssertionError("the %s action index lists an action twice" % game)

    def __len__(self):
        return len(self.names)

    def full_form(self, state, text):
        """The full form of `text`, an action legal in `state` (the short form completed)."""
        if text in self._index:
            return text
        place = _PLACE[self.game](state, text.split()) if self.game in _PLACE and text.strip() else None
        full = "%s @%d" % (text, place) if place is not None else None
        if full not in self._index:
            raise ValueError("%r is not an action of %s's grammar" % (text, self.game))
        return full

    def index(self, text, state=None):
        """The index of an action: its full form, or a short form legal in `state`."""
        i = self._index.get(text)
        if i is None and state is not None:
            i = self._index.get(self.full_form(state, text))
        if i is None:
            raise ValueError("%r is not in %s's action index (the full form is needed without a state)"
                             % (text, self.game))
        return i

    def legal(self, state):
        """{index: legal text} for the actions legal in `state`."""
        return {self.index(text, state): text for text in state.legal()}


def action_index(game):
    """The ActionIndex of a game, made once."""
    if game not in _cache:
        _cache[game] = ActionIndex(game)
    return _cache[game]
