"""A minimal plain-Python classic_10 loop: the speed a pure core could reach with no
framework at all (issue 24).  Slotted dataclasses, Chinese text commands parsed and answered,
a seeded RNG; the same shape as a game of the real core (deal, nights of PMs, dawn post, a
day of vote posts, count, execution, victory), without its rules' detail.  It is a yardstick
printed beside bench/core_speed.py's figures, not a second implementation.

    .venv/bin/python bench/reference_classic.py [games]
"""

from __future__ import annotations

import random
import sys
import time
from dataclasses import dataclass, field

ROLES = ["killer"] * 2 + ["diviner", "binder", "curser", "blesser"] + ["commoner"] * 4
NAMES = ["白狐", "青竹", "夜莺", "孤舟", "寒梅", "石榴", "墨鱼", "飞燕", "老槐", "山雀"]
VERB = {"killer": "杀", "diviner": "验", "binder": "束魂", "curser": "诅咒", "blesser": "祝福"}


@dataclass(slots=True)
class Player:
    name: str
    role: str
    alive: bool = True


@dataclass(slots=True)
class State:
    players: list[Player]
    rng: random.Random
    night: int = 1
    actions: dict[str, tuple[str, str]] = field(default_factory=dict)  # actor -> (verb, target)
    votes: dict[str, str] = field(default_factory=dict)
    log: list[str] = field(default_factory=list)
    winner: str | None = None


def find(state: State, name: str) -> Player | None:
    return next((p for p in state.players if p.name == name), None)


def on_pm(state: State, sender: str, text: str) -> str:
    """Parse, check window, alive and target; record; answer."""
    p = find(state, sender)
    words = text.split()
    if p is None or not p.alive or len(words) != 2:
        return "无效的指令。"
    target = find(state, words[1])
    if words[0] != VERB.get(p.role) or target is None or not target.alive:
        return "无效的指令。"
    state.actions[p.name] = (words[0], target.name)
    return f"已收到：{text}"


def on_post(state: State, author: str, text: str) -> None:
    p = find(state, author)
    if p is not None and p.alive and text.startswith("投票 "):
        target = find(state, text[3:].strip())
        if target is not None and target.alive:
            state.votes[p.name] = target.name


def dawn(state: State) -> None:
    kills = [t for a, (verb, t) in state.actions.items() if verb == "杀"]
    blessed = {t for verb, t in state.actions.values() if verb == "祝福"}
    if kills and kills[0] not in blessed:
        victim = find(state, kills[0])
        if victim is not None:
            victim.alive = False
            state.log.append(f"昨夜 {victim.name} 遇害")
    state.actions.clear()


def dusk(state: State) -> None:
    counts: dict[str, int] = {}
    for target in state.votes.values():
        counts[target] = counts.get(target, 0) + 1
    if counts:
        top = max(counts.values())
        leaders = [n for n, c in counts.items() if c == top]
        if len(leaders) == 1:
            executed = find(state, leaders[0])
            if executed is not None:
                executed.alive = False
                state.log.append(f"{executed.name} 被处决")
    state.votes.clear()
    state.night += 1


def victory(state: State) -> str | None:
    killers = sum(1 for p in state.players if p.alive and p.role == "killer")
    others = sum(1 for p in state.players if p.alive and p.role != "killer")
    if killers == 0:
        return "civilians"
    if killers >= others:
        return "killers"
    return None


def play(seed: int) -> State:
    rng = random.Random(seed)
    roles = ROLES[:]
    rng.shuffle(roles)
    state = State([Player(n, r) for n, r in zip(NAMES, roles, strict=True)], rng)
    while state.winner is None:
        living = [p for p in state.players if p.alive]
        for p in living:
            if p.role in VERB:
                on_pm(state, p.name, f"{VERB[p.role]} {rng.choice(living).name}")
        dawn(state)
        if (winner := victory(state)) is not None:
            state.winner = winner
            break
        living = [p for p in state.players if p.alive]
        for p in living:
            on_post(state, p.name, f"投票 {rng.choice(living).name}")
        dusk(state)
        state.winner = victory(state)
    return state


def games_per_second(games: int) -> float:
    t0 = time.process_time()
    for seed in range(games):
        play(seed)
    return games / (time.process_time() - t0)


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    print(f"reference classic_10 (plain Python): {games_per_second(n):.0f} games per CPU second")
