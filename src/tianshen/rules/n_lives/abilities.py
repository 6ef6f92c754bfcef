"""The privileges of the cards (§3.1.1–3.1.9, the author's cost table, DECISIONS 1.1.6).

Names, costs and the words players write come from the ruleset data (`[abilities.*]`); what
each privilege does is in `night.py` and `day.py`.
"""

from __future__ import annotations

from dataclasses import dataclass

from tianshen.core.spec import RulesetSpec

# attacks that remove a card (§3.1.1a/c, §3.1.2a/c, §3.1.3a/b, §3.1.8a)
ORDINARY = {"k_attack", "w_attack", "snipe"}
UNBLOCKABLE = {"k_ohk", "w_ohk", "aimed", "bisha"}
ATTACKS = ORDINARY | UNBLOCKABLE
DECLARED = ORDINARY | {"k_ohk", "w_ohk", "aimed"}  # §3.4.2: each attack a declaration; 必杀 none
BY_KILLER_CARD = {"k_attack", "k_ohk"}
BY_WEREWOLF_CARD = {"w_attack", "w_ohk"}
BY_SNIPER_CARD = {"snipe", "aimed"}
# §3.3.5: privileges that last the whole round: once per phase, charged once
WHOLE_ROUND = {"saint", "vest", "bane", "antisnipe"}
INVESTIGATIONS = {"divine": "killer", "foresee": "werewolf", "probe_diviner": "diviner", "probe_prophet": "prophet"}
DECEPTIONS = {"deceive_diviner": "divine", "deceive_prophet": "foresee"}
MODIFIERS = {"curse", "hex", "bless", "devout"}  # §3.1.9
JAIL_IMMUNE = {"bisha"}  # §3.1.8a: 必杀不受禁锢牌影响 (3-AP privileges by their cost)
# the verb a player writes for each ability (one verb may mean two abilities: 攻击 is the
# killer's or the werewolf's, by the card he holds)
VERB_OF = {"k_attack": "attack", "w_attack": "attack", "k_ohk": "ohk", "w_ohk": "ohk"}


@dataclass(frozen=True)
class Ability:
    id: str
    name: str
    cost: int
    words: tuple[str, ...]
    target: str  # player | self | none | executed
    any_time: bool  # §3.1.8a, §3.1.9: day or night

    @property
    def verb(self) -> str:
        return VERB_OF.get(self.id, self.id)


def abilities(spec: RulesetSpec) -> dict[str, Ability]:
    """The privileges of the variant (read once per spec object: the spec does not change)."""
    return spec.derived("n_lives.abilities", _read_abilities)


def _read_abilities(spec: RulesetSpec) -> dict[str, Ability]:
    return {aid: Ability(aid, info["name"], int(info["cost"]), tuple(info.get("words", [info["name"]])),
                         info.get("target", "player"), bool(info.get("any_time", False)))
            for aid, info in spec.section("abilities").items()}


def verbs(spec: RulesetSpec) -> dict[str, tuple[str, ...]]:
    """The PM words of every privilege, by verb, for `core.grammar.parse_pm`."""
    out: dict[str, tuple[str, ...]] = {}
    for ability in abilities(spec).values():
        words = out.get(ability.verb, ())
        out[ability.verb] = words + tuple(w for w in ability.words if w not in words)
    return out


def jailable(ability: Ability) -> bool:
    """§3.1.7a: 禁锢 voids every 1–2 AP privilege used that night, except 必杀."""
    return ability.cost <= 2 and ability.id not in JAIL_IMMUNE
