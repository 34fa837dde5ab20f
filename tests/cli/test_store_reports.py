"""``mjref report`` and ``mjref standings`` over stores and logs that are damaged or edited by hand: one bad match
log costs only its own viewer; an error is one correct line, with advice that fits; a recount that fails leaves
the store as it was (the helpers are ``test_fuzz_inputs``')."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_fuzz_inputs import mjref

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
