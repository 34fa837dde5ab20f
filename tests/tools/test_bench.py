"""The speed benchmarks' own behaviour (never their figures): they run, print one JSON line, and say clearly
when an anchor cannot be measured."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run_bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=300,
        check=False,
    )


def test_engine_bench_without_rlcard_says_why(tmp_path: Path) -> None:
    """``--vs-rlcard`` with an interpreter that has no rlcard: our figures still print, the JSON names the reason,
    stderr says it in one line, and the exit status is 1."""
    proc = run_bench("bench/engine.py", "--hands", "3", "--vs-rlcard", "--rlcard-python", sys.executable)
    assert proc.returncode == 1
    result = json.loads(proc.stdout)
    assert result["hands_per_second"] > 0
    assert "rlcard" in result["rlcard"]["error"]
    assert "vs_rlcard" not in result
    assert proc.stderr.startswith("bench/engine.py --vs-rlcard: no RLCard figure:")


def test_engine_bench_anchor_with_classical_times_both_families_on_both_sides() -> None:
    """``bench/engine.py --classical --anchor REV``: Taiwan's and classical random play, ours and the revision's, in
    fresh processes, with the ratios ours/anchor and classical over Taiwan on each side."""
    proc = run_bench("bench/engine.py", "--hands", "3", "--classical", "--anchor", "HEAD", "--repeats", "1")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    anchor = result["anchor"]
    classical = anchor["classical"]
    for figures in (anchor, classical):
        assert min(figures["ours_hands_per_cpu_second"] + figures["anchor_hands_per_cpu_second"]) > 0
        assert figures["ratio_median"] > 0
    assert classical["vs_taiwan_cpu_median"] > 0 and classical["anchor_vs_taiwan_cpu_median"] > 0
    assert result["classical"]["vs_taiwan_cpu_median"] > 0  # (the in-process comparison is still made)


def test_engine_bench_greedy_plays_hands_to_their_end() -> None:
    proc = run_bench("bench/engine.py", "--hands", "2", "--greedy", "--greedy-hands", "2")
    assert proc.returncode == 0, proc.stderr
    greedy = json.loads(proc.stdout)["greedy"]
    assert sum(greedy["outcomes"].values()) == 2
    assert greedy["questions_per_second"] > 0


def test_start_bench_times_every_bot_beside_python() -> None:
    proc = run_bench("bench/start.py", "--runs", "1", "--bots", "drawdiscard", "--imports")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["interpreter"] == "bare venv"  # no development install's .pth file in the anchor
    assert result["python_c_pass"]["median_ms"] > 0 and result["python_c_pass"]["cpu_median_ms"] > 0
    assert result["bots"]["drawdiscard"]["median_ms"] > 0 and result["bots"]["drawdiscard"]["cpu_median_ms"] > 0
    # Which ten imports are slowest depends on the machine's load of the moment (bots.base is usually among them,
    # not always): the list is the slowest first, and every import of the start is measured
    slowest = [row["cumulative_us"] for row in result["slowest_imports"]["drawdiscard"]]
    assert 0 < len(slowest) <= 10 and slowest == sorted(slowest, reverse=True)
    from bench.start import slowest_imports
    assert any(row["module"] == "bots.base" for row in slowest_imports("drawdiscard", n=10_000))
    bad = run_bench("bench/start.py", "--bots", "nosuchbot")
    assert bad.returncode == 2 and "unknown bot 'nosuchbot'" in bad.stderr


def test_match_bench_anchor_runs_both_trees_and_gives_their_ratio() -> None:
    """``bench/match.py --anchor REV``: ours and the revision's process-bot figures, run by run, and their ratios;
    a revision git does not know is one line on stderr, not a traceback."""
    proc = run_bench("bench/match.py", "--process-bots", "drawdiscard", "--matches", "1", "--hands", "2",
                     "--anchor", "HEAD", "--repeats", "1")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert "builtin_greedy" not in result
    compared = result["anchor"]["process_drawdiscard"]
    for side in ("ours", "anchor"):
        assert len(compared[side]["referee_cpu_per_hand_ms"]) == 1
        assert compared[side]["referee_cpu_per_hand_ms"][0] > 0
        # the figure per question in two parts: the warm replay's Python, and what comes with each wake-up
        whole, warm = (compared[side][k][0] for k in ("referee_minus_floor_per_question_us",
                                                      "referee_python_warm_per_question_us"))
        warm_per_hand = compared[side]["referee_python_warm_per_hand_ms"][0]
        # the same match replayed without pipes or waits costs the referee less than the match itself
        assert 0 < warm_per_hand < compared[side]["referee_cpu_per_hand_ms"][0] and warm > 0, (warm, whole)
        assert "referee_after_wakeup_per_question_us" in compared[side]
    assert len(compared["ratio_minus_floor_per_pair"]) == 1
    assert len(compared["ratio_warm_per_question_per_pair"]) == 1
    bad = run_bench("bench/match.py", "--anchor", "no-such-revision-here", "--matches", "1", "--hands", "2")
    assert bad.returncode != 0
    assert bad.stderr.startswith("bench/match.py: --anchor no-such-revision-here:")
    assert "Traceback" not in bad.stderr


def test_targets_prints_the_readme_table_of_a_target() -> None:
    """``bench/targets.py`` runs a target's benchmark and prints its row of the README's table: the command, the
    figure here, its anchor, the target and a verdict."""
    proc = run_bench("bench/targets.py", "--only", "start", "--markdown")
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| `python bench/start.py")]
    assert len(rows) == 3  # greedy, drawdiscard, random
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert len(cells) == 5 and cells[3] == "≤ 40 ms"
        assert cells[4].endswith(("**met**", "**not met**")) and "`python -c pass`" in cells[2]
    assert "load average" in proc.stdout


def test_suite_bench_finds_the_anchors_tests_where_they_live_today() -> None:
    """``bench/suite.py``'s like-for-like set: the anchor's test functions found by name in today's folders, in a file
    of the same name where a later test of another file shares the name; the command is the README's."""
    from bench import suite

    names = suite.anchor_test_names("4cb019a")
    assert len(names) == 318
    assert names["test_bad_input_is_one_line_and_exit_2"] == {"test_regress.py", "test_viewer.py"}
    assert names["test_greedy_against_itself_is_identical"] == {"test_regress.py"}  # renamed since
    ids = ["tests/cli/test_bad_input.py::test_bad_input_is_one_line_and_exit_2[a]",
           "tests/tournaments/test_regress.py::test_bad_input_is_one_line_and_exit_2[b]",
           "tests/tournaments/test_regress.py::test_bad_input_is_one_line_and_exit_2[c]",
           "tests/browser/test_viewer.py::test_bad_input_is_one_line_and_exit_2",
           "tests/game/test_scoring.py::test_eight_flowers_win",
           "tests/game/test_new.py::test_eight_flowers_win",
           "tests/match/test_later.py::test_a_test_written_later"]
    assert suite.functions_named(ids, names) == [
        "tests/tournaments/test_regress.py::test_bad_input_is_one_line_and_exit_2",
        "tests/browser/test_viewer.py::test_bad_input_is_one_line_and_exit_2",
        "tests/game/test_scoring.py::test_eight_flowers_win"]
    moved = ["tests/wrappers/test_codec.py::test_roundtrip_of_every_tile"]
    assert suite.functions_named(moved, {"test_roundtrip_of_every_tile": {"test_tiles.py"}}) == [moved[0]]
    command = suite.readme_test_command(REPO)
    assert command in (REPO / "README.md").read_text() and suite.pytest_args(command)[0] != "pytest"
    # the command CI runs: .ci/run's own reading of the README, run here as .ci/run runs it
    reading = next(line for line in (REPO / ".ci/run").read_text().splitlines() if line.startswith("cmd=$(awk"))
    ci = subprocess.run(["bash", "-c", reading + '\nprintf %s "$cmd"'], cwd=REPO, capture_output=True, text=True,
                        check=True)
    assert ci.stdout == command
    assert suite.pytest_args("python3 -m venv v && v/bin/pip install . && v/bin/python -m pytest -q -n 4") == [
        "-q", "-n", "4"]


def test_wakeup_bench_gives_the_referees_wait_beside_the_plain_read() -> None:
    proc = run_bench("bench/wakeup.py", "--trips", "50", "--repeats", "1")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    for placement in ("same_cpu", "unpinned"):
        plain, waited = result[placement], result["referee_wait"][placement]
        assert plain["cpu_us"] > 0 and waited["cpu_us"] > 0
        assert waited["extra_cpu_us"] == round(waited["cpu_us"] - plain["cpu_us"], 2)


def test_xmj_bench_times_mjserver_and_mjref_on_the_same_game() -> None:
    """``bench/xmj.py``: one mj-server game with four mj-players, then mjref matches of four mj-player seats dealt
    that game's walls (boxed and ``--sandbox none``), each checked to be the same game move for move, in won hands
    per second, with the ratio mjref/mj-server; each side plays the game once a round, and each round's ratio to
    mj-server's run of the same round is reported (``paired_in_play_ratio``)."""
    from tests import mjserver

    mjserver.require()
    proc = run_bench("bench/xmj.py", "--seeds", "1", "--rounds", "2", "--timeout", "120")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    assert result["errors"] == [] and result["rounds"] == 2
    server = result["sides"]["mjserver"]
    assert server["runs"] == 2 and server["won_hands"] >= 2 and server["won_hands_per_s"] > 0
    assert server["cpu_s"] > 0
    for side in ("mjref_boxed", "mjref_none"):
        figures = result["sides"][side]
        assert figures["runs"] == 2 and figures["won_hands"] == figures["hands"] == server["won_hands"]
        assert figures["same_game"] == "2 of 2" and figures["wall_s"] > 0
        assert result["ratio_won_hands_per_s"][side] == round(
            figures["won_hands_per_s"] / server["won_hands_per_s"], 3)
        pair = result["paired_in_play_ratio"][side]
        assert len(pair["ratios"]) == 2 and pair["lowest"] <= pair["median"] <= pair["highest"]
        assert all(x > 0 for x in pair["ratios"])
    for bad_args in (("--seeds", "0"), ("--rounds", "0")):
        bad = run_bench("bench/xmj.py", *bad_args)
        assert bad.returncode == 2 and bad.stderr.startswith("bench/xmj.py: --seeds and --rounds"), bad.stderr


def test_xmj_phases_bench_times_both_referees_hand_by_hand() -> None:
    """``bench/xmj_phases.py``: mj-server stamped through its reads and writes (an LD_PRELOAD library it compiles),
    mjref through its connection's; each phase of the same won hands on both sides, the match checked to be the
    game; a bad count is refused with one line."""
    from tests import mjserver

    mjserver.require()
    proc = run_bench("bench/xmj_phases.py", "--rounds", "1", "--sandbox", "none", "--timeout", "120")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    (server,), (ours,) = result["runs"]["mjserver"], result["runs"]["mjref"]
    assert server["hands"] == ours["hands"] >= 1  # the same won hands, washouts left out on mj-server's side
    for run in (server, ours):
        assert all(run[k] > 0 for k in ("start", "play", "end", "between"))
        assert abs(run["total"] - sum(run[k] for k in ("start", "play", "end", "between"))) < 0.01
    assert result["median"]["mjref"]["total"] == ours["total"]
    assert result["mjref_over_mjserver_total"] == round(ours["total"] / server["total"], 3)
    for side in ("mjserver", "mjref"):  # each referee's reaction to what it reads, by the message
        reaction = result["reaction"][side]
        assert set(reaction) == {"Discard", "NoClaim", "other", "all"}
        discard = reaction["Discard"]
        assert discard["n"] > 0 and discard["median_us"] > 0 and discard["mean_us"] > 0
        assert reaction["all"]["n"] == sum(reaction[k]["n"] for k in ("Discard", "NoClaim", "other"))
    # mj-server acknowledges each NoClaim as it reads it; mjref with the client's next message
    assert result["reaction"]["mjserver"]["NoClaim"]["n"] > result["reaction"]["mjref"]["NoClaim"]["n"]
    bad = run_bench("bench/xmj_phases.py", "--rounds", "0")
    assert bad.returncode == 2 and bad.stderr.startswith("bench/xmj_phases.py: --rounds"), bad.stderr


def test_classical_bench_plays_each_game_in_mjref_with_play() -> None:
    """``bench/classical.py --play``: each mj-server game generated is verified hand by hand, then played by mjref
    (four mj-player seats of its personality, dealt its walls) and compared with it move by move; the JSON counts
    the games that are mj-server's, their hands and the faults.  A bad count is refused with one line."""
    from tests import mjserver

    mjserver.require()
    proc = run_bench("bench/classical.py", "--games", "1", "--repeat", "1", "--seed", "41000", "--play")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    assert result["first_seed"] == 41000 and result["games"] == 1 and result["histories"] >= 1
    played = result["played"]
    assert played == {"games": 1, "same": 1, "hands": result["histories"], "faults": 0, "first_difference": None}
    for bad_args in (("--games", "0"), ("--repeat", "0"), ("--seed", "-1")):
        bad = run_bench("bench/classical.py", *bad_args)
        assert bad.returncode == 2 and bad.stderr.startswith("bench/classical.py: --games and --repeat"), bad.stderr


def test_classical_bench_play_names_a_game_that_mjref_plays_otherwise(tmp_path: Path) -> None:
    """``play`` of ``bench/classical.py`` with seats that are not the game's players (default mj-players where
    mj-server's had the ``mixed`` personalities): the game is not mj-server's, and the first difference names it."""
    from bench.classical import play
    from tests import mjserver

    mjserver.require()
    files = mjserver.corpus(tmp_path / "game", 41001, personality="mixed")
    assert files
    wrong = play([(41001, None, "mixed", files)], lambda personality, first: ["mj-player"] * 4)
    assert wrong["games"] == 1 and wrong["same"] == 0 and wrong["hands"] == 0
    first = wrong["first_difference"]
    assert isinstance(first, dict) and first["seed"] == 41001 and first["personality"] == "mixed" and first["why"]
