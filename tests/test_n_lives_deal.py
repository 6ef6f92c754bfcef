"""猫有n条命 (seed 000): the deal, checked as properties over many seeds.

§2 and DECISIONS 1.1.1 (cards per player and the deck), §4.1–4.4 (杀手 card to the killer,
狼人 card to the werewolf, no two privilege cards of one type in a hand, at most two 庶民),
§3.4.1 and A1 (8 distinct attribute cards 3/3/1/1, never on 杀手/狼人; 占卜 not on 占卜/束魂,
先知 not on 先知/巫医), §0.6 (a seeded deal: same seed, same deal)."""

from __future__ import annotations

from collections import Counter

import pytest

from n_lives_helpers import Game
from tianshen.rules import load_ruleset

SEEDS = range(200)
# players -> (cards each, commoners, civilians, self-choosers)   (§2, DECISIONS 1.1.1 table)
TABLE = {5: (5, 9, 3, 0), 6: (4, 8, 3, 1), 7: (4, 12, 4, 1)}
PRIVILEGES = {"killer": 1, "werewolf": 1, "sniper": 2, "diviner": 2, "prophet": 2, "vest": 2, "jail": 2,
              "bisha": 2, "curse": 2}


def deal(players: int, seed: int) -> Game:
    return Game(deal=True, players=players, seed=seed)


def kinds(g: Game, name: str) -> list[str]:
    data = g.state.data["cards"]
    return [data[c]["type"] for c in g.state.player(name).extra["hand"]]


@pytest.fixture(scope="module", params=[5, 6, 7])
def games(request) -> tuple[int, list[Game]]:
    return request.param, [deal(request.param, s) for s in SEEDS]


def test_card_counts(games):
    """§2: 5 players 5 cards each (25), 6 or 7 players 4 each (24/28); 16 privilege cards,
    the rest 庶民 (9/8/12)."""
    n, gs = games
    each, commoners, _, _ = TABLE[n]
    for g in gs:
        assert all(len(g.state.player(p.name).extra["hand"]) == each for p in g.state.players)
        total = Counter(k for p in g.state.players for k in kinds(g, p.name))
        assert total["commoner"] == commoners
        assert {k: v for k, v in total.items() if k != "commoner"} == PRIVILEGES
        assert len(g.state.data["cards"]) == each * n


def test_factions(games):
    """§2: one killer, one werewolf, 3–4 civilians, one self-chooser (none with 5 players)."""
    n, gs = games
    _, _, civilians, chooser = TABLE[n]
    for g in gs:
        roles = Counter(p.role for p in g.state.players)
        assert roles == Counter({"killer": 1, "werewolf": 1, "civilian": civilians} | (
            {"chooser": chooser} if chooser else {}))


def test_killer_and_werewolf_cards_with_their_owners(games):
    """§4.1 杀手牌肯定发给杀手; §4.2 狼人牌肯定发给狼人."""
    _, gs = games
    for g in gs:
        for p in g.state.players:
            held = kinds(g, p.name)
            assert ("killer" in held) == (p.role == "killer")
            assert ("werewolf" in held) == (p.role == "werewolf")


def test_no_two_of_a_type_and_at_most_two_commoners(games):
    """§4.3 两张相同的特权牌不会发给同一个游戏者; §4.4 庶民牌不会多于两张; hence every hand
    has a privilege card for its 底牌 (1.1.1)."""
    _, gs = games
    seen_two = False
    for g in gs:
        for p in g.state.players:
            held = kinds(g, p.name)
            privileges = [k for k in held if k != "commoner"]
            assert len(privileges) == len(set(privileges)), held
            assert held.count("commoner") <= 2, held
            assert privileges
            seen_two |= held.count("commoner") == 2
    assert seen_two  # the limit is reached, not avoided


def test_attributes(games):
    """§3.4.1, A1: 8 distinct cards, 3 杀手, 3 狼人, 1 占卜, 1 先知 attribute; never on the 杀手
    or 狼人 card (or a 庶民); 占卜 attribute not on 占卜/束魂, 先知 not on 先知/巫医."""
    _, gs = games
    for g in gs:
        marked = {c: info for c, info in g.state.data["cards"].items() if info["attr"]}
        assert len(marked) == 8
        assert Counter(i["attr"] for i in marked.values()) == {"killer": 3, "werewolf": 3, "diviner": 1,
                                                                "prophet": 1}
        for info in marked.values():
            assert info["type"] not in ("killer", "werewolf", "commoner")
            assert not (info["attr"] == "diviner" and info["type"] == "diviner")
            assert not (info["attr"] == "prophet" and info["type"] == "prophet")


def test_same_seed_same_deal():
    """§0.6: the deal comes from a seeded PRNG: the same seed deals the same hands, factions
    and attributes; different seeds do not all deal alike."""
    for n in TABLE:
        for seed in (0, 7, 123):
            a, b = deal(n, seed), deal(n, seed)
            assert [(p.name, p.role, p.extra["hand"]) for p in a.state.players] == \
                   [(p.name, p.role, p.extra["hand"]) for p in b.state.players]
            assert a.state.data["cards"] == b.state.data["cards"]
        hands = {tuple(tuple(p.extra["hand"]) for p in deal(n, s).state.players) for s in range(10)}
        assert len(hands) > 1


def test_deal_varies(games):
    """§4.5 其他牌在全体游戏者当中抽签决定归属: over many seeds every free type reaches every
    faction, and the killer's role moves between seats."""
    _, gs = games
    reach: dict[str, set[str]] = {}
    seats = set()
    for g in gs:
        for p in g.state.players:
            for k in kinds(g, p.name):
                reach.setdefault(k, set()).add(p.role)
            if p.role == "killer":
                seats.add(p.seat)
    for k in ("sniper", "diviner", "prophet", "vest", "jail", "bisha", "curse", "commoner"):
        assert {"killer", "werewolf", "civilian"} <= reach[k], k
    assert len(seats) > 2


def test_role_pm_shows_hand_and_faction_not_attributes(games):
    """§5.2: the role PM gives the faction and the hand; A1: no attribute is told."""
    _, gs = games
    for g in gs[:20]:
        for p in g.state.players:
            body = "\n".join(m.body for m in g.setup_out.pms if m.to == p.name)
            assert f"{len(p.extra['hand'])}张" in body
            assert "属性" not in body


def _whole_shuffles(spec, state) -> None:
    """The deal as DECISIONS 1.1.1 words it: whole uniform shuffles until every hand is legal
    (the reference for `cards.deal`, which stops reading a shuffle at the first broken hand)."""
    from tianshen.core import rng
    from tianshen.rules.n_lives import cards

    deck = cards.deck(spec, len(state.players))
    types = cards.card_types(spec)
    each = int(cards.deal_table(spec, len(state.players))["cards_each"])
    holder = {c: next(p.name for p in state.players if p.faction == types[t].owner) for c, t in deck
              if types[t].owner}
    while True:
        order = rng.shuffled(state, [c for c, _ in deck if c not in holder])
        hands = {p.name: [c for c, name in holder.items() if name == p.name] for p in state.players}
        for p in state.players:
            while len(hands[p.name]) < each:
                hands[p.name].append(order.pop())
        kinds_ = [[c.rsplit("-", 1)[0] for c in h] for h in hands.values()]
        if all(k.count("commoner") <= 2 and len({t for t in k if t != "commoner"}) == len(k) - k.count("commoner")
               for k in kinds_):
            for p in state.players:
                p.extra["hand"] = rng.shuffled(state, hands[p.name])
            return


@pytest.mark.parametrize("players", [5, 6, 7])
def test_deal_is_whole_shuffles_draw_for_draw(players):
    """The deal stops a try at its first broken hand, yet deals what whole shuffles deal, and
    leaves the RNG where they leave it (the pinned games depend on both)."""
    from tianshen.rules.n_lives import cards

    for seed in SEEDS:
        g = deal(players, seed)
        mine, reference = g.state.copy(), g.state.copy()
        cards.deal(g.ruleset.spec, mine)
        _whole_shuffles(g.ruleset.spec, reference)
        assert [p.extra["hand"] for p in mine.players] == [p.extra["hand"] for p in reference.players]
        assert mine.rng_draws == reference.rng_draws


def test_deal_hashes_only_the_draws_it_reads(monkeypatch):
    """A try ends at its first broken hand: the draws left in its shuffle are counted, not
    hashed (the deal was about a tenth of a 7-player game)."""
    from tianshen.core import rng
    from tianshen.rules.n_lives import cards

    hashed = 0
    sha256 = rng._sha256

    def counting(data: bytes):
        nonlocal hashed
        hashed += 1
        return sha256(data)

    counted = 0
    for seed in range(20):
        state = deal(7, seed).state.copy()
        before = state.rng_draws
        monkeypatch.setattr(rng, "_sha256", counting)
        cards.deal(load_ruleset("n_lives").spec, state)
        monkeypatch.setattr(rng, "_sha256", sha256)
        counted += state.rng_draws - before
    assert hashed < counted * 0.7, (hashed, counted)
