"""EXP-02's encoder views (views.py): Regulations per tile and type, the tiles the EXP-02 durations mark, the
pending Regulation decision, the "this turn" windows, Risk Address and the global cards in force.

Planes (observer-independent):

* ``regulations`` (4 channels, ``exp02.TYPE_NAMES`` order): the number of Regulations of that type on the tile,
  ``min(n, 4) / 4`` (EXP-02-02-A-09/10: they stack);
* ``regulation_marks`` (4 channels): Surveillance (EXP-02-08-M13, R47), File Status (M14, R46), the Hotspot a
  De-escalation / Loss of Control acts on at the next settlement (M08, M12, R44), and the tile of the pending
  decision (the Regulation being moved, or the Inner Order being resolved).

Vector entries: ``regulation_pending_type`` (the type of the Regulation being moved), ``regulation_window``
(per seat: Deployment Order / Competence Conflict windows, R31), ``risk_address`` (per seat: may not PlayMeasure
this round / next round, M11), ``regulation_globals`` (Order Partnership, Parliamentary Oversight, State of
Exception, Situation Assessment in force), ``regulations_attached`` (how many are attached, / 16, capped).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from bc_env.rules.expansions import exp02

from .views import ExpansionView, VectorEntry, register_view

if TYPE_CHECKING:
    from bc_env.rules import Game

    from .observation import Encoder

_MARKS = {"EXP-02-M13": 0, "EXP-02-M14": 1, "EXP-02-M08": 2, "EXP-02-M12": 2}
_GLOBALS = ("EXP-02-M06", "EXP-02-M09", "EXP-02-M10", "EXP-02-M15")
_WINDOWS = ("EXP-02-M03", "EXP-02-M05")


class Exp02View(ExpansionView):
    name = "EXP-02"
    version = 1
    phases = ("regulation-place", "regulation-pick", "regulation-move-to", "inner-order", "production-tax",
              "regulation-pay")  # fmt: skip
    effect_kinds = ("authority", "io-place", "io-move")

    def planes(self, enc: Encoder) -> list[tuple[str, int]]:
        return [("regulations", 4), ("regulation_marks", 4)]

    def vector(self, enc: Encoder) -> list[VectorEntry]:
        p = enc.num_players
        return [
            ("regulation_pending_type", (4,), ""),
            ("regulation_window", (p, 2), "p"),
            ("risk_address", (p, 2), "p"),
            ("regulation_globals", (len(_GLOBALS),), ""),
            ("regulations_attached", (1,), ""),
        ]

    def scales(self, enc: Encoder) -> dict[str, float | np.ndarray]:
        return {"regulations_attached": 1.0 / 16.0}

    def encode_vector(self, enc: Encoder, game: Game, v: list[float]) -> None:
        dec = game.decision
        if isinstance(dec, exp02.RegulationChoice) and dec.rtype >= 0:
            v[enc.vector_offset("regulation_pending_type") + dec.rtype] = 1.0
        o_win, o_risk = enc.vector_offset("regulation_window"), enc.vector_offset("risk_address")
        o_glob = enc.vector_offset("regulation_globals")
        for a in game.active_effects:
            if a.id in _WINDOWS:
                v[o_win + a.owner * 2 + _WINDOWS.index(a.id)] = 1.0
            elif a.id == "EXP-02-M11":
                q = a.get("target")
                v[o_risk + q * 2 + (1 if a.from_round > game.round else 0)] = 1.0
            elif a.id in _GLOBALS and a.from_round <= game.round:
                v[o_glob + _GLOBALS.index(a.id)] = 1.0
        v[enc.vector_offset("regulations_attached")] = min(exp02.state(game).count(), 16)

    def encode_planes(self, enc: Encoder, game: Game, out: np.ndarray) -> None:
        n = enc.num_cells
        o = enc.plane_offset("regulations")
        for cell, counts in exp02.state(game).on.items():
            for t in range(4):
                if counts[t]:
                    out[o + t * n + cell] = min(counts[t], 4) / 4.0
        o = enc.plane_offset("regulation_marks")
        for a in game.active_effects:
            channel = _MARKS.get(a.id)
            if channel is not None:
                out[o + channel * n + a.get("cell")] = 1.0
        dec = game.decision
        if isinstance(dec, exp02.RegulationChoice) and dec.src >= 0:
            out[o + 3 * n + dec.src] = 1.0
        elif isinstance(dec, exp02.ProductionTax):
            out[o + 3 * n + dec.cell] = 1.0


register_view(Exp02View())

__all__ = ["Exp02View"]
