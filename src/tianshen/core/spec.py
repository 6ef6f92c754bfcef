"""A ruleset variant's data, loaded from `rulesets/<variant>.toml` (OpenSpiel's "Game").

Numbers (counts, timings, thresholds) and every announcement text live in the TOML file,
so a GM can run a variant without touching code.
"""

from __future__ import annotations

import copy
import os
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr


class Timing(BaseModel):
    """Phase lengths in hours (002 Part II: 60-hour game day).  A family may add its own
    keys (read them with `hours(key)`)."""

    model_config = ConfigDict(extra="allow")

    night_hours: float = 24
    day_hours: float = 36
    vote_opens_hour: float = 12
    ld_extension_hours: float = 24
    ld_hours: float = 12
    summon_round_hours: float = 6
    substitution_hours: float = 12

    def hours(self, key: str, default: float | None = None) -> float:
        value = getattr(self, key, None)
        if value is None:
            if default is None:
                raise KeyError(f"no timing '{key}'")
            return default
        return float(value)


class RoleInfo(BaseModel):
    name: str  # Chinese name as the seed writes it
    faction: str
    count: int = 0
    description: str = ""


class RulesetSpec(BaseModel):
    """A variant.  A family may keep tables of its own at the top level (n_lives: `cards`,
    `abilities`, `deal`); read them with `section(name)`."""

    model_config = ConfigDict(extra="allow")

    id: str  # the variant id, e.g. "classic_10"
    ruleset: str  # the family, e.g. "classic"
    title: str
    players: int  # the default number of seats
    player_counts: list[int] = Field(default_factory=list)  # when several are allowed (n_lives: 5–7)
    roles: dict[str, RoleInfo]
    timing: Timing = Field(default_factory=Timing)
    options: dict[str, Any] = Field(default_factory=dict)
    factions: dict[str, str] = Field(default_factory=dict)  # id -> Chinese name
    texts: dict[str, str] = Field(default_factory=dict)
    _derived: dict[str, Any] = PrivateAttr(default_factory=dict)  # see `derived`

    def text(self, key: str, **values: Any) -> str:
        """Render announcement `key` from its template (str.format fields)."""
        try:
            template = self.texts[key]
        except KeyError as exc:
            raise KeyError(f"ruleset {self.id} has no text '{key}'") from exc
        return template.format(**values).strip("\n")

    def derived(self, key: str, build: Callable[[RulesetSpec], Any]) -> Any:
        """A table a family reads out of the spec, built once per spec object and kept on it
        (it goes with the spec: no module-wide cache grows in a long-running process)."""
        if key not in self._derived:
            self._derived[key] = build(self)
        return self._derived[key]

    def section(self, name: str) -> dict[str, Any]:
        """A family's own top-level table of the variant file."""
        value = (self.model_extra or {}).get(name)
        if not isinstance(value, dict):
            raise KeyError(f"ruleset {self.id} has no [{name}] table")
        return value

    def allows(self, players: int) -> bool:
        return players in (self.player_counts or [self.players])

    def role_name(self, role: str) -> str:
        return self.roles[role].name

    def role_by_name(self, written: str) -> str | None:
        """A role id from its id or its Chinese name."""
        if written in self.roles:
            return written
        return next((rid for rid, info in self.roles.items() if info.name == written), None)


def rulesets_dirs() -> list[Path]:
    """Where a variant id is looked up, in order: $TIANSHEN_RULESETS (an extra directory of
    variant files), the project's rulesets/, ./rulesets."""
    dirs = []
    if env := os.environ.get("TIANSHEN_RULESETS"):
        dirs.append(Path(env))
    dirs.append(Path(__file__).resolve().parents[3] / "rulesets")
    dirs.append(Path.cwd() / "rulesets")
    return dirs


def available_variants() -> list[str]:
    seen: list[str] = []
    for d in rulesets_dirs():
        for f in sorted(d.glob("*.toml")) if d.is_dir() else []:
            if not f.stem.startswith("_") and f.stem not in seen:
                seen.append(f.stem)
    return seen


# id -> the file this process loaded it from by path, for an id no directory has (so the
# simulated players and the driver, which know only `spec.id`, find the same file)
_loaded_files: dict[str, Path] = {}


def is_file_name(variant: str) -> bool:
    """A variant written as a file (`x.toml`, `dir/x`), not as an id."""
    return variant.endswith(".toml") or "/" in variant or os.sep in variant


def find_by_id(variant: str) -> Path | None:
    """The file of variant id `variant` in rulesets_dirs(), or None."""
    for d in rulesets_dirs():
        if (d / f"{variant}.toml").is_file():
            return (d / f"{variant}.toml").resolve()
    return None


def spec_path(variant: str) -> Path:
    """The absolute file of a variant given by id or by path (relative to the current
    directory); ValueError when there is none."""
    if is_file_name(variant):
        path = Path(variant).expanduser()
        if not path.is_file():
            raise ValueError(f"ruleset file '{variant}' not found")
        return path.resolve()
    found = find_by_id(variant) or _loaded_files.get(variant)
    if found is None:
        raise ValueError(f"unknown ruleset '{variant}'; available: {', '.join(available_variants())}")
    return found


def load_spec(variant: str) -> RulesetSpec:
    """Load a variant by id (`classic_10`) or by path to a TOML file (its `include`s are read
    relative to the file)."""
    path = spec_path(variant)
    data = _read(path)
    data.setdefault("id", path.stem)
    spec = RulesetSpec.model_validate(data)
    if find_by_id(spec.id) is None:
        _loaded_files[spec.id] = path
    return spec


def game_file(variant: str) -> str | None:
    """What a game signed up with `variant` stores as `config["ruleset_file"]`: the absolute
    file, when its id alone would not find the same file again (given by path, or an id no
    directory has); None for a plain id."""
    path = spec_path(variant)
    spec_id = load_spec(variant).id
    return None if find_by_id(spec_id) == path else str(path)


_parsed: dict[Path, tuple[tuple[int, int], dict[str, Any]]] = {}  # file -> ((mtime, size), its TOML)


def _read(path: Path) -> dict[str, Any]:
    """A variant file may `include` a shared file (name starting with `_`); the variant wins."""
    data = copy.deepcopy(_toml(path))
    base: dict[str, Any] = {}
    for name in data.pop("include", []):
        base = _merge(base, _read(path.parent / name))
    return _merge(base, data)


def _toml(path: Path) -> dict[str, Any]:
    """A file's TOML, parsed once while the file stays the same (a GM's edit is read anew)."""
    stat = path.stat()
    version = (stat.st_mtime_ns, stat.st_size)
    known = _parsed.get(path)
    if known is None or known[0] != version:
        with path.open("rb") as fh:
            known = _parsed[path] = (version, tomllib.load(fh))
    return known[1]


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out
