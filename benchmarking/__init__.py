"""Benchmarking bots: the one game runner (:mod:`.runner`: matches, match files, every game of a tournament or
SPRT; outside programs as bots, :mod:`.external`), tournaments with resumable JSON-lines logs (:mod:`.tournament`),
paired-deal evaluation (:mod:`.paired`), OpenSkill ratings and pairwise scores (:mod:`.ratings`), a sequential test
(:mod:`.sprt`), a balance report for the game's designer (:mod:`.report`) and scale-out on Ray (:mod:`.ray_runner`).
See ``docs/benchmarking.md``."""

from .errors import TournamentError, TournamentLogError

__all__ = ["TournamentError", "TournamentLogError"]
