"""Vote posts and vote counting, shared by every ruleset."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tianshen.core.frozen import slot_init
from tianshen.core.vote_post import read_vote_post


def vote_target_text(post_text: str, names: Iterable[str]) -> str | None:
    """The player a vote post votes for ('' when refused), None when the post is no vote.
    Kept for callers outside the rulesets; they read posts with core.vote_post."""
    vote = read_vote_post(post_text, names)
    if vote is None:
        return None
    return vote.name or ""


@slot_init
@dataclass(frozen=True, slots=True)
class Tally:
    counts: dict[str, int]  # candidate -> final count (votes + modifiers, clamped at 0)
    raw: dict[str, int]  # candidate -> votes before modifiers

    @property
    def top(self) -> list[str]:
        """Every candidate with the highest non-zero count, in first-vote order."""
        if not self.counts:
            return []
        best = max(self.counts.values())
        if best <= 0:
            return []
        top = []  # (a loop: the comprehension made a cell a call)
        for c, n in self.counts.items():
            if n == best:
                top.append(c)
        return top


def tally(votes: Iterable[str], modifiers: Mapping[str, int] | None = None) -> Tally:
    """Count one vote per entry (001 §5.1) plus per-target modifiers, clamped at 0 (B28)."""
    raw: dict[str, int] = {}
    for target in votes:
        raw[target] = raw.get(target, 0) + 1
    counts = dict(raw)
    for target, delta in (modifiers or {}).items():
        if delta:
            counts[target] = max(0, counts.get(target, 0) + delta)
    return Tally(counts=counts, raw=raw)


def count_rows(counts: Mapping[str, int], voters: Mapping[str, list[str]], cast_at: Mapping[str, str]
               ) -> tuple[tuple[str, int, str], ...]:
    """A running count's rows in the one order of every page (issue 25 item 5): most votes
    first, then the one who reached his count first (the latest of his voters' ballots);
    each target's voters in the order they voted.  `cast_at`: voter -> ISO time of his ballot."""
    def in_order(name: str) -> list[str]:
        return sorted(voters.get(name, []), key=lambda v: cast_at.get(v, ""))

    def reached(name: str) -> str:
        return max((cast_at.get(v, "") for v in voters.get(name, [])), default="")

    ordered = sorted(counts.items(), key=lambda x: (-x[1], reached(x[0])))
    return tuple((name, n, "、".join(in_order(name))) for name, n in ordered)
