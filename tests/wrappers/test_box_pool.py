"""A run keeps its seats' boxes from one match to the next (``wrappers.process.BoxPool``): a tournament opens a bot's
box once per concurrency slot, not once per match.  Nothing of a match reaches the next, exactly as between two
hands; a box that no longer covers what the referee hides, and a box of a bot that may write its folder, are never
kept."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import trio

from referee.game.taiwan16.rules import make_ruleset
from referee.match import play_match, run_match
from tournaments.config import parse_config
from tournaments.runner import run_tournament
from wrappers import process
from wrappers.process import box_pool
from wrappers.sandbox import hide_from_bots, unhide
from wrappers.spec import BotSpec

RULES = make_ruleset({"hands": 2})


def notes_bots(folder: Path, **extra: object) -> list[BotSpec]:
    return [BotSpec(name=f"n{i}", cmd=(sys.executable, str(folder / "notes.py")), **extra)  # type: ignore[arg-type]
            for i in (1, 2, 3, 4)]


def saw(stderr_dir: Path) -> list[str]:
    return [line for f in sorted(stderr_dir.glob("*.stderr")) for line in f.read_text().splitlines()
            if line.startswith("SAW ")]


def test_a_kept_box_serves_the_next_match_and_shows_it_nothing_of_the_last(open_folder: Path, tmp_path: Path) -> None:
    """Two matches of four note-leaving bots in one pool: the second match's seats take the first's boxes (eight
    opened: two a seat, whose hands take them in turns; eight reused), every hand's process finds no note of any
    earlier hand, and the results are those of the same matches played without a pool."""
    specs = notes_bots(open_folder)

    async def two() -> tuple[list[object], int, int]:
        out = []
        async with box_pool(1) as boxes:
            for seed in (3, 4):
                out.append(await run_match(specs, seed=seed, rules=RULES, stderr_dir=tmp_path / f"m{seed}",
                                           boxes=boxes))
            return out, boxes.opened, boxes.reused

    results, opened, reused = trio.run(two)
    assert (opened, reused) == (8, 8)
    for seed, result in zip((3, 4), results, strict=True):
        assert result.faults == []  # type: ignore[attr-defined]
        seen = saw(tmp_path / f"m{seed}")
        assert len(seen) == 8 and set(seen) == {"SAW -"}, seen
        alone = play_match(specs, seed=seed, rules=RULES)
        assert alone.totals == result.totals  # type: ignore[attr-defined]


def test_a_box_that_no_longer_covers_what_is_hidden_is_not_kept(open_folder: Path, tmp_path: Path) -> None:
    """A log written in the bot's own folder is covered in a box planned while it is being written; a box planned
    before it existed does not cover it, so the next match gets new boxes (two a seat, as the first did)."""
    specs = notes_bots(open_folder)
    secret = open_folder / "live.log"
    secret.write_text("seed 42\n")

    async def two() -> tuple[int, int]:
        async with box_pool(1) as boxes:
            await run_match(specs, seed=3, rules=RULES, boxes=boxes)
            hide_from_bots(secret)
            try:
                await run_match(specs, seed=4, rules=RULES, boxes=boxes)
            finally:
                unhide(secret)
            return boxes.opened, boxes.reused

    assert trio.run(two) == (16, 0)


def test_a_box_of_a_bot_that_may_write_its_folder_is_never_kept(open_folder: Path) -> None:
    """(And such a bot has one box a match: its hands share its folder, so none starts beside another.)"""
    specs = notes_bots(open_folder, writable=True)

    async def two() -> tuple[int, int]:
        async with box_pool(1) as boxes:
            for seed in (3, 4):
                await run_match(specs, seed=seed, rules=RULES, boxes=boxes)
            return boxes.opened, boxes.reused

    assert trio.run(two) == (8, 0)


def test_a_tournament_opens_each_bots_box_once_per_slot(open_folder: Path, tmp_path: Path,
                                                         boxes_opened: list[process.Box]) -> None:
    """Four matches of the same four process bots at concurrency 1: four boxes opened, not sixteen, and none is
    left open when the run ends."""
    opened = boxes_opened
    bots = [{"name": f"n{i}", "cmd": [sys.executable, str(open_folder / "notes.py")]} for i in (1, 2, 3, 4)]
    cfg = parse_config({"name": "t", "seeds": 4, "hands": 1, "duplicate": False, "bots": bots})
    p = run_tournament(cfg, tmp_path, concurrency=1)
    assert len(opened) == 4
    assert all(box._popen.poll() is not None for box in opened), "the run's end closes its kept boxes"
    seen = [line for folder in p.logs_dir.glob("*.stderr") for line in saw(folder)]
    assert len(seen) == 16 and set(seen) == {"SAW -"}, seen
    assert not any(os.path.exists(box.launch.cwd) for box in opened), "their scratch folders are gone"
