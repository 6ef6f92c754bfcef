"""The index: one page of the games, filtered by status, ruleset and a search in the name
(issue 25 item 10).  Read from the games table's plain columns only (never a state); the
titles come from the web layer's ruleset cache (web.cache)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from tianshen.store.models import Game
from tianshen.store.store import BOARD_STATUS

PAGE_SIZE = 50
MAX_SEARCH = 100
# filter word -> the statuses it shows
STATUS_FILTERS = {"signup": ("new",), "running": ("running", "paused"), "over": ("over",)}
STATUS_FILTER_WORDS = {"": "全部", "signup": "报名中", "running": "进行中", "over": "已结束"}


@dataclass(frozen=True)
class IndexQuery:
    status: str = ""  # a key of STATUS_FILTERS, or "" for all
    ruleset: str = ""  # a variant id, or "" for all
    search: str = ""  # part of the game's name
    page: int = 1

    @classmethod
    def parse(cls, params: Any) -> IndexQuery:
        """From the query string; anything unknown or malformed means "no filter" / page 1."""
        status = params.get("status") or ""
        page = params.get("page") or "1"
        return cls(status=status if status in STATUS_FILTERS else "",
                   ruleset=(params.get("ruleset") or "")[:100],
                   search=" ".join((params.get("q") or "").split())[:MAX_SEARCH],
                   page=int(page) if page.isdigit() and len(page) < 7 and int(page) > 0 else 1)

    def link(self, **change: Any) -> str:
        """The index URL of this query with some fields changed."""
        q = {"status": self.status, "ruleset": self.ruleset, "q": self.search, "page": self.page} | change
        kept = {k: v for k, v in q.items() if v and not (k == "page" and v == 1)}
        return "/?" + urlencode(kept) if kept else "/"


@dataclass
class IndexPage:
    rows: list[dict[str, Any]]
    total: int
    page: int
    pages: int
    rulesets: list[tuple[str, str]]  # (variant, title) of every game's ruleset


def index_page(engine: Engine, query: IndexQuery, title: Callable[[str], str], size: int = PAGE_SIZE) -> IndexPage:
    cols = (Game.id, Game.name, Game.ruleset, Game.status, Game.phase_label, Game.deadline_at, Game.config_json)
    where = [Game.status != BOARD_STATUS]
    if query.status:
        where.append(Game.status.in_(STATUS_FILTERS[query.status]))
    if query.ruleset:
        where.append(Game.ruleset == query.ruleset)
    if query.search:
        where.append(Game.name.icontains(query.search, autoescape=True))
    with engine.connect() as conn:
        total = conn.scalar(select(func.count()).select_from(Game).where(*where)) or 0
        pages = max(1, math.ceil(total / size))
        page = min(query.page, pages)
        found = conn.execute(select(*cols).where(*where).order_by(Game.id.desc())
                             .limit(size).offset((page - 1) * size)).all()
        variants = conn.scalars(select(Game.ruleset).where(Game.status != BOARD_STATUS).distinct()).all()
    rows = [{"id": r.id, "name": r.name, "title": title(_ruleset_of(r.ruleset, r.config_json)), "status": r.status,
             "phase_label": r.phase_label, "deadline": r.deadline_at} for r in found]
    rulesets = sorted(((v, title(v)) for v in variants), key=lambda x: x[1])
    return IndexPage(rows=rows, total=total, page=page, pages=pages, rulesets=rulesets)


def _ruleset_of(ruleset: str, config_json: str) -> str:
    """The variant file a game was signed up with, else its id (a game from a variant file is
    titled from that file, as the driver loads it)."""
    try:
        return json.loads(config_json).get("ruleset_file") or ruleset
    except (ValueError, AttributeError):
        return ruleset
