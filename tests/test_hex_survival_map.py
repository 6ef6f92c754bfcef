"""`hex_survival` map: seed 003 §2 and §4.1–4.2, DECISIONS §4.1.1 and D1–D3."""

from __future__ import annotations

import pytest

from hex_helpers import Hex, pms_to
from tianshen.rules.hex_survival import hexmap
from tianshen.specs import load_spec

CELLS = [f"{r}{c}" for r in "abcd" for c in "1234"]
MAPS = ["circulant_1_3_4", "offset_even", "offset_odd", "rhombus_left", "rhombus_right"]


def _map(name: str = "circulant_1_3_4") -> hexmap.HexMap:
    options = dict(load_spec("hex_survival_12").options)
    options["map"] = name
    return hexmap.load(options)


def test_the_seeds_a1_example() -> None:
    """003 §2: a1是同时和a2、a4、b1、d1、d2、d4六个格子相邻连通."""
    assert set(_map().neighbours["a1"]) == {"a2", "a4", "b1", "d1", "d2", "d4"}


@pytest.mark.parametrize("name", MAPS)
def test_every_cell_has_six_distinct_neighbours_and_adjacency_is_symmetric(name: str) -> None:
    """003 §2 (a hex map that wraps around) and DECISIONS D1: 16 cells a1…d4, six neighbours
    each, never itself; a borders b ⇔ b borders a."""
    m = _map(name)
    assert sorted(m.cells) == sorted(CELLS)
    for cell in CELLS:
        ns = m.neighbours[cell]
        assert len(ns) == 6 and len(set(ns)) == 6 and cell not in ns
        for n in ns:
            assert cell in m.neighbours[n]


def test_default_map_is_the_twisted_torus_of_decisions() -> None:
    """DECISIONS D1: cells i, j (i = 4·row + col) adjacent iff (j − i) mod 16 ∈ {±1, ±3, ±4}."""
    m = _map()
    for i, a in enumerate(CELLS):
        for j, b in enumerate(CELLS):
            assert m.adjacent(a, b) == ((j - i) % 16 in {1, 15, 3, 13, 4, 12})


@pytest.mark.parametrize(("name", "a1"), [
    ("offset_even", {"a2", "a4", "b1", "b4", "d1", "d4"}),
    ("offset_odd", {"a2", "a4", "b1", "b2", "d1", "d2"}),
    ("rhombus_left", {"a2", "a4", "b1", "b4", "d1", "d2"}),
    ("rhombus_right", {"a2", "a4", "b1", "b2", "d1", "d4"}),
])
def test_straight_tori_differ_from_the_example_in_one_cell(name: str, a1: set[str]) -> None:
    """DECISIONS D1: each plain hex torus (a GM option, `003.map`) misses one cell of the example."""
    got = set(_map(name).neighbours["a1"])
    assert got == a1
    assert len(got ^ {"a2", "a4", "b1", "d1", "d2", "d4"}) == 2


def test_a_broken_map_is_refused() -> None:
    table = {c: list(_map().neighbours[c]) for c in CELLS}
    table["a1"] = ["a2", "a4", "b1", "d1", "d2", "c3"]  # c3 does not list a1
    with pytest.raises(ValueError):
        hexmap.check({k: tuple(v) for k, v in table.items()})


def test_attack_range_is_own_cell_and_the_six_around() -> None:
    """003 §4.1: 处于a1位置的游戏者，只能攻击a1、a2、a4、b1、d1、d2、d4七个格子里的游戏者."""
    cells = {"甲": "a1", "乙": "a2", "丙": "a4", "丁": "b1", "戊": "d1", "己": "d2",
             "庚": "d4", "辛": "b2", "壬": "b4", "癸": "c1", "子": "c3", "丑": "a3"}
    g = Hex(cells=cells)
    assert g.state.player("甲").extra["range"] == ["甲", "乙", "丙", "丁", "戊", "己", "庚"]
    # the nightfall PM lists those names and no cell of anyone else (003 §4.1: 不会告诉…哪个格子)
    role_pm = pms_to(g.setup_out, "甲")[0]
    assert "今夜你可以攻击：甲、乙、丙、丁、戊、己、庚" in role_pm
    assert "a2" not in role_pm and "d4" not in role_pm


def test_move_only_to_a_neighbour() -> None:
    """003 §4.2: 处于a1位置的游戏者，可以自由移动到a2、a4、b1、d1、d2、d4六个格子中的任意一个."""
    for to in ("a2", "a4", "b1", "d1", "d2", "d4"):
        g = Hex()
        g.dawn()
        out = g.pm("甲", f"移动 {to}")
        assert not out.refusals
        g.vote_all("丑")
        g.dusk()
        assert g.cell("甲") == to
    g = Hex()
    g.dawn()
    for far in ("b2", "b4", "c1", "c3", "a1"):
        out = g.pm("甲", f"移动 {far}")
        assert out.refusals and "相邻" in out.refusals[0].reason
    assert "甲" not in g.state.data["day"]["actions"]


def test_initial_placement_is_random_distinct_and_reproducible() -> None:
    """003 §2 随机分布 (D3: one player per cell), from the seeded RNG (§0.6): same seed, same map."""
    a = Hex(cells={}, seed=11)
    b = Hex(cells={}, seed=11)
    c = Hex(cells={}, seed=12)
    cells_a = [a.cell(p.name) for p in a.state.players]
    assert len(set(cells_a)) == 12
    assert cells_a == [b.cell(p.name) for p in b.state.players]
    assert a.state.data["buried"] == b.state.data["buried"]
    assert (cells_a != [c.cell(p.name) for p in c.state.players]
            or a.state.data["buried"] != c.state.data["buried"])


def test_the_map_is_published_at_the_start() -> None:
    """DECISIONS D1: the bot publishes the adjacency table with the player list."""
    g = Hex()
    assert "a1：a2 a4 b1 d1 d2 d4" in g.setup_out.posts[0].body
