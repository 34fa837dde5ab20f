"""The address a command checks is the one it listens on: ``check_listen`` keeps its sockets until the server takes
them, so a program that takes the port between the check and the listening (after the tokens were printed) cannot;
and a command that ends without listening frees the port again."""

from __future__ import annotations

import errno
import socket
from pathlib import Path
from typing import Any

import pytest

from referee.cli import main
from referee.commands import serve
from referee.server import _HELD, check_listen, released_listeners


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def can_take(port: int) -> int:
    """0 if another program could listen on 127.0.0.1:``port`` now (it is let go at once), else the errno."""
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            s.listen()
        except OSError as exc:
            return exc.errno or -1
    return 0


def test_a_port_cannot_be_taken_between_the_check_and_the_listening(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    port = free_port()
    squatter: list[int] = []
    taken: list[socket.socket] = []
    real = serve.generate_tokens

    def tokens_then_squat(names: Any) -> dict[str, str]:  # another program takes the port as the tokens are made
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port))
            s.listen()
        except OSError as exc:
            s.close()
            squatter.append(exc.errno or -1)
        else:
            taken.append(s)  # and keeps it (the server failed to listen, after its tokens were printed)
            squatter.append(0)
        return real(names)

    monkeypatch.setattr(serve, "generate_tokens", tokens_then_squat)
    try:
        status = main(["serve", "remote:alice", "greedy", "greedy", "greedy", "--listen", f"127.0.0.1:{port}",
                       "--wait", "0.5", "--log", "none", "--quiet"])
    finally:
        for s in taken:
            s.close()
    err = capsys.readouterr().err
    assert squatter == [errno.EADDRINUSE], (squatter, err)  # the port was the server's from the check on
    assert status == 2 and f"listening on ws://127.0.0.1:{port}" in err and "Traceback" not in err, err
    assert can_take(port) == 0  # and free again once the command is over


def test_a_command_that_never_listens_frees_what_it_checked(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    port = free_port()
    missing = tmp_path / "no-such-tokens.toml"
    assert main(["serve", "remote:alice", "greedy", "--listen", f"127.0.0.1:{port}", "--tokens", str(missing),
                 "--log", "none"]) == 2
    assert "no-such-tokens.toml" in capsys.readouterr().err
    assert can_take(port) == 0 and not _HELD
    with released_listeners():
        check_listen("127.0.0.1", port)
        assert can_take(port) == errno.EADDRINUSE
    assert can_take(port) == 0 and not _HELD
