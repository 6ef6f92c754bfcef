"""Reading the TOML files a GM writes (config, replay scripts), with errors that say where."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any


def read_toml(path: str | Path) -> dict[str, Any]:
    """The file's table; ValueError naming the file (and the fix for the usual mistake)."""
    try:
        with Path(path).open("rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise ValueError(f"{path}: cannot read it: {exc.strerror}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: {exc}{_toml_hint(path, str(exc))}") from exc


def _toml_hint(path: str | Path, message: str) -> str:
    """A bare non-ASCII key (`甲 = "杀手"`) is the usual mistake: say how to write it."""
    m = re.search(r"at line (\d+)", message)
    try:
        line = Path(path).read_text(encoding="utf-8").splitlines()[int(m.group(1)) - 1] if m else ""
    except (OSError, UnicodeDecodeError, IndexError):
        return ""
    key = line.split("=", 1)[0].strip()
    if "=" in line and key and not key.isascii() and key[0] not in "\"'":
        return f"; names must be quoted TOML keys: \"{key}\" = ..."
    return ""
