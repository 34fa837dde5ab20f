"""``mjref score``: output, --explain, rule options with payments, and one test per bad input (exit 2, one line)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "score-request.json"


def run(
    argv: list[str],
    capsys: pytest.CaptureFixture[str],
    stdin: str | None = None,
    monkeypatch: pytest.MonkeyPatch | None = None,
) -> tuple[int, str, str]:
    if stdin is not None:
        assert monkeypatch is not None
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))  # bytes under it, as a real one
    code = main(["score", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, data: Any, name: str = "win.json") -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def example(**overrides: Any) -> dict[str, Any]:
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    data.update(overrides)
    return data


def test_example_scores_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run([str(EXAMPLE)], capsys)
    assert code == 0 and err == ""
    result = json.loads(out)
    assert result["tai"] == 9
    assert result["items"] == [
        {"key": "self_draw", "tai": 1},
        {"key": "concealed_pungs_3", "tai": 2},
        {"key": "half_flush", "tai": 4},
        {"key": "dragon_pung", "tai": 1},
        {"key": "seat_wind", "tai": 1},
    ]
    assert {"type": "pair", "tiles": [390, 391], "status": "concealed", "winning": True} in result[
        "arrangement"
    ]
    assert {"type": "pung", "tiles": [450, 451, 452], "status": "exposed"} in result["arrangement"]
    assert "payments" not in result  # no rule options given


def test_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run(["-"], capsys, stdin=EXAMPLE.read_text(encoding="utf-8"), monkeypatch=monkeypatch)
    assert code == 0 and json.loads(out)["tai"] == 9
    code, out, _ = run([], capsys, stdin=EXAMPLE.read_text(encoding="utf-8"), monkeypatch=monkeypatch)
    assert code == 0 and json.loads(out)["tai"] == 9  # FILE defaults to stdin


def test_explain(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["--explain", str(EXAMPLE)], capsys)
    assert code == 0 and err == ""
    assert "Half flush 混一色" in out and "half_flush" in out
    assert "Three concealed pungs" in out
    assert "\U0001f004" in out  # the Red dragon glyph of the exposed pung
    assert "winning tile" in out
    assert "Total: 9 tai" in out
    assert "Payments" not in out


def test_rule_options_add_payments(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--set", "per_tai=50", "--set", "tai.half_flush=6", str(EXAMPLE)], capsys)
    assert code == 0
    result = json.loads(out)
    assert result["tai"] == 11
    assert result["payments"]["per_payer"] == {"EAST": 100 + 50 * 12, "WEST": 650, "NORTH": 650}
    assert result["payments"]["winner_gets"] == 700 + 650 + 650
    code, out, _ = run(["--scoring", "wins", str(EXAMPLE)], capsys)
    payments = json.loads(out)["payments"]
    assert payments["scoring"] == "wins" and payments["winner_gets"] == 3
    code, out, _ = run(["--explain", "--scoring", "wins", str(EXAMPLE)], capsys)
    assert "Payments (wins scheme)" in out and "SOUTH gets 3" in out


def test_seven_pairs_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = example(
        concealed=[110, 111, 120, 121, 150, 151, 350, 351, 370, 371, 290, 291, 410, 411, 450, 451, 452],
        melds=[],
        winning_tile=411,
    )
    path = write(tmp_path, data)
    code, _, err = run([path], capsys)
    assert code == 2 and "not a winning hand" in err
    code, out, _ = run(["--set", "seven_pairs_and_pung=true", path], capsys)
    assert code == 0
    assert {"key": "seven_pairs_and_pung", "tai": 8} in json.loads(out)["items"]


def test_subprocess_example() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "referee.cli", "score", "examples/score-request.json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["tai"] == 9


# -------------------------------------------------------------------------------------------- bad input

BAD: list[tuple[str, Any, str]] = [
    (
        "unknown TID",
        example(concealed=[999, *example()["concealed"][1:]]),
        "concealed[0]: 999 is not a tile ID",
    ),
    (
        "tile used twice",
        example(concealed=[450, *example()["concealed"][1:]]),
        "melds[0].tiles[0]: tile 450 (Red) is used twice (also concealed[0])",
    ),
    (
        "more than four of a kind",
        example(concealed=[353, 353, *example()["concealed"][2:]]),
        "more than four of a kind: 5 tiles of 5-Tong",
    ),
    (
        "winning tile not in concealed",
        example(winning_tile=392),
        "winning_tile: 392 (9-Tong) is not in concealed (concealed includes it)",
    ),
    (
        "wrong number of tiles",
        example(concealed=example()["concealed"][:-1] + [], winning_tile=390),
        "wrong number of tiles: 16 in concealed and melds; a win has 17 plus one per gong (17 with 0 gongs)",
    ),
    (
        "meld does not form its type",
        example(melds=[{"type": "pong", "tiles": [450, 451, 460]}]),
        "melds[0]: 450 451 460 is not a pong (3 tiles of one kind)",
    ),
    (
        "unknown meld type",
        example(melds=[{"type": "chi", "tiles": [450, 451, 452]}]),
        "melds[0].type: input should be 'eat', 'pong', 'gong' or 'concealed_gong'",
    ),
    (
        "not a winning hand",
        example(concealed=[*example()["concealed"][:-2], 420, 391]),
        "not a winning hand: the concealed tiles do not form 4 sets and a pair",
    ),
    (
        "unknown field",
        example(player=3),
        (
            "player: unknown field (known: concealed, melds, winning_tile, self_drawn, seat_wind, round_wind, dealer,"
            " flowers, last_tile, kong_replacement, robbing_kong, first_turn)"
        ),
    ),
    (
        "string where a boolean belongs",
        example(self_drawn="true"),
        "self_drawn: input should be a valid boolean, not 'true'",
    ),
    (
        "bad seat wind",
        example(seat_wind="Sud"),
        "seat_wind: input should be 'EAST', 'SOUTH', 'WEST' or 'NORTH'",
    ),
    ("not an object", [1, 2, 3], "expected one JSON object (the win), not list"),
    ("bad JSON", '{\n  "concealed": [111,\n}', "bad JSON at line 3, column 1: Expecting value"),
]


@pytest.mark.parametrize(("label", "data", "message"), BAD, ids=[b[0] for b in BAD])
def test_bad_input(
    label: str, data: Any, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, data)
    code, out, err = run([path], capsys)
    assert code == 2
    assert out == ""
    assert err == f"mjref score: {path}: {message}\n"


def test_bad_input_on_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run(["-"], capsys, stdin="not json", monkeypatch=monkeypatch)
    assert code == 2 and out == ""
    assert err == "mjref score: <stdin>: bad JSON at line 1, column 1: Expecting value\n"


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = str(tmp_path / "nope.json")
    code, _, err = run([missing], capsys)
    assert code == 2
    assert err == f"mjref score: {missing}: cannot read (No such file or directory)\n"


def test_bad_rule_option(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["--set", "per_tia=5", str(EXAMPLE)], capsys)
    assert code == 2 and out == ""
    assert err.startswith("mjref score: unknown rule option 'per_tia'") and err.count("\n") == 1
    code, _, err = run(["--set", "per_tai", str(EXAMPLE)], capsys)
    assert code == 2 and err == "mjref score: --set 'per_tai': expected OPTION=VALUE\n"


def test_stdin_that_is_not_utf8_is_named(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'\xff{"concealed": []}')))
    assert main(["score", "-"]) == 2
    assert capsys.readouterr().err == "mjref score: <stdin>: line 1: not UTF-8 text (byte 0xff at column 1)\n"
