"""The rulesets.  `load_ruleset("classic_10")` binds a family to one variant's data;
`load_ruleset("path/to/variant.toml")` does the same for a variant file anywhere.

Each family lives in `rules/<family>/`: its package declares `FAMILY` (core.family), the one
record the shell reads; its ruleset class is imported when first used.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module
from pkgutil import iter_modules
from typing import Any

from tianshen.core.family import Family
from tianshen.core.ruleset import Ruleset
from tianshen.core.spec import RulesetSpec
from tianshen.specs import load_spec, shared_spec


def families() -> dict[str, Family]:
    """Every family: each package under rules/ that declares `FAMILY` (core.family)."""
    global _FAMILIES
    if _FAMILIES is None:
        found = {}
        for info in sorted(iter_modules(__path__), key=lambda m: m.name):
            record = getattr(import_module(f"{__name__}.{info.name}"), "FAMILY", None)
            if isinstance(record, Family):
                if record.id != info.name:
                    raise ValueError(f"rules/{info.name} declares family '{record.id}'")
                record.check(record.ruleset_class())
                found[record.id] = record
        _FAMILIES = found
    return _FAMILIES


_FAMILIES: dict[str, Family] | None = None


def family(name: str) -> Family:
    try:
        return families()[name]
    except KeyError as exc:
        raise ValueError(f"ruleset family '{name}' is unknown; families: {', '.join(families())}") from exc


def family_class(name: str) -> type[Ruleset]:
    found: type[Ruleset] = family(name).ruleset_class()
    return found


def load_ruleset(variant: str) -> Ruleset:
    """`variant`: an id found in tianshen.specs.rulesets_dirs(), or the path of a .toml file."""
    return _built(load_spec(variant))


def game_spec(ruleset: str, config: Mapping[str, Any]) -> RulesetSpec:
    """The variant of a stored game: the file it was signed up with (`config["ruleset_file"]`,
    see tianshen.specs.game_file), else its id.  Every reader of a stored game (driver, `admin
    status`, the web pages) goes through here, so a game signed up from a file works there too."""
    return shared_spec(str(config.get("ruleset_file") or ruleset))  # read only: shared (issue 37)


def game_ruleset(ruleset: str, config: Mapping[str, Any]) -> Ruleset:
    """The ruleset of a stored game (see game_spec), telling players to PM the game's GM
    account (issue 31 item 2: the name fixed at sign-up, GameSetup.gm_account).  Made once
    per shared spec and GM account, and shared like the spec (issue 37: a ruleset is not
    changed once made; a GM's edit of the file gives a new spec, so a new one)."""
    spec = game_spec(ruleset, config)
    setup = config.get("setup")
    account = str(setup["gm_account"]) if isinstance(setup, Mapping) and setup.get("gm_account") else None
    return spec.derived(f"rules.game_ruleset:{account}", lambda s: _built(s.for_gm(account) if account else s))


def _built(spec: RulesetSpec) -> Ruleset:
    return family_class(spec.ruleset)(spec)
