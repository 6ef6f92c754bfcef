"""A post's fold (issue 37): a family without its own `post_taken` has it not called (it
takes nothing); a family's own `post_taken` is still asked for every post."""

from __future__ import annotations

from tianshen.core.model import PostIn
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game


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
    game = Game(ruleset, 1, 10)
    posts = 0
    real = game.fold

    def fold(event):  # type: ignore[no-untyped-def]
        nonlocal posts
        if isinstance(event, PostIn) and not game.state.data.get("checkin"):
            posts += 1
            before = game.state.model_dump_json()
            outcome = ruleset.apply_in_place(game.state.copy(), event)
            assert outcome.log == ["taken"] and outcome.state.model_dump_json() == before
        real(event)

    game.fold = fold  # type: ignore[method-assign]
    game.play()
    assert posts > 5 and len(seen) >= 2 * posts
