"""Benchmark of the Chinese Classical verification: mj-server hand histories verified per second (reading,
replaying every move, scoring every player and the settlement), printed as ONE JSON line.

The histories are generated first, in a temporary directory, by the real programs (Debian's ``mah-jong``:
``mj-server --seed N --hand-history`` and four ``mj-player``s, as ``tests/mjserver.py`` plays them, cycling through
its option files and personalities); only ``referee.mjserver.verify_histories`` is timed, in CPU time, best of
``--repeat`` runs.  Every history must verify (the benchmark fails otherwise): at least 2,000 with the defaults.

Run from the repository root: ``python bench/classical.py [--games 110] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from bench.machine import machine  # noqa: E402
from referee.mjserver import verify_histories  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=110, help="mj-server games to generate (about 20 hands each)")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs; the best is reported")
    args = ap.parse_args()
    import mjserver  # tests/mjserver.py: the one way the programs are run

    if not mjserver.programs():
        sys.exit("bench/classical.py: Debian's mah-jong (mj-server, mj-player) is not installed")
    options = [None, *mjserver.OPTIONS]
    personalities = list(mjserver.PERSONALITIES)
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        files: list[Path] = []
        for i in range(args.games):
            files += mjserver.corpus(Path(tmp) / f"g{i}", 1000 + i, options=options[i % len(options)],
                                     personality=personalities[i % len(personalities)])
        generated = time.perf_counter() - started
        best = float("inf")
        for _ in range(args.repeat):
            cpu = time.process_time()
            report = verify_histories(files)
            best = min(best, time.process_time() - cpu)
            if not report.ok:
                sys.exit(f"bench/classical.py: a history differs: {report.first}")
    print(json.dumps({
        "bench": "classical-verify", "games": args.games, "histories": len(files), "items": report.items,
        "cpu_seconds": round(best, 3), "histories_per_cpu_second": round(len(files) / best, 1),
        "generation_wall_seconds": round(generated, 1), "machine": machine(),
    }))


if __name__ == "__main__":
    main()
