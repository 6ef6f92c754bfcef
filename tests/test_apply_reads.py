"""`apply` copies a value of `data` only where a fold may change it (issue 37): the reads
that only look — the schedule's options, the kill declarations, the prayers, the extra
divinations of a dawn with no flag, the killer on duty — go through `peek` and copy nothing.  (That nothing
shared is written to is `tests/test_shared_copy.py`'s.)"""

from __future__ import annotations

from collections import Counter

import pytest

from tianshen.core import model
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game


class _ByApply(Game):
    """A game folded by `apply`, each step's state given to the next."""

    def fold(self, event):  # type: ignore[no-untyped-def]
        self.state = self._took(self.ruleset.apply(self.state, event))


def _copies(variant: str, games: int, monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    copied: Counter[str] = Counter()
    mine = model.SharedDict._mine

    def counting(self, key, value):  # type: ignore[no-untyped-def]
        if type(value) not in model._ATOMIC and key not in self._own:
            copied[key] += 1
        return mine(self, key, value)

    monkeypatch.setattr(model.SharedDict, "_mine", counting)
    rs = load_ruleset(variant)
    for seed in range(games):
        _ByApply(rs, seed, rs.spec.players).play()
    return copied


@pytest.mark.parametrize("variant", ["classic_10", "classic_13"])
def test_read_only_values_are_not_copied(variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    copied = _copies(variant, 6, monkeypatch)
    assert copied["day"] > 0  # the counting sees the copies that are made
    for key in ("options", "decl", "extra_divinations"):
        assert copied[key] == 0, (key, copied)


def test_prayers_are_read_without_a_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _copies("classic_10", 6, monkeypatch)["subs"] == 0


def test_the_killer_on_duty_is_read_without_a_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    """classic_8's killers take turns: every kill and every dawn asks whose night it is."""
    assert _copies("classic_8", 6, monkeypatch)["duty_order"] == 0


def _copies_by_input(variant: str, games: int, monkeypatch: pytest.MonkeyPatch,
                     players: int | None = None) -> Counter[tuple[str, str]]:
    """The copies made while folding each kind of input, as (kind, key): a post in a vote
    thread is "vote", in another thread "post"; a PM "pm", a deadline "deadline"; between
    two folds (the sims reading the state) "between"."""
    copied: Counter[tuple[str, str]] = Counter()
    kind = [""]
    mine = model.SharedDict._mine

    def counting(self, key, value):  # type: ignore[no-untyped-def]
        if type(value) not in model._ATOMIC and key not in self._own:
            copied[kind[0] or "between", key] += 1
        return mine(self, key, value)

    class Folding(_ByApply):
        def fold(self, event):  # type: ignore[no-untyped-def]
            name = type(event).__name__
            kind[0] = {"PmIn": "pm", "DeadlineIn": "deadline"}.get(name) or (
                "vote" if event.thread.startswith("vote:") else "post")
            try:
                super().fold(event)
            finally:
                kind[0] = ""

    monkeypatch.setattr(model.SharedDict, "_mine", counting)
    rs = load_ruleset(variant)
    for seed in range(games):
        Folding(rs, seed, players or rs.spec.players).play()
    return copied


def test_game_ten_posts_look_at_the_day_without_a_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    """001 §2.7: every post of the day (the sims' are votes) asks whether a revived player
    wrote it; the vote itself is written with `put`."""
    copied = _copies_by_input("game_ten", 4, monkeypatch)
    assert copied["deadline", "day"] > 0  # the counting sees the copies that are made
    assert copied["vote", "day"] == 0, copied


def test_butterfly_vote_posts_copy_nothing_they_only_look_at(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every post asks whether its author is muted and has posted this round; a vote is
    written with `put`, and a first post of the round by a new list, not a copy of all."""
    copied = _copies_by_input("butterfly_elder", 4, monkeypatch)
    assert sum(n for (kind, _), n in copied.items() if kind == "pm") > 0  # the counting sees the copies
    for key in ("round_info", "ballots", "lurk"):
        assert copied["vote", key] == 0, (key, copied)


@pytest.mark.parametrize(("variant", "players", "key"), [("hex_survival_12", None, "day"),
                                                         ("n_lives", 7, "day")])
def test_a_vote_is_written_without_copying_the_day(variant: str, players: int | None, key: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    copied = _copies_by_input(variant, 4, monkeypatch, players)
    assert sum(copied.values()) > 0  # the counting sees the copies that are made
    assert copied["vote", key] == 0, copied


def test_hex_survival_orders_are_written_without_copies(monkeypatch: pytest.MonkeyPatch) -> None:
    """003 §4.1–4.4: an attack by night, a move or a dig by day, one PM each."""
    copied = _copies_by_input("hex_survival_12", 4, monkeypatch)
    for key in ("night", "day", "statuses", "range"):
        assert copied["pm", key] == 0, (key, copied)


@pytest.mark.parametrize("variant", ["classic_10", "game_ten"])
def test_a_will_and_the_sims_vote_copy_no_day(variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """001 §4.2: a will's accusation is written with `put`; the sims look at the day to vote."""
    copied = _copies_by_input(variant, 6, monkeypatch)
    assert copied["deadline", "day"] > 0  # the counting sees the copies that are made
    assert copied["pm", "day"] == 0, copied
    assert copied["between", "day"] == 0, copied
