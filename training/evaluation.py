"""Evaluation of a trained policy against the baseline bots and the learning curve; used by the training core
(``training/core.py``) for every backend, torch-free."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bc_env.rules import RulesConfig
from benchmarking.runner import play_match


def evaluate(
    policy: Any, rules: RulesConfig, games: int, seed: int, opponents: tuple[str, ...] = ("random", "heuristic")
) -> dict[str, dict[str, float]]:
    """Win rate of ``policy`` against each of ``opponents`` (that bot in all other seats), seats rotated."""
    out = {}
    for opponent in opponents:
        entrants = [policy] + [opponent] * (rules.players - 1)
        match = play_match(rules, entrants, games, seed, rotate_seats=True, progress=False)
        stats = match.entrants[0]
        lo, hi = stats.ci95
        out[opponent] = {"win_rate": stats.win_rate, "ci_low": lo, "ci_high": hi, "games": games}
    return out


#: Line colours of the evaluation opponents (others take matplotlib's next colours).
COLORS = {"random": "tab:blue", "heuristic": "tab:red", "expert": "tab:green"}


def opponents_of(evals: list[dict[str, Any]]) -> list[str]:
    """The opponents evaluated against, in first-seen order (``random``, ``heuristic``, then e.g. ``expert``)."""
    seen: list[str] = []
    for e in evals:
        for k, v in e.items():
            if isinstance(v, dict) and "win_rate" in v and k not in seen:
                seen.append(k)
    return seen


def _wall_unit(seconds: float) -> tuple[str, float]:
    if seconds <= 180:
        return "seconds", 1.0
    if seconds <= 3 * 3600:
        return "minutes", 60.0
    return "hours", 3600.0


def _count(x: float, _pos: Any = None) -> str:
    """An axis label for a count: 0, 512, 25k, 1.2M."""
    for div, suffix in ((1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.4g}{suffix}"
    return f"{x:.4g}"


def learning_curve_figure(evals: list[dict[str, Any]], title: str, xlabel: str = "environment steps") -> Any:
    """The learning curve as a matplotlib figure: win rate (95% CI band) against each evaluation opponent, over
    ``xlabel`` (the evaluations' ``step``) on the left and over the run's wall time (their ``wall_seconds``) on the
    right; evaluations without a wall time (recorded before it was) are left out of the right panel."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (by_step, by_time) = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    timed = [e for e in evals if "wall_seconds" in e]
    unit, scale = _wall_unit(max((e["wall_seconds"] for e in timed), default=0.0))
    for opponent in opponents_of(evals):
        color = COLORS.get(opponent)
        for ax, key, div in ((by_step, "step", None), (by_time, "wall_seconds", scale)):
            rows = [e for e in evals if opponent in e and key in e]
            xs = [e[key] if div is None else e[key] / div for e in rows]
            rates = [e[opponent] for e in rows]
            (line,) = ax.plot(xs, [r["win_rate"] for r in rates], marker="o", color=color, label=f"vs {opponent}")
            color = line.get_color()  # the same colour in both panels
            lo, hi = [r["ci_low"] for r in rates], [r["ci_high"] for r in rates]
            ax.fill_between(xs, lo, hi, color=color, alpha=0.12)
            ax.vlines(xs, lo, hi, color=color, alpha=0.5, linewidth=1)  # each evaluation's interval, also alone
    by_step.set_xlabel(xlabel)
    by_time.set_xlabel(f"wall time ({unit})")
    by_step.set_ylabel("win rate (95% CI)")
    if not timed:
        by_time.text(0.5, 0.5, "no wall time recorded", ha="center", va="center", transform=by_time.transAxes)
    from matplotlib.ticker import FuncFormatter, PercentFormatter

    by_step.xaxis.set_major_formatter(FuncFormatter(_count))  # 300k, 1.2M: no offset label
    for ax in (by_step, by_time):
        ax.set_ylim(-0.03, 1.03)  # markers at 0% and 100% drawn whole
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set_xlim(left=0)
        ax.grid(alpha=0.3)
    by_step.legend(loc="best")
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_learning_curve(evals: list[dict[str, Any]], path: Path, title: str, xlabel: str = "environment steps") -> None:
    """:func:`learning_curve_figure` written to ``path`` (PNG)."""
    fig = learning_curve_figure(evals, title, xlabel)
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=110)
    plt.close(fig)
