"""``mjref report`` and ``mjref standings`` over stores and logs that are damaged or edited by hand: one bad match
log costs only its own viewer; an error is one correct line, with advice that fits; a recount that fails leaves
the store as it was (the helpers are ``test_fuzz_inputs``')."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_fuzz_inputs import edited_store, mjref, one_line, store  # noqa: F401 - store: a fixture

BOTS = '[[bots]]\nname = "g"\nbuiltin = "greedy"\n[[bots]]\nname = "r"\nbuiltin = "random"\n'


@pytest.fixture()
def logged(tmp_path: Path) -> Path:
    """A tournament's store with its logs (two seeds, one hand: eight matches); the store names them by their
    absolute paths, so each test has its own."""
    d = tmp_path / "logged"
    d.mkdir()
    (d / "t.toml").write_text(f'name = "t"\nseeds = 2\nhands = 1\nstore = "t.sqlite"\nlogs = "logs"\n{BOTS}')
    proc = mjref("tournament", "t.toml", "--quiet", cwd=d)
    assert proc.returncode == 0, proc.stderr
    return d


def test_a_bad_match_log_costs_only_its_own_viewer(logged: Path) -> None:
    """``--with-matches`` caught only the viewer's own errors: a log that was not a log (open_log's LogError)
    ended the whole report."""
    d = logged
    logs = sorted((d / "logs").glob("*.jsonl"))
    logs[0].write_text("garbage\n")
    logs[1].write_bytes(b"")
    logs[2].write_text(logs[2].read_text().replace('"type"', '"tpye"', 3))
    proc = mjref("report", "t.sqlite", "-o", "r.html", "--with-matches", cwd=d)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    for log in logs[:3]:
        assert f"no viewer for {log.stem}: {log}" in proc.stdout, proc.stdout
    assert "wrote 5 match viewer(s)" in proc.stdout
    assert sorted(p.stem for p in (d / "r_matches").glob("*.html")) == [p.stem for p in logs[3:]]
    assert "no viewer" in (d / "r.html").read_text()


RECOUNT_CASES = [
    # No seat rows for a match (its ID edited, or the rows deleted): "max() arg is an empty sequence"
    ("UPDATE matches SET id = 'a' || char(27) || '[2J' WHERE rowid = 1", "0 seat row(s)"),
    ("DELETE FROM seats WHERE position = 1", "3 seat row(s)"),
    ("UPDATE seats SET rank = 1e999", "column 'rank' holds inf"),
    ("UPDATE matches SET seed = 'x'", "column 'seed' holds 'x'"),
    # Totalled without complaint, then refused by standings with advice to run the command just run
    ("UPDATE hands SET p1 = 1e308", "column 'p1' holds 1e+308"),
    ("UPDATE seats SET answer_seconds = -1e308", "column 'answer_seconds' holds -1e+308"),
    ("UPDATE seats SET answer_seconds = 1e300", "column 'answer_seconds' holds 4e+300"),
    ("UPDATE hands SET p1 = 9223372036854775807, s1 = -9223372036854775807", "larger than a store keeps"),
]


@pytest.mark.parametrize(("sql", "word"), RECOUNT_CASES, ids=[s for s, _ in RECOUNT_CASES])
def test_a_recount_that_fails_says_why_in_one_line_and_changes_nothing(sql: str, word: str, store: Path,
                                                                      tmp_path: Path) -> None:
    before = edited_store(store, tmp_path, sql).read_bytes()
    line = one_line(mjref("standings", "e.sqlite", "--recount", cwd=tmp_path), word)
    assert "--recount" not in line and "left as it was" in line and "\x1b" not in line
    assert (tmp_path / "e.sqlite").read_bytes() == before


def test_a_recount_says_so_after_the_standings_are_read(store: Path, tmp_path: Path) -> None:
    edited_store(store, tmp_path, "UPDATE agg_bot SET points = points + 1000")  # totals edited: the recount mends
    proc = mjref("standings", "e.sqlite", "--recount", "--format", "csv", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stderr == "e.sqlite: totals recounted from 4 matches\n", proc.stderr
    assert proc.stdout.startswith("name,")


@pytest.mark.parametrize("argv", [["report", "z.sqlite", "-o", "z.html"], ["standings", "z.sqlite"],
                                  ["standings", "z.sqlite", "--recount"]])
def test_an_empty_store_is_refused_without_advice_to_restart(argv: list[str], tmp_path: Path) -> None:
    """The store's message for an empty file advised ``--restart``, which these commands do not have."""
    (tmp_path / "z.sqlite").write_bytes(b"")
    line = one_line(mjref(*argv, cwd=tmp_path), "z.sqlite: an empty file (0 bytes)")
    assert "--restart" not in line and (tmp_path / "z.sqlite").read_bytes() == b""


BAD_NAME = "ev\x1b[31mil\x07\x00x\u202e\x85<b>"


def _unprintable(text: str) -> list[str]:
    return [ch for ch in text if not ch.isprintable() and ch not in "\n\t\r"]


def test_the_report_page_shows_the_control_characters_of_names_escaped(store: Path, tmp_path: Path) -> None:
    """Names from a store edited by hand were HTML-escaped but written with their control bytes (an ESC, a NUL, a
    bidi override): the page shows them as ``printable`` does everywhere else."""
    edited_store(store, tmp_path, ("UPDATE seats SET bot = ? WHERE bot = 'g'", (BAD_NAME,)),
                 *((f"UPDATE matches SET seat{n} = ? WHERE seat{n} = 'g'", (BAD_NAME,)) for n in (1, 2, 3, 4)),
                 ("UPDATE meta SET value = ? WHERE key = 'name'", ("t\x1b]0;x\x07",)))
    assert mjref("standings", "e.sqlite", "--recount", cwd=tmp_path).returncode == 0
    proc = mjref("report", "e.sqlite", "-o", "r.html", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert _unprintable(page) == []
    assert "ev\\x1b[31mil\\x07\\x00x\\u202e\\x85&lt;b&gt;" in page and "Content-Security-Policy" in page


def test_a_viewer_link_is_a_url_whatever_the_page_is_called(logged: Path) -> None:
    """The link to a match's viewer is the page's folder as a URL: a '#' in its name started a fragment."""
    proc = mjref("report", "t.sqlite", "-o", "r#1.html", "--with-matches", cwd=logged)
    assert proc.returncode == 0, proc.stderr
    assert 'href="r%231_matches/' in (logged / "r#1.html").read_text(encoding="utf-8")
