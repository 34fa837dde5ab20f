"""Real mj-server traffic, captured: a whole mj-server game in which one ``mj-player`` talks to the server through a
relay (a unix socket in the middle) that keeps every byte each way.

``relayed_game`` starts ``mj-server`` as ``mjserver.corpus`` does, then the relay, then the four players one at a
time (the relayed one at the seat ``relayed`` names), and returns the bytes the server sent that player and the bytes
the player sent the server, with the game's hand histories.  The relay copies bytes as they come and never parses
them: what it keeps is exactly what went over the wire.
"""

from __future__ import annotations

import socket
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

import mjserver


@dataclass
class Capture:
    to_client: bytes  # what mj-server sent the relayed player
    to_server: bytes  # what the relayed player sent mj-server
    histories: list[Path]


def _pump(src: socket.socket, dst: socket.socket, kept: bytearray) -> None:
    while True:
        try:
            data = src.recv(65536)
        except OSError:
            data = b""
        if not data:
            try:
                dst.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            return
        kept += data
        try:
            dst.sendall(data)
        except OSError:
            return


class Relay:
    """Listens on ``path``; the first client is joined to ``upstream`` and everything both ways is kept."""

    def __init__(self, path: Path, upstream: Path) -> None:
        self.path, self.upstream = path, upstream
        self.to_client, self.to_server = bytearray(), bytearray()
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(path))
        self.listener.listen(1)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        client, _ = self.listener.accept()
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.connect(str(self.upstream))
        up = threading.Thread(target=_pump, args=(client, server, self.to_server), daemon=True)
        up.start()
        _pump(server, client, self.to_client)
        up.join(mjserver.GAME_TIMEOUT)
        client.close()
        server.close()
        self.listener.close()


def relayed_game(folder: Path, seed: int, *, relayed: int = 1, options: str | None = None,
                 personality: str = "default") -> Capture:
    """Play one whole mj-server game in ``folder`` with player ``relayed`` (1-4, in connection order) behind a relay."""
    folder.mkdir(parents=True, exist_ok=True)
    sock = folder / "mj.sock"
    cmd = [mjserver.SERVER, "--server", str(sock), "--seed", str(seed), "--hand-history"]
    if options is not None:
        opt = folder / "options.txt"
        opt.write_text(mjserver.option_file(options))
        cmd += ["--option-file", str(opt)]
    procs: list[subprocess.Popen[bytes]] = []
    server = subprocess.Popen(cmd, cwd=folder, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT)
    procs.append(server)
    relay = Relay(folder / "relay.sock", sock)
    try:
        assert server.stdout is not None
        first = server.stdout.readline().decode(errors="replace")
        assert first.startswith("OK:"), f"mj-server did not start: {first!r}"
        for i, extra in enumerate(mjserver.PERSONALITIES[personality], start=1):
            target = relay.path if i == relayed else sock
            procs.append(subprocess.Popen([mjserver.PLAYER, "--id", str(i), "--server", str(target), *extra],
                                          cwd=folder, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL))
            mjserver._wait_connected(sock, i)
        server.communicate(timeout=mjserver.GAME_TIMEOUT)
        for p in procs[1:]:
            p.wait(timeout=mjserver.GAME_TIMEOUT)
        relay.thread.join(mjserver.GAME_TIMEOUT)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return Capture(bytes(relay.to_client), bytes(relay.to_server), sorted(folder.glob("hand-*.mjs")))
