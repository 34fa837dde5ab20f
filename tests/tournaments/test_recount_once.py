"""``mjref standings --recount`` shows the standings of the totals it recounted: they are read in the recount's own
transaction, so a runner that takes the store the moment the recount lets it go cannot mix its matches in."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from referee.cli import main
from tests.tournaments.test_totals import _fill, _records
from tournaments.lock import StoreLock
from tournaments.store import Store


def test_a_match_recorded_as_the_recount_ends_is_not_mixed_into_its_standings(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    recs = _records(tmp_path / "r", [{"name": "g", "builtin": "greedy"}, {"name": "r", "builtin": "random"}],
                    seeds=3, hands=1, duplicate=False)
    path = _fill(tmp_path / "s.sqlite", recs[:-1])
    release = StoreLock.release
    recorded: list[str] = []

    def release_then_record(lock: StoreLock) -> None:  # a runner waiting for the lock records a match at once
        release(lock)
        if not recorded:
            with Store(path) as store:
                assert store.record(recs[-1])
            recorded.append(recs[-1].id)

    monkeypatch.setattr(StoreLock, "release", release_then_record)
    assert main(["standings", str(path), "--recount", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert recorded, "the recount never released the store's lock"
    said = re.search(r"totals recounted from (\d+) match", err)
    assert said is not None, err
    assert int(said.group(1)) == json.loads(out)["matches"] == len(recs) - 1
