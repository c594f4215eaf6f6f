"""An agent-by-agent environment in the manner of PettingZoo's AECEnv (docs/python.md, "meeple.env").

    from meeple.env import Env
    env = Env("babel", seed=1)
    env.reset()
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        env.step(None if termination else random.choice(env.legal_actions()))

No third-party package is needed: action_mask() is a numpy array when numpy is installed, a list of 0
and 1 otherwise. Agents are "player_1" ... "player_N" (seat N); an action is an index into the game's
fixed action index (meeple.actions) or an action's text.
"""
import meeple._meeple as _core
from meeple.actions import action_index

try:
    import numpy as _numpy
except ImportError:  # the mask is then a plain list
    _numpy = None


class Env:
    """A game of `game` for `players` seats, dealt from `seed`: each reset() without a seed deals the next
    game, from seed + 1, seed + 2, ..."""

    def __init__(self, game, players=None, seed=1, params=None):
        state = _core.new(game, players=players, seed=seed, params=params)  # the core checks every argument
        self.game = game
        self._players, self._params = state.num_players(), params
        self._next_seed = 1 if seed is None else seed
        self.index = action_index(game)
        self.possible_agents = ["player_%d" % p for p in range(1, self._players + 1)]
        self.metadata = {"name": "meeple_" + game, "is_parallelizable": False}
        self.game_state = None
        self.agents = []
        self.agent_selection = None
        self.rewards, self._cumulative_rewards, self.terminations, self.truncations, self.infos = {}, {}, {}, {}, {}

    # ---- the AEC loop ----

    def reset(self, seed=None, options=None):
        """A new game, dealt from `seed` (the later resets without a seed go on from seed + 1), or from
        the env's next seed."""
        if seed is None:
            seed = self._next_seed
        self._next_seed = seed + 1 if isinstance(seed, int) else seed
        self.game_state = _core.new(self.game, players=self._players, seed=seed, params=self._params)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._legal = None
        self.agent_selection = self._agent(self.game_state.to_move())

    def observe(self, agent):
        """What `agent` sees: the state as a dict, hidden cards as counts (State.view)."""
        return self.game_state.view(self._seat(agent))

    def legal_actions(self):
        """The legal actions' texts for agent_selection ([] once the game is over)."""
        return self.game_state.legal()

    def legal_indices(self):
        """{index: text} of the legal actions for agent_selection."""
        if self._legal is None:
            self._legal = self.index.legal(self.game_state)
        return self._legal

    def action_mask(self):
        """1 at the index of every legal action of agent_selection, over len(self.index) actions."""
        mask = [0] * len(self.index)
        for i in self.legal_indices():
            mask[i] = 1
        return _numpy.array(mask, dtype=_numpy.int8) if _numpy is not None else mask

    def step(self, action):
        """Plays `action` (an index, or an action's text) for agent_selection; None for an agent whose
        game is over takes it out of agents."""
        agent = self.agent_selection
        if self.terminations.get(agent) or self.truncations.get(agent):
            if action is not None:
                raise ValueError("step: %s's game is over: step(None) takes it out" % agent)
            self._remove(agent)
            return
        self.game_state.play(self._text(action))  # illegal: meeple.IllegalAction, and nothing changes
        self._cumulative_rewards[agent] = 0
        self._legal = None
        self.rewards = {a: 0 for a in self.agents}
        if self.game_state.is_over():
            self._finish()
        else:
            self.agent_selection = self._agent(self.game_state.to_move())
        for a in self.agents:
            self._cumulative_rewards[a] += self.rewards[a]

    def last(self, observe=True):
        """(observation, cumulative reward, termination, truncation, info) of agent_selection."""
        agent = self.agent_selection
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def agent_iter(self, max_iter=2 ** 63):
        """agent_selection, as long as agents remain (at most max_iter times)."""
        for _ in range(max_iter):
            if not self.agents:
                return
            yield self.agent_selection

    def state(self):
        """The whole state as a dict (State.table): not for a player's eyes."""
        return self.game_state.table()

    def render(self):
        return repr(self.game_state)

    def close(self):
        pass

    def num_actions(self):
        return len(self.index)

    # ---- inside ----

    def _agent(self, seat):
        return self.possible_agents[seat - 1]

    def _seat(self, agent):
        if agent not in self.possible_agents:
            raise ValueError("observe: unknown agent %r; agents: %s" % (agent, ", ".join(self.possible_agents)))
        return self.possible_agents.index(agent) + 1

    def _text(self, action):
        if isinstance(action, str):
            return action
        if isinstance(action, bool) or not hasattr(action, "__index__"):
            raise TypeError("step: action must be an index or an action's text, got %s" % type(action).__name__)
        i = action.__index__()
        if not 0 <= i < len(self.index):
            raise ValueError("step: action index must be 0..%d, got %d" % (len(self.index) - 1, i))
        return self.legal_indices().get(i, self.index.names[i])

    def _finish(self):
        """Rewards at the end: +1 to each winner and -1 to the others; 0 to all when all win (a draw)."""
        winners = set(self.game_state.winners())
        everyone = len(winners) == self._players
        for a in self.agents:
            self.rewards[a] = 0 if everyone else (1 if self._seat(a) in winners else -1)
            self.terminations[a] = True
            self.infos[a] = {"scores": self.game_state.scores(), "winners": sorted(winners)}

    def _remove(self, agent):
        self.agents.remove(agent)
        for table in (self.rewards, self._cumulative_rewards, self.terminations, self.truncations, self.infos):
            table.pop(agent, None)
        self.agent_selection = self.agents[0] if self.agents else None
