"""A small driver for the `n_lives` ruleset in tests (pure engine, no store, no board).

`Game(hands=...)` deals the hands a test names (in discard order, the last one the 底牌), so
every rule can be checked against a known position."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tianshen.core.model import DeadlineIn, GameState, Outcome, PmIn, PostIn
from tianshen.core.ruleset import GameSetup, Seat
from tianshen.rules import load_ruleset
from tianshen.rules.n_lives import cards

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)

# A 6-player table used by most tests: 甲 killer, 乙 werewolf, 丙 丁 戊 civilians, 己 self-chooser.
FACTIONS_6 = {"甲": "killer", "乙": "werewolf", "丙": "civilian", "丁": "civilian", "戊": "civilian", "己": "chooser"}
HANDS_6 = {
    "甲": ["庶民", "占卜/束魂", "必杀/特赦", "杀手"],
    "乙": ["庶民", "先知/巫医", "禁锢/反狙击", "狼人"],
    "丙": ["庶民", "防弹衣/狼毒", "诅咒/庇佑", "狙击手/圣人"],
    "丁": ["庶民", "占卜/束魂", "必杀/特赦", "防弹衣/狼毒"],
    "戊": ["庶民", "庶民", "先知/巫医", "禁锢/反狙击"],
    "己": ["庶民", "庶民", "诅咒/庇佑", "狙击手/圣人"],
}


def decl(tag: str = "【宣言】", n: int = 110) -> str:
    """A declaration of `n` non-whitespace characters starting with a unique tag (§3.4.2)."""
    body = tag + "月黑风高的夜里有人推开了那扇吱呀作响的木门" * 10
    return body[:n]


class Game:
    def __init__(self, factions: dict[str, str] | None = None, hands: dict[str, list[str]] | None = None,
                 seed: int = 5, attributes: dict | None = None, deal: bool = False, players: int = 6) -> None:
        self.ruleset = load_ruleset("n_lives")
        if deal:
            factions = factions or {}
            names = list("甲乙丙丁戊己庚")[:players]
            setup: dict = {}
        else:
            factions = factions if factions is not None else FACTIONS_6
            names = list((hands or HANDS_6).keys())
            setup = {"hands": hands or HANDS_6, "attributes": attributes or {}}
        self.setup_out = self.ruleset.setup(GameSetup(seats=[Seat(name=n) for n in names], seed=seed, start=T0,
                                                      fixed_roles=factions, setup=setup))
        self.state: GameState = self.setup_out.state
        self.now = T0
        self.history: list[Outcome] = [self.setup_out]
        self._n = 0

    def _id(self, kind: str) -> str:
        self._n += 1
        return f"{kind}{self._n}"

    def at(self, hours: float) -> datetime:
        return self.now + timedelta(hours=hours)

    def _apply(self, event) -> Outcome:
        out = self.ruleset.apply(self.state, event)
        self.state = out.state
        self.history.append(out)
        return out

    def pm(self, sender: str, text: str, hours: float = 1.0) -> Outcome:
        return self._apply(PmIn(id=self._id("pm"), sender=sender, at=self.at(hours), text=text))

    def post(self, author: str, text: str, hours: float = 1.0, thread: str | None = None, **kw) -> Outcome:
        thread = thread or f"vote:{self.state.phase.number}"
        return self._apply(PostIn(id=self._id("post"), thread=thread, author=author, at=self.at(hours),
                                  text=text, **kw))

    def advance(self, kind: str | None = None) -> Outcome:
        due = self.ruleset.next_deadline(self.state)
        assert due is not None and (kind is None or due.kind == kind), f"expected {kind}, the game expects {due}"
        out = self._apply(DeadlineIn(id=self._id("dl"), at=due.at, kind=due.kind))
        self.now = due.at
        return out

    def dawn(self) -> Outcome:
        if self.state.data.get("checkin"):
            for p in self.state.players:  # everyone checks in (§5.2)
                if p.alive:
                    self.post(p.name, "签到", 0.5, thread="main")
            self.advance("checkin_end")
        return self.advance("dawn")

    def vote(self, votes: dict[str, str], hours: float = 1.0) -> None:
        for voter, target in votes.items():
            self.post(voter, f"投票 {target}", hours)

    def dusk(self, votes: dict[str, str] | None = None) -> Outcome:
        if votes:
            self.vote(votes)
        return self.advance("dusk")

    # ---- reading -----------------------------------------------------------------------

    def hand(self, name: str) -> list[str]:
        p = self.state.player(name)
        return [cards.name_of(self.ruleset.spec, self.state, c) for c in cards.hand(p)]

    def ap(self, name: str) -> int:
        return int(self.state.player(name).extra["ap"])

    def alive(self, name: str) -> bool:
        return self.state.player(name).alive


def main_posts(out: Outcome) -> str:
    return "\n".join(p.body for p in out.posts if p.thread == "main")


def pms_to(out: Outcome, name: str) -> str:
    return "\n".join(m.body for m in out.pms if m.to == name)
