"""Tournaments under Chinese Classical: ``rules = "classical"`` (or a preset), or a ``[rules]`` table with
``family = "classical"``; duplicate play on the same walls; every match's log replays."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from referee.game.classical.family import ClassicalRuleset
from referee.replay import replay_log
from tournaments.config import ConfigError, load_config, ruleset_of
from tournaments.runner import run_tournament

BOTS = "".join(f'[[bots]]\nname = "{n}"\nbuiltin = "{b}"\n' for n, b in
               (("g", "greedy"), ("r", "random"), ("d", "drawdiscard"), ("c", "greedy:chowness=0.9")))


def write(path: Path, rules: str) -> Path:
    path.write_text(f'name = "c"\nseeds = 1\nhands = 2\nduplicate = true\nseatings = 4\n{rules}\n{BOTS}')
    return path


def test_a_duplicate_classical_tournament(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path / "t.toml", 'rules = "dmjl"'))
    rules = ruleset_of(cfg)
    assert isinstance(rules, ClassicalRuleset) and rules.options.ScoreLimit == 500 and rules.hands == 2
    p = run_tournament(cfg, tmp_path, concurrency=1)
    con = sqlite3.connect(p.store_path)
    assert con.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 4
    for (total,) in con.execute("SELECT total1 + total2 + total3 + total4 FROM matches"):
        assert total == 0
    logs = sorted(Path(p.logs_dir).glob("*.jsonl"))
    assert len(logs) == 4
    walls = set()
    for log in logs:
        report = replay_log(log)
        assert report.ok, report.divergence
        assert report.rules.options.ScoreLimit == 500
        walls.add(tuple(tuple(r["wall"]) for r in map(json.loads, log.read_text().splitlines())
                        if r["type"] == "hand"))
    assert len(walls) == 1 and len(next(iter(walls))) == 2  # duplicate: the four seatings play the same walls


def test_a_rules_table_with_the_classical_family(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path / "t.toml", '[rules]\nfamily = "classical"\nLosersSettle = false\nmax_faults = 1'))
    rules = ruleset_of(cfg)
    assert isinstance(rules, ClassicalRuleset) and not rules.options.LosersSettle and rules.max_faults == 1
    bad = load_config(write(tmp_path / "b.toml", '[rules]\nfamily = "classical"\nflowers = true'))
    with pytest.raises(ConfigError, match="unknown classical option 'flowers'"):
        ruleset_of(bad)
    with pytest.raises(ConfigError, match="not a family"):
        load_config(write(tmp_path / "n.toml", 'rules = "riichi"'))
