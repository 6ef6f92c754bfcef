"""Fixtures of the crash tests: the Spirit forum fixtures of tests/forums, reused.

`spirit_server_factory` starts a fresh django-spirit forum in its own process (see
tests/forums/spirit_server.py); every run of a crash test gets a forum of its own.
"""

from __future__ import annotations

from forums.conftest import spirit_server_factory  # noqa: F401  (a fixture, used by name)
