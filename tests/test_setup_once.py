"""What `Ruleset.setup` keeps from one game to the next (issue 37): the player list's title,
the role PM's subject, each role PM and alias by what it is made of.  A game set up by a
ruleset that has set up others says what it says set up by a new ruleset."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tianshen.core import ruleset as core_ruleset
from tianshen.core.ruleset import GameSetup, Seat
from tianshen.rules import load_ruleset

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _setup(seed: int, players: int, vest: str = "甲") -> GameSetup:
    return GameSetup(seats=[Seat(name=f"{vest}{i + 1}号", forum_name=f"玩家{i + 1:02d}") for i in range(players)],
                     seed=seed, start=START)


def _texts(outcome) -> list[tuple[str, str, str]]:  # type: ignore[no-untyped-def]
    return ([(post.thread, post.title or "", str(post.body)) for post in outcome.posts]
            + [(pm.to, pm.subject, str(pm.body)) for pm in outcome.pms])


@pytest.mark.parametrize(("variant", "players"), [("classic_10", 10), ("classic_13", 13), ("classic_8", 8),
                                                  ("game_ten", 0), ("butterfly_elder", 0)])
def test_a_kept_role_pm_is_the_one_made_anew(variant: str, players: int) -> None:
    """Seeds deal the same seat the same role with other partners (or another duty): each
    game's texts by one ruleset kept across the seeds, as by a new ruleset each game."""
    shared = load_ruleset(variant)
    players = players or shared.spec.players
    for seed in range(12):
        setup = _setup(seed, players)
        assert _texts(shared.setup(setup)) == _texts(load_ruleset(variant).setup(setup))


def test_partners_are_part_of_the_key() -> None:
    """Two seeds where a seat holds one role with other partners: two role PMs."""
    rs = load_ruleset("classic_13")
    seen: dict[tuple[str, str], set[str]] = {}
    for seed in range(12):
        out = rs.setup(_setup(seed, 13))
        for p, pm in zip(out.state.players, out.pms, strict=True):
            seen.setdefault((p.name, p.role), set()).add(str(pm.body))
    assert any(len(texts) > 1 for texts in seen.values())


def test_an_alias_follows_the_name() -> None:
    """The same accounts under other 马甲: each role PM names its own 马甲."""
    rs = load_ruleset("classic_10")
    first = rs.setup(_setup(1, 10))
    other = rs.setup(_setup(1, 10, vest="乙"))
    for p, pm in zip(other.state.players, other.pms, strict=True):
        assert p.name in str(pm.body)
    assert [str(pm.body) for pm in first.pms] != [str(pm.body) for pm in other.pms]


def test_the_kept_role_pms_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(core_ruleset, "_KEPT_MOST", 15)
    rs = load_ruleset("classic_10")
    for seed in range(8):
        rs.setup(_setup(seed, 10))
        assert len(rs._kept.role_pms) <= 15
        assert len(rs._kept.aliases) <= 15


def test_each_game_gets_its_own_players() -> None:
    """The players of a table kept across games: each game's are copies, named as its seats."""
    rs = load_ruleset("classic_10")
    one, two = rs.setup(_setup(1, 10)), rs.setup(_setup(2, 10))
    other = rs.setup(_setup(1, 10, vest="乙"))
    assert [p.name for p in other.state.players] == [f"乙{i + 1}号" for i in range(10)]
    for p, q in zip(one.state.players, two.state.players, strict=True):
        assert p is not q and p.extra is not q.extra
    one.state.players[0].extra["x"] = 1
    assert rs.setup(_setup(3, 10)).state.players[0].extra == {}
