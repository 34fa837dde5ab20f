"""The referee's cost per question over loopback WebSocket (remote seats, ``mjref connect`` wrappers) against local
pipes (process seats), in one run, as JSON.

Four copies of ``python -m bots.greedy --keep-alive``, kept alive for the match, play the same seeded match three ways:

* ``pipes``: four ``ProcessSeat``s, the referee waiting in a blocking poll first (``BLOCK_MS``, as ``mjref match``);
* ``pipes_trio``: the same with every wait through trio (``block_ms=0``, as a served match or a tournament);
* ``websocket``: four ``RemoteSeat``s, each played by a ``mjref connect`` wrapper process on 127.0.0.1.

Referee CPU is this process's CPU time (bots and wrappers are other processes); wall is the match's elapsed time.
Both are divided by the questions the bots answered.  ``ratio_cpu`` is websocket over pipes_trio, the like-for-like
comparison (both wait through trio); ``added_cpu_ratio`` is what the network adds in units of that local cost;
``ratio_cpu_vs_pipes`` compares with the blocking default.

    python bench/network.py [--hands 8] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import trio

from referee.game.taiwan16.rules import make_ruleset
from referee.match import MatchResult, run_match
from referee.server import Server, generate_tokens
from wrappers.spec import BotSpec

BOT = (sys.executable, "-m", "bots.greedy", "--keep-alive")
NAMES = ("a", "b", "c", "d")


def _figures(result: MatchResult, cpu: float, wall: float) -> dict[str, Any]:
    questions = sum(s.answers for s in result.seats)
    return {"questions": questions, "hands": len(result.hands), "faults": len(result.faults),
            "cpu_us_per_question": round(1e6 * cpu / questions, 1),
            "wall_us_per_question": round(1e6 * wall / questions, 1)}


async def pipes(hands: int, seed: int, block_ms: float | None) -> dict[str, Any]:
    specs = [BotSpec(name=n, cmd=BOT, keep_alive=True, cwd=str(ROOT)) for n in NAMES]
    rules = make_ruleset({"hands": hands})
    kwargs: dict[str, Any] = {} if block_ms is None else {"block_ms": block_ms}
    cpu, wall = time.process_time(), time.perf_counter()
    result = await run_match(specs, seed=seed, rules=rules, **kwargs)
    return _figures(result, time.process_time() - cpu, time.perf_counter() - wall)


async def websocket(hands: int, seed: int) -> dict[str, Any]:
    specs = [BotSpec(name=n, remote=True, keep_alive=True) for n in NAMES]
    rules = make_ruleset({"hands": hands})
    tokens = generate_tokens(NAMES)
    server = Server(tokens, say=lambda _: None)
    wrappers: list[subprocess.Popen[bytes]] = []
    try:
        async with trio.open_nursery() as nursery:
            url = await server.start(nursery, "127.0.0.1", 0, None)
            for n in NAMES:
                wrappers.append(subprocess.Popen(
                    [sys.executable, "-m", "referee.cli", "connect", url, " ".join(BOT), "--token", tokens[n],
                     "--name", n, "--stderr", os.devnull], cwd=ROOT, stderr=subprocess.DEVNULL))
            await server.wait_for_all(60)
            async with server.seating(specs, "bench", rules.network_grace) as (factory, tell):
                cpu, wall = time.process_time(), time.perf_counter()
                result = await run_match(specs, seed=seed, rules=rules, remote=factory, on_fault=tell, block_ms=0.0)
                figures = _figures(result, time.process_time() - cpu, time.perf_counter() - wall)
            await server.over("the benchmark is over")
            nursery.cancel_scope.cancel()
    finally:
        for w in wrappers:
            try:
                w.wait(10)
            except subprocess.TimeoutExpired:
                w.kill()
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    out: dict[str, Any] = {"bench": "network", "hands": args.hands, "seed": args.seed, "cpus": os.cpu_count()}
    out["pipes"] = trio.run(pipes, args.hands, args.seed, None)
    out["pipes_trio"] = trio.run(pipes, args.hands, args.seed, 0.0)
    out["websocket"] = trio.run(websocket, args.hands, args.seed)
    ws, pt, p = out["websocket"], out["pipes_trio"], out["pipes"]
    out["ratio_cpu"] = round(ws["cpu_us_per_question"] / pt["cpu_us_per_question"], 2)
    out["ratio_cpu_vs_pipes"] = round(ws["cpu_us_per_question"] / p["cpu_us_per_question"], 2)
    # What the network path adds, in units of the local cost (the target: at most 2).
    local = pt["cpu_us_per_question"]
    out["added_cpu_ratio"] = round((ws["cpu_us_per_question"] - local) / local, 2)
    out["ratio_wall"] = round(ws["wall_us_per_question"] / pt["wall_us_per_question"], 2)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
