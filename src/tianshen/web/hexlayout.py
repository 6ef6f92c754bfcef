"""Where the web pages draw the cells of the hex map, found from the map's own adjacency table
(003 §2, DECISIONS §4.1.1 and D1), so that the hexagons drawn touching are exactly the
table's neighbours.

The 16 cells are laid out as four rows a–d; the one row shift (of four tried) whose touching
cells are all neighbours is kept.  Around it goes a ring of pale copies: the cells across the
wrap-around edge, each worked out from the table (the cell that borders both of two drawn
neighbours and is not the one already on the other side).  So every cell shows its six
neighbours around it, the wrap included.  A table no hex torus fits gets its cells drawn apart
(nothing touching); the pages' highlight on tap then shows the neighbours.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

Axial = tuple[int, int]  # (q, r) on the hex lattice; r is the drawn row
STEPS: tuple[Axial, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
APART = 1.3  # spacing of the cells of a map no hex layout fits: no two touch

# (row, col) -> axial; rows shifted right, left, odd rows or even rows shifted right
GRIDS: tuple[Callable[[int, int], Axial], ...] = (
    lambda row, col: (col, row),
    lambda row, col: (col - row, row),
    lambda row, col: (col - row // 2, row),
    lambda row, col: (col - (row + 1) // 2, row),
)


@dataclass(frozen=True)
class Placed:
    cell: str
    at: Axial
    ghost: bool  # a copy across the wrap-around edge


@dataclass(frozen=True)
class Layout:
    placed: tuple[Placed, ...]
    spacing: float  # 1.0: touching hexagons are neighbours; APART: none touch


def layout(cells: tuple[str, ...], table: dict[str, tuple[str, ...]]) -> Layout:
    for grid in GRIDS:
        home = {grid(*divmod(i, 4)): c for i, c in enumerate(cells)}
        drawn = wrapped(home, table)
        if drawn is not None:
            return Layout(tuple(Placed(c, at, at not in home) for at, c in drawn.items()), 1.0)
    home = {GRIDS[0](*divmod(i, 4)): c for i, c in enumerate(cells)}
    return Layout(tuple(Placed(c, at, False) for at, c in home.items()), APART)


def wrapped(home: dict[Axial, str], table: dict[str, tuple[str, ...]]) -> dict[Axial, str] | None:
    """`home` plus the ring of copies around it, or None when the table does not fit."""
    if not fits(home, table):
        return None
    drawn = dict(home)
    ring = {add(p, s) for p in home for s in STEPS} - home.keys()
    while ring:
        found = {g: c for g in ring if (c := across(g, drawn, table)) is not None}
        if not found:
            return None
        drawn.update(found)
        ring -= found.keys()
    return drawn if fits(drawn, table) and complete(home, drawn, table) else None


def across(g: Axial, drawn: dict[Axial, str], table: dict[str, tuple[str, ...]]) -> str | None:
    """The one cell that can stand at `g`: a neighbour of every drawn cell around it, none of
    them, and not the cell on the far side of an edge it shares with two of them."""
    known = [p for p in (add(g, s) for s in STEPS) if p in drawn]
    if len(known) < 2:
        return None
    options = set.intersection(*(set(table[drawn[p]]) for p in known)) - {drawn[p] for p in known}
    for p in known:
        for q in known:
            far = (p[0] + q[0] - g[0], p[1] + q[1] - g[1])
            if touching(p, q) and far in drawn:
                options.discard(drawn[far])
    return options.pop() if len(options) == 1 else None


def fits(drawn: dict[Axial, str], table: dict[str, tuple[str, ...]]) -> bool:
    """Every two touching drawn cells are neighbours in the table."""
    return all(drawn[q] in table[c] for p, c in drawn.items() for q in (add(p, s) for s in STEPS) if q in drawn)


def complete(home: dict[Axial, str], drawn: dict[Axial, str], table: dict[str, tuple[str, ...]]) -> bool:
    """Every cell has its six table neighbours drawn around it."""
    return all(sorted(drawn[add(p, s)] for s in STEPS) == sorted(table[c]) for p, c in home.items())


def add(p: Axial, s: Axial) -> Axial:
    return p[0] + s[0], p[1] + s[1]


def touching(p: Axial, q: Axial) -> bool:
    return (q[0] - p[0], q[1] - p[1]) in STEPS
