"""The CLI's words for what a game stores as keys, taken from where they are said already
(the web pages' notes and thread names, the family's winner words), each imported only when
used: `tianshen run` loads neither the web pages nor a family it does not serve."""

from __future__ import annotations

from typing import Any

SIDES = {"civilians": "平民方", "killers": "杀手方", "draw": "平局"}  # as `rehearse` has always said them


def gm_notes(view: dict[str, Any]) -> dict[str, str]:
    """The notes of a player's view in Chinese words, as the GM web page has them."""
    from tianshen.web.views import gm_notes as notes

    return notes(view)


def thread_name(key: str, family: str = "") -> str:
    """A logical thread key in words: 主帖, 第2天投票帖."""
    from tianshen.web.views import thread_name as name

    return name(key, family)


def winner_name(ruleset: str, config: dict[str, Any], winner: str) -> str:
    """The winner as the game names it (平民方, 好人方, 狼人阵营…), never its key; the key
    itself only when the game's variant file cannot be read any more."""
    if winner in SIDES:
        return SIDES[winner]
    from tianshen.rules import game_ruleset

    try:
        return game_ruleset(ruleset, config).winner_words(winner)
    except (ValueError, KeyError, OSError):
        return winner
