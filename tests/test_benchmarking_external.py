"""Outside bots as entrants (``cmd:PROGRAM``, benchmarking/external.py): the reference entrant
``serve --stdio --bot NAME`` plays exactly as the built-in bot, entrants that crash, hang, cheat or answer garbage
forfeit their games with the reason logged and the tournament goes on, and the Node.js entrant plays a game."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from balance_control.cli import main
from bc_env.rules import Game, RulesConfig
from benchmarking import TournamentLogError
from benchmarking.external import BotFailure, ExternalBot
from benchmarking.ratings import rate
from benchmarking.runner import play_match
from benchmarking.tournament import TournamentSpec, read_log, run_tournament

pytest.importorskip("jsonschema")  # serve --stdio needs the serve extra

ROOT = Path(__file__).resolve().parents[1]
PY = shlex.quote(sys.executable)
BAD = shlex.quote(str(ROOT / "tests" / "entrants" / "bad_bot.py"))


def bad(mode: str) -> str:
    return f"cmd:{PY} {BAD} {mode}"


def test_the_reference_entrant_plays_exactly_as_the_built_in_bot():
    entrant = f"cmd:{PY} -m balance_control serve --stdio --bot heuristic"
    outside = play_match("core-2p", [entrant, "random"], 1, 3)
    inside = play_match("core-2p", ["heuristic", "random"], 1, 3)
    assert outside.results[0].forfeit is None
    assert outside.results[0].actions == inside.results[0].actions  # BC_BOT_SEED seeds it as the runner would
    assert outside.results[0].winners == inside.results[0].winners


@pytest.fixture(scope="module")
def bad_log(tmp_path_factory) -> Path:
    spec = TournamentSpec(("random", bad("crash"), bad("hang"), bad("cheat")), (RulesConfig.preset("core-2p"),), 12, 5)
    path = tmp_path_factory.mktemp("bad") / "t.jsonl"
    run_tournament(spec, path, workers=1, move_time=0.3)
    return path


def test_entrants_that_crash_hang_and_cheat_forfeit_and_the_tournament_goes_on(bad_log):
    log = read_log(bad_log)  # every record, forfeits included, reproduced by its replay
    assert log.complete and len(log.games) == 12
    reasons = {"crash": "crashed: exited with status 3", "hang": "timed out: no answer to go within 0.3 s"}
    reasons["cheat"] = "illegal action: chose 999999 ('win-the-game')"
    for rec in log.ordered():
        f = rec["forfeit"]  # every game has a bad bot, and the first to decide fails
        mode = rec["seats"][f["seat"]].rsplit(" ", 1)[1]
        assert reasons[mode] in f["reason"], f
        if mode == "crash":
            assert "stderr: bad_bot: crashing on purpose" in f["reason"]
        assert rec["winners"] == [1 - f["seat"]] and rec["returns"][f["seat"]] == -1.0
    ratings = rate(log.ordered())
    assert ratings[0].name == "random" and ratings[0].wins == 6  # it wins every game it plays


def test_a_forfeit_record_that_blames_another_seat_is_refused(bad_log, tmp_path):
    lines = bad_log.read_text().splitlines()
    rec = json.loads(lines[1])
    seat = rec["forfeit"]["seat"]
    rec["forfeit"]["seat"] = 1 - seat
    rec["winners"], rec["returns"] = [seat], rec["returns"][::-1]
    lines[1] = json.dumps(rec)
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TournamentLogError, match=f"seat {1 - seat} forfeited, but its replay stops at a decision"):
        read_log(path)


def test_garbage_and_a_missing_program_are_failures_with_reasons(tmp_path, capsys):
    game = Game.new("core-2p", 1)
    bot = ExternalBot(bad("garbage"), seed=0, move_time=5)
    with pytest.raises(BotFailure, match="answered go with something that is not JSON: b'this is not JSON'"):
        bot.act(game)
    bot.close()
    log = tmp_path / "t.jsonl"
    with pytest.raises(SystemExit, match="cannot start 'no-such-program-bc'"):
        main(["tournament", "--bots", "random,cmd:no-such-program-bc", "--log", str(log), "--workers", "1"])
    assert not log.exists()  # refused before anything was written
    with pytest.raises(SystemExit, match="--move-time must be a number of seconds"):
        main(["match", "--bots", "random", "--move-time", "0"])


def test_a_match_prints_each_forfeit_and_its_reason(capsys):
    assert main(["match", "--bots", f"random,{bad('cheat')}", "--games", "2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [f["game"] for f in doc["forfeits"]] == [0, 1]
    assert all("illegal action" in f["reason"] for f in doc["forfeits"])
    assert doc["entrants"][0]["wins"] == 2.0


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_node_entrant_plays_a_game(monkeypatch):
    monkeypatch.setenv("BC_PYTHON", sys.executable)
    entrant = f"cmd:node {shlex.quote(str(ROOT / 'clients' / 'node' / 'entrant.mjs'))}"
    match = play_match("core-2p", [entrant, "random"], 1, 8)
    (result,) = match.results
    assert result.forfeit is None and result.decisions > 100
    again = play_match("core-2p", [entrant, "random"], 1, 8)
    assert again.results[0].actions == result.actions  # seeded by BC_BOT_SEED: reproducible
