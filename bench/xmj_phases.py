"""Issue 33, hand by hand: where a hand's time goes at mj-server and at mjref, four mj-players on the same game,
phase by phase.  Prints one JSON object.

    python bench/xmj_phases.py [--seed 1] [--rounds 6] [--sandbox MODE] [--timeout 120]

``bench/xmj.py`` gives the ratio of hands a second; this says where the difference is.  Each round plays mj-server's
game of ``--seed`` once and mjref's match of that game's walls once (every hand of it, its seats, winds and options:
the same game move for move: each match is compared with the game's histories, and each later mj-server game with
the first), the two interleaved.  Both sides are timed by the referee's own reads and writes, at
full speed:

- mj-server (a C program) through a small ``LD_PRELOAD`` library, compiled here with ``cc``, that stamps each
  ``read`` and ``write`` in memory and writes them out when the server exits (``strace`` made a 1 s game last 20);
- mjref in its own process: ``XmjConnection.take`` and ``post`` wrapped to stamp the same messages.

The phases of a won hand, from what the referee reads and writes to the four clients: **start**, from the first
``NewHand`` to the first ``Discard`` read; **play**, first to last ``Discard``; **end**, the last ``Discard`` to the
first ``Settlement``; **between**, that ``Settlement`` to the next hand's first ``NewHand``.  mj-server's washouts
(hands without a history, which mjref is not dealt), the first hand and the last (no next hand) are left out.  Each
run gives the mean of each phase over its hands; the JSON has each side's median over the rounds, in ms, and the
per-round figures.  mjref's side runs ``--sandbox`` (default: mjref's own default, the box).

``reaction``: how fast each referee answers what a client sends.  A reaction is the time from a client's message
read to the referee's next write, when nothing else was read between (the message that set it going); by the
message (``Discard``, ``NoClaim``, the ``other``s, ``all``), the count, median and mean in µs over all rounds.  Both
are stamped the same way: mj-server after its ``read`` and ``write`` calls, mjref after ``take`` gives the message
(its parsing included) and after ``post`` (its write included).  mj-server acknowledges each ``NoClaim`` at once
(``PlayerDoesntClaim``); mjref sends the acknowledgement with the client's next message, so it counts far fewer.

Needs Debian's mah-jong (``/usr/games/mj-server``, ``mj-player``) and a C compiler (``cc``); without them it says so
in one line and exits 2.
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
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.box import child_env  # noqa: E402
from bench.machine import machine  # noqa: E402
from bench.xmj import (  # noqa: E402
    PLAYER,
    SERVER,
    describe_fault,
    game_moves,
    log_faults,
    mjserver_game,
    not_the_game,
)

PHASES = ("start", "play", "end", "between")

# The stamping library: each read and write of a descriptor above 2 (time, fd, direction, bytes), kept in memory and
# written out at exit to $MJREF_STAMPS as lines "seconds fd r|w hex".
_SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
typedef struct { double t; int fd; char dir; int len; unsigned char head[48]; } stamp;
static stamp *stamps; static long n, cap;
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_read)(int, void *, size_t);
static void keep(int fd, char dir, const void *b, ssize_t len) {
  struct timespec ts;
  if (fd <= 2 || len <= 0) return;
  if (n == cap) { cap = cap ? 2 * cap : 65536; stamps = realloc(stamps, cap * sizeof(stamp)); if (!stamps) abort(); }
  clock_gettime(CLOCK_MONOTONIC, &ts);
  stamp *s = &stamps[n++];
  s->t = ts.tv_sec + ts.tv_nsec * 1e-9; s->fd = fd; s->dir = dir; s->len = len < 48 ? (int)len : 48;
  memcpy(s->head, b, s->len);
}
ssize_t write(int fd, const void *b, size_t len) {
  if (!real_write) real_write = dlsym(RTLD_NEXT, "write");
  ssize_t r = real_write(fd, b, len); keep(fd, 'w', b, r); return r;
}
ssize_t read(int fd, void *b, size_t len) {
  if (!real_read) real_read = dlsym(RTLD_NEXT, "read");
  ssize_t r = real_read(fd, b, len); keep(fd, 'r', b, r); return r;
}
__attribute__((destructor)) static void out(void) {
  const char *path = getenv("MJREF_STAMPS"); FILE *f;
  if (!path || !(f = fopen(path, "w"))) return;
  for (long i = 0; i < n; i++) {
    fprintf(f, "%.6f %d %c ", stamps[i].t, stamps[i].fd, stamps[i].dir);
    for (int k = 0; k < stamps[i].len; k++) fprintf(f, "%02x", stamps[i].head[k]);
    fputc('\n', f);
  }
  fclose(f);
}
"""

# mjref's side: the CLI with XmjConnection's take and post wrapped, the stamps written to $MJREF_STAMPS at exit.
_CHILD = """
import atexit, json, os, runpy, sys, time
import wrappers.xmj.messages as m
import wrappers.xmj.seat as seat
stamps = []
clock = time.perf_counter
take, post = seat.XmjConnection.take, seat.XmjConnection.post
KINDS = {m.CMsgNewHand: "newhand", m.CMsgSettlement: "settlement", m.CMsgWashOut: "washout"}
def stamped_take(self):
    msg = take(self)
    if msg is not None:
        stamps.append((clock(), "discard" if msg.__class__ is m.PMsgDiscard else "read " + msg.NAME))
    return msg
def stamped_post(self, msgs):
    post(self, msgs)
    t = clock()
    if msgs:
        stamps.append((t, "write"))
    stamps.extend((t, KINDS[x.__class__]) for x in msgs if x.__class__ in KINDS)
seat.XmjConnection.take, seat.XmjConnection.post = stamped_take, stamped_post
atexit.register(lambda: open(os.environ["MJREF_STAMPS"], "w").write(json.dumps(stamps)))
sys.argv = ["mjref", *sys.argv[1:]]
runpy.run_module("referee.cli", run_name="__main__")
"""


def server_stamps(path: Path) -> list[tuple[float, str]]:
    """mj-server's stamps as (seconds, kind): a ``Discard`` read from a client (``discard``), any other message read
    (``read NAME``), each write to a client (``write``) and, stamped again, a ``NewHand``, ``Settlement`` or
    ``WashOut`` written (the clients' sockets are the descriptors it reads; its history file it only writes).  Reads
    are put back together into lines per descriptor (mj-server reads a byte at a time)."""
    rows: list[tuple[float, int, str, bytes]] = []
    for line in path.read_text(encoding="ascii").splitlines():
        when, number, way, hexed = (line.split(" ") + [""])[:4]
        rows.append((float(when), int(number), way, bytes.fromhex(hexed)))
    clients = {fd for _, fd, direction, _ in rows if direction == "r"}
    partial: dict[int, bytes] = {}
    out: list[tuple[float, str]] = []
    for t, fd, direction, data in rows:
        if fd not in clients:
            continue
        if direction == "w":
            out.append((t, "write"))
            for name, kind in ((b"NewHand", "newhand"), (b"Settlement", "settlement"), (b"WashOut", "washout")):
                if data.startswith(name):
                    out.append((t, kind))
            continue
        text = partial.get(fd, b"") + data
        *lines, partial[fd] = text.split(b"\n")
        out.extend((t, "discard" if x.startswith(b"Discard ") else "read " + x.split(b" ", 1)[0].decode("latin-1"))
                   for x in lines)
    return out


def reactions(stamps: list[tuple[float, str]]) -> dict[str, list[float]]:
    """The referee's reaction times, in seconds, by the client message it reacted to: from a message read to the
    write that follows it when nothing else was read or written between (the message that set the referee going;
    a message followed by another read first is not counted: the referee may have been waiting for that one)."""
    out: dict[str, list[float]] = {}
    last: tuple[float, str] | None = None
    for t, kind in sorted(stamps):
        if kind == "write":
            if last is not None:
                out.setdefault(last[1], []).append(t - last[0])
            last = None
        elif kind == "discard" or kind.startswith("read "):
            last = (t, "Discard" if kind == "discard" else kind[5:])
    return out


REACTED = ("Discard", "NoClaim")  # the two client messages of nearly every turn; the rest are counted together


def reaction_figures(times: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    """Median and mean of each reaction time in µs, and how many there were, for ``REACTED`` and the rest."""
    groups = {name: times.get(name, []) for name in REACTED}
    groups["other"] = [x for name, xs in times.items() if name not in REACTED for x in xs]
    groups["all"] = [x for xs in times.values() for x in xs]
    return {name: {"n": len(xs), "median_us": round(1e6 * statistics.median(xs), 1) if xs else 0.0,
                   "mean_us": round(1e6 * statistics.mean(xs), 1) if xs else 0.0} for name, xs in groups.items()}


def phases(stamps: list[tuple[float, str]]) -> dict[str, float]:
    """The mean of each phase, in ms, over the won hands that have a next hand, the first hand left out."""
    hands: list[dict[str, object]] = []
    current: dict[str, object] | None = None
    for t, kind in sorted(stamps):
        if kind == "newhand":
            if current is None or "end" in current:
                current = {"start": t, "discards": []}
                hands.append(current)
        elif kind == "write" or kind.startswith("read ") or current is None or "end" in current:
            continue
        elif kind == "discard":
            current["discards"].append(t)  # type: ignore[attr-defined]
        else:
            current["end"], current["won"] = t, kind == "settlement"
    rows: list[tuple[float, float, float, float]] = []
    for k in range(1, len(hands) - 1):
        h, after = hands[k], hands[k + 1]
        d: list[float] = h["discards"]  # type: ignore[assignment]
        if not h.get("won") or not d:
            continue
        start, end = float(h["start"]), float(h["end"])  # type: ignore[arg-type]
        rows.append((d[0] - start, d[-1] - d[0], end - d[-1], float(after["start"]) - end))  # type: ignore[arg-type]
    if not rows:
        raise RuntimeError("no won hand with a hand after it")
    means = {name: round(1000 * statistics.mean(r[i] for r in rows), 3) for i, name in enumerate(PHASES)}
    means["total"] = round(sum(means[name] for name in PHASES), 3)
    means["hands"] = len(rows)
    return means


Round = tuple[dict[str, float], dict[str, list[float]]]  # a run's phases, and its reaction times


def mjserver_round(seed: int, shim: Path, timeout: float, folder: str) -> Round:
    stamps = Path(folder, "stamps.txt")
    env = {**os.environ, "LD_PRELOAD": str(shim), "MJREF_STAMPS": str(stamps)}
    mjserver_game(seed, timeout, folder, server_env=env)
    stamped = server_stamps(stamps)
    return phases(stamped), reactions(stamped)


def mjref_round(histories: list[Path], extra: list[str], timeout: float) -> Round:
    with tempfile.TemporaryDirectory(prefix="mjref-xmjphases-") as tmp:
        env, _ = child_env(REPO, cpu=False)
        env["MJREF_STAMPS"] = str(Path(tmp, "stamps.json"))
        walls = [arg for h in histories for arg in ("--wallfile", str(h))]
        done = subprocess.run([sys.executable, "-c", _CHILD, "match", *["mj-player"] * 4, *walls,
                               "--hands", str(len(histories)), "--log", "m.jsonl", *extra],
                              cwd=tmp, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, timeout=timeout, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"mjref match {extra} failed: {done.stderr[-500:]}")
        faults = log_faults(Path(tmp, "m.jsonl"))
        if faults:
            raise RuntimeError(f"mjref match {extra}: {len(faults)} faults, the first {describe_fault(faults[0])}")
        differs = not_the_game(histories, Path(tmp, "m.jsonl"))
        if differs is not None:
            raise RuntimeError(f"mjref match {extra} is not mj-server's game: {differs}")
        stamped = [(t, kind) for t, kind in json.loads(Path(tmp, "stamps.json").read_text(encoding="utf-8"))]
        return phases(stamped), reactions(stamped)


def play_rounds(args: argparse.Namespace, shim: Path, game: Path, work: str, extra: list[str],
                runs: dict[str, list[dict[str, float]]], times: dict[str, dict[str, list[float]]]) -> None:
    """The rounds, the sides interleaved (each round after the first starts with the other side than the last):
    each run's phases into ``runs``, its reaction times added to its side's ``times``."""
    for r in range(args.rounds):
        # (the first mj-server game writes the walls mjref is dealt)
        order = ["mjserver", "mjref"] if r % 2 == 0 else ["mjref", "mjserver"]
        for side in order:
            if side == "mjserver":
                folder = game if r == 0 else Path(work, f"again{r}")
                folder.mkdir()
                ran = mjserver_round(args.seed, shim, args.timeout, str(folder))
                if r and game_moves(str(folder)) != game_moves(str(game)):
                    raise RuntimeError(f"the mj-server game of seed {args.seed} in round {r + 1} is not round 1's")
            else:
                ran = mjref_round(sorted(game.glob("hand-*.mjs")), extra, args.timeout)
            runs[side].append(ran[0])
            for name, xs in ran[1].items():
                times[side].setdefault(name, []).extend(xs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1, help="the mj-server game (its seed)")
    ap.add_argument("--rounds", type=int, default=6, help="times each side plays it, interleaved")
    ap.add_argument("--sandbox", default=None, help="mjref's --sandbox (default: mjref's default)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds one run may take")
    args = ap.parse_args()
    if args.rounds < 1 or args.timeout <= 0:
        print("bench/xmj_phases.py: --rounds must be at least 1, --timeout positive", file=sys.stderr)
        return 2
    compiler = shutil.which("cc")
    missing = [p for p in (SERVER, PLAYER) if not os.access(p, os.X_OK)] + ([] if compiler else ["cc"])
    if missing:
        print(f"bench/xmj_phases.py: {', '.join(missing)} missing (Debian's mah-jong; a C compiler)", file=sys.stderr)
        return 2
    assert compiler is not None
    extra = [] if args.sandbox is None else ["--sandbox", args.sandbox]
    runs: dict[str, list[dict[str, float]]] = {"mjserver": [], "mjref": []}
    times: dict[str, dict[str, list[float]]] = {"mjserver": {}, "mjref": {}}
    with tempfile.TemporaryDirectory(prefix="mjref-xmjphases-") as work:
        shim = Path(work, "stamps.so")
        source = Path(work, "stamps.c")
        source.write_text(_SHIM, encoding="ascii")
        built = subprocess.run([compiler, "-O2", "-shared", "-fPIC", "-o", str(shim), str(source), "-ldl"],
                               capture_output=True, text=True, check=False)
        if built.returncode != 0:
            print(f"bench/xmj_phases.py: cc could not build the stamping library: {built.stderr.strip()[-300:]}",
                  file=sys.stderr)
            return 2
        game = Path(work, "game")
        try:
            play_rounds(args, shim, game, work, extra, runs, times)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            print(f"bench/xmj_phases.py: {e}", file=sys.stderr)
            return 1
    out: dict[str, object] = {"machine": machine(), "seed": args.seed, "rounds": args.rounds,
                              "sandbox": args.sandbox or "default", "unit": "ms a won hand, mean over a run"}
    out["median"] = {side: {k: round(statistics.median(r[k] for r in rs), 3) for k in (*PHASES, "total")}
                     for side, rs in runs.items()}
    out["runs"] = runs
    out["mjref_over_mjserver_total"] = round(out["median"]["mjref"]["total"] /  # type: ignore[index]
                                             out["median"]["mjserver"]["total"], 3)  # type: ignore[index]
    out["reaction"] = {side: reaction_figures(t) for side, t in times.items()}
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
