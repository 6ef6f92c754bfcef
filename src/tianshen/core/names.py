"""Matching a name written by a player to one player of the list.

Exact match first, then a unique match ignoring case, full/half width and spaces.  An
unknown or ambiguous name is an error listing the candidates, never a guess.

A reason may follow the name, as in a vote post (`诅咒 寒梅，她发言很怪`, issue 23 item 12):
the name ends at a separator (punctuation, a space, 因为/理由/原因), read by
core.vote_post.read_target; the reason is left aside.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tianshen.core.model import GameState


def seat_names(state: GameState) -> tuple[str, ...]:
    """Every player's name (马甲) in seat order, listed once and kept with the state's facts
    (`GameState.facts`): a seat keeps its 马甲 all game, a substitute included (issue 37:
    every vote post and power PM read the list)."""
    found = state.facts.get("names")
    if found is None:
        found = state.facts["names"] = tuple(p.name for p in state.players)
    return found  # type: ignore[no-any-return]


def names_as_written(state: GameState) -> dict[str, str]:
    """Each seat's name that `match_name` takes as it is written (no space or quote at its
    ends to strip), by itself: listed once with the state's facts, as `seat_names` (a power
    PM's target is looked up here before `match_name`)."""
    found = state.facts.get("names_as_written")
    if found is None:
        found = state.facts["names_as_written"] = {n: n for n in seat_names(state) if _bare(n) == n}
    return found  # type: ignore[no-any-return]


def _bare(written: str) -> str:
    """`written` without the spaces and quotes around a name."""
    return written.strip().strip(_QUOTES)


_QUOTES = "“”\"'「」『』《》"


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
    names = names if type(names) is tuple or type(names) is list else list(names)  # (read only here)
    written = written.strip().strip(_QUOTES)  # (`_bare`, inline)
    if written in names:
        return written
    return _loose_match(written, names)


def _loose_match(written: str, names: tuple[str, ...] | list[str]) -> str:
    """`match_name` of a name not written exactly (apart: its comprehensions' cell is not
    made for every exact name)."""
    key = fold(written)
    if not key:
        raise NameMatchError(written, (), "没有写游戏者的名字。")
    exact = [n for n in names if fold(n) == key]
    if len(exact) == 1:
        return exact[0]
    if len(exact) > 1:
        raise NameMatchError(written, tuple(exact), f"“{written}”可以指{_list(exact)}，请写出完整的名字。")
    from tianshen.core.vote_post import read_target  # (vote_post reads the intake: imported late)

    target = read_target(written, names)
    if target.name is not None and not target.loose:
        return target.name  # the name, then a separator and the reason
    if target.ambiguous:
        raise NameMatchError(written, target.candidates,
                             f"写的名字可以指{_list(target.candidates)}，请只写一个完整、准确的名字。")
    if target.name is not None:  # a name run on into the text (`寒梅她…`, `寒梅梅`): never a guess
        token = _token(written)
        hint = "请在名字后加逗号或空格再写理由" if token == written else "请写出完整的名字"
        raise NameMatchError(written, (target.name,), f"没有叫“{token}”的游戏者。你是不是指“{target.name}”？{hint}。")
    written = _token(written)  # the error names what stands where the name should be
    key = fold(written) or key
    partial = [n for n in names if key in fold(n)]
    if partial:
        raise NameMatchError(
            written, tuple(partial), f"没有叫“{written}”的游戏者。你是不是指{_list(partial)}？请写出完整的名字。"
        )
    raise NameMatchError(written, (), f"没有叫“{written}”的游戏者。游戏者名单：{_list(names)}。")


def _token(written: str) -> str:
    """The written text up to its first separator (`寒梅梅，她…` -> `寒梅梅`)."""
    from tianshen.core.vote_post import _token as token

    return token(written).rstrip("…") or written


def _list(names: Iterable[str]) -> str:
    return "、".join(f"“{n}”" for n in names)
