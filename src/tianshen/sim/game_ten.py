"""Simulated players for `game_ten` (seed 001): classic's sims plus the butterfly (never on
herself, 001 §2.8), the summoner (a dead player, 001 §2.7), killers who sometimes skip a
night (001 §2.2, so one-hit nights happen), converted commoners choosing a profession
(§2.10) and revived players voting (§2.7)."""

from __future__ import annotations

from tianshen.core.model import GameState, peek
from tianshen.rules.common.roles import is_killer
from tianshen.sim.classic import VOTE_FORMS, ClassicSims


class GameTenSims(ClassicSims):
    def night(self, state: GameState) -> None:
        rng = self._rng(state, "night")
        alive = [p for p in state.players if p.alive]
        chosen: dict[str, str] = {}
        skip = state.phase.number > 1 and rng.random() < 0.15  # 001 §2.2: a voluntary skip
        for p in alive:
            if is_killer(p):
                if not skip:
                    self._kill(state, p, alive, chosen, rng)
            elif p.role == "butterfly":
                others = [q for q in alive if q.role != "butterfly"]
                if others:
                    self.board.pm(p.name, self.gm, self.forms(state, p)[0].format(t=rng.choice(others).name), subject="行动")
            elif p.role == "summoner":
                dead = [q for q in state.players if not q.alive]
                if dead and state.data.get("summon_uses", 0) > 0 and rng.random() < 0.5:
                    self.board.pm(p.name, self.gm, self.forms(state, p)[0].format(t=rng.choice(dead).name), subject="行动")
            elif p.role == "unchosen":
                job = rng.choice(["束魂", "诅咒", "庇佑", "招魂", "蝴蝶夫人"])
                self.board.pm(p.name, self.gm, f"转职 {job}", subject="转职")
            elif self.forms(state, p):
                self._power(state, p, alive, chosen, rng)

    def vote(self, state: GameState, thread_id: str) -> None:
        d = peek(state.data, "day")  # looked at only
        if state.phase.step != "vote" or not d.get("revived"):
            super().vote(state, thread_id)
            return
        super().vote(state, thread_id)
        rng = self._rng(state, "vote")  # seeded again after the others' votes: the same draws as before them
        for name in d["revived"]:  # 001 §2.7: the revived vote too (or abstain)
            if rng.random() < 0.8:
                target = self._choose_vote(state.player(name), [p.name for p in state.players if p.alive],
                                           {}, state, rng)
                self.board.post(name, thread_id, rng.choice(VOTE_FORMS).format(t=target))

