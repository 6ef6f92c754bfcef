"""`tianshen web`: read-only pages beside the daemon — a public page per game, and the GM's.

Every page is rendered on the server; a few lines of JavaScript fetch the page's fragment
every few seconds and swap it in, so the page follows the game without a reload.  GM routes
need the token of `[web]` (header, cookie, or once in the query, which sets the cookie).
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, pass_context, select_autoescape
from markupsafe import Markup, escape
from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from tianshen.core.clock import DEFAULT_ZONE, show
from tianshen.core.model import GameState, GmIn
from tianshen.core.ruleset import gm_args
from tianshen.rules import game_ruleset, game_spec
from tianshen.service.driver import GameDriver, OfflineForum
from tianshen.store import Store
from tianshen.store.models import InboundRow
from tianshen.web import views

HERE = Path(__file__).resolve().parent
COOKIE = "tianshen_gm"
POLL_MS = 2000


@dataclass
class WebSettings:
    token: str | None  # None: the GM pages are closed
    post_url: str | None = None  # {thread}, {post}
    thread_url: str | None = None  # {thread}
    poll_ms: int = POLL_MS


def _env() -> Environment:
    env = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]))
    env.filters["t"] = _time
    env.filters["iso"] = lambda d: d.isoformat() if d else ""
    env.filters["short"] = _short
    env.filters["board"] = _board
    env.filters["gm_args"] = gm_args  # a GM command's arguments as words, never a dict (issue 23 item 13)
    return env


@pass_context
def _time(ctx: Any, d: datetime | None) -> str:
    """Every time a page shows: the one formatter (core.clock.show) in the game's zone (its
    state's, or the zone it was signed up with; issue 23 item 1)."""
    return show(d, ctx.get("zone") or DEFAULT_ZONE)


def _short(text: str, n: int = 60) -> str:
    """One line of at most `n` characters, without the board's bold marks."""
    flat = " ".join(str(text).replace("**", "").split())
    return flat if len(flat) <= n else flat[:n] + "…"


def _board(text: str) -> Markup:
    """A message body as the board shows it: escaped, with **bold** kept."""
    return Markup(_BOLD.sub(r"<strong>\1</strong>", str(escape(text))))


_BOLD = re.compile(r"\*\*(.+?)\*\*")


def create_app(store: Store, settings: WebSettings) -> Starlette:
    env = _env()

    def page(name: str, code: int = 200, **values: Any) -> HTMLResponse:
        html = env.get_template(name).render(poll_ms=settings.poll_ms, **values)
        return HTMLResponse(html, status_code=code, headers={"Cache-Control": "no-store"})

    def index(request: Request) -> Response:
        games = store.list_games()
        rows = [{"id": g.id, "name": g.name, "title": _title(g.ruleset, g.config), "status": views.STATUS_WORDS.get(g.status, g.status),
                 "phase": views.label_name(g.phase_label)} for g in games]
        return page("index.html", games=rows)

    def public(request: Request) -> Response:
        ctx = _public_context(store, settings, _game_id(request))
        if ctx is None:
            return page("missing.html", code=404)
        fragment = request.url.path.endswith("/fragment")
        return page("public_body.html" if fragment else "public.html", **ctx)

    def gm(request: Request) -> Response:
        refused = _refuse(request, settings)
        if refused is not None:
            return refused
        if request.query_params.get("token"):  # once in the link: keep it in a cookie, not the URL
            response = RedirectResponse(request.url.path, status_code=303)
            response.set_cookie(COOKIE, request.query_params["token"], httponly=True, samesite="strict")
            return response
        ctx = _gm_context(store, settings, _game_id(request))
        if ctx is None:
            return page("missing.html", code=404)
        fragment = request.url.path.endswith("/fragment")
        return page("gm_body.html" if fragment else "gm.html", **ctx)

    def _refuse(request: Request, settings: WebSettings) -> Response | None:
        given = _token(request)
        if not given:
            return page("login.html", code=401, path=request.url.path, wrong=False)
        if settings.token is None or not secrets.compare_digest(given.encode(), settings.token.encode()):
            return page("login.html", code=403, path=request.url.path, wrong=True)
        return None

    routes = [
        Route("/", index),
        Route("/game/{game_id:int}", public),
        Route("/game/{game_id:int}/fragment", public),
        Route("/game/{game_id:int}/gm", gm),
        Route("/game/{game_id:int}/gm/fragment", gm),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    return Starlette(routes=routes)


def _token(request: Request) -> str:
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return request.query_params.get("token") or request.cookies.get(COOKIE) or ""


def _game_id(request: Request) -> int:
    return int(request.path_params["game_id"])


def _title(variant: str, config: dict[str, Any]) -> str:
    try:
        return game_spec(variant, config).title
    except (KeyError, ValueError):
        return variant


# ---- the pages' data ------------------------------------------------------------------------


def _load(store: Store, game_id: int) -> tuple[Any, GameState | None] | None:
    try:
        record = store.load_game(game_id)
    except KeyError:
        return None
    state = GameState.model_validate_json(record.state_json) if record.status != "new" else None
    return record, state


def _common(store: Store, record: Any, state: GameState | None) -> dict[str, Any]:
    ruleset = game_ruleset(record.ruleset, record.config)
    ctx: dict[str, Any] = {"game": record, "title": ruleset.spec.title, "ruleset": ruleset,
                           "status": views.STATUS_WORDS.get(record.status, record.status), "state": state,
                           "is_hex": ruleset.board_map(None, False) is not None,
                           "zone": state.zone if state is not None
                           else (record.config.get("setup") or {}).get("zone") or DEFAULT_ZONE}
    if state is None:  # signed up, or dealt but the player list is not on the board yet
        signed_up = record.status == "new"
        ctx.update(phase="报名中" if signed_up else "即将开始", deadline=record.deadline_at if signed_up else None,
                   players=[])
        return ctx
    due = views.public_deadline(ruleset, state)
    winner = ruleset.spec.factions.get(state.winner or "", state.winner) if state.winner else None
    ctx.update(phase=views.phase_name(state.phase), deadline=due.at if due else None, winner=winner,
               paused=bool(state.data.get("paused_at")))
    return ctx


def _public_context(store: Store, settings: WebSettings, game_id: int) -> dict[str, Any] | None:
    loaded = _load(store, game_id)
    if loaded is None:
        return None
    record, state = loaded
    outbox = store.outbox(game_id)
    held = views.first_unsent_event(record.name, outbox) if state is not None else None
    if held is not None:  # the board has not been told yet: show the state before that event
        state = views.replay_state(game_ruleset(record.ruleset, record.config), store.events(game_id), held)
    ctx = _common(store, record, state)
    ctx["held"] = held is not None
    if state is None:
        return ctx
    ruleset = ctx["ruleset"]
    links = views.PostLinks((settings.post_url, settings.thread_url), _thread_ids(store, game_id))
    ctx["players"] = views.public_players(ruleset, state)
    ctx["count"] = views.current_count(ruleset, state, datetime.now(UTC))
    ctx["days"] = views.vote_days(_posts(store, game_id), outbox, links)
    ctx["hexmap"] = views.hex_map(ruleset, None, secret=False) if ctx["is_hex"] else None
    ctx["alive"] = sum(1 for p in state.players if p.alive)
    return ctx


def _gm_context(store: Store, settings: WebSettings, game_id: int) -> dict[str, Any] | None:
    loaded = _load(store, game_id)
    if loaded is None:
        return None
    record, state = loaded
    ctx = _common(store, record, state)
    outbox = store.outbox(game_id)
    ctx["outbox"] = list(reversed(outbox))
    ctx["pending"] = sum(1 for o in outbox if o.status == "pending")
    ctx["overrides"] = _overrides(store, game_id)
    if state is None:
        return ctx
    ruleset = ctx["ruleset"]
    ctx["next_due"] = ruleset.next_deadline(state)
    ctx["players"] = [_gm_player(ruleset, state, p) for p in state.players]
    ctx["shared_notes"] = _shared_notes(ctx["players"])
    ctx["inputs"] = _inputs(store, record.name, game_id, state.phase.label, outbox)
    ctx["preview"] = _preview(store, game_id)
    ctx["hexmap"] = views.hex_map(ruleset, state, secret=True) if ctx["is_hex"] else None
    ctx["seed"] = record.seed
    return ctx


def _gm_player(ruleset: Any, state: GameState, p: Any) -> dict[str, Any]:
    view = ruleset.player_view(state, p.name)
    shown = ("alive", "faction", "role", "role_name", "died_in", "death_cause")
    notes = {k: _note(v) for k, v in view.items() if k not in shown and v not in (None, True, [], {}, "")}
    return {"seat": p.seat, "name": p.name, "forum_name": p.forum_name,
            "role": view.get("role_name") or p.role, "faction": ruleset.spec.factions.get(p.faction, p.faction),
            "alive": p.alive, "died": f"{views.label_name(p.died_in or '')} {p.death_cause or ''}".strip(),
            "notes": notes}


def _note(value: Any) -> str:
    if isinstance(value, list):
        return "、".join(map(str, value))
    if isinstance(value, dict):
        return "，".join(f"{k}: {_note(v)}" for k, v in value.items())
    return str(value)


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
class Post:
    forum_id: str
    sender: str
    sent_at: datetime
    text: str
    thread_key: str | None
    edited: bool


def _posts(store: Store, game_id: int) -> list[Post]:
    """Thread posts in arrival order (public: they are on the board)."""
    q = select(InboundRow).where(InboundRow.game_id == game_id, InboundRow.source == "post").order_by(InboundRow.id)
    with Session(store.engine) as s:
        return [Post(r.forum_id, r.sender, r.sent_at, r.text, r.thread_key, r.edited) for r in s.scalars(q)]


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


def _overrides(store: Store, game_id: int) -> list[GmIn]:
    """Every GM input, in order, from the event log (refused ones too)."""
    out = []
    for e in store.events(game_id):
        if e.kind == "gm":
            out.append(GmIn.model_validate(json.loads(e.payload_json)))
    return out


def _preview(store: Store, game_id: int) -> dict[str, Any] | None:
    """GameDriver.preview with an offline forum: what the next deadline would do now."""
    result = GameDriver(store, OfflineForum(), game_id).preview()
    if result is None:
        return None
    due, outcome = result
    return {"due": due, "log": outcome.log, "posts": outcome.posts, "pms": outcome.pms,
            "phase": views.phase_name(outcome.state.phase)}

