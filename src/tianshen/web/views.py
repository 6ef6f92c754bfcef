"""What the web pages show, as plain data, in small pure helpers.

The public view is built only from what the players were told: the 马甲, alive or dead,
the side `Ruleset.public_identity` gives for the dead, posts on the board, and the count
the ruleset itself gives every player (`Ruleset.vote_count`, its 「票数」 answer).  Everything else is in the GM view.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from tianshen.core.fold import fold
from tianshen.core.model import GameState, Phase
from tianshen.core.ruleset import REMINDER, BoardMap, Deadline, Ruleset
from tianshen.web import hexlayout

PHASE_WORDS = {"night": "夜", "day": "天"}
STATUS_WORDS = {"new": "报名中", "running": "进行中", "paused": "暂停", "over": "已结束"}


def phase_name(phase: Phase) -> str:
    """第2天 / 第1夜 / 准备 / 结束."""
    if phase.kind in PHASE_WORDS:
        return label_name(phase.label)
    return {"setup": "准备", "over": "结束"}.get(phase.kind, phase.kind)


def label_name(label: str) -> str:
    """A stored phase label ("day 2") in words (第2天)."""
    kind, _, number = label.partition(" ")
    if kind in PHASE_WORDS and number.isdigit():
        return f"第{number}{PHASE_WORDS[kind]}"
    return label


def public_deadline(ruleset: Ruleset, state: GameState) -> Deadline | None:
    """When the current phase (or step) ends, passing over reminders (only they remind)."""
    due = ruleset.next_deadline(state)
    if due is not None and due.kind == REMINDER:
        due = ruleset.phase_end(state.copy())  # phase_end moves the state past reminders
    return due


# ---- what the board has been told ------------------------------------------------------------


def first_unsent_event(game_name: str, outbox: list[Any]) -> int | None:
    """The event whose public post is not on the board yet (the forum was down, or the
    daemon is between its commit and its send), from the store's default outbox key
    `{game}:{seq}:{i}`; None when every post went out."""
    prefix = game_name + ":"
    seqs = []
    for o in outbox:
        if o.kind == "post" and o.status == "pending" and o.key.startswith(prefix):
            seq = o.key[len(prefix):].split(":")[0]
            if seq.isdigit():
                seqs.append(int(seq))
    return min(seqs, default=None)


def replay_state(ruleset: Ruleset, events: list[Any], before_seq: int | None = None) -> GameState | None:
    """The state after folding the stored events in order (those before `before_seq` only):
    the same folds the driver made, so with every event it is the stored state."""
    return fold(ruleset, events, before_seq)


# ---- players --------------------------------------------------------------------------


@dataclass
class PublicPlayer:
    seat: int
    name: str
    alive: bool
    died_in: str = ""
    identity: str = ""  # what the rules revealed of a dead player's side


def public_players(ruleset: Ruleset, state: GameState) -> list[PublicPlayer]:
    out = []
    for p in state.players:
        if p.alive:
            out.append(PublicPlayer(seat=p.seat, name=p.name, alive=True))
            continue
        out.append(PublicPlayer(seat=p.seat, name=p.name, alive=False, died_in=label_name(p.died_in or ""),
                                identity=ruleset.public_identity(state, p)))
    return out


# ---- the count --------------------------------------------------------------------------


@dataclass
class Count:
    """The current count: the ruleset's own text (its 「票数」 reply), or rows counted by
    the ruleset's own functions; `note` says what kind of count it is."""

    text: str = ""
    rows: list[tuple[str, int, str]] = field(default_factory=list)  # name, votes, voters
    note: str = ""


def current_count(ruleset: Ruleset, state: GameState, at: datetime) -> Count | None:
    """None when no vote is running: the ruleset's own public count (Ruleset.vote_count, the
    one core.observation shows), no 「票数」 PM faked through `apply` (issue 24)."""
    if state.phase.kind != "day" or (count := ruleset.vote_count(state)) is None:
        return None
    return Count(text=count.text, rows=list(count.rows), note=count.note)


# ---- votes on the board ---------------------------------------------------------------------


@dataclass
class BoardPost:
    forum_id: str
    author: str
    at: datetime
    text: str
    edited: bool
    url: str | None


@dataclass
class VoteDay:
    number: int
    thread_key: str
    thread_url: str | None
    posts: list[BoardPost]
    gm_posts: list[str]  # what 神的使者 posted in the vote thread (opening, the result)


def vote_days(posts: list[Any], gm_posts: list[Any], links: PostLinks) -> list[VoteDay]:
    """Each day's vote thread, newest first: the players' posts as they are on the board,
    and the GM's posts that were sent (a pending one is not on the board yet)."""
    keys = sorted({p.thread_key for p in posts if _is_vote(p.thread_key)}
                  | {o.target for o in gm_posts if _is_vote(o.target)}, key=_day_number, reverse=True)
    days = []
    for key in keys:
        mine = [BoardPost(forum_id=p.forum_id, author=p.sender, at=p.sent_at, text=p.text, edited=p.edited,
                          url=links.post(key, p.forum_id)) for p in posts if p.thread_key == key]
        said = [o.body for o in gm_posts if o.target == key and o.kind == "post" and o.status == "sent"]
        days.append(VoteDay(number=_day_number(key), thread_key=key, thread_url=links.thread(key), posts=mine,
                            gm_posts=said))
    return days


def _is_vote(key: str | None) -> bool:
    return bool(key) and key.startswith("vote:") and key[5:].isdigit()  # type: ignore[union-attr]


def _day_number(key: str) -> int:
    return int(key[5:])


class PostLinks:
    """Forum ids to links, by templates with {thread} and {post}; none without a template
    (the memory board: plain ids)."""

    def __init__(self, templates: tuple[str | None, str | None], threads: dict[str, str]) -> None:
        self.post_template, self.thread_template = templates
        self.threads = threads  # logical key -> forum thread id

    def post(self, key: str, post_id: str) -> str | None:
        thread = self.threads.get(key)
        if not self.post_template or thread is None:
            return None
        return self.post_template.format(thread=thread, post=post_id)

    def thread(self, key: str) -> str | None:
        thread = self.threads.get(key)
        if not self.thread_template or thread is None:
            return None
        return self.thread_template.format(thread=thread)


def link_templates(kind: str, base_url: str) -> tuple[str | None, str | None]:
    """(post, thread) link templates of each forum kind; the memory board has none."""
    base = base_url.rstrip("/")
    if not base or kind == "memory":
        return None, None
    if kind == "discuz":
        return (base + "/forum.php?mod=redirect&goto=findpost&ptid={thread}&pid={post}",
                base + "/forum.php?mod=viewthread&tid={thread}")
    if kind == "spirit":
        return base + "/comment/{post}/find/", base + "/topic/{thread}/"
    return None, None


# ---- the hex map ------------------------------------------------------------------------------


@dataclass
class HexCell:
    name: str
    x: float
    y: float
    points: str
    neighbours: list[str]  # the map table's, upper case: the tap/hover highlight and the test read them
    ghost: bool = False  # a pale copy across the wrap-around edge: its name only
    people: list[str] = field(default_factory=list)  # GM only: "白狐 42"
    depth: int | None = None  # GM only: how deep it was dug


@dataclass
class HexMapView:
    cells: list[HexCell]
    width: int
    height: int
    apart: bool  # no hex layout fits the table: nothing touches, the highlight shows neighbours


HEX_R = 38.0


def hex_map(ruleset: Ruleset, state: GameState | None, secret: bool) -> HexMapView | None:
    """The family's map (Ruleset.board_map; None when it has none): hex_survival's 4×4 torus
    as rows a–d of pointy hexes laid out from the map's own table, with the wrap-around copies
    around them (web.hexlayout); with `secret`, who stands where with his HP, and the dig
    depths (003 §5.1: never public)."""
    the_map = ruleset.board_map(state, secret)
    if the_map is None:
        return None
    shape = hexlayout.layout(the_map.cells, the_map.neighbours)
    w = HEX_R * 3 ** 0.5
    spots = [(w * (p.at[0] + p.at[1] / 2) * shape.spacing, HEX_R * 1.5 * p.at[1] * shape.spacing)
             for p in shape.placed]
    left = min(x for x, _ in spots) - w / 2 - 4
    top = min(y for _, y in spots) - HEX_R - 4
    cells = []
    for p, (x, y) in sorted(zip(shape.placed, spots, strict=True), key=lambda c: not c[0].ghost):
        x, y = x - left, y - top
        pts = " ".join(f"{x + HEX_R * _cos(a):.1f},{y + HEX_R * _sin(a):.1f}" for a in range(30, 390, 60))
        cells.append(HexCell(name=p.cell.upper(), x=round(x, 1), y=round(y, 1), points=pts, ghost=p.ghost,
                             neighbours=[n.upper() for n in the_map.neighbours[p.cell]]))
    _place_people(cells, the_map)
    width = max(c.x for c in cells) + w / 2 + 4
    height = max(c.y for c in cells) + HEX_R + 4
    return HexMapView(cells, math.ceil(width), math.ceil(height), shape.spacing != 1.0)


def _place_people(cells: list[HexCell], board: BoardMap) -> None:
    by_name = {c.name.lower(): c for c in cells if not c.ghost}
    for name, people in board.people.items():
        if name in by_name:
            by_name[name].people.extend(people)
    for name, depth in board.depths.items():
        if name in by_name:
            by_name[name].depth = depth


def _cos(deg: int) -> float:
    return math.cos(math.radians(deg))


def _sin(deg: int) -> float:
    return math.sin(math.radians(deg))
