"""Matching a name written by a player to one player of the list.

Exact match first, then a unique match ignoring case, full/half width and spaces.  An
unknown or ambiguous name is an error listing the candidates, never a guess.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass


def fold(text: str) -> str:
    """Width- and case-insensitive form: NFKC turns full-width forms into half-width."""
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


@dataclass(frozen=True)
class NameMatchError(Exception):
    """Why a name could not be matched; `message` is plain Chinese for the player."""

    written: str
    candidates: tuple[str, ...]
    message: str

    def __str__(self) -> str:
        return self.message


def match_name(written: str, names: Iterable[str]) -> str:
    """The one player name `written` means, or NameMatchError with the candidates."""
    names = list(names)
    written = written.strip().strip("“”\"'「」『』《》")
    if written in names:
        return written
    key = fold(written)
    if not key:
        raise NameMatchError(written, (), "没有写游戏者的名字。")
    exact = [n for n in names if fold(n) == key]
    if len(exact) == 1:
        return exact[0]
    if len(exact) > 1:
        raise NameMatchError(written, tuple(exact), f"“{written}”可以指{_list(exact)}，请写出完整的名字。")
    partial = [n for n in names if key in fold(n)]
    if partial:
        raise NameMatchError(
            written, tuple(partial), f"没有叫“{written}”的游戏者。你是不是指{_list(partial)}？请写出完整的名字。"
        )
    raise NameMatchError(written, (), f"没有叫“{written}”的游戏者。游戏者名单：{_list(names)}。")


def _list(names: Iterable[str]) -> str:
    return "、".join(f"“{n}”" for n in names)
