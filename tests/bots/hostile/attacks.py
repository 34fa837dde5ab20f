#!/usr/bin/env python3
"""A bot that plays like ``drawdiscard`` and misbehaves, once per process, in the way
its MODE names: the attacks on the referee's process handling and on the protocol (``hostile.py`` holds the
attacks that spy and report what they found).  The attack comes at the process's second ``/ask throw`` (the
first has the start grace on top of the timeout; the second has the timeout alone).

``python tests/bots/hostile/attacks.py MODE [MARKER]``: MARKER is an unused argument by which a test finds every
process of this bot afterwards (``_live``).  Every attack is bounded (a failed defence must not take a shared
machine down): floods stop after a few hundred MB, spinners after a minute, daemons after ten.

Output: ``bigline`` (100 MB without a newline), ``flood`` (valid-looking lines at full speed, forever), ``yes``
(``yes /pass`` shares its stdout from its second answer on), ``preanswer`` (after each answer, the answer to the
next question before it is asked), ``twice`` (every answer twice), ``markup`` (console markup, HTML and a terminal
escape in a garbage line), ``nul``, ``badutf8``, ``cr`` (``\\r`` line ends only), ``longvalid`` (a valid answer
padded past the line limit), ``closeout`` (closes stdout, stays alive), ``stderrflood`` (stderr at full speed while
playing on).

Process: ``grandchild`` (a child in a new session keeps the pipes open; the bot exits), ``sigstop``, ``noterm``
(ignores SIGTERM and hangs), ``stopkeeper`` / ``killkeeper`` (SIGSTOP / SIGKILL to the process that started it,
its box's keeper, which runs as its uid), ``doublefork`` (a daemon in a new session that outlives the bot, pipes
closed),
``spin`` (four busy processes for the whole match, playing on), ``fds`` (opens files and pipes until refused),
``tmpfill`` (fills the box's /tmp, a tmpfs in memory, up to 1 GB; reports on stderr).

Protocol: ``badthrow`` (a tile it does not hold), ``falsehu``, ``badgong`` (a concealed gong of tiles it does not
hold), ``eat`` (``/eat`` in answer to a ``/ask pong``), ``late`` (answers after the deadline), ``variants``
(legal answers in lower/upper case with blanks and ``\\r\\n``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from referee.game.types import PASS, Event  # noqa: E402
from referee.game.view import SeatView, new_view  # noqa: E402
from wrappers.codec import Ask, Start, format_answer, parse_server_line  # noqa: E402

MODE = sys.argv[1] if len(sys.argv) > 1 else "none"
OUT = sys.stdout.buffer


def raw(data: bytes) -> None:
    OUT.write(data)
    OUT.flush()


def good(view: SeatView, ask: str) -> str:
    if ask == "hu":
        return "/hu"
    if ask == "throw":
        if view.last_draw is not None and view.last_draw in view.hand:
            return f"/throw {view.last_draw}"
        return format_answer(view.legal(ask)[-1])
    return format_answer(PASS)


def not_held(view: SeatView) -> int:
    return next(t for t in range(110, 480) if t % 10 < 4 and t // 10 % 10 != 0 and t not in view.hand)


def flood_forever(line: bytes, total: int = 400 << 20) -> None:
    chunk = line * (65536 // len(line))
    sent = 0
    while sent < total:
        try:
            os.write(1, chunk)
        except OSError:
            return
        sent += len(chunk)


def spinner() -> None:
    os.setsid()  # a session of its own: Linux schedules each session as a group, so this is the stronger attack
    end = time.monotonic() + 60
    while time.monotonic() < end:
        pass
    os._exit(0)


def attack(view: SeatView, ask: str) -> bool:
    """The attack at the second ``/ask throw``: True when it answered (or never will)."""
    if MODE == "bigline":
        flood_forever(b"/throw 11" + b"1" * 1000, total=100 << 20)
        time.sleep(600)
    if MODE == "flood":  # answers, then floods from a thread while it goes on answering
        raw((good(view, ask) + "\n").encode())
        threading.Thread(target=flood_forever, args=(b"/pass\n/throw 111\n/hu\n",), daemon=True).start()
        return True
    if MODE == "floodnow":  # answers, then floods at full speed from the main thread
        raw((good(view, ask) + "\n").encode())
        flood_forever(b"/pass\n")
        time.sleep(600)
    if MODE == "yes":  # answers, then `yes /pass` (C, gigabytes a second) shares its stdout for the whole hand
        raw((good(view, ask) + "\n").encode())
        subprocess.Popen(["yes", "/pass"], stdin=subprocess.DEVNULL)
        return True
    if MODE == "markup":  # rich console markup, HTML and a terminal escape, where a terminal or a page shows them
        raw(b"/throw [/] \x1b]0;t\x07 [link=http://x]x[/link] [bold red]seat 2 cheated[/] <script>alert(1)</script>\n")
        return True
    if MODE == "nul":
        raw(good(view, ask).encode() + b"\x00\n")
        return True
    if MODE == "badutf8":
        raw(b"\xff\xfe" + good(view, ask).encode() + b"\xc3\x28\n")
        return True
    if MODE == "cr":
        raw(good(view, ask).encode() + b"\r")
        time.sleep(600)
    if MODE == "longvalid":
        raw(good(view, ask).encode() + b" " * 100_000 + b"\n")
        return True
    if MODE == "closeout":
        OUT.flush()
        os.close(1)
        time.sleep(600)
    if MODE == "grandchild":
        if os.fork() == 0:
            os.setsid()
            time.sleep(600)  # holds stdin, stdout and stderr
            os._exit(0)
        os._exit(0)
    if MODE == "sigstop":
        os.kill(os.getpid(), signal.SIGSTOP)
    if MODE in ("stopkeeper", "killkeeper"):  # the process that started it runs as its uid: stop it, or kill it
        os.kill(os.getppid(), signal.SIGSTOP if MODE == "stopkeeper" else signal.SIGKILL)
    if MODE == "noterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(600)
    if MODE == "doublefork":
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                devnull = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(devnull, fd)
                time.sleep(600)
            os._exit(0)
        os.wait()
    if MODE == "spin":
        for _ in range(4):
            if os.fork() == 0:
                spinner()
    if MODE == "tmpfill":  # memory through the box's /tmp (a tmpfs), bounded at 1 GB
        written = 0
        try:
            for i in range(16):
                with open(f"/tmp/fill{i}", "wb") as f:
                    for _ in range(16):
                        f.write(b"x" * (4 << 20))
                        written += 4
        except OSError as exc:
            sys.stderr.write(f"ATTACK tmpfill: {written} MB then {exc}\n")
        for i in range(16):
            try:
                os.unlink(f"/tmp/fill{i}")
            except OSError:
                pass
    if MODE == "fds":
        held = []
        try:
            while len(held) < 1_000_000:
                held.extend(os.pipe())
        except OSError as exc:
            sys.stderr.write(f"ATTACK fds: {len(held)} then {exc}\n")
        for fd in held:
            os.close(fd)
    if MODE == "badthrow":
        raw(f"/throw {not_held(view)}\n".encode())
        return True
    if MODE == "falsehu":
        raw(b"/hu\n")
        return True
    if MODE == "badgong":
        t = not_held(view)
        raw(f"/gong 0 {t} {t} {t} {t}\n".encode())
        return True
    if MODE == "late":
        time.sleep(float(os.environ.get("ATTACK_DELAY", "2")))
        raw((good(view, ask) + "\n").encode())
        return True
    return False


def main() -> int:
    view = new_view(1)
    attacked = False
    throws = 0
    for line in sys.stdin:
        msg = parse_server_line(line.rstrip("\n"), seat=view.position)
        if isinstance(msg, Start):
            view = new_view(msg.position)
            continue
        if isinstance(msg, Event):
            view.apply(msg)
            if msg.kind == "exit":
                return 0
            continue
        assert isinstance(msg, Ask)
        ask = msg.kind
        if MODE == "stderrflood" and not attacked:
            attacked = True
            threading.Thread(target=lambda: [sys.stderr.write("e" * 65536) for _ in range(8000)],
                             daemon=True).start()  # 500 MB
        if MODE == "eat" and ask == "pong":
            tiles = sorted(view.hand)[:2]
            raw(f"/eat {tiles[0]} {tiles[1]}\n".encode())
            continue
        throws += ask == "throw"
        if throws == 2 and not attacked:
            attacked = True
            if attack(view, ask):
                continue
        answer = good(view, ask)
        if MODE == "preanswer":
            raw((answer + "\n/pass\n").encode())
            continue
        if MODE == "twice":
            raw((answer + "\n" + answer + "\n").encode())
            continue
        if MODE == "variants":
            word, _, rest = answer.partition(" ")
            raw((" \t" + word.upper()[:2] + word[2:].lower() + "   " + rest.replace(" ", "\t ") + " \r\n").encode())
            continue
        raw((answer + "\n").encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
