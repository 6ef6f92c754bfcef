"""The views a read hands out (`ForumPm`, `ForumPost`) set their instance dict whole, not by
the dataclass's own `__init__`: each field is the one given, in the dataclass's order, its
texts cleaned; they stay frozen, equal and hashable as before; an adapter's subclass (its
dataclass's own `__init__`) is cleaned as well."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from tianshen.core.text import clean
from tianshen.forum.base import ForumPm, ForumPost
from tianshen.forum.discuz.forum import DiscuzPm, DiscuzPost
from tianshen.forum.spirit.forum import SpiritPost

AT = datetime(2026, 1, 1, 20, tzinfo=UTC)
DIRTY, CLEAN = "甲\x00\r\n乙\ud800", "甲\n乙\ufffd"


def _fields(view: object) -> dict[str, object]:
    return {f.name: getattr(view, f.name) for f in dataclasses.fields(view)}  # type: ignore[arg-type]


def test_a_pm_holds_each_field_given_cleaned() -> None:
    pm = ForumPm(7, "路人" + DIRTY, AT, "主题" + DIRTY, DIRTY)
    assert _fields(pm) == {"id": 7, "sender": "路人" + CLEAN, "sent_at": AT, "subject": "主题" + CLEAN,
                           "text": CLEAN}
    assert pm.__dict__ == _fields(pm)
    assert pm == ForumPm(id=7, sender="路人" + CLEAN, sent_at=AT, subject="主题" + CLEAN, text=CLEAN)
    assert hash(pm) == hash(ForumPm(7, "路人" + CLEAN, AT, "主题" + CLEAN, CLEAN))


def test_a_post_holds_each_field_given_cleaned() -> None:
    post = ForumPost(8, "9", "甲" + DIRTY, AT, DIRTY, True, 3, "旧" + DIRTY)
    assert _fields(post) == {"id": 8, "thread_id": "9", "author": "甲" + CLEAN, "posted_at": AT, "text": CLEAN,
                             "edited": True, "position": 3, "original_text": "旧" + CLEAN}
    assert post.__dict__ == _fields(post)
    assert post == ForumPost(id=8, thread_id="9", author="甲" + CLEAN, posted_at=AT, text=CLEAN, edited=True,
                             position=3, original_text="旧" + CLEAN)
    plain = ForumPost(1, "2", "丙", AT, "文")
    assert (plain.edited, plain.position, plain.original_text) == (False, 0, None)
    assert plain != post and hash(plain) == hash(ForumPost(1, "2", "丙", AT, "文"))


def test_views_stay_frozen_and_replace_cleans() -> None:
    post = ForumPost(1, "2", "丙", AT, "文")
    with pytest.raises(dataclasses.FrozenInstanceError):
        post.text = "改"  # type: ignore[misc]
    assert dataclasses.replace(post, text=DIRTY).text == CLEAN
    pm = ForumPm(1, "丙", AT, "", "文")
    with pytest.raises(dataclasses.FrozenInstanceError):
        pm.text = "改"  # type: ignore[misc]
    assert dataclasses.replace(pm, subject=DIRTY).subject == CLEAN


def test_an_adapters_subclass_is_cleaned_and_keeps_its_fields() -> None:
    post = DiscuzPost(1, "2", DIRTY, AT, DIRTY, author_uid=5, full_text="引用" + DIRTY)
    assert (post.author, post.text, post.author_uid, post.full_text) == (CLEAN, CLEAN, 5, "引用" + DIRTY)
    assert SpiritPost(1, "2", "丁", AT, DIRTY, full_text="x").text == CLEAN
    pm = DiscuzPm(1, DIRTY, AT, DIRTY, DIRTY, sender_uid=4)
    assert (pm.sender, pm.subject, pm.text, pm.sender_uid) == (CLEAN, CLEAN, CLEAN, 4)


@pytest.mark.parametrize("odd", ["\x00", "\x08", "\x0b", "\x0c", "\r", "\x1f", "\x7f", "\x85", "\x9f", "\ud800", "\udfff"])
def test_each_odd_character_is_cleaned_beside_line_ends_and_tabs(odd: str) -> None:
    for text in [f"甲{odd}乙", f"甲\n{odd}\n乙", f"\t甲{odd}", f"{odd}\r\n"]:
        assert ForumPost(1, "2", text, AT, text, True, 1, text) == ForumPost(1, "2", clean(text), AT, clean(text),
                                                                           True, 1, clean(text))
        assert ForumPm(1, text, AT, text, text).__dict__ == {"id": 1, "sender": clean(text), "sent_at": AT,
                                                             "subject": clean(text), "text": clean(text)}
    assert ForumPost(1, "2", "甲\t乙\n丙", AT, "甲\t乙\n丙").text == "甲\t乙\n丙"
