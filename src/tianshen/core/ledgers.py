"""The ledgers a GM override acts on (issue 34): an `Actions` view (pending actions and
killers' declarations) and a `Ballots` view (the running count's ballots), each family
implementing them over its own `data` keys as they are, so every game says what it said.

The overrides that use them (`void-action`, `void-vote`, `enter-vote`,
`reject-declaration`) are written once, in `core.overrides`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from tianshen.core.model import GameState, Player
from tianshen.core.outbox import Messages
from tianshen.core.tally import GM, PM, POST, DayTally, TallyBallot, TallyRow


@dataclass(frozen=True)
class Entry:
    """One line of a ledger: who, and what (as the player's PM names it; "" when the
    family's text names none)."""

    actor: str
    what: str = ""


@dataclass(frozen=True)
class Declaration:
    """A killer's declaration of tonight: who is told when the GM rejects it, and the values
    of the family's `gm_declaration_rejected` text."""

    tell: list[str]
    values: dict[str, Any] = field(default_factory=dict)


class Actions(ABC):
    """A family's pending actions (tonight's, or a phase's moves) and declarations."""

    @abstractmethod
    def pending(self, state: GameState, p: Player, what: str = "") -> list[Entry]:
        """His actions the GM may still cancel: all, or those `what` names (n_lives)."""

    @abstractmethod
    def void(self, state: GameState, p: Player, what: str = "") -> list[Entry]:
        """Cancel them (refunding what the family refunds); the entries cancelled."""

    def record(self, state: GameState, p: Player, ability: str, target: str) -> None:
        """Enter his use of an ability on a target (core.abilities' intake, once its window,
        role and target were checked); a family whose intake is its own need not."""
        raise NotImplementedError

    def declaration(self, state: GameState, p: Player) -> Declaration | None:
        """His declaration of tonight, when the family has declarations and he wrote one."""
        return None

    def reject(self, state: GameState, p: Player) -> None:
        """Drop his declaration (`declaration` said there is one)."""
        raise NotImplementedError

    has_declarations = False


class Ballots(ABC):
    """The ballots of the count running now, and the running count itself (issue 34: one
    count): `running` is what the close would count if nothing more came, `shown` what the
    board has shown of it so far.  Every reader of a live count (the pages, `admin status`,
    the 「票数」 answer, the observation) reads one of the two."""

    # how a ballot came that the board shows before the close: a delegation waits for the
    # count (001 §5.3, 000 §8.4), a non-voter is counted for himself only at the close
    SHOWN: frozenset[str] = frozenset({POST, GM, PM})

    def count(self, state: GameState, closing: bool) -> DayTally | None:
        """The count of the running vote (None when none is open) over the ledger's keys:
        every ballot with how it came, the rows in the result post's order with their
        modifiers, who has not voted; `executed` is left to the close.  `closing`: as the
        close takes it, with what happens at the close first (n_lives' day 必杀) and the
        secret modifiers (归零); otherwise as the ballots stand, nothing secret applied."""
        return None

    def running(self, state: GameState) -> DayTally | None:
        """The count the close would make now if nothing more were posted (secrets included:
        the GM's view)."""
        count = self.count(state, closing=True)
        return replace(count, executed=()) if count is not None else None

    def shown(self, state: GameState) -> DayTally | None:
        """The running count as the board shows it: only the ballots it has shown (`SHOWN`),
        each row the weight of its ballots, no modifier; `missing` is not said."""
        count = self.count(state, closing=False)
        if count is None:
            return None
        ballots = tuple(b for b in count.ballots if b.how in self.SHOWN)
        return replace(count, ballots=ballots, rows=shown_rows(ballots), missing=(), executed=())

    @abstractmethod
    def open(self, state: GameState) -> bool:
        """Whether a vote is being counted now."""

    @abstractmethod
    def ballot(self, state: GameState, p: Player) -> Entry | None:
        """His ballot (or delegation) in the running count; None when he has none."""

    def may_vote(self, state: GameState, p: Player) -> bool:
        """Whether he is one of the running count's voters."""
        return p.alive

    @abstractmethod
    def void(self, state: GameState, p: Player) -> None:
        """Strike it: he may vote again."""

    @abstractmethod
    def enter(self, state: GameState, p: Player, written: str, at: datetime, gm_id: str, out: Messages) -> str:
        """Cast his vote for `written` as the family's rules take it (a `Refused` says why
        not); the log line."""

    def cast_at(self, state: GameState) -> dict[str, str]:
        """Voter → the ISO time of his ballot (the count's tie order: who reached it first)."""
        return {}

    def counted(self, state: GameState) -> dict[str, str]:
        """Voter → target of every ballot in the running count."""
        return {e.actor: e.what for p in state.players if (e := self.ballot(state, p))}


def shown_rows(ballots: tuple[TallyBallot, ...]) -> tuple[TallyRow, ...]:
    """Rows of ballots as the board's running count has them: each target with the weight of
    its ballots, most first, ties in the order the ledger holds them (its first ballot)."""
    weights: dict[str, int] = {}
    for b in ballots:
        if b.target:
            weights[b.target] = weights.get(b.target, 0) + b.weight
    ordered = sorted(weights, key=lambda n: -weights[n])
    return tuple(TallyRow(n, weights[n], weights[n]) for n in ordered)
