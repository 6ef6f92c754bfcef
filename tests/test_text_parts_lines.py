"""`text_parts` over a `Lines` (issue 37; the report's tally counts announcements by it): every
kind of part gives its parts in the order a depth-first walk gives them — plain strings, texts with plain fields, texts
with lazy fields (their key, then those fields last to first) and nested `Lines`."""

from __future__ import annotations

from tianshen.core.model import PublicPost, text_parts
from tianshen.core.spec import Lines, Text


def _text(key: str, **values: object) -> Text:
    return Text(None, key, values)  # type: ignore[arg-type]  # (never rendered here)


def test_each_kind_of_part_in_a_lines_gives_its_parts_in_order() -> None:
    inner = Lines("", [_text("c"), "y"])
    body = Lines("\n", [
        _text("a", n=1),
        "x",
        _text("b", first=_text("b1"), plain="p", last=inner),
        Lines(" ", [_text("d"), "z", Lines("", ["w"])]),
        _text("e", name="甲"),
    ])
    post = PublicPost("t", body)
    assert text_parts([post]) == (["a", "b", "c", "b1", "d", "e"], ["x", "y", "z", "w"])


def test_a_text_in_a_lines_with_a_lazy_field_after_plain_ones_is_walked() -> None:
    body = Lines("", [_text("a", one="1", two="2", more=Lines("", [_text("m"), "s"]))])
    assert text_parts([PublicPost("t", body)]) == (["a", "m"], ["s"])
