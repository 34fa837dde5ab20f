"""What the sandbox costs per bot start: a process started bare, under mode ``none`` (prlimit + setpriv) and
under ``bwrap``, run to its end, interleaved so that the machine's load falls on all alike.  Prints JSON.

    python bench/sandbox.py [--runs 40] [--cmd /bin/true]

The bwrap steps show where its time goes: bwrap alone with the same namespaces and mounts but no network
namespace, then with it, then with the prlimit wrapper, then the whole plan (with the uid switch as root).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from wrappers import sandbox  # noqa: E402
from wrappers.spec import BotSpec  # noqa: E402


def _time(argv: list[str], env: dict[str, str] | None, cwd: str) -> float:
    started = time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   start_new_session=True, check=True)
    return time.perf_counter() - started


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--cmd", default="/bin/true", help="the bot command (default /bin/true: the start alone)")
    args = ap.parse_args()
    cmd = args.cmd.split()
    spec = BotSpec(name="bench", cmd=tuple(cmd))
    # The plans run the interpreter a launcher shim (pyenv, asdf) resolves to; the bare run must run the same one,
    # or the shim's own start (about 100 ms) makes every sandboxed variant look cheaper than no sandbox at all.
    bare = [sandbox.real_interpreter(shutil.which(cmd[0]) or cmd[0]), *cmd[1:]]
    with tempfile.TemporaryDirectory() as scratch:
        none = sandbox.plan(spec, Path(scratch), mode="none")
        variants: dict[str, tuple[list[str], dict[str, str] | None]] = {"bare": (bare, None),
                                                                        "none": (list(none.argv), none.env)}
        problem = sandbox.bwrap_problem()
        if problem is None:
            box = sandbox.plan(spec, Path(scratch), mode="bwrap")
            sandbox.prepare_scratch(Path(scratch), box)
            argv = list(box.argv)
            cut = argv.index("--")
            bwrap_only = [a for a in argv[:cut] if a not in ("--cap-add", "CAP_SETUID", "CAP_SETGID")] + ["--", *bare]
            prl = argv.index("--", cut + 1)
            with_prlimit = argv[: prl + 1] + bare
            variants["bwrap_no_netns"] = ([a for a in bwrap_only if a != "--unshare-net"], box.env)
            variants["bwrap_alone"] = (bwrap_only, box.env)
            variants["bwrap_prlimit"] = (with_prlimit, box.env)
            variants["bwrap"] = (argv, box.env)
        times: dict[str, list[float]] = {k: [] for k in variants}
        for _ in range(args.runs):
            for name, (argv, env) in variants.items():
                times[name].append(_time(argv, env, scratch))
    med = {k: statistics.median(v) * 1000 for k, v in times.items()}
    out = {
        "cmd": args.cmd, "runs": args.runs, "root": os.geteuid() == 0, "bwrap": problem or "works",
        "load_average": os.getloadavg()[0],
        "median_ms": {k: round(v, 2) for k, v in med.items()},
        "range_ms": {k: [round(min(v) * 1000, 2), round(max(v) * 1000, 2)] for k, v in times.items()},
        "added_ms": {k: round(v - med["bare"], 2) for k, v in med.items() if k != "bare"},
    }
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
