"""Activity rules shared by the rulesets that have them (000 §9.1.6, 001 §6.1.6, 003 §10.1.6:
at least five analysis posts in any 48 hours; 004 补充 二: one a day), and 诈尸 (a dead
player posting, 001 §4.2–4.3).  Reported to the human GM, never enforced here: the texts
say "一经发现将被判出局", which is the GM's call (`tianshen admin modkill`).

Data: the ruleset option `analysis_quota = { posts = 5, hours = 48 }` turns the count on.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from tianshen.core.model import GameState, Player, PostIn, peek

QUOTA = "analysis_quota"  # the option's key: a variant without it counts no posts


def quota(options: dict[str, Any]) -> tuple[int, float] | None:
    q = options.get(QUOTA)
    return (int(q["posts"]), float(q["hours"])) if q else None


def record(state: GameState, post: PostIn, hours: float) -> None:
    """Keep each living player's post times of the last `hours`."""
    p = state.find(post.author)
    if p is None or not p.alive:
        return
    times = state.data.setdefault("activity", {}).setdefault(p.name, [])
    times.append(post.at.isoformat())
    cutoff = post.at - timedelta(hours=hours)
    times[:] = [t for t in times if datetime.fromisoformat(t) > cutoff]


def is_zombie_post(state: GameState, p: Player, thread: str) -> bool:
    """诈尸: a dead player posting — except the night's dead writing their will that day in
    a thread of their own (001 §4.2: not in the vote thread) and a player summoned to vote
    (001 §4.3)."""
    if p.alive:
        return False
    ph = state.phase
    if ph.kind == "day" and p.died_in == f"night {ph.number}" and not thread.startswith("vote:"):
        return False
    d = peek(state.data, "day") or {}  # read only: not `apply`'s copy
    # 001 §4.3 "被招魂者不受诈尸规定的制约": revived by 招魂 (§2.7) or summoned to vote (§5.5)
    return p.name not in d.get("summoned", []) and p.name not in d.get("revived", [])


def lurkers(state: GameState, at: datetime, posts: int, hours: float, start: datetime) -> list[tuple[str, int]]:
    """Living players with fewer than `posts` posts in the `hours` before `at` (only once
    the game has run that long), each reported at most once per window."""
    if at - start < timedelta(hours=hours):
        return []
    cutoff = at - timedelta(hours=hours)
    noted = state.data.setdefault("activity_noted", {})
    found = []
    times = peek(state.data, "activity") or {}  # read only: not `apply`'s copy
    for p in state.players:
        if not p.alive:
            continue
        count = sum(1 for t in times.get(p.name, []) if datetime.fromisoformat(t) > cutoff)
        last = noted.get(p.name)
        if count < posts and (last is None or datetime.fromisoformat(last) <= cutoff):
            noted[p.name] = at.isoformat()
            found.append((p.name, count))
    return found
