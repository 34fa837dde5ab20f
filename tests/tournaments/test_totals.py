"""The totals a store keeps at commit (tournaments.totals): the same standings as summing every match, whatever
order the matches were recorded in; older stores summed, then given totals when next written; newer ones refused."""

from __future__ import annotations

import dataclasses
import json
import random
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from tournaments import totals
from tournaments.config import parse_config
from tournaments.runner import plan, run_job
from tournaments.stats import compute_standings, kept_totals, read_totals, to_json
from tournaments.store import SCHEMA_VERSION, MatchRecord, Store, StoreError, connect

BADBOT = Path(__file__).resolve().parents[1] / "bots" / "badbot.py"


def _records(tmp: Path, bots: list[dict[str, Any]], seeds: int, hands: int = 2, **extra: Any) -> list[MatchRecord]:
    cfg = parse_config({"name": "totals", "seeds": seeds, "hands": hands, "store": "t.sqlite", "bots": bots, **extra})
    p = plan(cfg, tmp)
    return [run_job(job) for job in p.jobs]


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[MatchRecord]]:
    """Real matches: five bots (a round-robin of five tables), three (the dummy fills one seat), two (the dummy fills
    two), one (three), and a bot that faults."""
    d = tmp_path_factory.mktemp("totals")
    five = [{"name": n, "builtin": b} for n, b in
            (("g", "greedy"), ("r", "random"), ("d", "drawdiscard"), ("c", "greedy:chowness=0.9"), ("x", "random"))]
    return {
        "five": _records(d / "5", five, seeds=2, hands=1),
        "three": _records(d / "3", [{"name": "g", "builtin": "greedy"}, {"name": "r", "builtin": "random"},
                                    {"name": "bad", "cmd": [sys.executable, str(BADBOT), "bad_throw"]}], seeds=3),
        "two": _records(d / "2", five[:2], seeds=6, hands=1, duplicate=False),
        "one": _records(d / "1", five[:1], seeds=6, hands=1),
    }


def _approx(data: Any) -> Any:
    if isinstance(data, float):
        return pytest.approx(data, rel=1e-9, abs=1e-12)
    if isinstance(data, list):
        return [_approx(x) for x in data]
    if isinstance(data, dict):
        return {k: _approx(v) for k, v in data.items()}
    return data


def _fill(path: Path, recs: list[MatchRecord], batch: int = 1) -> Path:
    with Store(path) as s:
        s.initialise("totals", {"name": "totals"})
        if batch == 1:
            for r in recs:
                assert s.record(r)
        else:
            for i in range(0, len(recs), batch):
                assert s.record_many(recs[i:i + batch]) == len(recs[i:i + batch])
    return path


def _both(path: Path, cluster_by: str) -> tuple[Any, Any]:
    con = connect(path, readonly=True)
    try:
        con.execute("BEGIN")
        return kept_totals(con, cluster_by), read_totals(con, cluster_by)  # type: ignore[arg-type]
    finally:
        con.close()


@pytest.mark.parametrize("which", ["five", "three", "two", "one"])
@pytest.mark.parametrize("cluster_by", ["group", "seed"])
def test_kept_totals_are_the_sums_of_every_match(records: dict[str, list[MatchRecord]], which: str,
                                                 cluster_by: str, tmp_path: Path) -> None:
    path = _fill(tmp_path / "s.sqlite", records[which])
    (kb, kp, *k_rest), (sb, sp, *s_rest) = _both(path, cluster_by)
    assert k_rest == s_rest
    key = lambda t: t.bot  # noqa: E731
    for kept, summed in zip(sorted(kb, key=key), sorted(sb, key=key), strict=True):
        assert kept.bot == summed.bot and kept.matches == summed.matches and kept.hands == summed.hands
        assert (kept.points, kept.wins, kept.self_draws, kept.deal_ins, kept.faults, kept.answers) == \
            (summed.points, summed.wins, summed.self_draws, summed.deal_ins, summed.faults, summed.answers)
        for a, b in ((kept.mean, summed.mean), (kept.rank, summed.rank), (kept.first, summed.first)):
            assert a.g == b.g
            assert (a.sy, a.sn, a.syy, a.syn, a.snn) == pytest.approx((b.sy, b.sn, b.syy, b.syn, b.snn), rel=1e-12)
    assert {(p.a, p.b) for p in kp} == {(p.a, p.b) for p in sp}
    summed_pairs = {(p.a, p.b): p for p in sp}
    for p in kp:
        q = summed_pairs[(p.a, p.b)]
        assert (p.matches, p.hands, p.diff.g) == (q.matches, q.hands, q.diff.g)
        assert (p.diff.sy, p.diff.syy, p.diff.syn, p.diff.snn) == \
            pytest.approx((q.diff.sy, q.diff.syy, q.diff.syn, q.diff.snn), rel=1e-12, abs=1e-9)
    # and the standings shown are those of summing every match
    fresh = to_json(compute_standings(path, cluster_by=cluster_by))  # type: ignore[arg-type]
    with sqlite3.connect(path) as con:
        con.execute("UPDATE meta SET value = '3' WHERE key = 'schema'")  # as an older store: summed
    assert to_json(compute_standings(path, cluster_by=cluster_by)) == _approx(fresh)  # type: ignore[arg-type]


def test_totals_do_not_depend_on_the_order_matches_are_recorded(records: dict[str, list[MatchRecord]],
                                                                tmp_path: Path) -> None:
    recs = records["five"] + [dataclasses.replace(r, id=f"three-{r.id}") for r in records["three"]]
    shuffled = list(recs)
    random.Random(7).shuffle(shuffled)
    # one at a time (as the runner records), and in batches of 7 in another order (as a migration or bench)
    a, b = _fill(tmp_path / "a.sqlite", recs), _fill(tmp_path / "b.sqlite", shuffled, batch=7)
    for table in totals.TABLES:
        query = f"SELECT * FROM {table} ORDER BY 1, 2, 3"
        with sqlite3.connect(a) as ca, sqlite3.connect(b) as cb:
            rows_a = [tuple(r) for r in ca.execute(query)]
            rows_b = [tuple(r) for r in cb.execute(query)]
        if table == "agg_bot":  # answer seconds are floats summed in another order
            rows_a = [r[:9] for r in rows_a]
            rows_b = [r[:9] for r in rows_b]
        assert rows_a == rows_b, table
    assert json.dumps(to_json(compute_standings(a))["bots"][0]["ci95"]) == \
        json.dumps(to_json(compute_standings(b))["bots"][0]["ci95"])


def test_a_match_recorded_twice_counts_once(records: dict[str, list[MatchRecord]], tmp_path: Path) -> None:
    path = _fill(tmp_path / "s.sqlite", records["three"])
    with Store(path) as s:
        assert not s.record(records["three"][0])
        assert s.con.execute("SELECT matches FROM agg_store").fetchone()[0] == len(records["three"])


def test_an_older_store_is_summed_then_given_its_totals_when_next_written(
        records: dict[str, list[MatchRecord]], tmp_path: Path) -> None:
    path = _fill(tmp_path / "s.sqlite", records["three"])
    expected = to_json(compute_standings(path))
    with sqlite3.connect(path) as con:  # as mjref wrote it before schema 4
        for table in totals.TABLES:
            con.execute(f"DROP TABLE {table}")
        con.execute("UPDATE meta SET value = '3' WHERE key = 'schema'")
    assert to_json(compute_standings(path)) == _approx(expected)  # read-only: summed from the matches
    with Store(path) as s:  # opened for writing: totals built from its matches
        assert s.meta()["schema"] == str(SCHEMA_VERSION)
        assert s.record(dataclasses.replace(records["five"][0], id="another"))
    rebuilt = to_json(compute_standings(path))
    assert rebuilt["matches"] == expected["matches"] + 1
    (kb, kp, *kr), (sb, sp, *sr) = _both(path, "group")
    assert kr == sr and sorted((b.bot, b.points, b.mean.g) for b in kb) == sorted((b.bot, b.points, b.mean.g)
                                                                                   for b in sb)


def test_a_newer_store_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with Store(path) as s:
        s.initialise("x", {"name": "x"})
    with sqlite3.connect(path) as con:
        con.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    for opener in (lambda: Store(path), lambda: compute_standings(path)):
        with pytest.raises(StoreError, match="newer mjref \\(store schema 99") as info:
            opener()
        assert "\n" not in str(info.value)


def test_a_damaged_total_is_refused_naming_the_column(records: dict[str, list[MatchRecord]], tmp_path: Path) -> None:
    path = _fill(tmp_path / "s.sqlite", records["two"])
    with sqlite3.connect(path) as con:
        con.execute("UPDATE agg_bot_moments SET syy = 'abc'")
    with pytest.raises(StoreError, match="agg_bot_moments: column 'syy' holds 'abc', not a number"):
        compute_standings(path)


def test_recount_takes_rows_edited_by_hand(records: dict[str, list[MatchRecord]], tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Totals are kept at commit, so rows edited by hand (here: one duplicate group's matches struck out) are not
    seen by standings until ``--recount``, which then gives the standings of summing every match; a store in use
    by a runner is refused, in one line, and a missing one is not created."""
    from referee.cli import main
    from tournaments.lock import StoreLock

    path = _fill(tmp_path / "s.sqlite", records["five"])
    before = to_json(compute_standings(path))
    with sqlite3.connect(path) as con:
        struck = [r[0] for r in con.execute("SELECT id FROM matches WHERE grp = (SELECT MIN(grp) FROM matches)")]
        assert len(struck) == 4
        for table, column in (("plays", "match_id"), ("faults", "match_id"), ("wins", "match_id"),
                              ("hands", "match_id"), ("seats", "match_id"), ("matches", "id")):
            con.executemany(f"DELETE FROM {table} WHERE {column} = ?", [(m,) for m in struck])  # noqa: S608
    assert to_json(compute_standings(path)) == before  # the kept totals do not see the edit
    with sqlite3.connect(path) as con:
        con.execute("UPDATE meta SET value = '3' WHERE key = 'schema'")  # as an older store: summed from the rows
    summed = to_json(compute_standings(path))
    with sqlite3.connect(path) as con:
        con.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(SCHEMA_VERSION),))
    assert summed["matches"] == before["matches"] - 4
    with StoreLock(path):
        assert main(["standings", str(path), "--recount", "--format", "json"]) == 2
    err = capsys.readouterr().err
    assert "in use by another runner" in err and err.count("\n") == 1
    assert main(["standings", str(path), "--recount", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert f"totals recounted from {len(records['five']) - 4} matches" in err
    assert json.loads(out) == _approx(summed)
    assert main(["standings", str(tmp_path / "missing.sqlite"), "--recount"]) == 2
    assert not (tmp_path / "missing.sqlite").exists()


def test_the_report_is_bounded_whatever_the_store_holds(records: dict[str, list[MatchRecord]], tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """With room for 5 matches, 3 faults and 4 curve points, a 12-match store with faults: the page lists the
    matches with the most faults and the latest, and its aggregates still count every match."""
    from tournaments import report

    recs = records["three"]
    path = _fill(tmp_path / "s.sqlite", recs)
    full = report.build_report(path)
    monkeypatch.setattr(report, "MATCH_LIST", 5)
    monkeypatch.setattr(report, "FAULT_LIST", 3)
    monkeypatch.setattr(report, "CURVE_POINTS", 4)
    r = report.build_report(path)
    assert r["matches_total"] == len(recs) == len(full["matches"]) and len(r["matches"]) == 5
    faulted = max(recs, key=lambda m: (len(m.fault_rows), m.id))
    assert faulted.fault_rows and faulted.id in {m["id"] for m in r["matches"]}
    assert recs[-1].id in {m["id"] for m in r["matches"]}  # the latest recorded
    assert [m["idx"] for m in r["matches"]] == sorted(m["idx"] for m in r["matches"])
    assert len(r["faults"]) == 3 and r["faults_total"] == sum(len(m.fault_rows) for m in recs) > 3
    assert r["per_hand"] == full["per_hand"] and r["standings"] == full["standings"]
    for b in r["standings"]["bots"]:
        curve = r["cumulative"][b["name"]]
        assert len(curve) <= 4 and curve[-1] == [len(recs), b["points"]]
        assert curve[-1] == full["cumulative"][b["name"]][-1]
    page = report.render_report(r)
    assert "5 of 12: those with the most faults" in page and page.count('class="match"') == 5
    assert page.count('class="fault-row"') == 3 and "more (see the store's faults table)" in page
    assert f'data-count="{r["faults_total"]}"' in page or page.count('class="fault-group"') > 1  # full counts
