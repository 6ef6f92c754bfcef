"""Simulated players for `n_lives` (猫有n条命, seed 000): they write the PMs and posts a person
would.

Night 1: every player checks in (签到) and sends a discard order with a privilege card at the
bottom; the self-chooser picks a side (never 平民 at 7 players).  Each night they spend their
action points on the privileges of the cards they hold: killers, werewolves and a 一山不容二虎
chooser attack non-allies, civilians snipe suspects, others protect, investigate, imprison,
pardon yesterday's executed, curse or bless, and some keep a point or two.  By day everyone
who may vote posts a vote (weights are cards, the top two are executed) or delegates it by PM;
a few curse their target first.  Choices come from a RNG seeded by the game seed, the phase
and the purpose, so a rehearsal repeats.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache

from tianshen.core.model import GameState, Player, peek
from tianshen.core.spec import RulesetSpec
from tianshen.forum.base import PlayerSide
from tianshen.rules.n_lives import cards, victory
from tianshen.rules.n_lives.abilities import Ability, abilities
from tianshen.sim import ThreadLookup, check_in, in_draw_order, pick, unseeded
from tianshen.specs import load_spec

HOSTILE = {"killers", "werewolves", "solo"}
VOTE_FORMS = ("投票 {t}", "投票：{t}", "投 {t}", "投票　{t}")
STORY = (
    "{t}家的猫在屋脊上叫了一整夜，九条命的传说在镇上流传了很久，可今晚没有人愿意去数它还剩几条。",
    "雾从河面漫上来，把石板路浸得发亮，{t}提着灯笼经过祠堂，听见身后有极轻的脚步声。",
    "灯笼忽然灭了，黑暗里有人低声念出他的名字，一道冷光划过，带走了他手里攥着的一张牌。",
    "天亮时人们只在台阶上找到半截蜡烛和几根灰色的猫毛，谁也说不清昨夜究竟是谁出的手。",
    "凶手把刀擦干净，混进早起打水的人群里，和大家一样摇头叹气，仿佛什么都没有发生过。",
)


@dataclass
class Reads:
    """What the players' choices read at one `act`, by player: his side, the other living
    players (seat order), those not on his side (all of them for a solo chooser), the hostile
    ones among those, and his allies."""

    side: dict[str, str]
    others: dict[str, list[str]] = field(default_factory=dict)
    foes: dict[str, list[str]] = field(default_factory=dict)
    bad: dict[str, list[str]] = field(default_factory=dict)
    friends: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class Plan:
    """One player's PM for one night: ordinary lines first, attacks (each with its
    declaration on the next line) last."""

    ap: int
    lines: list[str] = field(default_factory=list)
    attacks: list[str] = field(default_factory=list)
    used: set[str] = field(default_factory=set)

    def can(self, cost: int, reserve: int = 0) -> bool:
        return cost <= self.ap - reserve

    def text(self) -> str:
        return "\n".join(self.lines + self.attacks)


class NLivesSims:
    def __init__(self, board: PlayerSide, gm_account: str, seed: int) -> None:
        self.board, self.gm, self.seed = board, gm_account, seed
        self.checked_in: set[str] = set()
        self.sides: dict[str, tuple[str, str | None]] = {}  # chooser -> (faction, mode) sent
        self.reordered: dict[str, int] = {}  # player -> reorder windows answered
        self.spec: RulesetSpec | None = None
        self.table: dict[str, Ability] = {}
        self._random = unseeded()  # seeded by `_rng` for every use, never drawn from before
        self._point = ""  # "<seed>:<phase>:<step>:" of the `act` running, the head of its seeds
        self._reads: Reads | None = None  # while `act` runs (see `_read`)

    def know(self, spec: RulesetSpec) -> None:
        """The variant the game is played by, as its ruleset holds it (read only)."""
        self.spec, self.table = spec, abilities(spec)

    def act(self, state: GameState, at: datetime, thread: ThreadLookup) -> None:
        """What the simulated players do at this point of the game.  The state does not change
        while the sims write, so the head of this point's seeds and (once the chooser's side is
        sent) what the choices read are worked out once, and dropped when `act` returns."""
        if self.spec is None:
            self.spec, self.table = _spec_of(state.variant)
        ph = state.phase
        self._point = f"{self.seed}:{ph.label}:{ph.step}:"
        try:
            main = thread("main")
            if state.data.get("checkin") and main:
                check_in(self.board, state, main, self.checked_in)
            if ph.kind == "night" and ph.number == 1:
                self.first_orders(state)
                self.choose_sides(state)  # the only change to self.sides
            self.reorder(state, at)
            if ph.kind == "night":
                self._reads = self._read(state)
                self.night(state)
            elif ph.kind == "day" and (vote := thread(f"vote:{ph.number}")) is not None:
                self._reads = self._read(state)
                self.day_privileges(state)
                self.vote(state, vote)
        finally:
            self._point, self._reads = "", None

    def _rng(self, state: GameState, what: str) -> random.Random:
        """The draws of one purpose: the one Random re-seeded (the same draws as a new
        `random.Random` of the string, without making one; each caller is done with the
        previous purpose's draws before it asks for the next)."""
        point = self._point or f"{self.seed}:{state.phase.label}:{state.phase.step}:"
        self._random.seed(point + what)
        return self._random

    def _pm(self, name: str, text: str, subject: str = "行动") -> None:
        self.board.pm(name, self.gm, text, subject=subject)

    # ---- sides ------------------------------------------------------------------------

    def side(self, p: Player) -> str:
        """The side a player plays for (the chooser's side as sent tonight, before the GM
        has read it)."""
        if p.role != "chooser":
            return "civilians" if p.faction == "chooser" else p.faction  # victory.side, without its call
        if p.name in self.sides:
            faction, mode = self.sides[p.name]
            return "solo" if mode == "solo" else faction
        return victory.side(p)

    def cowin(self, p: Player) -> bool:
        """§3.4.3: a chooser who wins together with his side may use no killing privilege."""
        if p.role != "chooser":
            return False
        mode = self.sides[p.name][1] if p.name in self.sides else p.extra.get("mode")
        return mode == "cowin"

    def choose_sides(self, state: GameState) -> None:
        """§2, §3.4.3: the chooser picks a side on night 1 (7 players: never 平民)."""
        for p in state.players:
            if p.role != "chooser" or p.name in self.sides or p.faction != "chooser":
                continue
            rng = self._rng(state, f"side:{p.name}")
            sides = ["杀手", "狼人"] + ([] if len(state.players) == 7 else ["平民"])
            side = pick(rng, sides)
            mode = None if side == "平民" else pick(rng, ["共赢", "一山不容二虎"])
            faction = {"平民": "civilians", "杀手": "killers", "狼人": "werewolves"}[side]
            self.sides[p.name] = (faction, {"共赢": "cowin", "一山不容二虎": "solo"}.get(mode or ""))
            self._pm(p.name, f"立场 {side}" + (f" {mode}" if mode else ""), subject="立场")

    # ---- check-in and discard orders (§5.2, §6) ---------------------------------------------

    def first_orders(self, state: GameState) -> None:
        for p in state.players:
            if p.alive and not p.extra.get("order_set"):
                rng = self._rng(state, f"order:{p.name}")
                self._send_order(state, p, self._order(state, p, rng, bottom=None))

    def reorder(self, state: GameState, at: datetime) -> None:
        """§6.3: in a reorder window some players move their cards around (the 底牌 stays)."""
        until = state.data.get("reorder_until")
        windows = int(state.data.get("windows", 0))
        if not until or at > datetime.fromisoformat(until):
            return
        for p in state.players:
            if not p.alive or self.reordered.get(p.name, 0) >= windows:
                continue
            self.reordered[p.name] = windows
            hand = cards.held(p)
            bottom = p.extra.get("bottom")
            if len(hand) > 1 and bottom == hand[-1]:  # the only players who draw: seeded for them
                rng = self._rng(state, f"reorder:{p.name}")
                if rng.random() < 0.5:
                    self._send_order(state, p, self._order(state, p, rng, bottom=bottom))

    def _order(self, state: GameState, p: Player, rng: random.Random, bottom: str | None) -> list[str]:
        """Mostly 庶民 first; the bottom a privilege card (the killer and the werewolf often keep
        their own card there)."""
        hand = cards.hand(p)
        data = peek(state.data, "cards")  # `cards.card_type` of each card, without its call
        if bottom is None:
            privileges = [c for c in hand if data[c]["type"] != cards.COMMONER]
            own = [c for c in privileges if data[c]["type"] in ("killer", "werewolf")]
            bottom = own[0] if own and rng.random() < 0.6 else pick(rng, privileges)
        rest = [c for c in hand if c != bottom]
        rng.shuffle(rest)
        if rng.random() < 0.7:
            rest.sort(key=lambda c: data[c]["type"] != cards.COMMONER)
        return rest + [bottom]

    def _send_order(self, state: GameState, p: Player, order: list[str]) -> None:
        assert self.spec is not None
        names = "、".join(cards.name_of(self.spec, state, c) for c in order)
        self._pm(p.name, f"丢牌顺序：{names}", subject="丢牌顺序")

    # ---- nights -------------------------------------------------------------------------

    def night(self, state: GameState) -> None:
        for p in state.players:
            if not p.alive or not peek(p.extra, "hand"):  # `cards.held`, without its call
                continue
            rng = self._rng(state, f"night:{p.name}")
            plan = self.plan_night(state, p, rng)
            if plan.lines or plan.attacks:
                self._pm(p.name, plan.text())

    def plan_night(self, state: GameState, p: Player, rng: random.Random) -> Plan:
        plan = Plan(ap=int(p.extra.get("ap", 0)))
        reserve = pick(rng, (0, 0, 0, 1, 2))  # sometimes keep points for later nights
        held = _held(state, p)
        self._attacks(state, p, held, plan, rng)
        self._protections(state, p, held, plan, rng, reserve)
        self._support(state, p, held, plan, rng, reserve)
        return plan

    def _attacks(self, state: GameState, p: Player, held: dict[str, str], plan: Plan, rng: random.Random) -> None:
        hostile = self.side(p) in HOSTILE
        for kind, attack, ohk in (("killer", "k_attack", "k_ohk"), ("werewolf", "w_attack", "w_ohk")):
            if kind in held:
                if plan.can(3) and rng.random() < 0.25:
                    self._attack(state, p, ohk, plan, rng)
                elif plan.can(1):
                    self._attack(state, p, attack, plan, rng)
        if "sniper" in held and not self.cowin(p) and rng.random() < (0.6 if hostile else 0.45):
            target = self._enemy(state, p, rng)
            size = len(cards.held(state.player(target))) if target else 0
            if size and plan.can(3) and rng.random() < 0.3:
                self._attack(state, p, "aimed", plan, rng, target, _position(size, rng))
            elif target and plan.can(1):
                self._attack(state, p, "snipe", plan, rng, target)
        bisha = held.get("bisha")
        if (bisha and bisha not in peek(state.data, "bisha_used") and not self.cowin(p) and plan.can(2)
                and rng.random() < (0.35 if hostile else 0.2)):
            self._use(plan, "bisha", self._enemy(state, p, rng), rng)

    def _attack(self, state: GameState, p: Player, ability: str, plan: Plan, rng: random.Random,
                target: str | None = None, position: str = "") -> None:
        target = target or self._enemy(state, p, rng)
        if target is None:
            return
        plan.ap -= self.table[ability].cost
        word = pick(rng, self.table[ability].words)
        head = f"{word} {target}" + (f" {position}" if position else "")
        plan.attacks.append(head + "\n" + declaration(target, rng))

    def _protections(self, state: GameState, p: Player, held: dict[str, str], plan: Plan, rng: random.Random,
                     reserve: int) -> None:
        if "vest" in held:
            for ability, chance in (("vest", 0.5), ("bane", 0.4)):
                if plan.can(1, reserve) and rng.random() < chance:
                    self._use(plan, ability, None, rng)
        if "diviner" in held and plan.can(2, reserve) and rng.random() < 0.4:
            self._use(plan, "bind", self._friend(state, p, rng), rng)
        if "prophet" in held and plan.can(2, reserve) and rng.random() < 0.4:
            self._use(plan, "heal", self._friend(state, p, rng), rng)
        if "jail" in held and plan.can(2, reserve) and rng.random() < 0.15:
            self._use(plan, "antisnipe", None, rng)
        if "bisha" in held and plan.can(2, reserve):
            self._pardon(state, p, plan, rng)
        saint = held.get("sniper")
        if saint and saint not in peek(state.data, "saint_used") and plan.can(3, reserve) and rng.random() < 0.12:
            self._use(plan, "saint", None, rng)

    def _pardon(self, state: GameState, p: Player, plan: Plan, rng: random.Random) -> None:
        """§3.1.8b: yesterday's executed, once each a game; mostly himself or an ally."""
        waiting = [q for q in state.players if q.alive and q.extra.get("escrow") and not q.extra.get("pardoned")]
        friends = [q for q in waiting if q.name == p.name or self.side(q) == self.side(p)]
        if friends and rng.random() < 0.6:
            self._use(plan, "pardon", pick(rng, friends).name, rng)
        elif waiting and rng.random() < 0.15:
            self._use(plan, "pardon", pick(rng, waiting).name, rng)

    def _support(self, state: GameState, p: Player, held: dict[str, str], plan: Plan, rng: random.Random,
                 reserve: int) -> None:
        others = (self._reads or self._read(state)).others[p.name]
        if not others:
            return
        options = [
            ("diviner", "divine", 0.35, pick(rng, others)),
            ("prophet", "foresee", 0.35, pick(rng, others)),
            ("vest", "probe_diviner", 0.12, pick(rng, others)),
            ("vest", "probe_prophet", 0.12, pick(rng, others)),
            ("jail", "jail", 0.2, self._enemy(state, p, rng)),
            ("curse", "curse", 0.35, self._enemy(state, p, rng)),
            ("curse", "hex", 0.1, self._enemy(state, p, rng)),
            ("curse", "bless", 0.2, p.name),
            ("curse", "devout", 0.05, self._friend(state, p, rng)),
            ("killer", "deceive_diviner", 0.15, p.name),
            ("werewolf", "deceive_prophet", 0.15, p.name),
        ]
        for kind, ability, chance, target in options:
            if kind in held and target and plan.can(self.table[ability].cost, reserve) and rng.random() < chance:
                self._use(plan, ability, target, rng)

    def _use(self, plan: Plan, ability: str, target: str | None, rng: random.Random) -> None:
        """One privilege line; whole-round ones once a night (§3.3.5)."""
        info = self.table[ability]
        if ability in plan.used or not plan.can(info.cost) or (info.target != "none" and not target):
            return
        plan.used.add(ability)
        plan.ap -= info.cost
        word = pick(rng, info.words)
        plan.lines.append(word if info.target == "none" else f"{word} {target}")

    # ---- whom to hit, whom to help -------------------------------------------------------

    def _read(self, state: GameState) -> Reads:
        """Every player's side and the players his choices pick from (the one `act` worked
        out, while it runs)."""
        if self._reads is not None:
            return self._reads
        side = {q.name: self.side(q) for q in state.players}
        alive = [q.name for q in state.players if q.alive]
        reads = Reads(side)
        by_side: dict[str, tuple[list[str], list[str], list[str]]] = {}  # foes, hostile foes, the side's living
        for q in state.players:
            name, mine = q.name, side[q.name]
            others = [n for n in alive if n != name]
            if mine == "solo":  # everyone else is his foe (one chooser: no other solo player)
                foes, bad, friends = others, [n for n in others if side[n] in HOSTILE], []
            else:
                if mine not in by_side:  # a side's lists in seat order, once: he is not among his foes
                    foes = [n for n in alive if side[n] != mine]
                    by_side[mine] = (foes, [n for n in foes if side[n] in HOSTILE], [n for n in alive if side[n] == mine])
                foes, bad, same = by_side[mine]
                friends = [n for n in same if n != name]
            reads.others[name], reads.foes[name], reads.bad[name], reads.friends[name] = others, foes, bad, friends
        return reads

    def _enemy(self, state: GameState, p: Player, rng: random.Random) -> str | None:
        """Attackers know their enemies; a civilian has a good read now and then."""
        reads = self._reads or self._read(state)
        if reads.side[p.name] in HOSTILE:
            pool = reads.foes[p.name]
        else:
            bad = reads.bad[p.name]
            pool = bad if bad and rng.random() < 0.4 else reads.others[p.name]
        return pick(rng, pool) if pool else None

    def _friend(self, state: GameState, p: Player, rng: random.Random) -> str:
        friends = (self._reads or self._read(state)).friends[p.name]
        if friends and rng.random() < 0.5:
            return pick(rng, friends)
        return p.name

    # ---- days ---------------------------------------------------------------------------

    def day_privileges(self, state: GameState) -> None:
        """§3.1.8a, §3.1.9: 必杀, curse and bless may be used by day too."""
        for p in state.players:
            if not p.alive:
                continue
            held = _held(state, p)
            bisha = held.get("bisha")
            may_bisha = bool(bisha) and bisha not in peek(state.data, "bisha_used") and not self.cowin(p)
            if "curse" not in held and not may_bisha:
                continue  # draws nothing: not seeded
            rng = self._rng(state, f"day:{p.name}")
            plan = Plan(ap=int(p.extra.get("ap", 0)))
            if "curse" in held and rng.random() < 0.25:
                self._use(plan, pick(rng, ("curse", "curse", "hex")), self._enemy(state, p, rng), rng)
            if may_bisha and rng.random() < 0.1:
                self._use(plan, "bisha", self._enemy(state, p, rng), rng)
            if plan.lines:
                self._pm(p.name, plan.text())

    def vote(self, state: GameState, thread_id: str) -> None:
        """§8: every living player who may vote votes; some delegate by PM (§8.4)."""
        rng = self._rng(state, "vote")
        barred = set(peek(state.data, "day")["cannot_vote"])
        voters = [p for p in state.players if p.alive and p.name not in barred]
        counts: dict[str, int] = {}
        for p in in_draw_order(rng, voters):
            target = self._choose_vote(state, p, counts, rng)
            if target is None:
                continue
            counts[target] = counts.get(target, 0) + len(peek(p.extra, "hand") or ())
            if rng.random() < 0.1:
                self._pm(p.name, f"委托投票 {target}", subject="委托投票")
            else:
                self.board.post(p.name, thread_id, pick(rng, VOTE_FORMS).format(t=target))

    def _choose_vote(self, state: GameState, p: Player, counts: dict[str, int], rng: random.Random) -> str | None:
        reads = self._reads or self._read(state)
        options = reads.others[p.name]
        if not options:
            return None
        mine = reads.side[p.name]
        if counts and rng.random() < 0.4:
            leader = max(counts, key=lambda c: counts[c])
            if leader in options and (mine not in HOSTILE or reads.side[leader] != mine or mine == "solo"):
                return leader
        return self._enemy(state, p, rng) or pick(rng, options)


def _held(state: GameState, p: Player) -> dict[str, str]:
    """Card type -> card of the player's hand (the last of a type; only 庶民 come twice)."""
    data = peek(state.data, "cards")  # (read only: `peek`, not a copy of every card)
    return {data[c]["type"]: c for c in peek(p.extra, "hand") or ()}


def _position(size: int, rng: random.Random) -> str:
    """A position 瞄准狙击 may name (§3.1.3b: not the 底牌 while there are more cards)."""
    if size == 1:
        return "倒数第1"
    k = rng.randint(2, size)
    return f"倒数第{k}" if rng.random() < 0.7 else f"第{size - k + 1}张"


def declaration(target: str, rng: random.Random) -> str:
    """A declaration of more than 100 characters (§3.4.2)."""
    lines = list(STORY)
    middle = lines[1:4]
    rng.shuffle(middle)
    return "".join(line.format(t=target) for line in [lines[0], *middle, lines[4]])


@cache
def _spec_of(variant: str) -> tuple[RulesetSpec, dict[str, Ability]]:
    """The variant and its ability table, read once per process (a Monte Carlo run plays
    thousands of games; the sims only read them)."""
    spec = load_spec(variant)
    return spec, abilities(spec)
