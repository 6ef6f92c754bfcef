"""The hex map as drawn (issue 25 item 1): for every map variant the cells the page draws
touching, torus wrap included, are exactly the rules' adjacency table (003 §2, DECISIONS D1)."""

from __future__ import annotations

import math
import re
import warnings
from html.parser import HTMLParser
from pathlib import Path

import pytest
from web_game import TOKEN, play_until

from tianshen.rules.hex_survival import hexmap
from tianshen.specs import load_spec
from tianshen.web.app import WebSettings, create_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

RULESETS = Path(__file__).resolve().parents[2] / "rulesets"
VARIANTS = list(load_spec("hex_survival_12").options["maps"])


class MapCell:
    def __init__(self, ghost: bool, neighbours: str | None) -> None:
        self.ghost = ghost
        self.neighbours = neighbours
        self.name = ""
        self.points: list[tuple[float, float]] = []

    @property
    def centre(self) -> tuple[float, float]:
        xs, ys = zip(*self.points, strict=True)
        return sum(xs) / len(xs), sum(ys) / len(ys)

    @property
    def radius(self) -> float:
        return math.dist(self.centre, self.points[0])


class MapParser(HTMLParser):
    """The cells of <svg class="hexmap">: the name a player reads on each, its hexagon."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[MapCell] = []
        self._name_next = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "g" and "cell" in classes:
            self.cells.append(MapCell("ghost" in classes, a.get("data-neighbours")))
        elif tag == "polygon" and self.cells:
            self.cells[-1].points = [tuple(map(float, p.split(","))) for p in (a.get("points") or "").split()]
        elif tag == "text" and "cell-name" in classes:
            self._name_next = True

    def handle_data(self, data: str) -> None:
        if self._name_next and data.strip():
            self.cells[-1].name = data.strip().lower()
            self._name_next = False


def map_cells(html: str) -> list[MapCell]:
    svg = re.search(r"<svg class=\"hexmap\".*?</svg>", html, re.S)
    assert svg is not None, "no map on the page"
    parser = MapParser()
    parser.feed(svg.group(0))
    return parser.cells


def drawn_pairs(cells: list[MapCell]) -> set[frozenset[str]]:
    """Pairs of names on hexagons that share an edge (centres one hex width apart)."""
    pairs = set()
    for i, a in enumerate(cells):
        width = a.radius * 3 ** 0.5
        for b in cells[i + 1:]:
            if abs(math.dist(a.centre, b.centre) - width) < 1.0:
                assert a.name != b.name, f"{a.name} drawn touching itself"
                pairs.add(frozenset((a.name, b.name)))
    return pairs


def table_pairs(the_map: hexmap.HexMap) -> set[frozenset[str]]:
    return {frozenset((c, n)) for c, ns in the_map.neighbours.items() for n in ns}


def variant_file(tmp_path: Path, map_name: str) -> Path:
    path = tmp_path / f"hex_map_{map_name}.toml"
    path.write_text(f'include = ["{RULESETS / "hex_survival_12.toml"}"]\n[options]\nmap = "{map_name}"\n',
                    encoding="utf-8")
    return path


@pytest.mark.parametrize("map_name", VARIANTS)
def test_drawn_neighbours_are_the_rules_table(tmp_path, map_name: str) -> None:
    """Both pages: touching hexagons (wrap-around copies included) and each cell's
    data-neighbours (what the tap/hover highlight uses) equal the map's own table."""
    variant = variant_file(tmp_path, map_name)
    the_map = hexmap.load(load_spec(str(variant)).options)
    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", str(variant), 3, lambda s: True)
    c = TestClient(create_app(running.store, WebSettings(token=TOKEN)))
    gid = running.driver.game_id
    pages = {"public": c.get(f"/game/{gid}").text,
             "gm": c.get(f"/game/{gid}/gm", headers={"Authorization": f"Bearer {TOKEN}"}).text}
    for label, html in pages.items():
        cells = map_cells(html)
        home = [x.name for x in cells if not x.ghost]
        assert sorted(home) == sorted(the_map.cells), label
        assert {x.name for x in cells} == set(the_map.cells), label
        assert drawn_pairs(cells) == table_pairs(the_map), f"{label}: {map_name}"
        for x in cells:
            assert set((x.neighbours or "").lower().split()) == set(the_map.neighbours[x.name]), (label, x.name)


def test_the_default_map_is_drawn_twisted(tmp_path) -> None:
    """circulant_1_3_4 (the default): B2–C1 touch, B1–C2 do not (the old offset drawing had
    it the other way round)."""
    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "hex_survival_12", 3, lambda s: True)
    html = TestClient(create_app(running.store, WebSettings(token=TOKEN))).get(f"/game/{running.driver.game_id}").text
    pairs = drawn_pairs(map_cells(html))
    assert frozenset(("b2", "c1")) in pairs
    assert frozenset(("b1", "c2")) not in pairs


def test_the_map_comes_from_the_ruleset_and_only_the_gm_sees_who_stands_where() -> None:
    """Issue 24: the pages read the family's map through Ruleset.board_map (no hex import in
    web/); people and dig depths are the GM's (003 §5.1), a family without a map has none."""
    from datetime import UTC, datetime

    from tianshen.core.ruleset import GameSetup
    from tianshen.rules import load_ruleset
    from tianshen.sim.rehearsal import default_seats
    from tianshen.web.views import hex_map

    ruleset = load_ruleset("hex_survival_12")
    state = ruleset.setup(GameSetup(seats=default_seats(12), seed=2, start=datetime(2026, 1, 1, tzinfo=UTC))).state
    state.data["depth"]["a1"] = 2
    gm, public = hex_map(ruleset, state, secret=True), hex_map(ruleset, state, secret=False)
    assert gm is not None and public is not None
    shown = [person for c in gm.cells if not c.ghost for person in c.people]
    assert sorted(s.split()[0] for s in shown) == sorted(p.name for p in state.players)
    assert next(c for c in gm.cells if c.name == "a1" and not c.ghost).depth == 2  # as the map writes it
    assert not any(c.people or c.depth for c in public.cells)
    assert hex_map(load_ruleset("classic_10"), None, secret=True) is None
