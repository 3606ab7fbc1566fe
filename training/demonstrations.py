"""Demonstrations for behaviour cloning and DAgger (:func:`collect_demonstrations`): a teacher bot's decisions, as
(observation, legal mask, action, value target, weight) arrays. Torch-free, so its worker processes start quickly."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from bc_env.encoding import Encoder
from bc_env.env.rewards import terminal_rewards
from bc_env.rules import Game, RulesConfig
from policies import load as load_policy
from policies.heuristic import FirstChoice
from policies.neural import NeuralPolicy


def _demonstration_games(
    args: tuple[RulesConfig, list[int], int, float, str, str | None, str, float],
) -> tuple[list, list, list, list[float], list[float]]:
    """Worker of :func:`collect_demonstrations`: the games with the given indices."""
    rules, indices, seed, gamma, reward, learner_path, teacher, mistake_weight = args
    encoder = Encoder(rules)
    learner = NeuralPolicy(learner_path) if learner_path else None
    obs, masks, acts, values, weights = [], [], [], [], []
    for i in indices:
        game = Game.new(rules, seed + i)
        bots = [load_policy("heuristic", seed=seed + 7 * i + s) for s in range(rules.players)]
        bots[0] = load_policy(teacher, seed=seed + 7 * i)
        bots[0].rng = FirstChoice()  # type: ignore[attr-defined]  # canonical tie-breaks: labels fit the position
        if i % 3 == 2:  # some games against random play, so the demonstrations also see lopsided positions
            bots[1:] = [load_policy("random", seed=seed + 7 * i + s) for s in range(1, rules.players)]
        demo_seat = i % rules.players
        decisions = 0  # every decision of the demonstrating seat is a step of the single-agent env
        recorded: list[int] = []
        while not game.is_terminal():
            p = game.current_player
            assert p is not None
            action = bots[(p - demo_seat) % rules.players].act(game)
            if p == demo_seat:
                label = action  # the teacher's label, also where the learner drives (DAgger)
                if learner is not None:
                    action = learner.act(game)
                if len(game.legal_actions()) > 1:
                    obs.append(encoder.encode(game, p))
                    masks.append(game.legal_action_mask())
                    acts.append(label)
                    weights.append(mistake_weight if action != label else 1.0)
                    recorded.append(decisions)
                decisions += 1
            game.apply(action)
        final = terminal_rewards(game, reward)[demo_seat]  # the env's terminal reward
        values.extend(final * gamma ** (decisions - 1 - k) for k in recorded)
    return obs, masks, acts, values, weights


def collect_demonstrations(
    rules: RulesConfig,
    games: int,
    seed: int,
    gamma: float = 0.995,
    workers: int = 1,
    reward: str = "zero_sum",
    learner: str | Path | None = None,
    teacher: str = "heuristic",
    mistake_weight: float = 1.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(observation, legal mask, action, value target, weight) of the ``teacher`` bot's decisions in games against the
    heuristic bot (every third game against random play); the value target is the discounted final reward
    (``reward`` scheme) of the demonstrating seat. The teacher breaks ties canonically
    (:class:`policies.heuristic.FirstChoice`), so every label is a function of the position.
    With ``learner`` (an exported policy) the learner plays the demonstrating seat and the teacher only
    labels its positions (DAgger: the data then covers the positions the learner's own mistakes lead to); a
    position where the learner's own choice differs from the label gets weight ``mistake_weight``, every other
    one 1. Games are
    split over ``workers`` processes (the result does not depend on how many)."""
    workers = max(1, min(workers, games))
    bounds = [games * w // workers for w in range(workers + 1)]  # contiguous chunks: the order of the games
    path = str(learner) if learner is not None else None
    jobs = [
        (rules, list(range(bounds[w], bounds[w + 1])), seed, gamma, reward, path, teacher, mistake_weight)
        for w in range(workers)
    ]
    if len(jobs) > 1:
        # Started fresh (spawn), never forked: the caller may be training, with torch's threads running, and a
        # forked child can deadlock on a lock one of those threads held (this module imports no torch). An executor,
        # not multiprocessing.Pool: a worker that dies raises BrokenProcessPool instead of waiting forever.
        with ProcessPoolExecutor(len(jobs), mp_context=multiprocessing.get_context("spawn")) as pool:
            parts = list(pool.map(_demonstration_games, jobs))
    else:
        parts = [_demonstration_games(j) for j in jobs]
    obs = np.array([x for part in parts for x in part[0]], dtype=np.float32)
    masks = np.array([x for part in parts for x in part[1]], dtype=bool)
    acts = np.array([x for part in parts for x in part[2]], dtype=np.int64)
    vals = np.array([x for part in parts for x in part[3]], dtype=np.float32)
    weights = np.array([x for part in parts for x in part[4]], dtype=np.float32)
    return obs, masks, acts, vals, weights
