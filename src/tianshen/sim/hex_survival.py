"""Simulated players for `hex_survival` (seed 003): they write the PMs and vote posts a
person would, from what a player knows (his camp, HP, statuses, cell and tonight's list).

Nights: attack someone on the list, rarely oneself, sometimes nobody; a low-HP player
prefers the weakest-looking target.  Days: dig when hungry or in a fresh cell, otherwise
move one cell (never while paralysed; no digging while drunk; nothing while confused);
vote in the thread, a few change once by a new post, a few delegate by PM, a few forget.
Choices come from a RNG seeded by the game seed and the phase, so a rehearsal repeats.
"""

from __future__ import annotations

import random
from datetime import datetime
from functools import cache

from tianshen.core.abilities import table
from tianshen.core.model import GameState, Player
from tianshen.core.spec import RulesetSpec
from tianshen.forum.base import PlayerSide
from tianshen.rules import load_ruleset
from tianshen.sim import ThreadLookup, check_in, in_draw_order
from tianshen.specs import shared_spec

VOTE_FORMS = ("投票 {t}", "投票：{t}\n理由：昨天的发言前后矛盾。", "投 {t}")


class HexSims:
    def __init__(self, board: PlayerSide, gm_account: str, seed: int) -> None:
        self.board, self.gm, self.seed = board, gm_account, seed
        self.checked_in: set[str] = set()
        self.dug: dict[str, set[str]] = {}  # what each player remembers digging
        self.acted: set[str] = set()
        self._map = None

    def know(self, spec: RulesetSpec) -> None:
        """Nothing to keep: the words come from `_forms`, read once per process."""

    def act(self, state: GameState, at: datetime, thread: ThreadLookup) -> None:
        ph = state.phase
        main = thread("main")
        if state.data.get("checkin") and main:
            check_in(self.board, state, main, self.checked_in)
        point = f"{ph.label}:{ph.step}"
        if point in self.acted:
            return
        if ph.kind == "night":
            self.acted.add(point)
            self.night(state)
        elif ph.kind == "day" and (vote := thread(f"vote:{ph.number}")) is not None:
            self.acted.add(point)
            self.day(state)
            self.vote(state, vote)

    def _rng(self, state: GameState, what: str) -> random.Random:
        return random.Random(f"{self.seed}:{state.phase.label}:{what}")

    def _neighbours(self, state: GameState, cell: str) -> list[str]:
        if self._map is None:
            self._map = _map_of(state.variant)
        return list(self._map.neighbours[cell])  # type: ignore[attr-defined]

    # ---- nights ---------------------------------------------------------------------

    def night(self, state: GameState) -> None:
        rng = self._rng(state, "night")
        for p in state.alive():
            if "lost" in p.extra["statuses"]:
                continue
            listed = list(p.extra.get("range", []))
            others = [n for n in listed if n != p.name]
            roll = rng.random()
            if roll < 0.08 or not listed:
                continue  # 003 §4.1: 可以放弃攻击权力
            if roll < 0.1 or not others:
                target = p.name  # 003 §4.1: 可以攻击自己
            else:
                target = rng.choice(others)
            self.board.pm(p.name, self.gm, rng.choice(_forms(state.variant, "attack")).format(t=target), subject="攻击")

    # ---- days -----------------------------------------------------------------------

    def day(self, state: GameState) -> None:
        rng = self._rng(state, "day")
        for p in state.alive():
            held = p.extra["statuses"]
            if "confused" in held:
                continue  # 003 §5.3.4: the action repeats by itself
            cell = p.extra["cell"]
            fresh = cell not in self.dug.setdefault(p.name, set())
            want_dig = int(p.extra["hp"]) <= 30 or fresh and rng.random() < 0.6
            if "drunk" in held or (not want_dig and "paralysed" not in held):
                if "paralysed" in held:
                    continue
                self._move(p, cell, state, rng)
            elif rng.random() < 0.95:
                self.dug[p.name].add(cell)
                self.board.pm(p.name, self.gm, rng.choice(_forms(state.variant, "dig")), subject="挖掘")

    def _move(self, p: Player, cell: str, state: GameState, rng: random.Random) -> None:
        options = self._neighbours(state, cell)
        unknown = [c for c in options if c not in self.dug.get(p.name, set())]
        to = rng.choice(unknown or options)
        self.board.pm(p.name, self.gm, rng.choice(_forms(state.variant, "move")).format(c=to), subject="移动")

    def vote(self, state: GameState, thread_id: str) -> None:
        """003 §9: one vote each; some change once by a new post, some delegate, few forget."""
        rng = self._rng(state, "vote")
        alive = state.alive()
        counts: dict[str, int] = {}
        for p in in_draw_order(rng, alive):
            roll = rng.random()
            if roll < 0.04:
                continue  # forgot: counts as a vote for himself (§9.5)
            target = self._choose(p, alive, counts, rng)
            counts[target] = counts.get(target, 0) + 1
            if roll < 0.12:
                self.board.pm(p.name, self.gm, f"委托投票 {target}", subject="委托投票")  # §9.9
                continue
            self.board.post(p.name, thread_id, rng.choice(VOTE_FORMS).format(t=target))
            if rng.random() < 0.15:  # §9.3: one change, by a new post
                again = self._choose(p, alive, counts, rng)
                self.board.post(p.name, thread_id, f"改票：投票 {again}")

    def _choose(self, p: Player, alive: list[Player], counts: dict[str, int], rng: random.Random) -> str:
        options = [q.name for q in alive if q.name != p.name] or [p.name]
        if counts and rng.random() < 0.5:
            leader = max(counts, key=lambda c: counts[c])
            if leader in options:
                return leader
        return rng.choice(options)


@cache
def _map_of(variant: str) -> object:
    """The variant's map, read once per process (a Monte Carlo run plays thousands of games)."""
    return load_ruleset(variant).map  # type: ignore[attr-defined]


@cache
def _forms(variant: str, ability: str) -> tuple[str, ...]:
    """What a player writes for an action: its `sim_forms` in the variant's TOML (core.abilities)."""
    return tuple(table(shared_spec(variant)).by_id[ability].get("sim_forms"))
