"""What one viewer may know of a game (issue 24): the public, one seat, or the GM.

The public view holds what was announced: the phase, who is alive, the side each dead player
was announced as (the ruleset's `public_identity`), the winner, and the running vote's count
(`Ruleset.vote_count`, what every player may ask by 「票数」).  A seat's view adds its own
role and what its ruleset tells it (`seat_view`), never another seat's secret.  The GM's view
adds every player's `player_view` (secrets included).
"""

from __future__ import annotations

from typing import Any, Final

from tianshen.core.model import GameState
from tianshen.core.ruleset import REMINDER, Ruleset


class _Gm:
    def __repr__(self) -> str:
        return "GM"


GM: Final = _Gm()  # the viewer who sees everything
Viewer = str | None | _Gm  # a seat's name, None for the public, or GM


def observation(ruleset: Ruleset, state: GameState, viewer: Viewer) -> dict[str, Any]:
    """The game as `viewer` sees it, as plain JSON-like data."""
    view = _public(ruleset, state)
    if isinstance(viewer, _Gm):
        for row, p in zip(view["players"], state.players, strict=True):
            row.update(ruleset.player_view(state, p.name))
    elif viewer is not None:
        me = state.player(viewer)
        view["me"] = {"name": me.name, "role": me.role, "role_name": ruleset.spec.role_name(me.role),
                      "faction": me.faction, "alive": me.alive, **ruleset.seat_view(state, me.name)}
    return view


def _public(ruleset: Ruleset, state: GameState) -> dict[str, Any]:
    due = ruleset.next_deadline(state)
    if due is not None and due.kind == REMINDER:
        due = ruleset.phase_end(state.copy())
    players = []
    for p in state.players:
        row: dict[str, Any] = {"seat": p.seat, "name": p.name, "alive": p.alive}
        if not p.alive:
            row["died_in"] = p.died_in
            row["identity"] = ruleset.public_identity(state, p)
        players.append(row)
    return {
        "variant": ruleset.spec.id,
        "phase": {"kind": state.phase.kind, "number": state.phase.number, "label": state.phase.label,
                  "words": state.phase.words, "step": state.phase.step},
        "deadline": {"at": due.at.isoformat(), "kind": due.kind} if due else None,
        "winner": state.winner,
        "players": players,
        "count": _count(ruleset, state),
    }


def _count(ruleset: Ruleset, state: GameState) -> dict[str, Any] | None:
    count = ruleset.vote_count(state) if state.phase.kind == "day" else None
    if count is None:
        return None
    return {"text": count.text, "rows": [list(row) for row in count.rows], "note": count.note}
