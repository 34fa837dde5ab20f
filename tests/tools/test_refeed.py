"""``mjref refeed``: a bot run through the recorded hands of a log, compared answer by answer."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from referee import cli
from referee.game.taiwan16.rules import make_ruleset
from referee.game.wall import bot_seed
from referee.match import play_match, resolve_bots
from referee.refeed import run_refeed
from wrappers.spec import BotSpec

ROOT = Path(__file__).resolve().parents[2]
BADBOT = ROOT / "tests" / "bots" / "badbot.py"
SEED = 13
BOTS = ["greedy", "random", "drawdiscard", "greedy:chowness=0.9,hiddenness=0.1"]


def run_cmd(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(["refeed", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def proc(*argv: str) -> BotSpec:
    return BotSpec(name=Path(argv[0]).name, cmd=(sys.executable, *argv), cwd=str(ROOT))


def answers(log: Path, seat: int) -> list[dict[str, Any]]:
    out = []
    for number, line in enumerate(log.read_text().splitlines(), start=1):
        r = json.loads(line)
        if r["type"] == "answer" and r["seat"] == seat:
            out.append({**r, "line": number})
    return out


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("refeed") / "m.jsonl"
    play_match(resolve_bots(BOTS), seed=SEED, rules=make_ruleset({"hands": 4}), log_path=path)
    return path


@pytest.mark.parametrize("seat", [1, 2, 3, 4])
def test_a_builtin_bot_reproduces_its_own_log(log: Path, seat: int) -> None:
    report = run_refeed(log, seat, resolve_bots([BOTS[seat - 1]])[0])
    assert report.ok, report.mismatch
    assert report.hands == [0, 1, 2, 3]
    assert report.matched == report.questions == len(answers(log, seat))


def test_another_bot_diverges_at_the_first_differing_answer(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = run_refeed(log, 1, resolve_bots(["drawdiscard"])[0])
    m = report.mismatch
    assert m is not None and m.got is not None and m.got != m.logged
    logged = answers(log, 1)
    first = next(a for a in logged if a["line"] == m.line)
    assert first["answer"] == m.logged
    assert report.matched == logged.index(first)  # every answer before it matched
    assert m.concealed and all(isinstance(t, int) for t in m.concealed)
    code, out, _ = run_cmd([str(log), "--seat", "1", "drawdiscard"], capsys)
    assert code == 1
    assert f"divergence at hand {m.hand + 1}, line {m.line}: /ask {m.question.ask}" in out
    assert f"the bot answered `{m.got}`; the log has `{m.logged}`" in out
    assert "the bot's hand:" in out and "legal answers:" in out
    code, out, _ = run_cmd([str(log), "--seat", "1", "drawdiscard", "--json"], capsys)
    data = json.loads(out)
    assert code == 1 and data["ok"] is False and data["mismatch"]["line"] == m.line
    assert data["mismatch"]["concealed"] == list(m.concealed)


def test_one_hand_only(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cmd([str(log), "--seat", "2", "--hand", "3", "random", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["hands"] == [3]
    assert data["questions"] == sum(1 for a in answers(log, 2) if a["hand"] == 2)


def test_process_bots_reproduce_the_builtin_decisions(log: Path) -> None:
    """``python -m bots.X`` makes the in-process bot's decisions, given the seat's bot seed (random needs it)."""
    greedy = run_refeed(log, 1, proc("-m", "bots.greedy"))
    assert greedy.ok, greedy.mismatch
    random_seeded = run_refeed(log, 2, proc("-m", "bots.random", "--seed", str(bot_seed(SEED, 2))))
    assert random_seeded.ok, random_seeded.mismatch
    assert random_seeded.matched == len(answers(log, 2))
    unseeded = run_refeed(log, 2, proc("-m", "bots.random"))  # seeds itself with 0
    assert not unseeded.ok and unseeded.mismatch is not None and unseeded.mismatch.got is not None


def test_a_keep_alive_process_bot_reproduces_every_hand(log: Path) -> None:
    """One process for the whole match numbers hands like the match does (not 16 × hands played)."""
    cmd = (sys.executable, "-m", "bots.random", "--keep-alive", "--seed", str(bot_seed(SEED, 2)))
    spec = BotSpec(name="random", cmd=cmd, cwd=str(ROOT), keep_alive=True)
    report = run_refeed(log, 2, spec)
    assert report.ok, report.mismatch
    assert report.matched == len(answers(log, 2))


def test_a_process_bot_in_the_cli(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cmd([str(log), "--seat", "3", f"{sys.executable} -m bots.drawdiscard"], capsys)
    assert code == 0, out
    assert "match: all" in out and "answers are the logged ones" in out
    code, out, _ = run_cmd([str(log), "--seat", "3", f"{sys.executable} -m bots.greedy"], capsys)
    assert code == 1 and "divergence at hand" in out


def test_logged_faults(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A logged fault is reproduced by the same bot (and the dummy's answers are not compared); another bot
    answering there is a divergence."""
    bad = proc(str(BADBOT), "garbage")
    path = tmp_path / "f.jsonl"
    play_match([bad, *resolve_bots(["greedy"] * 3)[:3]], seed=4, rules=make_ruleset({"hands": 2}), log_path=path)
    code, out, _ = run_cmd([str(path), "--seat", "1", f"{sys.executable} {BADBOT} garbage"], capsys)
    assert code == 0, out
    assert "the logged fault (garbage) is reproduced" in out and "not compared" in out
    code, out, _ = run_cmd([str(path), "--seat", "1", "greedy"], capsys)
    assert code == 1 and "the log has a fault (garbage) here; the bot answered" in out
    code, out, _ = run_cmd([str(path), "--seat", "1", f"{sys.executable} {BADBOT} bad_throw"], capsys)
    assert code == 1 and "the bot faulted differently (illegal" in out
    # The other seats are compared as usual, the dummy's answers for seat 1 coming from the log.
    code, out, _ = run_cmd([str(path), "--seat", "2", "greedy"], capsys)
    assert code == 0, out


def test_a_faulting_bot_is_reported(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cmd([str(log), "--seat", "1", f"{sys.executable} {BADBOT} bad_throw"], capsys)
    assert code == 1
    assert "the bot faulted (illegal: tile" in out and "not in the hand" in out


def test_errors_exit_2(log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv, why in (
        ([str(log), "--seat", "5", "greedy"], "seats are 1..4"),
        ([str(log), "--seat", "1", "--hand", "9", "greedy"], "plans 4 hands"),
        ([str(log), "--seat", "1", "nosuchbot"], "not a built-in"),
        ([str(tmp_path / "missing.jsonl"), "--seat", "1", "greedy"], "cannot read"),
    ):
        code, _, err = run_cmd(argv, capsys)
        assert code == 2 and why in err and err.startswith("mjref refeed: "), err
    lines = log.read_text().splitlines()
    broken = tmp_path / "broken.jsonl"
    recs = [json.loads(x) for x in lines]
    i = next(i for i, r in enumerate(recs) if r["type"] == "result")
    recs[i]["scores"] = [1, 2, 3, -6]
    broken.write_text("".join(json.dumps(r) + "\n" for r in recs))
    code, _, err = run_cmd([str(broken), "--seat", "1", "greedy"], capsys)
    assert code == 2 and "does not replay" in err and "mjref replay" in err
