"""Benchmark: full matches per second with built-in seats, and the referee's own cost with process bots.

With four process bots (``python -m bots.greedy --keep-alive``), the referee's CPU time (this process only; the bots
run in their own processes) is measured per protocol line and per hand, hand 1 excluded (it includes starting the
processes).  Beside it, a floor measured in the same run: the very same writes and reads (recorded from the match)
pushed through plain blocking pipes to fresh processes of the same bots, by a loop that does nothing else.

Both depend on where the kernel runs the bots: on this kind of machine a blocked process woken from the other CPU
costs some 20 µs of CPU, from its own CPU under 2 µs (``bench/wakeup.py``).  ``--pin split`` puts the bots on the
other CPU, ``--pin same`` everything on one CPU, for the match and the floor alike.

``--anchor REV`` measures the process bots' part (not the built-in matches) of this tree and of the repository at
git revision ``REV`` (exported into a temporary folder), each run by its own ``bench/match.py`` in a fresh process
with its tree first on the path (the bots too are the tree's), ours and the anchor's alternating ``--repeats`` times
in the same placement; the JSON gives each side's figures run by run, and the ratios ours/anchor of
``referee_minus_floor_per_question_us`` pair by pair and of the medians:
``python bench/match.py --process-bots drawdiscard --anchor main --repeats 3 [--pin split|same]``.  Each side's
figure per question is also given in two parts: ``referee_python_warm_per_question_us``, the referee's own Python
(the match replayed through in-memory seats, on warm caches), and ``referee_after_wakeup_per_question_us``, the
rest, which comes with being woken (the wait's system calls beyond the floor's, caches the bot process left cold).

Prints one JSON line.  ``python bench/match.py [--matches N] [--hands N] [--seed S] [--pin split|same]
[--anchor REV [--repeats N]]``; ``--matches`` (seeds S, S+1, ...) counts for both parts.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import deque
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import referee.match  # noqa: E402
from bench.anchor import commit_of, exported_tree  # noqa: E402
from bench.machine import machine  # noqa: E402
from referee.game.taiwan16.rules import make_ruleset  # noqa: E402
from referee.log import AnswerRecord, open_log  # noqa: E402
from referee.match import MatchResult, play_match  # noqa: E402
from wrappers.process import BLOCK_MS, ProcessSeat  # noqa: E402
from wrappers.spec import BotSpec  # noqa: E402


def _trace(seat: ProcessSeat) -> list[tuple[str, bytes]]:
    """The I/O trace this benchmark set on a seat (a list; ``-v``'s protocol log is never on here)."""
    trace = seat.trace
    return trace if isinstance(trace, list) else []


def builtin_rate(policy: str, matches: int, hands: int, seed: int) -> dict[str, float]:
    rules = make_ruleset({"hands": hands})
    specs = [BotSpec(name=f"{policy}{i}", builtin=policy) for i in range(4)]
    t0 = time.perf_counter()
    for m in range(matches):
        play_match(specs, seed=seed + m, rules=rules)
    dt = time.perf_counter() - t0
    return {"matches_per_second": round(matches / dt, 3), "hands_per_second": round(matches * hands / dt, 1)}


def _replay_floor(cmd: tuple[str, ...], seats: list[ProcessSeat], marks: list[tuple[float, int, list[int], int]],
                  per_line: bool) -> float:
    """CPU seconds (hands 2..n) to push the recorded I/O through plain blocking pipes to fresh bot processes.

    ``per_line``: write each line with its own write(), as a simple line-by-line wrapper would; otherwise replay
    the referee's own writes (one per question)."""
    procs = [subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
             for _ in range(4)]
    # A plain line reader: buffered, one read() per chunk the bot wrote (an unbuffered FileIO.readline() would
    # make one read() per byte and inflate the floor).
    readers = [open(p.stdout.fileno(), "rb", buffering=65536, closefd=False) for p in procs]  # type: ignore[union-attr]
    cpu = 0.0
    bounds = [[0] + [m[2][i] for m in marks] for i in range(4)]
    for h in range(len(marks)):
        queues = {i: list(_trace(seats[i])[bounds[i][h]:bounds[i][h + 1]]) for i in range(4)}
        t0 = time.process_time()
        while any(queues.values()):
            for i in range(4):
                q = queues[i]
                stdin, stdout = procs[i].stdin, readers[i]
                assert stdin is not None
                while q:
                    op, data = q.pop(0)
                    if op == "w":
                        if per_line:
                            for line in data.splitlines(keepends=True):
                                os.write(stdin.fileno(), line)
                        else:
                            os.write(stdin.fileno(), data)
                    else:
                        stdout.readline()
                        break
        if h > 0:
            cpu += time.process_time() - t0
    for r in readers:
        r.close()
    for p in procs:
        p.kill()
        p.wait()
    return cpu


def _one_process_match(cmd: tuple[str, ...], bot: str, hands: int, seed: int, log: Path,
                       block_ms: float) -> dict[str, float]:
    specs = [BotSpec(name=f"{bot}{i}", cmd=cmd, cwd=str(ROOT), keep_alive=True) for i in range(4)]
    rules = make_ruleset({"hands": hands})
    seats: list[ProcessSeat] = []
    # after each hand: (cpu, lines so far, trace lengths, answers so far)
    marks: list[tuple[float, int, list[int], int]] = []

    def on_seat(seat: object) -> None:
        assert isinstance(seat, ProcessSeat)
        seat.trace = []
        seats.append(seat)

    def on_hand(summary: object, result: object) -> None:
        marks.append((time.process_time(), sum(s.lines_sent + s.lines_received for s in seats),
                      [len(_trace(s)) for s in seats], sum(s.lines_received for s in seats)))

    played = play_match(specs, seed=seed, rules=rules, on_seat=on_seat, on_hand=on_hand, log_path=log,
                        block_ms=block_ms)
    warm, again = warm_cost(specs, seed, hands, log)
    assert [h.result.scores for h in again.hands] == [h.result.scores for h in played.hands], "the warm replay diverged"
    return {
        "warm": warm * (len(marks) - 1),
        "hands": len(marks) - 1,
        "cpu": marks[-1][0] - marks[0][0],
        "lines": marks[-1][1] - marks[0][1],
        "questions": marks[-1][3] - marks[0][3],
        "floor": _replay_floor(cmd, seats, marks, per_line=False),
        "floor_lines": _replay_floor(cmd, seats, marks, per_line=True),
    }


class _ReadyPoll:
    """A poll() that always has the recorded answer ready."""

    def poll(self, timeout: float | None = None) -> list[tuple[int, int]]:
        return [(-1, 1)] if timeout else []


class InMemorySeat(ProcessSeat):
    """A process seat whose bot is the list of its recorded answers: the referee's own Python per question
    (engine, protocol lines, log records, bookkeeping) without the pipes, the system calls or the sleeps."""

    answers: dict[int, list[bytes]] = {}

    async def prepare(self) -> None:
        return None  # no box: nothing is started

    async def _start(self) -> None:
        self._proc = SimpleNamespace(returncode=None, pid=0, stdin=None, stdout=None, stderr=None)  # type: ignore[assignment]
        self._stdout_fd = self._stdin_fd = -1
        self._poll = _ReadyPoll()  # type: ignore[assignment]
        self._replies: deque[bytes] = deque(self.answers[self.position])
        return None

    def _write_now(self, data: bytes) -> int:
        return len(data)

    def _read_one(self) -> bytes | None:
        return self._replies.popleft() if self._replies else None

    def end_hand_nowait(self) -> bool:
        self._outbox.clear()
        return True

    async def close(self) -> None:
        self._proc = None


# The warm replay is timed this many times and the least kept: one replay of ~40 ms varied by 20% between runs of
# the same code, which a comparison with --anchor cannot tell from a change.  An older tree's single replay is
# wrapped to the same (CHILD_SCRIPT), so that both sides of a comparison are measured alike.
WARM_BEST_OF = 5


def warm_cost(specs: list[BotSpec], seed: int, hands: int, log: Path) -> tuple[float, MatchResult]:
    """Replay the bots' recorded answers from ``log`` through the match loop with in-memory seats: the referee's
    Python per hand on warm caches (hands 2..n, as the other figures; the least of ``WARM_BEST_OF`` replays), and
    the result (the same as the log's)."""
    answers: dict[int, list[bytes]] = {1: [], 2: [], 3: [], 4: []}
    for _number, rec in open_log(log).records():
        if isinstance(rec, AnswerRecord) and rec.by == "bot":
            answers[rec.seat].append((rec.raw if rec.raw is not None else rec.answer).encode("ascii"))
    best = float("inf")
    for _ in range(WARM_BEST_OF):
        InMemorySeat.answers = answers
        marks: list[float] = []
        with mock.patch.object(referee.match, "ProcessSeat", InMemorySeat), tempfile.TemporaryDirectory() as tmp:
            result = play_match(specs, seed=seed, rules=make_ruleset({"hands": hands}),
                                log_path=Path(tmp) / "warm.jsonl",
                                on_hand=lambda summary, res, marks=marks: marks.append(time.process_time()))
        best = min(best, (marks[-1] - marks[0]) / (len(marks) - 1))
    return best, result


def process_cost(matches: int, hands: int, seed: int, log: Path, bot: str = "greedy",
                 pin: str | None = None, block_ms: float = BLOCK_MS) -> dict[str, object]:
    """The referee's CPU with four process bots over ``matches`` matches (hand 1 of each excluded), beside the
    floors measured right after each match.  ``pin``, for the match and the floors alike: ``"split"``, this
    process on the first CPU and every bot on the second (through ``taskset``), so that a bot never runs on the
    referee's CPU; ``"same"``, this process and every bot on the first CPU."""
    cmd: tuple[str, ...] = (sys.executable, "-m", f"bots.{bot}", "--keep-alive")
    before = os.sched_getaffinity(0)
    cpus = sorted(before)
    if pin == "split":
        cmd = ("taskset", "-c", str(cpus[1]), *cmd)
    if pin is not None:
        os.sched_setaffinity(0, {cpus[0]})  # inherited by the bots unless taskset moves them
    try:
        runs = [_one_process_match(cmd, bot, hands, seed + m, log, block_ms) for m in range(matches)]
    finally:
        os.sched_setaffinity(0, before)
    timed_hands = sum(r["hands"] for r in runs)
    cpu = sum(r["cpu"] for r in runs)
    lines = sum(r["lines"] for r in runs)
    questions = sum(r["questions"] for r in runs)
    floor_cpu = sum(r["floor"] for r in runs)
    floor_lines_cpu = sum(r["floor_lines"] for r in runs)
    warm_cpu = sum(r["warm"] for r in runs)
    per_line = cpu / lines
    floor_per_line = floor_cpu / lines
    floor_lines_per_line = floor_lines_cpu / lines
    out: dict[str, Any] = {
        "matches": matches,
        "process_hands_timed": timed_hands,
        "lines": lines,
        "referee_cpu_per_line_us": round(per_line * 1e6, 2),
        "floor_cpu_per_line_us": round(floor_per_line * 1e6, 2),
        "referee_over_floor": round(per_line / floor_per_line, 2) if floor_per_line else None,
        "floor_line_by_line_cpu_per_line_us": round(floor_lines_per_line * 1e6, 2),
        "referee_over_line_by_line_floor": round(per_line / floor_lines_per_line, 2) if floor_lines_per_line else None,
        "questions": questions,
        # What the referee adds to the pipes per question: about the same wherever the bots run (see --pin),
        # unlike the ratio, whose floor is mostly the cost of a wake-up.
        "referee_minus_floor_per_question_us": round((cpu - floor_cpu) / questions * 1e6, 1),
        "referee_cpu_per_hand_ms": round(cpu / timed_hands * 1e3, 3),
        "floor_cpu_per_hand_ms": round(floor_cpu / timed_hands * 1e3, 3),
        "floor_line_by_line_cpu_per_hand_ms": round(floor_lines_cpu / timed_hands * 1e3, 3),
        "referee_python_warm_per_hand_ms": round(warm_cpu / timed_hands * 1e3, 3),
        "per_match_referee_over_floor": [round(r["cpu"] / r["floor"], 2) if r["floor"] else None for r in runs],
    }
    return {**out, **split_per_question(out)}


def split_per_question(run: dict[str, Any]) -> dict[str, float]:
    """``referee_minus_floor_per_question_us`` in two: the referee's Python per question on warm caches (the warm
    replay through in-memory seats), and the rest, which comes with being woken (the wait's system calls beyond
    the floor's, and the same Python run on the caches the bot process left cold).  From fields that every
    revision's ``process_cost`` gives, so that it splits an anchor's run too."""
    warm = run["referee_python_warm_per_hand_ms"] * run["process_hands_timed"] / run["questions"] * 1e3
    return {"referee_python_warm_per_question_us": round(warm, 1),
            "referee_after_wakeup_per_question_us": round(run["referee_minus_floor_per_question_us"] - warm, 1)}


# Run in a fresh process with a tree (ours, or a revision exported by --anchor) first on its path: the process bots'
# part of that tree's own bench/match.py (it knows its seats' internals), one JSON line.  Only ``process_cost``'s
# signature, so that it runs on older revisions too.
CHILD_SCRIPT = """
import json, sys, tempfile
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import bench.match as tree
from bench.match import process_cost
matches, hands, seed, bot, pin, block_ms, best_of = sys.argv[2:9]
if not hasattr(tree, "WARM_BEST_OF"):  # a tree from before it: its single warm replay, made the least of as many
    one = tree.warm_cost
    def warm_cost(specs, seed, hands, log):
        runs = [one(specs, seed, hands, log) for _ in range(int(best_of))]
        return min(r[0] for r in runs), runs[0][1]
    tree.warm_cost = warm_cost
with tempfile.TemporaryDirectory() as tmp:
    out = process_cost(int(matches), int(hands), int(seed), Path(tmp) / "match.jsonl", bot, pin=pin or None,
                       block_ms=float(block_ms))
print(json.dumps(out))
"""

# The figures compared with --anchor, run by run.
ANCHOR_FIGURES = ("referee_minus_floor_per_question_us", "referee_python_warm_per_question_us",
                  "referee_after_wakeup_per_question_us", "referee_cpu_per_hand_ms", "floor_cpu_per_hand_ms",
                  "referee_python_warm_per_hand_ms")


def child_cost(tree: Path, args: argparse.Namespace, bot: str) -> dict[str, Any]:
    """``process_cost`` of ``tree``'s bench/match.py in a fresh process (the bots are ``tree``'s too)."""
    cmd = [sys.executable, "-c", CHILD_SCRIPT, str(tree), str(args.matches), str(args.hands), str(args.seed), bot,
           args.pin or "", str(args.block_ms), str(WARM_BEST_OF)]
    proc = subprocess.run(cmd, cwd=tree, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        raise SystemExit(f"bench/match.py: the run of {tree} failed: {lines[-1] if lines else proc.returncode}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return {**result, **split_per_question(result)}


def compare_anchor(args: argparse.Namespace, bots: list[str]) -> dict[str, object]:
    """The process bots' figures of ours and of revision ``args.anchor``, alternating in fresh processes."""
    out: dict[str, object] = {"rev": args.anchor, "commit": commit_of(args.anchor), "repeats": args.repeats}
    with exported_tree(args.anchor, "bench/match.py") as tree:
        for bot in bots:
            runs: dict[str, list[dict[str, Any]]] = {"ours": [], "anchor": []}
            for _ in range(args.repeats):
                runs["ours"].append(child_cost(ROOT, args, bot))
                runs["anchor"].append(child_cost(tree, args, bot))
            key = "referee_minus_floor_per_question_us"
            ours = [r[key] for r in runs["ours"]]
            theirs = [r[key] for r in runs["anchor"]]
            out[f"process_{bot}"] = {
                "ours": {k: [r[k] for r in runs["ours"]] for k in ANCHOR_FIGURES},
                "anchor": {k: [r[k] for r in runs["anchor"]] for k in ANCHOR_FIGURES},
                "ratio_minus_floor_per_pair": [round(o / t, 3) if t else None for o, t in zip(ours, theirs)],
                "ratio_minus_floor_of_medians": (round(statistics.median(ours) / statistics.median(theirs), 3)
                                                 if statistics.median(theirs) else None),
                "ratio_warm_per_question_per_pair": [
                    round(o["referee_python_warm_per_question_us"] / t["referee_python_warm_per_question_us"], 3)
                    for o, t in zip(runs["ours"], runs["anchor"])],
            }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=3)
    ap.add_argument("--hands", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pin", nargs="?", const="split", choices=("split", "same"),
                    help="split (the default with --pin): the referee on one CPU, the bots on another (needs taskset "
                         "and two CPUs); same: the referee and the bots on one CPU")
    ap.add_argument("--block-ms", type=float, default=BLOCK_MS,
                    help=f"how long the referee may block waiting for an answer before waiting through trio "
                         f"(default {BLOCK_MS:g}; a tournament's shared loop uses 0)")
    ap.add_argument("--process-bots", default="greedy,drawdiscard",
                    help="the built-in bots to run as processes, comma-separated (each: four of them)")
    ap.add_argument("--anchor", metavar="REV",
                    help="measure the process bots' part of this tree and of git revision REV, alternating in fresh "
                         "processes (the built-in matches are not run)")
    ap.add_argument("--repeats", type=int, default=3, help="pairs of fresh processes with --anchor (default 3)")
    args = ap.parse_args()
    for name in ("matches", "repeats"):
        if getattr(args, name) < 1:
            ap.error(f"--{name} must be at least 1")
    if args.hands < 2:
        ap.error("--hands must be at least 2 (the first hand, which starts the processes, is not timed)")
    if args.pin == "split" and (shutil.which("taskset") is None or len(os.sched_getaffinity(0)) < 2):
        ap.error("--pin split needs the taskset program and two CPUs")
    out: dict[str, object] = {"bench": "match", "hands_per_match": args.hands, "pinned": args.pin,
                              "block_ms": args.block_ms}
    bots = args.process_bots.split(",")
    if args.anchor is not None:
        out["loadavg_before"] = [round(x, 2) for x in os.getloadavg()]
        out["anchor"] = compare_anchor(args, bots)
        out["loadavg"] = [round(x, 2) for x in os.getloadavg()]
        out["python"] = platform.python_version()
        out["machine"] = machine()
        print(json.dumps(out))
        return
    out["builtin_greedy"] = builtin_rate("greedy", args.matches, args.hands, args.seed)
    out["builtin_random"] = builtin_rate("random", args.matches, args.hands, args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        for bot in bots:
            out[f"process_{bot}"] = process_cost(args.matches, args.hands, args.seed, Path(tmp) / "match.jsonl", bot,
                                                   pin=args.pin, block_ms=args.block_ms)
    out["loadavg"] = [round(x, 2) for x in os.getloadavg()]
    out["python"] = platform.python_version()
    out["machine"] = machine()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
