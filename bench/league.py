"""Benchmark: the league (docs/league.md).

* ``--throughput`` (default): matches per minute of a league of five built-in bots against a plain tournament of
  the same bots (round-robin, not duplicate, the same hands and concurrency), in the same run, each measured
  twice in turn (league, tournament, league, tournament) from its first finished match to its last (worker
  start-up excluded); the ratio league / tournament (target >= 0.9).
* ``--standings N``: a league store of N synthetic one-hand matches among ``--bots`` bots (default 1,000,000 and
  100), built through the store's own ``record_many`` with the league's ratings recomputed as the league does and
  stored with them; then the time of the page's ``/api/standings`` over HTTP (a fresh read each time: the cache is
  emptied; with every bot's rating trend from the ratings' history, as the league serves it), and of its
  computation alone (target < 100 ms).  ``--store PATH`` keeps the store to reuse.

Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import trio  # noqa: E402

from bench.machine import machine  # noqa: E402
from bench.tournament import build_store  # noqa: E402
from referee.results import SeatResult  # noqa: E402
from tournaments.config import parse_config  # noqa: E402
from tournaments.league import LeagueControl, LeaguePage, open_league, parse_league, run_league  # noqa: E402
from tournaments.ratings import RATINGS_KEY, LeagueReader, Ratings  # noqa: E402
from tournaments.runner import execute, plan  # noqa: E402
from tournaments.store import HandRow, MatchRecord, connect  # noqa: E402

BUILTINS = [{"name": "greedy", "builtin": "greedy"}, {"name": "chowy", "builtin": "greedy:chowness=0.9"},
            {"name": "random", "builtin": "random"}, {"name": "dd", "builtin": "drawdiscard"},
            {"name": "hidden", "builtin": "greedy:hiddenness=0.9"}]


def _steady(stamps: list[float]) -> float:
    n = len(stamps)
    return 60 * (n - 1) / (stamps[-1] - stamps[0]) if n > 1 and stamps[-1] > stamps[0] else float("nan")


def league_rate(matches: int, hands: int, concurrency: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        config = parse_league({"name": "bench", "hands": hands, "duplicate": False, "store": "league.sqlite",
                               "bots": BUILTINS})
        p = open_league(config, Path(tmp))
        stamps: list[float] = []
        trio.run(lambda: run_league(p, matches=matches, concurrency=concurrency,
                                    on_match=lambda rec, ratings: stamps.append(time.perf_counter())))
    return _steady(stamps)


def tournament_rate(matches: int, hands: int, concurrency: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        config = parse_config({"name": "bench", "hands": hands, "duplicate": False, "seeds": -(-matches // 5),
                               "store": "t.sqlite", "bots": BUILTINS})
        p = plan(config, Path(tmp))
        stamps: list[float] = []
        trio.run(lambda: execute(p, concurrency=concurrency, on_match=lambda rec: stamps.append(time.perf_counter())))
    return _steady(stamps)


def throughput(matches: int, hands: int, concurrency: int) -> dict[str, Any]:
    league, tournament = [], []
    for _ in range(2):
        league.append(round(league_rate(matches, hands, concurrency), 1))
        tournament.append(round(tournament_rate(matches, hands, concurrency), 1))
    ratio = (sum(league) / len(league)) / (sum(tournament) / len(tournament))
    return {"bench": "league --throughput", "matches": matches, "hands": hands, "concurrency": concurrency,
            "league_matches_per_minute": league, "tournament_matches_per_minute": tournament,
            "ratio": round(ratio, 3), "target": ">= 0.9"}


def synthetic(n: int, bots: int, ratings: Ratings, seed: int = 1) -> Iterator[MatchRecord]:
    """``n`` one-hand league matches among ``bots`` bots, a random table each, rated as they are made."""
    rng = random.Random(seed)
    names = [f"bot{i:03d}" for i in range(bots)]
    for g in range(n):
        seats = tuple(rng.sample(names, 4))
        winner = rng.randrange(5)
        scores = [0, 0, 0, 0]
        if winner < 4:
            loser = rng.choice([i for i in range(4) if i != winner])
            pay = 100 + 20 * rng.randint(1, 8)
            scores[winner], scores[loser] = pay, -pay
        totals = (scores[0], scores[1], scores[2], scores[3])
        ranks = [sum(u > t for u in totals) + (sum(u == t for u in totals) + 1) / 2 for t in totals]
        seat_rows = tuple(SeatResult(i + 1, seats[i], totals[i], ranks[i], 1, wins=int(i == winner), answers=20,
                                     answer_seconds=0.004, max_answer_seconds=0.001) for i in range(4))
        hand = HandRow(0, 1, "win" if winner < 4 else "draw", winner + 1 if winner < 4 else None,
                       "throw" if winner < 4 else None, None, 0, totals, (0, 0, 0, 0))
        ratings.add(seats, totals)
        yield MatchRecord(f"L{g:07d}-r{g % 4:02d}", g, f"L{g:07d}", g + 1, g % 4, seats, 1,  # type: ignore[arg-type]
                          totals, None, None, 0.01, seat_rows, (hand,), ())


def standings(n: int, bots: int, store: Path | None, runs: int = 5) -> dict[str, Any]:
    out: dict[str, Any] = {"bench": "league --standings", "matches": n, "bots": bots}
    with tempfile.TemporaryDirectory() as tmp:
        path = store or Path(tmp) / "league.sqlite"
        ratings = Ratings()
        built = build_store(path, n, lambda: synthetic(n, bots, ratings), {"league": 1, "name": "league bench"},
                            lambda s: s.set_meta({RATINGS_KEY: ratings.dumps()}))
        if built is not None:
            out["build_seconds"] = built
        else:  # a kept store: its ratings and their history, as the league computes them when it starts
            con = connect(path, readonly=True)
            ratings = Ratings.from_store(con)
            con.close()
        out["store_bytes"] = path.stat().st_size
        reader = LeagueReader(path)
        control = LeagueControl(None)  # type: ignore[arg-type]  # the page reads only its ratings
        control.ratings = ratings
        page = LeaguePage(None, reader, control)  # type: ignore[arg-type]
        computed = []
        for _ in range(runs):
            reader._cached = None
            t0 = time.perf_counter()
            data = page.standings()
            json.dumps(data)
            computed.append(round(1000 * (time.perf_counter() - t0), 1))
        assert data["matches"] == n and len(data["bots"]) == bots and data["bots"][0]["rating"] is not None
        assert len(data["trends"]) == bots
        out["standings_ms"] = computed
        out["http_ms"] = trio.run(_http, page, runs)
        out["http_cached_ms"] = trio.run(_http, page, runs, True)
        out["target"] = "< 100 ms"
    return out


async def _http(page: LeaguePage, runs: int, cached: bool = False) -> list[float]:
    from referee.league_pages import league_app
    from referee.pages import serve_app
    from referee.server import MAX_PENDING, Door

    times: list[float] = []
    async with trio.open_nursery() as nursery:
        door = Door(MAX_PENDING, lambda peer, reason: None, logins=False)
        url = await nursery.start(lambda task_status: serve_app(
            league_app(page.standings, page.reader.matches), "127.0.0.1", 0, door=door, what="bench",
            task_status=task_status))

        def fetch() -> None:
            with urllib.request.urlopen(f"{url}/api/standings", timeout=60) as r:
                r.read()

        for _ in range(runs):
            if not cached:
                page.reader._cached = None
            t0 = time.perf_counter()
            await trio.to_thread.run_sync(fetch)
            times.append(round(1000 * (time.perf_counter() - t0), 1))
        nursery.cancel_scope.cancel()
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=400, help="matches per run for --throughput (default 400)")
    ap.add_argument("--hands", type=int, default=1)
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--standings", type=int, metavar="N", help="time the page's standings on a store of N matches")
    ap.add_argument("--bots", type=int, default=100, help="with --standings: bots in the store (default 100)")
    ap.add_argument("--store", type=Path, help="with --standings: the store to build (or reuse)")
    args = ap.parse_args()
    if args.standings:
        out = standings(args.standings, args.bots, args.store)
    else:
        out = throughput(args.matches, args.hands, args.concurrency)
    print(json.dumps({**out, "machine": machine()}))


if __name__ == "__main__":
    main()
