"""EXP-03's own encoder views (views.py): its decisions, the tile-placement cost, Carbon Levy's window and
target resort, the Transformation Directive tiles, the CountdownMarkers and the pending EXP-03 decisions.

The built-in views already cover the CLM resort (every per-resort view), the Transformationsdruck (``tile_special``),
the EXP-03 Measure cards and the effects in force (by card), so this view adds only what they cannot show.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bc_env.rules.effects import END_OF_NEXT_ROUND, PLACE_TILE
from bc_env.rules.expansions.exp03 import Replacement, Transfer

from .views import ExpansionView, VectorEntry, register_view

if TYPE_CHECKING:
    import numpy as np

    from bc_env.rules import Game

    from .observation import Encoder


class Exp03View(ExpansionView):
    name = "EXP-03"
    version = 1
    #: Greenwashing's replacement (EXP-03-08-M05-05) and Intergenerational Pact's transfer (EXP-03-08-M13).
    phases = ("replacement", "transfer")
    #: A tile placement with a cost (Extreme Weather Event, EXP-03-08-M12, RULINGS R54).
    effect_kinds = (PLACE_TILE,)
    #: Carbon Levy's "until the end of the next round" (EXP-03-08-M02-04, RULINGS R39).
    timings = (END_OF_NEXT_ROUND,)

    def planes(self, enc: Encoder) -> list[tuple[str, int]]:
        # EXP-03-08-M01: tiles under a Transformation Directive; EXP-03-02-C: CountdownMarkers on the board.
        return [("exp03_directed", 1), ("exp03_countdown", 1)]

    def vector(self, enc: Encoder) -> list[VectorEntry]:
        return [
            ("exp03_levied", (len(enc.config.resorts),), ""),  # EXP-03-08-M02-03: resorts under a Carbon Levy
            ("exp03_countdown_supply", (1,), ""),  # EXP-03-02-C-02: markers left in the CountdownSupply
            ("exp03_replacement_effect", (2,), ""),  # pending Greenwashing replacement: formalize / hotspot
            ("exp03_transfer_payer", (enc.num_players,), "p"),  # pending Pact transfer: the player picking a resort
        ]

    def scales(self, enc: Encoder) -> dict[str, float]:
        return {"exp03_countdown_supply": 1.0 / max(1, enc.config.countdown_supply)}

    def encode_vector(self, enc: Encoder, game: Game, v: list[float]) -> None:
        o = enc.vector_offset("exp03_levied")
        for a in game.active_effects:
            if a.id == "EXP-03-M02":
                v[o + a.get("resort")] = 1.0
        state = game.ext.get("EXP-03")
        if state is not None:
            v[enc.vector_offset("exp03_countdown_supply")] = min(state.supply, enc.config.countdown_supply)
        dec = game.decision
        if isinstance(dec, Replacement):
            v[enc.vector_offset("exp03_replacement_effect") + (dec.effect == "hotspot")] = 1.0
        elif isinstance(dec, Transfer) and dec.payer >= 0:
            v[enc.vector_offset("exp03_transfer_payer") + dec.payer] = 1.0

    def encode_planes(self, enc: Encoder, game: Game, out: np.ndarray) -> None:
        o = enc.plane_offset("exp03_directed")
        for a in game.active_effects:
            if a.id == "EXP-03-M01":
                out[o + a.get("cell")] = 1.0
        state = game.ext.get("EXP-03")
        if state is not None and state.attached:
            total = max(1, enc.config.countdown_supply)
            o = enc.plane_offset("exp03_countdown")
            for cell, n in state.attached.items():
                out[o + cell] = min(1.0, n / total)


register_view(Exp03View())

__all__ = ["Exp03View"]
