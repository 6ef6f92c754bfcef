"""The tests' forums are copies of a project seeded once (`spirit_local.seeded_template`):
a new forum with the same accounts starts no Django process before waitress; a GM's forum
(`create_forum` without `reuse_seeded`) is still seeded with passwords of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from tianshen.forum.spirit_local import LocalForum, SpiritSetupError, create_forum

from .spirit_server import ensure_venv


@pytest.fixture
def venv() -> None:
    try:
        ensure_venv()
    except SpiritSetupError as exc:
        pytest.skip(f"no django-spirit: {exc}")


def test_a_second_forum_with_the_same_accounts_is_a_copy_not_seeded(venv: None, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    players = ("白狐", "alice")
    first = create_forum(tmp_path / "a", players, comments_per_page=5, reuse_seeded=True)
    seeds: list[dict] = []

    def seed(self: LocalForum, spec: dict) -> dict:  # a Django process each, on the old code
        seeds.append(spec)
        return {"category_id": 9}

    monkeypatch.setattr(LocalForum, "seed", seed)
    second = create_forum(tmp_path / "b", players, comments_per_page=5, reuse_seeded=True)
    assert seeds == []
    assert second.accounts == first.accounts and set(second.accounts) == {"神的使者", *players}
    assert second.category_id == first.category_id > 0
    assert (second.project_dir / "db.sqlite3").read_bytes() == (first.project_dir / "db.sqlite3").read_bytes()
    assert second.project_dir != first.project_dir
    assert LocalForum.load(tmp_path / "b").accounts == second.accounts

    gm_forum = create_forum(tmp_path / "gm", players, comments_per_page=5)  # as `tianshen forum spirit-local`
    assert len(seeds) == 1 and set(seeds[0]["players"]) == set(players)
    assert gm_forum.gm_password != first.gm_password and gm_forum.category_id == 9

