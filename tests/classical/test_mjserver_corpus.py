"""mjref verifies mj-server's own games: corpora generated on the fly by the real ``mj-server`` and four
``mj-player``s (seeded, under several option files and player personalities), every hand history replayed under
mjref's Chinese Classical rules with the file's own options, and every score, explanation item and settlement
required to equal mj-server's.  The CI corpus is 15 games, four at a time (over 300 winning hands, some 12
seconds); 2,000 and more are ``bench/classical.py``'s (110 games, some four minutes: too long for CI), which fails
unless every one verifies."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import mjserver
import pytest

from referee.game.classical.options import GameOptions
from referee.mjserver import verify_histories

# (options file, personality, seed): every option variation once, the personalities in turn.
GAMES = [(opt, list(mjserver.PERSONALITIES)[i % 3], 11 + i) for i, opt in enumerate([None, *mjserver.OPTIONS])]
GAMES += [(None, "mixed", 101), (None, "pungs", 102), ("seven-pairs-1", "pungs", 103)]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str | None, str, int], list[Path]]:
    mjserver.require()
    root = tmp_path_factory.mktemp("mjserver")
    with ThreadPoolExecutor(max_workers=4) as pool:  # a game mostly waits on its processes: four at a time
        futures = {(opt, pers, seed): pool.submit(mjserver.corpus, root / f"{opt}-{pers}-{seed}", seed, options=opt,
                                                  personality=pers)
                   for opt, pers, seed in GAMES}
        return {game: f.result() for game, f in futures.items()}


def test_every_hand_of_the_corpus_verifies(corpus: dict[tuple[str | None, str, int], list[Path]]) -> None:
    files = [f for fs in corpus.values() for f in fs]
    assert len(files) >= 300, f"only {len(files)} winning hands in the corpus"
    for game, fs in corpus.items():
        assert fs, f"game {game} wrote no hand history"
    report = verify_histories(files)
    assert report.first is None, report.first
    assert len(report.hands) == len(files)
    # the option files took effect: the histories carry them and mjref read them
    by_option = {game[0]: verify_histories(fs[:1]).hands[0].history.options for game, fs in corpus.items()}
    assert not by_option["losers-settle-0"].LosersSettle
    assert by_option["disc-doubles-1"].DiscDoubles
    assert by_option["seven-pairs-1"].SevenPairs
    assert not by_option["flowers-0"].Flowers
    assert by_option["no-limit-1"].NoLimit
    assert by_option["mixed"].ScoreLimit == 500 and by_option["mixed"].NumRounds == 2
    assert by_option[None] == GameOptions()  # no option file: mj-server's defaults, which are mjref's


def test_mjref_replay_verifies_the_corpus_folders(corpus: dict[tuple[str | None, str, int], list[Path]]) -> None:
    folders = sorted({fs[0].parent for fs in corpus.values()})[:4]
    r = subprocess.run([sys.executable, "-m", "referee.cli", "replay", "--json", *map(str, folders)],
                       capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr
    out = json.loads(r.stdout)
    assert out["ok"] and out["difference"] is None
    assert len(out["hands"]) == sum(len(list(f.glob("hand-*.mjs"))) for f in folders)


def test_a_game_without_special_scores_verifies_when_mjref_is_told(tmp_path: Path) -> None:
    """``mj-server --no-special-scores`` is not recorded in its histories: ``--no-special-scores`` tells mjref."""
    mjserver.require()
    files = mjserver.corpus(tmp_path, 3, server_args=("--no-special-scores",))
    assert verify_histories(files, no_special_scores=True).ok
    first = verify_histories(files).first
    assert first is not None and "flowers and seasons" in first[1].mjref
