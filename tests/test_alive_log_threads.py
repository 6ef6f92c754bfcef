"""The `alive` log of a fold is its thread's own (issue 37: a holder set once per thread, not a
`ContextVar` set a fold).  The web pages fold in anyio's worker threads, which run in a copy of
the event loop's context: a holder carried into another thread by such a copy is not used there."""

from __future__ import annotations

import contextvars
import threading

from tianshen.core import model
from tianshen.core.model import Player, alive_before, watch_alive
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game


def _in_thread(run: contextvars.Context, job: object) -> None:
    worker = threading.Thread(target=run.run, args=(job,))
    worker.start()
    worker.join(60)
    assert not worker.is_alive()


def test_a_copied_context_in_another_thread_logs_apart() -> None:
    mine, theirs = Player(name="甲", forum_name="a", seat=1), Player(name="乙", forum_name="b", seat=2)
    log, token = watch_alive()
    seen: list[object] = []

    def other() -> None:  # runs while this thread's log is open, in a copy of its context
        inner, inner_token = watch_alive()
        theirs.alive = False
        seen.append(alive_before(inner, inner_token, [theirs]))
        seen.append(model._alive_writes.get())

    _in_thread(contextvars.copy_context(), other)
    assert seen == [[True], None]
    assert log == []  # the other thread's writes did not reach this thread's log
    mine.alive = False
    assert alive_before(log, token, [mine, theirs]) == [True, False]
    assert model._alive_writes.get() is None


def test_a_game_in_a_copied_context_has_its_own_deaths() -> None:
    """A whole game folded in place in another thread, in a copy of a context whose thread has
    a log open: the same deaths as the game folded alone, and the open log gets none."""
    ruleset = load_ruleset("classic_10")
    alone = Game(ruleset, 4, 10)
    alone.play()
    want = [o.deaths for o in alone.outcomes]
    assert any(want)
    log, token = watch_alive()
    there = Game(ruleset, 4, 10)
    _in_thread(contextvars.copy_context(), there.play)
    assert [o.deaths for o in there.outcomes] == want
    assert log == []
    assert alive_before(log, token, []) is None

