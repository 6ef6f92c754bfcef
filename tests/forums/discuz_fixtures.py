"""A Discuz! board made of recorded answers, served through `httpx.MockTransport`.

The pages are the real responses recorded from stock Discuz! X3.5 (UTF-8) and X3.4 (GBK)
boards in `shared/forums/discuz-*/pages` (GBK bytes stay GBK).  X3.4 pages come with their
recorded status and headers (`.headers.txt`); X3.5 pages have none, so a status and a
Content-Type are made up from the file type (System Error pages: 503), and the login answers
get the cookies the recording board set.  Every answer carries a `Date` header: `board.date`,
or the real current time.

Routes match on the path and a subset of the query (and, for POSTs, of the form fields);
the most specific route wins, later ones win ties.  A route serving a list of pages serves
them in turn and then keeps serving the last.  `board.requests` keeps every request.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path
from urllib.parse import parse_qs

import httpx
import pytest

from forums.recorded import Route, Routed, Serve, Sleeps

ROOT = Path(os.environ.get("TIANSHEN_FORUM_RECORDINGS", Path(__file__).resolve().parents[3] / "shared" / "forums"))
X35 = ROOT / "discuz-x3.5" / "pages"
X34 = ROOT / "discuz-x3.4-gbk" / "pages"
BASE = {"x3.5": "http://127.0.0.1:18080/", "x3.4": "http://127.0.0.1:18081/"}
COOKIEPRE = {"x3.5": "nZAG_2132_", "x3.4": "vfpC_2132_"}
GM = {"x3.5": ("mafiagm", 10, 3), "x3.4": ("mafiagm", 2, 36)}  # name, uid, fid

needs_recordings = pytest.mark.skipif(not X35.is_dir() or not X34.is_dir(),
                                      reason=f"recorded Discuz pages not found under {ROOT}: set "
                                             "TIANSHEN_FORUM_RECORDINGS to the directory of discuz-x3.5/ "
                                             "and discuz-x3.4-gbk/ (docs/testing.md)")


def _split_cookies(value: str) -> list[str]:
    """A recorded `Set-Cookie` line joins several cookies with ', ' (dates hold commas too)."""
    return re.split(r", (?=[A-Za-z0-9_]+=)", value)


def load(version: str, name: str) -> tuple[int, list[tuple[str, str]], bytes]:
    folder = X35 if version == "x3.5" else X34
    body = (folder / name).read_bytes()
    head = folder / f"{name}.headers.txt"
    if not head.exists() and name.endswith(".json"):
        alt = folder / name.replace(".json", ".headers.txt")
        head = alt if alt.exists() else head
    headers: list[tuple[str, str]] = []
    status = 200
    if head.exists():
        lines = head.read_text(encoding="utf-8", errors="replace").splitlines()
        started = False
        for line in lines:
            if line.startswith("HTTP"):
                status = int(line.split()[1])
                started = True
                continue
            if not started or ":" not in line:
                continue
            k, v = line.split(":", 1)
            k, v = k.strip(), v.strip()
            if k.lower() in ("date", "host", "connection", "content-length", "transfer-encoding", "content-encoding"):
                continue
            if k.lower() == "set-cookie":
                headers += [("Set-Cookie", c) for c in _split_cookies(v)]
            else:
                headers.append((k, v))
        return status, headers, body
    # X3.5: no recorded headers
    text = body[:3000].decode("utf-8", errors="replace")
    if name.endswith(".json") and body.lstrip()[:1] == b"{":
        headers.append(("Content-Type", "application/json; charset=utf-8"))
    elif name.endswith(".xml"):
        headers.append(("Content-Type", "text/xml; charset=utf-8"))
    else:
        headers.append(("Content-Type", "text/html; charset=utf-8"))
    if "System Error" in text:
        status = 503
    pre = COOKIEPRE[version]
    if name in ("api-login-v3-ok.json", "html-login-post-success-ajax.xml", "html-login-post-success-ajax-2.xml"):
        headers += [("Set-Cookie", f"{pre}saltkey=PDXEc0K7; path=/; HttpOnly"),
                    ("Set-Cookie", f"{pre}auth=6e10%2Ft9i42YELL7TZvWJbE; path=/; HttpOnly")]
    return status, headers, body


@dataclass
class RecordedBoard(Routed):
    version: str = "x3.5"
    date: datetime | None = None
    routes: list[Route] = field(default_factory=list)
    requests: list[httpx.Request] = field(default_factory=list)
    forms: list[dict[str, str]] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        return BASE[self.version]

    def api(self, method: str, module: str, serve: Serve | list[Serve], form: dict[str, str] | None = None,
            **query: str | int) -> Route:
        return self.on(method, "api/mobile/index.php", serve, form, module=module, **query)

    def response(self, request: httpx.Request, serve: Serve) -> httpx.Response:
        if callable(serve):
            resp = serve(request)
        elif isinstance(serve, bytes):
            resp = httpx.Response(200, content=serve, headers={"Content-Type": "text/html; charset=utf-8"})
        else:
            status, headers, body = load(self.version, serve)
            resp = httpx.Response(status, headers=headers, content=body)
        resp.headers["Date"] = format_datetime(self.date or datetime.now(UTC), usegmt=True)
        return resp

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        form = _form(request, "gb18030" if self.version == "x3.4" and "api/mobile" not in request.url.path
                     else "utf-8")
        self.forms.append(form)
        route = self.route(request, form)
        if route is None:
            return httpx.Response(404, text=f"no recorded page for {request.method} {request.url}",
                                  headers={"Date": format_datetime(self.date or datetime.now(UTC), usegmt=True)})
        return self.response(request, route.next())


    def sent(self, method: str = "POST", path: str | None = None, **query: str) -> list[tuple[httpx.Request, dict]]:
        out = []
        for req, form in zip(self.requests, self.forms, strict=True):
            if req.method != method or (path and req.url.path.lstrip("/") != path):
                continue
            if all(req.url.params.get(k) == v for k, v in query.items()):
                out.append((req, form))
        return out


def _form(request: httpx.Request, charset: str) -> dict[str, str]:
    body = request.content
    if not body:
        return {}
    parsed = parse_qs(body.decode("ascii", errors="replace"), keep_blank_values=True, encoding=charset)
    return {k: v[0] for k, v in parsed.items()}


def json_page(version: str, name: str, **variables: object) -> Callable[[httpx.Request], httpx.Response]:
    """A recorded JSON answer with some `Variables` changed (for states the recording lacks)."""
    data = json.loads(load(version, name)[2])

    def serve(request: httpx.Request) -> httpx.Response:
        copy = json.loads(json.dumps(data))
        copy["Variables"].update(variables)
        return httpx.Response(200, json=copy)
    return serve


def derived_pm_view(version: str, list_name: str, plid: int, pmid: int) -> Callable[[httpx.Request], httpx.Response]:
    """A conversation view made from a recorded inbox entry (the recordings have no view of
    every conversation): the player's last message, with the pmid given, in the recorded
    `mypm&subop=view` shape."""
    entries = json.loads(load(version, list_name)[2])["Variables"]["list"]
    e = next(x for x in entries if int(x["plid"]) == plid)
    gm_name, gm_uid, _ = GM[version]
    view = "api-mypm-view-touid2.json" if version == "x3.5" else "api-mypm-view-touid6-player4.json"
    message = {"plid": e["plid"], "subject": e["subject"], "pmid": str(pmid), "message": e["message"],
               "touid": str(gm_uid), "msgfromid": e["msgfromid"], "msgfrom": e["msgfrom"], "vdateline": e["vdateline"]}
    return json_page(version, view, list=[message], count="1", perpage="100", page="1")


DERIVED_PMID = 100  # a derived view's message gets pmid DERIVED_PMID + plid


def derive_views(board: RecordedBoard, list_name: str, recorded_touid: int) -> None:
    for e in json.loads(load(board.version, list_name)[2])["Variables"]["list"]:
        if int(e["touid"]) != recorded_touid:
            board.api("GET", "mypm", derived_pm_view(board.version, list_name, int(e["plid"]),
                                                     DERIVED_PMID + int(e["plid"])),
                      subop="view", touid=e["touid"])


def recorded_threads(version: str) -> list[dict[str, object]]:
    """The entries of the recorded mobile-API board list (a copy to change).  Recorded early:
    X3.5's lists only tid 1 (tid 2 and 3 came later), X3.4's tid 2 and 1 (tid 3 came later)."""
    name = "api-forumdisplay-fid3.json" if version == "x3.5" else "api-forumdisplay-fid36.json"
    return json.loads(load(version, name)[2])["Variables"]["forum_threadlist"]


def thread_list(version: str, threads: list[dict[str, object]], *, total: int | None = None, tpp: int | None = None,
                page: int = 1) -> Callable[[httpx.Request], httpx.Response]:
    """The recorded mobile-API board list with other threads in it (a state the recording lacks):
    `threads` in the order given (the board's: 置顶 first, then newest last post first), as
    page `page` of a board of `total` threads (default: these), `tpp` a page."""
    name = "api-forumdisplay-fid3.json" if version == "x3.5" else "api-forumdisplay-fid36.json"
    forum = dict(json.loads(load(version, name)[2])["Variables"]["forum"])
    forum["threads"] = forum["threadcount"] = str(len(threads) if total is None else total)
    extra: dict[str, object] = {"forum_threadlist": threads, "page": str(page), "forum": forum}
    if tpp is not None:
        extra["tpp"] = str(tpp)
    return json_page(version, name, **extra)


def pc_thread_list(version: str, order: list[int], last_posts: dict[int, tuple[int, str, str]] | None = None,
                   ) -> Callable[[httpx.Request], httpx.Response]:
    """The recorded PC board list with its threads in `order` (tids) and, for some, another
    last post: tid -> (replies, time as in the `title`, poster)."""
    name = "html-forumdisplay-fid3.html" if version == "x3.5" else "html-forumdisplay-fid36.html"
    status, headers, body = load(version, name)
    charset = "gb18030" if version == "x3.4" else "utf-8"
    page = body.decode(charset)
    rows = {int(m.group(1)): m.group(0)
            for m in re.finditer(r'<tbody id="normalthread_(\d+)">.*?</tbody>', page, re.S)}
    for tid, (replies, when, poster) in (last_posts or {}).items():
        row = re.sub(r'(class="xi2">)\d+(</a><em>)\d+', rf"\g<1>{replies}\g<2>{replies}", rows[tid])
        row = re.sub(r'(<cite><a href="home.php\?mod=space&username=)[^"]*(" c="1">)[^<]*(</a></cite>\s*<em><a href="forum'
                     r'.php\?mod=redirect&tid=\d+&goto=lastpost#lastpost"><span title=")[^"]*',
                     rf"\g<1>{poster}\g<2>{poster}\g<3>{when}", row)
        rows[tid] = row
    spans = [m.span() for m in re.finditer(r'<tbody id="normalthread_\d+">.*?</tbody>', page, re.S)]
    derived = (page[:spans[0][0]] + "\n".join(rows[tid] for tid in order) + page[spans[-1][1]:]).encode(charset)

    def serve(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, headers=headers, content=derived)
    return serve


def thread_page_with_reply(version: str, name: str, pid: int, position: int, author: str, uid: int,
                           text: str, when: str) -> Callable[[httpx.Request], httpx.Response]:
    """A recorded PC thread page with one more post at its end (a reply made after the
    recording): the page's last post copied with the pid, floor, author, time and text given."""
    status, headers, body = load(version, name)
    charset = "gb18030" if version == "x3.4" else "utf-8"
    page = body.decode(charset)
    starts = [m.start() for m in re.finditer(r'<div id="post_\d+"', page)]
    end = page.index('<div id="postlistreply"', starts[-1])
    last = page[starts[-1]:end]
    old = re.match(r'<div id="post_(\d+)"', last).group(1)  # type: ignore[union-attr]
    copy = re.sub(rf"(?<=[a-z_]){old}\b", str(pid), last)
    copy = re.sub(r'(id="postnum\d+"[^>]*>\s*)(?:<em>\d+</em><sup>#</sup>|[^<]+)', rf"\g<1><em>{position}</em><sup>#</sup>",
                  copy)
    copy = re.sub(r'(<div class="authi"><a href="home.php\?mod=space&amp;uid=)\d+(" target="_blank" class="xw1">)[^<]*',
                  rf"\g<1>{uid}\g<2>{author}", copy)
    copy = re.sub(r'(id="authorposton\d+">发表于 <span title=")[^"]*', rf"\g<1>{when}", copy)
    copy = re.sub(r'(id="postmessage_\d+">).*?(</td>)', rf"\g<1>\n{text}\g<2>", copy, flags=re.S)
    derived = (page[:end] + copy + page[end:]).encode(charset)

    def serve(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, headers=headers, content=derived)
    return serve


def not_recorded(request: httpx.Request) -> httpx.Response:
    return httpx.Response(404, text=f"not recorded: {request.url}")


def x35_board(api: bool = True) -> RecordedBoard:
    """The X3.5 board in the state of its recordings, the GM able to log in.  Conversations
    recorded only in the inbox (plid 2, 4, 6: unread) are served as `derived_pm_view`s."""
    b = RecordedBoard("x3.5")
    b.api("GET", "mypm", not_recorded, subop="view")
    b.on("GET", "home.php", not_recorded, mod="space", do="pm", subop="view")
    b.on("GET", "member.php", "html-login-page.html", mod="logging", action="login")
    b.on("POST", "member.php", "html-login-post-success-ajax.xml", mod="logging", action="login", loginsubmit="yes")
    if api:
        b.api("POST", "login", "api-login-v3-ok.json")
    else:
        b.api("POST", "login", "api-module-not-exists.json")
    b.api("GET", "forumdisplay", "api-forumdisplay-fid3.json")
    b.api("GET", "forumindex", "api-forumindex.json")
    b.api("GET", "mypm", "api-mypm-list.json")
    derive_views(b, "api-mypm-list.json", recorded_touid=2)
    b.api("GET", "mypm", "api-mypm-view-touid2-perpage100.json", subop="view", touid="2")
    b.api("GET", "viewthread", "api-viewthread-tid1-page1.json", tid="1", page="1")
    b.api("GET", "viewthread", "api-viewthread-tid1-page2.json", tid="1", page="2")
    b.api("GET", "viewthread", "api-viewthread-tid3-olddates.json", tid="3")
    b.on("GET", "forum.php", "html-forumdisplay-fid3.html", mod="forumdisplay")
    b.on("GET", "forum.php", "html-viewthread-tid1-page1.html", mod="viewthread", tid="1", page="1")
    b.on("GET", "forum.php", "html-viewthread-tid1-page2.html", mod="viewthread", tid="1", page="2")
    b.on("GET", "forum.php", "html-viewthread-tid2.html", mod="viewthread", tid="2")
    b.on("GET", "forum.php", "html-viewthread-tid3-olddates.html", mod="viewthread", tid="3")
    b.on("GET", "forum.php", "html-viewthread-nonexistent.html", mod="viewthread", tid="999")
    b.on("GET", "home.php", "html-pm-list.html", mod="space", do="pm")
    b.on("GET", "home.php", "html-pm-view-touid2.html", mod="space", do="pm", subop="view", touid="2")
    return b


def x34_board(api: bool = True) -> RecordedBoard:
    """The X3.4 GBK board; with `api=False` its mobile API is off (the X3.4 default)."""
    b = RecordedBoard("x3.4")
    b.api("GET", "mypm", not_recorded, subop="view")
    b.on("GET", "home.php", not_recorded, mod="space", do="pm", subop="view")
    b.on("GET", "member.php", "html-login-page.html", mod="logging", action="login")
    b.on("POST", "member.php", "html-login-post-success-ajax.xml", mod="logging", action="login", loginsubmit="yes")
    if api:
        b.api("POST", "login", "api-login-v3-ok.json")
    else:
        b.on("GET", "api/mobile/index.php", "api-forumindex-mobile-closed-default.json")
        b.on("POST", "api/mobile/index.php", "api-forumindex-mobile-closed-default.json")
    b.api("GET", "forumdisplay", "api-forumdisplay-fid36.json")
    b.api("GET", "forumindex", "api-forumindex.json")
    b.api("GET", "mypm", "api-mypm-list.json")
    b.api("GET", "mypm", "api-mypm-list-newpm.json", filter="newpm")
    derive_views(b, "api-mypm-list.json", recorded_touid=6)
    b.api("GET", "mypm", "api-mypm-view-touid6-perpage100.json", subop="view", touid="6")
    b.api("GET", "viewthread", "api-viewthread-tid1-ppp20.json", tid="1")
    b.api("GET", "viewthread", "api-viewthread-tid3-olddates.json", tid="3")
    b.on("GET", "forum.php", "html-forumdisplay-fid36.html", mod="forumdisplay")
    b.on("GET", "forum.php", "html-viewthread-tid1-page1.html", mod="viewthread", tid="1", page="1")
    b.on("GET", "forum.php", "html-viewthread-tid1-page2.html", mod="viewthread", tid="1", page="2")
    b.on("GET", "forum.php", "html-viewthread-tid2-encoding-tests.html", mod="viewthread", tid="2")
    b.on("GET", "forum.php", "html-viewthread-tid3-olddates.html", mod="viewthread", tid="3")
    b.on("GET", "forum.php", "html-viewthread-nonexistent.html", mod="viewthread", tid="999")
    b.on("GET", "forum.php", "html-redirect-findpost-pid13-301.txt", mod="redirect", goto="findpost")
    b.on("GET", "home.php", "html-pm-list.html", mod="space", do="pm")
    b.on("GET", "home.php", "html-pm-view-touid3-player1.html", mod="space", do="pm", subop="view", touid="3")
    return b


def make_forum(board: RecordedBoard, sleeps: Sleeps | None = None, **kw: object):
    from tianshen.forum.discuz import DiscuzForum

    name, _, fid = GM[board.version]
    s = sleeps or Sleeps()
    return DiscuzForum(board.base_url, name, "gm123456", fid, transport=board.transport(),
                       sleep=s.sleep, monotonic=s.monotonic, **kw)  # type: ignore[arg-type]
