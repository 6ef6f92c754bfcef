"""The privileges of the cards (§3.1.1–3.1.9, the author's cost table, DECISIONS 1.1.6).

Names, costs, windows and the words players write come from the ruleset data (`[abilities.*]`,
read by core.abilities); what each privilege does is in `night.py` and `day.py`.
"""

from __future__ import annotations

from tianshen.core.abilities import Ability, table
from tianshen.core.spec import RulesetSpec

__all__ = ["Ability", "abilities", "jailable", "verbs"]

# attacks that remove a card (§3.1.1a/c, §3.1.2a/c, §3.1.3a/b, §3.1.8a)
ORDINARY = {"k_attack", "w_attack", "snipe"}
UNBLOCKABLE = {"k_ohk", "w_ohk", "aimed", "bisha"}
ATTACKS = ORDINARY | UNBLOCKABLE
BY_KILLER_CARD = {"k_attack", "k_ohk"}
BY_WEREWOLF_CARD = {"w_attack", "w_ohk"}
BY_SNIPER_CARD = {"snipe", "aimed"}
# §3.3.5: privileges that last the whole round: once per phase, charged once
WHOLE_ROUND = {"saint", "vest", "bane", "antisnipe"}
INVESTIGATIONS = {"divine": "killer", "foresee": "werewolf", "probe_diviner": "diviner", "probe_prophet": "prophet"}
DECEPTIONS = {"deceive_diviner": "divine", "deceive_prophet": "foresee"}
MODIFIERS = {"curse", "hex", "bless", "devout"}  # §3.1.9
JAIL_IMMUNE = {"bisha"}  # §3.1.8a: 必杀不受禁锢牌影响 (3-AP privileges by their cost)


def abilities(spec: RulesetSpec) -> dict[str, Ability]:
    """The privileges of the variant (core.abilities' table of its `[abilities.*]`: name, cost,
    words, target — player / self / none / executed —, window — night, or any for §3.1.8a and
    §3.1.9 —, and the verb one word may mean for two cards: 攻击 is the killer's or the
    werewolf's, by the card he holds)."""
    return table(spec).by_id


def verbs(spec: RulesetSpec) -> dict[str, tuple[str, ...]]:
    """The PM words of every privilege, by verb, for `core.grammar.parse_pm`."""
    return table(spec).verbs()


def jailable(ability: Ability) -> bool:
    """§3.1.7a: 禁锢 voids every 1–2 AP privilege used that night, except 必杀."""
    return ability.cost <= 2 and ability.id not in JAIL_IMMUNE
