"""Fixtures for the forum adapter tests: a live django-spirit forum on 127.0.0.1.

`spirit_server` (one per test session, rate limits off) and `spirit_server_factory` (more
servers with other settings, e.g. rate limits on) install django-spirit into its own cached
virtualenv on first use (see `spirit_server.py`).  When the forum cannot be set up the tests
are skipped with the reason, except under CI (`CI=true`), where that is a failure.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from .spirit_server import SpiritServer, SpiritSetupError, start_spirit_server

_TIMINGS: list[str] = []


def _start(tmp: Path, **kwargs: object) -> SpiritServer:
    try:
        server = start_spirit_server(tmp, **kwargs)  # type: ignore[arg-type]
    except (SpiritSetupError, OSError, ValueError) as exc:  # ValueError: unreadable seed output
        reason = f"the django-spirit test forum could not be set up: {exc}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    line = "spirit forum " + ", ".join(f"{k} {v:.1f}s" for k, v in server.timings.items()) + \
        f" ({', '.join(f'{k}={v}' for k, v in kwargs.items()) or 'defaults'}; {server.base_url})"
    _TIMINGS.append(line)
    print(line)
    return server


@pytest.fixture(scope="session")
def spirit_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SpiritServer]:
    server = _start(tmp_path_factory.mktemp("spirit"), ratelimit=False)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def spirit_server_factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., SpiritServer]]:
    """Start another forum: `spirit_server_factory(ratelimit=True, iso_dates=False, …)`."""
    servers: list[SpiritServer] = []

    def make(**kwargs: object) -> SpiritServer:
        server = _start(tmp_path_factory.mktemp("spirit-extra"), **kwargs)
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for line in _TIMINGS:
        terminalreporter.write_line(line)
