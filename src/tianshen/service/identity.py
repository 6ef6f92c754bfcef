"""Which game a message is from (issue 27 items 2 and 3), added in the shell at commit time.

Several games share one board and one GM account: two games of one variant have the same
thread titles, and a player in two games gets PMs from both.  Every thread title names its
game (「【测试局B】第1天投票帖」), and every PM to someone who is in another signed-up or
running game of the board too names the game and the word his answer must start with (the
daemon routes his PMs by it, `daemon._chosen`).  It is worked out when the outbox row is
made, so a write tried again is the same text byte for byte (`Forum.find_written` compares
texts).  The rules' outputs are untouched.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tianshen.store import OutboxItem


def seat_names(config: dict[str, Any]) -> set[str]:
    """Everyone a game's PMs may come from or go to: vests, forum names, substitutes."""
    setup = config.get("setup", {})
    seats = setup.get("seats", [])
    names = {s["name"] for s in seats} | {s.get("forum_name") or s["name"] for s in seats}
    return names | set(setup.get("substitutes", []))


def elsewhere(configs: list[tuple[int, str, dict[str, Any]]], game_id: int) -> tuple[set[str], set[str]]:
    """(players, GM contacts) of the other games in `configs`."""
    players: set[str] = set()
    contacts: set[str] = set()
    for gid, _, config in configs:
        if gid == game_id:
            continue
        players |= seat_names(config)
        if contact := config.get("setup", {}).get("gm_contact"):
            contacts.add(contact)
    return players, contacts


def titled(title: str | None, game: str) -> str | None:
    """A thread title naming its game (a name inside the title is not enough: a game 「经典」
    and the title 「《游戏者名单》经典杀人游戏」)."""
    head = f"【{game}】"
    if not title or title.startswith(head):
        return title
    return head + title


def pm_header(game: str, game_id: int, player: bool) -> str:
    """The first line of a PM to someone in several games: this game, and for a player the
    word to put first in his PMs to it (the same words as the daemon's refusal)."""
    head = f"【{game}】这条短消息来自{game}（{game_id}号）。"
    if player:
        head += f"你同时在几局游戏中：寄给这一局的短消息，请在第一行先写游戏名或编号，即“{game}”或“{game_id}号”。"
    return head


def mark_game(items: list[OutboxItem], game: str, game_id: int,
              others: tuple[set[str], set[str]] | None) -> list[OutboxItem]:
    """The outbox rows of one step, each naming its game where it must (see the module)."""
    players, contacts = others or (set(), set())
    out = []
    for item in items:
        if item.kind == "post":
            if (title := titled(item.title, game)) != item.title:  # (a reply has none: kept as it is)
                item = replace(item, title=title)
        elif item.target in players or item.target in contacts:
            item = replace(item, body=f"{pm_header(game, game_id, item.target in players)}\n\n{item.body}")
        out.append(item)
    return out
