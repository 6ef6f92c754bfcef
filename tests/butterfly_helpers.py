"""A small driver for `butterfly_elder` in tests: holds the state, sends PMs and posts at a
given number of hours into the current phase (or step), and fires the deadlines."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tianshen.core.model import DeadlineIn, GameState, GmIn, Outcome, PmIn, PostIn
from tianshen.core.ruleset import GameSetup, Seat
from tianshen.rules import load_ruleset

T0 = datetime(2024, 3, 1, 20, 0, tzinfo=UTC)

ROLES = {
    "甲": "killer", "乙": "killer", "丙": "killer", "丁": "police", "戊": "sniper", "己": "doctor",
    "庚": "butterfly", "辛": "elder", "壬": "villager", "癸": "villager", "子": "villager", "丑": "villager",
    "寅": "villager", "卯": "villager", "辰": "villager", "巳": "villager",
}
KILLER, POLICE, SNIPER, DOCTOR, BUTTERFLY, ELDER = "甲", "丁", "戊", "己", "庚", "辛"
VILLAGERS = ["壬", "癸", "子", "丑", "寅", "卯", "辰", "巳"]


class Game:
    def __init__(self, seed: int = 7, roles: dict[str, str] | None = None, options: dict | None = None) -> None:
        self.ruleset = load_ruleset("butterfly_elder")
        if options:
            self.ruleset.spec.options.update(options)
        roles = ROLES if roles is None else roles
        seats = [Seat(name=n, forum_name=f"真身{n}") for n in ROLES]
        self.setup_out = self.ruleset.setup(GameSetup(seats=seats, seed=seed, start=T0, fixed_roles=roles))
        self.state: GameState = self.setup_out.state
        self.now = T0  # the moment the current phase or step began
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

    def pm(self, sender: str, text: str, hours: float = 1.0, at: datetime | None = None) -> Outcome:
        return self._apply(PmIn(id=self._id("pm"), sender=sender, at=at or self.at(hours), text=text))

    def post(self, author: str, text: str, hours: float = 1.0, thread: str | None = None,
             at: datetime | None = None, edited: bool = False, original: str | None = None) -> Outcome:
        thread = thread or f"vote:{self.state.phase.number}"
        return self._apply(PostIn(id=self._id("post"), thread=thread, author=author, at=at or self.at(hours),
                                  text=text, edited=edited, original_text=original))

    def gm(self, command: str, after: float = 1.0, reason: str = "测试", **args) -> Outcome:
        """A GM override `after` hours into the phase (its own `hours` argument is an arg)."""
        return self._apply(GmIn(id=self._id("gm"), at=self.at(after), command=command, args=args, reason=reason))

    def advance(self, kind: str) -> Outcome:
        due = self.ruleset.next_deadline(self.state)
        assert due is not None and due.kind == kind, f"expected deadline {kind}, the game expects {due}"
        out = self._apply(DeadlineIn(id=self._id("dl"), at=due.at, kind=due.kind))
        self.now = due.at
        return out

    # ---- shortcuts ---------------------------------------------------------------------

    def powers(self, actions: dict[str, str] | None = None) -> Outcome:
        """Send the round's PMs (name -> text), close the window, post the results."""
        for name, text in (actions or {}).items():
            self.pm(name, text)
        self.advance("powers_end")
        return self.advance("results")

    def day(self, votes: dict[str, str] | None = None, chat: bool = True) -> Outcome:
        """Every living player says something (补充 二), the votes are posted, the vote ends."""
        if chat:
            for name in self.living():
                self.post(name, "我来说两句", thread="main", hours=0.5)
        for voter, text in (votes or {}).items():
            self.post(voter, text if text.startswith(("投", "弃")) else f"投票 {text}")
        return self.advance("vote_end")

    def alive(self, name: str) -> bool:
        return self.state.player(name).alive

    def living(self) -> list[str]:
        return [p.name for p in self.state.players if p.alive]

    def view(self, name: str) -> dict:
        return self.ruleset.player_view(self.state, name)


def main_posts(out: Outcome) -> str:
    return "\n".join(p.body for p in out.posts if p.thread == "main")


def pms_to(out: Outcome, name: str) -> list[str]:
    return [m.body for m in out.pms if m.to == name]
