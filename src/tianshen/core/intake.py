"""Answering a PM, shared by every ruleset (DECISIONS §0.3): every PM gets one reply listing
what was understood (✔), what was refused and why (✘, with the accepted form), and the
lines that were not commands.  The ruleset runs each command; this module does the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from tianshen.core import clock
from tianshen.core.grammar import DECLARING_VERBS, Command, Verbs, parsed_rows
from tianshen.core.model import GameState, Player, PmIn, Refusal
from tianshen.core.outbox import Messages
from tianshen.core.spec import Hot, Lines, RulesetSpec, Text


class Refused(Exception):
    """A command that changed nothing; the message tells the player why, in plain Chinese."""


def reason_of(exc: Refused) -> str | Text | Lines:
    """A refusal's words as they were given: a text of the variant not rendered yet, or a string."""
    if len(exc.args) == 1 and isinstance(exc.args[0], str | Text | Lines):
        return exc.args[0]  # type: ignore[no-any-return]
    return str(exc)


class ReadLate(Refused):
    """A night command the board delivered only after dawn (DECISIONS §0.1, issue 27 item 1):
    refused by the one window check (core.abilities) with the variant's `pm_read_late`."""


# (state, player, command, the PM's time, messages) -> the receipt line: the ruleset's own
# method, called as it is (no closure made a PM)
RunCommand = Callable[[GameState, Player, Command, datetime, Messages], str]
Help = Callable[[GameState, Player], str | Text]  # (state, player) -> what he may write


def answer_pm(spec: RulesetSpec | Hot, state: GameState, pm: PmIn, run: RunCommand, help: Help,
              verbs: Verbs | None = None, declaring: frozenset[str] = DECLARING_VERBS) -> tuple[Messages, Player | None]:
    """Run each command of the PM and answer the sender.  Returns the messages and the
    player (None when the PM was refused as a whole: not a player, game over)."""
    out = Messages()
    p = state.find(pm.sender)
    if p is None:
        owner = state.by_forum_name(pm.sender)
        reason = spec.text("use_vest", name=owner.name) if owner else spec.text("not_a_player")
        out.refuse(pm.sender, pm.text, reason, reply_to=pm.sender)
        return out, None
    if state.phase.kind == "over":
        out.refuse(p.name, pm.text, spec.text("game_over"), reply_to=p.name)
        return out, None
    commands, unknown = parsed_rows(pm.text, verbs, declaring)
    if not commands:
        out.refuse(p.name, pm.text, spec.text("not_understood", help=help(state, p)), reply_to=p.name)
        return out, p
    done: list[str] = []
    refused: list[str | Text | Lines] = []  # each "✘ line：reason", rendered when the answer is read
    late = 0
    at = pm.at
    for row in commands:
        cmd = _new(Command)  # the family's own (the rows are shared); `Command(*row)` without the class call
        cmd.verb, cmd.arg, cmd.text, cmd.line = row
        try:
            done.append(run(state, p, cmd, at, out))
        except Refused as exc:
            late += isinstance(exc, ReadLate)
            reason = reason_of(exc)
            refused.append(Lines("", ["✘ ", cmd.line, "：", reason]))
            out.refusals.append(Refusal(p.name, cmd.line, reason))
    if late:
        alone = not done and late == len(refused) and not unknown
        _read_late(spec, state, pm, out, alone)
        if alone:
            return out, p
    if not refused and not unknown:  # (every command taken: the receipt alone, most PMs)
        lines = "✔ " + done[0] if len(done) == 1 else "✔ " + "\n✔ ".join(done)
        out.pm(p.name, spec.text("receipt_subject"), spec.later_of("receipt_ok", {"lines": lines}))
        return out, p
    reply: list[str | Text] = []  # rendered when the answer is read
    if done:
        reply.append(spec.later("receipt_ok", lines="✔ " + "\n✔ ".join(done)))  # each line "✔ …"
    if refused:
        reply.append(spec.later("receipt_refused", lines=Lines("\n", refused), help=help(state, p)))
    if unknown:
        reply.append(spec.text("receipt_unknown", lines="\n".join(unknown)))
    out.pm(p.name, spec.text("receipt_subject"), reply[0] if len(reply) == 1 else Lines("\n\n", reply))
    return out, p


def _read_late(spec: RulesetSpec | Hot, state: GameState, pm: PmIn, out: Messages, alone: bool) -> None:
    """The night's commands of a PM read after dawn: the player is told they came too late
    (the whole answer when the PM held nothing else), the GM may enter them by hand."""
    if alone:
        out.pm(pm.sender, spec.text("receipt_subject"), spec.text("pm_read_late"))
    out.notes.append(f"{pm.sender} 夜里（{clock.show(pm.at, state.zone)}）寄出的短消息在天亮后才被"
                     f"读到，未计入：{' '.join(pm.text.split())[:60]}。如应计入，请用 tianshen admin enter-action 补录。")


_new = object.__new__
