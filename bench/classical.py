"""Benchmark of the Chinese Classical verification: mj-server hand histories verified per second (reading,
replaying every move, scoring every player and the settlement), printed as ONE JSON line.

The histories are generated first, in a temporary directory, by the real programs (Debian's ``mah-jong``:
``mj-server --seed N --hand-history`` and four ``mj-player``s, as ``tests/mjserver.py`` plays them, seeds from
``--seed`` on, cycling through its option files and, independently, its personalities: each option file is played by
each personality in turn); only ``referee.mjserver.verify_histories`` is timed, in CPU time, best of ``--repeat``
runs.  Every history must verify (the benchmark fails otherwise): at least 2,000 with the defaults.

``--play``: each game is also played by mjref: four ``mj-player`` seats of the game's personality, dealt its walls
(``mjref match --wallfile``), the log compared with the histories move by move (``referee.against.compare``, what
``mjref replay --against`` does).  The JSON's ``played`` counts the games that are mj-server's move for move, their
hands, the faults, and names the first game that is not; the benchmark fails unless every game is.  This is the
check of mjref against games it has not seen: ``--seed`` far from the seeds the tests use.

Run from the repository root: ``python bench/classical.py [--games 110] [--repeat 3] [--seed 1000] [--play]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from bench.machine import machine  # noqa: E402
from bench.xmj import describe_fault, log_faults, not_the_game  # noqa: E402
from referee.mjserver import verify_histories  # noqa: E402

MATCH_TIMEOUT = 600.0  # seconds one mjref match of a game may take (a game takes a few)
Game = tuple[int, str | None, str, list[Path]]  # seed, option file (None: the defaults), personality, histories


def play(games: list[Game], seats: Callable[[str, Path], list[str]]) -> dict[str, object]:
    """Each game played by mjref with four mj-player seats of its personality (``seats``), dealt its walls and compared
    with its histories: how many are mj-server's game move for move, their hands, the faults, the first that is not."""
    same = hands = faults = 0
    first: dict[str, object] | None = None
    for seed, option, personality, files in games:
        if not files:
            continue
        problem, found = _play_one(files, seats(personality, files[0]))
        faults += found
        if problem is None:
            same += 1
            hands += len(files)
        elif first is None:
            first = {"seed": seed, "options": option, "personality": personality, "why": problem}
    return {"games": sum(1 for *_, files in games if files), "same": same, "hands": hands, "faults": faults,
            "first_difference": first}


def _play_one(files: list[Path], seats: list[str]) -> tuple[str | None, int]:
    """One game's match in mjref, beside its histories: why it is not mj-server's game (None if it is), and its
    faults."""
    folder = files[0].parent
    log = folder / "mjref.jsonl"
    try:
        done = subprocess.run([sys.executable, "-m", "referee.cli", "match", *seats, "--wallfile", str(folder),
                               "--hands", str(len(files)), "--log", str(log), "--quiet"], cwd=REPO,
                              capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=MATCH_TIMEOUT,
                              check=False)
    except subprocess.TimeoutExpired:
        return f"mjref match outlived {MATCH_TIMEOUT:g} s", 0
    if done.returncode != 0:
        return f"mjref match exited {done.returncode}: {(done.stdout + done.stderr).strip()[-300:]}", 0
    faults = log_faults(log)
    differs = not_the_game(files, log)
    if differs is not None:
        return differs, len(faults)
    return (f"{len(faults)} faults, the first {describe_fault(faults[0])}" if faults else None), len(faults)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=110, help="mj-server games to generate (about 20 hands each)")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs; the best is reported")
    ap.add_argument("--seed", type=int, default=1000, help="the first game's seed (the next games' follow)")
    ap.add_argument("--play", action="store_true", help="also play each game in mjref and compare it move by move")
    args = ap.parse_args()
    if args.games < 1 or args.repeat < 1 or args.seed < 0:
        print("bench/classical.py: --games and --repeat must be at least 1, --seed not negative", file=sys.stderr)
        sys.exit(2)
    import mjserver  # tests/mjserver.py: the one way the programs are run

    if not mjserver.programs():
        sys.exit("bench/classical.py: Debian's mah-jong (mj-server, mj-player) is not installed")
    options = [None, *mjserver.OPTIONS]
    personalities = list(mjserver.PERSONALITIES)
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        files: list[Path] = []
        games: list[Game] = []
        for i in range(args.games):
            seed, option = args.seed + i, options[i % len(options)]
            personality = personalities[(i + i // len(options)) % len(personalities)]
            made = mjserver.corpus(Path(tmp) / f"{seed}-{option or 'defaults'}", seed, options=option,
                                   personality=personality)
            games.append((seed, option, personality, made))
            files += made
        generated = time.perf_counter() - started
        best = float("inf")
        for _ in range(args.repeat):
            cpu = time.process_time()
            report = verify_histories(files)
            best = min(best, time.process_time() - cpu)
            if not report.ok:
                sys.exit(f"bench/classical.py: a history differs: {report.first}")
        played = play(games, mjserver.seat_specs) if args.play else None
    print(json.dumps({
        "bench": "classical-verify", "games": args.games, "histories": len(files), "items": report.items,
        "cpu_seconds": round(best, 3), "histories_per_cpu_second": round(len(files) / best, 1),
        "generation_wall_seconds": round(generated, 1), "first_seed": args.seed, "played": played,
        "machine": machine(),
    }))
    if played is not None and played["same"] != played["games"]:
        sys.exit(f"bench/classical.py: a game is not mj-server's in mjref: {played['first_difference']}")


if __name__ == "__main__":
    main()
