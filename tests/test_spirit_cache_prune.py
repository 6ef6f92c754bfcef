"""The Spirit cache keeps what is in use: a template of another key (an older Spirit or
version of `spirit_local`) or a seeded one not used for two weeks is removed when a new
template is built; using a template marks it (`spirit_local.prune_stale_templates`)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tianshen.forum import spirit_local
from tianshen.forum.spirit_local import STALE_DAYS, prune_stale_templates

DAY = 86400.0


def _template(cache: Path, name: str, last_used: float) -> Path:
    root = cache / name
    (root / "mafiaforum").mkdir(parents=True)
    (root / "complete").write_text("x")
    os.utime(root / "complete", (last_used, last_used))
    return root


def test_old_templates_of_other_keys_go_and_the_kept_and_recent_stay(tmp_path: Path) -> None:
    now = time.time()
    kept = _template(tmp_path, "template-new", now - 100 * DAY)  # never removed, however old
    old = _template(tmp_path, "template-old", now - (STALE_DAYS + 1) * DAY)
    old_seeded = _template(tmp_path, "seeded-old-abc", now - (STALE_DAYS + 1) * DAY)
    recent = _template(tmp_path, "template-other", now - (STALE_DAYS - 1) * DAY)
    venv = tmp_path / "venv"
    venv.mkdir()
    os.utime(venv, (now - 100 * DAY, now - 100 * DAY))

    removed = prune_stale_templates(tmp_path, kept, now=now)

    assert sorted(removed) == sorted([old, old_seeded])
    assert not old.exists() and not old_seeded.exists()
    assert kept.exists() and recent.exists() and venv.exists()


def test_a_half_built_template_is_judged_by_its_directorys_time(tmp_path: Path) -> None:
    now = time.time()
    half = tmp_path / "seeded-half"
    half.mkdir()
    os.utime(half, (now - (STALE_DAYS + 1) * DAY,) * 2)
    fresh_half = tmp_path / "seeded-fresh"
    fresh_half.mkdir()
    assert prune_stale_templates(tmp_path, tmp_path / "template-x", now=now) == [half]
    assert fresh_half.exists()


def test_using_a_cached_template_marks_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIANSHEN_SPIRIT_CACHE", str(tmp_path))
    monkeypatch.setattr(spirit_local, "ensure_venv", lambda timings=None: tmp_path / "venv" / "bin")
    long_ago = time.time() - (STALE_DAYS + 1) * DAY
    root = _template(tmp_path, f"template-{spirit_local._template_key()}", long_ago)

    assert spirit_local.migrated_template() == root / spirit_local.PROJECT
    assert (root / "complete").stat().st_mtime > long_ago + DAY
    other = _template(tmp_path, "template-older", long_ago)
    assert prune_stale_templates(tmp_path, tmp_path / "template-none") == [other]
    assert root.exists()
