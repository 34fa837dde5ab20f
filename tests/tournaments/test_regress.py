"""``mjref regress`` end to end with built-in bots (small matches, small budgets), and its parts without bots.

Expected verdicts: greedy against random passes; random against greedy is a regression; greedy against itself is
*identical* (every answer alike on the first ``--identical-groups`` groups; exit 0) while a bot that differs in one
rare decision is never called identical; a candidate that crashes in one hand in ten is a regression for faults.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from referee.cli import add_command
from referee.commands import regress as command
from referee.game.taiwan16.rules import make_ruleset
from tournaments import regress as regress_mod
from tournaments.regress import (
    Played,
    RegressError,
    RegressResult,
    RegressSettings,
    RegressState,
    plan_regress,
    regress,
)
from tournaments.sprt import Sprt, SprtSettings, normal_groups, simulate
from tournaments.store import Store
from wrappers.spec import BotSpec

ROOT = Path(__file__).resolve().parents[2]
FAST = ["--hands", "4"]  # a group of the 1v3 design is then 4 matches of 4 hands = 16 hands
# Where a verdict needs no betting test (a regression is the LLR's; identical play is seen hand by hand), 2-hand
# matches: the verdict still comes at the burn-in (8 groups), from half the hands.  Runs play in this process
# (--concurrency 1) unless concurrency is the point: a pool's workers would each import the referee and play cold.
HALF = ["--hands", "2"]


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run ``mjref regress ARGV`` in-process (only this subcommand is registered: other commands' health does not
    matter here); return the exit status, stdout and stderr."""
    parser = argparse.ArgumentParser(prog="mjref")
    add_command(parser.add_subparsers(), "regress")
    try:
        args = parser.parse_args(["regress", *argv])
        code = int(args.func(args))
    except SystemExit as exc:  # argparse's own usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code, out, err = cli(capsys, *argv, "--json")
    assert out.strip(), err
    return code, json.loads(out)


def builtin(name: str) -> BotSpec:
    return BotSpec(name=name, builtin=name)


# ------------------------------------------------------------------------------------------------ verdicts
@pytest.mark.slow
def test_greedy_against_random_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, r = run_json(capsys, "--candidate", "greedy", "--baseline", "random", *FAST, "--max-hands", "400",
                       "--store", str(tmp_path / "s.sqlite"), "--concurrency", "1")
    assert code == 0 and r["verdict"] == "pass" and r["reason"] == "betting"
    assert r["evidence"] >= r["evidence_bound"] == pytest.approx(math.log(20), abs=1e-4)
    assert r["mean_diff"] > 0 and r["ci95"][0] > 0 and len(r["differences"]) == r["groups"]
    # the run's JSON is what --plan --resample reads
    (tmp_path / "run.json").write_text(json.dumps(r))
    code, out, err = cli(capsys, "--plan", "--hands", "4", "--resample", str(tmp_path / "run.json"), "--json")
    assert code == 0 and json.loads(out)["groups"] == "resampled", err
    assert r["hands"] == r["groups"] * 16 and r["groups"] >= 8  # the burn-in
    for key in ("verdict", "hands", "llr", "bounds", "mean_diff", "ci95", "groups", "design", "margin", "alpha",
                "beta"):
        assert key in r
    assert (r["design"], r["margin"], r["alpha"], r["beta"]) == ("1v3", 10.0, 0.05, 0.05)


@pytest.mark.slow
def test_random_against_greedy_is_a_regression(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, r = run_json(capsys, "--candidate", "random", "--baseline", "greedy", *HALF, "--max-hands", "400",
                       "--store", str(tmp_path / "s.sqlite"), "--concurrency", "1")
    assert code == 1 and r["verdict"] == "regression"
    assert r["llr"] <= r["bounds"][0] and r["ci95"][1] < -10


@pytest.mark.slow
def test_greedy_against_itself_is_identical(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    md = tmp_path / "summary.md"
    code, r = run_json(capsys, "--candidate", "greedy", "--baseline", "greedy", *HALF, "--max-hands", "1600",
                       "--store", str(tmp_path / "s.sqlite"), "--concurrency", "1", "--markdown", str(md))
    assert code == 0 and r["verdict"] == "identical" and r["reason"] == "identical"
    assert r["groups"] == 2 and r["identical_groups"] == 2 and r["differed_at"] is None
    # Exactly two groups' worth of matches. One worker, because with N workers up to N-1 matches of the third
    # group may finish before the second group's last one (CI once saw 9 with two workers).
    assert r["matches_played"] == 8
    assert "answered every question as the baseline did" in r["detail"]
    assert "IDENTICAL" in md.read_text() and "**identical** (identical)" in md.read_text()
    # --identical-groups 0: the old behaviour, zero variance and no verdict until the budget runs out (eight
    # groups of 1-hand matches)
    code, r = run_json(capsys, "--candidate", "greedy", "--baseline", "greedy", "--hands", "1", "--max-hands", "32",
                       "--store", str(tmp_path / "t.sqlite"), "--identical-groups", "0", "--concurrency", "1")
    assert code == 3 and r["verdict"] == "inconclusive" and r["reason"] == "budget"
    assert r["zero_variance"] is True and r["llr"] == 0.0 and r["identical_groups"] == 8


RARE = "greedy:chowness=0.9"  # greedy, but it eats a little less keenly: differs only in the rare close eat decision


@pytest.mark.slow
def test_a_bot_differing_in_one_rare_decision_is_not_identical(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    # fixed walls, so that the run does not depend on whether random deals happen to offer the rare decision early;
    # a budget of three groups: one past the two after which identical play would end the run
    code, r = run_json(capsys, "--candidate", RARE, "--baseline", "greedy", *FAST, "--max-hands", "48",
                       "--store", str(tmp_path / "s.sqlite"), "--concurrency", "1", "--wall-salt", "rare")
    assert r["verdict"] != "identical" and r["differed_at"] is not None
    assert r["identical_groups"] == r["differed_at"] - 1


@pytest.mark.slow
def test_2v2_design(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, r = run_json(capsys, "--candidate", "greedy", "--baseline", "random", "--design", "2v2", *FAST,
                       "--max-hands", "200", "--store", str(tmp_path / "s.sqlite"), "--concurrency", "1")
    assert code == 0 and r["design"] == "2v2" and r["hands"] == r["groups"] * 8


def test_process_bot_plays_like_its_builtin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A bot TOML file (the process form of greedy) against the built-in greedy: the same choices on the same
    walls, answer for answer, so identical; this also runs the process-bot path (matches in this trio process)
    and the logs."""
    bot = tmp_path / "greedy-proc.toml"
    bot.write_text(f'cmd = [{json.dumps(sys.executable)}, "-m", "bots.greedy", "--keep-alive"]\n'
                   f'cwd = {json.dumps(str(ROOT))}\nkeep_alive = true\n')
    code, r = run_json(capsys, "--candidate", str(bot), "--baseline", "greedy", "--hands", "2", "--max-hands", "16",
                       "--store", str(tmp_path / "s.sqlite"), "--logs", str(tmp_path / "logs"), "--concurrency", "4")
    assert code == 0 and r["verdict"] == "identical" and r["groups"] == 2
    assert r["faults"] == {"candidate": 0, "baseline": 0}
    assert sorted(p.name for p in (tmp_path / "logs").glob("*.jsonl"))[:2] == ["s1-c0.jsonl", "s1-c1.jsonl"]


# ------------------------------------------------------------------------------------------------ store, resume
@pytest.mark.slow
def test_a_run_cut_short_resumes_with_the_same_verdict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "s.sqlite")
    args = ["--candidate", "greedy", "--baseline", "random", *FAST, "--wall-salt", "shared", "--store", store]
    code, first = run_json(capsys, *args, "--max-hands", "64", "--concurrency", "1")  # 4 groups: in the burn-in
    assert code == 3 and first["groups"] == 4 and first["matches_played"] == 16
    code, resumed = run_json(capsys, *args, "--max-hands", "400", "--concurrency", "2")
    assert code == 0 and resumed["matches_resumed"] == 16
    code, fresh = run_json(capsys, *args[:-1], str(tmp_path / "fresh.sqlite"), "--max-hands", "400",
                           "--concurrency", "1")
    for key in ("verdict", "groups", "hands", "llr", "mean_diff", "ci95", "seeds"):
        assert resumed[key] == fresh[key], key  # same walls, same order, same verdict, whatever the concurrency
    # once decided, running again plays nothing
    code, again = run_json(capsys, *args, "--max-hands", "400")
    assert code == 0 and again["matches_played"] == 0 and again["llr"] == resumed["llr"]


@pytest.mark.slow
def test_another_run_in_the_store_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "s.sqlite")
    assert cli(capsys, "--candidate", "greedy", "--baseline", "random", *FAST, "--max-hands", "16", "--store",
               store, "--quiet", "--concurrency", "1")[0] == 3
    code, out, err = cli(capsys, "--candidate", "greedy", "--baseline", "drawdiscard", *FAST, "--max-hands", "16",
                         "--store", store)
    assert code == 2 and out == ""
    assert err.startswith(f"mjref regress: {store}: this store belongs to another run; differences:")
    assert 'baseline.builtin: "random" -> "drawdiscard"' in err and "use --restart" in err
    assert err.count("\n") == 1 and "\\n" not in err, "one line, without an escaped newline in it"
    code, out, err = cli(capsys, "--candidate", "greedy", "--baseline", "drawdiscard", *FAST, "--max-hands", "16",
                         "--store", store, "--restart", "--quiet")
    assert code == 3, err


def test_options_are_part_of_the_identity(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "s.sqlite")
    base = ["--candidate", "greedy", "--baseline", "random", *FAST, "--max-hands", "16", "--store", store, "--quiet"]
    assert cli(capsys, *base)[0] == 3
    code, _, err = cli(capsys, *base, "--margin", "20", "--seeds-from", "100")
    assert code == 2 and "sprt.margin: 10.0 -> 20.0" in err and "seeds_from: 1 -> 100" in err
    # the budget and the concurrency are not: a run may be extended
    assert cli(capsys, *base[:-5], "--max-hands", "32", "--store", store, "--concurrency", "1", "--quiet")[0] == 3


def test_a_tournament_store_or_a_stray_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Store(tmp_path / "t.sqlite") as s:
        s.initialise("demo", {"format": "round-robin", "bots": []})
    code, _, err = cli(capsys, "--candidate", "greedy", "--baseline", "random", "--store", str(tmp_path / "t.sqlite"))
    assert code == 2 and "this store belongs to another run" in err and "kind: <absent>" in err.replace('"', "")
    (tmp_path / "notes.txt").write_text("hello, not a database " * 100)
    code, _, err = cli(capsys, "--candidate", "greedy", "--baseline", "random", "--store", str(tmp_path / "notes.txt"))
    assert code == 2 and "not an mjref results store" in err and len(err.strip().splitlines()) == 1


# ------------------------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize(("argv", "message"), [
    (["--field", "drawdiscard", "--design", "2v2"],
     "mjref regress: a field is for the 1v3 design (in 2v2 the candidate and baseline fill the table)"),
    (["--candidate", "nosuchbot"],
     ("mjref regress: --candidate: bot 'nosuchbot': not a built-in (dead_hand, drawdiscard, greedy, random), "
      "a .toml file, or a command on the PATH (a program in the current folder is ./NAME)")),
    (["--baseline", "greedy:foo=1"],
     ("mjref regress: --baseline: unknown parameter 'foo' for bot greedy (known: chowness, hiddenness, majorness, "
     "suitness)")),
    (["--max-hands", "10"], "mjref regress: --max-hands 10 is less than one group (64 hands: 4 matches of 16)"),
    (["--max-hands", "0"], "mjref regress: --max-hands must be from 1 to 1,000,000, not 0"),
    (["--margin", "0"], "mjref regress: --margin must be a number of points per hand, 0.1 or more, not 0.0"),
    (["--alpha", "0.7"], "mjref regress: --alpha must be from 1e-06 to 0.5 (exclusive), not 0.7"),
    (["--beta", "0"], "mjref regress: --beta must be from 1e-06 to 0.5 (exclusive), not 0.0"),
    (["--concurrency", "0"], "mjref regress: --concurrency must be from 1 to"),
    (["--seeds-from", "-1"], "mjref regress: the first seed must be 0 or more, not -1"),
    (["--hands", "0"], "mjref regress: rule option 'hands'"),
    (["--set", "nosuch=1"], "mjref regress: "),
])
def test_bad_input_is_one_line_and_exit_2(argv: list[str], message: str, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    base = {"--candidate": "greedy", "--baseline": "random", "--store": str(tmp_path / "s.sqlite")}
    for i in range(0, len(argv), 2):
        base[argv[i]] = argv[i + 1]
    code, out, err = cli(capsys, *[x for kv in base.items() for x in kv])
    assert code == 2 and out == ""
    assert err.startswith(message) and len(err.strip().splitlines()) == 1, err


def test_missing_candidate_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "--baseline", "random")
    assert code == 2 and "--candidate" in err


# ------------------------------------------------------------------------------------------------ output
@pytest.mark.slow
def test_markdown_summary_is_appended(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    md = tmp_path / "summary.md"
    md.write_text("# earlier step\n")
    code, out, _ = cli(capsys, "--candidate", "random", "--baseline", "greedy", *HALF, "--max-hands", "400",
                       "--store", str(tmp_path / "s.sqlite"), "--markdown", str(md), "--concurrency", "1")
    text = md.read_text()
    assert code == 1 and text.startswith("# earlier step\n### ❌ mjref regress: REGRESSION")
    assert "| verdict | **regression** (betting): the regression's betting evidence reached ln(1/beta) = 3.00" in text
    assert "| betting tests | evidence " in text and "a regression at 3.00" in text
    assert "| baseline | `builtin:greedy` |" in text and "| mean difference | -" in text
    assert "REGRESSION: weaker than the baseline" in out and "LLR" in out


def test_live_line() -> None:
    s = RegressSettings(builtin("greedy"), builtin("random"), rules=make_ruleset({"hands": 4}), max_hands=160)
    state = RegressState(s, Sprt(s.sprt))
    assert command.status_line(state).plain.startswith("hands 0  groups 0/10  diff - pts/hand  LLR +0.00 (-2.94,")
    for x in (5.0, -5.0):
        state.sprt.add(x)
    text = command.status_line(state).plain
    assert "diff +0.0 [" in text and "LLR" in text


# ------------------------------------------------------------------------------------------------ the layout
def test_groups_and_differences_1v3() -> None:
    s = RegressSettings(builtin("greedy:chowness=0.9"), builtin("greedy"), rules=make_ruleset({"hands": 4}))
    assert [m.id for m in s.group(0)] == ["s1-c0", "s1-c1", "s1-c2", "s1-c3"]
    assert [m.seats for m in s.group(2)][1] == ("baseline", "candidate", "baseline", "baseline")
    assert s.group(2)[0].seed == 3 and s.hands_per_group == 16
    # the all-baseline table is zero-sum and seat-symmetric: its reference term is 0, so it is not played
    totals = {f"c{r}": tuple(100 * (i == r) - 10 for i in range(4)) for r in range(4)}
    assert s.difference(totals) == pytest.approx(4 * 90 / 16)


def test_groups_with_a_field_play_the_baseline_in_the_candidates_place() -> None:
    s = RegressSettings(builtin("greedy"), builtin("drawdiscard"), builtin("random"),
                        rules=make_ruleset({"hands": 2}))
    tags = [m.id.split("-")[1] for m in s.group(0)]
    assert tags == ["c0", "c1", "c2", "c3", "b0", "b1", "b2", "b3"]
    assert s.group(0)[5].seats == ("field", "baseline", "field", "field")
    totals: dict[str, tuple[int, ...]] = {f"c{r}": (50, 50, 50, 50) for r in range(4)}
    totals.update({f"b{r}": (20, 20, 20, 20) for r in range(4)})
    assert s.difference(totals) == pytest.approx(4 * 30 / 8)


def test_fault_penalties_keep_the_reference_table_away() -> None:
    """Fault penalties are paid to the other seats (zero-sum), so the baseline-only table still adds up to 0."""
    s = RegressSettings(builtin("greedy"), builtin("random"), rules=make_ruleset({"hands": 2, "fault_penalty": 5}))
    assert [m.id for m in s.group(0)] == ["s1-c0", "s1-c1", "s1-c2", "s1-c3"] and s.hands_per_group == 8


def test_2v2_groups() -> None:
    s = RegressSettings(builtin("greedy"), builtin("random"), design="2v2", rules=make_ruleset({"hands": 2}))
    assert [m.seats for m in s.group(0)] == [("candidate", "baseline", "candidate", "baseline"),
                                             ("baseline", "candidate", "baseline", "candidate")]
    # x0: candidate seats 1, 3 = 40, baseline seats 2, 4 = -40; x1: candidate seats 2, 4 = 40, baseline = -40
    assert s.difference({"x0": (30, -10, 10, -30), "x1": (-20, 0, -20, 40)}) == pytest.approx((80 + 80) / (4 * 2))


def test_groups_are_consumed_in_seed_order(tmp_path: Path) -> None:
    """Matches finish in any order; the SPRT sees groups in seed order, so the verdict is replayable."""
    s = RegressSettings(builtin("greedy"), builtin("random"), rules=make_ruleset({"hands": 1}), max_hands=40)
    state = RegressState(s, Sprt(SprtSettings()))
    order = [m for k in range(3) for m in s.group(k)]
    seen: list[float] = []
    for m in reversed(order):  # group 2 finishes first, group 0 last
        r = m.rotation
        state.played[m.id] = Played(m.id, tuple(int(m.seed) * 10 * (i == r) for i in range(4)), 1, (0, 0, 0, 0))  # type: ignore[arg-type]
        seen += state.advance()
    assert seen == [10.0, 20.0, 30.0] and state.groups == 3 and state.hands == 12


@pytest.mark.slow
def test_library_api(tmp_path: Path) -> None:
    s = RegressSettings(builtin("greedy"), builtin("random"), rules=make_ruleset({"hands": 4}), max_hands=400)
    groups: list[float] = []
    result = regress(s, tmp_path / "s.sqlite", concurrency=1, on_group=lambda st, d: groups.append(d))
    assert result.verdict == "pass" and result.exit_status == 0 and len(groups) == result.groups
    assert plan_regress(s, tmp_path / "s.sqlite").state.finished
    with pytest.raises(RegressError, match="less than one group"):
        RegressSettings(builtin("greedy"), builtin("random"), max_hands=10)


# ------------------------------------------------------------------------------------------------ faults
@pytest.mark.slow
def test_a_candidate_crashing_one_hand_in_ten_is_a_regression_for_faults(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """badbot plays like drawdiscard; in crash_tenth mode it dies in about one hand in ten (its stand-in finishes
    the hand), so its points stay close to drawdiscard's, but its faults give it away before the SPRT could.
    The walls are fixed (--wall-salt) and the identical verdict is off: on deals where it happens not to crash in
    the first two groups it does play exactly like drawdiscard, and `identical` would then be the right answer."""
    bot = tmp_path / "crashy.toml"
    bot.write_text(f'cmd = [{json.dumps(sys.executable)}, {json.dumps(str(ROOT / "tests/bots/badbot.py"))}, '
                   f'"crash_tenth"]\n')
    code, r = run_json(capsys, "--candidate", str(bot), "--baseline", "drawdiscard", "--field", "drawdiscard",
                       *FAST, "--max-hands", "640", "--store", str(tmp_path / "s.sqlite"), "--concurrency", "2",
                       "--wall-salt", "crashy", "--identical-groups", "0")
    assert code == 1 and r["verdict"] == "regression" and r["reason"] == "faults", r
    assert r["faults"]["candidate"] >= 3 and r["faults"]["baseline"] == 0
    assert r["groups"] < 8  # before the burn-in would have let the SPRT say anything
    assert "faulted" in r["detail"]


def _fake_group(state: RegressState, k: int, digests: Mapping[str, str | None],
                faults: dict[str, tuple[int, int, int, int]] | None = None, diff: int = 0) -> None:
    s = state.settings
    for m, seating in zip(s.group(k), s.seatings):
        totals = tuple((diff if i == seating.rotation else 0) for i in range(4))
        state.played[m.id] = Played(m.id, totals, s.rules.hands, (faults or {}).get(seating.tag, (0, 0, 0, 0)),  # type: ignore[arg-type]
                                    digests.get(seating.tag))
    state.advance()


def test_identical_needs_every_pair_alike_from_the_first_group() -> None:
    s = RegressSettings(builtin("greedy"), builtin("random"), rules=make_ruleset({"hands": 1}), max_hands=400,
                        identical_groups=3)
    alike = {f"c{r}": "d" for r in range(4)}
    state = RegressState(s, Sprt(s.test))
    _fake_group(state, 0, alike)
    _fake_group(state, 1, alike)
    assert state.stop is None and state.identical == 2
    _fake_group(state, 2, alike)
    assert state.stop == ("identical", "identical") and state.result().exit_status == 0
    # one seating differing once, even with equal points, rules identical out for the rest of the run
    state = RegressState(s, Sprt(s.test))
    _fake_group(state, 0, alike)
    _fake_group(state, 1, {**alike, "c2": "other"})
    for k in range(2, 8):
        _fake_group(state, k, alike)
    assert state.stop is None and state.differed_at == 2 and state.identical == 1
    # a match stored without a digest (an older store) is no evidence of identical play
    state = RegressState(s, Sprt(s.test))
    for k in range(4):
        _fake_group(state, k, {**alike, "c0": None})
    assert state.stop is None and state.differed_at == 1


def test_identical_pairs_per_design() -> None:
    s = RegressSettings(builtin("greedy"), builtin("random"), design="2v2", rules=make_ruleset({"hands": 1}))
    assert s.pairs() == [("x0", "x1")]
    s = RegressSettings(builtin("greedy"), builtin("drawdiscard"), builtin("random"), rules=make_ruleset({"hands": 1}))
    assert s.pairs() == [("c0", "b0"), ("c1", "b1"), ("c2", "b2"), ("c3", "b3")]


def test_faults_verdict_whatever_the_llr() -> None:
    s = RegressSettings(builtin("greedy"), builtin("random"), rules=make_ruleset({"hands": 4}), max_hands=4000)
    state = RegressState(s, Sprt(s.test))
    crash = {"c0": (2, 0, 0, 0), "c1": (0, 1, 0, 0), "c2": (0, 0, 2, 0), "c3": (0, 0, 0, 1)}  # 6 in 16 seat-hands
    _fake_group(state, 0, {}, crash, diff=400)  # and the candidate far ahead on points
    assert state.stop == ("regression", "faults")
    r = state.result()
    assert r.exit_status == 1 and r.reason == "faults" and r.faults == {"candidate": 6, "baseline": 0}
    assert r.fault_hands == {"candidate": 16, "baseline": 48}
    # the same faults spread evenly over both bots are no verdict
    state = RegressState(s, Sprt(s.test))
    even = {"c0": (1, 1, 1, 1), "c1": (1, 1, 1, 1)}
    for k in range(4):
        _fake_group(state, k, {}, even, diff=10 * (k % 2))
    assert state.stop is None


def test_burn_in_and_tail_holds_are_said(capsys: pytest.CaptureFixture[str]) -> None:
    s = RegressSettings(builtin("greedy"), builtin("random"), rules=make_ruleset({"hands": 1}), max_hands=400,
                        tail_loss=0)
    state = RegressState(s, Sprt(s.test))
    for k in range(3):
        _fake_group(state, k, {}, diff=300 + 10 * k)
    assert state.sprt.held == "burn-in"
    assert "held by the burn-in (3/8 groups)" in command.status_line(state).plain
    for k in range(3, 8):
        _fake_group(state, k, {}, diff=300 + 10 * (k % 3))
    r = state.result()
    assert r.verdict == "pass" and any("burn-in" in n and "decided at group 8" in n for n in r.notes), r.notes
    # the same stream under the default bounded test (5,120 points: 1,280 per hand of a 4-seat-hand group) is held
    # past it: eight groups are too few to stake enough for a pass that no group loss up to the bound could fake
    s = RegressSettings(builtin("greedy"), builtin("random"), rules=make_ruleset({"hands": 1}), max_hands=400)
    state = RegressState(s, Sprt(s.test))
    for k in range(8):
        _fake_group(state, k, {}, diff=300 + 10 * (k % 3))
    assert state.sprt.held == "tail" and state.sprt.state is None
    assert "held by the betting test" in command.status_line(state).plain
    assert f"betting pass {state.sprt.evidence:+.2f}/3.00, regression " in command.status_line(state).plain
    assert "betting tests" in state.result().notes[0]
    # the mirror image: a clear loss is held the same way, by the regression's betting test, then decided by it
    state = RegressState(s, Sprt(s.test))
    for k in range(8):
        _fake_group(state, k, {}, diff=-300 - 10 * (k % 3))
    assert state.sprt.held == "tail" and state.sprt.state is None
    assert "LLR past the lower bound, held by the betting test" in command.status_line(state).plain
    k = 8
    while state.sprt.state is None:
        _fake_group(state, k, {}, diff=-300 - 10 * (k % 3))
        k += 1
    r = state.result()
    assert (r.verdict, r.reason) == ("regression", "betting") and "ln(1/beta)" in r.detail
    assert r.to_json()["regression_evidence"] >= r.to_json()["regression_evidence_bound"] == round(math.log(20), 4)
    assert "1,280" not in r.detail and "gaining at most 5120 points" in r.detail


def test_groups_beyond_the_bound_are_said() -> None:
    s = RegressSettings(builtin("greedy"), builtin("random"), rules=make_ruleset({"hands": 1}), max_hands=400)
    state = RegressState(s, Sprt(s.test))
    for k, diff in enumerate([10, -20, 2000, 15]):  # 2,000 per hand of a 4-seat-hand group: 8,000 points
        _fake_group(state, k, {}, diff=diff)
    r = state.result()
    note = [n for n in r.notes if "beyond --tail-loss" in n]
    assert note and note[0].startswith("1 of 4 groups were beyond --tail-loss 5120 points: 1 gains (the largest 8000)")
    assert "no test can promise them beyond it" in note[0] and note[0].endswith("(at least 8000)")
    assert r.to_json()["beyond_bound"] == {"gains": 1, "losses": 0, "largest_gain": 8000.0, "largest_loss": None}
    assert r.within_bound is None  # no verdict yet


def _decide(state: RegressState, first: int, diff: int) -> RegressResult:
    """One group of ``first`` points per hand, then groups of about ``diff`` until the test decides."""
    _fake_group(state, 0, {}, diff=first)
    k = 1
    while state.sprt.state is None and k < 400:
        _fake_group(state, k, {}, diff=diff + 10 * (k % 3))
        k += 1
    return state.result()


def test_a_verdict_whose_rate_a_group_beyond_the_bound_voids_says_so() -> None:
    s = RegressSettings(builtin("greedy"), builtin("random"), rules=make_ruleset({"hands": 1}), max_hands=4000)
    # a regression after a gain beyond the bound: beta (the regression's rate) is not proved for this run
    r = _decide(RegressState(s, Sprt(s.test)), 2000, -300)
    assert (r.verdict, r.reason, r.within_bound) == ("regression", "betting", False)
    assert r.detail.endswith("; but beta is not proved for this run: 1 group gained more than --tail-loss 5120 "
                             "points (the largest 8000)")
    assert r.to_json()["within_bound"] is False
    # a pass after a loss beyond it: alpha is not proved
    r = _decide(RegressState(s, Sprt(s.test)), -2000, 300)
    assert (r.verdict, r.within_bound) == ("pass", False)
    assert "but alpha is not proved for this run: 1 group lost" in r.detail
    # the other side's group beyond is no matter for the verdict's rate: a regression after a loss beyond
    r = _decide(RegressState(s, Sprt(s.test)), -2000, -300)
    assert (r.verdict, r.within_bound) == ("regression", True) and "not proved" not in r.detail
    assert r.to_json()["beyond_bound"]["losses"] == 1
    r = _decide(RegressState(s, Sprt(s.test)), 0, -300)
    assert (r.verdict, r.within_bound) == ("regression", True) and not any("beyond" in n for n in r.notes)


def test_plan_prints_hands_without_playing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "never.sqlite"
    code, out, err = cli(capsys, "--plan", "--margin", "20", "--json", "--store", str(store))
    assert code == 0, err
    plan = json.loads(out)
    assert not store.exists()  # nothing played, nothing stored
    assert plan["margin"] == 20 and plan["hands_per_group"] == 64 and plan["group_sd"] == 9.6
    cases = {c["case"]: c for c in plan["cases"]}
    assert cases["equal"]["expected_hands"] >= 8 * 64  # the burn-in is counted
    assert cases["regression of the margin"]["regression"] > 0.9
    assert plan["budget_for_95pct_decided"] >= max(c["expected_hands"] for c in plan["cases"])
    code, out, _ = cli(capsys, "--plan", "--margin", "20", "--sd", "5")
    assert code == 0 and "decided" in out and "a budget of --max-hands" in out
    code, _, err = cli(capsys, "--plan", "--sd", "-1")
    assert code == 2 and "--sd must be a number of points per hand above 0" in err


def test_plan_stops_long_runs_at_its_cap_and_says_more_than(capsys: pytest.CaptureFixture[str]) -> None:
    # margin 0.1 takes millions of hands: the plan used to simulate them for minutes; now every run stops at
    # PLAN_MAX_GROUPS groups, the rows together at PLAN_WORK groups, and the figures say "more than"
    code, out, err = cli(capsys, "--plan", "--margin", "0.1", "--json")
    assert code == 0, err
    plan = json.loads(out)
    assert plan["cap_hands"] == regress_mod.PLAN_MAX_GROUPS * 64 and plan["budget_for_95pct_decided"] is None
    for case in plan["cases"]:
        assert case["capped"] > 0.9 and case["expected_hands_more"] and case["hands_for_95pct_decided"] is None
        assert regress_mod.PLAN_WORK // regress_mod.PLAN_MAX_GROUPS <= case["runs"] < 1000
        assert case["expected_hands"] <= plan["cap_hands"]
    code, out, err = cli(capsys, "--plan", "--margin", "0.1", "--max-hands", "100000")
    assert code == 0, err
    assert "more than 64000" in out and "undecided at 64000 hands" in out and "budget of 100000" in out


def test_simulate_bounds_its_work() -> None:
    s = SprtSettings(margin=0.1)
    sim = simulate(s, normal_groups(0.0, 9.6), runs=1000, max_groups=50, max_work=500)
    assert sim.runs == 10 and sim.capped == 1.0 and sim.p95_groups is None and sim.mean_groups == 50


def test_resample_files_are_bounded(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"differences": [1.0, 2.0, 3.0]}))
    monkeypatch.setattr(regress_mod, "MAX_RESAMPLE", 2)
    code, _, err = cli(capsys, "--plan", "--resample", str(big))
    assert code == 2 and f"--resample {big}: 3 differences, more than the 2" in err
    monkeypatch.setattr(regress_mod, "MAX_RESAMPLE_BYTES", 10)
    code, _, err = cli(capsys, "--plan", "--resample", str(big))
    assert code == 2 and f"--resample {big}: " in err and "bytes, more than the 10" in err


def test_plan_resamples_real_differences(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = ROOT / "tests" / "data" / "regress_groups.json"
    code, out, err = cli(capsys, "--plan", "--margin", "20", "--resample", str(data), "--json")
    assert code == 0, err
    plan = json.loads(out)
    real_sd = statistics.stdev(json.loads(data.read_text())["differences"])
    assert plan["groups"] == "resampled" and plan["group_sd"] == pytest.approx(real_sd, abs=1e-3)
    cases = {c["case"]: c for c in plan["cases"]}
    assert cases["regression of the margin"]["regression"] > 0.9 and cases["equal"]["pass"] > 0.9
    bad = tmp_path / "bad.json"
    for text, message in [
        ("[1, 2", "not JSON"),
        ('{"differences": [1.0]}', 'expected an object with "differences", a list of at least two numbers'),
        ('{"differences": [1.0, "x"]}', "differences[1] is not a finite number: 'x'"),
        ('{"differences": [1.0, true]}', "differences[1] is not a finite number: True"),
    ]:
        bad.write_text(text)
        code, _, err = cli(capsys, "--plan", "--resample", str(bad))
        assert code == 2 and f"{bad}: {message}" in err, err
    code, _, err = cli(capsys, "--plan", "--resample", str(tmp_path / "missing.json"))
    assert code == 2 and "cannot read" in err
    code, _, err = cli(capsys, "--plan", "--resample", str(data), "--sd", "3")
    assert code == 2 and "give one" in err
    code, _, err = cli(capsys, "--candidate", "greedy", "--baseline", "random", "--resample", str(data),
                       "--store", str(tmp_path / "s.sqlite"))
    assert code == 2 and "--resample is for --plan" in err


def test_a_tail_loss_within_the_margin_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "--plan", "--tail-loss", "500")  # 64 seat-hands × margin 10 = 640
    assert code == 2 and "--tail-loss 500 is no more than the margin over a group's 64 seat-hands (640 points)" in err


def test_field_faults_are_reported_by_whose_table_never_a_verdict() -> None:
    s = RegressSettings(builtin("greedy"), builtin("drawdiscard"), builtin("random"), rules=make_ruleset({"hands": 4}),
                        max_hands=4000)
    state = RegressState(s, Sprt(s.test))
    # the field faults twice in every match at the candidate's tables (seats other than the candidate's), never
    # at the baseline's
    provoked = {f"c{r}": tuple(0 if i == r else (2 if i == (r + 1) % 4 else 0) for i in range(4)) for r in range(4)}
    for k in range(3):
        _fake_group(state, k, {}, provoked)  # type: ignore[arg-type]
    assert state.stop is None  # no verdict from the field's faults
    r = state.result()
    assert r.field_faults == {"candidate": 24, "baseline": 0} and r.faults == {"candidate": 0, "baseline": 0}
    assert any("the field faulted 24 times at the candidate's tables and 0 at the baseline's" in n for n in r.notes)
    assert r.to_json()["field_faults"] == {"candidate": 24, "baseline": 0}
    assert "| field faults | at the candidate's tables 24, at the baseline's 0" in command.to_markdown(r, Path("s"))
    # without a field, there is nothing to report
    s = RegressSettings(builtin("greedy"), builtin("random"), rules=make_ruleset({"hands": 4}), max_hands=4000)
    state = RegressState(s, Sprt(s.test))
    _fake_group(state, 0, {})
    assert state.result().field_faults is None and "field faults" not in command.to_markdown(state.result(),
                                                                                                Path("s"))


def test_the_command_lines_timeout_wins_over_the_bot_files(tmp_path: Path) -> None:
    """A bot file saying ``timeout = 5`` and ``--timeout 2``: the candidate has 2 s, as in ``mjref match``."""
    toml = tmp_path / "bot.toml"
    toml.write_text(f'name = "g"\ncmd = [{json.dumps(sys.executable)}, "-m", "bots.greedy"]\n'
                    f"cwd = {json.dumps(str(ROOT))}\ntimeout = 5\n")
    parser = argparse.ArgumentParser(prog="mjref")
    add_command(parser.add_subparsers(), "regress")
    args = parser.parse_args(["regress", "--candidate", str(toml), "--baseline", "greedy", "--timeout", "2",
                              "--store", str(tmp_path / "r.sqlite")])
    settings = command.settings_from_args(args)
    assert settings.candidate.timeout == 2
    assert settings.rules.move_timeout == 10  # the ruleset's own: --timeout is the seats', never the rules' (as in
    # mjref match and mjref tournament)
    args = parser.parse_args(["regress", "--candidate", str(toml), "--baseline", "greedy",
                              "--store", str(tmp_path / "r.sqlite")])
    assert command.settings_from_args(args).candidate.timeout == 5


def test_a_store_made_before_seats_had_a_protocol_still_resumes() -> None:
    """``BotSpec.protocol`` (``icga`` or ``xmj``) came after regression stores existed: an ICGA bot's part of the
    identity is what it was, so such a store is resumed, not refused as another run; an xmj seat's says so."""
    s = RegressSettings(builtin("greedy"), builtin("random"), rules=make_ruleset({"hands": 4}))
    assert "protocol" not in s.identity()["candidate"] and "protocol" not in s.identity()["baseline"]
    xmj = BotSpec(name="mj", cmd=("mj-player",), protocol="xmj")
    assert regress_mod._spec_identity(xmj)["protocol"] == "xmj"
