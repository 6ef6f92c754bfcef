"""The xdist order (`scheduling.py`): a test's weight is its last time, else the estimate of
the test itself, of its function (any parameters), of its file, else 0."""

from __future__ import annotations

import pytest

import scheduling
from scheduling import weight


@pytest.fixture
def known(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scheduling, "KNOWN_LONG", {
        "tests/a.py": 10.0,
        "tests/a.py::test_slow": 40.0,
        "tests/a.py::test_param[x]": 25.0,
    })


@pytest.mark.usefixtures("known")
def test_a_tests_own_estimate_beats_its_files_and_its_last_time_beats_both() -> None:
    assert weight("tests/a.py::test_slow", {}) == 40.0
    assert weight("tests/a.py::test_slow[p]", {}) == 40.0  # any parameter of the function
    assert weight("tests/a.py::test_param[x]", {}) == 25.0
    assert weight("tests/a.py::test_param[y]", {}) == 10.0  # the file's
    assert weight("tests/a.py::test_other", {}) == 10.0
    assert weight("tests/b.py::test_new", {}) == 0.0
    assert weight("tests/a.py::test_slow", {"tests/a.py::test_slow": 3.0}) == 3.0


def test_every_estimate_names_a_file_of_the_suite() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    missing = [k for k in scheduling.KNOWN_LONG if not (root / k.split("::", 1)[0]).is_file()]
    assert not missing, f"KNOWN_LONG names files that are gone: {missing}"
