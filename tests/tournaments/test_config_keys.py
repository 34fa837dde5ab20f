"""A tournament file says each thing once: ``hands`` and ``[rules] hands`` are one setting, and nothing a file says
is ignored (unknown keys are refused in every table)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tournaments.config import ConfigError, load_config, ruleset_of

BOTS = '[[bots]]\nname = "a"\nbuiltin = "greedy"\n[[bots]]\nname = "b"\nbuiltin = "random"\n'


def write(tmp_path: Path, head: str) -> Path:
    path = tmp_path / "t.toml"
    path.write_text(f"seeds = 1\n{head}\n{BOTS}")
    return path


def test_hands_in_rules_alone_is_the_number_of_hands(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "[rules]\nhands = 8\n"))
    assert config.hands == 8 and ruleset_of(config).hands == 8


def test_hands_given_twice_alike_is_fine(tmp_path: Path) -> None:
    assert ruleset_of(load_config(write(tmp_path, "hands = 8\n[rules]\nhands = 8\n"))).hands == 8


def test_hands_given_twice_differently_is_refused_naming_both(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, "hands = 16\n[rules]\nhands = 8\n"))
    message = str(info.value)
    assert "t.toml" in message and "hands = 16 and [rules] hands = 8 disagree" in message and "\n" not in message


@pytest.mark.parametrize(("head", "key"), [("colour = 1\n", "colour"), ("[rules]\nhandz = 8\n", "handz")])
def test_an_unknown_key_is_refused(tmp_path: Path, head: str, key: str) -> None:
    with pytest.raises(ConfigError, match=key):
        ruleset_of(load_config(write(tmp_path, head)))
