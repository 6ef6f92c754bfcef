"""A small driver for `hex_survival` in tests (pure engine): fixed camps and cells, PMs and
posts at a number of hours into the current phase, deadlines on demand, and direct access
to HP, statuses and the buried food so a test can stage a situation from the rule text."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tianshen.core.model import DeadlineIn, GameState, Outcome, PmIn, PostIn
from tianshen.core.ruleset import GameSetup, Seat
from tianshen.rules import load_ruleset

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
NAMES12 = ["甲", "乙", "丙", "丁", "戊", "己", "庚", "辛", "壬", "癸", "子", "丑"]
CAMPS12 = {n: ("red" if i < 6 else "blue") for i, n in enumerate(NAMES12)}
# far apart on the default map (circulant ±1, ±3, ±4): a1 and c3 are not neighbours
CELLS12 = {"甲": "a1", "乙": "a2", "丙": "a3", "丁": "a4", "戊": "b1", "己": "b2",
           "庚": "b3", "辛": "b4", "壬": "c1", "癸": "c2", "子": "c3", "丑": "c4"}


class Hex:
    def __init__(self, camps: dict[str, str] | None = None, cells: dict[str, str] | None = None,
                 seed: int = 7, variant: str = "hex_survival_12", checkin: bool = True,
                 substitutes: list[str] | None = None, options: dict | None = None) -> None:
        self.ruleset = load_ruleset(variant)
        self.ruleset.spec.options.update(options or {})  # a GM's DECISIONS setting
        names = list((camps or CAMPS12).keys())
        setup = GameSetup(seats=[Seat(name=n) for n in names], seed=seed, start=T0,
                          fixed_roles=camps or CAMPS12, setup={"cells": cells or CELLS12},
                          substitutes=substitutes or [])
        self.setup_out = self.ruleset.setup(setup)
        self.state: GameState = self.setup_out.state
        self.now = T0
        self._n = 0
        if checkin:  # 003 §7.2: everyone checks in, then the window closes
            for p in self.state.players:
                self.post(p.name, "签到", thread="main", hours=0.5)
            self.state.data.pop("checkin", None)

    # ---- inputs ----------------------------------------------------------------------

    def _id(self, kind: str) -> str:
        self._n += 1
        return f"{kind}{self._n}"

    def at(self, hours: float) -> datetime:
        return self.now + timedelta(hours=hours)

    def apply(self, event) -> Outcome:
        out = self.ruleset.apply(self.state, event)
        self.state = out.state
        return out

    def pm(self, sender: str, text: str, hours: float = 1.0) -> Outcome:
        return self.apply(PmIn(id=self._id("pm"), sender=sender, at=self.at(hours), text=text))

    def post(self, author: str, text: str, hours: float = 1.0, thread: str | None = None,
             edited: bool = False, original: str | None = None) -> Outcome:
        thread = thread or f"vote:{self.state.phase.number}"
        return self.apply(PostIn(id=self._id("post"), thread=thread, author=author, at=self.at(hours),
                                 text=text, edited=edited, original_text=original))

    def advance(self, kind: str | None = None) -> Outcome:
        due = self.ruleset.next_deadline(self.state)
        assert due is not None and (kind is None or due.kind == kind), f"expected {kind}, the game expects {due}"
        out = self.apply(DeadlineIn(id=self._id("dl"), at=due.at, kind=due.kind))
        self.now = due.at
        return out

    def dawn(self) -> Outcome:
        return self.advance("night_end")

    def dusk(self) -> Outcome:
        return self.advance("day_end")

    def vote_all(self, target: str, hours: float = 1.0) -> None:
        """Every living player votes `target` (the target votes himself)."""
        for p in self.state.players:
            if p.alive:
                self.post(p.name, f"投票 {target}", hours)

    # ---- state -------------------------------------------------------------------------

    def hp(self, name: str) -> int:
        return int(self.state.player(name).extra["hp"])

    def set_hp(self, name: str, hp: int) -> None:
        self.state.player(name).extra["hp"] = hp

    def statuses(self, name: str) -> dict:
        return self.state.player(name).extra["statuses"]

    def cell(self, name: str) -> str:
        return self.state.player(name).extra["cell"]

    def bury(self, cell: str, layers: list[str | None]) -> None:
        self.state.data["buried"][cell] = list(layers)

    def alive(self, name: str) -> bool:
        return self.state.player(name).alive


def main_posts(out: Outcome) -> str:
    return "\n".join(p.body for p in out.posts if p.thread == "main")


def pms_to(out: Outcome, name: str) -> list[str]:
    return [m.body for m in out.pms if m.to == name]
