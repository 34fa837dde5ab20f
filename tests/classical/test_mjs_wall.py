"""mjref deals an mj-server hand history's wall (``referee.game.classical.wallfile``) and its engine, answered with
the history's own moves (``follow``), draws exactly mj-server's tiles: the deal, every live draw from the front,
every loose tile from the back, the dead wall as the file's options keep it.  Games of the real mj-server and
mj-player under several option files (flowers replaced from the live wall or by loose tiles, no flowers, a dead
wall of 14 kept at 13-14, of 16 unreplenished, none).

One difference is known and pinned here: mj-server settles the flowers of the deal seat by seat (a seat declares
every flower it holds, the replacement's too, before the next seat), while the engine goes round the table in
passes (each seat's dealt flowers, then the replacements that were flowers, round again).  The two deal alike
unless a replacement is itself a flower and a later seat also holds one."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import mjserver
import pytest

from referee.errors import InputError
from referee.game.classical.follow import draw_difference, follow, history_draws
from referee.game.classical.history import TileMsg
from referee.game.classical.wallfile import HistoryDeal, history_deal, history_rules, wall_tids
from referee.game.wall import deal_positions
from referee.mjserver import read_history

DATA = Path(__file__).resolve().parents[1] / "data" / "mjserver"
NO_DEAD_WALL = "GameOption 0 DeadWall bool 1020 1 0 there is a dead wall\n"
# (option file, personality, seed): the wall's variations (flowers from the live wall and as loose tiles, no
# flowers, the three dead walls) and seven pairs.
GAMES = [(None, "default", 31), ("flowers-loose-1", "mixed", 32), ("flowers-0", "pungs", 33),
         ("dead-wall-16", "default", 34), ("no-dead-wall", "mixed", 35), ("seven-pairs-1", "pungs", 36)]


def _game(root: Path, opt: str | None, personality: str, seed: int) -> list[Path]:
    folder = root / f"{opt}-{seed}"
    if opt == "no-dead-wall":  # an option file of our own (tests/mjserver.py's are one variation each too)
        folder.mkdir(parents=True)
        (folder / "own-options.txt").write_text(NO_DEAD_WALL)
        return mjserver.corpus(folder, seed, personality=personality,
                               server_args=("--option-file", str(folder / "own-options.txt")))
    return mjserver.corpus(folder, seed, options=opt, personality=personality)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Path]]:
    mjserver.require()
    root = tmp_path_factory.mktemp("mjs-wall")
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = {opt or "default": pool.submit(_game, root, opt, pers, seed) for opt, pers, seed in GAMES}
        return {k: f.result() for k, f in futures.items()}


def mjserver_deal(deal: HistoryDeal) -> dict[int, list[int]]:
    """Each seat's tiles after the deal as mj-server settles flowers: seat by seat from East, every flower the seat
    holds declared and replaced (from the back with ``FlowersLoose``, else from the front) before the next seat."""
    tiles = deal.wall.tiles
    out = {p: [tiles[i] for i in positions] for p, positions in deal_positions(deal.dealer, 13).items()}
    front, back = 53, len(tiles)
    for k in range(4):
        hand = out[(deal.dealer - 1 + k) % 4 + 1]
        i = 0
        while i < len(hand):  # every flower the seat holds, its replacements' included, replaced in turn
            if hand[i] < 100:
                if deal.options.FlowersLoose:
                    back -= 1
                    hand.append(tiles[back])
                else:
                    hand.append(tiles[front])
                    front += 1
            i += 1
    return out


def test_the_wall_is_taken_as_it_stands_and_the_seats_as_mj_server_sat_them() -> None:
    h = read_history(DATA / "cannon.mjs")  # Game 3 4 1 2 W, first East 1, NewHand 4: player 4 deals in the West round
    d = history_deal(h)
    assert d.positions == {1: 1, 2: 2, 3: 3, 4: 4}
    assert (d.dealer, d.round_wind, d.hand_wind, d.hands_as_east) == (4, "WEST", "NORTH", 0)
    assert [d.code(t) for t in d.wall.tiles] == list(h.wall.tiles)  # the same order, face for face
    assert d.wall.tiles[:3] == (wall_tids(h.wall.tiles[:3], "w")) and len(set(d.wall.tiles)) == 144
    first_1c = h.wall.tiles.index("1C")
    assert d.wall.tiles[first_1c] == 110  # the first 1C in the wall is 1-wan's copy 0
    assert history_rules([d]).options == h.options  # type: ignore[attr-defined]


def test_a_game_whose_first_east_is_not_player_1_keeps_table_order() -> None:
    h = read_history(DATA / "buried-treasure.mjs")  # Game 2 3 4 1 N (first East 1), NewHand 2
    d = history_deal(h)
    assert d.positions == {1: 1, 2: 2, 3: 3, 4: 4} and d.dealer == 2 and d.round_wind == "NORTH"


def test_a_wall_with_a_tile_five_times_is_refused_with_its_line() -> None:
    h = read_history(DATA / "default.mjs")
    codes = list(h.wall.tiles)
    codes[codes.index("6C")] = "1C"
    while codes.count("1C") < 5:
        codes[next(i for i, c in enumerate(codes) if c not in ("1C",) and not c.endswith(("F", "S")))] = "1C"
    with pytest.raises(InputError, match=r"^w:31: the wall holds 1C five times$"):
        wall_tids(tuple(codes), "w:31")


def test_mjref_draws_every_tile_mj_server_drew(corpus: dict[str, list[Path]]) -> None:
    """Every hand of every game followed through the engine: the deal (its flowers replaced seat by seat, as
    mj-server does) and every draw after it are mj-server's, tile for tile."""
    followed = 0
    for game, files in corpus.items():
        assert files, f"game {game} wrote no hand history"
        for path in files:
            h = read_history(path)
            deal = history_deal(h)
            theirs, _ = history_draws(deal)
            assert {p: sorted(ts) for p, ts in mjserver_deal(deal).items()} == \
                {p: sorted(ts) for p, ts in theirs.items()}, f"{path}: mj-server's deal is not as modelled"
            f = follow(deal, history_rules([deal]))
            diff = draw_difference(f)
            assert diff is None, f"{path}: {diff}"
            assert f.difference is None, f"{path}: {f.difference}"
            assert f.hand.result is not None and f.hand.result.outcome == "win", path
            winner = next(m for m in h.moves if m.kind in ("PlayerMahJongs", "PlayerRobsKong"))
            assert isinstance(winner, TileMsg)
            assert f.hand.result.wins[0].seat == deal.positions[winner.id], path
            followed += 1
    assert followed >= 100, followed


def test_robbing_mjs_is_dealt_as_mj_server_dealt_it() -> None:
    """A replacement that is a flower is replaced before the next seat's flowers (the engine once settled them in
    rounds): seat 2's replacement 4S, then seat 3's 2S."""
    deal = history_deal(read_history(DATA / "robbing.mjs"))
    assert draw_difference(follow(deal, history_rules([deal]))) is None
