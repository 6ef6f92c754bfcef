"""An input made with its fields by position is the one made by keyword (the Monte Carlo board
passes them by position: a call with keywords is not the interpreter's quick call), its
strings cleaned the same way (`odd_char`'s printable test is made inline first)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tianshen.core.model import DeadlineIn, PmIn, PostIn
from tianshen.core.text import clean

AT = datetime(2026, 1, 1, 20, 0, tzinfo=UTC)
TEXTS = ["投票 甲", "杀 乙\n夜色", "a\x00b\r\nc\x85", "\ud800x\udc00", "x\ud83d\ude00", "投票　甲\t", "\x7f", "a\u2028b"]


@pytest.mark.parametrize("text", TEXTS)
def test_by_position_is_by_keyword(text: str) -> None:
    pm = PmIn("1", "甲" + text, AT, text)
    post = PostIn("2", "vote:1", "乙" + text, AT, text)
    assert pm == PmIn(id="1", sender="甲" + text, at=AT, text=text)
    assert post == PostIn(id="2", thread="vote:1", author="乙" + text, at=AT, text=text)
    assert (pm.sender, pm.text, post.author, post.text) == (clean("甲" + text), clean(text), clean("乙" + text), clean(text))
    assert post.edited is False and post.original_text is None
    assert DeadlineIn("d", AT, "dawn") == DeadlineIn(id="d", at=AT, kind="dawn")


def test_by_position_refuses_what_by_keyword_refuses() -> None:
    with pytest.raises(TypeError):
        PmIn("1", "甲", AT, b"x")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        PostIn("1", "vote:1", None, AT, "x")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        DeadlineIn("d", "not a time", "dawn")  # type: ignore[arg-type]
