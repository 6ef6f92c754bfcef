"""The ledgers a GM override acts on (issue 34): an `Actions` view (pending actions and
killers' declarations) and a `Ballots` view (the running count's ballots), each family
implementing them over its own `data` keys as they are, so every game says what it said.

The overrides that use them (`void-action`, `void-vote`, `enter-vote`,
`reject-declaration`) are written once, in `core.overrides`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from tianshen.core.model import GameState, Player
from tianshen.core.outbox import Messages


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

    def declaration(self, state: GameState, p: Player) -> Declaration | None:
        """His declaration of tonight, when the family has declarations and he wrote one."""
        return None

    def reject(self, state: GameState, p: Player) -> None:
        """Drop his declaration (`declaration` said there is one)."""
        raise NotImplementedError

    has_declarations = False


class Ballots(ABC):
    """The ballots of the count running now."""

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

    def counted(self, state: GameState) -> dict[str, str]:
        """Voter → target of every ballot in the running count."""
        return {e.actor: e.what for p in state.players if (e := self.ballot(state, p))}
