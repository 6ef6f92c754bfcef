"""The 4×4 hex map on a torus (003 §2, DECISIONS §4.1.1 and D1).

The seed's picture is lost; the map is data (`options.maps.<name>` in the ruleset TOML, the
choice in `options.map`).  The default `circulant_1_3_4` is the one layout that reproduces the
seed's example exactly: a1 borders a2, a4, b1, d1, d2, d4.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class HexMap:
    name: str
    cells: tuple[str, ...]  # a1 … d4, in table order
    neighbours: dict[str, tuple[str, ...]]

    def adjacent(self, a: str, b: str) -> bool:
        return b in self.neighbours[a]

    def reach(self, cell: str) -> set[str]:
        """003 §4.1: own cell and the six around it (attack range)."""
        return {cell, *self.neighbours[cell]}

    def cell(self, written: str) -> str | None:
        """A cell written by a player (`B2`, `ｂ２`, ` b2 `), or None."""
        key = "".join(written.split()).lower()
        key = key.translate(str.maketrans("ａｂｃｄ１２３４", "abcd1234"))
        return key if key in self.neighbours else None

    def offset(self, a: str, b: str) -> int:
        """The move a→b as a step in cell order (DECISIONS D8: a confused player repeats
        the same direction)."""
        return (self.cells.index(b) - self.cells.index(a)) % len(self.cells)

    def step(self, a: str, offset: int) -> str:
        return self.cells[(self.cells.index(a) + offset) % len(self.cells)]


def load(options: dict[str, Any]) -> HexMap:
    """The map named by `options.map` (DECISIONS `003.map`), checked: six distinct
    neighbours each, symmetric."""
    name = str(options.get("map", "circulant_1_3_4"))
    table = options.get("maps", {}).get(name)
    if not table:
        raise ValueError(f"unknown map '{name}'; maps: {', '.join(options.get('maps', {}))}")
    neighbours = {cell: tuple(ns) for cell, ns in table.items()}
    check(neighbours)
    return HexMap(name, tuple(neighbours), neighbours)


def check(neighbours: dict[str, tuple[str, ...]]) -> None:
    for cell, ns in neighbours.items():
        if len(set(ns)) != 6 or cell in ns:
            raise ValueError(f"map cell {cell} must have six distinct neighbours, has {ns}")
        for n in ns:
            if cell not in neighbours.get(n, ()):
                raise ValueError(f"map is not symmetric: {cell}→{n} but not {n}→{cell}")
