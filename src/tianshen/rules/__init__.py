"""The rulesets.  `load_ruleset("classic_10")` binds a family to one variant's data;
`load_ruleset("path/to/variant.toml")` does the same for a variant file anywhere.

Each family lives in `rules/<family>/ruleset.py`; it is imported when first used.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module
from typing import Any

from tianshen.core.ruleset import Ruleset
from tianshen.core.spec import RulesetSpec
from tianshen.specs import load_spec

# family id -> "module:class"
FAMILIES: dict[str, str] = {
    "classic": "tianshen.rules.classic.ruleset:Classic",
    "game_ten": "tianshen.rules.game_ten.ruleset:GameTen",
    "n_lives": "tianshen.rules.n_lives.ruleset:NLives",
    "hex_survival": "tianshen.rules.hex_survival.ruleset:HexSurvival",
    "butterfly_elder": "tianshen.rules.butterfly_elder.ruleset:ButterflyElder",
}


def family_class(family: str) -> type[Ruleset]:
    try:
        module, cls = FAMILIES[family].split(":")
    except KeyError as exc:
        raise ValueError(f"ruleset family '{family}' is unknown; families: {', '.join(FAMILIES)}") from exc
    try:
        found: type[Ruleset] = getattr(import_module(module), cls)
    except ModuleNotFoundError as exc:
        if exc.name and module.startswith(exc.name):
            raise ValueError(f"ruleset family '{family}' is not implemented yet") from exc
        raise
    return found


def load_ruleset(variant: str) -> Ruleset:
    """`variant`: an id found in tianshen.specs.rulesets_dirs(), or the path of a .toml file."""
    spec: RulesetSpec = load_spec(variant)
    return family_class(spec.ruleset)(spec)


def game_spec(ruleset: str, config: Mapping[str, Any]) -> RulesetSpec:
    """The variant of a stored game: the file it was signed up with (`config["ruleset_file"]`,
    see tianshen.specs.game_file), else its id.  Every reader of a stored game (driver, `admin
    status`, the web pages) goes through here, so a game signed up from a file works there too."""
    return load_spec(str(config.get("ruleset_file") or ruleset))


def game_ruleset(ruleset: str, config: Mapping[str, Any]) -> Ruleset:
    """The ruleset of a stored game (see game_spec), telling players to PM the game's GM
    account (issue 31 item 2: the name fixed at sign-up, GameSetup.gm_account)."""
    spec = game_spec(ruleset, config)
    setup = config.get("setup")
    if isinstance(setup, Mapping) and setup.get("gm_account"):
        spec = spec.for_gm(str(setup["gm_account"]))
    return family_class(spec.ruleset)(spec)
