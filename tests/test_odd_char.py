"""`core.text.odd_char` tells a printable text without the regex (issue 37): for every
string it says what the regex says, whether `clean` would change it."""

from __future__ import annotations

import sys

import pytest

from tianshen.core.text import _ODD, odd_char

SPECIAL = "\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\xad\u2028\u2029\u3000\u200b\ufeff\ufffd\ud800\udbff\udc00\udfff"


def _expected(text: str) -> bool:
    return _ODD.search(text) is not None


def test_every_character_below_the_surrogates_and_them_alone() -> None:
    for code in [*range(0, 0x3100), *range(0xD700, 0xE100), 0xFEFF, 0xFFFD, 0x10000, sys.maxunicode]:
        c = chr(code)
        for text in (c, "投票 " + c, c + "\n甲", "甲\n" + c + "\n", "\n" + c):
            assert odd_char(text) == _expected(text), repr(text)


@pytest.mark.parametrize("text", ["", "投票 白狐", "杀 乙\n夜色像墨", "\n", "\n\n", "a\r\nb", "a\rb", "甲\t乙",
                                  "甲\u3000乙\n", "\ud83d\ude00", "😀\n", "a\x00", "\n\x7f", "\n\x9f\n"])
def test_the_texts_that_come_in(text: str) -> None:
    assert odd_char(text) == _expected(text)


def test_every_pair_of_the_special_characters() -> None:
    for a in SPECIAL:
        for b in SPECIAL:
            for text in (a + b, a + "\n" + b, "甲" + a + "乙" + b):
                assert odd_char(text) == _expected(text), repr(text)
