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


def plot_learning_curve(evals: list[dict[str, Any]], path: Path, title: str, xlabel: str = "environment steps") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    steps = [e["step"] for e in evals]
    for opponent, color in (("random", "tab:blue"), ("heuristic", "tab:red")):
        rate = [e[opponent]["win_rate"] for e in evals]
        lo = [e[opponent]["ci_low"] for e in evals]
        hi = [e[opponent]["ci_high"] for e in evals]
        ax.plot(steps, rate, marker="o", color=color, label=f"vs {opponent}")
        ax.fill_between(steps, lo, hi, color=color, alpha=0.15)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("win rate (95% CI)")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
