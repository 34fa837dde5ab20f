"""Corpora of hand histories generated on the fly by the real Unix Mah-Jong programs (Debian's ``mah-jong``).

``corpus()`` runs one whole game: ``mj-server --server SOCKET --seed N --hand-history [--option-file F]`` in a
fresh folder, waits for its ``OK:`` line, then starts four ``mj-player``s one at a time (seats follow connection
order; a player started before ``OK:`` is refused and the server waits for ever) and waits for the game to end.
The server writes one ``hand-NN.mjs`` per won hand into its folder.  Where the programs are missing the test is
skipped; under ``MJREF_REQUIRE_MAHJONG=1`` (``.ci/run`` installs the package and sets it) it fails instead.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

REQUIRE_ENV = "MJREF_REQUIRE_MAHJONG"
SERVER = "/usr/games/mj-server"
PLAYER = "/usr/games/mj-player"
GAME_TIMEOUT = 300.0  # seconds for one whole game: a game takes about one second on an idle machine

# Option files in mj-server's own format: one variation each, the rest at the server's defaults.
OPTIONS: dict[str, str] = {
    "losers-settle-0": "GameOption 0 LosersSettle bool 0 1 0 losers pay each other\n",
    "disc-doubles-1": "GameOption 0 DiscDoubles bool 0 1 1 the discarder pays double\n",
    "seven-pairs-1": "GameOption 0 SevenPairs bool 1020 1 1 seven pairs hand allowed\n",
    "flowers-0": "GameOption 0 Flowers bool 1020 1 0 play using flowers and seasons\n",
    "no-limit-1": "GameOption 0 NoLimit bool 0 1 1 no-limit game\n",
    "east-doubles-0": "GameOption 0 EastDoubles bool 0 1 0 east pays and receives double\n",
    "losers-purity-1": "GameOption 0 LosersPurity bool 0 1 1 losing hands score doubles for pure, concealed etc.\n",
    "kong-has-3-types-1": "GameOption 0 KongHas3Types bool 1034 1 1 claimed kongs count as concealed\n",
    "dead-wall-16": "GameOption 0 DeadWall16 bool 1020 1 1 dead wall is 16 tiles, unreplenished\n",
    "flowers-loose-1": "GameOption 0 FlowersLoose bool 0 1 1 flowers replaced by loose tiles\n",
    "mixed": ("GameOption 0 ScoreLimit nat 0 1 500 limit on hand score\n"
              "GameOption 0 MahJongScore score 0 1 10 base score for going out\n"
              "GameOption 0 ConcealedAlmost score 0 1 10000 score for almost concealed hand\n"
              "GameOption 0 FlowersOwnEach score 0 1 4 score for each own flower or season\n"
              "GameOption 0 SevenPairs bool 1020 1 1 seven pairs hand allowed\n"
              "GameOption 0 SevenPairsVal score 1020 1 10010 score for a seven pair hand\n"
              "GameOption 0 NumRounds nat 0 1 2 number of rounds to play\n"),
}


# More variations, for single games of the tests (the corpus-wide tests run one game per key of ``OPTIONS``).
MORE_OPTIONS: dict[str, str] = {
    "dead-wall-0": "GameOption 0 DeadWall bool 1020 1 0 there is a dead wall\n",
    "concealed-fully-20": "GameOption 0 ConcealedFully score 0 1 20 score for fully concealed hand\n",
}


def option_file(options: str) -> str:
    """The option file of ``options``: a key of ``OPTIONS`` or ``MORE_OPTIONS``, or several joined by ``+`` (their
    lines together)."""
    known = {**OPTIONS, **MORE_OPTIONS}
    return "".join(known[key] for key in options.split("+"))


# mj-player personalities (its strategy options), one list per seat.
PERSONALITIES: dict[str, list[list[str]]] = {
    "default": [[], [], [], []],
    "mixed": [["--chowness", "-0.9"], ["--hiddenness", "0.8"], ["--majorness", "0.7"], ["--suitness", "0.6"]],
    "pungs": [["--chowness", "-1.0"], ["--chowness", "-1.0", "--majorness", "0.5"],
              ["--suitness", "0.8"], ["--hiddenness", "0.5"]],
}


def seat_specs(personality: str, first: Path) -> list[str]:
    """mjref's seats for mj-server's players of ``personality`` (``--chowness -0.9`` → ``mj-player:chowness=-0.9``),
    in the game's table order from its first East, as the first history ``first`` tells it: mj-server seats players
    in the order their ``Connect`` messages come, which under load need not be the order they were started in
    (a game of seed 9019 sat players 1, 2, 4, 3)."""
    by_id = {}
    for player, flags in enumerate(PERSONALITIES[personality], start=1):
        knobs = ",".join(f"{flag.lstrip('-')}={value}" for flag, value in zip(flags[::2], flags[1::2]))
        by_id[player] = f"mj-player:{knobs}" if knobs else "mj-player"
    game = next(line.split() for line in first.read_text(encoding="utf-8").splitlines() if line.startswith("Game "))
    winds, first_east = [int(x) for x in game[1:5]], int(game[7])  # Game E S W N round hands_as_east firsteast ...
    start = winds.index(first_east)
    return [by_id[player] for player in winds[start:] + winds[:start]]


def programs() -> bool:
    """Whether mj-server and mj-player are here; a failed test when they are required and missing."""
    if Path(SERVER).exists() and Path(PLAYER).exists():
        return True
    if os.environ.get(REQUIRE_ENV, "") not in ("", "0"):
        pytest.fail(f"the mj-server tests are required here ({REQUIRE_ENV}) but {SERVER} or {PLAYER} is missing")
    return False


def require() -> None:
    if not programs():
        pytest.skip("Debian's mah-jong (mj-server, mj-player) is not installed")


def corpus(folder: Path, seed: int, *, options: str | None = None, personality: str = "default",
           server_args: tuple[str, ...] = ()) -> list[Path]:
    """Play one whole mj-server game in ``folder`` and return its hand histories (one per won hand)."""
    folder.mkdir(parents=True, exist_ok=True)
    sock = folder / "mj.sock"
    cmd = [SERVER, "--server", str(sock), "--seed", str(seed), "--hand-history", *server_args]
    if options is not None:
        opt = folder / "options.txt"
        opt.write_text(option_file(options))
        cmd += ["--option-file", str(opt)]
    procs: list[subprocess.Popen[bytes]] = []
    server = subprocess.Popen(cmd, cwd=folder, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT)
    procs.append(server)
    try:
        assert server.stdout is not None
        first = server.stdout.readline().decode(errors="replace")
        assert first.startswith("OK:"), f"mj-server did not start: {first!r}"
        for i, extra in enumerate(PERSONALITIES[personality], start=1):
            procs.append(subprocess.Popen([PLAYER, "--id", str(i), "--server", str(sock), *extra], cwd=folder,
                                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL))
            _wait_connected(sock, i)
        server.communicate(timeout=GAME_TIMEOUT)
        for p in procs[1:]:
            p.wait(timeout=GAME_TIMEOUT)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return sorted(folder.glob("hand-*.mjs"))


def _wait_connected(sock: Path, n: int) -> None:
    """Wait until ``n`` clients hold connections to the server's socket, so that seats follow the ids."""
    deadline = time.monotonic() + 30.0
    while time.monotonic() < deadline:
        if _connections(sock) >= n:
            return
        time.sleep(0.01)


def _connections(sock: Path) -> int:
    """The connected streams on ``sock`` (from /proc/net/unix: listening socket excluded)."""
    try:
        lines = Path("/proc/net/unix").read_text().splitlines()[1:]
    except OSError:
        return 10**6  # cannot tell: do not wait
    path = str(sock)
    return sum(1 for line in lines if line.endswith(" " + path) and line.split()[5] == "03")
