"""One ballot policy (issue 34 step 4): every kind of vote post, in every variant, gets the
answer its family's `BallotPolicy` says — never an exception, at most one reply.

Kinds: a vote, a change, an unreadable vote, chat, a dead author, a closed thread, an edited
post with and without its first version, a quoted vote, a proxy (委托投票 by PM)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tianshen.core.model import GameState, GmIn, Outcome, PmIn, PostIn
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game
from tianshen.specs import available_variants, load_spec

CASES = [(v, n) for v in available_variants() for n in (load_spec(v).player_counts or [load_spec(v).players])]
IDS = [f"{v}-{n}" for v, n in CASES]


def _vote_day(variant: str, players: int) -> Game:
    """Random play until a day's vote thread has just opened (four living players who have
    not voted); when nobody has died yet, the GM removes one (判出局) for a dead author."""
    for seed in range(1, 9):
        game = Game(load_ruleset(variant), seed, players)
        for _ in range(400):
            if _ready(game) and _one_dead(game):
                return game
            deadline = game.ruleset.next_deadline(game.state)
            if deadline is None:
                break
            game.now = max(game.now, min(game.now + timedelta(hours=1), deadline.at - timedelta(minutes=1)))
            game.sims.act(game.state, game.now, game.thread)
            game.advance(game._read())
            game.now = max(game.now, deadline.at)
            game.advance([])
    raise AssertionError(f"{variant}: no vote day with a dead player in eight seeds")


def _ready(game: Game) -> bool:
    s = game.state
    return game.ruleset.ballots.open(s) and f"vote:{s.phase.number}" in game.threads and len(_voters(game)) >= 4


def _one_dead(game: Game) -> bool:
    """A dead player, removed by the GM when nobody died yet (and the game goes on)."""
    if any(not p.alive for p in game.state.players):
        return True
    for name in reversed(_voters(game)):
        gm = GmIn(id=f"modkill-{name}", at=game.now, command="modkill", args={"player": name}, reason="测试")
        outcome = game.ruleset.apply(game.state.copy(), gm)
        if not outcome.refusals and outcome.state.phase == game.state.phase:
            game.state = outcome.state
            return True
    return False


def _voters(game: Game) -> list[str]:
    """Living players with no ballot whom a plain vote post is taken from."""
    found = []
    for p in game.state.players:
        if p.alive and game.ruleset.ballots.ballot(game.state, p) is None:
            out = _post(game, game.state, p.name, "投票 " + p.name)
            if not out.refusals:
                found.append(p.name)
    return found


def _post(game: Game, state: GameState, author: str, text: str, thread: str | None = None, hours: float = 0,
          **edit: object) -> Outcome:
    at = game.now + timedelta(minutes=1, hours=hours)
    post = PostIn(id=f"p-{author}-{hours}-{len(text)}", thread=thread or f"vote:{state.phase.number}",
                  author=author, at=at, text=text, **edit)
    return game.ruleset.apply(state, post)


def _replies(outcome: Outcome, before: GameState, author: str) -> int:
    """The answers the author got: refusals, and PMs unless the post ended the phase."""
    pms = [m for m in outcome.pms if m.to == author] if outcome.state.phase == before.phase else []
    return max(len([r for r in outcome.refusals if r.sender == author]), len(pms))


def _target(game: Game, state: GameState, voter: str) -> str | None:
    e = game.ruleset.ballots.ballot(state, state.player(voter))
    return e.what if e else None


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
def test_every_vote_post_gets_its_policys_answer(variant: str, players: int) -> None:
    game = _vote_day(variant, players)
    policy = game.ruleset.ballot_policy
    state = game.state
    a, b, c = _voters(game)[:3]
    dead = next(p.name for p in state.players if not p.alive)

    def post(text: str, author: str = a, s: GameState | None = None, **kw: object) -> tuple[Outcome, GameState]:
        s = (s or state).copy()
        before = s.copy()
        out = _post(game, s, author, text, **kw)
        assert _replies(out, before, author) <= 1, (text, out.pms, out.refusals)
        return out, out.state

    out, voted = post(f"投票 {b}")
    assert not out.refusals and _target(game, voted, a) == b  # a vote

    out, changed = post(f"改票 {c}，他更可疑", s=voted, hours=1)  # a change
    expected = b if policy.change == "never" else c
    assert _target(game, changed, a) == expected and bool(out.refusals) == (policy.change == "never")

    out, s = post("投票 某某某某，他很可疑")  # unreadable
    assert out.refusals and _target(game, s, a) is None

    out, s = post("大家好，今天天气不错")  # chat: no vote, at most a hint
    assert _target(game, s, a) is None

    out, s = post(f"投票 {b}", author=dead)  # a dead author
    assert _target(game, s, dead) is None

    out, s = post(f"投票 {b}", thread=f"vote:{state.phase.number - 1}")  # a closed thread
    assert out.refusals and _target(game, s, a) is None

    out, s = post(f"投票 {c}", edited=True, original_text=f"投票 {b}")  # edited, the first version known
    assert not out.refusals and _target(game, s, a) == b

    out, s = post(f"投票 {c}", edited=True)  # edited, the first version lost: never an exception

    out, s = post(f"[quote]投票 {c}[/quote]\n投票 {b}")  # a quoted vote is not his
    assert not out.refusals and _target(game, s, a) == b

    s = state.copy()  # a proxy: 委托投票 by PM
    out = game.ruleset.apply(s, PmIn(id="proxy", sender=a, at=game.now + timedelta(minutes=1), text=f"委托投票 {b}"))
    assert bool(out.refusals) != policy.delegation, out.refusals
    if policy.delegation:
        assert _target(game, out.state, a) == b
