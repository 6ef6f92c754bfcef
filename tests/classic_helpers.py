"""A small driver for the `classic` ruleset in tests: holds the state, sends PMs and posts
at a given number of hours into the current phase (or step), and advances deadlines."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tianshen.core.model import DeadlineIn, GameState, Outcome, PmIn, PostIn
from tianshen.core.ruleset import GameSetup, Seat
from tianshen.rules import load_ruleset

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)

# Seats and roles used by most tests (role ids of rulesets/classic_*.toml).
ROLES_8 = {
    "甲": "killer", "乙": "killer", "丙": "diviner", "丁": "binder",
    "戊": "curser", "己": "blesser", "庚": "commoner", "辛": "commoner",
}
ROLES_10 = {
    "甲": "killer", "乙": "killer", "丙": "diviner", "丁": "binder", "戊": "curser",
    "己": "blesser", "庚": "commoner", "辛": "commoner", "壬": "commoner", "癸": "commoner",
}
ROLES_13 = {
    "甲": "killer", "乙": "killer", "丙": "independent_killer", "丁": "diviner", "戊": "diviner",
    "己": "binder", "庚": "binder", "辛": "curser", "壬": "blesser",
    "癸": "commoner", "子": "commoner", "丑": "commoner", "寅": "commoner",
}
ROLES = {8: ROLES_8, 10: ROLES_10, 13: ROLES_13}


def decl(tag: str, n: int = 120) -> str:
    """A declaration of exactly `n` non-whitespace characters that starts with a unique tag,
    so a test can see whether the dawn post published it (002 杀人宣言: 不少于100字)."""
    body = tag + "夜色深沉杀手悄然潜入目标的房间" * 20
    assert len(tag) < n
    return body[:n]


def non_ws_len(text: str) -> int:
    return sum(1 for ch in text if not ch.isspace())


class Game:
    def __init__(self, players: int = 10, roles: dict[str, str] | None = None, seed: int = 7,
                 seats: list[Seat] | None = None, variant: str | None = None,
                 setup: dict | None = None) -> None:
        roles = roles if roles is not None else ROLES[players]
        self.ruleset = load_ruleset(variant or f"classic_{players}")
        seats = seats or [Seat(name=n) for n in (ROLES.get(players) or roles)]
        self.setup_out = self.ruleset.setup(GameSetup(seats=seats, seed=seed, start=T0, fixed_roles=roles,
                                                      setup=setup or {}))
        self.state: GameState = self.setup_out.state
        self.now = T0  # the moment the current phase or step began
        self.history: list[Outcome] = [self.setup_out]
        self._n = 0

    # ---- inputs ----------------------------------------------------------------------

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
             at: datetime | None = None) -> Outcome:
        thread = thread or f"vote:{self.state.phase.number}"
        return self._apply(PostIn(id=self._id("post"), thread=thread, author=author,
                                  at=at or self.at(hours), text=text))

    def advance(self, kind: str) -> Outcome:
        due = self.ruleset.next_deadline(self.state)
        while due is not None and due.kind == "reminder" and kind != "reminder":  # reminders only PM
            self._apply(DeadlineIn(id=self._id("dl"), at=due.at, kind=due.kind))
            due = self.ruleset.next_deadline(self.state)
        assert due is not None and due.kind == kind, f"expected deadline {kind}, the game expects {due}"
        out = self._apply(DeadlineIn(id=self._id("dl"), at=due.at, kind=due.kind))
        self.now = due.at
        return out

    # ---- shortcuts ---------------------------------------------------------------------

    def kill(self, killer: str, target: str, tag: str = "【宣言】", hours: float = 1.0) -> Outcome:
        return self.pm(killer, f"杀 {target}\n{decl(tag)}", hours)

    def dawn(self) -> Outcome:
        return self.advance("night_end")

    def vote_all(self, votes: dict[str, str], hours: float = 1.0) -> list[Outcome]:
        """Open the vote thread (if needed) and post one vote per voter."""
        if self.state.phase.step == "discussion":
            self.advance("vote_open")
        return [self.post(v, f"投票 {t}", hours) for v, t in votes.items()]

    def day(self, votes: dict[str, str]) -> Outcome:
        """Vote and close the main vote; returns the vote_end outcome."""
        self.vote_all(votes)
        return self.advance("vote_end")

    # ---- reading -----------------------------------------------------------------------

    def alive(self, name: str) -> bool:
        return self.state.player(name).alive

    def living(self) -> list[str]:
        return [p.name for p in self.state.players if p.alive]

    def json(self) -> str:
        return self.state.model_dump_json()


def main_posts(out: Outcome) -> str:
    """All text the outcome posted in the main thread."""
    return "\n".join(p.body for p in out.posts if p.thread == "main")


def pms_to(out: Outcome, name: str) -> list[str]:
    return [m.body for m in out.pms if m.to == name]


def pms_with_subject(out: Outcome, name: str, subject: str) -> list[str]:
    return [m.body for m in out.pms if m.to == name and m.subject == subject]
