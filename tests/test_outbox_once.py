"""`Messages.outcome` (issue 37): the messages become the outcome — one object a fold, not a
second one with eight fields — and it is a plain `Outcome`, equal to one made by keyword."""

from __future__ import annotations

from tianshen.core.events import note
from tianshen.core.model import GameState, Outcome, Player
from tianshen.core.outbox import Messages


def _state() -> GameState:
    return GameState(ruleset="classic", variant="classic_10", seed=1, players=[Player(name="甲", forum_name="a", seat=1)])


def test_the_messages_become_their_outcome() -> None:
    state = _state()
    out = Messages()
    out.post("main", "正文", "标题")
    out.pm("甲", "主题", "内容")
    out.refuse("甲", "写的", "为什么", reply_to="甲")
    note(out.log, "a line", "kind")
    out.notes.append("给天神")
    posts, pms, log = out.posts, out.pms, out.log
    outcome = out.outcome(state)
    assert outcome is out and type(outcome) is Outcome
    assert outcome.state is state and outcome.deaths == [] and [e.kind for e in outcome.events] == ["kind"]
    assert outcome.posts is posts and outcome.pms is pms and outcome.log is log
    made = Outcome(state=state, posts=list(posts), pms=list(pms), refusals=list(outcome.refusals), log=list(log),
                   notes=["给天神"], events=list(outcome.events))
    assert outcome == made and made == outcome
    assert outcome.model_dump_json() == made.model_dump_json()


def test_a_subclass_of_messages_becomes_an_outcome_too() -> None:
    class Counted(Messages):
        __slots__ = ()

    outcome = Counted().outcome(_state())
    assert type(outcome) is Outcome and outcome.posts == [] and outcome.events == []


def test_messages_are_made_as_their_classes_make_them_without_the_class_call(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from tianshen.core.model import PrivateMessage, PublicPost, Refusal
    from tianshen.core.spec import Lines

    lazy = Lines("", ["甲", "乙"])
    made = [PublicPost("main", "正文", "标题"), PublicPost("main", lazy), PrivateMessage("甲", "主题", lazy),
            PrivateMessage("甲", "主题", "内容"), Refusal("甲", "写的", lazy), Refusal("甲", "写的", "为什么")]

    def no_call(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("made through the class call")

    for kind in (PublicPost, PrivateMessage, Refusal):
        monkeypatch.setattr(kind, "__init__", no_call)
    out = Messages()
    out.post("main", "正文", "标题")
    out.post("main", lazy)
    out.pm("甲", "主题", lazy)
    out.pm("甲", "主题", "内容")
    out.refuse("甲", "写的", lazy)
    out.refuse("甲", "写的", "为什么")
    got = out.posts + out.pms + out.refusals
    assert [(type(m), m.source) for m in got] == [(type(m), m.source) for m in made]
    assert got == made and [m.model_dump_json() for m in got] == [m.model_dump_json() for m in made]
