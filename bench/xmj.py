"""Issue 33: four Debian mj-players at an mjref table (xmj seats) against the same four at mj-server, in hands per
second, on the same games; target mjref >= 1.0x mj-server.  Prints one JSON object.

    python bench/xmj.py [--seeds 3] [--rounds 3] [--timeout 300]

For each seed: one whole mj-server game (``mj-server --server SOCKET --seed N --hand-history``, then four
``mj-player``s one at a time after its ``OK:`` line, as tests/mjserver.py does), which writes a history
(``hand-NN.mjs``) of each won hand; then, interleaved, mjref plays **that game's walls**: ``mjref match mj-player
x4 --wallfile FOLDER`` (every hand of the game, its seats, winds, dealer and options) in the default sandbox, and
the same with ``--sandbox none``.  mj-player is deterministic, so mjref's match is mj-server's game move for move:
each run's log is compared with the histories (``referee.against.compare``, what ``mjref replay --against`` does),
and ``same_game`` says for how many runs every hand and move was equal.  (Until session 22 each side dealt its own
walls from the seed, and the figures compared rates over different hands.)

What is counted.  mj-server writes a history only for a won hand, and its game also plays any washouts (rare with
mj-player), which mjref, dealt the histories, does not: mj-server's hands per second are its won hands over the
whole game, washouts' time included, which can only make mj-server look slower.  Wall time is the whole command's,
its start included.  CPU: mj-server's side is ``RUSAGE_CHILDREN`` of the bench (server and players are its own
children, all waited for); mjref's is a CPU accounting cgroup per run (bench/box.py's, as root where cgroup v1's
cpuacct is its own hierarchy; else null), which counts the boxed players too.  A run of mjref with a fault, or one
that outlives ``--timeout``, gives no figure: the JSON says so (``errors``) and the exit status is 1.

Two ratios.  ``ratio_won_hands_per_s``: whole commands, each program's start included (mjref's is a Python
program's: its imports, four boxes, four logins, about half a second; mj-server's, a C program's, well under a
tenth).  ``ratio_in_play_won_hands_per_s``: the hands once the game runs, without either start: mj-server's game
from its four players' logins to its end, mjref's as the difference between the whole game's match and a match of
its first hand alone, dealt the same walls (every history is read before the first hand: until session 24 the
one-hand match read one, and the other histories' reading, about 2.5 ms each, counted as play).  A tournament of
xmj seats starts mjref once and pays the rest per match.

Rounds, and the paired ratios.  The machine's speed moves by a third from one minute to the next (a shared virtual
machine): one mj-server game and one mjref match of it, a minute apart, gave ratios from 0.67 to 1.25 for the same
code.  So each seed's game is played ``--rounds`` times at each side, the sides interleaved (the first round starts
with mj-server, whose histories the matches are dealt; each later round starts with the next side), and
``paired_in_play_ratio`` gives, per side, the median, the lowest and the highest of the ratios of each round to
mj-server's in the same round of the same seed: each ratio compares two runs made seconds apart, and each
later mj-server game is checked to be the first one (``game_moves``; an error if not).  The sums over
all runs (``ratio_in_play_won_hands_per_s``, ``ratio_won_hands_per_s``) are kept as before.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.box import _CHILD, _close_group, child_env  # noqa: E402
from bench.machine import machine  # noqa: E402
from referee.against import compare  # noqa: E402

SERVER = "/usr/games/mj-server"
PLAYER = "/usr/games/mj-player"


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _kill(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()


def mjserver_game(seed: int, timeout: float, tmp: str, server_env: dict[str, str] | None = None
                  ) -> dict[str, float]:
    """One whole mj-server game, played in the folder ``tmp`` (its histories stay there): wall seconds, CPU seconds
    of the server and its four players, won hands.  ``server_env``: the server's environment (default: this one's)."""
    sock = Path(tmp, "mj.sock")
    cpu0, started = _children_cpu(), time.perf_counter()
    procs = [subprocess.Popen([SERVER, "--server", str(sock), "--seed", str(seed), "--hand-history"], cwd=tmp,
                              env=server_env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, start_new_session=True)]
    try:
        assert procs[0].stdout is not None
        first = procs[0].stdout.readline().decode(errors="replace")
        if not first.startswith("OK:"):
            raise RuntimeError(f"mj-server did not start: {first!r}")
        from tests.mjserver import _wait_connected
        for i in range(1, 5):
            procs.append(subprocess.Popen([PLAYER, "--id", str(i), "--server", str(sock)], cwd=tmp,
                                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL, start_new_session=True))
            _wait_connected(sock, i)
        playing = time.perf_counter()
        procs[0].communicate(timeout=timeout)
        for p in procs[1:]:
            p.wait(timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise RuntimeError(f"the mj-server game of seed {seed} outlived {timeout:g} s") from e
    finally:
        _kill(procs)
    ended = time.perf_counter()
    won = len(list(Path(tmp).glob("hand-*.mjs")))
    return {"wall_s": ended - started, "play_s": ended - playing, "cpu_s": _children_cpu() - cpu0,
            "won_hands": won, "hands": won}


def game_moves(folder: str) -> list[list[str]]:
    """Each history of an mj-server game in ``folder``, as its sorted lines less the players' names (``Robot(PID)``):
    two runs of a seed are the same game when these are equal, whatever order the players' concurrent claims and
    declarations reached the server in."""
    return [sorted(line for line in h.read_text(encoding="utf-8").splitlines() if not line.startswith("Player "))
            for h in sorted(Path(folder).glob("hand-*.mjs"))]


def log_faults(log: Path) -> list[dict[str, Any]]:
    """The fault records of an mjref match log."""
    records = (json.loads(line) for line in log.read_text(encoding="utf-8").splitlines())
    return [r for r in records if r.get("type") == "fault"]


def describe_fault(f: dict[str, Any]) -> str:
    """A fault record in a few words: where, what, why."""
    return f"in hand {f.get('hand')} seat {f.get('seat')}: {f.get('kind')} ({f.get('detail')})"


def not_the_game(histories: list[Path], log: Path) -> str | None:
    """Why the mjref match ``log`` is not mj-server's game of ``histories`` move for move (its first difference, or
    the hands it has too few of), or None when it is (``referee.against.compare``, what ``mjref replay --against``
    does)."""
    report = compare(histories, log)
    if report.difference is not None:
        return str(report.difference)
    if report.hands != len(histories):
        return f"{report.hands} of {len(histories)} hands compared"
    return None


def mjref_match(histories: list[Path], extra: list[str], timeout: float,
                hands: int | None = None) -> dict[str, float | bool | None]:
    """One ``mjref match`` of four mj-player seats dealt ``histories`` (an mj-server game's, in order), of their
    first ``hands`` (default: all): wall, CPU of the whole tree (or None), hands, won hands, and whether it is that
    game move for move."""
    with tempfile.TemporaryDirectory(prefix="mjref-xmjbench-") as tmp:
        env, group = child_env(REPO)
        walls = [arg for h in histories for arg in ("--wallfile", str(h))]
        started = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", _CHILD, "match", *["mj-player"] * 4, *walls,
                                 "--hands", str(hands or len(histories)), "--log", "m.jsonl", *extra],
                                cwd=tmp, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        what = f"mjref match {extra} of {histories[0].parent.name}"
        try:
            _, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired as e:
            _kill([proc])
            raise RuntimeError(f"{what} outlived {timeout:g} s") from e
        finally:
            wall = time.perf_counter() - started
            total = None if group is None else _close_group(group)
        if proc.returncode != 0:
            raise RuntimeError(f"{what} failed: {err[-500:]}")
        log = Path(tmp, "m.jsonl")
        faults = log_faults(log)
        if faults:
            raise RuntimeError(f"{what}: {len(faults)} faults, the first {describe_fault(faults[0])}")
        records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
        results = [r for r in records if r.get("type") == "result"]
        return {"wall_s": wall, "cpu_s": total, "hands": len(results),
                "won_hands": sum(1 for r in results if r.get("outcome") == "win"),
                "same_game": not_the_game(histories, log) is None}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3,
                    help="seeds, each one mj-server game and mjref's matches of its walls")
    ap.add_argument("--rounds", type=int, default=3,
                    help="times each seed's game is played at each side, the sides interleaved")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds one run may take")
    args = ap.parse_args()
    if args.seeds < 1 or args.rounds < 1 or args.timeout <= 0:
        print("bench/xmj.py: --seeds and --rounds must be at least 1, --timeout positive", file=sys.stderr)
        return 2
    for program in (SERVER, PLAYER):
        if not os.access(program, os.X_OK):
            print(f"bench/xmj.py: {program} is missing (Debian's mah-jong package)", file=sys.stderr)
            return 2
    sides = {"mjserver": None, "mjref_boxed": [], "mjref_none": ["--sandbox", "none"]}
    runs: dict[str, list[dict[str, float | bool | None]]] = {k: [] for k in sides}
    errors: list[str] = []
    out: dict[str, object] = {"machine": machine(), "seeds": args.seeds, "rounds": args.rounds,
                              "root": os.geteuid() == 0, "load_before": os.getloadavg()[0],
                              "note": "mjref plays each mj-server game's own walls (its won hands' histories)"}
    one_hand: dict[str, list[dict[str, float | bool | None]]] = {k: [] for k in sides if sides[k] is not None}
    paired: dict[str, list[float]] = {k: [] for k in sides if sides[k] is not None}  # in-play ratio per round
    for seed in range(1, args.seeds + 1):
        with tempfile.TemporaryDirectory(prefix=f"mjref-xmjbench-game{seed}-") as game:
            try:
                dealt = mjserver_game(seed, args.timeout, game)
            except RuntimeError as e:
                errors.append(str(e))
                continue
            histories = sorted(Path(game).glob("hand-*.mjs"))
            if not histories:
                errors.append(f"the mj-server game of seed {seed} has no won hand")
                continue
            moves = game_moves(game)
            order = list(sides)
            for r in range(args.rounds):
                rate: dict[str, float] = {}  # this round's in-play won hands a second, by side
                for side in order[r % len(order):] + order[:r % len(order)]:
                    extra = sides[side]
                    try:
                        if extra is None:
                            if r == 0:
                                server = dealt
                            else:
                                with tempfile.TemporaryDirectory(prefix=f"mjref-xmjbench-again{seed}-") as again:
                                    server = mjserver_game(seed, args.timeout, again)
                                    if game_moves(again) != moves:
                                        raise RuntimeError(f"the mj-server game of seed {seed} in round {r + 1} "
                                                           "is not the game of round 1")
                            runs[side].append(server)
                            if float(server["play_s"]) > 0:
                                rate[side] = float(server["won_hands"]) / float(server["play_s"])
                            continue
                        whole = mjref_match(histories, extra, args.timeout)
                        first = mjref_match(histories, extra, args.timeout, hands=1)
                        runs[side].append(whole)
                        one_hand[side].append(first)
                        play = float(whole["wall_s"] or 0) - float(first["wall_s"] or 0)
                        if play > 0:
                            rate[side] = (int(whole["won_hands"] or 0) - int(first["won_hands"] or 0)) / play
                    except RuntimeError as e:
                        errors.append(str(e))
                if rate.get("mjserver"):
                    for side in paired:
                        if side in rate:
                            paired[side].append(rate[side] / rate["mjserver"])
    figures: dict[str, dict[str, object]] = {}
    for side, rs in runs.items():
        if not rs:
            continue
        wall = sum(float(r["wall_s"] or 0) for r in rs)
        cpus = [r["cpu_s"] for r in rs]
        cpu = None if None in cpus else sum(float(c or 0) for c in cpus)
        hands, won = sum(int(r["hands"] or 0) for r in rs), sum(int(r["won_hands"] or 0) for r in rs)
        figures[side] = {"runs": len(rs), "hands": hands, "won_hands": won, "wall_s": round(wall, 3),
                         "cpu_s": None if cpu is None else round(cpu, 3),
                         "hands_per_s": round(hands / wall, 3), "won_hands_per_s": round(won / wall, 3),
                         "won_hands_per_cpu_s": None if not cpu else round(won / cpu, 3),
                         "wall_s_per_run": [round(float(r["wall_s"] or 0), 3) for r in rs],
                         "median_wall_s_per_won_hand": round(statistics.median(
                             float(r["wall_s"] or 0) / max(1, int(r["won_hands"] or 0)) for r in rs), 4)}
        if side != "mjserver":
            figures[side]["same_game"] = f"{sum(1 for r in rs if r['same_game'])} of {len(rs)}"
    # In play: the hands of a game once it runs, without the start of the programs (mj-server's from its four
    # players' logins to its end; mjref's from the whole game's match less one of its first hand).
    for side, rs in runs.items():
        if side not in figures:
            continue
        if side == "mjserver":
            play = sum(float(r["play_s"] or 0) for r in rs)
            won = sum(int(r["won_hands"] or 0) for r in rs)
        else:
            pairs = list(zip(rs, one_hand[side]))
            play = sum(float(a["wall_s"] or 0) - float(b["wall_s"] or 0) for a, b in pairs)
            won = sum(int(a["won_hands"] or 0) - int(b["won_hands"] or 0) for a, b in pairs)
            figures[side]["start_s_median"] = round(statistics.median(
                float(b["wall_s"] or 0) for b in one_hand[side]), 3) if one_hand[side] else None
        figures[side]["in_play_won_hands_per_s"] = round(won / play, 3) if play > 0 else None
    out["sides"] = figures
    base = figures.get("mjserver")
    out["ratio_in_play_won_hands_per_s"] = {
        side: round(float(f["in_play_won_hands_per_s"] or 0) / float(base["in_play_won_hands_per_s"]), 3)
        for side, f in figures.items() if base and side != "mjserver" and base["in_play_won_hands_per_s"]}
    out["ratio_won_hands_per_s"] = {side: round(float(f["won_hands_per_s"]) / float(base["won_hands_per_s"]), 3)
                                    for side, f in figures.items() if base and side != "mjserver"
                                    and float(base["won_hands_per_s"])}
    out["paired_in_play_ratio"] = {
        side: {"median": round(statistics.median(rs), 3), "lowest": round(min(rs), 3), "highest": round(max(rs), 3),
               "ratios": [round(x, 3) for x in rs]}
        for side, rs in paired.items() if rs}
    out["errors"] = errors
    out["load_after"] = os.getloadavg()[0]
    print(json.dumps(out, indent=2))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
