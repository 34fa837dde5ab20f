"""``mjref submit`` talks to a league on another machine: every reply is hostile input.  A reply of another shape,
too large or not JSON is one line naming what was wrong (exit 2), never a traceback; the text of a reply (an
entrant's name, a scenario's note, the bot's stderr) is printed with its terminal escapes neutralised; an address
urllib cannot split is one line too."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_fuzz_inputs import mjref, one_line

ESC = "\x1b]0;pwned\x07\x1b[2J"
GOOD_REPORT = {"ok": False, "scenarios": [{"name": f"n{ESC}", "status": "fail", "note": f"note{ESC}"}],
               "stderr_tail": [f"\x1b[31mred{ESC}"], "error": f"why{ESC}"}
# (what POST /api/submit replies, what GET /api/entries/NAME replies): a status and a body (bytes: as they are)
REPLIES: dict[str, tuple[tuple[int, Any], tuple[int, Any]]] = {
    "submit_list": ((202, [1, 2]), (200, {})),
    "no_entrant": ((202, {"x": 1}), (200, {})),
    "entrant_int": ((202, {"entrant": 5}), (200, {})),
    "error_list": ((400, ["x"]), (200, {})),
    "not_json": ((202, b"<html>"), (200, {})),
    "deep_json": ((202, b"[" * 100_000), (200, {})),
    "huge_number": ((202, b'{"entrant": ' + b"9" * 5000 + b"}"), (200, {})),
    "status_list": ((202, {"entrant": "e"}), (200, {"status": ["x"]})),
    "no_status": ((202, {"entrant": "e"}), (200, {"report": 1})),
    "entry_list": ((202, {"entrant": "e"}), (200, [1])),
    "report_int": ((202, {"entrant": "e"}), (200, {"status": "active", "report": 5})),
    "scenario_no_status": ((202, {"entrant": "e"}),
                           (200, {"status": "active", "report": {"scenarios": [{"name": "s"}]}})),
    "scenarios_str": ((202, {"entrant": "e"}), (200, {"status": "active", "report": {"scenarios": "abc"}})),
    "tail_ints": ((202, {"entrant": "e"}), (200, {"status": "refused", "report": {"stderr_tail": [1]}})),
    "escapes": ((202, {"entrant": f"\x1b[31mevil/../x?y{ESC}"}), (200, {"status": "refused", "report": GOOD_REPORT})),
    "escaped_refusal": ((400, {"error": f"bad{ESC}"}), (200, {})),
}
WORDS = {"submit_list": "not a JSON object", "no_entrant": "entrant", "entrant_int": "entrant",
         "error_list": "HTTP 400", "not_json": "not JSON", "deep_json": "not JSON", "huge_number": "not JSON",
         "status_list": "status", "no_status": "status", "entry_list": "not a JSON object", "report_int": "report",
         "scenario_no_status": "report.scenarios[0].status", "scenarios_str": "report.scenarios",
         "tail_ints": "report.stderr_tail[0]", "escaped_refusal": "refused: bad"}


@pytest.fixture(scope="module")
def league() -> Iterator[tuple[str, list[str]]]:
    """A fake league: the path's first segment picks the replies (``/submit_list/api/submit``); the paths asked
    are kept."""
    asked: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def _send(self, reply: tuple[int, Any]) -> None:
            code, body = reply
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            asked.append(self.path)
            self._send(REPLIES[self.path.split("/")[1]][0])

        def do_GET(self) -> None:  # noqa: N802
            asked.append(self.path)
            self._send(REPLIES[self.path.split("/")[1]][1])

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", asked
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("submit") / "bot"
    d.mkdir()
    (d / "bot.toml").write_text('name = "b"\ncmd = ["python3", "bot.py"]\n')
    (d / "bot.py").write_text("pass\n")
    return d


@pytest.mark.parametrize("case", list(WORDS))
def test_a_reply_of_another_shape_is_one_line(case: str, league: tuple[str, list[str]], bot: Path) -> None:
    url, _ = league
    proc = mjref("submit", f"{url}/{case}/", str(bot), "--token", "abcdefghijklmnop", cwd=bot.parent)
    lines = proc.stderr.strip("\n").split("\n")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert lines[-1].startswith("mjref submit: ") and WORDS[case] in lines[-1], proc.stderr
    assert len(lines) == 1 or (len(lines) == 2 and lines[0].startswith("submitted as ")), proc.stderr
    assert "\x1b" not in proc.stderr and "\x07" not in proc.stderr


def test_the_text_of_a_reply_is_printed_with_its_escapes_neutralised(league: tuple[str, list[str]],
                                                                     bot: Path) -> None:
    url, asked = league
    proc = mjref("submit", f"{url}/escapes/", str(bot), "--token", "abcdefghijklmnop", cwd=bot.parent)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    for out in (proc.stdout, proc.stderr):
        assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b]0;pwned\\x07" in proc.stdout and "note\\x1b" in proc.stdout and "stderr: \\x1b[31mred" in proc.stdout
    assert "why\\x1b" in proc.stdout and "evil/../x?y\\x1b" in proc.stdout
    # the entrant's name is one segment of the entry's path: no "/../" nor "?" the server chose
    assert any(p.startswith("/escapes/api/entries/%1B%5B31mevil%2F..%2Fx%3Fy") for p in asked), asked


@pytest.mark.parametrize(("url", "word"), [("http://[::1", "URL"), ("http://127.0.0.1:99999/", "URL"),
                                           ("http://:80", "URL"), ("ftp://x/", "URL")])
def test_an_address_urllib_cannot_use_is_one_line(url: str, word: str, bot: Path) -> None:
    one_line(mjref("submit", url, str(bot), "--token", "abcdefghijklmnop", cwd=bot.parent), word)


def test_a_token_that_cannot_be_a_header_is_one_line(bot: Path) -> None:
    one_line(mjref("submit", "http://127.0.0.1:1/", str(bot), "--token", "abc\ndef", cwd=bot.parent), "--token")
