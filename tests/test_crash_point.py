"""`crash.point` costs nothing without its variables (issue 37: about 130 points a game)."""

from __future__ import annotations

import os
import subprocess
import sys

from tianshen.service import crash


class _CountingEnviron(dict):
    reads = 0

    def get(self, *args):  # type: ignore[no-untyped-def]
        _CountingEnviron.reads += 1
        return super().get(*args)

    def __getitem__(self, key):  # type: ignore[no-untyped-def]
        _CountingEnviron.reads += 1
        return super().__getitem__(key)


def test_a_point_does_not_read_the_environment(monkeypatch) -> None:
    crash.point("after-commit")  # (the first of this process reads it)
    monkeypatch.setattr(os, "environ", _CountingEnviron(os.environ))
    passed = crash.passed()
    for _ in range(100):
        crash.point("after-commit")
    assert _CountingEnviron.reads == 0
    assert crash.passed() == passed  # without the variables nothing is counted


def test_the_variables_of_the_process_start_still_kill_it(tmp_path) -> None:
    trace = tmp_path / "trace"
    code = "from tianshen.service import crash\ncrash.point('a')\ncrash.point('b')\nprint('alive')"
    env = {**os.environ, "TIANSHEN_CRASH_AT": "b", "TIANSHEN_CRASH_TRACE": str(trace)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == -9 and "alive" not in done.stdout
    assert trace.read_text(encoding="utf-8").splitlines() == ["1 a", "2 b"]


def test_a_forked_child_reads_the_variables_it_was_given(tmp_path) -> None:
    """The crash tests' fork server has passed a point (or imported this module) before it
    forks a daemon whose environment it then sets: the child reads its own variables."""
    code = ("import os\nfrom tianshen.service import crash\ncrash.point('a')\npid = os.fork()\n"
            "if pid == 0:\n    os.environ['TIANSHEN_CRASH_AT'] = 'b'\n    crash.point('b')\n    os._exit(0)\n"
            "print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TIANSHEN_CRASH")}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["-9"]
