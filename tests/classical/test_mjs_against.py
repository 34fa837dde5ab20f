"""``mjref match --wallfile hand-NN.mjs`` deals mj-server's walls, seats and options, and ``mjref replay --against``
compares an mjref log with mj-server's histories move by move: games of the real mj-server and mj-player turned
into mjref logs by their own moves (``write_history_log``), compared equal; one discard changed, compared unequal
at that discard's lines; malformed or foreign files refused with one line (exit 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import mjserver
import pytest

from referee.against import compare, history_moves, log_hands
from referee.errors import InputError
from referee.game.classical.family import CODE
from referee.game.classical.wallfile import history_deal
from referee.mjserver import history_deals, read_history, write_history_log

DATA = Path(__file__).resolve().parents[1] / "data" / "mjserver"
GAMES = [(None, "default", 41), ("dead-wall-16", "pungs", 42), ("flowers-loose-1", "mixed", 43),
         ("seven-pairs-1", "default", 44)]


def mjref(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    mjserver.require()
    root = tmp_path_factory.mktemp("against")
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = [pool.submit(mjserver.corpus, root / f"{opt}-{seed}", seed, options=opt, personality=pers)
                   for opt, pers, seed in GAMES]
        folders = [f.result()[0].parent for f in futures]
    return folders


@pytest.fixture(scope="module")
def agreeing(games: list[Path], tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Path], Path]:
    """The longest run of a game's first hands whose mjref log (by their own moves) equals the histories, as
    files and the log."""
    best: tuple[list[Path], Path] | None = None
    root = tmp_path_factory.mktemp("agreeing")
    for folder in games:
        files = sorted(folder.glob("hand-*.mjs"))
        log = root / f"{folder.name}.jsonl"
        try:
            n = write_history_log(history_deals(files), log)
        except InputError:
            continue  # the first hand cannot be followed (the deal's flowers: test_mjs_wall)
        report = compare(files[:n], log)
        k = report.hands
        if k and (best is None or k > len(best[0])):
            ok_log = root / f"{folder.name}-{k}.jsonl"
            write_history_log(history_deals(files[:k]), ok_log)
            best = (files[:k], ok_log)
    assert best is not None, "no game's first hand compares equal"
    return best


def test_a_history_log_verifies_and_its_play_is_mj_servers_move_for_move(games: list[Path],
                                                                          tmp_path: Path) -> None:
    """Every hand the engine follows: the log is true to the rules (mjref replay), and its dealer, round, wall,
    deals and every move of the play (draws, flowers, discards, claims, kongs, Mah-Jong) are the history's."""
    compared = 0
    for folder in games:
        files = sorted(folder.glob("hand-*.mjs"))
        log = tmp_path / f"{folder.name}.jsonl"
        try:
            n = write_history_log(history_deals(files), log)
        except InputError as e:
            assert "seat" in str(e) and "cannot follow" in str(e)
            continue
        r = mjref("replay", "--json", str(log))
        assert r.returncode == 0, r.stdout[-800:] + r.stderr
        assert json.loads(r.stdout)["ok"]
        for (ours, _), path in zip(log_hands(log), files[:n], strict=False):
            theirs, _ = history_moves(history_deal(read_history(path)))
            assert [m.text for m in ours] == [m.text for m in theirs], path
            compared += 1
    assert compared >= 10, compared


def test_replay_against_says_equal_and_exits_0(agreeing: tuple[list[Path], Path]) -> None:
    files, log = agreeing
    r = mjref("replay", *sum((["--against", str(f)] for f in files), []), str(log))
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith(f"equal: {len(files)} hand") and "later hand" not in r.stdout
    r = mjref("replay", "--json", *sum((["--against", str(f)] for f in files), []), str(log))
    out = json.loads(r.stdout)
    assert r.returncode == 0 and out["ok"] and out["hands"] == len(files) and out["moves"] > 100 * len(files)
    assert out["log_hands"] == len(files)


def test_a_log_longer_than_its_histories_says_what_was_not_compared(agreeing: tuple[list[Path], Path]) -> None:
    """One history against a log of several hands: equal as far as it goes, and the verdict says the rest of the
    log was not compared (it once said only 'equal: 1 hand')."""
    files, log = agreeing
    assert len(files) >= 2  # (mj-server's games of one seed differ from run to run: some agree for 2 hands only)
    r = mjref("replay", "--against", str(files[0]), str(log))
    assert r.returncode == 0, r.stdout + r.stderr
    later = "later hands have" if len(files) > 2 else "later hand has"
    assert r.stdout.startswith("equal: 1 hand,") and f"its {len(files) - 1} {later} no history" in r.stdout
    out = json.loads(mjref("replay", "--json", "--against", str(files[0]), str(log)).stdout)
    assert out["hands"] == 1 and out["log_hands"] == len(files)


def test_one_discard_changed_is_the_difference_with_both_lines(agreeing: tuple[list[Path], Path],
                                                              tmp_path: Path) -> None:
    """The log's answer and event of one discard changed to another tile the seat holds (the tile it just drew):
    exit 1, naming that PlayerDiscards line of the history and the log's throw line, and both tiles."""
    files, log = agreeing
    lines = log.read_text().splitlines()
    recs = [json.loads(x) for x in lines]
    for i, rec in enumerate(recs):
        if rec["type"] == "answer" and rec["ask"] == "throw" and i > 0 and recs[i - 1].get("kind") == "mo":
            drawn, thrown = recs[i - 1]["tile"], recs[i + 1]["tile"]
            if drawn // 10 != thrown // 10 and recs[i - 1]["seat"] == rec["seat"]:
                break
    else:
        pytest.fail("no discard after a draw of another tile")
    assert recs[i + 1]["kind"] == "throw"
    lines[i] = lines[i].replace(f'"/throw {thrown}"', f'"/throw {drawn}"')
    lines[i + 1] = lines[i + 1].replace(f'"tile":{thrown}', f'"tile":{drawn}')
    altered = tmp_path / "altered.jsonl"
    altered.write_text("\n".join(lines) + "\n")
    hand = recs[i]["hand"]
    seat = recs[i]["seat"]
    # the history's line: the discards of that seat in that hand, counted as in the log
    n = sum(1 for r in recs[:i] if r.get("hand") == hand and r["type"] == "answer" and r["ask"] == "throw"
            and r["seat"] == seat)
    discards = [m for m in read_history(files[hand]).moves if m.kind == "PlayerDiscards"
                and history_deal(read_history(files[hand])).positions[m.id] == seat]  # type: ignore[attr-defined]
    want = f"{files[hand]}:{discards[n].line} and {altered}:{i + 2}:"
    r = mjref("replay", *sum((["--against", str(f)] for f in files), []), str(altered))
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stdout.startswith(f"differs: {want}"), (r.stdout, want)
    assert f"mjref seat {seat} discards {CODE[drawn]}; mj-server seat {seat} discards {CODE[thrown]}" in r.stdout
    # without the change, the same command says equal: the difference is the discard
    assert mjref("replay", *sum((["--against", str(f)] for f in files), []), str(log)).returncode == 0


def test_a_log_untrue_to_the_rules_is_a_difference(agreeing: tuple[list[Path], Path], tmp_path: Path) -> None:
    files, log = agreeing
    lines = log.read_text().splitlines()
    i = next(k for k, x in enumerate(lines) if '"type":"result"' in x)
    lines[i] = lines[i].replace('"scores":[', '"scores":[1')
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    r = mjref("replay", "--against", str(files[0]), str(bad))
    assert r.returncode == 1
    assert r.stdout.startswith(f"differs: {bad}:{i + 1}: the log is not true to the rules: the log says")


@pytest.mark.parametrize("args, reason", [
    (["--against", "{hist}", "{hist}"], "--against compares one mjref match log"),
    (["--against", "{hist}", "{log}", "{log}"], "--against compares one mjref match log"),
    (["--against", "{hist}", "--hand", "1", "{log}"], "--hand does not go with --against"),
    (["--against", "{bad}", "{log}"], "bad.mjs:1: 'hello' is not an mj-server history message"),
    (["--against", "{hist}", "{notlog}"], "not an mjref log"),
    (["--against", "{hist}", "{taiwan}"], "a taiwan16 log; mj-server's histories are Chinese Classical"),
    (["--against", "{nosuch}", "{log}"], "no such file or folder"),
    (["--against", "{many}", "{log}"], "many.mjs:176: PlayerDraws: the wall has no tile left"),
])
def test_bad_input_gets_one_line_and_exit_2(tmp_path: Path, args: list[str], reason: str) -> None:
    bad = tmp_path / "bad.mjs"
    bad.write_text("hello\n")
    text = (DATA / "default.mjs").read_text()
    at = text.index("PlayerDraws 2 RD")
    (tmp_path / "many.mjs").write_text(text[:at] + "PlayerDraws 2 RD\r\n" * 150 + text[at:])  # more than the wall
    notlog = tmp_path / "notlog.jsonl"
    notlog.write_text("{}\n")
    taiwan = tmp_path / "taiwan.jsonl"
    assert mjref("match", "--hands", "1", "--seed", "1", "--log", str(taiwan), "--quiet").returncode == 0
    log = tmp_path / "default.jsonl"
    write_history_log(history_deals([DATA / "default.mjs"]), log)
    names = {"hist": str(DATA / "default.mjs"), "log": str(log), "bad": str(bad), "notlog": str(notlog),
             "taiwan": str(taiwan), "nosuch": str(tmp_path / "nosuch.mjs"), "many": str(tmp_path / "many.mjs")}
    r = mjref("replay", *[a.format(**names) for a in args])
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.count("\n") == 1 and reason in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


# ---------------------------------------------------------------------------------------------------- --wallfile
def test_match_wallfile_deals_the_histories_walls_under_their_options(games: list[Path], tmp_path: Path) -> None:
    folder = games[1]  # dead-wall-16: options that are not the defaults
    files = sorted(folder.glob("hand-*.mjs"))
    log = tmp_path / "m.jsonl"
    r = mjref("match", "--wallfile", str(folder), "--hands", "3", "--log", str(log), "--quiet")
    assert r.returncode == 0, r.stderr
    recs = [json.loads(x) for x in log.read_text().splitlines()]
    header = recs[0]
    assert header["walls"] == "file" and header["hands"] == 3
    assert header["rules"]["family"] == "classical" and header["rules"]["options"]["DeadWall16"] is True
    walls = [r["wall"] for r in recs if r["type"] == "hand"]
    assert walls[0] == list(history_deal(read_history(files[0])).wall.tiles)
    assert all(w == list(history_deal(read_history(f)).wall.tiles) for w, f in zip(walls, files, strict=False))
    assert mjref("replay", str(log)).returncode == 0


@pytest.mark.parametrize("args, reason", [
    (["--rules", "taiwan16"], "an mj-server hand history deals Chinese Classical under its own options, not "
                              "--rules taiwan16"),
    (["--set", "SevenPairs=true"], "the history's option SevenPairs is False, the ruleset's True"),
])
def test_match_wallfile_refuses_other_rules(args: list[str], reason: str) -> None:
    r = mjref("match", "--wallfile", str(DATA / "default.mjs"), "--log", "none", *args)
    assert r.returncode == 2 and reason in r.stderr and r.stderr.count("\n") == 1, r.stderr


def test_match_wallfile_refuses_a_hand_the_match_would_deal_otherwise() -> None:
    r = mjref("match", "--wallfile", str(DATA / "cannon.mjs"), "--log", "none")
    assert r.returncode == 2
    assert "cannon.mjs: East is seat 4 in the west round (East's run 0), but mjref deals a match's first hand " \
           "with seat 1 East in the east round (run 0)" in r.stderr
    r = mjref("match", "--wallfile", str(DATA / "default.mjs"), "--wallfile", str(DATA / "half-limit.mjs"),
              "--log", "none")
    assert r.returncode == 2 and "its option" in r.stderr and "a match has one ruleset" in r.stderr
