"""The `smart` policy for classic and game_ten (docs/simulate.md): the default sims (sim/classic.py),
with players who use what their role tells them.

- The diviner asks about players not asked about yet; once told of a killer he says so at
  the next day (a "claim"), and from then on everyone knows who the diviner is and whom he
  found.  Players he cleared are not voted for by the civilians.
- Civilians vote for a found killer when there is one (the rest of the time as the default
  sims: the leader or their own read).  Killers vote for the claimed diviner, or a civilian.
- Killers kill the claimed diviner first, then players who voted for a killer the day
  before, then anyone not a killer; they never target a partner (nor, in 8人玩法, the other
  killer).
- The binder binds the claimed diviner, but never the same player two nights running (002:
  that kills the bound player when the killers strike elsewhere).
- Commoners pray together for the claimed diviner when there is one.

Everything a smart player uses is what his role would have told him: the diviner's answers
(`questions` asked before the last dawn), the public day votes and claims.
"""

from __future__ import annotations

import random

from tianshen.core.model import GameState, Player
from tianshen.rules.common.roles import is_killer, on_duty_killer
from tianshen.sim.classic import ClassicSims, declaration
from tianshen.sim.game_ten import GameTenSims


def answered(state: GameState) -> dict[str, bool]:
    """What the diviners have been told so far: target -> is a killer (a question of night
    k is answered at dawn k+1)."""
    night = state.phase.number if state.phase.kind == "day" else state.phase.number - 1
    questions = state.data.get("questions", {})
    return {t: is_killer(state.player(t)) for n, t in questions.items() if int(n) < night and state.find(t)}


def claimed_diviner(state: GameState) -> Player | None:
    """The living diviner, once he has found a killer (he says so at the next day)."""
    if not any(answered(state).values()):
        return None
    return next((p for p in state.players if p.alive and p.role == "diviner"), None)


class SmartClassicSims(ClassicSims):
    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.voted_killer: set[str] = set()  # who voted for a killer at the last day

    # ---- nights -----------------------------------------------------------------------

    def _kill(self, state: GameState, p: Player, alive: list[Player], chosen: dict[str, str],
              rng: random.Random) -> None:
        group = self.group(state, p)
        if group.startswith("killer:") and on_duty_killer(state, state.phase.number) != p.name:
            return
        if group not in chosen:
            chosen[group] = self._victim(state, alive, rng)
        target = chosen[group]
        self.board.pm(p.name, self.gm, rng.choice(self.forms(state, p)).format(t=target) + "\n" + declaration(target, rng),
                      subject="行动")

    def _victim(self, state: GameState, alive: list[Player], rng: random.Random) -> str:
        victims = [q for q in alive if not is_killer(q)] or alive
        diviner = claimed_diviner(state)
        if diviner is not None and diviner in victims:
            return diviner.name
        threats = [q for q in victims if q.name in self.voted_killer]
        return rng.choice(threats or victims).name

    def _power(self, state: GameState, p: Player, alive: list[Player], chosen: dict[str, str],
               rng: random.Random) -> None:
        if p.role == "diviner":
            target = self._question(state, p, alive, chosen, rng)
        elif p.role == "binder":
            target = self._bind(state, p, alive, rng)
        elif p.role == "commoner" and (diviner := claimed_diviner(state)) is not None:
            target = diviner.name
        else:
            super()._power(state, p, alive, chosen, rng)
            return
        if p.role == "binder":
            self.last_bind = target
        group = self.group(state, p)
        if not self.alone(state, p):
            chosen[group] = target
        self.board.pm(p.name, self.gm, rng.choice(self.forms(state, p)).format(t=target), subject="行动")

    def _question(self, state: GameState, p: Player, alive: list[Player], chosen: dict[str, str],
                  rng: random.Random) -> str:
        group = self.group(state, p)
        if group in chosen:
            return chosen[group]
        asked = set(state.data.get("questions", {}).values())
        fresh = [q for q in alive if q.name != p.name and q.name not in asked and q.role != "diviner"]
        return rng.choice(fresh or [q for q in alive if q.name != p.name] or alive).name

    def _bind(self, state: GameState, p: Player, alive: list[Player], rng: random.Random) -> str:
        diviner = claimed_diviner(state)
        if diviner is not None and diviner.name != self.last_bind:
            return diviner.name
        others = [q for q in alive if q.name not in (p.name, self.last_bind)] or alive
        return rng.choice(others).name

    # ---- days -------------------------------------------------------------------------

    def vote(self, state: GameState, thread_id: str) -> None:
        if state.phase.step == "vote":
            self.voted_killer = set()
        super().vote(state, thread_id)

    def _choose_vote(self, p: Player, candidates: list[str], counts: dict[str, int], state: GameState,
                     rng: random.Random) -> str:
        options = [c for c in candidates if c != p.name] or candidates
        if is_killer(p):
            diviner = claimed_diviner(state)
            if diviner is not None and diviner.name in options:
                return diviner.name
            civilians = [c for c in options if not is_killer(state.player(c))]
            return rng.choice(civilians or options)
        diviner = claimed_diviner(state)
        known = answered(state) if diviner is not None or p.role == "diviner" else {}
        found = [c for c in options if known.get(c)]
        if found:
            target = found[0]
        else:  # not the players the diviner cleared, nor the diviner himself
            trusted = {c for c, bad in known.items() if not bad} | ({diviner.name} if diviner else set())
            target = super()._choose_vote(p, [c for c in options if c not in trusted] or options, counts, state, rng)
        if is_killer(state.player(target)):
            self.voted_killer.add(p.name)
        return target


class SmartGameTenSims(SmartClassicSims, GameTenSims):
    """game_ten (no diviner): the smart killers, binder and voters of classic on top of the
    game_ten sims (butterfly, summoner, skipped nights, conversions)."""
