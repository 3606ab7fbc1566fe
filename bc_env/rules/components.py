"""The tile catalogue as data (CORE-01-02, ADD56-01-01; each expansion adds its own, e.g. EXP-01-02).

Tiles are numbered by their position in :func:`build_catalogue`'s output; tile 0 is always the
Start Committee. The order is part of the JSON state schema (a tile id indexes this catalogue), so
it only ever changes together with the schema version.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from .config import RulesConfig

# Tile kinds (CORE-01-02-04; SYSTEM tiles come with the expansions). Final: the compiled engine inlines them.
START: Final = 0
RESORT: Final = 1
COMMITTEE: Final = 2
GRASSROOTS: Final = 3
LOBBYIST: Final = 4
HOTSPOT: Final = 5
SYSTEM: Final = 6

KIND_NAMES = ("start-committee", "resort", "committee", "grassroots", "lobbyist", "hotspot", "system")


@dataclass(frozen=True)
class TileSpec:
    id: int
    kind: int
    name: str
    #: Resort index (into config.resorts) for ResortTiles; -1 otherwise.
    resort: int = -1
    #: Printed production value (CORE-01-02-17); 0 for non-resort tiles.
    value: int = 0
    #: Index into config.grassroots_texts for Grassroots tiles; -1 otherwise.
    text: int = -1
    #: Printed label of a Hotspot (ADD56-01-01-14..16: labels do not change resolution).
    label: str = ""
    #: A tile with its own text: "labor-market" (EXP-01-02-10), "investment-program" (EXP-01-02-13).
    special: str = ""

    @property
    def code(self) -> str:
        """Two-character code for the text rendering."""
        if self.kind == RESORT:
            return self.name[0] + str(self.value)
        if self.special:
            return {LABOR_MARKET: "LM", INVESTMENT_PROGRAM: "IP", INNER_ORDER: "IO", AUTHORITY_APPARATUS: "AA",
                    TRANSFORMATIONSDRUCK: "TD"}[self.special]  # fmt: skip
        return {START: "SC", COMMITTEE: "Co", GRASSROOTS: "Gr", LOBBYIST: "Lo", HOTSPOT: "Ho", SYSTEM: "Sy"}[self.kind]


LABOR_MARKET = "labor-market"
INVESTMENT_PROGRAM = "investment-program"
INNER_ORDER = "inner-order"  # EXP-02-02-G
AUTHORITY_APPARATUS = "authority-apparatus"  # EXP-02-05
TRANSFORMATIONSDRUCK = "transformationsdruck"  # EXP-03-02-B: the Hotspot that may hold CountdownMarkers

# CORE-01-02-10..12: W1x2, W2x4, W3x4, W4x1, W5x1 per core resort.
CORE_RESORT_COUNTS = ((1, 2), (2, 4), (3, 4), (4, 1), (5, 1))
# ADD56-01-01-02..10: one more W2, W3, W4 per core resort.
ADD56_RESORT_COUNTS = ((2, 1), (3, 1), (4, 1))
#: add(kind, name, **fields): append a tile to the catalogue being built (Expansion.add_tiles).
TileAdder = Callable[..., None]


def add_resort_tiles(add: TileAdder, name: str, resort: int, counts: tuple[tuple[int, int], ...]) -> None:
    """The ResortTiles of one resort: ``n`` tiles "NAME-Wv" of printed value ``v`` for each ``(v, n)`` of ``counts``."""
    for value, n in counts:
        for _ in range(n):
            add(RESORT, f"{name}-W{value}", resort=resort, value=value)


def build_catalogue(config: RulesConfig) -> tuple[TileSpec, ...]:
    """Every tile of the game, the Start Committee first (CORE-01-02-01)."""
    specs: list[TileSpec] = []

    def add(kind: int, name: str, **kw: Any) -> None:
        specs.append(TileSpec(len(specs), kind, name, **kw))

    add(START, "Start Committee")
    resorts = config.resorts
    for r, resort in enumerate(resorts[:3]):
        add_resort_tiles(add, resort, r, CORE_RESORT_COUNTS + (ADD56_RESORT_COUNTS if config.addon56 else ()))
    n_committees = 10 + (2 if config.addon56 else 0)  # CORE-01-02-13, ADD56-01-01-11
    n_grassroots = 8 + (2 if config.addon56 else 0)  # CORE-01-02-14, ADD56-01-01-13
    n_lobbyists = 9 + (3 if config.addon56 else 0)  # CORE-01-02-15, ADD56-01-01-12
    for _ in range(n_committees):
        add(COMMITTEE, "Committee")
    n_texts = len(config.grassroots_texts)
    for k in range(n_grassroots):
        add(GRASSROOTS, "Grassroots", text=k % n_texts)  # docs/rulings.md BC-09
    for _ in range(n_lobbyists):
        add(LOBBYIST, "Lobbyist")
    for _ in range(8):  # CORE-01-02-16
        add(HOTSPOT, "Hotspot")
    if config.addon56:
        add(HOTSPOT, "Hotspot (DOM)", label="DOM")  # ADD56-01-01-14
        add(HOTSPOT, "Hotspot (FOR)", label="FOR")  # ADD56-01-01-15
    # The expansions' tiles follow the core tiles in the order of their hooks, so core ids never change.
    from .expansions import expansions_for  # the expansions import this module

    for expansion in expansions_for(config):
        expansion.add_tiles(config, add)
    return tuple(specs)
