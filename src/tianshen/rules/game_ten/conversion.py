"""Hidden potentials, the two conversion queues and 转职 (seed 001 §2.10, DECISIONS §2.1.8,
B11–B13).  Pure: the draws come from the state's RNG (core.rng, DECISIONS §0.6)."""

from __future__ import annotations

from typing import Any

from tianshen.core import rng
from tianshen.core.model import GameState, Player
from tianshen.rules.common.roles import KILLERS, is_killer
from tianshen.rules.game_ten.night import CAUSE_RANK

PROFESSIONS = ("binder", "curser", "blesser", "butterfly", "summoner")
TRIGGER_DEATHS = 6  # 001 §2.10 "游戏的前6位死者中出现1位杀手"


def deal_potentials(state: GameState, fixed: dict[str, Any]) -> None:
    """001 §2.10: of the 7 commoners 3 have killer potential, 3 profession potential, 1 both;
    the GM draws each queue before the game, and the dual commoner is last in both.
    `fixed` (GameSetup.setup) may give `killer_queue` and `profession_queue` (4 names each,
    the same last name) for scripts and tests."""
    commoners = [p.name for p in state.players if p.role == "commoner"]
    if fixed.get("killer_queue") or fixed.get("profession_queue"):
        kq, pq = list(fixed["killer_queue"]), list(fixed["profession_queue"])
        if (len(kq) != 4 or len(pq) != 4 or kq[-1] != pq[-1] or set(kq) & set(pq) != {kq[-1]}
                or not set(kq + pq) <= set(commoners)):
            raise ValueError("killer_queue and profession_queue: 4 commoners each, only the last one shared")
    else:
        drawn = rng.shuffled(state, commoners)
        kq = drawn[0:3] + [drawn[6]]
        pq = drawn[3:6] + [drawn[6]]
    state.data["queues"] = {"killer": kq, "profession": pq}
    for p in state.players:
        if p.role == "commoner":
            pot = [k for k, q in (("killer", kq), ("profession", pq)) if p.name in q]
            p.extra["potential"] = pot


def record_deaths(state: GameState) -> None:
    """Deaths in announcement order; one announcement's deaths ordered killed > bound >
    implicated, then by seat (DECISIONS §2.1.8, B12)."""
    known = {d["name"] for d in state.data["deaths"]}
    new = [p for p in state.players if not p.alive and p.name not in known and p.died_in is not None]
    new.sort(key=lambda p: (CAUSE_RANK.get(p.death_cause or "", 9), p.seat))
    for p in new:
        state.data["deaths"].append({"name": p.name, "when": p.died_in, "cause": p.death_cause,
                                     "role": p.role, "killer": is_killer(p)})


def triggered(state: GameState) -> bool:
    """The first time a killer is among the first six dead (fires at most once)."""
    return not state.data.get("converted") and any(d["killer"] for d in state.data["deaths"][:TRIGGER_DEATHS])


def _first_living(state: GameState, queue: list[str]) -> Player | None:
    """001 §2.10 "排在前面的庶民在转职之前死亡，排在后面的庶民递补"."""
    return next((state.player(n) for n in queue if state.player(n).alive and state.player(n).role == "commoner"),
                None)


def vacant_profession(state: GameState) -> str | None:
    """The profession a converted commoner takes (001 §2.10): the one vacancy; with several,
    the profession of whoever died first (same announcement and cause: seeded draw, B13);
    None when nothing is vacant (he chooses)."""
    vacant = [r for r in PROFESSIONS if not any(p.alive and p.role == r for p in state.players)]
    if len(vacant) <= 1:
        return vacant[0] if vacant else None
    holders = [d for d in state.data["deaths"] if d["role"] in vacant]
    first = holders[0]
    same = [d for d in holders if d["when"] == first["when"] and d["cause"] == first["cause"]]
    return str(rng.choice(state, same)["role"] if len(same) > 1 else first["role"])


def convert(state: GameState) -> dict[str, Any]:
    """Convert one commoner of each queue (killer first: B12, the dual one becomes the killer).
    Returns {"killer": name|None, "professional": name|None, "role": role|None (None = to choose)}."""
    state.data["converted"] = True
    done: dict[str, Any] = {"killer": None, "professional": None, "role": None}
    k = _first_living(state, state.data["queues"]["killer"])
    if k is not None:
        k.role, k.faction = "killer", KILLERS
        k.extra["converted"] = "killer"
        done["killer"] = k.name
    pro = _first_living(state, state.data["queues"]["profession"])
    if pro is not None:
        role = vacant_profession(state)
        pro.role = role or "unchosen"  # no vacancy: he chooses before the night's lock
        pro.extra["converted"] = "profession"
        done["professional"], done["role"] = pro.name, role
        if role is None:
            state.data["pending_choice"] = pro.name
    state.roles_changed()
    return done


def choose(state: GameState, p: Player, role: str) -> None:
    """001 §2.10 "没有职业空缺…可以自由选择转职成束魂、诅咒、庇佑、招魂、还是蝴蝶夫人"."""
    p.role = role
    state.roles_changed()
    state.data.pop("pending_choice", None)


def choose_by_lot(state: GameState) -> str | None:
    """No choice before the night's lock: a seeded draw (DECISIONS §2.1.8)."""
    name = state.data.get("pending_choice")
    if not name or not state.player(name).alive:
        state.data.pop("pending_choice", None)
        return None
    choose(state, state.player(name), rng.choice(state, list(PROFESSIONS)))
    return name
