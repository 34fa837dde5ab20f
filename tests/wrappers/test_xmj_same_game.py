"""The same wall, the same game: mj-server plays a whole game with four mj-players and writes its hand histories;
mjref deals those walls (``--wallfile``) to four mj-player seats, and ``mjref replay --against`` finds the two games
equal, move for move, every player's sets, scores and explanation, and the settlement."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import mjserver
import pytest

OPTION_FILES = [None, *mjserver.OPTIONS]
GAMES = [(100 + i, OPTION_FILES[i % len(OPTION_FILES)]) for i in range(20)]


def _mjref(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=600)


@pytest.mark.parametrize(("seed", "options"), GAMES, ids=[f"seed{s}-{o or 'defaults'}" for s, o in GAMES])
def test_four_mj_players_play_mj_servers_game_move_for_move(tmp_path: Path, seed: int, options: str | None) -> None:
    mjserver.require()
    game = tmp_path / "game"
    files = mjserver.corpus(game, seed, options=options)
    assert files, "mj-server's game had a won hand"
    log = tmp_path / "m.jsonl"
    played = _mjref("match", "mj-player", "mj-player", "mj-player", "mj-player", "--wallfile", str(game),
                    "--hands", str(len(files)), "--log", str(log), "--quiet")
    assert played.returncode == 0, played.stdout + played.stderr
    against = _mjref("replay", "--against", str(game), str(log))
    assert against.returncode == 0, against.stdout + against.stderr
    assert against.stdout.startswith(f"equal: {len(files)} hands"), against.stdout
