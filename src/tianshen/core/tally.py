"""The tally that closes a vote (issue 34, one count): a typed event in the outcome that
computed the day's result, built by the family from the very values its result post is
rendered from.  The web pages read it for a closed day and never count posts again.

Every family fills the same shape: each ballot with its voter, target, weight and how it
came (a post, a delegation, the GM, a non-voter counted for himself), whether it counted;
the rows the result post shows (votes, the modifier applied, the total and the modifier's
words as posted); who did not vote, who abstained, and who the count executed or punished.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from tianshen.core.frozen import slot_init

# how a ballot came to be in the count
POST, PM, GM, DELEGATED, SELF = "post", "pm", "gm", "delegated", "self"

# what the count did to its top (the page says it in words: views.VERDICT_WORDS)
EXECUTED, PUNISHED = "executed", "punished"


@slot_init
@dataclass(frozen=True, slots=True)
class TallyBallot:
    voter: str
    target: str  # "" for an abstention
    weight: int = 1  # n_lives: the voter's cards at the close
    how: str = POST
    counted: bool = True  # False: dropped at the close (e.g. a vote for someone already out)


@slot_init
@dataclass(frozen=True, slots=True)
class TallyRow:
    name: str
    votes: int  # the ballots' weight
    total: int  # after the modifiers, as the result post shows it
    modifier: str = ""  # the modifier's words as the result post shows them ("" for none)


@slot_init
@dataclass(frozen=True, slots=True)
class DayTally:
    day: int  # the phase number of the day (butterfly_elder: the round)
    ballot: str  # which count of the day: "main", "ld" (a tie-break), "summon"
    ballots: tuple[TallyBallot, ...]
    rows: tuple[TallyRow, ...]  # in the result post's order, only the rows it shows
    missing: tuple[str, ...] = ()  # who did not vote and was not counted for himself
    abstained: tuple[str, ...] = ()
    executed: tuple[str, ...] = ()  # who the count put out or punished ("" none: a tie, a 平安夜)
    verdict: str = EXECUTED

    def total(self, name: str) -> int:
        return next((r.total for r in self.rows if r.name == name), 0)

    def line(self) -> str:
        """The count in one line, the page's history: 「甲 3，乙 1」."""
        return "，".join(f"{r.name} {r.total}" for r in self.rows if r.total or r.votes) or "无人得票"


# Every ballot made so far, by its four fields (frozen values: one object serves every count
# that holds the same ballot; the same few names vote in every game, issue 37).  Emptied when
# it grows past MADE_MAX, so a long-running process keeps it bounded.
_MADE: dict[tuple[str, str, int, str], TallyBallot] = {}
MADE_MAX = 4096


def _once(table: dict[Any, Any], key: tuple[Any, ...], make: Callable[..., Any]) -> Any:
    """`make(*key)`, made once for the same key while `table` keeps it (emptied past MADE_MAX)."""
    made = table.get(key)
    if made is None:
        if len(table) >= MADE_MAX:
            table.clear()
        made = table[key] = make(*key)
    return made


def ballot(voter: str, target: str, weight: int = 1, how: str = POST) -> TallyBallot:
    """TallyBallot(voter, target, weight, how), made once for the same four fields."""
    key = (voter, target, weight, how)
    made = _MADE.get(key)  # (a ballot made before, most: no `_once` call)
    return made if made is not None else _once(_MADE, key, TallyBallot)  # type: ignore[no-any-return]


_ROWS: dict[tuple[str, int, int, str], TallyRow] = {}


def row(name: str, votes: int, total: int, modifier: str = "") -> TallyRow:
    """TallyRow(name, votes, total, modifier), made once for the same four fields (as `ballot`)."""
    key = (name, votes, total, modifier)
    made = _ROWS.get(key)
    return made if made is not None else _once(_ROWS, key, TallyRow)  # type: ignore[no-any-return]


def ballots_of(votes: Iterable[tuple[str, str]], how: dict[str, str] | None = None,
               weights: dict[str, int] | None = None) -> tuple[TallyBallot, ...]:
    """(voter, target) pairs as ballots; `how` and `weights` by voter (default: a post, 1)."""
    how, weights = how or {}, weights or {}
    made, out = _MADE, []
    for v, t in votes:  # (`ballot` inline: ~25 ballots a classic_10 game)
        key = (v, t, weights.get(v, 1), how.get(v, POST))
        b = made.get(key)
        if b is None:
            b = ballot(*key)
        out.append(b)
    return tuple(out)
