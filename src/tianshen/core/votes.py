"""Vote posts and vote counting, shared by every ruleset."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tianshen.core.grammar import normalize, parse_pm

_QUOTE = re.compile(r"\[quote\].*?\[/quote\]", re.S | re.I)


def vote_target_text(post_text: str, names: Iterable[str]) -> str | None:
    """The name a vote post votes for, as written, or None when the post is no vote.

    Accepted: `投票 丙`, `投 丙`, `投票：丙`, `vote 丙`, or a post that is only a player's
    name.  Quoted text ([quote]…[/quote], `> ` lines) is ignored.
    """
    text = _QUOTE.sub("", post_text)
    lines = [ln.strip() for ln in normalize(text).split("\n")]
    lines = [ln for ln in lines if ln and not ln.startswith(">")]
    if not lines:
        return None
    for cmd in parse_pm("\n".join(lines)).commands:
        if cmd.verb == "vote":
            return cmd.arg
    if len(lines) == 1 and lines[0] in set(names):
        return lines[0]
    return None


@dataclass(frozen=True)
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
        return [c for c, n in self.counts.items() if n == best]


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
