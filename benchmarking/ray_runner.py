"""Games on a Ray cluster (``balance-control tournament --ray ADDRESS``).

:func:`ray_map` runs a function over tasks on the cluster; the game runner (:func:`benchmarking.runner.run_games`)
hands it :func:`benchmarking.runner.play_scheduled` and the schedule, the same pure function of its schedule entry
as in a local run, so a tournament on Ray gives the same log records, ratings and reports as one on this machine
for the same seeds. This module imports nothing of the runner's (no import circle).

``ADDRESS`` is what ``ray.init`` takes: ``auto`` (the
cluster this machine belongs to, after ``ray start``), ``ray://HOST:10001`` (Ray Client) or ``local`` (start a
private Ray instance on this machine with ``workers`` CPUs). When Ray is already initialized in this process
(tests, notebooks) that instance is used and left running. Every node needs this project installed (the same
version) and the bots' files at the same paths.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from .errors import TournamentError

T = TypeVar("T")
R = TypeVar("R")

#: Object store of a private local instance: the records are small.
LOCAL_OBJECT_STORE_BYTES = 200 * 1024 * 1024


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise TournamentError("--ray needs the tournament extra: pip install -e '.[tournament]'") from None
    return ray


def ray_map(fn: Callable[[T], R], pending: list[T], address: str, workers: int | None = None) -> Iterator[R]:
    """``fn`` of each of ``pending`` as the cluster finishes them (at most twice its CPUs in flight)."""
    ray = _ray()
    started = False
    if not ray.is_initialized():
        try:
            if address == "local":
                ray.init(
                    num_cpus=workers or os.cpu_count() or 1,
                    object_store_memory=LOCAL_OBJECT_STORE_BYTES,
                    include_dashboard=False,
                    log_to_driver=False,
                )
            else:
                ray.init(address=address, log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise TournamentError(f"cannot connect to Ray at {address!r}: {exc}") from None
        started = True
    remote = ray.remote(num_cpus=1, max_retries=3)(fn)
    window = 2 * max(1, int(ray.cluster_resources().get("CPU", 1)))
    queue = iter(pending)
    running = [remote.remote(g) for g in itertools.islice(queue, window)]
    try:
        while running:
            done, running = ray.wait(running, num_returns=1)
            nxt = next(queue, None)
            if nxt is not None:
                running.append(remote.remote(nxt))
            yield ray.get(done[0])
    finally:
        for ref in running:
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()


__all__ = ["ray_map"]
