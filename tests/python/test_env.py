"""meeple.env.Env, the AECEnv-style loop, and meeple.actions, the fixed action index it masks over."""
import random

import pytest

import meeple
from meeple.actions import action_index
from meeple.env import Env

# The index sizes docs/python.md states.
SIZES = {"babel": 938, "citadels": 355, "bohnanza": 409, "rabohnzel": 2388}


def test_each_game_has_an_index_of_the_documented_size():
    for game in meeple.games():
        assert len(action_index(game)) == SIZES[game]


def test_the_index_is_fixed_whatever_the_players_params_and_seed():
    a = Env("citadels", players=2, seed=1).index.names
    b = Env("citadels", players=7, seed=9, params={"city_size": 5}).index.names
    assert a == b
    assert Env("bohnanza", players=3, params={"edition": "riogrande"}).index.names == action_index("bohnanza").names


def play_randomly(game, players, seed, each=None):
    env = Env(game, players=players, seed=seed)
    env.reset()
    pick = random.Random(seed)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            env.step(None)
            continue
        if each:
            each(env, agent, observation)
        env.step(pick.choice(sorted(env.legal_indices())))
    return env


@pytest.mark.parametrize("game", ["babel", "citadels", "bohnanza", "rabohnzel"])
def test_every_legal_action_has_its_own_index_and_step_plays_it(game):
    index = action_index(game)
    info = meeple.info(game)

    def each(env, agent, observation):
        legal = env.legal_actions()
        indices = env.legal_indices()
        assert sorted(indices.values()) == sorted(legal), "two legal actions share an index"
        mask = env.action_mask()
        assert len(mask) == len(index) and sum(mask) == len(legal)
        assert all(mask[i] == 1 for i in indices)
        assert agent == "player_%d" % env.game_state.to_move()
        assert observation == env.game_state.view(env.game_state.to_move())
        for i, text in indices.items():
            if index.names[i] != text:
                # A short form: its full form is the same action, in the parser's words.
                ok, why = env.game_state.check(index.names[i])
                assert not ok and why.endswith("did you mean '%s'?" % text), (index.names[i], why)

    for seed in range(1, 7):
        players = info["max_players"] if seed % 2 else info["min_players"]
        env = play_randomly(game, players, seed, each)
        assert env.agents == [] and env.agent_selection is None


@pytest.mark.parametrize("game", ["bohnanza", "rabohnzel"])
def test_every_legal_action_of_a_four_field_game_has_its_own_index(game):
    # fields = 4, the parameter's most: the fourth field's plants, harvests and powers are in the index.
    fourth = 0
    for seed in (1, 2):
        env = Env(game, players=4, seed=seed, params={"fields": 4})
        env.reset()
        pick = random.Random(seed)
        for _ in env.agent_iter():
            if env.last()[2]:
                env.step(None)
                continue
            legal, indices = env.legal_actions(), env.legal_indices()
            assert sorted(indices.values()) == sorted(legal), "a legal action has no index, or two share one"
            fourth += sum(text.endswith(" 4") and text.split()[0] in ("plant", "harvest") for text in legal)
            env.step(pick.choice(sorted(indices)))
    assert fourth > 0, "the fourth field was never planted nor harvested"


def test_step_by_index_plays_the_legal_text():
    env = Env("babel", seed=2)
    env.reset()
    i, text = sorted(env.legal_indices().items())[0]
    env.step(i)
    assert env.game_state.history()[-1]["action"] == text


def test_the_end_rewards_winners_and_terminates_everyone():
    env = Env("babel", seed=5)
    env.reset()
    pick = random.Random(1)
    while not env.game_state.is_over():
        env.step(pick.choice(env.legal_actions()))
    winners = env.game_state.winners()
    assert all(env.terminations.values()) and not any(env.truncations.values())
    for seat, agent in enumerate(env.possible_agents, 1):
        expected = 0 if len(winners) == 2 else (1 if seat in winners else -1)
        assert env.rewards[agent] == expected and env._cumulative_rewards[agent] == expected
        assert env.infos[agent]["scores"] == env.game_state.scores()
    observation, reward, termination, truncation, info = env.last()
    assert termination and info["winners"] == sorted(winners)
    with pytest.raises(ValueError):
        env.step(0)
    for _ in env.possible_agents:
        env.step(None)
    assert env.agents == []


def test_reset_deals_the_same_game_for_the_same_seed_and_the_next_one_without():
    env = Env("citadels", players=4, seed=10)
    env.reset()
    first = env.state()
    env.reset()
    assert env.state() != first
    second = env.state()
    env.reset(seed=10)
    assert env.state() == first
    env.reset()
    assert env.state() == second
    assert Env("citadels", players=4, seed=10).reset() is None


def test_an_illegal_action_raises_and_changes_nothing():
    env = Env("babel", seed=1)
    env.reset()
    before = env.state()
    illegal = next(i for i in range(len(env.index)) if i not in env.legal_indices())
    with pytest.raises(meeple.IllegalAction) as err:
        env.step(illegal)
    assert str(err.value) and env.state() == before
    with pytest.raises(meeple.IllegalAction):
        env.step("build opp")
    for bad in (len(env.index), -1):
        with pytest.raises(ValueError):
            env.step(bad)
    for bad in (1.0, True, [], None):
        with pytest.raises(TypeError):
            env.step(bad)
    with pytest.raises(ValueError):
        env.observe("player_9")
    with pytest.raises(ValueError):
        Env("chess")
    with pytest.raises(ValueError):
        Env("babel", players=3)


def test_the_mask_is_zeros_and_ones_over_the_whole_index():
    env = Env("bohnanza", seed=1)
    env.reset()
    mask = env.action_mask()
    assert set(mask) <= {0, 1} and len(mask) == env.num_actions()


def test_the_mask_is_a_numpy_array_where_numpy_is(monkeypatch):
    class FakeNumpy:
        int8 = "int8"

        @staticmethod
        def array(values, dtype):
            return ("array", dtype, tuple(values))

    monkeypatch.setattr(meeple.env, "_numpy", FakeNumpy)
    env = Env("babel", seed=1)
    env.reset()
    kind, dtype, values = env.action_mask()
    assert (kind, dtype) == ("array", "int8") and sum(values) == len(env.legal_actions())
