"""CORE-01-03 Setup, CORE-01-02 Components, ADD56-01-01/02 and VAR-01-02 FirstPlayerHandicap."""

from collections import Counter

import pytest
from crossproc import in_fresh_process
from positions import cfg, events, legal

from bc_env.rules import Game
from bc_env.rules.rng import Rng

PLAYER_COUNTS = {2: 4, 3: 3, 4: 2, 5: 2, 6: 2}  # CORE-01-03-04..06, ADD56-01-02-01/02

# CORE-01-02-10..16 (per core resort: W1x2, W2x4, W3x4, W4x1, W5x1; Committee x10, Grassroots x8,
# Lobbyist x9, Hotspot x8).
CORE_COUNTS = {"Committee": 10, "Grassroots": 8, "Lobbyist": 9, "Hotspot": 8}
for _r in ("DOM", "FOR", "INF"):
    CORE_COUNTS |= {f"{_r}-W1": 2, f"{_r}-W2": 4, f"{_r}-W3": 4, f"{_r}-W4": 1, f"{_r}-W5": 1}
# ADD56-01-01-02..15: +1 W2/W3/W4 per resort, Committee +2, Lobbyist +3, Grassroots +2,
# Hotspot (DOM) +1, Hotspot (FOR) +1.
ADD56_COUNTS = dict(CORE_COUNTS)
for _r in ("DOM", "FOR", "INF"):
    for _w in (2, 3, 4):
        ADD56_COUNTS[f"{_r}-W{_w}"] += 1
ADD56_COUNTS["Committee"] += 2
ADD56_COUNTS["Lobbyist"] += 3
ADD56_COUNTS["Grassroots"] += 2
ADD56_COUNTS["Hotspot (DOM)"] = 1
ADD56_COUNTS["Hotspot (FOR)"] = 1


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_CORE_01_03_04_to_06_ADD56_01_02_starting_influence(players):
    game = Game.new(cfg(f"core-{players}p"), seed=3)
    amount = PLAYER_COUNTS[players]
    assert game.supply == [amount] * players
    assert game.starting == [amount] * players
    assert game.on_board == [0] * players
    assert game.deployed == [0] * players
    assert game.created == [0] * players
    # CORE-01-00-04: nobody owns Resources at the start; nothing in the Bank balance or Noise.
    assert game.res == [0] * (3 * players)
    assert game.bank == [0, 0, 0] and game.noise == [0, 0, 0]
    # CORE-01-08-01 / ADD56-01-03-00-01.
    assert game.cap == (8 if players >= 5 else 7)
    logged = events(game, "starting-influence")
    assert [(e["player"], e["amount"]) for e in logged] == [(p, amount) for p in range(players)]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_CORE_01_02_10_to_16_ADD56_01_01_tile_counts(players):
    game = Game.new(cfg(f"core-{players}p"), seed=5)
    expected = ADD56_COUNTS if players >= 5 else CORE_COUNTS
    # The start player has drawn one tile already (BC-10); it is out of the DrawPile but not placed.
    assert game.phase_name == "place_tile"
    pile = [*game.draw_pile, game.drawn]
    assert Counter(game.catalogue[t].name for t in pile) == Counter(expected)
    assert len(pile) == (89 if players >= 5 else 71)
    assert len(set(pile)) == len(pile)
    # CORE-01-02-01/02, CORE-01-03-01: exactly one Start Committee, on the Board at the centre.
    assert [s.name for s in game.catalogue].count("Start Committee") == 1
    assert 0 not in pile
    assert game.board == [game.topo.centre] and game.tile_at[game.topo.centre] == 0
    assert game.discard == []
    # CORE-01-02-17: printed production value = W number.
    for spec in game.catalogue:
        if spec.kind == 1:
            assert spec.value == int(spec.name.split("-W")[1])


@pytest.mark.parametrize("preset", ["core-4p", "core-4p-hex"])
def test_CORE_01_03_01_start_committee_at_centre(preset):
    game = Game.new(cfg(preset, table_size=7), seed=0)
    assert game.topo.centre == 3 * 7 + 3
    assert game.tile_at[24] == 0
    assert game.controller(24) == -1  # CORE-01-08-05
    # CORE-01-04-05: the first tile goes next to the Start Committee: 4 cells (square), 6 (hex, R1).
    expected = (
        ["place-tile 3,2", "place-tile 2,3", "place-tile 4,3", "place-tile 3,4"]
        if preset == "core-4p"
        else [
            "place-tile 3,2",
            "place-tile 4,2",
            "place-tile 2,3",
            "place-tile 4,3",
            "place-tile 2,4",
            "place-tile 3,4",
        ]
    )
    assert legal(game) == expected


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("seed", [0, 1, 17])
def test_CORE_01_03_02_03_bc10_seeded_shuffle_then_start_player(players, seed):
    """BC-10: the RNG shuffles the DrawPile first, then picks the start player (R6), who draws at once."""
    game = Game.new(cfg(f"core-{players}p"), seed=seed)
    rng = Rng.from_seed(seed)
    pile = list(range(1, len(game.catalogue)))
    rng.shuffle(pile)
    start = rng.below(players)
    assert game.start_player == start == game.active == game.current_player
    assert game.drawn == pile[-1]  # CORE-01-04-04: the top of the pile is drawn
    assert game.draw_pile == pile[:-1]
    assert game.rng.state == rng.state
    assert [(e["type"], e["rule"]) for e in game.events[:2]] == [
        ("setup", "CORE-01-03-01"),
        ("start-player", "CORE-01-03-03"),
    ]
    assert events(game, "draw") == [{"player": start, "tile": pile[-1], "type": "draw", "rule": "CORE-01-04-04"}]


@pytest.mark.parametrize("players", [2, 4, 6])
def test_CORE_01_03_03_R6_start_player_varies_with_seed(players):
    starts = {Game.new(cfg(f"core-{players}p"), seed=s).start_player for s in range(60)}
    assert starts == set(range(players))
    # Same seed, same game (determinism), also in another process with another hash seed.
    assert in_fresh_process(new_state, f"core-{players}p", 9) == new_state(f"core-{players}p", 9)


def new_state(preset: str, seed: int) -> dict:
    return Game.new(preset, seed).to_dict()


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_VAR_01_02_first_player_handicap(players):
    """VAR-01-02-02..08: the start player gets one Starting Influence fewer, the others the standard amount."""
    game = Game.new(cfg(f"core-{players}p", first_player_handicap=True), seed=4)
    sp = game.start_player
    amount = PLAYER_COUNTS[players]
    for p in range(players):
        want = amount - 1 if p == sp else amount
        assert game.supply[p] == game.starting[p] == want
    logged = {e["player"]: e for e in events(game, "starting-influence")}
    assert logged[sp]["rule"] == "VAR-01-02-02" and logged[sp]["amount"] == amount - 1
    # The handicap does not change the draw or the start player (same seed without the variant).
    plain = Game.new(cfg(f"core-{players}p"), seed=4)
    assert plain.start_player == sp and plain.draw_pile == game.draw_pile


def test_VAR_01_preset_core_4p_variants_has_both_variants():
    game = Game.new("core-4p-variants", seed=2)
    assert game.config.tile_recycling and game.config.first_player_handicap
    assert sorted(game.starting) == [1, 2, 2, 2]
    assert game.starting[game.start_player] == 1


@pytest.mark.parametrize(
    "players, rule",
    [(2, "CORE-01-03-04"), (3, "CORE-01-03-05"), (4, "CORE-01-03-06"), (5, "ADD56-01-02-01"), (6, "ADD56-01-02-02")],
)
def test_CORE_01_03_04_to_06_ADD56_01_02_starting_influence_event_cites_the_player_count_rule(players, rule):
    game = Game.new(cfg(f"core-{players}p"), seed=1)
    logged = events(game, "starting-influence")
    assert [e["player"] for e in logged] == list(range(players))
    assert {e["rule"] for e in logged} == {rule}
    assert {e["amount"] for e in logged} == {PLAYER_COUNTS[players]}


@pytest.mark.parametrize(
    "players, rule",
    [(2, "CORE-01-03-04"), (3, "CORE-01-03-05"), (4, "CORE-01-03-06"), (5, "ADD56-01-02-01"), (6, "ADD56-01-02-02")],
)
def test_VAR_01_02_02_handicapped_start_player_cites_the_variant_the_others_the_player_count_rule(players, rule):
    game = Game.new(cfg(f"core-{players}p", first_player_handicap=True), seed=1)
    sp = game.start_player
    cited = {e["player"]: e["rule"] for e in events(game, "starting-influence")}
    assert cited == {p: "VAR-01-02-02" if p == sp else rule for p in range(players)}
