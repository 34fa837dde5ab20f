"""The reader of mj-server's hand histories: real files read into typed records; a malformed or foreign file is
refused with one line naming the file and line (and ``mjref replay`` exits 2 on it)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.errors import InputError
from referee.game.classical.history import DiscardMsg, HandScoreMsg, SettlementMsg, TileMsg, parse_history
from referee.game.classical.table import check_history
from referee.mjserver import read_history, verify_histories

DATA = Path(__file__).resolve().parents[1] / "data" / "mjserver"
DEFAULT = DATA / "default.mjs"


def text() -> str:
    return DEFAULT.read_bytes().decode()


def test_a_real_history_reads_into_typed_records() -> None:
    h = read_history(DEFAULT)
    assert sorted(h.players) == [1, 2, 3, 4]
    assert h.game.round == "EW" and h.game.hands_as_east == 0
    assert h.options.ScoreLimit == 1000 and h.options.Flowers and not h.options.SevenPairs
    assert len(h.wall.tiles) == 144
    assert h.moves[0].kind == "NewHand"
    assert isinstance(h.moves[-1], SettlementMsg) and sum(h.moves[-1].changes) == 0
    scores = [m for m in h.moves if isinstance(m, HandScoreMsg)]
    assert len(scores) == 4
    assert scores[0].explanation[0] == "basic        20 (going Mah Jong)"
    assert scores[0].explanation[-1].startswith("SCORE:")
    assert any(isinstance(m, DiscardMsg) for m in h.moves)
    assert any(isinstance(m, TileMsg) and m.kind == "PlayerMahJongs" for m in h.moves)


def test_every_kept_history_verifies() -> None:
    report = verify_histories([DATA])
    assert len(report.hands) == 7
    assert report.ok, report.first
    assert report.items > 100


@pytest.mark.parametrize("edit, reason", [
    (lambda t: "hello\r\n" + t, "h.mjs:1: 'hello' is not an mj-server history message"),
    (lambda t: t.replace("PlayerDraws 1 NW", "PlayerDraws 1 1X", 1), "'1X' is not a tile code"),
    (lambda t: t.replace("PlayerDiscards 1 NW 1 0", "PlayerDiscards 1 NW one 0", 1),
     "discard serial 'one' is not an integer"),
    (lambda t: t.replace("PlayerDiscards 1 NW 1 0", "PlayerDiscards 1 NW 1 0 extra", 1), "unexpected 'extra'"),
    (lambda t: t.replace("PlayerDiscards 1 NW 1 0", "PlayerDiscards --1 NW 1 0", 1),
     "player id '--1' is not an integer"),
    (lambda t: t.replace("PlayerDiscards 1 NW 1 0", "PlayerDiscards 1 NW \u00b2 0", 1),
     "discard serial '\u00b2' is not an integer"),
    (lambda t: t.replace("PlayerDiscards 1 NW 1 0", "PlayerDiscards 1 NW - 0", 1), "discard serial '-' is not"),
    (lambda t: t.replace("PlayerDiscards 1 NW 1 0", "PlayerDiscards 1 NW  1 0", 1),
     "PlayerDiscards: two blanks before discard serial"),
    (lambda t: t.replace("Wall NW 6C", "Wall NW  6C", 1), "Wall: two blanks between tiles"),
    (lambda t: t.replace("PlayerClaimsChow 2 37 Middle", "PlayerClaimsChow 2 37 Sideways", 1),
     "'Sideways' is not a chow position"),
    (lambda t: t.replace("GameOption 0 Flowers bool", "GameOption 0 Flower bool", 1), "unknown game option 'Flower'"),
    (lambda t: t.replace("GameOption 0 NoLimit bool 0 1 0", "GameOption 0 NoLimit bool 0 1 7", 1),
     "option NoLimit is a bool: its value is 0 or 1, not 7"),
    (lambda t: t.replace("GameOption 0 ScoreLimit nat", "GameOption 0 ScoreLimit bool", 1),
     "option ScoreLimit is of type nat, not 'bool'"),
    (lambda t: t[: t.index("Settlement")], "does not end with a Settlement"),
    (lambda t: t.replace("Wall NW 6C", "Wall 6C", 1), "the wall has 143 tiles, not 144"),
    (lambda t: t.replace("PlayerDraws 1 6C", "PlayerDraws 9 6C", 1), "player 9 is not one of [1, 2, 3, 4]"),
    (lambda t: t + "Comment x\\\r\n", "continues past the end of the file"),
    (lambda t: "", "not an mj-server hand history"),
    (lambda t: t.replace(" 1110 0\r\n", " 1050 0\r\n", 1),
     "Game: protocol version 1050: mjref plays mj-server's protocol 1110"),
    (lambda t: "".join(x for x in t.splitlines(keepends=True) if not x.startswith("GameOption 0 End")),
     "the game's options do not end with 'GameOption 0 End'"),
    (lambda t: "".join(x for x in t.splitlines(keepends=True) if not x.startswith("GameOption")),
     "the game's options do not end with 'GameOption 0 End'"),
    (lambda t: t.replace("\nWall ", "\nGameOption 0 NoLimit bool 0 1 1 no-limit game\r\nWall ", 1),
     "GameOption out of place (after Game, before Wall and the End option)"),
])
def test_a_malformed_history_is_refused_with_its_line(edit: object, reason: str) -> None:
    assert callable(edit)
    edited = edit(text())
    assert edited != text()
    with pytest.raises(InputError) as e:
        parse_history(edited, "h.mjs")
    assert reason in str(e.value)
    assert str(e.value).startswith("h.mjs")
    assert "\n" not in str(e.value)


def test_escaped_text_reads_as_mj_server_reads_it() -> None:
    """A string field that starts with a space is guarded by a backslash, and a backslash is doubled."""
    h = read_history(DATA / "half-limit.mjs")
    first = next(m for m in h.moves if isinstance(m, HandScoreMsg))
    assert first.explanation[0] == " 0.5 Limit  250 (almost concealed hand)"
    assert not h.options.Flowers and not h.options.DeadWall and h.options.ConcealedAlmost == 50_000_000


def test_a_binary_or_non_utf8_file_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "b.mjs"
    f.write_bytes(b"Player 1 x\0")
    with pytest.raises(InputError, match="a binary file"):
        read_history(f)
    f.write_bytes(b"Player 1 \xff\xfe")
    with pytest.raises(InputError, match="line 1: not UTF-8 text"):
        read_history(f)


def test_mjref_replay_refuses_a_foreign_file_with_one_line_and_exit_2(tmp_path: Path) -> None:
    foreign = tmp_path / "hand-01.mjs"
    foreign.write_text('{"kind": "header"}\n')
    r = subprocess.run([sys.executable, "-m", "referee.cli", "replay", str(foreign)], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and f"{foreign}:1:" in r.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    r = subprocess.run([sys.executable, "-m", "referee.cli", "replay", str(empty)], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL)
    assert r.returncode == 2 and "a directory without mj-server hand histories" in r.stderr


def test_mjref_replay_names_the_first_difference_and_exits_1(tmp_path: Path) -> None:
    changed = tmp_path / "hand-01.mjs"
    original = DEFAULT.read_bytes()
    assert b"extra         2 (winning from wall)" in original
    changed.write_bytes(original.replace(b"extra         2 (winning from wall)",
                                         b"extra         3 (winning from wall)"))
    r = subprocess.run([sys.executable, "-m", "referee.cli", "replay", "--json", str(DATA / "cannon.mjs"),
                        str(changed)], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert r.returncode == 1, r.stdout + r.stderr
    d = json.loads(r.stdout)["difference"]
    line = original.decode().split("\r\n").index("extra         2 (winning from wall)\\") + 1
    assert d == {"file": str(changed), "line": line, "what": "East (player 1)'s score, item 5",
                 "mjref": "extra         2 (winning from wall)", "mjserver": "extra         3 (winning from wall)"}
    r = subprocess.run([sys.executable, "-m", "referee.cli", "replay", str(changed)], capture_output=True,
                       text=True, stdin=subprocess.DEVNULL)
    assert r.returncode == 1 and "difference at" in r.stdout
    r = subprocess.run([sys.executable, "-m", "referee.cli", "replay", str(DATA)], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "verified: 7 hand histories" in " ".join(r.stdout.split())


@pytest.mark.parametrize("old, new, line, reason", [
    ("PlayerDraws 1 NW\r\nPlayerDraws 1 6C", "PlayerDraws 1 6C\r\nPlayerDraws 1 NW", 32,
     "illegal: draws 6C, but the next tile of the wall is NW"),
    ("PlayerDiscards 2 9D 2 0", "PlayerDiscards 2 GD 2 0", 98, "illegal: has not 1 × GD in hand"),
    ("PlayerClaimsPung 1 20\r\n", "PlayerDoesntClaim 1 20 0\r\n", 196,
     "illegal: takes the discard without claiming it (PlayerClaimsPung)"),
    ("PlayerClaimsChow 2 37 Middle", "PlayerClaimsChow 3 37 Middle", 280,
     "illegal: claims a chow of a discard not by the previous player"),
])
def test_a_move_the_rules_do_not_allow_is_a_difference(old: str, new: str, line: int, reason: str) -> None:
    original = text()
    assert old in original
    h = parse_history(original.replace(old, new, 1), "h.mjs")
    d = check_history(h).difference
    assert d is not None and d.line == line and d.mjref == reason and d.mjserver == "accepted", d


def test_the_table_gives_each_players_change_and_running_total() -> None:
    """Per player id: the hand's change and the game's total after it (the Game line's total plus the change)."""
    from referee.commands._histories import report_json, table

    report = verify_histories([DATA / "loose-tile.mjs"])
    (hand,) = report_json(report)["hands"]
    h = report.hands[0].history
    assert sorted(hand["seats"]) == [1, 2, 3, 4] and sum(hand["changes"]) == 0
    before = dict(zip(h.game.seats, h.game.scores))
    t = table(report)
    cells = [str(c._cells[0]) for c in t.columns[3:]]
    for pid, cell in zip(range(1, 5), cells):
        change = hand["changes"][hand["seats"].index(pid)]
        assert cell.endswith(f"[bold]{before[pid] + change}[/bold]") and f"{change:+d}" in cell


def test_a_damaged_history_is_refused_or_differs_never_a_traceback() -> None:
    """Lines deleted, repeated, swapped, cut short or given another tile or number: each damaged history is either
    refused with one line (InputError) or replayed to a verdict; nothing else escapes."""
    import random

    rng = random.Random(32)
    texts = [p.read_bytes().decode() for p in sorted(DATA.glob("*.mjs"))]
    words = "1B 5B 9B 1C 5C 9C 1D 5D 9D EW SW RD GD WD 1F 2S 0 1 2 3 4 99".split()
    verdicts = {"refused": 0, "differs": 0, "verified": 0}
    for _ in range(200):
        lines = rng.choice(texts).split("\r\n")
        for _ in range(rng.randint(1, 3)):
            k = rng.randrange(len(lines))
            op = rng.randrange(5)
            if op == 0:
                del lines[k]
            elif op == 1:
                lines.insert(k, lines[rng.randrange(len(lines))])
            elif op == 2:
                w = lines[k].split(" ")
                if len(w) > 2:
                    w[rng.randrange(1, len(w))] = rng.choice(words)
                    lines[k] = " ".join(w)
            elif op == 3:
                j = rng.randrange(len(lines))
                lines[k], lines[j] = lines[j], lines[k]
            else:
                lines[k] = lines[k][: rng.randrange(len(lines[k]) + 1)]
        try:
            h = parse_history("\r\n".join(lines), "f.mjs")
        except InputError as e:
            assert "\n" not in str(e) and str(e).startswith("f.mjs")
            verdicts["refused"] += 1
            continue
        verdicts["differs" if check_history(h).difference else "verified"] += 1
    assert verdicts["refused"] > 50 and verdicts["differs"] > 20, verdicts


def test_explain_shows_every_players_declaration_and_explanation() -> None:
    r = subprocess.run([sys.executable, "-m", "referee.cli", "replay", "--json", "--explain",
                        str(DATA / "robbing.mjs")], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    (hand,) = json.loads(r.stdout)["hands"]
    theirs = {m.id: list(m.explanation) for m in read_history(DATA / "robbing.mjs").moves
              if isinstance(m, HandScoreMsg)}
    assert {x["player"]: x["explanation"] for x in hand["scored"]} == theirs
    winner = next(x for x in hand["scored"] if x["winner"])
    assert "1 dbl (robbing a kong)" in " ".join(winner["explanation"])
    r = subprocess.run([sys.executable, "-m", "referee.cli", "replay", "--explain", str(DATA / "robbing.mjs")],
                       capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert r.returncode == 0 and "West (player 3) wins:" in r.stdout


def test_easts_consecutive_wins_come_from_the_game_line() -> None:
    """East's run of wins is the Game line's, kept while East stays East: at 12, East's win is a limit hand (which
    mj-server did not give this hand, so mjref differs on it); when East changes the run starts again."""
    original = text()
    game = next(line for line in original.split("\r\n") if line.startswith("Game "))
    assert game.startswith("Game 1 2 3 4 E 0 ") and "NewHand 1 " in original  # East (player 1) stays East, wins
    d = check_history(parse_history(original.replace(game, game.replace(" E 0 ", " E 12 ", 1)), "h.mjs")).difference
    assert d is not None and d.mjref == "Limit Hand 1000 (East's 13th consecutive win)", d
    d = check_history(parse_history(original.replace(game, game.replace(" E 0 ", " E 11 ", 1)), "h.mjs")).difference
    assert d is None
    rotated = game.replace("Game 1 2 3 4 E 0 ", "Game 4 1 2 3 E 12 ", 1)  # East was player 4: the run is over
    assert check_history(parse_history(original.replace(game, rotated), "h.mjs")).difference is None


def test_a_history_whose_wall_is_no_wall_is_refused_before_any_verdict(tmp_path: Path) -> None:
    """A wall with a tile five times (another once less) is no mj-server history: ``mjref replay`` refuses it with
    its line, exit 2, as ``--wallfile`` does, instead of replaying it to a difference."""
    lines = text().split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("Wall "))
    codes = lines[at].rstrip("\r").split(" ")[1:]
    first = next(c for c in codes if c[1] in "CBD")
    other = next(i for i, c in enumerate(codes) if c != first and c[1] in "CBD")
    codes[other] = first
    lines[at] = "Wall " + " ".join(codes) + ("\r" if lines[at].endswith("\r") else "")
    bad = tmp_path / "five.mjs"
    bad.write_text("\n".join(lines))
    with pytest.raises(InputError, match=f"five.mjs:{at + 1}: the wall holds {first} five times"):
        verify_histories([bad])
    r = subprocess.run([sys.executable, "-m", "referee.cli", "replay", str(bad)], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "five times" in r.stderr, r.stderr
