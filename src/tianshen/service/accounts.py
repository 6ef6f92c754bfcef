"""Issue 23 item 3: every account a game needs, checked before the deal.

Which names must be forum accounts follows from how PMs are routed:

* a seat's `name`, its 马甲, is the account the player PMs tianshen *from* (the board's PMs
  are routed by sender, `daemon._routes`; the game takes actions only from the 马甲 and
  refuses the same PM from the player's own account, `core.intake`), and every receipt and
  result goes *to* it;
* a seat's `forum_name`, the player's own account, receives the role PM at the deal (when
  it is not set, the 马甲 is the player's only account);
* every substitute is asked by PM in a 交替期, and the `gm_contact` is PMed what the human
  GM should know.

No two seats may share an account (a PM would be routed to the wrong seat), a substitute
must not be a player of the same game, and none of them may be the GM's own account
(`[forum] username`, the account tianshen logs in as: a PM to oneself is refused).

`static_problems` needs no forum; `forum_problems` asks the board (`Forum.user_exists`,
`Forum.check_board`).  Every problem is one line: the file, the game, the seat or key, and
the fix.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from tianshen.config import Config, GameConfig
from tianshen.forum.base import Forum, ForumError


@dataclass(frozen=True)
class Need:
    """One account a game needs: where it is written and what it is for."""

    name: str
    key: str  # e.g. "players #3 (寒梅) name", "substitutes", "gm_contact"
    seat: str  # e.g. "seat #3 (寒梅)", or "" for a substitute or the contact
    missing: str  # what to say when the board has no such account


def _where(config: Config, i: int) -> str:
    return "[game]" if isinstance(config.game, GameConfig) else f"[[game]] #{i + 1}"


def needs(game: GameConfig) -> Iterator[Need]:
    for n, p in enumerate(game.players, start=1):
        seat = f"seat #{n} ({p.name})"
        yield Need(p.name, f"players #{n} ({p.name}) name", seat,
                   f"the 马甲 '{p.name}' is no account on the forum; the player must PM tianshen from this "
                   f"account (a PM from another one is refused) and receives the receipts there: register "
                   f"'{p.name}' on the forum before the deal, or fix the seat's name")
        if p.forum_name and p.forum_name != p.name:
            yield Need(p.forum_name, f"players #{n} ({p.name}) forum_name", seat,
                       f"the player's account '{p.forum_name}' is not on the forum; the role PM goes there: "
                       f"fix forum_name (the player's own account), or leave it out to use the 马甲")
    for s in game.substitutes:
        yield Need(s, "substitutes", "", f"the substitute '{s}' is no account on the forum; he is asked by PM "
                                         f"in a 交替期: fix the name, or remove him from substitutes")
    if game.gm_contact:
        yield Need(game.gm_contact, "gm_contact", "",
                   f"'{game.gm_contact}' is no account on the forum; tianshen PMs the human GM there: "
                   f"fix gm_contact (your own forum account)")


def static_problems(path: str, config: Config) -> list[str]:
    """Shared accounts and the GM's own account, in every game of the config."""
    problems: list[str] = []
    for i, game in enumerate(config.games()):
        problems += game_problems(f"{path}: {_where(config, i)}", game, config.forum.username)
    return problems


def game_problems(head: str, game: GameConfig, gm_account: str) -> list[str]:
    """Shared accounts and the GM's own account in one game (`head`: the file and table)."""
    gm = gm_account.casefold()
    problems: list[str] = []
    owner: dict[str, str] = {}  # account (casefolded) -> the seat holding it
    for need in needs(game):
        name, label = need.name.casefold(), need.key
        if name == gm:
            problems.append(f"{head} {label} '{need.name}' is the GM's own account ([forum] username, the "
                            f"account tianshen logs in as); "
                            + ("put the human GM's own account" if need.key == "gm_contact"
                               else "every player and substitute needs an account of his own"))
            continue
        held = owner.get(name)
        if need.seat:
            if held is not None and held != need.seat:
                problems.append(f"{head} {label} '{need.name}' is also the account of {held}; no two seats "
                                f"may share an account (PMs are routed by sender): give each seat its own")
            else:
                owner[name] = need.seat
        elif held is not None:
            who = "a substitute" if need.key == "substitutes" else "the gm_contact (he reads the GM's notes)"
            problems.append(f"{head} {label} '{need.name}' is the account of {held}; a player of the game "
                            f"cannot be {who}: fix {need.key}")
    return problems


@dataclass
class Report:
    problems: list[str]
    board: str | None  # the game board's name, when it exists
    accounts: int  # accounts asked of the forum


def forum_problems(path: str, config: Config, forum: Forum) -> Report:
    """The game board and every account the games need, asked of the (logged-in) forum.
    ForumError when the board cannot answer."""
    problems: list[str] = []
    key = {"spirit": "category", "discuz": "fid", "phpwind": "fid"}.get(config.forum.kind)
    board = None
    try:
        board = forum.check_board()
    except ForumError as exc:
        if key is None:
            raise
        problems.append(f"{path}: [forum] {key}: {exc}")
    known: dict[str, bool] = {}
    for i, game in enumerate(config.games()):
        head = f"{path}: {_where(config, i)}"
        for need in needs(game):
            if need.name not in known:
                known[need.name] = forum.user_exists(need.name)
            if not known[need.name]:
                problems.append(f"{head} {need.key}: {need.missing}")
    return Report(problems, board, len(known))
