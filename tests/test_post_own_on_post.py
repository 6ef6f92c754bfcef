"""A post's fold (issue 37): a family without its own `on_post` has its posts go straight to
`on_vote_post`, and one without its own `post_taken` has it not called (it takes nothing); a
family's own `on_post` or `post_taken` is still asked for every post."""

from __future__ import annotations

from collections.abc import Callable

from tianshen.core.model import PostIn
from tianshen.core.ruleset import Ruleset
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game


def _each_post(ruleset: Ruleset, check: Callable[[Game, PostIn], None]) -> Game:
    """A classic_10 game played by `ruleset`; before each post of the game is folded,
    `check(game, post)`. Returns the game, with `posts` the number of posts checked."""
    game = Game(ruleset, 1, 10)
    game.posts = 0  # type: ignore[attr-defined]
    real = game.fold

    def fold(event):  # type: ignore[no-untyped-def]
        if isinstance(event, PostIn) and not game.state.data.get("checkin"):
            game.posts += 1  # type: ignore[attr-defined]
            check(game, event)
        real(event)

    game.fold = fold  # type: ignore[method-assign]
    game.play()
    return game


def test_a_familys_own_on_post_sees_every_post() -> None:
    """A family without its own `on_post` has its posts go straight to `on_vote_post`; one
    with its own (game_ten's) is asked for every post, and its answer is the outcome."""
    seen: list[str] = []
    classic = type(load_ruleset("classic_10"))

    class Posting(classic):  # type: ignore[misc, valid-type]
        def on_post(self, state, post):  # type: ignore[no-untyped-def]
            seen.append(post.author)
            outcome = super().on_post(state, post)
            outcome.log.append("on_post")
            return outcome

    ruleset = Posting(load_ruleset("classic_10").spec)

    def check(game: Game, post: PostIn) -> None:
        assert ruleset.apply_in_place(game.state.copy(), post).log[-1:] == ["on_post"]

    game = _each_post(ruleset, check)
    assert game.state.winner and game.posts > 20 and len(seen) >= 2 * game.posts  # type: ignore[attr-defined]


def test_a_familys_own_post_taken_is_asked_for_every_post() -> None:
    """`post_taken` is not called for a family without its own (it takes nothing); one with
    its own is asked for every post, and a post it takes is not read as a vote."""
    seen: list[str] = []
    classic = type(load_ruleset("classic_10"))

    class Taking(classic):  # type: ignore[misc, valid-type]
        def post_taken(self, state, p, post, out):  # type: ignore[no-untyped-def]
            seen.append(post.id)
            out.log.append("taken")
            return True

    ruleset = Taking(load_ruleset("classic_10").spec)
    assert not load_ruleset("classic_10")._own_post_taken and ruleset._own_post_taken

    def check(game: Game, post: PostIn) -> None:
        before = game.state.model_dump_json()
        outcome = ruleset.apply_in_place(game.state.copy(), post)
        assert outcome.log == ["taken"] and outcome.state.model_dump_json() == before

    game = _each_post(ruleset, check)
    assert game.posts > 5 and len(seen) >= 2 * game.posts  # type: ignore[attr-defined]
