"""One protection layer (issue 36): every guarding ability registers the players it guards
tonight, and "protected" is asked here once (the way lykos's add_protection / try_protection
serve every guard role).

A guard is (kind, by, target, ability): the kind is the ability's `protects` in the variant's
TOML (`bind`: a single guard saves the killers' target; `prayer`: enough prayers do), `by` the
acting group, `ability` the ability's id.  The family decides what a kind does against which
attack; this module only keeps the record.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Guard:
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
        return [g for g in self.guards if g.target == target and (kind is None or g.kind == kind)]

    def protected(self, kind: str) -> set[str]:
        return {g.target for g in self.guards if g.kind == kind}
