"""docs/protocol.md and docs/rules.md are the contract: their examples must be what the code does.

* every ``<`` example line of docs/protocol.md parses as a referee line, every ``>`` line as a bot's answer (and
  formats back to the same canonical line), and every ``x`` line is refused, all with the referee's own codec;
* the annotated hand is, annotations aside, exactly what ``mjref transcript`` prints for the log it names, and a
  transcript of a match played now has the same format (every line one the codec reads);
* every ruleset option and every tai item has its row in docs/rules.md, with the model's default;
* no tracked file cites a file outside the repository.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from referee.game.taiwan16.rules import DEFAULT_TAI, Ruleset
from referee.match import play_match, resolve_bots
from referee.transcript import format_transcript, transcript
from wrappers.codec import ProtocolError, format_answer, parse_answer, parse_server_line

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL = ROOT / "docs" / "protocol.md"
RULES = ROOT / "docs" / "rules.md"
TIMING = re.compile(r"\s+\((?:[0-9.]+ ms|dummy)[^)]*\)$")


def _blocks(text: str) -> list[tuple[str, list[str]]]:
    """Fenced ``text`` blocks with the HTML comment just before each (or "")."""
    out = []
    for m in re.finditer(r"(<!--(.*?)-->\s*)?```text\n(.*?)```", text, re.S):
        out.append(((m.group(2) or "").strip(), m.group(3).splitlines()))
    return out


def _example_lines(prefix: str) -> list[str]:
    lines = [line[3:] for _, block in _blocks(PROTOCOL.read_text(encoding="utf-8")) for line in block
             if line.startswith(prefix + "  ")]
    return [TIMING.sub("", line) for line in lines]


def test_the_page_has_examples_in_both_directions() -> None:
    assert len(_example_lines("<")) > 30
    assert len(_example_lines(">")) > 15
    assert len(_example_lines("x")) >= 5


@pytest.mark.parametrize("line", sorted(set(_example_lines("<"))))
def test_every_referee_line_parses(line: str) -> None:
    parse_server_line(line, seat=1)


@pytest.mark.parametrize("line", sorted(set(_example_lines(">"))))
def test_every_answer_line_parses(line: str) -> None:
    answer = parse_answer(line)
    assert parse_answer(format_answer(answer)) == answer


@pytest.mark.parametrize("line", sorted(set(_example_lines("x"))))
def test_every_refused_line_is_refused(line: str) -> None:
    with pytest.raises(ProtocolError):
        parse_answer(line)


def _annotated() -> tuple[list[str], list[str]]:
    found = [(comment, block) for comment, block in _blocks(PROTOCOL.read_text(encoding="utf-8"))
             if comment.startswith("transcript:")]
    assert len(found) == 1, "docs/protocol.md has one annotated hand, after <!-- transcript: LOG --seat N --hand H -->"
    comment, block = found[0]
    return comment.removeprefix("transcript:").split(), [line for line in block if not line.startswith("-- ")]


def test_the_annotated_hand_is_a_real_transcript() -> None:
    args, lines = _annotated()
    log, seat, hand = args[0], int(args[args.index("--seat") + 1]), int(args[args.index("--hand") + 1])
    header, hands = transcript(ROOT / log, seat, hand - 1)
    assert format_transcript(header, seat, hands).splitlines() == lines


def test_a_match_played_now_has_the_annotated_format(tmp_path: Path) -> None:
    """The format the page shows is the format of today's matches: every line of a fresh transcript is a
    comment or a direction mark, two blanks and a line the codec reads, as in the annotated hand."""
    _, doc_lines = _annotated()
    log = tmp_path / "m.jsonl"
    play_match(resolve_bots(["greedy", "random", "greedy", "drawdiscard"], "greedy"), seed=11,
               rules=Ruleset(hands=2), log_path=log)
    for seat in (1, 2, 3, 4):
        header, hands = transcript(log, seat)
        lines = format_transcript(header, seat, hands).splitlines()
        for line in lines + doc_lines:
            assert line.startswith(("# ", "<  ", ">  ")), line
            if line.startswith("<  "):
                parse_server_line(line[3:], seat=seat)
            elif line.startswith(">  "):
                parse_answer(TIMING.sub("", line[3:]))
        assert lines[2].startswith("<  /start MJ ") and lines[3].startswith("<  /initGame ")
        assert lines[-1].startswith("<  /exit ")


def _table_rows(text: str, heading: str) -> dict[str, list[str]]:
    section = text.split(heading, 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = cells[1:]
    return rows


def test_every_ruleset_option_has_its_row_with_its_default() -> None:
    rows = _table_rows(RULES.read_text(encoding="utf-8"), "## Ruleset options")
    for name, field in Ruleset.model_fields.items():
        assert name in rows, f"ruleset option {name!r} has no row in docs/rules.md's options table: add one"
        if name == "tai":
            continue
        default = field.get_default(call_default_factory=True)
        shown = rows[name][0].strip("`")
        expected = {True: "true", False: "false"}.get(default, default) if isinstance(default, bool) else default
        if isinstance(default, str):
            expected = f'"{default}"'
        elif isinstance(default, float) and default.is_integer():
            expected = int(default)
        assert shown == str(expected), f"docs/rules.md shows {name} = {shown}; the model's default is {default!r}"
    unknown = set(rows) - set(Ruleset.model_fields)
    assert not unknown, f"docs/rules.md has rows for options that do not exist: {sorted(unknown)}"


def test_the_tai_table_is_the_default_table() -> None:
    rows = _table_rows(RULES.read_text(encoding="utf-8"), "## The tai table")
    assert {k: int(v[0]) for k, v in rows.items()} == DEFAULT_TAI


def test_no_tracked_file_cites_a_file_outside_the_repository() -> None:
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    if not files:
        pytest.skip("not a git checkout")
    needles = ("RULES" + ".md", "../" + "shared", "/work/" + "shared", "seeds/" + "001_")
    offenders = []
    for name in files:
        path = ROOT / name
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if any(n in line for n in needles):
                offenders.append(f"{name}:{number}: {line.strip()[:100]}")
    assert not offenders, "files cite something outside the repository:\n" + "\n".join(offenders)
