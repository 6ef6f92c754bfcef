"""A PHPWind 9 board made of recorded answers (`shared/forums/phpwind9/pages`), served through
`httpx.MockTransport`.  Every page comes with its recorded status and headers (cookies too:
the install's `GVd_` prefix and the `csrf_token`); every answer carries a `Date` header,
`board.date` or the real current time.  Routes match on the path and a subset of the query
and form fields; the most specific route wins, later ones win ties; a route serving a list
serves it in turn and then keeps serving the last.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path
from urllib.parse import parse_qs

import httpx
import pytest

from forums.recorded import Route, Routed, Sleeps

ROOT = Path(os.environ.get("TIANSHEN_FORUM_RECORDINGS", Path(__file__).resolve().parents[3] / "shared" / "forums"))
PAGES = ROOT / "phpwind9" / "pages"
BASE = "http://127.0.0.1:18070/"
GM = ("神的使者", 2, 3)  # name, uid, fid
RECORDED_AT = datetime(2026, 12, 6, 1, 42, tzinfo=UTC)  # a minute after the last recording

needs_recordings = pytest.mark.skipif(not PAGES.is_dir(), reason=f"recorded PHPWind pages not found under {ROOT}: "
                                      "set TIANSHEN_FORUM_RECORDINGS (docs/testing.md)")

def load(name: str) -> tuple[int, list[tuple[str, str]], bytes]:
    body = (PAGES / name).read_bytes()
    status, headers = 200, []
    for line in (PAGES / f"{name}.headers.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("HTTP"):
            status = int(line.split()[1])
            continue
        if ":" not in line:
            continue
        k, v = (x.strip() for x in line.split(":", 1))
        if k.lower() in ("date", "connection", "content-length", "transfer-encoding", "content-encoding"):
            continue
        headers.append((k, v))
    return status, headers, body


def text(name: str) -> str:
    return (PAGES / name).read_text(encoding="utf-8")


def page(body: str, status: int = 200) -> Callable[[httpx.Request], httpx.Response]:
    """A page made for a state the recordings lack (a recorded page changed)."""
    def serve(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, content=body.encode("utf-8"), headers={"Content-Type": "text/html;charset=utf-8"})
    return serve


@dataclass
class RecordedPhpwind(Routed):
    date: datetime | None = None
    routes: list[Route] = field(default_factory=list)
    requests: list[httpx.Request] = field(default_factory=list)
    forms: list[dict[str, str]] = field(default_factory=list)
    base_url: str = BASE

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        body = request.content.decode("ascii", errors="replace") if request.content else ""
        form = {k: v[0] for k, v in parse_qs(body, keep_blank_values=True).items()}
        self.forms.append(form)
        date = format_datetime(self.date or datetime.now(UTC), usegmt=True)
        route = self.route(request, form)
        if route is None:
            return httpx.Response(404, text=f"no recorded page for {request.method} {request.url}",
                                  headers={"Date": date})
        serve = route.next()
        if callable(serve):
            resp = serve(request)
        elif isinstance(serve, bytes):
            resp = httpx.Response(200, content=serve, headers={"Content-Type": "text/html;charset=utf-8"})
        else:
            status, headers, content = load(serve)
            resp = httpx.Response(status, headers=headers, content=content)
        resp.headers["Date"] = date
        return resp


    def sent(self, method: str = "POST", **query: str) -> list[tuple[httpx.Request, dict[str, str]]]:
        return [(r, f) for r, f in zip(self.requests, self.forms, strict=True)
                if r.method == method and all(r.url.params.get(k) == v for k, v in query.items())]


def recorded_board(logged_in: bool = True) -> RecordedPhpwind:
    """The board in the state of its recordings, the GM able to log in."""
    b = RecordedPhpwind(date=RECORDED_AT)
    b.on("GET", "index.php", "login-form.html", m="u", c="login")
    b.on("POST", "index.php", "login-post-ok.json", m="u", c="login", a="dorun")
    b.on("GET", "index.php", "login-welcome.html", m="u", c="login", a="welcome")
    b.on("GET", "index.php", "logout.html", m="u", c="login", a="logout")
    b.on("GET", "index.php", "forumlist.html", m="bbs", c="forumlist")
    b.on("GET", "index.php", "home-gm.html")
    b.on("GET", "index.php", "forum-list-ajax.json", c="forum", a="list")
    b.on("GET", "index.php", "board-fid3.html", c="thread", fid="3")
    b.on("GET", "read.php", "thread-tid1-players.html", tid="1")
    b.on("GET", "read.php", "thread-tid4-page1.html", tid="4")
    b.on("GET", "read.php", "thread-tid4-page2.html", tid="4", page="2")
    b.on("GET", "index.php", "post-jump-tid4-pid12.html", c="read", a="jump", tid="4")
    b.on("GET", "index.php", "pm-inbox-gm.html", m="message", c="message")
    b.on("GET", "index.php", "pm-dialog-gm-dialogid2-after-gm-reply.html", m="message", c="message", a="dialog",
         dialogid="2")
    b.on("GET", "index.php", "pm-dialog-gm-dialogid8-player4-multiline.html", m="message", c="message", a="dialog",
         dialogid="8")
    for dialog in (4, 6, 10, 12, 13):  # conversations recorded only in the list: one message each, derived
        b.on("GET", "index.php", derived_dialog(dialog), m="message", c="message", a="dialog", dialogid=str(dialog))
    b.on("GET", "index.php", "profile-username-player3.html", m="space")
    b.on("GET", "index.php", "profile-username-nonexistent.html", m="space", username="不存在的人")
    return b


# the dialog-list entries without a recorded dialog page: (other uid, name, message id, text)
DERIVED = {4: (4, "player2", 2, "player2 报到，我的身份是平民吗？"), 6: (5, "player3", 3, "杀 player6"),
           10: (9, "player7", 6, "法官：我今晚放弃行动"), 12: (8, "player6", 7, "（弹窗发送）player6 请求查看规则"),
           13: (10, "player8", 10, "player8 第1条：收到身份")}


def derived_dialog(dialog: int) -> Callable[[httpx.Request], httpx.Response]:
    """A dialog page made from the recorded one of dialog 8 (player4's single message) with
    another sender, message id and text: the list shows those, the recording lacks the page."""
    uid, name, mid, body = DERIVED[dialog]
    src = text("pm-dialog-gm-dialogid8-player4-multiline.html")
    src = src.replace("dialogid=8&messageid=4", f"dialogid={dialog}&messageid={mid}")
    src = src.replace("type_id=4\" data-pid=\"4\"", f"type_id={mid}\" data-pid=\"{mid}\"")
    src = src.replace('data-uid="6"  target="_blank">player4</a>：我选择 保护 player1\n第二行：请确认收到',
                      f'data-uid="{uid}"  target="_blank">{name}</a>：{body}')
    return page(src)


def make_forum(board: RecordedPhpwind, sleeps: Sleeps | None = None, password: str = "gm123456", **kw: object):
    from tianshen.forum.phpwind import PhpwindForum

    name, _, fid = GM
    s = sleeps or Sleeps()
    return PhpwindForum(board.base_url, name, password, fid, transport=board.transport(), sleep=s.sleep,
                        monotonic=s.monotonic, **kw)  # type: ignore[arg-type]
