"""One protection layer (issue 36): every guarding ability registers the players it guards
tonight, and "protected" is asked here once (the way lykos's add_protection / try_protection
serve every guard role).

A guard is (kind, by, target, ability): the kind is the ability's `protects` in the variant's
TOML (classic: `bind`, a single guard saves the killers' target, `prayer`, enough prayers do;
n_lives: `bind`, `heal`, `vest`, `bane`, `antisnipe`; butterfly_elder: the doctor's `save`),
`by` the acting group or player, `ability` the ability's id; a guard on `EVERYONE` guards
every player (n_lives' global 反狙击).  What a kind stops is the family's rule or its data
(n_lives: an attack's `blocked_by`); this module keeps the record and answers "protected?".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

EVERYONE = "*"


class Guard(NamedTuple):
    """One guard (a named tuple: made in C, where a frozen dataclass set each field through
    `object.__setattr__`; every night makes several)."""

    kind: str
    by: str
    target: str
    ability: str


@dataclass
class Protection:
    guards: list[Guard] = field(default_factory=list)

    def add(self, kind: str, by: str, target: str | None, ability: str) -> None:
        if target is not None:
            self.guards.append(Guard(kind, by, target, ability))

    def of(self, target: str, kind: str | None = None) -> list[Guard]:
        """The guards on `target` tonight (of one kind, or all)."""
        found = []  # (a loop: a comprehension made two cells a call)
        for g in self.guards:
            if (g.target == target or g.target == EVERYONE) and (kind is None or g.kind == kind):
                found.append(g)
        return found

    def stops(self, target: str, kinds: tuple[str, ...] | list[str]) -> bool:
        """Whether a guard of one of `kinds` is on `target` (what an attack is blocked by)."""
        return any(g.kind in kinds for g in self.of(target))

    def protected(self, kind: str) -> set[str]:
        found = set()  # (a loop: a comprehension made a cell a call)
        for g in self.guards:
            if g.kind == kind:
                found.add(g.target)
        return found
