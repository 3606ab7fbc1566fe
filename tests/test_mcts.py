"""The search bot (policies/mcts.py): loading with options, legality, determinism, and that it searches."""

from __future__ import annotations

import pytest

from bc_env.rules import BalanceControlError, Game
from benchmarking.runner import play_match
from policies import MCTSOptionError, MCTSPolicy, available, load


def _decisions(bot: MCTSPolicy, config: str, seed: int, count: int) -> list[int]:
    game = Game.new(config, seed)
    chosen = []
    while len(chosen) < count and not game.is_terminal():
        a = bot.act(game)
        assert a in game.legal_actions()
        chosen.append(a)
        game.apply(a)
    return chosen


def test_load_with_options() -> None:
    assert "mcts" in available()
    bot = load("mcts", seed=0)
    assert isinstance(bot, MCTSPolicy) and bot.config.sims == 200
    bot = load("mcts:sims=25:leaf=rollout:prior=uniform:c_puct=2", seed=0)
    assert (bot.config.sims, bot.config.leaf, bot.config.prior, bot.config.c_puct) == (25, "rollout", "uniform", 2.0)
    assert bot.name == "mcts:sims=25:c_puct=2:prior=uniform:leaf=rollout"
    assert load(bot.name, seed=0).config == bot.config
    expert = load("mcts:sims=5:prior=expert", seed=0)
    assert _decisions(expert, "core-2p", 0, 3) == _decisions(load(expert.name, seed=0), "core-2p", 0, 3)


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("mcts:sims=0", "sims"),
        ("mcts:sims=lots", "sims"),
        ("mcts:horizon=3", "unknown mcts option"),
        ("mcts:depth=-1", "depth"),
        ("mcts:depth=2.5", "depth"),
        ("mcts:greedy=1.5", "greedy"),
        ("mcts:leaf=playout:greedy=x", "greedy"),
        ("mcts:leaf=oracle", "leaf"),
        ("mcts:leaf=value", "leaf=value"),
        ("mcts:temp=-1", "temp"),
        ("mcts:prior=no-such-bot", "unknown policy"),
    ],
)
def test_bad_options(spec: str, match: str) -> None:
    with pytest.raises(BalanceControlError, match=match):
        load(spec)
    assert issubclass(MCTSOptionError, BalanceControlError)
    with pytest.raises(MCTSOptionError, match="horizon"):
        MCTSPolicy(horizon=3)


@pytest.mark.parametrize(
    "spec", ["mcts:sims=20", "mcts:sims=8:prior=uniform:leaf=rollout", "mcts:sims=6:leaf=playout:depth=8:greedy=0.5"]
)
def test_deterministic_for_a_seed(spec: str) -> None:
    first = _decisions(load(spec, seed=3), "core-2p", 1, 12)
    assert first == _decisions(load(spec, seed=3), "core-2p", 1, 12)
    bot = load(spec, seed=3)
    _decisions(bot, "core-4p", 2, 6)  # several players: the search runs for whoever is to act
    assert bot.last_simulations in (0, bot.config.sims)


def test_visits_and_time_budget() -> None:
    game = Game.new("core-2p", 4)
    while len(game.legal_actions()) < 3:
        game.apply(game.legal_actions()[0])
    bot = MCTSPolicy(seed=0, sims=40)
    action = bot.act(game)
    # The first simulation expands the root; each other one visits one root action.
    assert sum(bot.last_visits.values()) == 39 and bot.last_simulations == 40
    assert bot.last_visits[action] == max(bot.last_visits.values())
    assert set(bot.last_visits) <= set(game.legal_actions())
    timed = MCTSPolicy(seed=0, sims=1_000_000, ms=30)
    timed.act(game)
    assert 1 <= timed.last_simulations < 1_000_000


#: The strength sentinel: a small search against the random bot over SENTINEL_GAMES seeded games, seats rotated.
#: The search won 11.5 of these 12 (issue 31); the expert, its prior, wins ~97% against random (docs/policies.md).
#: The search must score at least SENTINEL_MIN
#: (a shared victory counts 1/k). If it truly won 90%, 12 games would fall below 9 with probability 2.6% (binomial,
#: 95%: 0.2%); a bot no better than random (50%) would pass with probability 7.3%, one that wins 25% with 0.04%.
SENTINEL_GAMES, SENTINEL_MIN = 12, 9


def test_search_beats_random() -> None:
    """A small search wins clearly against the random bot in either seat (it searches for the player to act)."""
    match = play_match("core-2p", ["mcts:sims=3", "random"], SENTINEL_GAMES, 0, rotate_seats=True)
    search, rand = match.entrants
    assert search.wins >= SENTINEL_MIN, match.table()
    assert search.wins + rand.wins == pytest.approx(SENTINEL_GAMES)


def test_the_search_spends_its_visits_on_the_best_actions_of_the_player_to_act() -> None:
    """Without a prior (uniform), PUCT sends more visits to the actions whose mean return is higher *for the player
    who owns the decision*: the visit-weighted mean return of the root's actions is at least their plain mean, in
    positions of either seat. A search that maximised seat 0's return would fail it in seat 1's positions (shown
    with such a patch: -0.07 at seed 0)."""
    seats = set()
    for seed in range(6):
        game = _midgame(seed, 31 + seed)
        while len(game.legal_actions()) < 4:
            game.apply(game.legal_actions()[0])
        me = game.current_player
        seats.add(me)
        root = MCTSPolicy(seed=seed, sims=100, prior="uniform").search(game)
        q = {a: root.w[a][me] / root.n[a] for a in root.n}
        weighted = sum(root.n[a] * q[a] for a in q) / sum(root.n.values())
        assert weighted >= sum(q.values()) / len(q), (seed, me, root.n, q)
    assert seats == {0, 1}


def test_command_line_takes_search_options(capsys: pytest.CaptureFixture[str]) -> None:
    from balance_control.cli import main

    assert main(["match", "--config", "core-2p", "--bots", "mcts:sims=3,random", "--games", "2", "--no-progress"]) == 0
    assert "| mcts:sims=3 | 2 |" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="bot 'mcts:sims=x': mcts option sims must be an integer"):
        main(["match", "--config", "core-2p", "--bots", "mcts:sims=x,random", "--games", "2"])


def _midgame(seed: int, decisions: int) -> Game:
    game = Game.new("core-2p", seed)
    bot = load("expert", seed=seed)
    for _ in range(decisions):
        game.apply(bot.act(game))
    return game


def test_playout_and_greedy_options() -> None:
    bot = load("mcts:sims=10:leaf=playout:depth=12:greedy=0.5", seed=1)
    assert (bot.config.leaf, bot.config.depth, bot.config.greedy) == ("playout", 12, 0.5)
    assert bot.name == "mcts:sims=10:leaf=playout:depth=12:greedy=0.5"
    assert load(bot.name, seed=1).config == bot.config
    game = _midgame(5, 40)
    # greedy: the expert's own choice (forced opener / closing moves included) gets at least that share of the prior.
    priors = bot.prior(game, game.legal_actions())
    choice = load("expert", seed=0).act(game)
    assert priors[choice] >= 0.5 and abs(sum(priors.values()) - 1) < 1e-9
    assert load("mcts:sims=10", seed=1).prior(game, game.legal_actions()).get(choice, 0.0) < 1.0
    # playout: the expert plays ``depth`` decisions, then the static evaluation of that position.
    copy = game.clone()
    value = bot.leaf(copy)
    assert len(value) == 2 and all(-1 <= v <= 1 for v in value)
    assert not copy.is_terminal() and len(copy.events) > len(game.events)
    to_end = load("mcts:sims=10:leaf=playout", seed=1)
    finished = game.clone()
    assert to_end.leaf(finished) == finished.returns() and finished.is_terminal()


def test_steps_budget_caps_the_playouts() -> None:
    game = _midgame(6, 30)
    capped = load("mcts:sims=400:leaf=playout:depth=10:steps=60", seed=2)
    first = capped.act(game)
    assert 2 <= capped.last_simulations <= 8  # 10 playout decisions a simulation at most, 60 in all
    again = load("mcts:sims=400:leaf=playout:depth=10:steps=60", seed=2)
    assert again.act(game) == first and again.last_visits == capped.last_visits
    assert load("mcts:sims=400:steps=60", seed=2).config.steps == 60


def test_min_sims_searches_only_where_playouts_fit() -> None:
    spec = "mcts:sims=50:leaf=playout:steps=300:min_sims=10:greedy=0.5"
    bot = load(spec, seed=4)
    assert bot.config.min_sims == 10
    early = _midgame(7, 20)
    first = bot.act(early)  # no pace known yet: one playout to the end shows the budget is too small, and the pace
    assert bot.last_simulations == 1 and bot.last_visits == {first: 1}
    action = bot.act(early)  # ~180 decisions left: 10 playouts would take far more than 300 decisions
    assert bot.last_simulations == 0 and bot.last_visits == {action: 1}
    priors = bot.prior(early, early.legal_actions())
    assert priors[action] == max(priors.values())
    late = early.clone()
    expert = load("expert", seed=7)
    while late.round < 33 or len(late.legal_actions()) < 2:
        late.apply(expert.act(late))
    bot.act(late)  # a few decisions left: it searches
    assert bot.last_simulations >= 2
