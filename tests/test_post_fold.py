"""A post's and a deadline's fold (issue 37): the shared mechanics make no messages of their
own when they have nothing to say — a living author's post (the shared activity watch notes
only a dead author's, 诈尸, unless the variant counts posts), a deadline without a lurking
quota; a family's own `watch_activity` still sees every post."""

from __future__ import annotations

from datetime import datetime

import pytest

from tianshen.core import ruleset as core_ruleset
from tianshen.core.model import PostIn
from tianshen.core.outbox import Messages
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game


def _count_messages(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    made = [0]

    class Counted(Messages):
        __slots__ = ()

        def __init__(self) -> None:
            made[0] += 1
            super().__init__()

    monkeypatch.setattr(core_ruleset, "Messages", Counted)
    return made


@pytest.mark.parametrize("variant", ["classic_8", "classic_10", "classic_13"])  # (no lurking quota)
def test_a_living_authors_post_makes_no_messages_of_the_shared_mechanics(
        variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    made = _count_messages(monkeypatch)
    ruleset = load_ruleset(variant)
    posts = 0

    class Counted(Game):
        def fold(self, event):  # type: ignore[no-untyped-def]
            nonlocal posts
            author = self.state.find(event.author) if isinstance(event, PostIn) else None
            living = author is not None and author.alive and not self.state.data.get("checkin")
            made[0] = 0
            super().fold(event)
            if isinstance(event, PostIn) and living and not self.state.data.get("substitution"):
                posts += 1
                assert made[0] == 0, event

    for seed in range(2):
        Counted(ruleset, seed, ruleset.spec.players).play()
    assert posts > 20


def test_a_familys_own_watch_sees_every_post() -> None:
    seen: list[str] = []
    classic = type(load_ruleset("classic_10"))

    class Watching(classic):  # type: ignore[misc, valid-type]
        def watch_activity(self, state, post, out):  # type: ignore[no-untyped-def]
            seen.append(post.author)

    ruleset = Watching(load_ruleset("classic_10").spec)
    game = Game(ruleset, 1, 10)
    game.play()
    assert game.state.winner and len(seen) > 20


@pytest.mark.parametrize("variant", ["classic_8", "classic_10", "classic_13"])  # (no lurking quota)
def test_a_deadline_without_a_lurking_quota_asks_no_lurkers(variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shared `report_lurkers` has nothing to say without a quota: neither it nor the
    messages for it are made (a family's own, butterfly_elder's, is asked at every deadline:
    tests/test_butterfly_elder_game.py)."""
    asked: list[str] = []
    real = core_ruleset.Ruleset.report_lurkers

    def report(self, state, at, out):  # type: ignore[no-untyped-def]
        asked.append(state.phase.kind)
        return real(self, state, at, out)

    monkeypatch.setattr(core_ruleset.Ruleset, "report_lurkers", report)
    ruleset = load_ruleset(variant)
    assert "analysis_quota" not in ruleset.spec.options
    game = Game(ruleset, 1, ruleset.spec.players)
    game.play()
    assert game.state.winner and asked == []


def test_a_familys_own_lurkers_are_asked_at_every_deadline() -> None:
    asked: list[str] = []
    classic = type(load_ruleset("classic_10"))

    class Reporting(classic):  # type: ignore[misc, valid-type]
        def report_lurkers(self, state, at, out):  # type: ignore[no-untyped-def]
            asked.append(state.phase.kind)
            out.notes.append("潜水：测试")

    ruleset = Reporting(load_ruleset("classic_10").spec)
    game = Game(ruleset, 1, 10)
    game.play()
    assert game.state.winner and len(asked) > 5
    assert sum("潜水：测试" in o.notes for o in game.outcomes) == len(asked)


def test_a_vote_thread_is_closed_as_its_name_reads() -> None:
    """`vote_closed` compares the post's thread with the day's vote thread, made once per
    number and the number's class (`ballots._VOTE_THREADS`: 1 and True are one key without it)."""
    from tianshen.core import ballots
    from tianshen.core.model import GameState, Phase, Player
    from tianshen.core.model import PostIn as Post

    at = datetime(2026, 1, 1)
    rs = load_ruleset("classic_10")
    for number in (1, True, 2, 1, True):
        state = GameState(ruleset="classic", variant="classic_10", seed=1,
                          players=[Player(name="甲", forum_name="a", seat=1)], phase=Phase(kind="day", number=number))
        for thread in ("vote:1", "vote:True", "vote:2", "main"):
            post = Post(id="1", thread=thread, author="甲", at=at, text="x")
            assert rs.vote_closed(state, post) is (thread != f"vote:{number}")
        state.phase.kind = "night"
        assert rs.vote_closed(state, Post(id="1", thread=f"vote:{number}", author="甲",
                                          at=at, text="x"))
    assert (1, int) in ballots._VOTE_THREADS and (True, bool) in ballots._VOTE_THREADS
