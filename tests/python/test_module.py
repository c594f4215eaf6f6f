"""The meeple Python module's surface: what each call returns, and the one-line reason every bad argument
gets (TypeError, ValueError, meeple.Error), never a crash."""
import copy
import itertools
import pickle

import pytest

import meeple


def one_line(err):
    text = str(err.value)
    assert text and "\n" not in text, "not one line: %r" % text
    return text


def test_games_lists_every_registered_game():
    assert meeple.games() == ["babel", "citadels", "bohnanza", "rabohnzel"]


def test_new_takes_the_lua_defaults_seed_1_and_the_default_player_count():
    s = meeple.new("citadels")
    assert s.num_players() == meeple.info("citadels")["default_players"]
    assert s.save() == meeple.new("citadels", seed=1).save()
    assert s.to_move() == 1 and s.turn() >= 1 and not s.is_over()


def test_a_game_plays_to_its_end_and_names_its_winners():
    s = meeple.new("babel", seed=3)
    assert s.winners() is None
    while not s.is_over():
        s.play(s.legal()[-1])
    assert s.to_move() is None and s.legal() == []
    assert s.winners() and all(1 <= w <= 2 for w in s.winners())
    assert len(s.scores()) == 2


def test_check_gives_the_reason_and_play_raises_it_changing_nothing():
    s = meeple.new("babel", seed=1)
    before = s.save()
    ok, why = s.check("build opp")
    assert (ok, why) == s.check("build opp") and not ok and why
    with pytest.raises(meeple.IllegalAction) as err:
        s.play("build opp")
    assert one_line(err) == why
    assert isinstance(err.value, meeple.Error)
    assert s.save() == before
    assert s.check(s.legal()[0]) == (True, None)


def test_play_takes_a_copy_of_a_listed_text_as_the_listed_one():
    listed, copied = meeple.new("bohnanza", seed=4), meeple.new("bohnanza", seed=4)
    for _ in range(30):
        text = listed.legal()[-1]
        listed.play(text)
        copied.play("".join(list(text)))  # an equal string, not the object legal() handed out
    assert listed.save() == copied.save()
    with pytest.raises(meeple.IllegalAction) as err:
        meeple.new("bohnanza", seed=4).play("plant 01")
    assert one_line(err) == "'plant 01' is not how the action is written: did you mean 'plant 1'?"


def test_an_action_with_a_nul_byte_is_refused_not_cut():
    s = meeple.new("babel", seed=1)
    text = s.legal()[0] + "\0x"
    ok, why = s.check(text)
    assert not ok and "NUL" in why
    with pytest.raises(meeple.IllegalAction):
        s.play(text)


def test_clone_is_independent_and_keeps_the_history():
    s = meeple.new("bohnanza", seed=2)
    s.play(s.legal()[0])
    c = s.clone()
    assert c.history() == s.history() and c.save() == s.save()
    c.play(c.legal()[0])
    assert len(c.history()) == len(s.history()) + 1
    assert copy.copy(s).save() == s.save() and copy.deepcopy(s).save() == s.save()


def test_a_state_pickles_through_its_save():
    s = meeple.new("citadels", players=5, seed=9)
    s.playout(20, seed=4)
    t = pickle.loads(pickle.dumps(s))
    assert t.save() == s.save() and t.table() == s.table()


def test_save_and_load_rebuild_the_game_exactly():
    s = meeple.new("rabohnzel", players=4, seed=11)
    s.playout(50, seed=2)
    t = meeple.load(s.save())
    assert t.table() == s.table() and t.history() == s.history()


def test_view_hides_what_the_seat_cannot_see():
    s = meeple.new("babel", seed=1)
    assert isinstance(s.view(1)["players"][1]["hand"], int)
    assert isinstance(s.view(2)["players"][1]["hand"], list)
    assert isinstance(s.table()["players"][1]["hand"], list)


def test_sample_keeps_the_view_and_starts_a_history_of_its_own():
    s = meeple.new("citadels", players=4, seed=5)
    s.playout(10, seed=1)
    for seed in range(5):
        t = s.sample(2, seed)
        assert t.view(2) == s.view(2)
        assert t.history() == []
    assert s.sample(2, 7).table() == s.sample(2, 7).table()
    assert s.sample(2).table() == s.sample(2, 1).table()


@pytest.mark.parametrize("game", ["babel", "citadels", "bohnanza", "rabohnzel"])
def test_a_samples_save_loads_as_the_same_position(game):
    s = meeple.new(game, seed=6)
    s.playout(25, seed=3)
    t = s.sample(s.to_move(), 8)
    u = meeple.load(t.save())
    assert u.table() == t.table() and u.legal() == t.legal()


@pytest.mark.parametrize("game", ["babel", "citadels", "bohnanza", "rabohnzel"])
def test_a_samples_save_names_no_seed_that_deals_the_true_game(game):
    for true_seed in (1, 23, 4242):
        s = meeple.new(game, seed=true_seed)
        s.playout(12, seed=true_seed)
        dealt = meeple.new(game, players=s.num_players(), seed=true_seed).table()
        for k in range(1, 6):
            save = s.sample(s.to_move(), k).save()
            seeds = [int(line.split()[1]) for line in save.splitlines() if line.startswith("seed ")]
            assert len(seeds) == 1, save
            assert seeds[0] != true_seed, "%s: the true seed is in its sample" % game
            assert meeple.new(game, players=s.num_players(), seed=seeds[0]).table() != dealt
            assert meeple.load(save).view(s.to_move()) == s.view(s.to_move())
    one, two = meeple.new(game, seed=9).sample(1, 1).save(), meeple.new(game, seed=9).sample(1, 2).save()
    assert one != two and one == meeple.new(game, seed=9).sample(1, 1).save()


def test_playout_plays_n_decisions_or_to_the_end():
    s = meeple.new("bohnanza", seed=1)
    assert s.playout(5, seed=1) == 5 and len(s.history()) == 5
    played = s.playout(seed=1)
    assert s.is_over() and played > 0
    assert s.playout(seed=1) == 0
    t = meeple.new("bohnanza", seed=1)
    t.playout(-1, seed=3, greedy=1)
    assert t.is_over()


def test_history_as_a_seat_saw_it_hides_secret_choices():
    s = meeple.new("citadels", players=4, seed=2)
    s.playout(3, seed=1)
    mine = s.history(1)
    assert [h["player"] for h in mine] == [h["player"] for h in s.history()]
    assert any(a != b for a, b in zip(mine, s.history()))


def test_undo_takes_decisions_back():
    s = meeple.new("babel", seed=1)
    start = s.save()
    s.playout(4, seed=1)
    assert s.undo() == 1 and len(s.history()) == 3
    assert s.undo(10) == 3 and s.save() == start


def test_from_table_builds_a_state_and_refuses_an_impossible_one():
    s = meeple.new("babel", seed=4)
    t = meeple.from_table(dict(s.table(), seed=4))
    assert t.table() == s.table()
    with pytest.raises(meeple.Error) as err:
        meeple.from_table({"game": "babel", "turn": "three"})
    one_line(err)
    with pytest.raises(meeple.Error) as err:
        meeple.from_table({"game": "babel", "nonsense": 1})
    assert "nonsense" in one_line(err)


@pytest.mark.parametrize("game", ["babel", "citadels", "bohnanza", "rabohnzel"])
def test_a_view_read_back_as_a_table_shows_the_same(game):
    s = meeple.new(game, seed=3)
    s.playout(20, seed=2)
    assert meeple.from_table(dict(s.view(1), seed=5)).view(1) == s.view(1)


def test_params_change_the_game_and_bad_ones_are_refused():
    s = meeple.new("babel", params={"hand_start": [3, 5]})
    assert len(s.table()["players"][0]["hand"]) == 3 + 3  # hand_start plus the first turn's draw
    with pytest.raises(ValueError) as err:
        meeple.new("babel", params={"hand_start": 99})
    assert "hand_start" in one_line(err)
    with pytest.raises(ValueError) as err:
        meeple.new("babel", params={"no_such": 1})
    assert "no_such" in one_line(err)
    by_players = meeple.new("bohnanza", players=3, params={"fields": {3: 2}})
    assert len(by_players.table()["players"][0]["fields"]) == 2


def test_cards_is_the_catalogue_as_the_parameters_make_it():
    assert meeple.cards("babel")["medes"]["count"] == 12
    assert meeple.cards("bohnanza", players=3, params={"edition": "riogrande"})["coffee"]["count"] == 24
    assert meeple.cards("babel") == meeple.new("babel").cards()


def test_info_says_the_player_counts():
    info = meeple.info("citadels")
    assert (info["min_players"], info["max_players"]) == (2, 7)
    assert "city_size" in info["params"] and info["hidden_information"]


def test_variants_are_refused_with_the_reason():
    with pytest.raises(meeple.Error) as err:
        meeple.new("babel", variant="short")
    assert "Lua" in one_line(err)
    save = meeple.new("babel").save().replace("seed 1\n", "seed 1\nvariant short\n")
    with pytest.raises(meeple.Error):
        meeple.load(save)
    with pytest.raises(meeple.Error):
        meeple.from_table({"game": "babel", "variant": "short"})


def test_unknown_games_and_player_counts_get_one_line():
    with pytest.raises(ValueError) as err:
        meeple.new("chess")
    assert "babel" in one_line(err)
    with pytest.raises(ValueError) as err:
        meeple.new("citadels", players=9)
    assert one_line(err) == "new: players must be 2..7 for citadels, got 9"
    with pytest.raises(ValueError) as err:
        meeple.new("babel", players=3)
    assert one_line(err) == "new: babel is for exactly 2 players, got 3"


@pytest.mark.parametrize("seed", [-1, meeple.SEED_MAX + 1, 2 ** 70])
def test_seeds_outside_0_to_seed_max_are_refused(seed):
    s = meeple.new("babel")
    for call in (lambda: meeple.new("babel", seed=seed), lambda: s.sample(1, seed),
                 lambda: s.playout(seed=seed), lambda: s.ranked(seed),
                 lambda: meeple.from_table({"game": "babel", "seed": seed})):
        with pytest.raises(ValueError) as err:
            call()
        assert "seed must be 0..%d" % meeple.SEED_MAX in one_line(err)


def test_a_damaged_save_gets_its_reason():
    with pytest.raises(meeple.Error) as err:
        meeple.load("meeple save 1\ngame babel\nplayers 2\nseed x\n")
    one_line(err)
    with pytest.raises(meeple.Error):
        meeple.load("")
    with pytest.raises(meeple.Error):
        meeple.load("meeple save 1\0")


def test_seats_are_1_based_and_checked():
    s = meeple.new("babel")
    for seat in (0, 3, -1):
        with pytest.raises(ValueError) as err:
            s.view(seat)
        assert one_line(err) == "view: player must be 1..2, got %d" % seat


WEIRD = [None, True, 1.5, 3.0, -1, 2 ** 80, "", "x" * 10000, "\0", "\udcff", b"babel", [], {}, (1,), object(),
         float("nan"), {"game": "babel"}, ["babel"], meeple.new, type]


def calls(s):
    """Every function and method with one argument slot filled by `x`."""
    return [
        lambda x: meeple.new(x), lambda x: meeple.new("babel", players=x), lambda x: meeple.new("babel", seed=x),
        lambda x: meeple.new("babel", params=x), lambda x: meeple.new("citadels", params={"city_size": x}),
        lambda x: meeple.new("bohnanza", params={"fields": x}), lambda x: meeple.new("bohnanza", params={"deck": x}),
        lambda x: meeple.from_table(x), lambda x: meeple.from_table({"game": x}),
        lambda x: meeple.from_table({"game": "babel", "players": x}),
        lambda x: meeple.from_table({"game": "citadels", "players": [x]}),
        lambda x: meeple.load(x), lambda x: meeple.cards(x), lambda x: meeple.info(x),
        lambda x: s.check(x), lambda x: s.play(x), lambda x: s.view(x), lambda x: s.sample(x),
        lambda x: s.sample(1, x), lambda x: s.playout(x, seed=1), lambda x: s.playout(1, seed=x),
        lambda x: s.playout(1, seed=1, greedy=x), lambda x: s.history(x), lambda x: s.undo(x),
        lambda x: s.ranked(x), lambda x: s.public_text(x, 1), lambda x: s.public_text("end", x),
    ]


def test_no_argument_of_a_wrong_type_or_value_crashes():
    s = meeple.new("citadels", players=3, seed=1)
    for call, x in itertools.product(calls(s), WEIRD):
        try:
            call(x)
        except (TypeError, ValueError, meeple.Error) as err:
            assert str(err) and "\n" not in str(err)


def test_wrong_types_are_type_errors_naming_the_argument():
    s = meeple.new("babel")
    with pytest.raises(TypeError) as err:
        s.play(3)
    assert one_line(err) == "play: action must be a string, got 3"
    with pytest.raises(TypeError) as err:
        meeple.new("babel", seed="7")
    assert one_line(err) == "new: seed must be an integer, got '7'"
    with pytest.raises(TypeError) as err:
        meeple.new("babel", seed=True)
    with pytest.raises(TypeError) as err:
        s.view(1.0)
    with pytest.raises(TypeError) as err:
        meeple.from_table([])
    with pytest.raises(TypeError) as err:
        s.playout(seed=1, greedy="all")
    with pytest.raises(TypeError) as err:
        s.playout(3)
    assert "seed is required" in one_line(err)
    with pytest.raises(TypeError):
        meeple.State()


def test_methods_of_a_state_called_on_another_object_are_refused():
    s = meeple.new("babel")
    with pytest.raises(TypeError):
        meeple.State.legal("babel")
    with pytest.raises(TypeError):
        meeple.State.play(object(), "end")
    assert meeple.State.legal(s) == s.legal()


def test_a_state_from_another_game_is_a_state_of_that_game():
    babel, citadels = meeple.new("babel"), meeple.new("citadels")
    ok, why = citadels.check(babel.legal()[0])
    assert not ok and why and "\n" not in why
    with pytest.raises(meeple.Error) as err:
        meeple.from_table(dict(babel.table(), game="citadels"))
    one_line(err)
    babel.play(babel.legal()[0])
    with pytest.raises(meeple.Error) as err:
        meeple.load(babel.save().replace("game babel", "game citadels"))
    one_line(err)
