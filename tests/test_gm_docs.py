"""Issue 23 item 9: config.example.toml is current, and the docs say where the recorded forum
pages come from (without them the Discuz! tests skip)."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel

from tianshen.config import Config, load_config

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "config.example.toml"


def _tables(model: type[BaseModel] = Config) -> dict[str, type[BaseModel]]:
    """Each config table and its model ([game] also for its players)."""
    from tianshen.config import GameConfig

    tables = {name: _model(field.annotation) for name, field in model.model_fields.items()}
    return {name: m for name, m in tables.items() if m is not None} | {"game": GameConfig}


def _model(annotation: object) -> type[BaseModel] | None:
    from typing import get_args

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return next((m for a in get_args(annotation) if (m := _model(a)) is not None), None)


def test_the_example_config_names_every_key() -> None:
    """Every key of every table is in the example (written or commented out), under its table."""
    text = EXAMPLE.read_text(encoding="utf-8")
    sections = dict(re.findall(r"^#?\s*\[+(\w+)\]+[^\n]*\n(.*?)(?=^#?\s*\[+\w+\]+\s*(?:#.*)?$|\Z)", text,
                               re.M | re.S))
    for table, model in _tables().items():
        assert table in sections, f"config.example.toml has no [{table}]"
        for key in model.model_fields:
            assert re.search(rf"^#?\s*{key}\s*=", sections[table], re.M), \
                f"config.example.toml does not mention [{table}] {key}: document it there"


def test_the_example_config_is_current() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    assert "come later" not in text
    for kind in ("memory", "spirit", "discuz"):
        assert kind in text
    assert load_config(EXAMPLE).forum.kind == "memory"  # valid as it is, on the built-in board


def test_the_docs_say_where_the_recorded_pages_are() -> None:
    for doc in (ROOT / "README.md", ROOT / "docs" / "testing.md"):
        assert "TIANSHEN_FORUM_RECORDINGS" in doc.read_text(encoding="utf-8"), doc


def test_a_skipped_discuz_test_says_how_to_find_the_pages() -> None:
    from forums.discuz_fixtures import needs_recordings

    assert "TIANSHEN_FORUM_RECORDINGS" in needs_recordings.kwargs["reason"]
