"""The cards of 猫有n条命: the deck, the deal, hidden attributes, hands and discard orders.

A card is an instance id (`sniper-2`, `commoner-5`); `state.data["cards"][id]` holds its type
and its hidden attribute.  A player's `extra["hand"]` lists his active cards in discard order
(first lost first, the last one is the 底牌); `extra["escrow"]` is the card taken by an
execution that may still be pardoned (DECISIONS A15).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from tianshen.core import rng
from tianshen.core.clock import show_for
from tianshen.core.grammar import normalize
from tianshen.core.model import GameState, Player, peek
from tianshen.core.names import fold
from tianshen.core.spec import Lines, RulesetSpec, Text

COMMONER = "commoner"
MAX_DEAL_TRIES = 10_000


@dataclass(frozen=True)
class CardType:
    id: str
    name: str
    count: int
    owner: str | None
    abilities: tuple[str, ...]
    aliases: tuple[str, ...]

    @property
    def is_commoner(self) -> bool:
        return self.id == COMMONER


def card_types(spec: RulesetSpec) -> dict[str, CardType]:
    """The card types of the variant (read once per spec object: the spec does not change;
    the table is shared, read it only)."""
    return spec.derived("n_lives.card_types", _read_card_types)


def _read_card_types(spec: RulesetSpec) -> dict[str, CardType]:
    out = {}
    for cid, info in spec.section("cards").items():
        out[cid] = CardType(cid, info["name"], int(info.get("count", 0)), info.get("owner"),
                            tuple(info.get("abilities", [])), tuple(info.get("aliases", [])))
    return out


def card_type(state: GameState, card: str) -> str:
    return str(peek(state.data, "cards")[card]["type"])


def is_privilege(state: GameState, card: str) -> bool:
    return card_type(state, card) != COMMONER


def hand(p: Player) -> list[str]:
    """A copy of the player's hand, the caller's to change (`held` reads it without a copy)."""
    return list(peek(p.extra, "hand") or ())


def held(p: Player) -> list[str]:
    """The player's hand itself: read it, do not change it (in `apply`'s copy, the hand of
    the state it was given until the fold changes it: `peek`)."""
    return peek(p.extra, "hand") or []  # type: ignore[no-any-return]


def count_commoners(state: GameState, p: Player) -> int:
    data, n = peek(state.data, "cards"), 0
    for c in peek(p.extra, "hand") or ():  # `held`, without its call (every living player every night)
        if data[c]["type"] == COMMONER:
            n += 1
    return n


# ---- dealing (§2, §4, §3.4.1) --------------------------------------------------------


def deck(spec: RulesetSpec, players: int) -> list[tuple[str, str]]:
    """(card id, type) for every card of a game of `players` (§2: 24–28 cards)."""
    table = deal_table(spec, players)
    cards: list[tuple[str, str]] = []
    for ctype in card_types(spec).values():
        n = int(table["commoners"]) if ctype.is_commoner else ctype.count
        cards += [(f"{ctype.id}-{i + 1}", ctype.id) for i in range(n)]
    return cards


def deal_table(spec: RulesetSpec, players: int) -> dict[str, Any]:
    table = spec.section("deal").get(str(players))
    if table is None:
        raise ValueError(f"{spec.id} is played by {', '.join(map(str, spec.player_counts))} players, not {players}")
    return dict(table)


def factions_for(spec: RulesetSpec, players: int) -> list[str]:
    """§2: one killer, one werewolf, 3–4 civilians, and one self-chooser (none at 5)."""
    table = deal_table(spec, players)
    return ["killer", "werewolf"] + ["civilian"] * int(table["civilians"]) + ["chooser"] * int(table["chooser"])


def deal(spec: RulesetSpec, state: GameState) -> None:
    """§4: the 杀手 card to the killer, the 狼人 card to the werewolf, no two cards of one type
    in a hand, at most two 庶民 per hand, everything else by lot.  DECISIONS 1.1.1: rejection
    sampling over uniform deals, with the state's seeded RNG."""
    types = card_types(spec)
    cards = deck(spec, len(state.players))
    each = int(deal_table(spec, len(state.players))["cards_each"])
    limit = int(spec.options.get("max_commoners_per_hand", 2))
    owned = {c: types[t].owner for c, t in cards if types[t].owner}
    holder = {card: next(p.name for p in state.players if p.faction == owner) for card, owner in owned.items()}
    loose = [c for c, _ in cards if c not in owned]
    kind = dict(cards)
    seats = _seats(state, holder, kind, each)
    for _ in range(MAX_DEAL_TRIES):
        hands = _try_deal(state, loose, seats, kind, limit)
        if hands is not None:
            for p in state.players:
                p.extra["hand"] = rng.shuffled(state, hands[p.name])
            state.data["cards"] = {c: {"type": t, "attr": None} for c, t in cards}
            return
    raise RuntimeError("no legal deal found")  # pragma: no cover - the constraints are loose


Seat = tuple[str, tuple[str, ...], frozenset[str], int, int]  # name, own cards, their privilege types, 庶民, cards to draw


def _seats(state: GameState, holder: dict[str, str], kind: dict[str, str], each: int) -> list[Seat]:
    """Each player in seat order with the cards he is given before the lot (the same every
    try: worked out once a deal)."""
    out: list[Seat] = []
    for p in state.players:
        own = tuple(card for card, name in holder.items() if name == p.name)
        privileges = frozenset(kind[c] for c in own if kind[c] != COMMONER)
        out.append((p.name, own, privileges, sum(1 for c in own if kind[c] == COMMONER), each - len(own)))
    return out


def _try_deal(state: GameState, loose: list[str], seats: list[Seat], kind: dict[str, str],
              limit: int) -> dict[str, list[str]] | None:
    """One uniform deal: `rng.shuffled(state, loose)` (the same draws in the same order), the
    players in seat order taking cards from its end.  Fisher–Yates fixes the list from the end,
    one place a draw, so each card is dealt as soon as its place is drawn; a hand that breaks §4
    (two privilege cards of one type, or more than `limit` 庶民) ends the try there, and the
    draws the rest of the shuffle would have made are counted as made (the next try starts
    where a whole shuffle would have left the RNG): None."""
    order = list(loose)
    hands: dict[str, list[str]] = {}
    i = len(order) - 1  # the next place to fix
    drawn, sha = state.rng_draws, rng._sha256
    prefix = b"%d:" % state.seed  # `rng._draw(seed, n)` is sha256 of prefix + n: `rng.below` without a call a draw
    for name, own, privileges_, commoners, wanted in seats:
        hand_ = list(own)
        privileges = set(privileges_)
        for _ in range(wanted):
            if i > 0:
                drawn += 1
                j = int.from_bytes(sha(prefix + b"%d" % drawn).digest()[:8], "big") % (i + 1)
                order[i], order[j] = order[j], order[i]
            card = order[i]
            i -= 1
            ctype = kind[card]
            if ctype == COMMONER:
                commoners += 1
                if commoners > limit:
                    state.rng_draws = drawn + max(i, 0)
                    return None
            elif ctype in privileges:
                state.rng_draws = drawn + max(i, 0)
                return None
            else:
                privileges.add(ctype)
            hand_.append(card)
        hands[name] = hand_
    state.rng_draws = drawn
    return hands


def draw_attributes(spec: RulesetSpec, state: GameState) -> None:
    """§3.4.1, DECISIONS A1: 3 killer, 3 werewolf, 1 diviner, 1 prophet attribute on 8 distinct
    privilege cards other than 杀手 and 狼人; never 占卜 on 占卜/束魂 nor 先知 on 先知/巫医."""
    counts = {k: int(v) for k, v in spec.section("attributes").items()}
    pool = [c for c, info in state.data["cards"].items() if info["type"] not in ("killer", "werewolf", COMMONER)]
    own = {"diviner": "diviner", "prophet": "prophet"}
    for _ in range(MAX_DEAL_TRIES):
        picked = rng.shuffled(state, pool)
        labels = [a for a, n in counts.items() for _ in range(n)]
        chosen = dict(zip(picked, labels, strict=False))
        if all(state.data["cards"][c]["type"] != own.get(a) for c, a in chosen.items()):
            for c, a in chosen.items():
                state.data["cards"][c]["attr"] = a
            return
    raise RuntimeError("no legal attribute draw")  # pragma: no cover


# ---- what a hand answers to an investigation (§3.1.4a, §3.1.5a, §3.1.6c/d, §3.4.1) -------


def shows(state: GameState, p: Player, asked: str) -> bool:
    """Does the player hold the card asked about, or a card with that attribute?  Escrow is
    not held (A15)."""
    data = peek(state.data, "cards")
    for c in held(p):
        info = data[c]
        if info["type"] == asked or info["attr"] == asked:
            return True
    return False


# ---- discard orders (§6) ------------------------------------------------------------------

_ORDER_SPLIT = re.compile(r"[、,，;；\s→>\-]+")


class OrderError(ValueError):
    """A discard order that cannot be taken; the message says why, in Chinese."""


def name_of(spec: RulesetSpec, state: GameState, card: str) -> str:
    return type_names(spec)[peek(state.data, "cards")[card]["type"]]


def type_names(spec: RulesetSpec) -> dict[str, str]:
    """Card type -> its name (once per spec object; read only)."""
    return spec.derived("n_lives.type_names", lambda s: {t.id: t.name for t in card_types(s).values()})


def parse_order(spec: RulesetSpec, state: GameState, p: Player, text: str) -> list[str]:
    """§6.1: the player's cards by name, first lost first, the 底牌 last.  Names may be written
    whole (诅咒/庇佑) or by one of their halves (诅咒), with or without 牌; 庶民 once per 庶民牌."""
    body = normalize(text)
    for mark in ("：", ":"):
        if mark in body:
            body = body.rsplit(mark, 1)[1]
    body = re.sub(r"[（(][^）)]*[）)]", "", body)
    words = [w for w in _ORDER_SPLIT.split(body.strip()) if w]
    if not words:
        raise OrderError("没有写牌名。")
    lookup, data = _name_lookup(spec), peek(state.data, "cards")
    remaining = hand(p)
    order: list[str] = []
    for word in words:
        ctype = lookup.get(fold(word.removesuffix("牌")))
        if ctype is None:
            raise OrderError(f"没有叫“{word}”的牌。你的手牌：{describe_hand(spec, state, remaining + order)}")
        card = next((c for c in remaining if data[c]["type"] == ctype), None)  # `card_type`, without its call
        if card is None:
            raise OrderError(f"你手中没有（更多的）“{word}”。你的手牌：{describe_hand(spec, state, hand(p))}")
        remaining.remove(card)
        order.append(card)
    if remaining:
        missing = "、".join(name_of(spec, state, c) for c in remaining)
        raise OrderError(f"丢牌顺序要写全你手中的{len(hand(p))}张牌，还缺：{missing}。")
    return order


def _name_lookup(spec: RulesetSpec) -> dict[str, str]:
    """Every folded name a card type is written by (built once per spec object; read only)."""
    return spec.derived("n_lives.card_names", _read_name_lookup)


def _read_name_lookup(spec: RulesetSpec) -> dict[str, str]:
    lookup: dict[str, str] = {}
    for ctype in card_types(spec).values():
        for alias in (ctype.name, *ctype.aliases, *ctype.name.split("/")):
            lookup.setdefault(fold(alias.removesuffix("牌")), ctype.id)
    return lookup


def check_bottom(state: GameState, p: Player, order: list[str]) -> None:
    """§6.2: the 底牌 is a privilege card, and once fixed it never changes."""
    bottom = p.extra.get("bottom")
    if bottom and order[-1] != bottom:
        raise OrderError("底牌一经确定，在整局游戏中都不能再更换。")
    if not is_privilege(state, order[-1]):
        raise OrderError("庶民牌不能作底牌，请把一张特权牌放在最后。")


def set_order(p: Player, order: list[str]) -> None:
    p.extra["hand"] = order
    p.extra["bottom"] = order[-1]
    p.extra["order_set"] = True


def random_order(state: GameState, p: Player) -> list[str]:
    """DECISIONS 1.1.3: a random order with a random privilege card at the bottom (a fixed
    bottom stays)."""
    cards = hand(p)
    bottom = p.extra.get("bottom") or rng.choice(state, [c for c in cards if is_privilege(state, c)])
    rest = rng.shuffled(state, [c for c in cards if c != bottom])
    return rest + [bottom]


def describe_hand(spec: RulesetSpec, state: GameState, cards: list[str]) -> str:
    names, data = type_names(spec), peek(state.data, "cards")
    return "、".join([names[data[c]["type"]] for c in cards]) or "（无）"


# ---- losing cards (§5.8, §6) ---------------------------------------------------------------


def lose_front(p: Player) -> str | None:
    """Every hit takes the first card of the order (§1, §6)."""
    cards = p.extra.get("hand", [])
    return cards.pop(0) if cards else None


def lose_card(p: Player, card: str) -> bool:
    cards = p.extra.get("hand", [])
    if card in cards:
        cards.remove(card)
        return True
    return False


_POSITION = re.compile(r"(倒数)?\s*第?\s*([0-9一二三四五六七八九]+)\s*(张|位|个)?\s*(牌)?$")
_DIGITS = {c: i + 1 for i, c in enumerate("一二三四五六七八九")}


def split_position(arg: str) -> tuple[str, int | None]:
    """`丙 倒数第2` → ("丙", -2); `丙 第1张` → ("丙", 1); `丙` → ("丙", None)."""
    text = normalize(arg).strip()
    m = _POSITION.search(text)
    if not m or not (m.group(1) or "第" in m.group(0)):
        return text, None
    raw = m.group(2)
    n = int(raw) if raw.isdigit() else _DIGITS.get(raw, 0)
    name = text[: m.start()].strip().rstrip("的").strip()
    return name, (-n if m.group(1) else n)


# ---- a hand dealt by a script, the losses and the reorder windows (§4, §6.3) ----------------------


def fixed_hands(spec: RulesetSpec, state: GameState, setup: dict[str, Any]) -> None:
    """A replay's `[setup]`: hands by card name in discard order (the last is the 底牌),
    optional `attributes` (player -> card name -> 杀手/狼人/占卜/先知)."""
    types = card_types(spec)
    by_name = {t.name: t.id for t in types.values()} | {a: t.id for t in types.values() for a in t.aliases}
    counters: dict[str, int] = {}
    state.data["cards"] = {}
    for name, written in setup["hands"].items():
        p = state.find(name)
        if p is None:
            raise ValueError(f"hand for unknown player '{name}'")
        hand = []
        for card_name in written:
            ctype = by_name.get(card_name)
            if ctype is None:
                raise ValueError(f"unknown card '{card_name}' in {name}'s hand; cards: {', '.join(by_name)}")
            counters[ctype] = counters.get(ctype, 0) + 1
            cid = f"{ctype}-{counters[ctype]}"
            state.data["cards"][cid] = {"type": ctype, "attr": None}
            hand.append(cid)
        p.extra["hand"] = hand
        if not is_privilege(state, hand[-1]):
            raise ValueError(f"{name}'s last card (the 底牌) must be a privilege card (§6.2)")
        set_order(p, hand)
    attr_names = {"杀手": "killer", "狼人": "werewolf", "占卜": "diviner", "先知": "prophet"}
    for name, table in (setup.get("attributes") or {}).items():
        p = state.player(name)
        for card_name, attr in table.items():
            card = next(c for c in p.extra["hand"] if name_of(spec, state, c) == card_name)
            state.data["cards"][card]["attr"] = attr_names.get(attr, attr)
    missing = [p.name for p in state.players if "hand" not in p.extra]
    if missing:
        raise ValueError(f"[setup.hands] must give every player's hand; missing: {', '.join(missing)}")
    check_deal(spec, state)


def check_deal(spec: RulesetSpec, state: GameState) -> None:
    """§4 holds for a dealt-by-hand game too: the 杀手 and 狼人 cards with their owners, no two
    cards of one type in a hand, at most two 庶民, and the deck of §2 (A1: 16 + 8–12)."""
    types = card_types(spec)
    limit = int(spec.options.get("max_commoners_per_hand", 2))
    expected = Counter(t for _, t in deck(spec, len(state.players)))
    dealt: Counter[str] = Counter()
    for p in state.players:
        kinds = [card_type(state, c) for c in hand(p)]
        dealt.update(kinds)
        privileges = [t for t in kinds if t != COMMONER]
        if len(set(privileges)) != len(privileges) or kinds.count(COMMONER) > limit:
            raise ValueError(f"{p.name}'s hand breaks §4.3/§4.4 (two cards of one type, or more than "
                             f"{limit} 庶民)")
        for t in privileges:
            owner = types[t].owner
            if owner and p.faction != owner:
                raise ValueError(f"the {types[t].name} card goes to the {spec.factions[owner]} (§4.1–4.2)")
    if dealt != expected:
        raise ValueError("the hands do not make the deck of §2: "
                         + ", ".join(f"{types[t].name} {dealt[t]}/{n}" for t, n in expected.items()
                                     if dealt[t] != n))


def count_losses(state: GameState, finals: int) -> None:
    state.data["discarded"] += finals
    state.data["quiet"] = 0 if finals else state.data["quiet"] + 1


def reorder_check(spec: RulesetSpec, state: GameState, at: datetime, lines: list[Any]) -> None:
    """§6.3, A32: at ⌊T/3⌋ and ⌊2T/3⌋ final losses a 24-hour window to send a new order;
    both crossed at once → one window, both chances used."""
    total, done = state.data["total"], state.data["discarded"]
    thresholds = [total // 3, 2 * total // 3]
    reached = sum(1 for t in thresholds if done >= t)
    if reached <= state.data["windows"]:
        return
    state.data["windows"] = reached
    until = at + timedelta(hours=spec.timing.hours("reorder_hours", 24))
    state.data["reorder_until"] = until.isoformat()
    lines.append(spec.later("reorder_window", count=done, total=total,
                            fraction="1/3" if reached == 1 else "2/3", until=show_for(state, until)))


def kind(spec: RulesetSpec, state: GameState, card: str) -> str:
    return spec.text("kind_privilege" if is_privilege(state, card) else "kind_commoner")


def kinds(spec: RulesetSpec, state: GameState, lost: list[str]) -> Lines:
    """§5.8: how many 特权牌 and 庶民牌, never which card."""
    data = peek(state.data, "cards")
    privileges = sum(1 for c in lost if data[c]["type"] != COMMONER)
    commoners = len(lost) - privileges
    parts: list[str | Text | Lines] = []
    if privileges:
        parts.append(spec.later("lost_privilege", n=privileges))
    if commoners:
        parts.append(spec.later("lost_commoner", n=commoners))
    return Lines(spec.text("and"), parts)


def hand_text(spec: RulesetSpec, state: GameState, p: Player) -> Text:
    """A player's hand and AP by PM (rendered when read)."""
    escrow = p.extra.get("escrow")
    extra = spec.later("hand_escrow", card=name_of(spec, state, escrow)) if escrow else ""
    return spec.later("hand_pm", hand=describe_hand(spec, state, held(p)), escrow=extra, ap=p.extra["ap"])
