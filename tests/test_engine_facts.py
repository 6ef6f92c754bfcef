"""Derived facts once per input (issue 37): each player's acting group is worked out once
while the roles stay as they are (`GameState.facts`), and again once a role changes (the
deal, game_ten's conversion: `GameState.roles_changed`)."""

from __future__ import annotations

from classic_helpers import Game
from test_game_ten_rules import ten, vote_out
from tianshen.rules.common import roles
from tianshen.rules.common.roles import KILLERS


def test_the_groups_are_made_once_and_a_copy_shares_them_until_its_roles_change() -> None:
    g = Game(10)
    spec, state = g.ruleset.spec, g.state
    table = roles.groups(spec, state)
    assert roles.groups(spec, state) is table  # made once
    assert table["甲"] == table["乙"] == KILLERS and table["庚"] == "commoner:庚"
    copy = state.copy()
    assert roles.groups(spec, copy) is table  # the same roles: the same table
    new = copy.player("庚")
    new.role, new.faction = "killer", KILLERS
    copy.roles_changed()
    assert roles.group_of(spec, copy, new) == KILLERS
    assert [p.name for p in roles.partners(spec, copy, copy.player("甲"))] == ["乙", "庚"]
    assert roles.groups(spec, state) is table and table["庚"] == "commoner:庚"  # the original's stay
    assert [p.name for p in roles.partners(spec, state, state.player("甲"))] == ["乙"]


def test_a_conversion_gives_the_new_killer_his_group() -> None:
    """001 §2.10: the converted commoner acts with the killers, the converted professional
    with his new role's holders (game_ten's conversion says the roles changed)."""
    g = ten()
    spec = g.ruleset.spec
    before = roles.groups(spec, g.state)
    assert before["子"] == "commoner:子"
    g.kill("甲", "丙")
    g.dawn()
    vote_out(g, "甲")
    assert g.state.player("子").role == "killer"
    assert roles.group_of(spec, g.state, g.state.player("子")) == "killers"
    assert [p.name for p in roles.members(spec, g.state, "killers")] == ["乙", "子"]
    assert roles.group_of(spec, g.state, g.state.player("卯")) == "binder"


def test_the_schedule_reads_the_day_of_a_copy_without_copying_it() -> None:
    """`apply`'s state is a copy whose values are copied when read (core.model.SharedDict);
    asking for the next deadline only looks at the day (core.model.peek), so the day is
    not copied after every step for it."""
    g = Game(10)
    g.dawn()
    assert g.state.phase.kind == "day"
    copied = g.state.copy()
    day = dict.__getitem__(copied.data, "day")
    assert g.ruleset.next_deadline(copied) == g.ruleset.next_deadline(g.state)
    assert dict.__getitem__(copied.data, "day") is day


def test_a_stored_time_is_parsed_once_and_read_the_same() -> None:
    """The schedule reads the state's ISO deadlines at every input: `clock.parse` keeps each
    (the datetime `fromisoformat` gives, the same object again), in a table that stays small."""
    from datetime import UTC, datetime, timedelta

    from tianshen.core import clock

    text = "2026-12-06T12:00:00+00:00"
    at = clock.parse(text)
    assert at == datetime.fromisoformat(text) and clock.parse(text) is at
    start = datetime(2026, 12, 7, tzinfo=UTC)
    for minute in range(5000):
        clock.parse((start + timedelta(minutes=minute)).isoformat())
    assert 0 < len(clock._PARSED) <= 4096


def test_who_must_vote_is_asked_without_the_list_of_voters() -> None:
    """`day.must_vote` (each vote asks it) says what membership in `day.voters` says, at every
    step of Monte Carlo games with 束魂 saves, deaths, 生死投票 and 招魂 rounds."""
    from tianshen.rules import load_ruleset
    from tianshen.rules.common import day
    from tianshen.sim.montecarlo import Game as MonteCarlo

    ruleset = load_ruleset("classic_13")
    asked = 0
    for seed in range(6):
        game = MonteCarlo(ruleset, seed, 13)
        fold = game.fold

        def checked(event, game=game, fold=fold) -> None:
            nonlocal asked
            fold(event)
            kind = day.ballot_kind(game.state)
            if kind is not None and game.state.phase.kind == "day":
                names = {p.name for p in day.voters(game.state, kind)}
                for p in game.state.players:
                    assert day.must_vote(game.state, kind, p) == (p.name in names)
                    asked += 1

        game.fold = checked  # type: ignore[method-assign]
        game.play()
    assert asked > 500


def test_an_input_skips_cleaning_only_what_is_clean() -> None:
    """PmIn/PostIn check their fields inline (every input is made so): `needs_cleaning` is
    true exactly when `clean` changes the text, and a bad field still fails as before."""
    from datetime import UTC, datetime

    import pytest

    from tianshen.core.model import PmIn, PostIn
    from tianshen.core.text import clean, needs_cleaning

    at = datetime(2026, 12, 6, tzinfo=UTC)
    for text in ("投票 甲", "a\r\nb", "x\x00y", "\ud800", "tab\tok\n", "\x85", "", "\x7f"):
        assert needs_cleaning(text) == (clean(text) != text), repr(text)
        pm = PmIn(id="1", sender=text or "甲", at=at, text=text)
        post = PostIn(id="2", thread="vote:1", author=text or "甲", at=at, text=text)
        assert pm.text == post.text == clean(text) and pm.sender == post.author == clean(text or "甲")
    for bad in ({"id": 1}, {"at": "2026-12-06"}, {"text": None}):
        with pytest.raises(TypeError):
            PmIn(**{"id": "1", "sender": "甲", "at": at, "text": "x", **bad})
        with pytest.raises(TypeError):
            PostIn(**{"id": "1", "thread": "main", "author": "甲", "at": at, "text": "x", **bad})
