"""Issue 31 item 1 on the recorded pages: UCenter's conversation view lists only messages
older than the current second (`onview()` sets `$endtime = $this->time`,
`getprivatepmbyplid()` adds `p.dateline < '$endtime'`, on every page), while the inbox and
the conversation's count show them all.  A PM the player writes in the second the adapter
reads his conversation must still be read, on a later poll; a conversation whose count never
agrees with its pages is handed to the GM once."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from forums.discuz_fixtures import (
    RecordedBoard,
    Sleeps,
    load,
    make_forum,
    needs_recordings,
    x34_board,
    x35_board,
)

pytestmark = needs_recordings

T0 = datetime(2026, 12, 2, 13, 30, 0, 400000, tzinfo=UTC)  # 0.4 s into a second
KILL = "夜晚行动：我(狼人)选择杀 player3"
CASES = {  # version, api: (recorded view, recorded inbox, player uid, player name)
    ("x3.5", True): ("api-mypm-view-touid2-perpage100.json", "api-mypm-list.json", 2, "player1"),
    ("x3.4", True): ("api-mypm-view-touid6-perpage100.json", "api-mypm-list.json", 6, "player4"),
    ("x3.5", False): ("html-pm-view-touid2.html", "html-pm-list.html", 2, "player1"),
}


class UCenter:
    """One conversation of a recorded board as UCenter serves it: messages written now are
    in the inbox (its last message, unread) and in the count at once, but in the view only
    from the next second on (or never, `hidden`)."""

    def __init__(self, board: RecordedBoard, api: bool, view: str, inbox: str, uid: int, name: str) -> None:
        self.board, self.api, self.view, self.inbox, self.uid, self.name = board, api, view, inbox, uid, name
        self.written: list[tuple[int, str, datetime]] = []
        self.unread = False
        self.hidden = False
        if api:
            board.api("GET", "mypm", self._api_inbox)
            board.api("GET", "mypm", self._api_view, subop="view", touid=str(uid))
        else:
            board.on("GET", "home.php", self._pc_inbox, mod="space", do="pm")
            board.on("GET", "home.php", self._pc_view, mod="space", do="pm", subop="view", touid=str(uid))

    def write(self, pmid: int, text: str) -> None:
        self.written.append((pmid, text, self.board.date))
        self.unread = True

    def _shown(self) -> list[tuple[int, str, datetime]]:
        now = int(self.board.date.timestamp())
        return [] if self.hidden else [w for w in self.written if int(w[2].timestamp()) < now]  # dateline < endtime

    def _ago(self, at: datetime) -> str:
        seconds = int((self.board.date - at).total_seconds())
        return f"{seconds}&nbsp;秒前" if seconds else "刚刚"

    # ---- the mobile API ---------------------------------------------------------------------

    def _api_inbox(self, request: httpx.Request) -> httpx.Response:
        data = json.loads(load(self.board.version, self.inbox)[2])
        if self.written:
            pmid, text, at = self.written[-1]
            for e in data["Variables"]["list"]:
                if int(e["touid"]) == self.uid:
                    e.update(isnew="1" if self.unread else "0", message=text, msgfromid=str(self.uid),
                             msgfrom=self.name, vdateline=self._ago(at))
        return httpx.Response(200, json=data)

    def _api_view(self, request: httpx.Request) -> httpx.Response:
        self.unread = False  # viewing marks the conversation read
        data = json.loads(load(self.board.version, self.view)[2])
        variables = data["Variables"]
        old = variables["list"]
        like = next(m for m in old if int(m["msgfromid"]) == self.uid)
        variables["list"] = old + [dict(like, pmid=str(pmid), message=text, vdateline=self._ago(at))
                                   for pmid, text, at in self._shown()]
        variables.update(count=str(len(old) + len(self.written)), perpage="100", page="1")
        return httpx.Response(200, json=data)

    # ---- the PC pages -----------------------------------------------------------------------

    def _pc_inbox(self, request: httpx.Request) -> httpx.Response:
        status, headers, body = load(self.board.version, self.inbox)
        page = body.decode("utf-8")
        if self.written:
            _, text, _ = self.written[-1]
            start = page.index('<dl id="pmlist_1"')
            end = page.index("</dl>", start)
            entry = page[start:end].replace('class="bbda cur1 cl"', 'class="bbda cur1 cl' + (' newpm"' if self.unread
                                                                                              else '"'))
            entry = re.sub(r'<span class="xi2 xw1">您</span> 对 <a href="home.php\?mod=space&amp;uid=2" '
                           r'target="_blank">player1</a> 说 :<br />\n[^<]*',
                           f'<a href="home.php?mod=space&amp;uid=2" target="_blank" class="xw1">player1</a> 对 '
                           f'<span class="xi2">您</span> 说 :<br />\n{text} ', entry)
            page = page[:start] + entry + page[end:]
        return httpx.Response(status, headers=headers, content=page.encode("utf-8"))

    def _pc_view(self, request: httpx.Request) -> httpx.Response:
        self.unread = False
        status, headers, body = load(self.board.version, self.view)
        page = body.decode("utf-8")
        start = page.index('<dl id="pmlist_8"')
        like = page[start:page.index("</dl>", start) + len("</dl>")]
        added = ""
        for pmid, text, at in self._shown():
            copy = re.sub(r"(?<=[a-z_])8\b", str(pmid), like).replace("夜晚行动：我(狼人)选择杀 player5", text)
            added += copy.replace('title="2026-12-2 21:24"', f'title="{(at + timedelta(hours=8)):%Y-%-m-%-d %H:%M}"')
        last = page.index('</dl><a name="last"></a>')
        page = page[:last] + "</dl>" + added[:-len("</dl>")] + page[last:]
        count = 3 + len(self.written)
        page = page.replace('<span id="membernum" class="xi1">3</span>', f'<span id="membernum" class="xi1">{count}</span>')
        return httpx.Response(status, headers=headers, content=page.encode("utf-8"))


def _setup(version: str, api: bool) -> tuple[RecordedBoard, UCenter, object, list[datetime]]:
    board = x35_board(api=api) if version == "x3.5" else x34_board(api=api)
    view, inbox, uid, name = CASES[(version, api)]
    ucenter = UCenter(board, api, view, inbox, uid, name)
    now = [T0]
    board.date = T0
    forum = make_forum(board, _Elapsing(now), clock=lambda: now[0])
    forum.login()
    return board, ucenter, forum, now


class _Elapsing(Sleeps):
    """The monotonic clock moves with the test's time, as a real one moves between polls (the
    adapter runs the board's last `Date` on it)."""

    def __init__(self, now: list[datetime]) -> None:
        super().__init__()
        self.now = now

    def monotonic(self) -> float:
        return self.t + (self.now[0] - T0).total_seconds()


def _at(board: RecordedBoard, now: list[datetime], when: datetime) -> None:
    board.date = when
    now[0] = when


@pytest.mark.parametrize(("version", "api"), list(CASES))
def test_a_pm_written_in_the_second_of_the_read_is_read_on_the_next_poll(version: str, api: bool) -> None:
    board, ucenter, forum, now = _setup(version, api)
    before = {p.id for p in forum.fetch_pms(None)}
    assert 900 not in before
    ucenter.write(900, KILL)  # in the very second of the next read
    first = forum.fetch_pms(None)
    assert 900 not in [p.id for p in first]  # UCenter's view does not list it yet
    _at(board, now, T0 + timedelta(seconds=5))  # the next poll: the inbox says it was read
    second = forum.fetch_pms(None)
    assert [(p.id, p.sender, p.text) for p in second if p.id == 900] == [(900, ucenter.name, KILL)]
    _at(board, now, T0 + timedelta(seconds=10))
    third = forum.fetch_pms(None)
    assert [p.id for p in third].count(900) == 1  # the same forum id: the store drops it as read
    assert forum.pm_gaps() == []


@pytest.mark.parametrize(("version", "api"), list(CASES))
def test_a_conversation_that_never_agrees_is_handed_out_once(version: str, api: bool) -> None:
    board, ucenter, forum, now = _setup(version, api)
    forum.fetch_pms(None)
    ucenter.write(901, KILL)
    ucenter.hidden = True  # the view never lists it
    reported, told_at = [], []
    for i in range(12):  # polls 20 s apart: four minutes
        _at(board, now, T0 + timedelta(seconds=20 * i))
        assert 901 not in [p.id for p in forum.fetch_pms(None)]
        gaps = forum.pm_gaps()
        reported += gaps
        told_at += [i] * len(gaps)
    assert len(reported) == 1, reported
    gap = reported[0]
    assert gap.player == ucenter.name and gap.count == gap.read + 1
    assert abs(gap.since - T0) < timedelta(seconds=1)
    assert told_at == [6]  # the bound: 2 minutes (and 3 polls) after the first poll that saw it short
    views = len(board.sent("GET", path=None, subop="view", touid=str(ucenter.uid)))
    ucenter.hidden = False  # the board shows it at last: read, and nothing more handed out
    _at(board, now, T0 + timedelta(minutes=5))
    assert [p.id for p in forum.fetch_pms(None)].count(901) == 1
    assert len(board.sent("GET", path=None, subop="view", touid=str(ucenter.uid))) > views
    assert forum.pm_gaps() == []
