"""One count (issue 34): the page's count of a closed day is the board's.

Over random play with the simulated players of every variant, the web page's closed-day
count (views.vote_counts over the stored inputs) must equal the board's result post, read
back from the post's own text: the same candidates in the same order, the same totals after
modifiers, the same executed or punished players; and the same after `admin void-vote` and
`admin enter-vote` during the votes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta

import pytest

from tianshen.core.events import tallies
from tianshen.core.model import GmIn, Outcome, PmIn, PostIn
from tianshen.core.ruleset import GameSetup
from tianshen.core.tally import DELEGATED, SELF, DayTally
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game
from tianshen.sim.rehearsal import DEFAULT_START, default_seats
from tianshen.specs import available_variants, load_spec
from tianshen.web import views

CASES = [(v, n) for v in available_variants() for n in (load_spec(v).player_counts or [load_spec(v).players])]
IDS = [f"{v}-{n}" for v, n in CASES]
NO_LINKS = views.PostLinks((None, None), {})


@dataclass
class Row:
    """A stored event as the store gives it (core.fold.StoredEvent)."""

    seq: int
    kind: str
    payload_json: str


class RecordedGame(Game):
    """A pure-core game that keeps its inputs, as the store's event log would."""

    def __init__(self, variant: str, seed: int, players: int) -> None:
        self.inputs: list[PmIn | PostIn | GmIn] = []
        self.setup = GameSetup(seats=default_seats(players), seed=seed, start=DEFAULT_START)
        super().__init__(load_ruleset(variant), seed, players)

    def fold(self, event) -> None:  # type: ignore[no-untyped-def]
        self.inputs.append(event)
        super().fold(event)

    def events(self) -> list[Row]:
        return [Row(0, "setup", self.setup.model_dump_json()),
                *(Row(i + 1, "input", e.model_dump_json()) for i, e in enumerate(self.inputs))]

    def play_with(self, overrides: bool) -> None:
        """`Game.play`, stepping by hand; with `overrides`, in each day's vote the GM voids
        the first ballot cast and enters one for a voter who has none."""
        done: set[int] = set()
        for _ in range(400):
            deadline = self.ruleset.next_deadline(self.state)
            if deadline is None:
                return
            self.now = max(self.now, min(self.now + timedelta(hours=1), deadline.at - timedelta(minutes=1)))
            self.sims.act(self.state, self.now, self.thread)
            self.advance(self._read())  # the posts and PMs, no deadline yet
            if overrides and self.state.phase.kind == "day" and self.state.phase.number not in done:
                if self._override():
                    done.add(self.state.phase.number)
            self.now = max(self.now, deadline.at)
            self.advance([])
        raise AssertionError("the game did not end")

    def _override(self) -> bool:
        ballots = views.ballot_map(self.ruleset, self.state)
        voters = [v for v, t in ballots.items() if t]
        if not voters:
            return False
        self._gm("void-vote", player=voters[0])
        alive = [p.name for p in self.state.players if p.alive]
        others = [n for n in alive if n not in views.ballot_map(self.ruleset, self.state)]
        if others:
            self._gm("enter-vote", player=others[0], target=alive[-1])
        return True

    def _gm(self, command: str, **args: object) -> None:
        self.fold(GmIn(id=f"gm-{len(self.inputs)}", at=self.now, command=command, args=args, reason="测试"))
        self.gm_results.append((command, not self.outcomes[-1].refusals))

    gm_results: list[tuple[str, bool]]


# ---- the board's result post, read back from its text --------------------------------------

TABLE = {  # family -> a row of the result post's count: name, votes before modifiers (or None), total
    "classic": re.compile(r"^\| (\S+) \| ()(\d+)票 \|"),
    "game_ten": re.compile(r"^\| (\S+) \| ()(\d+)票 \|"),
    "hex_survival": re.compile(r"^\| (\S+) \| ()(\d+)票 \|"),
    "n_lives": re.compile(r"^\| (\S+) \| (?:(\d+)→)?(\d+) \|"),
    "butterfly_elder": re.compile(r"^(\S+)：()(\d+)票（"),
}
EXECUTED = {
    "classic": re.compile(r"\*\*(\S+?)\*\*被投票处决"),
    "game_ten": re.compile(r"\*\*(\S+?)\*\*被投票处决"),
    "n_lives": re.compile(r"^(\S+?)被处决，", re.M),
    "butterfly_elder": re.compile(r"\*\*(\S+?)\*\*得票最高，出局"),
}


def board_count(family: str, body: str) -> tuple[list[tuple[str, int]], list[str]]:
    """(rows of the first count table: name, total), executed, as the post says them."""
    rows: list[tuple[str, int]] = []
    for line in body.split("\n"):
        m = TABLE[family].match(line)
        if m:
            rows.append((m.group(1), int(m.group(3))))
        elif rows and not line.startswith("|") and family != "butterfly_elder":
            break  # the first table only (classic's 生死投票 comes in a later post)
    if family == "butterfly_elder" and (zero := re.search(r"对\*\*(\S+?)\*\*行使了归零", body)):
        rows = [(n, 0 if n == zero.group(1) else c) for n, c in rows]
    if family == "hex_survival":
        m = re.search(r"被惩处：\*\*(.+?)\*\*", body)
        return rows, m.group(1).split("、") if m else []
    return rows, EXECUTED[family].findall(body)


def page_and_board(game: RecordedGame) -> list[tuple[int, list, list, list, list]]:
    """For each day the page shows closed: (day, page rows, board rows, page executed,
    board executed)."""
    family = game.ruleset.spec.ruleset
    counts = views.vote_counts(game.ruleset, game.events(), NO_LINKS)
    closing: dict[int, list[Outcome]] = {}
    for outcome in game.outcomes:
        for count in tallies(outcome.events):
            closing.setdefault(count.day, []).append(outcome)
    out = []
    for number, day in counts.items():
        if not day.closed or number not in closing:
            continue
        posts = [p.body for o in closing[number] for p in o.posts if p.thread == "main"]
        board_rows, _ = board_count(family, posts[0])
        board_executed = [n for body in posts for n in board_count(family, body)[1]]
        out.append((number, [(r.target, r.votes) for r in day.rows], board_rows, day.executed, board_executed))
    return out


def _played(variant: str, players: int, seed: int, overrides: bool) -> RecordedGame:
    game = RecordedGame(variant, seed, players)
    game.gm_results = []
    game.play_with(overrides)
    return game


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
@pytest.mark.parametrize("seed", [1, 2])
def test_the_pages_closed_day_count_is_the_result_posts(variant: str, players: int, seed: int) -> None:
    game = _played(variant, players, seed, overrides=False)
    days = page_and_board(game)
    assert days, "no day was counted"
    for number, page_rows, board_rows, page_executed, board_executed in days:
        assert page_rows == board_rows, f"day {number}"
        assert page_executed == board_executed, f"day {number}"


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
@pytest.mark.parametrize("seed", [3, 5])  # classic_8 seed 5: a 生死投票 and a 招魂 round
def test_the_count_is_the_result_posts_after_void_vote_and_enter_vote(variant: str, players: int, seed: int) -> None:
    game = _played(variant, players, seed, overrides=True)
    assert ("void-vote", True) in game.gm_results and ("enter-vote", True) in game.gm_results, game.gm_results
    for number, page_rows, board_rows, page_executed, board_executed in page_and_board(game):
        assert page_rows == board_rows, f"day {number}"
        assert page_executed == board_executed, f"day {number}"


# ---- the wrong counts of issue 34, items 1–5 ---------------------------------------------------


def _closed(variant: str, seed: int) -> tuple[dict[int, views.DayCount], list[DayTally]]:
    game = _played(variant, load_spec(variant).players, seed, overrides=False)
    return (views.vote_counts(game.ruleset, game.events(), NO_LINKS),
            [t for o in game.outcomes for t in tallies(o.events) if t.ballot == "main"])


@pytest.mark.parametrize(("variant", "seed"), [("hex_survival_12", 2), ("n_lives", 2)])
def test_item1_a_proxy_vote_is_in_the_closed_count(variant: str, seed: int) -> None:
    counts, closes = _closed(variant, seed)
    proxies = [(t, b) for t in closes for b in t.ballots if b.how == DELEGATED]
    assert proxies
    for t, b in proxies:
        day = counts[t.day]
        row = next(r for r in day.rows if r.target == b.target)
        assert [x.how for x in row.ballots if x.voter == b.voter and not x.struck] == ["委托"]
        assert b.voter not in day.not_voting
        assert row.votes == t.total(b.target)
    if variant == "hex_survival_12":  # §9.9: posted at once, so the running count takes it too
        assert any(h.post == "" and not h.line.startswith("截止") for d in counts.values() for h in d.history)


def test_item2_n_lives_counts_cards_and_names_the_executed() -> None:
    counts, closes = _closed("n_lives", 2)
    weighed = 0
    for t in closes:
        day = counts[t.day]
        assert [(r.target, r.votes) for r in day.rows] == [(r.name, r.total) for r in t.rows]
        for r in day.rows:
            live = [b for b in r.ballots if not b.struck]
            assert r.raw == sum(b.weight or 0 for b in live)
            weighed += r.raw != len(live)
        assert day.executed == list(t.executed) and day.verdict == "被处决"
    assert weighed and any(len(t.executed) >= 2 for t in closes)


@pytest.mark.parametrize(("variant", "seed"), [("classic_10", 1), ("game_ten", 2)])
def test_item3_curse_and_bless_are_in_the_closed_count(variant: str, seed: int) -> None:
    counts, closes = _closed(variant, seed)
    modified = [(t, r) for t in closes for r in t.rows if r.votes != r.total]
    assert modified
    for t, r in modified:
        row = next(x for x in counts[t.day].rows if x.target == r.name)
        assert (row.votes, row.raw) == (r.total, r.votes)
        assert row.modifier in ("因诅咒多计一票", "因庇佑少计一票") and row.modifier == r.modifier


def test_item4_hex_counts_a_non_voter_for_himself_and_shows_the_punished() -> None:
    counts, closes = _closed("hex_survival_12", 1)
    selves = [(t, b) for t in closes for b in t.ballots if b.how == SELF]
    assert selves
    for t, b in selves:
        day = counts[t.day]
        row = next(r for r in day.rows if r.target == b.voter)
        assert any(x.voter == b.voter and x.how == "未投票，视为投给自己" for x in row.ballots)
        assert day.not_voting == []
    for t in closes:
        assert counts[t.day].executed == list(t.executed) and counts[t.day].verdict == "受惩处"


@pytest.mark.parametrize("variant", ["classic_10", "n_lives", "hex_survival_12", "butterfly_elder"])
def test_item5_after_void_vote_the_next_vote_is_a_first_vote(variant: str) -> None:
    """The GM voids A's vote: A's unreadable post is not 「已经投过票」, his next vote is counted
    (计入), not a change (改票), and it is the one the close counts."""
    game = RecordedGame(variant, 1, load_spec(variant).players)
    while not (game.state.phase.kind == "day" and f"vote:{game.state.phase.number}" in game.threads):
        deadline = game.ruleset.next_deadline(game.state)
        assert deadline is not None
        if game.state.phase.kind != "day":  # the nights played, the day's thread left to the test
            game.now = max(game.now, deadline.at - timedelta(minutes=1))
            game.sims.act(game.state, game.now, game.thread)
        game.now = deadline.at
        game.advance(game._read())
    k = game.state.phase.number
    a, b, c = (p.name for p in game.state.alive()[:3])
    game.gm_results = []

    def vote(post_id: str, text: str) -> None:
        game.now += timedelta(minutes=5)
        game.fold(PostIn(id=post_id, thread=f"vote:{k}", author=a, at=game.now, text=text))

    vote("p1", f"投票 {b}")
    game.now += timedelta(minutes=5)
    game._gm("void-vote", player=a)
    assert game.gm_results == [("void-vote", True)]
    vote("p2", "投票 无此人")
    vote("p3", f"投票 {c}")
    day = views.vote_counts(game.ruleset, game.events(), NO_LINKS)[k]
    marks = {p.forum_id: (p.mark, p.note) for p in day.posts}
    assert marks["p1"][0] == "counted"
    assert marks["p2"][0] == "refused" and "已经投过票" not in marks["p2"][1]
    assert marks["p3"] == ("counted", f"投给{c}")
    assert [x.voter for r in day.rows for x in r.ballots if not x.struck] == [a]
    assert next(r for r in day.rows if r.target == b).votes == 0
