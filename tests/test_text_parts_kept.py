"""`text_parts` keeps the parts of each text with lazy fields it walked, by the text itself
(issue 37: a ruleset keeps its role PMs for many games): each text still gives its own parts,
as a walk of it gives them, and the caller's lists are its own."""

from __future__ import annotations

from tianshen.core import model
from tianshen.core.model import PrivateMessage, PublicPost, text_parts
from tianshen.core.spec import Lines
from tianshen.specs import load_spec

SPEC = load_spec("classic_10")


def _pm(lines: object) -> PrivateMessage:
    return PrivateMessage(to="甲", subject="s", body=SPEC.later("receipt_ok", lines=lines))


def test_a_kept_text_gives_its_parts_at_every_walk() -> None:
    pm = _pm(Lines("\n", [SPEC.later("dawn_nobody"), "乙", SPEC.later("dawn_saved", names="丙")]))
    first = text_parts([pm, pm])
    assert first == (["receipt_ok", "dawn_nobody", "dawn_saved", "receipt_ok", "dawn_nobody", "dawn_saved"],
                     ["乙", "乙"])  # (a text's plain fields are not among the strings)
    first[0].append("x")
    first[1].clear()
    assert text_parts([pm]) == (["receipt_ok", "dawn_nobody", "dawn_saved"], ["乙"])


def test_texts_of_one_key_with_other_fields_give_their_own_parts() -> None:
    one, other = _pm(SPEC.later("dawn_nobody")), _pm(Lines("\n", ["丁", SPEC.later("nobody_executed")]))
    plain = PublicPost(thread="main", body=SPEC.later("receipt_ok", lines="戊"))
    assert text_parts([one, other, plain, one]) == (
        ["receipt_ok", "dawn_nobody", "receipt_ok", "nobody_executed", "receipt_ok", "receipt_ok", "dawn_nobody"],
        ["丁"])
    assert text_parts([other]) == (["receipt_ok", "nobody_executed"], ["丁"])


def test_the_kept_parts_stay_bounded() -> None:
    for i in range(model._WALKED_MAX + 10):
        assert text_parts([_pm(Lines("", [str(i)]))]) == (["receipt_ok"], [str(i)])
    assert len(model._WALKED) <= model._WALKED_MAX
