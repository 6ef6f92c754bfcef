"""`Ruleset.apply` never modifies the state passed in, and `GameState.copy` (the fast
structural copy) is the same as a JSON round trip and shares nothing mutable."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import pytest

from tianshen.core.model import DeadlineIn, GameState, PmIn, PostIn, copy_json
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game

VARIANTS = [("classic_10", None), ("classic_8", None), ("game_ten", None), ("n_lives", 6),
            ("hex_survival_12", None), ("butterfly_elder", None)]


class CopyingGame(Game):
    """A Monte Carlo game folded with `apply` (a copy per step), so every outcome keeps its
    own state."""

    def fold(self, event: PmIn | PostIn | DeadlineIn) -> None:
        self.state = self._took(self.ruleset.apply(self.state, event))


def _mutable_ids(value: object, found: set[int]) -> set[int]:
    if isinstance(value, dict):
        found.add(id(value))
        for v in value.values():
            _mutable_ids(v, found)
    elif isinstance(value, list):
        found.add(id(value))
        for v in value:
            _mutable_ids(v, found)
    return found


def _all_mutable(state: GameState) -> set[int]:
    found = {id(state), id(state.phase), id(state.players)} | {id(p) for p in state.players}
    _mutable_ids(state.data, found)
    for p in state.players:
        _mutable_ids(p.extra, found)
    return found


@pytest.mark.parametrize("variant,players", VARIANTS)
def test_copy_equals_deep_copy_and_shares_nothing(variant: str, players: int | None) -> None:
    ruleset = load_ruleset(variant)
    game = CopyingGame(ruleset, 3, players or ruleset.spec.players)
    game.play()
    for outcome in game.outcomes[::7]:
        state = outcome.state
        copied = state.copy()
        assert copied.model_dump_json() == state.model_dump_json()
        assert copied == state == GameState.model_validate_json(state.model_dump_json())
        assert not _all_mutable(copied) & _all_mutable(state)
    assert len({id(o.state) for o in game.outcomes}) == len(game.outcomes)


def test_in_place_folding_plays_the_same_game() -> None:
    """`apply_in_place` (Monte Carlo, no copy) and `apply` (a copy per step) give the same game."""
    ruleset = load_ruleset("game_ten")
    for seed in (1, 2):
        copying, in_place = CopyingGame(ruleset, seed, 14), Game(ruleset, seed, 14)
        assert copying.play().model_dump_json() == in_place.play().model_dump_json()


def test_copy_json_falls_back_to_deepcopy_for_other_types() -> None:
    when = datetime(2026, 1, 1)
    value = {"a": [1, {"b": (1, [2])}], "t": when, "s": {1, 2}}
    copied = copy_json(value)
    assert copied == value
    assert copied["a"][1]["b"][1] is not value["a"][1]["b"][1]
    assert copied["s"] is not value["s"]


def _random_inputs(state: GameState, rng: random.Random, at: datetime) -> list:
    """PMs and posts from random players with random commands and targets, and the next
    deadline: legal or not, every one is folded."""
    names = [p.name for p in state.players]
    verbs = ["杀", "占卜", "束魂", "诅咒", "庇佑", "祈祷", "投票", "指控", "攻击", "移动 c3", "挖掘", "共舞", "招魂", "转职 束魂"]
    events: list = []
    for i in range(4):
        text = f"{rng.choice(verbs)} {rng.choice(names)}"
        sender = rng.choice(names)
        if rng.random() < 0.5:
            events.append(PmIn(id=f"r{at.timestamp()}:{i}", sender=sender, at=at, text=text))
        else:
            thread = rng.choice(["main", f"vote:{state.phase.number}"])
            events.append(PostIn(id=f"p{at.timestamp()}:{i}", thread=thread, author=sender, at=at, text=text))
    return events


@pytest.mark.parametrize("variant,players", VARIANTS)
def test_apply_never_modifies_its_input(variant: str, players: int | None) -> None:
    """Fold random inputs and the real sims' inputs; after each step the input state's
    JSON is what it was before."""
    ruleset = load_ruleset(variant)
    rng = random.Random(variant)
    game = CopyingGame(ruleset, 5, players or ruleset.spec.players)
    for _ in range(60):
        deadline = ruleset.next_deadline(game.state)
        if deadline is None:
            break
        at = deadline.at - timedelta(minutes=5)
        game.now = max(game.now, at - timedelta(minutes=5))
        game.sims.act(game.state, game.now, game.thread)
        events = game.board.take() + _random_inputs(game.state, rng, at)
        events.append(DeadlineIn(id=f"dl{deadline.at.isoformat()}", at=deadline.at, kind=deadline.kind))
        for event in events:
            before = game.state.model_dump_json()
            outcome = ruleset.apply(game.state, event)
            assert game.state.model_dump_json() == before, f"{variant}: {event.type} {getattr(event, 'text', '')!r}"
            game.state = outcome.state
            game.threads.update(post.thread for post in outcome.posts)
