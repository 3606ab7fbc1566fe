"""Rule variants compared on paired deals (``balance-control compare``): every configuration plays the same
deals (engine seeds) with the same bots in the same seat rotations (the runner's paired schedule,
:func:`benchmarking.runner.match_schedule`), so a difference between two configurations is measured deal by
deal rather than against the noise of different deals.

Per game the comparison reads (:func:`game_metrics`): the start player's and the last-turn player's score (a
victory shared by ``k`` counts ``1/k``), a shared victory, an outright victory of the start player, rounds,
decisions, the winner's Influence margin and the share of produced Resources spent (from the game's events,
:func:`benchmarking.report.game_facts`). Per configuration: the mean and a 95% bootstrap interval over deals.
Against the first configuration: the mean paired difference with a 95% bootstrap interval over deals and an
exact two-sided **sign test** over deals (the deals where the metric rose against those where it fell; with
one game per deal and a yes/no metric that is McNemar's exact test). Deals, not games, are the resampled unit:
the games of one deal share its tiles.
"""

from __future__ import annotations

import html
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bc_env.rules import RulesConfig

from .report import game_facts
from .runner import match_schedule, run_games
from .tournament import game_record

#: Metric key -> what it means (the order of the tables).
METRICS = {
    "start": "start player's win rate",
    "last_turn": "last-turn player's win rate",
    "shared": "shared victory",
    "start_outright": "start player wins outright",
    "rounds": "rounds",
    "decisions": "decisions",
    "margin": "winner's Influence margin",
    "spent_share": "Resources spent / produced",
}
#: Metrics printed as percentages.
RATES = {"start", "last_turn", "shared", "start_outright", "spent_share"}
BOOTSTRAP = 2000


def game_metrics(rec: dict[str, Any], config: RulesConfig) -> dict[str, float]:
    """The metrics of one game record (:func:`benchmarking.tournament.game_record`)."""
    facts = game_facts(rec, config)
    n, winners, first = len(rec["seats"]), rec["winners"], rec["start_player"]
    k = len(winners)
    last_seat = (first + facts.last_turn) % n
    infl = rec["influence"]
    losers = [infl[s] for s in range(n) if s not in winners]
    produced = sum(facts.produced.values())
    return {
        "start": 1.0 / k if first in winners else 0.0,
        "last_turn": 1.0 / k if last_seat in winners else 0.0,
        "shared": float(k > 1),
        "start_outright": float(winners == [first]),
        "rounds": float(rec["rounds"]),
        "decisions": float(rec["decisions"]),
        "margin": float(max(infl) - max(losers)) if losers else 0.0,
        "spent_share": sum(facts.spent.values()) / produced if produced else 0.0,
    }


def sign_test(up: int, down: int) -> float:
    """Exact two-sided sign test: the probability of a split at least this uneven of ``up + down`` fair coins."""
    m = up + down
    if m == 0:
        return 1.0
    tail = sum(math.comb(m, i) for i in range(min(up, down) + 1)) / 2.0**m
    return min(1.0, 2.0 * tail)


def bootstrap_ci(values: Sequence[float], rng: random.Random, rounds: int = BOOTSTRAP) -> tuple[float, float]:
    """95% percentile bootstrap interval of the mean of ``values``."""
    n = len(values)
    if n == 0:
        return (math.nan, math.nan)
    means = sorted(sum(values[rng.randrange(n)] for _ in range(n)) / n for _ in range(rounds))
    return (means[int(0.025 * rounds)], means[int(0.975 * rounds) - 1])


@dataclass
class Comparison:
    """The outcome of :func:`compare`: per configuration and deal, the mean of each metric over the deal's games."""

    labels: list[str]
    configs: list[RulesConfig]
    bots: list[str]
    deals: int
    seed: int
    #: label -> metric -> per-deal means (deal order).
    per_deal: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    #: The games' log records (each configuration's, in schedule order), for the report.
    records: list[dict[str, Any]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """Means with intervals per configuration, and the paired differences against the first one."""
        rng = random.Random(self.seed)
        base = self.labels[0]
        out: dict[str, Any] = {"configs": {}, "differences": {}}
        for label in self.labels:
            out["configs"][label] = {
                m: {"mean": _mean(v), "ci95": list(bootstrap_ci(v, rng))} for m, v in self.per_deal[label].items()
            }
        for label in self.labels[1:]:
            diffs = {}
            for m in METRICS:
                d = [b - a for a, b in zip(self.per_deal[base][m], self.per_deal[label][m])]
                up, down = sum(x > 1e-12 for x in d), sum(x < -1e-12 for x in d)
                diffs[m] = {
                    "difference": _mean(d),
                    "ci95": list(bootstrap_ci(d, rng)),
                    "deals_up": up,
                    "deals_down": down,
                    "p_sign_test": sign_test(up, down),
                }
            out["differences"][label] = diffs
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "configs": {lab: c.to_dict() for lab, c in zip(self.labels, self.configs)},
            "bots": self.bots,
            "deals": self.deals,
            "games_per_config": self.deals * len(self.bots),
            "seed": self.seed,
            "metrics": METRICS,
            "summary": self.summary(),
        }

    def rows(self) -> tuple[list[str], list[list[str]]]:
        """The comparison as one table: a row per metric, a column per configuration."""
        s = self.summary()
        head = [
            "metric",
            *[f"{lab}" + ("" if i == 0 else f" (vs {self.labels[0]})") for i, lab in enumerate(self.labels)],
        ]
        rows = []
        for m, what in METRICS.items():
            cells = [what]
            for i, lab in enumerate(self.labels):
                c = s["configs"][lab][m]
                cell = _fmt(m, c["mean"], c["ci95"])
                if i:
                    d = s["differences"][lab][m]
                    lo, hi = d["ci95"]
                    sign = _fmt(m, d["difference"], [lo, hi], signed=True)
                    cell += f"; {sign}, p={d['p_sign_test']:.3g}"
                cells.append(cell)
            rows.append(cells)
        return head, rows

    def significant(self) -> list[str]:
        """The differences whose sign test gives p < 0.05 and whose interval excludes 0, in words."""
        s, out = self.summary(), []
        base = self.per_deal[self.labels[0]]
        for label, diffs in s["differences"].items():
            same = (
                base["last_turn"] == base["start"]
                and self.per_deal[label]["last_turn"] == self.per_deal[label]["start"]
            )
            for m, d in diffs.items():
                if m == "last_turn" and same:
                    continue  # the start player takes the last turn in both: told once
                lo, hi = d["ci95"]
                if d["p_sign_test"] < 0.05 and (lo > 0 or hi < 0):
                    change = _fmt(m, d["difference"], [lo, hi], signed=True)
                    out.append(f"{label} against {self.labels[0]}: {METRICS[m]} {change}, p={d['p_sign_test']:.3g}")
        return out

    def text(self) -> str:
        head, rows = self.rows()
        lines = [
            f"{self.deals} deals x {len(self.bots)} seat rotations per configuration, bots {','.join(self.bots)}, "
            f"seed {self.seed}. Mean (95% bootstrap CI over deals); against {self.labels[0]}: paired difference "
            "(95% CI), exact sign test over deals.",
            "| " + " | ".join(head) + " |",
            "|" + "---|" * len(head),
        ]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        sig = self.significant()
        lines.append("Significant differences (p < 0.05, interval excludes 0): " + ("; ".join(sig) or "none"))
        return "\n".join(lines)

    def html(self) -> str:
        """The report's section for this comparison."""
        from .report import _div, _table

        head, rows = self.rows()
        found = "".join(f'<li class="alert">{html.escape(x)}</li>' for x in self.significant())
        return (
            "<h2>Paired comparison</h2>"
            "<p>Significant differences (sign test p &lt; 0.05, interval excludes 0):</p>"
            f'<ol class="findings">{found or "<li class=note>none</li>"}</ol>'
            f"<p>{self.deals} deals, each played by every configuration in all {len(self.bots)} seat rotations "
            f"with the bots {', '.join(self.bots)} (seed {self.seed}). Each cell: the mean (95% bootstrap "
            f"interval over deals); against {self.labels[0]}: the paired difference (95% interval) and the "
            "exact sign test's p over deals. A p below 0.05 whose interval excludes 0 is a real difference.</p>"
            + _div(_table(head, rows))
        )


def _mean(v: Sequence[float]) -> float:
    return sum(v) / len(v) if v else math.nan


def _fmt(metric: str, value: float, ci: Sequence[float], signed: bool = False) -> str:
    if metric in RATES:
        f = "{:+.1%}" if signed else "{:.1%}"
        return f"{f.format(value)} ({ci[0]:.1%} .. {ci[1]:.1%})"
    f = "{:+.2f}" if signed else "{:.2f}"
    return f"{f.format(value)} ({ci[0]:.2f} .. {ci[1]:.2f})"


def labelled(specs: Sequence[str]) -> tuple[list[str], list[RulesConfig]]:
    """The configurations of ``specs`` (preset names or rules files), each named by its spec (a file by its stem,
    with a number added when two are the same) so that their games stay apart in the report."""
    configs, labels = [], []
    for spec in specs:
        label = spec if spec in _presets() else Path(spec).stem
        while label in labels:
            label += "'"
        labels.append(label)
        configs.append(RulesConfig.resolve(spec).replace(name=label))
    return labels, configs


def _presets() -> list[str]:
    from bc_env.rules import preset_names

    return preset_names()


def compare(
    specs: Sequence[str | RulesConfig], bots: Sequence[str], deals: int, seed: int = 0, workers: int = 1
) -> Comparison:
    """Play ``deals`` deals of every configuration (in all seat rotations of ``bots``) and compare them."""
    if len(specs) < 2:
        raise ValueError("compare needs at least two configurations")
    if deals < 1:
        raise ValueError(f"deals must be >= 1, got {deals}")
    if all(isinstance(s, RulesConfig) for s in specs):
        configs = list(specs)  # type: ignore[arg-type]
        labels = [c.name for c in configs]
    else:
        labels, configs = labelled([str(s) for s in specs])
    players = {c.players for c in configs}
    if len(players) != 1:
        raise ValueError(f"the configurations have different player counts ({sorted(players)}): compare like with like")
    n = players.pop()
    if len(bots) != n:
        raise ValueError(f"give one bot per seat ({n}), got {len(bots)}")
    cmp = Comparison(labels, configs, list(bots), deals, seed)
    for label, cfg in zip(labels, configs):
        schedule = match_schedule(cfg, bots, deals * n, seed, paired=True)
        per_game: list[dict[str, float]] = []
        for result in sorted(run_games(schedule, workers), key=lambda r: r.index):
            rec = game_record(result, cfg)
            cmp.records.append(rec)
            per_game.append(game_metrics(rec, cfg))
        cmp.per_deal[label] = {
            m: [_mean([g[m] for g in per_game[d * n : (d + 1) * n]]) for d in range(deals)] for m in METRICS
        }
    return cmp


__all__ = ["METRICS", "Comparison", "bootstrap_ci", "compare", "game_metrics", "sign_test"]
