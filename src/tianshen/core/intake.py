"""Answering a PM, shared by every ruleset (DECISIONS §0.3): every PM gets one reply listing
what was understood (✔), what was refused and why (✘, with the accepted form), and the
lines that were not commands.  The ruleset runs each command; this module does the rest.
"""

from __future__ import annotations

from collections.abc import Callable

from tianshen.core.grammar import DECLARING_VERBS, Command, Verbs, parse_pm
from tianshen.core.model import GameState, Player, PmIn, Refusal
from tianshen.core.outbox import Messages
from tianshen.core.spec import RulesetSpec


class Refused(Exception):
    """A command that changed nothing; the message tells the player why, in plain Chinese."""


RunCommand = Callable[[Player, Command, Messages], str]


def answer_pm(spec: RulesetSpec, state: GameState, pm: PmIn, run: RunCommand, help: Callable[[Player], str],
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
    parsed = parse_pm(pm.text, verbs, declaring)
    if not parsed.commands:
        out.refuse(p.name, pm.text, spec.text("not_understood", help=help(p)), reply_to=p.name)
        return out, p
    done, refused = [], []
    for cmd in parsed.commands:
        try:
            done.append(run(p, cmd, out))
        except Refused as exc:
            refused.append(f"{cmd.line}：{exc}")
            out.refusals.append(Refusal(sender=p.name, text=cmd.line, reason=str(exc)))
    reply = []
    if done:
        reply.append(spec.text("receipt_ok", lines="\n".join("✔ " + d for d in done)))
    if refused:
        reply.append(spec.text("receipt_refused", lines="\n".join("✘ " + r for r in refused), help=help(p)))
    if parsed.unknown:
        reply.append(spec.text("receipt_unknown", lines="\n".join(parsed.unknown)))
    out.pm(p.name, spec.text("receipt_subject"), "\n\n".join(reply))
    return out, p
