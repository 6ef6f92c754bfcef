"""Benchmark: what an idle poll costs in requests, and how long 10 writes take under flood
control, on a fake clock against fake boards (no network, no real sleeping).  Prints figures;
asserts nothing.

- Idle polls: the Discuz adapter against the recorded X3.5 and X3.4 pages (the tests'
  `RecordedBoard`, `shared/forums/`), on the mobile API and on the PC pages; the Spirit
  adapter against a minimal Spirit-like board (`SpiritLike` below: a private-topic list and
  one topic page, in Spirit 0.14's markup).  A poll = `fetch_pms` + `read_thread` of the vote
  thread + `now()`, after a first look.
- Sends: 10 PMs through the Discuz adapter to a board whose flood control counts from its last
  accepted write (whole seconds), at 0, 15 and 30 s; with the interval configured and learned
  (unconfigured); and with a refusal in the middle (someone else writes from the GM account
  just before the 5th send).  Bound: N × interval + 1 s.

    .venv/bin/python bench/forum_pacing.py
"""

from __future__ import annotations

import json
import re
import sys
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from urllib.parse import parse_qs

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from forums.discuz_fixtures import (  # noqa: E402
    X35,
    json_page,
    load,
    make_forum,
    x34_board,
    x35_board,
)
from tianshen.forum.discuz import DiscuzForum  # noqa: E402
from tianshen.forum.spirit import SpiritForum  # noqa: E402

EPOCH = datetime(2026, 12, 2, 13, 30, tzinfo=UTC)


class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0

    def sleep(self, s: float) -> None:
        self.t += max(0.0, s)

    def monotonic(self) -> float:
        return self.t

    def wall(self) -> datetime:
        return EPOCH + timedelta(seconds=self.t)


# ---- idle polls -------------------------------------------------------------------------------


def discuz_idle(version: str, api: bool) -> tuple[int, int]:
    """(requests of the first look, requests of each later idle poll)."""
    board = (x35_board if version == "x3.5" else x34_board)(api=api)
    if api:
        entries = json.loads(load(version, "api-mypm-list.json")[2])["Variables"]["list"]
        board.api("GET", "mypm", json_page(version, "api-mypm-list.json", list=[{**e, "isnew": "0"} for e in entries]))
    else:
        name = "html-pm-list.html"
        status, headers, body = load(version, name)
        charset = "gb18030" if version == "x3.4" else "utf-8"
        read = re.sub(r"(bbda cur1 cl) newpm", r"\1", body.decode(charset)).encode(charset)
        board.on("GET", "home.php", lambda r: httpx.Response(status, headers=headers, content=read), mod="space",
                 do="pm", filter="privatepm")
        touid = "2" if version == "x3.5" else "3"
        view = "html-pm-view-touid2.html" if version == "x3.5" else "html-pm-view-touid3-player1.html"
        board.on("GET", "home.php", view, mod="space", do="pm", subop="view")
        board.on("GET", "home.php", view, mod="space", do="pm", subop="view", touid=touid)
    forum = make_forum(board)
    forum.login()
    asked = len(board.requests)
    forum.fetch_pms(None)
    last = forum.read_thread("1", None)[-1].id
    first = len(board.requests) - asked
    asked = len(board.requests)
    for _ in range(5):
        forum.fetch_pms(None)
        forum.read_thread("1", last)
        forum.now()
    return first, (len(board.requests) - asked) // 5


class SpiritLike:
    """Just enough of a Spirit 0.14 forum for the GM's polls: login, one private topic with a
    player's PM, one public vote topic with a vote."""

    def __init__(self) -> None:
        self.requests = 0

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        path = request.url.path
        date = {"Date": format_datetime(EPOCH, usegmt=True)}
        html = {"Content-Type": "text/html; charset=utf-8", **date}
        if path == "/user/login/" and request.method == "GET":
            return httpx.Response(200, headers={**html, "Set-Cookie": "csrftoken=t; Path=/"},
                                  text='<input name="csrfmiddlewaretoken" value="t">')
        if path == "/user/login/":
            return httpx.Response(302, headers={"Location": "/user/", "Set-Cookie": "sessionid=s; Path=/", **date})
        if path == "/user/":
            return httpx.Response(200, headers=html, text=self._page('<a data-related=".js-user-content">神的使者</a>'))
        if path == "/topic/private/":
            return httpx.Response(200, headers=html, text=self._page(
                '<div class="layout__topics__topic"><a class="topic__link" href="/topic/private/5/gm/">神的使者 ↔ 白狐</a>'
                '<div class="topic__comments">2</div><span class="topic__date" title="2026-12-02T13:00:00+00:00">'
                "</span></div>"))
        m = re.match(r"^/topic/(?:private/)?(\d+)/", path)
        if m:
            rows = self._row(10, 1, "神的使者", "你是村民") + self._row(11, 2, "白狐", "查验 青竹") if m.group(1) == "5" \
                else self._row(20, 1, "神的使者", "请投票") + self._row(21, 2, "白狐", "投票 青竹")
            return httpx.Response(200, headers=html, text=self._page(f'<div class="comments_list">{rows}</div>'))
        return httpx.Response(404, headers=html, text="not here")

    @staticmethod
    def _page(body: str) -> str:
        return f'<html><body><a href="/user/logout/">out</a>{body}</body></html>'

    @staticmethod
    def _row(pk: int, number: int, author: str, text: str) -> str:
        return (f'<div class="comments_list__comment js-comment" data-number="{number}" data-pk="{pk}">'
                f'<a class="comment__info__username__link" href="/user/2/x/"><span>{author}</span></a>'
                f'<ul class="comment__info__date"><li title="2026-12-02T13:00:0{number}+00:00">1m</li></ul>'
                f'<div class="comment__text"><p>{text}</p></div></div>')


def spirit_idle() -> tuple[int, int]:
    board = SpiritLike()
    client = httpx.Client(transport=httpx.MockTransport(board.handle))
    forum = SpiritForum("http://spirit.test", "神的使者", "pw", client=client, min_write_interval_s=0)
    forum.login()
    asked = board.requests
    mark = forum.fetch_pms(None)[-1].id
    last = forum.read_thread("7", None)[-1].id
    first = board.requests - asked
    asked = board.requests
    for _ in range(5):
        forum.fetch_pms(mark)
        forum.read_thread("7", last)
        forum.now()
    return first, (board.requests - asked) // 5


# ---- sends under flood control ------------------------------------------------------------------


def timed_sends(interval: int, configured: bool, refusal_in_middle: bool, n: int = 10) -> tuple[float, int]:
    """(seconds the n sends took, requests they made) on a fake board at `interval`."""
    clock = FakeClock()
    ok = json.loads((X35 / "api-sendpm-ok.json").read_bytes())
    flood = json.loads((X35 / "api-error-pm-flood.json").read_bytes())
    state = {"last": None, "sends": 0}

    def send(request: httpx.Request) -> httpx.Response:
        state["sends"] += 1
        now = int(clock.t)  # the board stamps whole seconds
        message = parse_qs(request.content.decode()).get("message", [""])[0]
        if refusal_in_middle and message == "send 4" and not state.get("other"):
            state["other"] = True  # someone else wrote from the account just now
            state["last"] = now
        if state["last"] is not None and now - state["last"] < interval:
            return httpx.Response(200, json=flood)
        state["last"] = now
        return httpx.Response(200, json=ok)

    board = x35_board()
    board.api("POST", "sendpm", send)
    real_board_date = board.response

    def dated(request: httpx.Request, serve: object) -> httpx.Response:
        board.date = clock.wall()
        return real_board_date(request, serve)  # type: ignore[arg-type]

    board.response = dated  # type: ignore[method-assign]
    forum = DiscuzForum(board.base_url, "mafiagm", "gm123456", 3, transport=board.transport(),
                        sleep=clock.sleep, monotonic=clock.monotonic, clock=clock.wall,
                        flood_interval_s=interval if configured else None, flood_retries=8)
    forum.login()
    start = clock.t
    for i in range(n):
        forum.send_pm("player1", "", f"send {i}", f"k{i}")
    return clock.t - start, state["sends"]


def main() -> None:
    print("idle poll (fetch_pms + read_thread of the vote thread + now), requests")
    print(f"  {'board':<28} {'first look':>10} {'each poll':>10}")
    for version in ("x3.5", "x3.4"):
        for api in (True, False):
            first, each = discuz_idle(version, api)
            print(f"  {'Discuz ' + version + (' mobile API' if api else ' PC pages'):<28} {first:>10} {each:>10}")
    first, each = spirit_idle()
    print(f"  {'Spirit-like':<28} {first:>10} {each:>10}")
    print()
    print("10 sends under flood control (fake clock): seconds taken, requests; bound = 10 x interval + 1 s")
    print(f"  {'board interval':>14} {'adapter':<22} {'refusal':<8} {'seconds':>8} {'requests':>8} {'bound':>6}")
    for interval in (0, 15, 30):
        for configured in (True, False):
            for refusal in (False, True):
                took, sends = timed_sends(interval, configured, refusal)
                label = f"configured {interval} s" if configured else "learned (from 0 s)"
                print(f"  {interval:>12} s {label:<22} {'yes' if refusal else 'no':<8} {took:>8.0f} {sends:>8} "
                      f"{10 * interval + 1:>6}")


if __name__ == "__main__":
    main()
