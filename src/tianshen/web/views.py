"""What the web pages show, as plain data, in small pure helpers.

The public view is built only from what the players were told: the 马甲, alive or dead,
the side `Ruleset.public_identity` gives for the dead, posts on the board, and the count
the ruleset itself gives every player (`Ruleset.vote_count`, its 「票数」 answer).  Everything else is in the GM view.
"""

from __future__ import annotations

import json
import math
import re
import shlex
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from typing import Any

from tianshen.core import overrides, rng
from tianshen.core.events import tallies
from tianshen.core.fold import Step, fold, steps
from tianshen.core.model import GameState, Phase, PostIn
from tianshen.core.overrides import Override
from tianshen.core.ruleset import REMINDER, BoardMap, Deadline, Ruleset
from tianshen.core.tally import DELEGATED, EXECUTED, PUNISHED, SELF, DayTally
from tianshen.rules import families
from tianshen.web import hexlayout

PHASE_WORDS = {"night": "夜", "day": "天"}
STATUS_WORDS = {"new": "报名中", "running": "进行中", "paused": "暂停", "over": "已结束"}


# butterfly_elder counts rounds, not days and nights (004: 第2轮权力行使, 第2轮投票帖)
ROUND_WORDS = {"night": "权力", "day": "投票"}


def phase_name(phase: Phase, family: str = "") -> str:
    """第2天 / 第1夜 / 准备 / 结束 (butterfly_elder: 第2轮 · 投票), as the board says it."""
    if phase.kind in PHASE_WORDS:
        return label_name(phase.label, family)
    return {"setup": "准备", "over": "结束"}.get(phase.kind, phase.kind)


def _counts_rounds(family: str) -> bool:
    """Whether the family's board counts rounds (core.family.Family.rounds)."""
    found = families().get(family)
    return found is not None and found.rounds


def label_name(label: str, family: str = "") -> str:
    """A stored phase label ("day 2") in words (第2天; butterfly_elder: 第2轮 · 投票)."""
    kind, _, number = label.partition(" ")
    if kind in PHASE_WORDS and number.isdigit():
        if _counts_rounds(family):
            return f"第{number}轮 · {ROUND_WORDS[kind]}"
        return f"第{number}{PHASE_WORDS[kind]}"
    return {"setup": "准备", "over": "结束"}.get(label, label)


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
        out.append(PublicPlayer(seat=p.seat, name=p.name, alive=False,
                                died_in=label_name(p.died_in or "", ruleset.spec.ruleset),
                                identity=announced_identity(ruleset, state, p)))
    return out


def announced_identity(ruleset: Ruleset, state: GameState, p: Any) -> str:
    """What the board said of a dead player: the family's `public_identity` (butterfly_elder
    names independents by their role, 004 五: 花蝴蝶, 森林老人)."""
    return ruleset.public_identity(state, p)


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
        cells.append(HexCell(name=p.cell, x=round(x, 1), y=round(y, 1), points=pts, ghost=p.ghost,
                             neighbours=list(the_map.neighbours[p.cell])))  # as the map writes them (issue 38 item 7)
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


# ---- the board's announcements (issue 25 item 6) ---------------------------------------------


@dataclass
class LogEntry:
    """One public post of 神的使者, as the board has it (a sent outbox row of kind post)."""

    seq: int  # the outbox row's order
    event: int | None  # the event that caused it (`{game}:{seq}:{i}`), None for others
    thread: str  # logical key: "main", "vote:2"…
    title: str  # the thread's title when the post opened it
    body: str
    at: datetime | None
    url: str | None


def event_of(game_name: str, key: str) -> int | None:
    """The event seq of a default outbox key `{game}:{seq}:{i}`."""
    prefix = game_name + ":"
    if not key.startswith(prefix):
        return None
    seq = key[len(prefix):].split(":")[0]
    return int(seq) if seq.isdigit() else None


def public_log(game_name: str, outbox: list[Any], links: PostLinks, until_event: int | None = None) -> list[LogEntry]:
    """Every post the board shows, in the order it was sent: the player list, dawns, results,
    modkills, substitutions, extensions, the end.  Pending or failed posts are not on the
    board and not here; with `until_event`, only what the events up to it caused."""
    out = []
    for o in sorted(outbox, key=lambda o: o.seq):
        if o.kind != "post" or o.status != "sent":
            continue
        event = event_of(game_name, o.key)
        if until_event is not None and (event is None or event > until_event):
            continue
        out.append(LogEntry(seq=o.seq, event=event, thread=o.target, title=o.title or "", body=o.body,
                            at=o.board_at or o.sent_at, url=_post_link(links, o)))
    return out


def _post_link(links: PostLinks, o: Any) -> str | None:
    """A reply links to its post; a post that opened its thread (forum_ref is the thread's
    id) links to the thread."""
    ref = o.forum_ref or ""
    if ref and ref == links.threads.get(o.target):
        return links.thread(o.target)
    return links.post(o.target, ref) if ref else links.thread(o.target)


def thread_name(key: str, family: str = "") -> str:
    """A logical thread key in words: 主帖, 第2天投票帖 (butterfly_elder: 第2轮投票帖)."""
    if _is_vote(key):
        n = _day_number(key)
        return f"第{n}轮投票帖" if _counts_rounds(family) else f"第{n}天投票帖"
    return {"main": "主帖", "clock": "看表帖"}.get(key.split(":")[0], "公告帖")


# ---- the vote count, Mafia Universe style (issue 25 items 5, 7) -------------------------------


@dataclass
class Ballot:
    """A vote as the thread shows it: struck when a later post of the voter (or the GM)
    changed or took it back, or the close did not count it."""

    voter: str
    target: str
    post: str  # "" for a vote no post cast (a delegation, the GM, a non-voter counted for himself)
    at: datetime
    url: str | None
    struck: bool = False
    how: str = ""  # the close's words for how it came: 委托, 视为投给自己… ("" for a post)
    weight: int | None = None  # n_lives: the voter's cards at the close (None: one vote each)


@dataclass
class TallyRow:
    target: str
    votes: int  # a closed count: the total after modifiers, as the result post shows it
    reached: datetime  # when the count reached `votes`: the tie order
    ballots: list[Ballot]  # in vote order, struck ones too
    raw: int | None = None  # a closed count: the votes before modifiers
    modifier: str = ""  # a closed count: the modifier as the result post shows it


@dataclass
class MarkedPost:
    forum_id: str
    author: str
    at: datetime
    text: str
    edited: bool
    url: str | None
    mark: str  # counted / changed / unvoted / refused / late / none
    note: str  # the mark in public words


@dataclass
class Snapshot:
    at: datetime
    post: str
    line: str  # "A 2，B 1"


@dataclass
class DayCount:
    number: int
    thread_key: str
    thread_url: str | None
    posts: list[MarkedPost]
    rows: list[TallyRow]
    not_voting: list[str]
    abstained: list[str]  # butterfly_elder: 弃权 by a post (四), not counted as 未投票
    history: list[Snapshot]
    closed: bool
    out: list[str]  # who went out that day (the board's result post says how)
    executed: list[str] = field(default_factory=list)  # who the close executed or punished (the tally's)
    verdict: str = ""  # what the close did to them, in words: 被处决 / 受惩处
    later: list[Snapshot] = field(default_factory=list)  # the day's tie-break counts (生死投票, 招魂)
    counted: bool = False  # the day's count is the close's tally (core.tally), not the posts'


# how a counted ballot came, as the result post marks it (a vote the GM entered is not marked there)
HOW_WORDS = {DELEGATED: "委托", SELF: "未投票，视为投给自己"}
VERDICT_WORDS = {EXECUTED: "被处决", PUNISHED: "受惩处"}
BALLOT_WORDS = {"ld": "生死投票", "summon": "招魂投票"}
MARK_WORDS = {"counted": "计入", "changed": "改票", "unvoted": "撤票", "refused": "不计入", "late": "迟到",
              "none": "不是投票"}


def ballot_map(ruleset: Ruleset, state: GameState) -> dict[str, str]:
    """Voter -> target of the running count as the board shows it ("" is an abstention)."""
    return _voters(_shown(ruleset, state))


def _shown(ruleset: Ruleset, state: GameState) -> DayTally | None:
    """The running count as the board shows it: the ballots ledger's `shown` count
    (core.ledgers, issue 34), so a delegation stays secret until the count exactly as the
    board keeps it; None when no vote runs."""
    if ruleset.ballots is None or state.phase.kind != "day":
        return None
    return ruleset.ballots.shown(state)


def _voters(shown: DayTally | None) -> dict[str, str]:
    return {b.voter: b.target for b in shown.ballots} if shown is not None else {}


def vote_counts(ruleset: Ruleset, events: list[Any], links: PostLinks, last_event: int | None = None,
                days: dict[int, DayCount] | None = None) -> dict[int, DayCount]:
    """Every day's vote thread replayed post by post: what each post did to the count, the
    count after each change (the ledger's running count, as the board shows it), and the
    final tally.  Only posts in the vote threads move it (a vote the rules take by PM stays
    secret until the count); a post the rules refuse is marked with a reason from public
    facts only (the reply PM stays private).

    `events`: the stored events, or steps folded already (`web.follow` folds each new event
    once and passes it here with the `days` counted so far, which this carries on)."""
    days = {} if days is None else days
    state: GameState | None = None
    shown: tuple[Any, DayTally | None] = (None, None)  # the last state's shown count, read once
    for step in _steps(ruleset, events):  # the one fold of the log (core.fold)
        if last_event is not None and step.seq > last_event:
            break
        event, before, outcome = step.input, step.before, step.outcome
        state = outcome.state
        moved = (shown[1] if shown[0] is before else _shown(ruleset, before), _shown(ruleset, state))
        shown = (state, moved[1])
        if isinstance(event, PostIn) and _is_vote(event.thread):
            day = days.setdefault(_day_number(event.thread), _new_day(event.thread, links))
            _mark_post(ruleset, day, before, event, outcome, links, moved)
        closes = tallies(outcome.events)
        if not isinstance(event, PostIn) and not closes and before.phase.kind == "day" \
                and state.phase.label == before.phase.label and _voters(moved[0]) != _voters(moved[1]):
            n = before.phase.number  # a delegation, void-vote, enter-vote: a ballot no post cast
            _ledger_moved(days.setdefault(n, _new_day(f"vote:{n}", links)), moved, event.at)
        for count in closes:
            day = days.setdefault(count.day, _new_day(f"vote:{count.day}", links))
            _take_tally(day, count, event.at)
        if before.phase.kind == "day" and state.phase.label != before.phase.label:
            day = days.setdefault(before.phase.number, _new_day(f"vote:{before.phase.number}", links))
            _close_day(day, state, before)
    return shown_days(days, state)


def shown_days(days: dict[int, DayCount], state: GameState | None) -> dict[int, DayCount]:
    """The counts as a page shows them at `state`: the running day's 未投票 as of now (a
    copy of that day; the counts kept for the next events stay as they are)."""
    if state is None or state.phase.kind != "day" or state.phase.number not in days:
        return days
    n = state.phase.number
    return days | {n: replace(days[n], not_voting=_not_voting(state, days[n]))}


def _steps(ruleset: Ruleset, events: list[Any]) -> Iterator[Step]:
    """The steps of the log: folded here from the stored events, or given folded."""
    if events and isinstance(events[0], Step):
        return iter(events)
    return steps(ruleset, events)


def _new_day(key: str, links: PostLinks) -> DayCount:
    return DayCount(number=_day_number(key), thread_key=key, thread_url=links.thread(key), posts=[], rows=[],
                    not_voting=[], abstained=[], history=[], closed=False, out=[])


def _ends(ruleset: Ruleset, state: GameState) -> datetime | None:
    due = public_deadline(ruleset, state) if state.phase.kind == "day" else None
    return due.at if due is not None else None


def _mark_post(ruleset: Ruleset, day: DayCount, before: GameState, post: PostIn, outcome: Any, links: PostLinks,
               moved: tuple[DayTally | None, DayTally | None]) -> None:
    url = links.post(post.thread, post.id)
    marked = MarkedPost(forum_id=post.id, author=post.author, at=post.at, text=post.text, edited=post.edited, url=url,
                        mark="none", note="")
    day.posts.append(marked)
    live = {b.voter: b for row in day.rows for b in row.ballots if not b.struck}
    if day.closed or not (before.phase.kind == "day" and before.phase.number == day.number):
        marked.mark = "late"
        return
    shown = _voters(moved[1])
    old, new = _voters(moved[0]).get(post.author), shown.get(post.author)
    ends = _ends(ruleset, before)
    if any(r.sender == post.author for r in outcome.refusals) and ends is not None and post.at > ends:
        marked.mark = "late"  # written after the close, read before the count (a lagging board)
        return
    if any(r.sender == post.author for r in outcome.refusals):
        marked.mark, marked.note = "refused", _refusal_words(before, post.author, live)
        return
    if old == new or day.counted:  # counted: the close's tally is the day's count
        return
    mine = live.get(post.author)
    if mine is not None:
        mine.struck = True
    if post.author in day.abstained:
        day.abstained.remove(post.author)
    if new == "" and post.author in shown:
        day.abstained.append(post.author)
    if new:
        _row(day, new, post.at).ballots.append(Ballot(post.author, new, post.id, post.at, url))
        marked.mark = "changed" if mine is not None else "counted"
        marked.note = f"投给{new}"
    else:
        abstains = post.author in day.abstained  # 四: 弃权 is a vote of its own
        marked.mark = ("changed" if mine is not None else "counted") if abstains else "unvoted"
        marked.note = "弃权" if abstains else "撤回投票"
    _recount(day, post.at, post.id, moved[1])


def _refusal_words(state: GameState, author: str, live: dict[str, Ballot]) -> str:
    """Why a post was not counted, in public words (never the reply PM's text)."""
    if not any(p.name == author for p in state.players):
        return "不是本局玩家"
    if not state.player(author).alive:
        return "已出局的玩家"
    if author in live:
        return "已经投过票，这一帖不改变计票"
    return "不符合投票规则，未计入"


def _row(day: DayCount, target: str, at: datetime) -> TallyRow:
    for row in day.rows:
        if row.target == target:
            return row
    row = TallyRow(target=target, votes=0, reached=at, ballots=[])
    day.rows.append(row)
    return row


def _recount(day: DayCount, at: datetime, post: str, shown: DayTally | None) -> None:
    """The votes of each row as the ledger's shown count has them (n_lives: the cards of its
    voters), the time each reached its count, one order: votes, then who reached them first.
    `post`: the post that moved it ("" for a vote no post cast)."""
    totals = {r.name: r.total for r in shown.rows} if shown is not None else {}
    for row in day.rows:
        live = [b for b in row.ballots if not b.struck]
        row.votes = totals.get(row.target, 0)
        row.reached = live[-1].at if live else at
    day.rows.sort(key=lambda r: (-r.votes, r.reached))
    line = "，".join(f"{r.target} {r.votes}" for r in day.rows if r.votes) or "无人得票"
    day.history.append(Snapshot(at=at, post=post, line=line))


def _ledger_moved(day: DayCount, moved: tuple[DayTally | None, DayTally | None], at: datetime) -> None:
    """A ballot the rules took or dropped without a post in the thread (hex_survival's
    delegation by PM, `admin void-vote`, `admin enter-vote`): the running count follows the
    ledger's, so a voided voter's next vote is his first again (issue 34 item 5)."""
    if day.closed or day.counted:
        return
    old, new = _voters(moved[0]), _voters(moved[1])
    changed = [v for v in {**old, **new} if old.get(v) != new.get(v) or (v in old) != (v in new)]
    live = {b.voter: b for row in day.rows for b in row.ballots if not b.struck}
    for voter in changed:
        if voter in live:
            live[voter].struck = True
        if voter in day.abstained:
            day.abstained.remove(voter)
        if new.get(voter):
            _row(day, new[voter], at).ballots.append(Ballot(voter, new[voter], "", at, None))
        elif voter in new:
            day.abstained.append(voter)
    _recount(day, at, "", moved[1])


def _take_tally(day: DayCount, count: DayTally, at: datetime) -> None:
    """The close's count (core.tally, issue 34): the rows, totals, modifiers, non-voters
    and the executed exactly as the result post has them; the page does not count again.
    A tie-break count of the same day (生死投票, 招魂) is kept as a line below it."""
    day.executed += [n for n in count.executed if n not in day.executed]
    day.verdict = VERDICT_WORDS.get(count.verdict, "")
    if day.counted:
        day.later.append(Snapshot(at=at, post="", line=f"{BALLOT_WORDS.get(count.ballot, '加赛')}：{count.line()}"))
        return
    day.counted = True
    weighted = any(b.weight != 1 for b in count.ballots)
    running = [b for row in day.rows for b in row.ballots]
    live = {b.voter: b for b in running if not b.struck}
    rows = []
    for r in count.rows:
        ballots = [b for b in running if b.target == r.name and b.struck]
        for t in count.ballots:
            if t.target != r.name or not t.counted:
                continue
            shown = live.pop(t.voter, None)
            if shown is None or shown.target != t.target:
                shown = Ballot(t.voter, t.target, "", at, None)
            shown.how = HOW_WORDS.get(t.how, "")
            shown.weight = t.weight if weighted else None
            ballots.append(shown)
        cast = [b.at for b in ballots if not b.struck]
        rows.append(TallyRow(target=r.name, votes=r.total, reached=max(cast, default=at), ballots=ballots,
                             raw=r.votes, modifier=r.modifier))
    for b in live.values():  # a running vote the close did not count (its target had left…)
        b.struck = True
    day.rows = rows
    day.not_voting = list(count.missing)
    day.abstained = list(count.abstained)
    day.history.append(Snapshot(at=at, post="", line=f"截止计票：{count.line()}"))


def _close_day(day: DayCount, after: GameState, before: GameState) -> None:
    if not day.counted:  # a day closed without a count (the game ended by the GM…)
        day.not_voting = _not_voting(before, day)
    day.closed = True
    label = before.phase.label
    day.out = [p.name for p in after.players if not p.alive and p.died_in == label]


def _not_voting(state: GameState, day: DayCount) -> list[str]:
    voted = {b.voter for row in day.rows for b in row.ballots if not b.struck} | set(day.abstained)
    return [p.name for p in state.players if p.alive and p.name not in voted]


# ---- the timeline (issue 25 item 9) ------------------------------------------------------------


@dataclass
class PhaseEnd:
    label: str  # "day 2"
    name: str  # 第2天
    path: str  # "day/2"
    end_event: int  # the event that closed it: the page shows the state just after it


def phase_ends(ruleset: Ruleset, events: list[Any], held: int | None = None) -> list[PhaseEnd]:
    """Every phase that has ended (and whose closing posts are on the board: before `held`),
    with the event that closed it (`events`: stored, or steps folded already)."""
    out = []
    for step in _steps(ruleset, events):  # the one fold of the log (core.fold)
        if held is not None and step.seq >= held:
            break
        before, after = step.before.phase, step.outcome.state.phase
        if after.label != before.label and before.kind in PHASE_WORDS:
            out.append(PhaseEnd(label=before.label, name=label_name(before.label, ruleset.spec.ruleset),
                                path=f"{before.kind}/{before.number}", end_event=step.seq))
    return out


# ---- the finished game (issue 25 item 8) ------------------------------------------------------


@dataclass
class Reveal:
    seat: int
    name: str
    role: str
    faction: str
    alive: bool
    died_in: str


@dataclass
class Record:
    """What the end post made public: every role, the seed and its salt, and the commitment
    the player list posted at the start."""

    roles: list[Reveal]
    seed: str
    salt: str
    commitment: str  # as posted at the start ("" if no post carried one)
    check: str  # how the commitment is computed, as the end post says


COMMITMENT = re.compile(r"校验值：\s*([0-9a-f]{16,64})")


def finished_record(ruleset: Ruleset, state: GameState, log: list[LogEntry]) -> Record | None:
    """None before the end (nothing of it is public yet)."""
    if state.phase.kind != "over":
        return None
    family = ruleset.spec.ruleset
    roles = [Reveal(seat=p.seat, name=p.name, role=ruleset.spec.role_name(p.role),
                    faction=ruleset.spec.factions.get(p.faction, p.faction), alive=p.alive,
                    died_in=label_name(p.died_in or "", family)) for p in state.players]
    commitment = next((m.group(1) for e in log if (m := COMMITMENT.search(e.body))), "")
    shown = rng.reveal(state)
    return Record(roles=roles, seed=shown["seed"], salt=state.salt, commitment=commitment, check=shown["seed_check"])


# ---- the GM view in words (issue 25 items 11, 13) ------------------------------------------------

def _all_words(table: str) -> dict[str, str]:
    """One word table of every family's record (core.family): for a page that shows a
    stored name without its game (a deadline input in the GM's list)."""
    out: dict[str, str] = {}
    for f in families().values():
        out |= getattr(f, table)()
    return out


def family_words(family: str, table: str) -> dict[str, str]:
    """One word table of one family's record (core.family.Family.step_words, …)."""
    found = families().get(family)
    return getattr(found, table)() if found else _all_words(table)


STEP_WORDS = _all_words("step_words")
DEADLINE_WORDS = _all_words("deadline_words")
CAUSE_WORDS = _all_words("cause_words")
NOTE_WORDS = {"can_vote": "可投票", "on_duty": "今夜值班杀手", "bind_streak": "束魂连续", "potential": "潜在身份",
              "converted": "已转化", "revived": "今日复活", "bound_today": "今日被束缚", "summon_uses": "招魂剩余",
              "needle_marks": "针孔", "muted": "被禁言", "lurk_warnings": "潜水警告", "butterfly_uses_left": "抱人剩余",
              "revive_used": "已用复活", "hp": "剩余血量", "cell": "所在格", "statuses": "状态",
              "attack_list": "攻击范围", "dig_depths": "挖掘深度", "cards": "手牌", "escrow": "托管牌", "ap": "行动点",
              "pardoned": "已赦免", "mode": "模式", "attributes": "牌的属性", "nights": "连续夜数", "target": "对象"}


def _command_words() -> dict[str, str]:
    """Each override's Chinese word, from the table of overrides (core.overrides)."""
    return {o.name: o.word for o in overrides.table([f.ruleset_class() for f in families().values()])}


COMMAND_WORDS = _command_words()


# ids that stand as values in `player_view` notes (game_ten 潜在, n_lives 牌的属性 and 模式)
VALUE_WORDS = {"killer": "杀手", "profession": "职业", "werewolf": "狼人", "diviner": "占卜", "prophet": "先知",
               "solo": "一山不容二虎", "cowin": "并肩作战"}


def words(table: dict[str, str], key: str | None) -> str:
    """A stored name in Chinese; one we have no word for is shown as 其他, never raw."""
    if key is None or key == "":
        return table.get("", "—")
    return table.get(key, "其他")


def note_value(value: Any) -> str:
    """A note's value in words: 是/否, 无, lists joined, a mapping as 名：值."""
    if value is True:
        return "是"
    if value is False:
        return "否"
    if value is None or value in ([], {}, ""):
        return "无"
    if isinstance(value, list):
        return "、".join(note_value(v) for v in value)
    if isinstance(value, dict):
        return "，".join(f"{NOTE_WORDS.get(str(k), str(k))}：{note_value(v)}" for k, v in value.items())
    if isinstance(value, str) and re.fullmatch(r"[a-z_]+", value):
        return VALUE_WORDS.get(value, "其他")
    return str(value)


def gm_notes(view: dict[str, Any]) -> dict[str, str]:
    """The notes of a player's `player_view` worth showing, in Chinese; nothing left at its
    default (False, none, empty) is shown."""
    shown = ("alive", "faction", "role", "role_name", "died_in", "death_cause")
    out = {}
    for key, value in view.items():
        if key == "can_vote":  # worth saying only when he may not
            if value is False:
                out[NOTE_WORDS[key]] = "否"
            continue
        if key in shown or value in (None, False, [], {}, "", 0):
            continue
        if isinstance(value, dict) and all(v in (None, 0, "", []) for v in value.values()):
            continue
        out[NOTE_WORDS.get(key, "其他")] = note_value(value)
    return out


def _quote(word: str) -> str:
    """A shell word: as is when safe (Chinese names are), else quoted."""
    return word if re.fullmatch(r"[\w.:@+-]+", word) else shlex.quote(word)


def admin_commands(game: str, player: str | None = None, seat: int | None = None) -> dict[str, str]:
    """The `tianshen admin …` lines a GM copies: extend the phase (game-wide), void this
    vote and substitute this player (per player).  The reason is left for him to write."""
    g = _quote(game)
    line = Override.named
    if player is None:
        return {"延长本时段": line("extend").line(game=g, hours="24"),
                "提前结束本时段": line("advance").line(game=g),
                "暂停": line("pause").line(game=g)}
    who = _quote(player)
    return {"作废投票": line("void-vote").line(player=who, game=g),
            "替换玩家": line("substitute").line(players=str(seat), game=g),
            "判出局": line("modkill").line(player=who, game=g)}


# ---- the game's clock (issue 25 item 3) -------------------------------------------------------


@dataclass
class GameNow:
    at: datetime  # the game's time now
    scale: float  # game seconds per real second
    rehearsal: bool  # a rehearsal clock runs (the daemon's GameClock on the memory board)


def game_now(mark: str | None, real_now: datetime) -> GameNow:
    """The game's time now, from the daemon's `game_clock` mark (a rehearsal clock: game
    time at a real time, and its speed); the real time when there is none."""
    try:
        clock = json.loads(mark) if mark else None
        if not clock:
            return GameNow(real_now, 1.0, False)
        game, real = datetime.fromisoformat(clock["game"]), datetime.fromisoformat(clock["real"])
        scale = float(clock["scale"])
    except (ValueError, KeyError, TypeError):
        return GameNow(real_now, 1.0, False)
    return GameNow(game + (real_now - real) * scale, scale, True)


# ---- the public record as JSON (issue 25 item 8) -------------------------------------------------


def public_json(ctx: dict[str, Any]) -> dict[str, Any]:
    """What the public page shows, as data: nothing more (the roles and the seed only once
    the game is over and the end post told them)."""
    out: dict[str, Any] = {"game": ctx["game"].name, "title": ctx["title"], "status": ctx["status"],
                           "phase": ctx["phase"], "zone": ctx["zone"], "winner": ctx.get("winner"),
                           "players": [asdict(p) for p in ctx.get("players", [])]}
    out["announcements"] = [{"thread": e.thread, "title": e.title, "at": e.at, "url": e.url, "body": e.body}
                            for e in ctx.get("log", [])]
    out["votes"] = [_day_json(d) for d in ctx.get("counts", [])]
    record = ctx.get("record")
    if record is not None:
        out["record"] = asdict(record)
    return out


def _day_json(day: DayCount) -> dict[str, Any]:
    return {"day": day.number, "closed": day.closed, "out": day.out, "not_voting": day.not_voting,
            "abstained": day.abstained, "executed": day.executed, "verdict": day.verdict,
            "tally": [{"target": r.target, "votes": r.votes, "raw": r.raw, "modifier": r.modifier,
                       "reached": r.reached, "ballots": [asdict(b) for b in r.ballots]} for r in day.rows],
            "later": [asdict(h) for h in day.later],
            "posts": [asdict(p) | {"mark_words": MARK_WORDS[p.mark]} for p in day.posts],
            "history": [asdict(h) for h in day.history]}


# ---- one player's panel (issue 38 item 6) ----------------------------------------------------


@dataclass
class PanelPm:
    """A PM of the player's own view after the game: one he sent, or one 神的使者 sent him."""

    at: datetime | None
    sent: bool  # True: he sent it; False: he received it
    subject: str
    text: str


@dataclass
class PlayerPanel:
    player: PublicPlayer
    posts: list[tuple[int, MarkedPost]]  # (day, post) in the vote threads, in order
    votes: list[tuple[int, Ballot]]  # (day, ballot) as the counts show them, struck ones too
    pms: list[PanelPm] | None  # his own PMs, only once the game is over (None before)


def player_panel(state: GameState, players: list[PublicPlayer], counts: list[DayCount], seat: int,
                 pms: list[PanelPm] | None) -> PlayerPanel | None:
    """What the board showed of one player (his posts, his votes, his public fate), and after
    the game what his own PMs said; None for no such seat."""
    public = next((p for p in players if p.seat == seat), None)
    player = next((p for p in state.players if p.seat == seat), None)
    if public is None or player is None:
        return None
    names = {player.name, player.forum_name or player.name}
    days = sorted(counts, key=lambda d: d.number)
    posts = [(d.number, post) for d in days for post in d.posts if post.author in names]
    votes = [(d.number, b) for d in days for row in d.rows for b in row.ballots if b.voter in names]
    votes.sort(key=lambda v: (v[0], v[1].at))
    return PlayerPanel(player=public, posts=posts, votes=votes, pms=pms)
