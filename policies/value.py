"""A value network on NumPy alone: the final Influence margin predicted from a position (issue 27 item 3).

``features(game, p)`` describes a position from player ``p``'s view in a few numbers per player (``p`` first, then
the others in seat order after ``p``): Influence on the Board, in the supply, Starting Influence not yet placed,
Influence created, Political Actions left (``game.turns_left``), Resources held, the heuristic's score
(``policies.heuristic.player_scores``), unresolved Hotspots held by a strict majority and of those the ones one
tile from closing; and for the game: tiles left in the DrawPile, whether the FormalizeInfluence gate is open
(CORE-01-08-02) and whether ``p`` is the active player. Everything in it is public (RULINGS R19).

The network, ``features -> standardise -> [Linear -> relu] * k -> Linear``, predicts ``p``'s final margin: its
Influence on the Board at the end minus the best opponent's (CORE-01-09-03). :meth:`ValueNet.values` turns the
margins of all players into values in ``[-1, 1]`` for a search (``tanh(slope * margin)``; with two players the
mean of the two views, so that the values are zero-sum like ``game.returns()``).

A value network is two files in ``policies/values/``: ``value-<config>.npz`` (arrays ``mean``, ``std``, ``w0``,
``b0``, ...; float32; loaded with ``allow_pickle=False``, never a pickle) and ``value-<config>.json`` (format,
rules configuration name, players, feature count, layer sizes, slope, and how it was trained).
``tools/train_value.py`` generates the games, trains with torch and exports; the forward pass here is checked
against torch's (``tests/test_value.py``).
"""

from __future__ import annotations

import json
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from bc_env.rules import Game
from bc_env.rules.components import HOTSPOT

from .exp02_values import places_influence
from .heuristic import player_scores
from .neural import PolicyFileError

FORMAT = "balance-control-value"
VALUES_DIR = Path(__file__).resolve().parent / "values"
PER_PLAYER = 9
GLOBAL = 3


def num_features(players: int) -> int:
    return PER_PLAYER * players + GLOBAL


def features(game: Game, p: int) -> np.ndarray:
    """The position from ``p``'s view (module docstring), float32."""
    n = game.num_players
    scores = player_scores(game)
    held = [0] * n
    closing = [0] * n
    tile_at, kind_at, resolved, nbrs = game.tile_at, game.kind_at, game.resolved, game.topo.neighbors
    for c in game.nonstart:
        if kind_at[c] != HOTSPOT or resolved[c] or not places_influence(game, tile_at[c]):
            continue
        t = game.totals(c)
        top = max(t)
        if top > 0 and t.count(top) == 1:
            q = t.index(top)
            held[q] += 1
            if sum(1 for nb in nbrs[c] if tile_at[nb] < 0) == 1:
                closing[q] += 1
    r = game.num_resorts
    out: list[float] = []
    for i in range(n):
        q = (p + i) % n
        out += [
            game.on_board[q],
            game.supply[q],
            game.starting[q] - game.deployed[q],
            game.created[q],
            game.turns_left(q),
            sum(game.res[q * r : (q + 1) * r]),
            scores[q],
            held[q],
            closing[q],
        ]
    out += [len(game.draw_pile), float(game.formalize_gate_open()), float(game.active == p)]
    return np.asarray(out, dtype=np.float32)


class ValueNet:
    """A trained value network (module docstring); ``margin(x)`` for a batch or one feature vector."""

    def __init__(self, arrays: dict[str, np.ndarray], manifest: dict[str, Any]) -> None:
        self.manifest = manifest
        self.players = int(manifest["players"])
        self.slope = float(manifest["slope"])
        self.mean = arrays["mean"]
        self.std = arrays["std"]
        k = int(manifest["layers"])
        self.weights = [(arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(k + 1)]

    def margin(self, x: np.ndarray) -> np.ndarray:
        h = (np.asarray(x, dtype=np.float32) - self.mean) / self.std
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(self.weights):
            h = h @ w.T + b
            if i < last:
                h = np.maximum(h, 0.0)
        return h[..., 0]

    def values(self, game: Game) -> list[float]:
        """A value in ``[-1, 1]`` per player (zero-sum with two players)."""
        n = game.num_players
        m = self.margin(np.stack([features(game, p) for p in range(n)]))
        if n == 2:
            d = float(m[0] - m[1]) / 2.0
            v = float(np.tanh(self.slope * d))
            return [v, -v]
        return [float(np.tanh(self.slope * float(x))) for x in m]


def load_value(game_or_name: Game | str | Path) -> ValueNet:
    """The shipped value network for a game's configuration (``Game``), or the one named / at a path."""
    if isinstance(game_or_name, Game):
        path = VALUES_DIR / f"value-{game_or_name.config.name}"
    else:
        path = Path(game_or_name)
        if not path.suffix and "/" not in str(game_or_name):
            path = VALUES_DIR / str(game_or_name)
    npz, meta = path.with_suffix(".npz"), path.with_suffix(".json")
    if not npz.is_file() or not meta.is_file():
        raise PolicyFileError(f"value network {path}: no {npz.name} and {meta.name}")
    try:
        manifest = json.loads(meta.read_text())
        if manifest.get("format") != FORMAT:
            raise PolicyFileError(f"{meta}: format must be {FORMAT!r}, got {manifest.get('format')!r}")
        with np.load(npz, allow_pickle=False) as data:
            arrays = {k: np.asarray(data[k], dtype=np.float32) for k in data.files}
        net = ValueNet(arrays, manifest)
        if net.mean.shape != (num_features(net.players),):
            raise PolicyFileError(f"{npz}: mean has shape {net.mean.shape}, expected ({num_features(net.players)},)")
        width = net.mean.shape[0]
        for i, (w, b) in enumerate(net.weights):
            if w.ndim != 2 or w.shape[1] != width or b.shape != (w.shape[0],):
                raise PolicyFileError(f"{npz}: layer {i} has shapes {w.shape} / {b.shape}")
            if not (np.isfinite(w).all() and np.isfinite(b).all()):
                raise PolicyFileError(f"{npz}: layer {i} has non-finite weights")
            width = w.shape[0]
        if width != 1:
            raise PolicyFileError(f"{npz}: the last layer must have one output, has {width}")
    except PolicyFileError:
        raise
    except (KeyError, ValueError, TypeError, OSError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
        raise PolicyFileError(f"value network {path}: {exc}") from None
    return net


__all__ = ["FORMAT", "VALUES_DIR", "ValueNet", "features", "load_value", "num_features"]
