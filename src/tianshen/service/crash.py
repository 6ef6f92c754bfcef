"""Crash injection for the exactly-once tests: `point(name)` kills the process with SIGKILL
at the N-th point it passes when TIANSHEN_CRASH_AT=N is set (or at the first point whose
name is TIANSHEN_CRASH_AT when it is not a number).  Without the variable it does nothing.
The variables are read at the first point a process passes (a child forked by the crash
tests' fork server sets its environment before that), not at each: a game passes about 130
points, and reading the environment at each cost about half a millisecond a game (issue 37).

The points sit where a crash is most harmful: after a commit and before its messages are
sent, between a forum write and its recording, between reading input and storing it.
"""

from __future__ import annotations

import os
import signal

_passed = 0
_read_yet = False  # the variables read by this process (a forked child reads them again)
_TARGET: str | None = None
_TRACE: str | None = None  # every point passed, a line each


def _read() -> None:
    global _read_yet, _TARGET, _TRACE
    _TARGET, _TRACE = os.environ.get("TIANSHEN_CRASH_AT"), os.environ.get("TIANSHEN_CRASH_TRACE")
    _read_yet = True


def _forked() -> None:
    global _read_yet
    _read_yet = False


# a child is told it was forked, rather than each point asking `os.getpid()` (a system call)
os.register_at_fork(after_in_child=_forked)


def point(name: str) -> None:
    """A place where the process may be killed (for tests that kill the daemon)."""
    if not _read_yet:
        _read()
    if not _TARGET and not _TRACE:
        return
    target, trace = _TARGET, _TRACE
    global _passed
    _passed += 1
    if trace:
        with open(trace, "a", encoding="utf-8") as f:
            f.write(f"{_passed} {name}\n")
    if not target:
        return
    if (target.isdigit() and _passed == int(target)) or target == name:
        log_path = os.environ.get("TIANSHEN_CRASH_LOG")
        if log_path:
            with open(log_path, "a", encoding="utf-8") as f:
                f.write(f"{os.getpid()} {_passed} {name}\n")
        os.kill(os.getpid(), signal.SIGKILL)


def passed() -> int:
    """How many points this process has passed (a test picks N below it)."""
    return _passed
