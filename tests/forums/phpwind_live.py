"""A PHPWind 9 board that changes: its pages are the recorded ones (`shared/forums/phpwind9`)
with the floors, board rows, dialog entries and messages of its own state put in, served
through `httpx.MockTransport`; the players act on the state directly (`PhpwindPlayers`, a
`PlayerSide`).  Used by the contract tests and the rehearsed game over the recordings.

What it keeps of the board: pids global to the board (the opening post has none: anchor 0),
15 floors a page, minute times in UTC+8, an edit within `post_modify_time` leaves no mark,
message ids global, dialogs per owner (newest first, 20 a page), the three-step login with
the recorded cookies, the csrf pair, 「接收用户不存在」 for an unknown recipient.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from email.utils import format_datetime
from urllib.parse import parse_qs, quote

import httpx

from forums.phpwind_fixtures import BASE, load, text
from tianshen.forum.base import ForumPm, ForumPost
from tianshen.forum.discuz.parse import bbcode_text

SITE = timezone(timedelta(hours=8))
PER_PAGE = 15
PM_PER_PAGE = 20
GM_NAME, GM_UID = "神的使者", 2


def _between(page: str, start: str, end: str) -> str:
    i = page.index(start)
    return page[i:page.index(end, i)]


THREAD = text("thread-tid4-page1.html")
HEAD = THREAD[:THREAD.index('<a name="0"></a>')]
MAIN_FLOOR = _between(THREAD, '<a name="0"></a>', '<a name="1"></a>')
FLOOR = _between(THREAD, '<a name="4"></a>', '<a name="5"></a>')
TAIL = THREAD[THREAD.index("</table>\n</div>", THREAD.index('<a name="14"></a>')) + len("</table>\n</div>"):]
BOARD = text("board-fid3.html")
ROW = BOARD[BOARD.rindex("<tr>", 0, BOARD.index('read.php?tid=4&fid=3" class="st"')):]
ROW = ROW[:ROW.index("</tr>") + 5]
ROWS_START = BOARD.rindex("<tr>", 0, BOARD.index('read.php?tid=1&fid=3" class="st"'))
ROWS_END = BOARD.index("</tr>", BOARD.index('read.php?tid=2&fid=3" class="st"')) + 5
INBOX = text("pm-inbox-gm.html")
ITEM = '<div class="ct cc J_notice_item">'
ITEMS_START = INBOX.index(ITEM)
ITEMS_END = INBOX.index('<div class="main_sidebar">', ITEMS_START)
DIALOG = text("pm-dialog-gm-dialogid2-after-gm-reply.html")
MSGS_START = DIALOG.index(">", DIALOG.index('<div class="message_dialogue" id="J_posts_list">')) + 1
MSGS_END = DIALOG.index("</div>", DIALOG.rindex("</dl>", 0, DIALOG.index('<div class="main_sidebar">')))


def _t(at: datetime) -> str:
    return at.astimezone(SITE).strftime("%Y-%m-%d %H:%M")


def _post_html(body: str) -> str:
    """UBB as PHPWind shows it, as far as the game's texts go: [b] bold, quotes, other tags dropped."""
    out = html.escape(body)
    out = re.sub(r"\[quote=([^,\]]+),(\d+)\](.*?)\[/quote\]",
                 lambda m: f'<blockquote class="blockquote cc"><span class="fl"><a href={BASE}index.php?m=space&'
                           f'username={m.group(1)}>{m.group(1)}</a>：{m.group(3)}</span><a href="{BASE}index.php?c=read'
                           f'&a=jump&pid={m.group(2)}" class="return">回到原帖</a></blockquote>', out, flags=re.S)
    out = re.sub(r"\[b\](.*?)\[/b\]", r"<strong>\1</strong>", out, flags=re.S)
    return bbcode_text(out).replace("\n", "<br />")


@dataclass
class Post:
    pid: int  # 0: the opening post
    author: str
    at: datetime
    content: str
    edited_at: datetime | None = None


@dataclass
class Thread:
    tid: int
    title: str
    posts: list[Post] = field(default_factory=list)


@dataclass
class Message:
    mid: int
    sender: str
    to: str
    at: datetime
    content: str


@dataclass
class LivePhpwind:
    clock: Callable[[], datetime]
    fid: int = 3
    post_modify_minutes: float = 1.0
    users: dict[str, int] = field(default_factory=lambda: {GM_NAME: GM_UID})
    threads: dict[int, Thread] = field(default_factory=dict)
    messages: list[Message] = field(default_factory=list)
    read_upto: dict[tuple[str, str], int] = field(default_factory=dict)  # (owner, other) -> last message read
    hidden: set[int] = field(default_factory=set)  # messages the list counts but the dialog pages do not show yet
    requests: int = 0
    _pid: int = 0
    _tid: int = 0

    # ---- state ---------------------------------------------------------------------------

    def uid(self, name: str) -> int:
        if name not in self.users:
            self.users[name] = max(self.users.values()) + 1
        return self.users[name]

    def new_thread(self, author: str, title: str, content: str) -> int:
        self._tid += 1
        self.threads[self._tid] = Thread(self._tid, title, [Post(0, author, self.clock(), content)])
        self.uid(author)
        return self._tid

    def new_reply(self, author: str, tid: int, content: str) -> int:
        self._pid += 1
        self.threads[tid].posts.append(Post(self._pid, author, self.clock(), content))
        self.uid(author)
        return self._pid

    def new_message(self, sender: str, to: str, content: str) -> int:
        mid = len(self.messages) + 1
        self.messages.append(Message(mid, sender, to, self.clock(), content))
        self.uid(sender), self.uid(to)
        return mid

    def dialog_id(self, owner: str, other: str) -> int:
        return self.uid(owner) * 1000 + self.uid(other)

    # ---- HTTP ----------------------------------------------------------------------------

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        q = dict(request.url.params.multi_items())
        form = {k: v for k, v in parse_qs(request.content.decode("ascii"), keep_blank_values=True).items()} \
            if request.content else {}
        resp = self.route(request.method, request.url.path.lstrip("/"), q, form)
        resp.headers["Date"] = format_datetime(self.clock().astimezone(UTC), usegmt=True)
        return resp

    def route(self, method: str, path: str, q: dict[str, str], form: dict[str, list[str]]) -> httpx.Response:
        m, c, a = q.get("m", "bbs"), q.get("c", "index"), q.get("a", "run")
        if path == "read.php":
            return self._html(self.thread_page(int(q["tid"]), int(q.get("page") or 1)))
        if m == "u" and c == "login":
            name = {"run": "login-form.html", "dorun": "login-post-ok.json", "welcome": "login-welcome.html"}[a]
            return _recorded(name)
        if c == "read" and a == "jump":
            return self.jump(int(q["tid"]), int(q["pid"]))
        if c == "thread":
            return self._html(self.board_page())
        if c == "forum" and a == "list":
            return _recorded("forum-list-ajax.json")
        if m == "bbs" and c in ("forumlist", "index"):
            return _recorded("forumlist.html")
        if m == "space":
            name = q.get("username", "")
            page = text("profile-username-player3.html").replace("player3", name).replace("uid=5", f"uid={self.uid(name)}") \
                if name in self.users else text("profile-username-nonexistent.html")
            return self._html(page)
        if c == "post" and method == "POST":
            return self.write_post(a, form)
        if m == "message" and c == "message":
            if method == "POST":
                return self.write_pm(form)
            if a == "dialog":
                return self._html(self.dialog_page(int(q["dialogid"]), int(q.get("page") or 1)))
            return self._html(self.inbox_page())
        return httpx.Response(404, text=f"not in the live board: {method} {path} {q}")

    @staticmethod
    def _html(page: str) -> httpx.Response:
        return httpx.Response(200, content=page.encode("utf-8"), headers={"Content-Type": "text/html;charset=utf-8"})

    @staticmethod
    def _json(state: str, message: str, referer: str = "") -> httpx.Response:
        body = {"referer": quote(referer, safe="") if referer else "", "refresh": bool(referer), "state": state,
                "data": "", "html": "", "message": [message], "__error": ""}
        return httpx.Response(200, content=json.dumps(body).encode("ascii"), headers={"Content-Type": "application/json"})

    # ---- pages ---------------------------------------------------------------------------

    def thread_page(self, tid: int, page: int) -> str:
        thread = self.threads[tid]
        pages = max(1, -(-len(thread.posts) // PER_PAGE))
        page = min(page, pages)
        floors = []
        for floor, post in list(enumerate(thread.posts))[(page - 1) * PER_PAGE:page * PER_PAGE]:
            floors.append(self._floor(tid, floor, post))
        links = "".join(f'<a href="{BASE}read.php?tid={tid}&fid={self.fid}&page={n}">{n}</a>' if n != page
                        else f"<strong>{n}</strong>" for n in range(1, pages + 1))
        head = re.sub(r'<div class="pages">\s*<strong>1</strong>.*?</div>', f'<div class="pages">{links}</div>', HEAD,
                      count=1, flags=re.S)
        head = re.sub(r'<h1 id="J_post_title">.*?</h1>', f'<h1 id="J_post_title">{html.escape(thread.title)}</h1>', head)
        return head.replace("tid=4", f"tid={tid}") + "".join(floors) + TAIL

    def _floor(self, tid: int, floor: int, post: Post) -> str:
        uid = self.uid(post.author)
        body = _post_html(post.content)
        if floor == 0:
            out = MAIN_FLOOR.replace("uid=2", f"uid={uid}").replace('data-uid="2"', f'data-uid="{uid}"')
            out = out.replace(f">{GM_NAME}</a>", f">{html.escape(post.author)}</a>")
            out = re.sub(r"发布于：\S+ \S+", f"发布于：{_t(post.at)}", out)
            return re.sub(r'(<div class="editor_content">).*?(</div>)', lambda m: m.group(1) + body + m.group(2), out,
                          count=1, flags=re.S)
        label = {1: "沙发", 2: "板凳", 3: "地板"}.get(floor, f"{floor}楼")
        out = FLOOR.replace('name="4"', f'name="{post.pid}"').replace("read_4", f"read_{post.pid}")
        out = out.replace("readfloor_4", f"readfloor_{post.pid}").replace("floor_4", f"floor_{post.pid}")
        out = re.sub(r"(pid=|type_id=|data-pid=\"|fromid=|data-fromid=\")4\b", rf"\g<1>{post.pid}", out)
        out = out.replace("uid=6", f"uid={uid}").replace('data-uid="6"', f'data-uid="{uid}"')
        out = out.replace("<span>6</span>", f"<span>{uid}</span>").replace("tid=4", f"tid={tid}")
        out = out.replace(">player4</a>", f">{html.escape(post.author)}</a>").replace("4楼<sup>", f"{label}<sup>")
        out = re.sub(r"发布于：\S+ \S+", f"发布于：{_t(post.at)}", out)
        mark = "" if post.edited_at is None else \
            f'<div class="edit_log">[{html.escape(post.author)}于{_t(post.edited_at)}编辑了帖子]</div>'
        out = re.sub(r'<div class="edit_log">.*?</div>', mark, out)
        return re.sub(r'(<div class="editor_content">).*?(</div>)', lambda m: m.group(1) + body + m.group(2), out,
                      count=1, flags=re.S)

    def jump(self, tid: int, pid: int) -> httpx.Response:
        floors = [p.pid for p in self.threads[tid].posts]
        page = floors.index(pid) // PER_PAGE + 1 if pid in floors else 1
        return httpx.Response(302, headers={"Location": f"{BASE}read.php?tid={tid}&fid={self.fid}&page={page}#{pid}"})

    def board_page(self) -> str:
        rows = []
        for thread in sorted(self.threads.values(), key=lambda t: (t.posts[-1].at, t.posts[-1].pid, t.tid),
                             reverse=True):
            first, last = thread.posts[0], thread.posts[-1]
            row = ROW.replace("tid=4", f"tid={thread.tid}")
            row = re.sub(r'title="第1天投票帖">第1天投票帖', f'title="{html.escape(thread.title)}">{html.escape(thread.title)}', row)
            row = row.replace(f'data-uid="2" href="{BASE}index.php?m=space&uid=2">{GM_NAME}</a><span>',
                              f'data-uid="{self.uid(first.author)}" href="{BASE}index.php?m=space&uid='
                              f'{self.uid(first.author)}">{html.escape(first.author)}</a><span>', 1)
            row = row.replace(f'data-uid="7" href="{BASE}index.php?m=space&uid=7">player5</a>',
                              f'data-uid="{self.uid(last.author)}" href="{BASE}index.php?m=space&uid='
                              f'{self.uid(last.author)}">{html.escape(last.author)}</a>')
            row = row.replace("12-06 09:41", last.at.astimezone(SITE).strftime("%m-%d %H:%M"))
            row = row.replace("回复<em>16</em>", f"回复<em>{len(thread.posts) - 1}</em>")
            rows.append(row)
        return BOARD[:ROWS_START] + "\n".join(rows) + BOARD[ROWS_END:]

    def _dialogs(self, owner: str) -> dict[str, list[Message]]:
        out: dict[str, list[Message]] = {}
        for msg in self.messages:
            if owner in (msg.sender, msg.to):
                out.setdefault(msg.to if msg.sender == owner else msg.sender, []).append(msg)
        return out

    def inbox_page(self, owner: str = GM_NAME) -> str:
        items = []
        for other, msgs in sorted(self._dialogs(owner).items(), key=lambda kv: kv[1][-1].mid, reverse=True):
            last, uid, did = msgs[-1], self.uid(other), self.dialog_id(owner, other)
            unread = sum(1 for m in msgs if m.to == owner and m.mid > self.read_upto.get((owner, other), 0))
            link = f"{BASE}index.php?m=message&c=message&a=dialog&dialogid={did}"
            who = f'<a href="{BASE}index.php?m=space&uid={uid}" class="name J_user_card_show" data-uid="{uid}"  ' \
                  f'target="_blank">{html.escape(other)}</a>'
            title = (f"发给 {who}" if last.sender == owner else who) + "：" + html.escape(last.content)
            if unread:
                title += f'<a class="J_unread unread" data-count="{unread}" href="{link}">(<span class="J_read_count_' \
                         f'{uid}">{unread}</span>条未读)</a>'
            items.append(f'{ITEM}<div class="content J_content"><div class="title">{title}<a class="J_tragger" '
                         f'href="{link}"></a></div><div class="info"><span class="num">共{len(msgs)}条</span>'
                         f'<span class="time">1分钟前</span></div></div></div>')
        return INBOX[:ITEMS_START] + "\n".join(items) + INBOX[ITEMS_END:]

    def dialog_page(self, did: int, page: int, owner: str = GM_NAME) -> str:
        other = next((o for o in self._dialogs(owner) if self.dialog_id(owner, o) == did), None)
        if other is None:
            return text("pm-dialog-player1-foreign-dialogid2.html")
        msgs = [m for m in reversed(self._dialogs(owner)[other]) if m.mid not in self.hidden]  # newest first
        self.read_upto[(owner, other)] = max(m.mid for m in self._dialogs(owner)[other])  # opening marks it all read
        pages = max(1, -(-len(msgs) // PM_PER_PAGE))
        shown = msgs[(page - 1) * PM_PER_PAGE:page * PM_PER_PAGE]
        dls = []
        for msg in shown:
            mine = msg.sender == owner
            uid = self.uid(msg.sender)
            dls.append(f'<dl class="cc{" my" if mine else ""}"><dd><div class="title"><a href="{BASE}index.php?m=space'
                       f'&uid={uid}" class="b J_user_card_show" data-uid="{uid}"  target="_blank">'
                       f'{"我" if mine else html.escape(msg.sender)}</a>：{html.escape(msg.content)}</div>'
                       f'<div class="info"><span class="operat"><a href="{BASE}index.php?m=message&c=message&'
                       f'a=deletemessage&dialogid={did}&messageid={msg.mid}" class="J_msg_dialog_del">删除</a></span>'
                       f'<span class="time" title="{_t(msg.at)}">1分钟前</span></div></dd></dl>')
        links = "".join(f'<a href="{BASE}index.php?m=message&c=message&a=dialog&dialogid={did}&page={n}">{n}</a>'
                        if n != page else f"<strong>{n}</strong>" for n in range(1, pages + 1))
        pager = f'<div class="pages">{links}</div>' if pages > 1 else ""
        return DIALOG[:MSGS_START] + "".join(dls) + DIALOG[MSGS_END:] + pager

    # ---- writes --------------------------------------------------------------------------

    def write_post(self, action: str, form: dict[str, list[str]]) -> httpx.Response:
        content = form.get("atc_content", [""])[0]
        if len(content.strip(" \t\n\r\0\x0b")) < 3:  # PHP's trim: a full-width space counts
            return self._json("fail", "帖子内容不得少于3个字")
        if action == "doadd":
            tid = self.new_thread(GM_NAME, form["atc_title"][0], content)
            return self._json("success", "操作成功", f"{BASE}read.php?tid={tid}&fid={self.fid}")
        tid = int(form["tid"][0])
        pid = self.new_reply(GM_NAME, tid, content)
        return self._json("success", "操作成功", f"{BASE}read.php?tid={tid}&fid={self.fid}&page=e#{pid}")

    def write_pm(self, form: dict[str, list[str]]) -> httpx.Response:
        content = form.get("content", [""])[0]
        if len(content) > 500:
            return self._json("fail", "私信内容不得超过500字")
        for to in form.get("usernames[]", []):
            if to not in self.users:
                return self._json("fail", "接收用户不存在")
            self.new_message(GM_NAME, to, content)
        return self._json("success", "操作成功", f"{BASE}index.php?m=message&c=message")


def _recorded(name: str) -> httpx.Response:
    status, headers, body = load(name)
    return httpx.Response(status, headers=headers, content=body)


class PhpwindPlayers:
    """What players do on the live board (`PlayerSide`): straight on its state."""

    def __init__(self, board: LivePhpwind) -> None:
        self.board = board

    def pm(self, sender: str, to: str, text: str, subject: str = "") -> int:
        """A PHPWind PM has no subject: a player's `subject` is not sent."""
        return self.board.new_message(sender, to, text)

    def post(self, author: str, thread_id: str, text: str) -> int:
        return self.board.new_reply(author, int(thread_id), text)

    def edit(self, post_id: int, author: str, new_text: str) -> None:
        for thread in self.board.threads.values():
            for post in thread.posts:
                if post.pid == post_id:
                    if post.author != author:
                        raise PermissionError("您没有权限编辑其他人的帖子")
                    post.content = new_text
                    now = self.board.clock()
                    if now - post.at > timedelta(minutes=self.board.post_modify_minutes):
                        post.edited_at = now
                    return
        raise KeyError(post_id)

    def inbox(self, user: str) -> list[ForumPm]:
        return [ForumPm(m.mid, m.sender, m.at, "", m.content) for m in self.board.messages if m.to == user]

    def thread_posts(self, thread_id: str) -> list[ForumPost]:
        thread = self.board.threads[int(thread_id)]
        return [ForumPost(p.pid, thread_id, p.author, p.at, p.content, edited=p.edited_at is not None, position=i + 1)
                for i, p in enumerate(thread.posts)]
