"""`specs.find_by_id` (issue 37: one `lstat` a directory, a file's path made once): a
regular file is found where it is, a link to a file where it leads now, and a broken
link, a link to a directory or a directory named like a variant is passed over."""

import os
from pathlib import Path

import pytest

from tianshen.specs import find_by_id

PROJECT = Path(__file__).resolve().parents[1] / "rulesets"


@pytest.fixture
def extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "extra"
    d.mkdir()
    monkeypatch.setenv("TIANSHEN_RULESETS", str(d))
    return d


def test_a_regular_file_is_found_where_it_is_and_the_same_path_again(extra: Path) -> None:
    (extra / "classic_10.toml").write_text('include = ["classic_8"]\n', encoding="utf-8")
    found = find_by_id("classic_10")
    assert found == (extra / "classic_10.toml").resolve()
    assert find_by_id("classic_10") is found
    (extra / "classic_10.toml").unlink()
    assert find_by_id("classic_10") == PROJECT / "classic_10.toml"


def test_a_link_to_a_file_is_where_it_leads_now(extra: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "a.toml", tmp_path / "b.toml"
    for f in (first, second):
        f.write_text('include = ["classic_8"]\n', encoding="utf-8")
    link = extra / "classic_10.toml"
    link.symlink_to(first)
    assert find_by_id("classic_10") == first.resolve()
    link.unlink()
    link.symlink_to(second)
    assert find_by_id("classic_10") == second.resolve()


@pytest.mark.parametrize("kind", ["broken link", "link to a directory", "directory"])
def test_what_is_no_file_is_passed_over(extra: Path, tmp_path: Path, kind: str) -> None:
    there = extra / "classic_10.toml"
    if kind == "broken link":
        there.symlink_to(tmp_path / "nothing.toml")
    elif kind == "link to a directory":
        there.symlink_to(tmp_path)
    else:
        there.mkdir()
    assert os.path.lexists(there)
    assert find_by_id("classic_10") == PROJECT / "classic_10.toml"
    assert find_by_id("no_such_variant") is None
