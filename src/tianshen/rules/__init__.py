"""The rulesets.  `load_ruleset("classic_10")` binds a family to one variant's data."""

from __future__ import annotations

from tianshen.core.ruleset import Ruleset
from tianshen.core.spec import RulesetSpec, load_spec
from tianshen.rules.classic.ruleset import Classic
from tianshen.rules.game_ten.ruleset import GameTen

FAMILIES: dict[str, type[Ruleset]] = {"classic": Classic, "game_ten": GameTen}


def load_ruleset(variant: str) -> Ruleset:
    spec: RulesetSpec = load_spec(variant)
    try:
        family = FAMILIES[spec.ruleset]
    except KeyError as exc:
        raise ValueError(f"ruleset family '{spec.ruleset}' is not implemented yet") from exc
    return family(spec)
