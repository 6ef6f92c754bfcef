"""`tianshen web`: read-only pages beside the daemon — a public page per game, and the GM's.

Every page is rendered on the server; a few lines of JavaScript fetch the page's fragment
every few seconds and swap it in, so the page follows the game without a reload.  GM routes
need a login (the token of `[web]` POSTed once to /login, kept as a signed session cookie) or
the token as a Bearer header.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode

from anyio import to_thread
from jinja2 import Environment, FileSystemLoader, pass_context, select_autoescape
from markupsafe import Markup, escape
from sqlalchemy import bindparam, func, literal, select
from sqlalchemy.orm import Session
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tianshen.core.clock import DEFAULT_ZONE, show
from tianshen.core.model import GameState, GmIn
from tianshen.core.ruleset import gm_args
from tianshen.service.driver import GameDriver, OfflineForum
from tianshen.store import Store
from tianshen.store.models import Game, InboundRow, MarkRow, OutboxRow
from tianshen.store.store import BOARD_STATUS, event_records, events_query
from tianshen.web import auth, views
from tianshen.web.cache import GameViews, PageCache, Rulesets
from tianshen.web.follow import Folds, GameFold, GmFold, PublicFold
from tianshen.web.index import STATUS_FILTER_WORDS, IndexQuery, index_page

HERE = Path(__file__).resolve().parent
COOKIE = "tianshen_gm"
POLL_MS = 2000
MAX_FORM = 4096  # bytes of a login form
RULESETS = Rulesets()  # every ruleset once per version of its file


@dataclass
class WebSettings:
    token: str | None  # None: the GM pages are closed
    post_url: str | None = None  # {thread}, {post}
    thread_url: str | None = None  # {thread}
    poll_ms: int = POLL_MS
    session_secret: str | None = None  # signs the session cookies; None: derived from the token
    session_hours: int = 12  # a login lasts this long
    secure_cookie: bool = False  # the cookie only over https (also whenever the request came by https)
    login_tries: int = 5  # failed logins a client may make…
    login_window_s: float = 60.0  # …within this many seconds
    page_size: int = 50  # games on a page of the index
    cache_s: float = 0.0  # the index and public pages are rendered at most once in this time ([web] cache_seconds)


def _env() -> Environment:
    env = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]))
    env.filters["t"] = _time
    env.filters["iso"] = lambda d: d.isoformat() if d else ""
    env.filters["short"] = _short
    env.filters["number"] = _number
    env.filters["board"] = _board
    env.filters["thread_name"] = views.thread_name
    env.filters["command_word"] = lambda c: views.words(views.COMMAND_WORDS, c.replace("_", "-"))
    env.filters["void_vote"] = lambda who, game: views.admin_commands(game, who, 0)["作废投票"]
    env.filters["deadline_word"] = lambda kind: views.words(views.DEADLINE_WORDS, kind)
    env.filters["mark_word"] = lambda m: views.MARK_WORDS.get(m, "")
    env.filters["gm_args"] = _gm_args  # a GM command's arguments as words, never a dict (issue 23 item 13)
    return env


@pass_context
def _gm_args(ctx: Any, args: dict[str, Any]) -> str:
    """A GM command's arguments, its times in the game's zone (issue 32 item 9)."""
    return gm_args(args, ctx.get("zone") or DEFAULT_ZONE)


@pass_context
def _time(ctx: Any, d: datetime | None) -> str:
    """Every time a page shows: the one formatter (core.clock.show) in the game's zone (its
    state's, or the zone it was signed up with; issue 23 item 1)."""
    return show(d, ctx.get("zone") or DEFAULT_ZONE)


def _number(x: float) -> str:
    """A number as people write it: 1200, 0.5, 2.25 (never 1200.0)."""
    return f"{round(float(x), 2):g}"


def _short(text: str, n: int = 60) -> str:
    """One line of at most `n` characters as the board reads: no bold marks, no quote
    marks, a table row's cells apart (issue 38 item 4)."""
    lines = []
    for line in str(text).replace("**", "").splitlines():
        kind = _kind(line)
        lines.append(line[1:] if kind == "quote" else " ".join(line[1:-1].split("|")) if kind == "table" else line)
    flat = " ".join(" ".join(lines).split())
    return flat if len(flat) <= n else flat[:n] + "…"


def _board(text: str) -> Markup:
    """A message body as the board shows it (the markers of forum.render): escaped, with
    **bold**, `> ` quote lines as a quote and `| a | b |` rows as a table, its first row the
    header (issue 38 item 4)."""
    out: list[str] = []
    lines = str(text).replace("\r\n", "\n").split("\n")
    i = 0
    while i < len(lines):
        kind = _kind(lines[i])
        block = []
        while i < len(lines) and _kind(lines[i]) == kind:
            block.append(lines[i])
            i += 1
        if kind == "quote":
            out.append("<blockquote>" + "\n".join(_inline(b[2:]) for b in block) + "</blockquote>")
        elif kind == "table":
            rows = [[_inline(c.strip()) for c in b[1:-1].split("|")] for b in block]
            head = "".join(f"<th>{c}</th>" for c in rows[0])
            body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows[1:])
            out.append(f'<div class="scroll"><table class="board-table"><thead><tr>{head}</tr></thead>'
                       f"<tbody>{body}</tbody></table></div>")
        else:
            out.append("\n".join(_inline(b) for b in block) + ("\n" if i < len(lines) else ""))
    return Markup("".join(out))


def _kind(line: str) -> str:
    """A line as forum.render reads it: a quote, a table row, or plain."""
    if line.startswith("> ") or line == ">":
        return "quote"
    return "table" if len(line) > 1 and line.startswith("|") and line.endswith("|") else "plain"


def _inline(text: str) -> str:
    return _BOLD.sub(r"<strong>\1</strong>", str(escape(text)))


_BOLD = re.compile(r"\*\*(.+?)\*\*")


def create_app(store: Store, settings: WebSettings) -> Starlette:
    """The app; ValueError (one line) for a configured token shorter than 16 characters."""
    auth.check_token(settings.token)
    env = _env()
    cached = PageCache(settings.cache_s)
    game_views = GameViews()
    gm_views = GameViews()  # the GM pages: read only by a request that passed the login check
    folds = Folds()  # each game's log folded so far: a new event is folded once (issue 38)
    index_views = GameViews(size=256)
    sessions = auth.Sessions(settings.token, settings.session_secret, settings.session_hours * 3600, kept=store) \
        if settings.token else None
    throttle = auth.Throttle(tries=settings.login_tries, window_s=settings.login_window_s)

    def page(name: str, code: int = 200, **values: Any) -> HTMLResponse:
        return HTMLResponse(page_html(name, **values), status_code=code, headers={"Cache-Control": "no-store"})

    def page_html(name: str, **values: Any) -> str:
        return env.get_template(name).render(poll_ms=settings.poll_ms, **values)

    async def cached_page(key: Any, make: Callable[[], tuple[str, int]]) -> Response:
        """A page from the cache, else rendered in a worker thread (the database and Jinja block)."""
        body, code = cached.get(key) or cached.put(key, await run_in_threadpool(_encoded, make))
        return Response(body, status_code=code, media_type="text/html", headers={"Cache-Control": "no-store"})

    async def index(request: Request) -> Response:
        query = IndexQuery.parse(request.query_params)
        logged_in = _session(request) is not None

        def make() -> tuple[str, int]:
            """Kept until a game is added or steps (its status, phase and deadline change only
            with a step) or a variant file changes: one small query otherwise (issue 38)."""
            signature = (_index_signature(store), RULESETS.versions())
            kept = index_views.get((query, logged_in), signature)
            if kept is not None:
                return kept, 200
            found = index_page(store.engine, query, RULESETS.title, settings.page_size)
            rows = [r | {"status": views.STATUS_WORDS.get(r["status"], r["status"]),
                         "phase": views.label_name(r["phase_label"]) if r["phase_label"] != "setup" else ""}
                    for r in found.rows]
            html = page_html("index.html", games=rows, found=found, query=query, statuses=STATUS_FILTER_WORDS,
                             logged_in=logged_in)
            return index_views.put((query, logged_in), signature, html), 200

        return await cached_page(("index", query, logged_in), make)

    async def public(request: Request) -> Response:
        game_id = _game_id(request)
        if game_id is None:
            return missing(request)
        fragment = request.url.path.endswith("/fragment")

        def make() -> tuple[str, int]:
            """From the game's view when the game did not change since it was made (one small
            query), else folded and rendered once for everyone after (issue 38)."""
            signature = _signature(store, game_id)
            if signature is None:
                return page_html("missing.html"), 404
            clock = views.game_now(signature[-1], datetime.now(UTC))
            kept = game_views.get((game_id, fragment), signature)
            if kept is None:
                game = folds.of(game_id)
                with game.lock:  # folded and rendered by one request at a time
                    ctx = _public_context(store, settings, game_id,
                                          views.GameNow(UNSET_NOW, clock.scale, clock.rehearsal), game)
                    if ctx is None:
                        return page_html("missing.html"), 404
                    html = page_html("public_body.html" if fragment else "public.html", **ctx)
                kept = game_views.put((game_id, fragment), signature, (html, ctx["zone"]))
            return _clocked(*kept, clock.at), 200

        return await cached_page(("public", game_id, fragment), make)

    def gm(request: Request) -> Response:
        fragment = request.url.path.endswith("/fragment")
        refused = _refuse(request, fragment)
        if refused is not None:
            return refused
        game_id = _game_id(request)
        signature = _gm_signature(store, game_id) if game_id is not None else None
        if game_id is None or signature is None:
            return missing(request)
        clock = views.game_now(signature[-1], datetime.now(UTC))
        kept = gm_views.get((game_id, fragment), signature)
        if kept is None:  # rendered once a change of the game (issue 38), for whichever GM asks
            game = folds.of(game_id)
            with game.lock:
                ctx = _gm_context(store, settings, game_id, game, views.GameNow(UNSET_NOW, clock.scale, clock.rehearsal))
                if ctx is None:
                    return missing(request)
                html = page_html("gm_body.html" if fragment else "gm.html", logged_in=True, **ctx)
            kept = gm_views.put((game_id, fragment), signature, (html, ctx["zone"]))
        return HTMLResponse(_clocked(*kept, clock.at), headers={"Cache-Control": "no-store"})

    def login_form(request: Request) -> Response:
        return page("login.html", next=_next(request.query_params.get("next")), wrong=False)

    async def login(request: Request) -> Response:
        if not _same_origin(request):
            return page("login.html", code=403, next="/", wrong=False, foreign=True)
        if int(request.headers.get("content-length") or 0) > MAX_FORM:
            return page("login.html", code=413, next="/", wrong=False)
        fields = parse_qs((await request.body())[:MAX_FORM].decode("utf-8", "replace"))
        given, target = (fields.get("token") or [""])[0], _next((fields.get("next") or [""])[0])
        wait = throttle.wait(_client(request))
        if wait:
            return _too_many(wait, page("login.html", code=429, next=target, wrong=False, wait=math.ceil(wait)))
        if sessions is None or not auth.same_token(given, settings.token):
            throttle.failed(_client(request))
            return page("login.html", code=403, next=target, wrong=True)
        response = RedirectResponse(target, status_code=303)
        response.set_cookie(COOKIE, sessions.new(), max_age=sessions.max_age_s, path="/", httponly=True,
                            samesite="strict", secure=settings.secure_cookie or request.url.scheme == "https")
        return response

    def logout(request: Request) -> Response:
        if sessions is not None and request.cookies.get(COOKIE):
            sessions.revoke(request.cookies[COOKIE])
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
        return response

    def _session(request: Request) -> str | None:
        cookie = request.cookies.get(COOKIE)
        return sessions.sid(cookie) if sessions is not None and cookie else None

    def _refuse(request: Request, fragment: bool) -> Response | None:
        """None when the request may see the GM pages: a valid session cookie, or the right
        Bearer token (scripts; never stored in a cookie).  A fragment's refusal is JSON the
        polling script shows (issue 25 item 14)."""
        if _session(request) is not None:
            return None
        auth_header = request.headers.get("authorization", "")
        given = auth_header[7:].strip() if auth_header.lower().startswith("bearer ") else ""
        wait = throttle.wait(_client(request)) if given else 0
        if wait:
            refusal = _refusal(429, "尝试次数太多，请稍后再试", request) if fragment else \
                page("login.html", code=429, next=request.url.path, wrong=False, wait=math.ceil(wait))
            return _too_many(wait, refusal)
        if given and auth.same_token(given, settings.token):
            return None
        if given:
            throttle.failed(_client(request))
        code = 403 if given else 401
        if fragment:
            return _refusal(code, "口令不对" if given else "登录已过期，请重新登录", request)
        return page("login.html", code=code, next=request.url.path, wrong=bool(given))

    def missing(request: Request, exc: Exception | None = None) -> Response:
        return page("missing.html", code=404)

    def phase(request: Request) -> Response:
        path = f"{request.path_params['kind']}/{request.path_params['number']}"
        game_id = _game_id(request)
        canonical = _PHASE_NUMBER.fullmatch(request.path_params["number"])  # /day/01 is no page (item 7)
        if game_id is None or not canonical:
            return page("missing.html", code=404)
        game = folds.of(game_id)
        with game.lock:
            ctx = _phase_context(store, settings, game_id, path, game)
            if ctx is None:
                return page("missing.html", code=404)
            return page("public.html", **ctx)

    def player(request: Request) -> Response:
        game_id = _game_id(request)
        raw = request.path_params["seat"]
        if game_id is None or not _PHASE_NUMBER.fullmatch(raw):
            return page("missing.html", code=404)
        game = folds.of(game_id)
        with game.lock:
            ctx = _player_context(store, settings, game_id, int(raw), game)
            if ctx is None:
                return page("missing.html", code=404)
            return page("player.html", **ctx)

    def record_json(request: Request) -> Response:
        game_id = _game_id(request)
        if game_id is None:
            return Response("{}", status_code=404, media_type="application/json")
        game = folds.of(game_id)
        with game.lock:
            ctx = _public_context(store, settings, game_id, None, game)
            if ctx is None:
                return Response("{}", status_code=404, media_type="application/json")
            body = json.dumps(views.public_json(ctx), ensure_ascii=False, indent=1, default=str)
        name = f"game-{game_id}.json"
        return Response(body, media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"})

    routes = [
        Route("/", index),
        Route("/login", login_form, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/favicon.ico", lambda request: FileResponse(HERE / "static" / "favicon.ico",
                                                           headers={"Cache-Control": "max-age=86400"})),
        Route("/game/{game_id}/record.json", record_json),  # the public record (item 8)
        Route("/game/{game_id}", public),
        Route("/game/{game_id}/fragment", public),
        Route("/game/{game_id}/gm", gm),
        Route("/game/{game_id}/gm/fragment", gm),
        Route("/game/{game_id}/player/{seat}", player),  # one player's panel (issue 38 item 6)
        Route("/game/{game_id}/{kind:str}/{number:str}", phase),  # the timeline (issue 25 item 9), after gm/fragment
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    def failed(request: Request, exc: Exception) -> Response:
        """A bug: a plain page with the security headers (Starlette's error middleware sits
        outside SecurityHeaders; it still logs the traceback)."""
        response = page("error.html", code=500)
        response.headers.update({k.decode(): v.decode() for k, v in SecurityHeaders.HEADERS})
        return response

    threads = _threads(store)

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        to_thread.current_default_thread_limiter().total_tokens = threads
        yield

    app = Starlette(routes=routes, exception_handlers={404: missing, Exception: failed}, lifespan=lifespan)
    app.add_middleware(SecurityHeaders)
    app.state.throttle = throttle
    app.state.pages = cached
    app.state.views = game_views
    app.state.gm_views = gm_views
    app.state.folds = folds
    app.state.sessions = sessions
    return app


def _threads(store: Store) -> int:
    """The worker threads of the pages (every page reads the database in one): as many as the
    database pool keeps connections.  With more, a burst of requests checks out connections
    beyond the pool's, and each is closed when it comes back: under load a new connection
    (on PostgreSQL a new server process) every few requests, and their waits in the p99."""
    size = getattr(store.engine.pool, "size", None)
    return max(2, size()) if callable(size) else 8


class SecurityHeaders:
    """Every response: the CSP, nosniff, a same-origin referrer, no framing, and no `server`
    banner (issue 25 item 17; uvicorn is started with server_header=False as well)."""

    HEADERS = [(b"content-security-policy", b"default-src 'self'; frame-ancestors 'none'"),
               (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"same-origin"),
               (b"x-frame-options", b"DENY")]

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"server"]
                message = message | {"headers": kept + self.HEADERS}
            await send(message)

        await self.app(scope, receive, with_headers)


def _encoded(make: Callable[[], tuple[str, int]]) -> tuple[bytes, int]:
    html, code = make()
    return html.encode(), code


def _refusal(code: int, message: str, request: Request) -> Response:
    """What a polled GM fragment answers without a valid login: JSON the page's script shows."""
    page_path = request.url.path.removesuffix("/fragment")
    return JSONResponse({"error": message, "login": "/login?" + urlencode({"next": page_path})}, status_code=code,
                        headers={"Cache-Control": "no-store"})


def _too_many(wait: float, response: Response) -> Response:
    response.headers["Retry-After"] = str(math.ceil(wait))
    return response


def _client(request: Request) -> str:
    return request.client.host if request.client else "?"


def _same_origin(request: Request) -> bool:
    """A login POSTed from another site is refused: by the browser's Sec-Fetch-Site, else by
    its Origin against the Host (or a proxy's X-Forwarded-Host); neither sent: let through."""
    fetch_site = request.headers.get("sec-fetch-site")
    if fetch_site is not None:
        return fetch_site in ("same-origin", "none")
    origin = request.headers.get("origin")
    if origin is None:
        return True
    hosts = {request.headers.get("host", ""), request.headers.get("x-forwarded-host", "")} - {""}
    return origin.split("://", 1)[-1] in hosts


def _next(target: str | None) -> str:
    """Where to go after the login: a path of this site only (never `//other.example`)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target if _SAFE_PATH.fullmatch(target) else "/"


_SAFE_PATH = re.compile(r"/[A-Za-z0-9/_\-]*")
MAX_GAME_ID = 2**31 - 1  # the games table's INTEGER key (PostgreSQL's int4)


def _game_id(request: Request) -> int | None:
    """The game id of the path when it is a canonical number in the key's range (no `01`,
    no 30 digits, no `-1`); None otherwise, which is a 404."""
    raw = request.path_params["game_id"]
    if not _GAME_ID.fullmatch(raw) or int(raw) > MAX_GAME_ID:
        return None
    return int(raw)


_GAME_ID = re.compile(r"[1-9][0-9]{0,9}")
_PHASE_NUMBER = re.compile(r"[1-9][0-9]{0,3}")


# ---- the pages' data ------------------------------------------------------------------------


def _load(store: Store, game_id: int) -> tuple[Any, GameState | None] | None:
    try:
        record = store.load_game(game_id)
    except KeyError:
        return None
    if record.status == BOARD_STATUS:  # a board's own row (its PMs from no game's player): no game
        return None
    state = GameState.model_validate_json(record.state_json) if record.status != "new" else None
    return record, state


def _common(store: Store, record: Any, state: GameState | None, clock: views.GameNow | None = None) -> dict[str, Any]:
    ruleset = RULESETS.get(record.config.get("ruleset_file") or record.ruleset)
    ctx: dict[str, Any] = {"game": record, "title": ruleset.spec.title, "ruleset": ruleset,
                           "status": views.STATUS_WORDS.get(record.status, record.status), "state": state,
                           "is_hex": ruleset.board_map(None, False) is not None, "clock": clock or _game_now(store, record),
                           "over": record.status == "over",
                           "zone": state.zone if state is not None
                           else (record.config.get("setup") or {}).get("zone") or DEFAULT_ZONE}
    if state is None:  # signed up, or dealt but the player list is not on the board yet
        signed_up = record.status == "new"
        ctx.update(phase="报名中" if signed_up else "即将开始", deadline=record.deadline_at if signed_up else None,
                   players=[])
        return ctx
    due = views.public_deadline(ruleset, state)
    winner = ruleset.spec.factions.get(state.winner or "", state.winner) if state.winner else None
    ctx.update(phase=views.phase_name(state.phase, ruleset.spec.ruleset), deadline=due.at if due else None, winner=winner,
               paused=bool(state.data.get("paused_at")))
    return ctx


UNSET_NOW = datetime(1901, 2, 3, 4, 5, 6, tzinfo=UTC)  # the game's time in a kept view: set per request
_UNSET_TIME = re.compile(re.escape(f'<time datetime="{UNSET_NOW.isoformat()}">') + "[^<]*</time>")


def _clocked(html: str, zone: str, now: datetime) -> str:
    """A kept view with the game's time of this request (the countdown's base and the
    rehearsal clock's words)."""
    html = _UNSET_TIME.sub(lambda m: f'<time datetime="{now.isoformat()}">{escape(show(now, zone))}</time>', html)
    return html.replace(f'data-game-now="{UNSET_NOW.isoformat()}"', f'data-game-now="{now.isoformat()}"')


_G, _O, _M = Game.__table__, OutboxRow.__table__, MarkRow.__table__
_B = _G.alias("board_row")
_I = InboundRow.__table__
_SIGNED = [  # what a public page reads of a game that can change; the rehearsal clock's mark last
    _G.c.step_seq, _G.c.status, _G.c.deadline_at,
    select(func.count()).where(_O.c.game_id == _G.c.id).scalar_subquery(),
    select(func.count()).where(_O.c.game_id == _G.c.id, _O.c.status == "sent").scalar_subquery(),
    select(func.count()).where(_O.c.game_id == _G.c.id, _O.c.status == "pending").scalar_subquery(),
    select(func.coalesce(func.sum(_O.c.parts_done), 0)).where(_O.c.game_id == _G.c.id).scalar_subquery(),
    select(_M.c.value).join(_B, _B.c.id == _M.c.game_id).where(
        _B.c.name == func.substr(literal("@board:") + _G.c.board, 1, 200), _M.c.name == "game_clock")
    .limit(1).scalar_subquery(),
]
_SIGNATURE = select(*_SIGNED).where(_G.c.id == bindparam("gid"))
_GM_SIGNATURE = select(  # and what the GM page reads besides: the refused rows, the inputs stored
    select(func.count()).where(_O.c.game_id == _G.c.id, _O.c.status == "failed").scalar_subquery(),
    select(func.count()).where(_I.c.game_id == _G.c.id).scalar_subquery(),
    select(func.max(_I.c.id)).where(_I.c.game_id == _G.c.id).scalar_subquery(),
    *_SIGNED,
).where(_G.c.id == bindparam("gid"))


_INDEX_SIGNATURE = select(func.count(), func.max(_G.c.id), func.sum(_G.c.step_seq))


def _index_signature(store: Store) -> tuple[Any, ...]:
    """What the index reads that can change: how many games, the newest, every game's steps."""
    with store.engine.connect() as conn:
        return tuple(conn.execute(_INDEX_SIGNATURE).one())


def _signature(store: Store, game_id: int) -> tuple[Any, ...] | None:
    """What a public page reads of a game that can change: its newest event, its deadline,
    what its outbox holds, sent and still has to send (a post held back holds the page at the
    state before it; threads open with the sent parts), the rehearsal clock's mark (last);
    None for no game."""
    with store.engine.connect() as conn:
        row = conn.execute(_SIGNATURE, {"gid": game_id}).first()
    return None if row is None or row.status == BOARD_STATUS else tuple(row)


def _gm_signature(store: Store, game_id: int) -> tuple[Any, ...] | None:
    """What the GM page reads of a game that can change (the public page's signature, with
    the rows the board refused and the inputs stored; the rehearsal clock's mark last); None
    for no game."""
    with store.engine.connect() as conn:
        row = conn.execute(_GM_SIGNATURE, {"gid": game_id}).first()
    return None if row is None or row.status == BOARD_STATUS else tuple(row)


def _public_context(store: Store, settings: WebSettings, game_id: int, clock: views.GameNow | None = None,
                    game: GameFold | None = None) -> dict[str, Any] | None:
    """The public page's data; `game`: the game's folds so far, carried on to its newest
    event (None: folded from the first event, as a full refold)."""
    loaded = _load(store, game_id)
    if loaded is None:
        return None
    record, state = loaded
    outbox = store.outbox(game_id)
    held = views.first_unsent_event(record.name, outbox) if state is not None else None
    links = views.PostLinks((settings.post_url, settings.thread_url), _thread_ids(store, game_id))
    fold = None
    if state is not None:
        fold = _public_fold(store, game or GameFold(), record, links, held)
    if held is not None:  # the board has not been told yet: show the state before that event
        state = fold.state if fold is not None else None
    ctx = _common(store, record, state, clock)
    ctx["held"] = held is not None
    if state is None or fold is None:
        return ctx
    ruleset = ctx["ruleset"]
    last = held - 1 if held is not None else None
    ctx["players"] = views.public_players(ruleset, state)
    ctx["count"] = views.current_count(ruleset, state, ctx["clock"].at)
    ctx["log"] = views.public_log(record.name, outbox, links, until_event=last)
    ctx["counts"] = fold.newest_first()
    ctx["timeline"] = fold.timeline()
    ctx["fold"] = fold
    ctx["record"] = views.finished_record(ruleset, state, ctx["log"])
    ctx["hexmap"] = views.hex_map(ruleset, None, secret=False) if ctx["is_hex"] else None
    ctx["alive"] = sum(1 for p in state.players if p.alive)
    return ctx


def _public_fold(store: Store, game: GameFold, record: Any, links: views.PostLinks, held: int | None) -> PublicFold:
    """The game's public fold carried on to the event the board has been told of last (the
    one before `held`, else the newest): only the events after the fold's seq are read and
    folded.  Started again when it cannot carry on (another version of the variant file, a
    link it made that would now differ, a held post of an event it folded already)."""
    ruleset = RULESETS.get(record.config.get("ruleset_file") or record.ruleset)
    upto = held - 1 if held is not None else record.step_seq
    if game.public is None or not game.public.holds_for(ruleset, links, upto):
        game.public = PublicFold(ruleset, links)
    if game.public.seq < upto:
        game.public.add(_events_after(store, record.id, game.public.seq, upto), links)
    return game.public


_EVENTS = events_query(bindparam("gid"), bindparam("after"), bindparam("upto")).subquery()
# an input's event is its inbound row's (store.events_query)
_EVENTS_AFTER = select(_EVENTS).order_by(_EVENTS.c.seq)


def _events_after(store: Store, game_id: int, after: int, upto: int) -> list[Any]:
    """The game's events after seq `after` up to `upto`, in order (seq, kind, payload_json):
    an input's payload made from its inbound row when that says all of it (`event_records`)."""
    with store.engine.connect() as conn:
        return event_records(conn.execute(_EVENTS_AFTER, {"gid": game_id, "after": after, "upto": upto}))


def _game_now(store: Store, record: Any) -> views.GameNow:
    """The game's clock (a rehearsal's, from the daemon's mark on the board row; else real time)."""
    board = store.game_id(f"@board:{record.board}"[:200]) if record.board else None
    mark = store.mark(board, "game_clock") if board is not None else None
    return views.game_now(mark, datetime.now(UTC))


def _phase_context(store: Store, settings: WebSettings, game_id: int, path: str,
                   game: GameFold | None = None) -> dict[str, Any] | None:
    """The public page as it was at the end of one phase (issue 25 item 9): the state after
    the event that closed it, and the posts and votes up to that event only (kept by the
    game's fold when it folded that event)."""
    loaded = _load(store, game_id)
    if loaded is None or loaded[1] is None:
        return None
    record = loaded[0]
    outbox = store.outbox(game_id)
    held = views.first_unsent_event(record.name, outbox)
    links = views.PostLinks((settings.post_url, settings.thread_url), _thread_ids(store, game_id))
    fold = _public_fold(store, game or GameFold(), record, links, held)
    i = next((i for i, p in enumerate(fold.phases) if p.path == path), None)
    if i is None:
        return None
    end = fold.phases[i]
    at_end = fold.at_end(end, _events_after(store, game_id, 0, end.end_event))
    state, ruleset = at_end.state, fold.ruleset
    ctx = _common(store, record, state)
    log = views.public_log(record.name, outbox, links, until_event=end.end_event)
    timeline = fold.timeline()
    ctx.update(before=timeline[i - 1] if i > 0 else None, after=timeline[i + 1] if i + 1 < len(timeline) else None)
    ctx.update(held=False, at_end=end, phase=f"{end.name}结束时", players=views.public_players(ruleset, state), count=None, deadline=None,
               log=log, counts=fold.newest_first(at_end.counts),
               timeline=timeline, alive=sum(1 for p in state.players if p.alive),
               hexmap=views.hex_map(ruleset, None, secret=False) if ctx["is_hex"] else None,
               record=views.finished_record(ruleset, state, log))
    return ctx


def _player_context(store: Store, settings: WebSettings, game_id: int, seat: int,
                    game: GameFold | None = None) -> dict[str, Any] | None:
    """One player's panel: the public page's facts about him; his own PMs only once the game
    is over and the end post is on the board (never another's)."""
    ctx = _public_context(store, settings, game_id, None, game)
    if ctx is None or ctx.get("state") is None:
        return None
    state = ctx["state"]
    done = ctx["over"] and not ctx["held"]
    pms = _own_pms(store, game_id, state, seat) if done else None
    panel = views.player_panel(state, ctx["players"], ctx["counts"], seat, pms)
    if panel is None:
        return None
    ctx.update(panel=panel, phase=ctx["phase"])
    return ctx


def _own_pms(store: Store, game_id: int, state: GameState, seat: int) -> list[views.PanelPm]:
    """Every PM between 神的使者 and the player of `seat` (his account), in time order."""
    player = next((p for p in state.players if p.seat == seat), None)
    if player is None:
        return []
    account = player.forum_name or player.name
    got = [views.PanelPm(at=o.board_at or o.sent_at, sent=False, subject=o.subject or "", text=o.body)
           for o in store.outbox(game_id) if o.kind == "pm" and o.status == "sent" and o.target == account]
    sent = [views.PanelPm(at=r.sent_at, sent=True, subject="", text=r.text)
            for r in store.inbound(game_id) if r.source == "pm" and r.sender == account]
    far = datetime.max.replace(tzinfo=UTC)
    return sorted(got + sent, key=lambda m: (m.at or far, not m.sent))


def _gm_context(store: Store, settings: WebSettings, game_id: int, game: GameFold | None = None,
                clock: views.GameNow | None = None) -> dict[str, Any] | None:
    """The GM page's data; `game`: the game's folds so far (None: folded from the first event)."""
    loaded = _load(store, game_id)
    if loaded is None:
        return None
    record, state = loaded
    ctx = _common(store, record, state, clock)
    outbox = store.outbox(game_id)
    ctx["outbox"] = list(reversed(outbox))
    ctx["pending"] = sum(1 for o in outbox if o.status == "pending")
    ctx["overrides"] = _overrides(store, game_id, game or GameFold(), record.step_seq)
    if state is None:
        return ctx
    ruleset = ctx["ruleset"]
    ctx["next_due"] = ruleset.next_deadline(state)
    ctx["players"] = [_gm_player(ruleset, state, p, record.name) for p in state.players]
    family = ruleset.spec.ruleset
    ctx["step"] = views.words(views.family_words(family, "step_words"), state.phase.step)
    ctx["next_kind"] = views.words(views.family_words(family, "deadline_words"), ctx["next_due"].kind) \
        if ctx["next_due"] else ""
    ctx["commands"] = views.admin_commands(record.name)
    ctx["shared_notes"] = _shared_notes(ctx["players"])
    ctx["inputs"] = _inputs(store, record.name, game_id, state.phase.label, outbox)
    ctx["preview"] = _preview(store, record, game or GameFold())
    ctx["hexmap"] = views.hex_map(ruleset, state, secret=True) if ctx["is_hex"] else None
    ctx["seed"] = record.seed
    return ctx


def _gm_player(ruleset: Any, state: GameState, p: Any, game: str) -> dict[str, Any]:
    """A player's card on the GM page: role, state and notes in Chinese (issue 25 item 11),
    with the admin command lines for him (item 13)."""
    view = ruleset.player_view(state, p.name)
    family = ruleset.spec.ruleset
    cause = views.words(views.family_words(family, "cause_words"), p.death_cause)
    died = f"{views.label_name(p.died_in or '', family)} {cause}"
    return {"seat": p.seat, "name": p.name, "forum_name": p.forum_name,
            "role": view.get("role_name") or p.role, "faction": ruleset.spec.factions.get(p.faction, p.faction),
            "alive": p.alive, "died": died.strip() if not p.alive else "", "notes": _notes(view, p.alive),
            "commands": views.admin_commands(game, p.name, p.seat) if p.alive else {}}


def _notes(view: dict[str, Any], alive: bool) -> dict[str, str]:
    """A card's notes; the dead attack no one, so no attack range (issue 38 item 7)."""
    notes = views.gm_notes(view)
    return notes if alive else {k: v for k, v in notes.items() if k != views.NOTE_WORDS["attack_list"]}


def _shared_notes(players: list[dict[str, Any]]) -> dict[str, str]:
    """Notes every player has alike (game-wide data in `player_view`, e.g. the dig depths):
    shown once, and taken out of each row."""
    if len(players) < 2:
        return {}
    first = players[0]["notes"]
    shared = {k: v for k, v in first.items() if all(p["notes"].get(k) == v for p in players)}
    for p in players:
        p["notes"] = {k: v for k, v in p["notes"].items() if k not in shared}
    return shared


def _thread_ids(store: Store, game_id: int) -> dict[str, str]:
    return {key: forum_id for forum_id, key in store.threads(game_id).items()}


@dataclass
class Input:
    source: str
    forum_id: str
    sender: str
    sent_at: datetime
    text: str
    thread_key: str | None
    edited: bool
    receipts: list[Any]


def _inputs(store: Store, game_name: str, game_id: int, phase_label: str, outbox: list[Any]) -> list[Input]:
    """Every PM and post of the phase, each with what it caused in the outbox: the messages of
    its event (`{game}:{seq}:{i}`, the store's default key), PMs first (the receipt)."""
    q = select(InboundRow).where(InboundRow.game_id == game_id, InboundRow.phase_label == phase_label) \
        .order_by(InboundRow.id)
    with Session(store.engine) as s:
        rows = list(s.scalars(q))
    out = []
    for r in rows:
        prefix = f"{game_name}:{r.event_seq}:"
        caused = [o for o in outbox if r.event_seq is not None and o.key.startswith(prefix)]
        caused.sort(key=lambda o: o.kind != "pm")
        out.append(Input(source=r.source, forum_id=r.forum_id, sender=r.sender, sent_at=r.sent_at,
                         text=r.text, thread_key=r.thread_key, edited=r.edited, receipts=caused))
    return out


def _overrides(store: Store, game_id: int, game: GameFold, upto: int) -> list[GmIn]:
    """Every GM input, in order, from the event log (refused ones too): the events after
    the GM fold's seq read and folded once."""
    gm = game.gm
    if gm.seq > upto:  # a log that shrank is another game's: start again
        gm = game.gm = GmFold()
    if gm.seq < upto:
        gm.add(_events_after(store, game_id, gm.seq, upto))
    return list(gm.overrides)


def _preview(store: Store, record: Any, game: GameFold) -> dict[str, Any] | None:
    """GameDriver.preview with an offline forum: what the next deadline would do now; made
    once per state of the game (its step seq) and version of the variant file, kept with the
    game's folds (a post sent or an input stored renders the GM page again, not this)."""
    key = (record.step_seq, RULESETS.versions())
    if game.preview is not None and game.preview[0] == key:
        return game.preview[1]
    result = GameDriver(store, OfflineForum(), record.id).preview()
    made = None
    if result is not None:
        due, outcome = result
        made = {"due": due, "posts": outcome.posts, "pms": outcome.pms,
                "phase": views.phase_name(outcome.state.phase, outcome.state.ruleset), "kind": views.words(
                    views.DEADLINE_WORDS, due.kind)}
    game.preview = (key, made)
    return made

