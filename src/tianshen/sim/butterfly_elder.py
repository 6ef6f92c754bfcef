"""Simulated players for `butterfly_elder` (seed 004): they write the PMs and posts a person
would.  They play legally: the killers agree on one victim, the butterfly never hugs herself
or last round's partner and stops after her four hugs, the elder alternates his skills
without repeating a target, muted players vote with the name only, the dead write one will.
Choices come from a RNG seeded by the game seed and the phase, so a rehearsal repeats.
"""

from __future__ import annotations

import random
from datetime import datetime

from tianshen.core.abilities import table
from tianshen.core.model import GameState, Player
from tianshen.core.spec import RulesetSpec
from tianshen.forum.base import PlayerSide
from tianshen.sim import ThreadLookup, in_draw_order
from tianshen.specs import shared_spec

VOTE_FORMS = ("投票 {t}", "投票：{t}", "投 {t}", "{t}")
CHAT = ("我觉得{t}的发言有点问题。", "先听听大家的意见，{t}怎么看？", "{t}昨天的投票很奇怪。", "今天我跟票，{t}可疑。")
WILLS = ("遗言：我是好人，大家加油。", "遗言：注意{t}。", "遗言：没什么可说的，祝好运。")


class ButterflySims:
    def __init__(self, board: PlayerSide, gm_account: str, seed: int) -> None:
        self.board, self.gm, self.seed = board, gm_account, seed
        self.confirmed = False
        self.wills_written: set[str] = set()
        self._specs: dict[str, RulesetSpec] = {}

    def know(self, spec: RulesetSpec) -> None:
        """The variant the game is played by, as its ruleset holds it (read only)."""
        self._specs[spec.id] = spec

    def form(self, state: GameState, ability: str, target: str) -> str:
        """What a player writes for an ability (its `sim_forms` or first word, core.abilities)."""
        if state.variant not in self._specs:
            self._specs[state.variant] = shared_spec(state.variant)
        a = table(self._specs[state.variant]).by_id[ability]
        return (a.get("sim_forms") or [a.words[0] + " {t}"])[0].format(t=target)

    def act(self, state: GameState, at: datetime, thread: ThreadLookup) -> None:
        ph = state.phase
        if ph.kind == "night" and ph.step == "power":
            if not self.confirmed:
                self.confirmed = True
                for p in state.players:
                    self.board.pm(p.name, self.gm, "确认", subject="确认身份")
            self.powers(state)
        elif ph.kind == "day":
            self.wills(state, at, thread("main"))
            if (vote := thread(f"vote:{ph.number}")) is not None:
                self.vote(state, vote, thread("main"))

    def _rng(self, state: GameState, what: str) -> random.Random:
        return random.Random(f"{self.seed}:{state.phase.label}:{state.phase.step}:{what}")

    def _pm(self, p: Player, text: str) -> None:
        self.board.pm(p.name, self.gm, text, subject="行动")

    # ---- the power round ------------------------------------------------------------------

    def powers(self, state: GameState) -> None:
        rng = self._rng(state, "powers")
        alive = [p for p in state.players if p.alive]
        others = {p.name: [q.name for q in alive if q.name != p.name] for p in alive}
        killers = [p for p in alive if p.role == "killer"]
        if killers:
            victims = [q.name for q in alive if q.role != "killer"]
            self._pm(rng.choice(killers), self.form(state, "slay", rng.choice(victims)))
        for p in alive:
            if not others[p.name]:
                continue
            if p.role == "police":
                self._pm(p, self.form(state, "check", rng.choice(others[p.name])))
            elif p.role == "sniper" and rng.random() < 0.5:
                self._pm(p, self.form(state, "shoot", rng.choice(others[p.name])))
            elif p.role == "doctor":
                self._pm(p, self.form(state, "save", rng.choice([p.name, *others[p.name]])))
            elif p.role == "butterfly":
                self._hug(state, p, others[p.name], rng)
            elif p.role == "elder":
                self._elder(state, p, others[p.name], rng)

    def _hug(self, state: GameState, p: Player, others: list[str], rng: random.Random) -> None:
        last = state.data["last"]
        if state.data["butterfly_uses"] <= 0 or rng.random() < 0.4:
            return
        if last.get("hug_round") == state.phase.number - 1:
            return  # legal under either reading of 隔轮无效 (E2)
        if others:
            self._pm(p, self.form(state, "hug", rng.choice(others)))

    def _elder(self, state: GameState, p: Player, others: list[str], rng: random.Random) -> None:
        if state.data["elder"]["skills_lost"]:
            return
        skill = rng.choice(("mute", "zero"))
        last = state.data["last"].get(skill)
        targets = [n for n in others if n != last]
        if targets:
            self._pm(p, self.form(state, skill, rng.choice(targets)))

    # ---- the day ------------------------------------------------------------------------

    def wills(self, state: GameState, at: datetime, main: str | None) -> None:
        """五: each dead player writes one will while it is allowed."""
        if main is None:
            return
        rng = self._rng(state, "wills")
        alive = [p.name for p in state.players if p.alive]
        for name, w in state.data["wills"].items():
            if name in self.wills_written or not w["allowed"] or w["used"]:
                continue
            if datetime.fromisoformat(w["until"]) < at:
                continue
            self.wills_written.add(name)
            self.board.post(name, main, rng.choice(WILLS).format(t=rng.choice(alive) if alive else "大家"))

    def vote(self, state: GameState, vote_thread: str, main: str | None) -> None:
        rng = self._rng(state, "vote")
        alive = [p for p in state.players if p.alive]
        info = state.data.get("round_info", {})
        muted = info.get("muted") if info.get("round") == state.phase.number else None
        counts: dict[str, int] = {}
        for p in in_draw_order(rng, alive):
            options = [q.name for q in alive if q.name != p.name]
            if main and p.name != muted and rng.random() < 0.5:
                self.board.post(p.name, main, rng.choice(CHAT).format(t=rng.choice(options or [p.name])))
            if not options or rng.random() < 0.1:
                self.board.post(p.name, vote_thread, "弃权")
                continue
            target = self._choose(state, p, options, counts, rng)
            counts[target] = counts.get(target, 0) + 1
            form = "{t}" if p.name == muted else rng.choice(VOTE_FORMS)
            self.board.post(p.name, vote_thread, form.format(t=target))

    def _choose(self, state: GameState, p: Player, options: list[str], counts: dict[str, int],
                rng: random.Random) -> str:
        if counts and rng.random() < 0.5:
            leader = max(counts, key=lambda c: counts[c])
            if leader in options:
                return leader
        if p.role == "killer":
            good = [n for n in options if state.player(n).role != "killer"]
            return rng.choice(good or options)
        killers = [n for n in options if state.player(n).role == "killer"]
        if killers and rng.random() < 0.3:
            return rng.choice(killers)
        return rng.choice(options)
