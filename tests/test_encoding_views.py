"""An expansion's own encoder views (bc_env/encoding/views.py): planes, seat-relative vector entries, the
decision and effect kinds it adds, its version in the configuration's encoder version -- shown with a test view
registered for the toy expansion's game (tests/toy_expansion.py)."""

from __future__ import annotations

import numpy as np
import pytest
from exp01_support import Scenario, act
from test_expansion_interface import _storm
from toy_expansion import toy_game

from bc_env.encoding.observation import Encoder, encoder_version
from bc_env.encoding.views import EXPANSION_VIEWS, ExpansionView

pytestmark = pytest.mark.pure_engine  # the toy expansion patches game.expansions_for (tests/conftest.py)


class MarkView(ExpansionView):
    """The toy's markers as a plane; each seat's DOM held, as a seat-relative entry."""

    name = "EXP-01"  # the toy rides on an EXP-01 configuration
    version = 7
    phases = ("toy-choice",)
    effect_kinds = ("place-tile",)

    def planes(self, enc):
        return [("toy_marks", 1)]

    def vector(self, enc):
        return [("toy_dom", (enc.num_players,), "p")]

    def scales(self, enc):
        return {"toy_dom": 1.0 / 8.0}

    def encode_vector(self, enc, game, v):
        o = enc.vector_offset("toy_dom")
        for p in range(game.num_players):
            v[o + p] = min(game.resources_of(p)[0], 8)

    def encode_planes(self, enc, game, out):
        o = enc.plane_offset("toy_marks")
        for c in game.ext["TOY"].marks:
            out[o + c] = 1.0


def test_an_expansion_view_adds_planes_entries_kinds_and_its_version(monkeypatch):
    with toy_game(monkeypatch):
        plain = Encoder("exp01-4p")
        monkeypatch.setitem(EXPANSION_VIEWS, "EXP-01", MarkView())
        assert encoder_version("exp01-4p") == "2+EXP-01.7" and encoder_version("core-4p") == 2
        enc = Encoder("exp01-4p")
        n = enc.num_cells
        assert enc.num_channels == plain.num_channels + 1 and enc.channel_names[-1] == "toy_marks/0"
        assert enc.size_total == plain.size_total + n + 4 + 1 + 1  # a plane, 4 seats, a phase, an effect kind
        assert enc.phase_names[-1] == "toy-choice" and enc.effect_kinds[-1] == "place-tile"
        sc = Scenario("exp01-4p")
        sc.put("8,7", "Committee")
        sc.data["toy"]["marks"] = ["8,7"]
        sc.resources(1, DOM=2)
        game = sc.game()
        for observer in range(4):
            views = enc.views(enc.encode(game, observer))
            assert views["toy_marks"][0].reshape(-1)[game.topo.parse("8,7")] == 1.0
            assert views["toy_marks"].sum() == 1.0
            # seat-relative: relative seat k is (observer + k) % 4; seat 1 holds 2 DOM -> 2/8
            expected = np.zeros(4, dtype=np.float32)
            expected[(1 - observer) % 4] = 0.25
            assert np.array_equal(views["toy_dom"], expected)
        # the built-in views are those of the plain encoder, value for value
        a, b = enc.views(enc.encode(game, 0)), plain.views(plain.encode(game, 0))
        for name in plain.spec:
            if name not in ("phase", "effect_kind"):
                assert np.array_equal(a[name], b[name]), name


def test_an_expansion_decision_and_effect_kind_are_encoded(monkeypatch):
    """A decision the expansion adds (a placement cost on the pipeline, EXP-03-08-M12 / R54) needs its kind in
    the ``effect_kind`` view: the view declares it."""
    with toy_game(monkeypatch):
        monkeypatch.setitem(EXPANSION_VIEWS, "EXP-01", MarkView())
        enc = Encoder("exp01-4p")
        game = _storm({"DOM": 1, "FOR": 1}).game()
        while game.active == 1:
            game.apply(game.legal_actions()[0])
        act(game, "place-tile 8,7")
        assert game.phase_name == "pay"
        views = enc.views(enc.encode(game, 2))
        assert views["effect_kind"][-1] == 1.0 and views["effect_kind"].sum() == 1.0
        assert views["phase"][enc.phase_names.index("pay")] == 1.0
