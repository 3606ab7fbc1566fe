"""Scale-out (benchmarking/ray_runner.py): a tournament on a local Ray instance (2 CPUs) gives exactly the
records of the same tournament played in this process."""

from __future__ import annotations

import json

import pytest

from bc_env.rules import RulesConfig
from benchmarking.ratings import rate
from benchmarking.tournament import TournamentSpec, run_tournament

ray = pytest.importorskip("ray")

SPEC = TournamentSpec(("random", "heuristic", "expert"), (RulesConfig.preset("core-2p"),), 6, seed=11)


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, object_store_memory=100 * 1024 * 1024, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_ray_results_equal_local_results(local_ray, tmp_path):
    local = run_tournament(SPEC, tmp_path / "local.jsonl", workers=1)
    on_ray = run_tournament(SPEC, tmp_path / "ray.jsonl", ray_address="local")
    assert [json.dumps(r) for r in on_ray.ordered()] == [json.dumps(r) for r in local.ordered()]
    assert [(r.name, r.mu, r.sigma) for r in rate(on_ray.ordered())] == [
        (r.name, r.mu, r.sigma) for r in rate(local.ordered())
    ]
    assert ray.is_initialized()  # an instance this process started itself is left running


def test_ray_resume_and_early_stop(local_ray, tmp_path):
    seen = []
    path = tmp_path / "stop.jsonl"
    run_tournament(SPEC, path, ray_address="local", stop=lambda rec: seen.append(rec["index"]) or len(seen) == 2)
    assert seen == [0, 1]
    done = run_tournament(None, path, resume=True, ray_address="local")
    assert done.complete and sorted(done.games) == list(range(6))
