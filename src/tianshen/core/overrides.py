"""The GM's overrides in one table (issue 34): each one's name, typed arguments, help and
Chinese command word.  The admin CLI's commands and the GM page's command words are made
from it; a family declares an override of its own beside its method (`@extra`).

The four overrides that act on the ledgers (`core.ledgers`) are written here once, with
one wording for each refusal, in Chinese for the GM.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from tianshen.core.intake import Refused
from tianshen.core.model import GameState, GmIn, Outcome, Player
from tianshen.core.outbox import Messages

if TYPE_CHECKING:
    from tianshen.core.ledgers import Actions, Ballots
    from tianshen.core.spec import RulesetSpec


class GmRefused(Exception):
    """A GM command that cannot be carried out; the message says why."""


@dataclass(frozen=True)
class Arg:
    """One argument of an override: a positional (`player`) or an option (`--hours`)."""

    name: str  # its key in `GmIn.args`
    kind: type = str  # str or float
    help: str = ""
    positional: bool = False
    required: bool = False

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True)
class Override:
    name: str  # the command, as `tianshen admin NAME`
    word: str  # its Chinese word on the GM page
    help: str
    args: tuple[Arg, ...] = ()

    def line(self, **values: str) -> str:
        """The command line a GM copies: the positionals, then the options in the order
        given (`game` among them), the reason left for him to write."""
        positional = {a.name for a in self.args if a.positional}
        words = [values.get(a.name, a.name.upper()) for a in self.args if a.positional]
        options = [f"--{k.replace('_', '-')} {v}" for k, v in values.items() if k not in positional]
        return " ".join(["tianshen admin", self.name, *words, *options, "--reason '…'"])

    @classmethod
    def named(cls, name: str) -> Override:
        return next(o for o in OVERRIDES if o.name == name)


PLAYER = Arg("player", positional=True, required=True)
SENT_AT = Arg("sent_at", help="when the player sent it (ISO)")

OVERRIDES: tuple[Override, ...] = (
    Override("advance", "提前结束时段", "End the current phase or step now (resolve the night, close the vote…)."),
    Override("extend", "延长时段", "Move the current phase's deadlines later.",
             (Arg("hours", float, "hours to add", required=True),)),
    Override("pause", "暂停", "Stop the game clock (PMs are still taken)."),
    Override("resume", "继续", "Restart the clock; the phase is extended by the time paused."),
    Override("void-action", "取消行动", "Cancel a player's action of tonight (n_lives: all his pending privileges, "
             "refunded, or only --ability).",
             (PLAYER, Arg("ability", help="n_lives: only this privilege, by its Chinese name (e.g. 占卜)"))),
    Override("enter-action", "代录行动", "Enter a player's PM (sent to the GM another way), as he wrote it.",
             (PLAYER, Arg("text", positional=True, required=True), SENT_AT)),
    Override("void-vote", "作废投票", "Cancel a player's vote (or delegation) in the current count.", (PLAYER,)),
    Override("enter-vote", "代录投票", "Cast a vote for a player (e.g. one the forum lost).",
             (PLAYER, Arg("target", positional=True, required=True),
              Arg("sent_at", help="when the player voted (ISO)"))),
    Override("reject-declaration", "拒绝宣言",
             "Refuse a killer's declaration; the killers are asked by PM for a new one.", (PLAYER,)),
    Override("modkill", "判出局", "Remove a player from the game (判出局); his identity is shown where the rules "
             "show it.", (PLAYER,)),
    Override("leave", "请假", "A player's leave (请假): the phase is extended by `hours` (butterfly_elder: he is "
             "excused from the one-post-a-day rule for up to 24 h instead).",
             (PLAYER, Arg("hours", float, "hours of leave", required=True))),
    Override("substitute", "交替", "Substitution (交替期): extend the phase, ask every substitute by PM; the first "
             "to answer takes the longest-lurking seat.",
             (Arg("players", help="seats to replace, comma-separated", required=True),)),
    Override("cancel-substitution", "取消交替",
             "The player is back before a substitute answered: he keeps his seat.", (PLAYER,)),
    Override("end-game", "结束游戏", "End the game now, revealing every role and the seed.",
             (Arg("winner", help="civilians / killers (default: none)"),)),
)

F = TypeVar("F", bound=Callable[..., Any])


def extra(override: Override) -> Callable[[F], F]:
    """A family's own override, declared on its `gm_…` method."""

    def mark(method: F) -> F:
        method.override = override  # type: ignore[attr-defined]
        return method

    return mark


def family_extras(cls: type) -> list[Override]:
    """The overrides a ruleset class declares with `@extra`."""
    found = (getattr(cls, n) for n in dir(cls) if n.startswith("gm_"))
    return [o for m in found if (o := getattr(m, "override", None)) is not None]


def table(classes: list[type]) -> tuple[Override, ...]:
    """Every override: the shared ones, then the families' own, in the order declared."""
    extras = {o.name: o for cls in classes for o in family_extras(cls)}
    order = ("void-action", "enter-action", "void-vote", "enter-vote", "reject-declaration")
    shared = list(OVERRIDES)
    at = max(i for i, o in enumerate(shared) if o.name in order) + 1
    return (*shared[:at], *extras.values(), *shared[at:])


def sent_at(gm: GmIn) -> datetime:
    """When the player sent what the GM enters for him (`sent_at`), default the command's time."""
    if not gm.args.get("sent_at"):
        return gm.at
    try:
        at = datetime.fromisoformat(str(gm.args["sent_at"]))
    except ValueError:
        raise GmRefused(f"sent_at {gm.args['sent_at']}: accepted: a date and time, e.g. 2026-03-01T20:00+08:00") from None
    if at.tzinfo is None:
        raise GmRefused(f"sent_at {gm.args['sent_at']}: give its offset, e.g. 2026-03-01T20:00+08:00")
    return at


# ---- the overrides over the ledgers, once --------------------------------------------------

NO_ACTION = "{name}现在没有可以取消的行动"
NO_ACTION_NAMED = "{name}现在没有可以取消的「{what}」"
NO_BALLOT = "{name}在当前计票中没有票"
NO_VOTE_OPEN = "现在没有进行中的投票，不能代录投票"
NO_DECLARATION = "{name}今晚没有可以拒绝的杀人宣言"


class LedgerOverrides:
    """`void-action`, `void-vote`, `enter-vote`, `reject-declaration` for every ruleset
    whose family has the ledger they act on (`actions`, `ballots`)."""

    spec: RulesetSpec
    actions: Actions | None = None
    ballots: Ballots | None = None

    def _player_arg(self, state: GameState, gm: GmIn, key: str = "player") -> Player:
        raise NotImplementedError

    def ledger_commands(self) -> set[str]:
        """The ledger overrides this ruleset lacks a ledger for."""
        missing = set()
        if self.actions is None:
            missing |= {"void-action", "reject-declaration"}
        elif not self.actions.has_declarations:
            missing.add("reject-declaration")
        if self.ballots is None:
            missing |= {"void-vote", "enter-vote"}
        return missing

    def _told(self, name: str, key: str, **values: Any) -> Messages:
        out = Messages()
        out.pm(name, self.spec.text("receipt_subject"), self.spec.text(key, **values))
        return out

    def gm_void_action(self, state: GameState, gm: GmIn) -> Outcome:
        """Cancel a player's pending action (n_lives: all, or those of `ability`, refunded)."""
        assert self.actions is not None
        p = self._player_arg(state, gm)
        what = str(gm.args.get("ability") or "").strip()
        if not self.actions.pending(state, p, what):
            raise GmRefused((NO_ACTION_NAMED if what else NO_ACTION).format(name=p.name, what=what))
        out = Messages()
        for e in self.actions.void(state, p, what):
            out.pm(p.name, self.spec.text("receipt_subject"),
                   self.spec.text("gm_voided_action", action=e.what, reason=gm.reason))
        return out.outcome(state)

    def gm_void_vote(self, state: GameState, gm: GmIn) -> Outcome:
        """Strike a player's ballot (or delegation) from the running count; he may vote again."""
        assert self.ballots is not None
        p = self._player_arg(state, gm)
        if not self.ballots.open(state) or self.ballots.ballot(state, p) is None:
            raise GmRefused(NO_BALLOT.format(name=p.name))
        self.ballots.void(state, p)
        return self._told(p.name, "gm_voided_vote", reason=gm.reason).outcome(state)

    def gm_enter_vote(self, state: GameState, gm: GmIn) -> Outcome:
        """A vote the player cast another way (a lost post, a delegation by PM), cast now."""
        assert self.ballots is not None
        p = self._player_arg(state, gm)
        if not self.ballots.open(state):
            raise GmRefused(NO_VOTE_OPEN)
        at = sent_at(gm)
        out = Messages()
        try:
            line = self.ballots.enter(state, p, str(gm.args.get("target", "")), at, gm.id, out)
        except Refused as exc:
            raise GmRefused(str(exc)) from None
        out.log.append(line)
        return out.outcome(state)

    def gm_reject_declaration(self, state: GameState, gm: GmIn) -> Outcome:
        """The GM refuses a killer's declaration and asks for one that meets the rules."""
        assert self.actions is not None
        p = self._player_arg(state, gm)
        decl = self.actions.declaration(state, p) if state.phase.kind == "night" else None
        if decl is None:
            raise GmRefused(NO_DECLARATION.format(name=p.name))
        self.actions.reject(state, p)
        out = Messages()
        for name in decl.tell:
            out.pm(name, self.spec.text("receipt_subject"),
                   self.spec.text("gm_declaration_rejected", reason=gm.reason, **decl.values))
        return out.outcome(state)
