"""``mjref regress --rules classical``: a regression run under Chinese Classical gives a verdict from 13-tile matches
whose logs replay; the ruleset is part of the store's identity (another family or option does not resume it); a bad
ruleset is one line before anything is played; ``--plan`` asks for the spread of classical points."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.cli import main as mjref
from tournaments.store import Store


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = mjref(["regress", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow
def test_random_against_greedy_is_a_classical_regression(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store, logs = tmp_path / "c.sqlite", tmp_path / "logs"
    common = ["--candidate", "random", "--baseline", "greedy", "--hands", "4", "--max-hands", "800", "--store",
              str(store), "--concurrency", "1", "--identical-groups", "0"]
    code, out, err = run(capsys, *common, "--rules", "classical", "--logs", str(logs), "--json")
    assert code == 1, err
    r = json.loads(out)
    assert r["verdict"] == "regression" and r["mean_diff"] < 0 and r["hands_per_match"] == 4
    with Store(store) as s:
        identity = s.identity()
    assert identity is not None and identity["rules"]["family"] == "classical"
    played = sorted(logs.rglob("*.jsonl"))
    assert played, "the matches' logs are kept"
    header = json.loads(played[0].read_text().splitlines()[0])
    assert header["rules"]["family"] == "classical"
    hand = next(json.loads(x) for x in played[0].read_text().splitlines() if json.loads(x)["type"] == "hand")
    assert len(hand["wall"]) == 144  # mj-server's tiles with its flowers and seasons
    assert mjref(["replay", str(played[0])]) == 0
    capsys.readouterr()
    # the same store under other rules is another run: refused, nothing played
    for other in ([], ["--rules", "classical", "--set", "SevenPairs=true"]):
        code, _, err = run(capsys, *common, *other, "--logs", "none", "--json")
        assert code == 2 and "this store belongs to another run" in err and err.count("\n") == 1, err
    # the same rules resume it: every match is already there
    code, out, err = run(capsys, *common, "--rules", "classical", "--logs", "none", "--json")
    assert code == 1 and json.loads(out)["matches_played"] == 0, err


def test_a_bad_ruleset_or_a_plan_without_a_classical_spread_is_one_line(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "never.sqlite"
    for argv, words in ((["--rules", "nosuch"], "not a rule family"),
                        (["--rules", "classical", "--set", "NoSuch=1"], "unknown classical option 'NoSuch'"),
                        (["--rules", "classical", "--hands", "0"], "hands")):
        code, _, err = run(capsys, "--candidate", "random", "--baseline", "greedy", "--store", str(store), *argv)
        assert code == 2 and err.count("\n") == 1 and words in err, err
    assert not store.exists()
    code, _, err = run(capsys, "--plan", "--rules", "xmj")
    assert code == 2 and "needs --sd or --resample" in err
    code, out, _ = run(capsys, "--plan", "--rules", "xmj", "--sd", "100", "--margin", "20", "--json")
    assert code == 0 and json.loads(out)["group_sd"] == 100
