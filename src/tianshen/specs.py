"""Loading variants from disk (the shell's side of core.spec): where a variant id is looked
up, the TOML files with their `include`s, and the caches of what was read.  The core never
reads a file (issue 24)."""

from __future__ import annotations

import copy
import os
import stat
import tomllib
from pathlib import Path
from typing import Any

from tianshen.core.spec import RulesetSpec


def rulesets_dirs() -> list[Path]:
    """Where a variant id is looked up, in order: $TIANSHEN_RULESETS (an extra directory of
    variant files), the project's rulesets/, ./rulesets."""
    return [Path(d) for d in _dirs()]


_PROJECT = str(Path(__file__).resolve().parents[2] / "rulesets")  # (resolved once: it does not move)


def _dirs() -> list[str]:
    """`rulesets_dirs()` as strings (issue 37: a game looks its variant up several times,
    and pathlib's objects and resolving cost more than the look-up's few stats)."""
    dirs = [_PROJECT, os.path.join(os.getcwd(), "rulesets")]
    env = os.environ.get("TIANSHEN_RULESETS")
    return [env, *dirs] if env else dirs


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
    name = f"{variant}.toml"
    for d in _dirs():
        file = os.path.join(d, name)
        try:
            mode = os.lstat(file).st_mode  # (one system call: a regular file, else a link or nothing)
        except OSError:
            continue
        if stat.S_ISREG(mode):
            return _file_path(d, name)
        if stat.S_ISLNK(mode) and os.path.isfile(file):  # (seldom) a link: where it leads now
            return Path(file).resolve()
    return None


_paths: dict[tuple[str, str], Path] = {}  # (absolute directory, file name) -> its real path


def _file_path(d: str, name: str) -> Path:
    """`Path(_real_dir(d), name)`, one object per file and process (made and hashed once:
    `shared_spec` keys its cache by it)."""
    found = _paths.get((d, name))
    if found is None:
        found = Path(_real_dir(d), name)
        if os.path.isabs(d):  # (a relative one depends on the current directory)
            _paths[d, name] = found
    return found


_real: dict[str, str] = {}  # a rulesets directory as given -> its real path


def _real_dir(d: str) -> str:
    """The real path of directory `d` (resolving costs a stat per part of the path: it is
    done once per directory and process; a directory's link moved under a running process
    is not followed)."""
    found = _real.get(d)
    if found is None:
        found = str(Path(d).resolve())
        if os.path.isabs(d):  # (a relative one depends on the current directory)
            _real[d] = found
    return found


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
    relative to the file): a new object, the caller's to change."""
    return _load(spec_path(variant), [])


def shared_spec(variant: str) -> RulesetSpec:
    """`load_spec`, built once per process while its files stay the same (a GM's edit is
    read anew): one object shared by every caller, to be read only (issue 37: a game's
    driver, sign-up and rehearsal read the same variant several times)."""
    path = spec_path(variant)
    known = _shared.get(path)
    if known is not None and all(_version(f) == v for f, v in known[0]):
        return known[1]
    files: list[Path] = []
    spec = _load(path, files)
    _shared[path] = (tuple((f, _version(f)) for f in files), spec)
    return spec


_shared: dict[Path, tuple[tuple[tuple[Path, tuple[int, int]], ...], RulesetSpec]] = {}  # file -> (its files, spec)


def _load(path: Path, files: list[Path]) -> RulesetSpec:
    data = _read(path, files)
    data.setdefault("id", path.stem)
    spec = RulesetSpec.model_validate(data)
    if find_by_id(spec.id) is None:
        _loaded_files[spec.id] = path
    return spec


def game_file(variant: str, spec: RulesetSpec | None = None) -> str | None:
    """What a game signed up with `variant` stores as `config["ruleset_file"]`: the absolute
    file, when its id alone would not find the same file again (given by path, or an id no
    directory has); None for a plain id.  `spec`: the variant's, as the caller just had it
    from `shared_spec` (its files not looked up and checked again: issue 37)."""
    spec_id = (spec or shared_spec(variant)).id
    if spec_id == variant and not is_file_name(variant) and find_by_id(variant) is not None:
        return None  # an id a directory has: found again by it
    path = spec_path(variant)
    return None if find_by_id(spec_id) == path else str(path)


_parsed: dict[Path, tuple[tuple[int, int], dict[str, Any]]] = {}  # file -> ((mtime, size), its TOML)


def _read(path: Path, files: list[Path] | None = None) -> dict[str, Any]:
    """A variant file may `include` a shared file (name starting with `_`) or another variant,
    by its path relative to the file or by a shipped variant's id (`include = ["classic_8"]`:
    a GM's own variant file works wherever it is); the variant wins."""
    data = copy.deepcopy(_toml(path))
    if files is not None:  # the files it was read from (`shared_spec` checks them)
        files.append(path)
    base: dict[str, Any] = {}
    for name in data.pop("include", []):
        found = None if is_file_name(name) else find_by_id(name)
        base = _merge(base, _read(found or path.parent / name, files))
    return _merge(base, data)


def _version(path: Path) -> tuple[int, int]:
    found = path.stat()
    return found.st_mtime_ns, found.st_size


def _toml(path: Path) -> dict[str, Any]:
    """A file's TOML, parsed once while the file stays the same (a GM's edit is read anew)."""
    version = _version(path)
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
