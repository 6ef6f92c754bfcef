"""A post's fold (issue 37): a family without its own `on_post` has its posts go straight to
`on_vote_post`; a family's own `on_post` is still asked for every post."""

from __future__ import annotations

from tianshen.core.model import PostIn
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game


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
    game = Game(ruleset, 1, 10)
    posts = 0
    real = game.fold

    def fold(event):  # type: ignore[no-untyped-def]
        nonlocal posts
        if isinstance(event, PostIn) and not game.state.data.get("checkin"):
            posts += 1
            assert ruleset.apply_in_place(game.state.copy(), event).log[-1:] == ["on_post"]
        real(event)

    game.fold = fold  # type: ignore[method-assign]
    game.play()
    assert game.state.winner and posts > 20 and len(seen) >= 2 * posts
