"""EXP-03's encoder views (bc_env/encoding/exp03.py): its decisions, Carbon Levy's window and resort, the
directed tiles, the CountdownSupply and the pending EXP-03 decisions, in [0, 1] and seat-relative."""

from __future__ import annotations

import numpy as np
import pytest
from exp01_support import act
from exp03_support import E3, E13, M3, C, Scenario3, incomplete_ok  # noqa: F401
from test_exp03_measures import _pact, _tdh_closing

from bc_env.encoding.observation import Encoder, encoder_version

pytestmark = pytest.mark.usefixtures("incomplete_ok")


def _views(game, observer=0):
    enc = Encoder(game.config)
    x = enc.encode(game, observer)
    assert x.min() >= 0.0 and x.max() <= 1.0
    return enc, enc.views(x)


def test_exp03_views_and_version():
    assert encoder_version(E13) == "2+EXP-01.1+EXP-03.1"
    enc = Encoder(E13)
    assert enc.phase_names[-2:] == ("replacement", "transfer") and enc.effect_kinds[-1] == "place-tile"
    assert enc.effect_timings[-1] == "end_of_next_round"


def test_carbon_levy_directive_and_countdown_are_encoded():
    sc = Scenario3()
    sc.put("8,7", "FOR-W2")
    sc.effect(M3["M01"], 1, "owner_next_turn", cell=C(8, 7))
    sc.effect(M3["M02"], 2, "end_of_next_round", resort=1, round=1)
    game = sc.game()
    enc, v = _views(game)
    assert v["exp03_levied"].tolist() == [0, 1, 0, 0, 0]
    assert v["exp03_directed"].reshape(-1)[C(8, 7)] == 1.0 and v["exp03_directed"].sum() == 1.0
    assert v["exp03_countdown_supply"].tolist() == [1.0]  # 10 of 10 markers in the supply (R37, R58)
    row = enc.effect_ids.index(M3["M02"])
    assert v["effect_until"][row][enc.effect_timings.index("end_of_next_round")] == 1.0


def test_pending_exp03_decisions_are_encoded():
    game = _tdh_closing((M3["M05"], 0), p2_resources={"INF": 1})
    enc, v = _views(game, observer=2)
    assert v["phase"][enc.phase_names.index("replacement")] == 1.0
    assert v["exp03_replacement_effect"].tolist() == [0.0, 1.0]
    game = _pact(p0={"CLM": 1}, p2={"DOM": 1, "CLM": 1}).game()
    act(game, "place 8,7", "target-player P2")
    for observer in range(4):
        enc, v = _views(game, observer)
        expected = np.zeros(4, dtype=np.float32)
        expected[(2 - observer) % 4] = 1.0  # seat-relative
        assert np.array_equal(v["exp03_transfer_payer"], expected)
        assert v["phase"][enc.phase_names.index("transfer")] == 1.0


def test_text_rendering_shows_the_countdown_and_the_exp03_effects_in_force():
    sc = Scenario3()
    sc.put("8,7", "FOR-W2")
    sc.effect(M3["M01"], 1, "owner_next_turn", cell=C(8, 7))
    sc.effect(M3["M02"], 2, "end_of_next_round", resort=1, round=1)
    text = sc.game().render()
    assert "countdown: supply 10, none attached" in text
    assert "Transformation Directive (P1) on 8,7" in text and "Carbon Levy (P2) on FOR" in text


def test_rgb_and_svg_colour_clm_tiles_as_clm_without_exp01():
    from bc_env.env.render import RESORT_COLOURS, render_rgb, resort_colour
    from bc_env.env.svg import render_svg

    sc = Scenario3(E3)
    sc.put("8,7", "CLM-W2")
    sc.put("9,7", "Transformationsdruck")
    game = sc.game()
    clm = next(t for t in game.catalogue if t.name == "CLM-W2")
    assert clm.resort == 3 and resort_colour(clm) == RESORT_COLOURS[5]  # CLM's colour, not ECO's
    assert render_rgb(game).shape[2] == 3 and "<svg" in render_svg(game)
