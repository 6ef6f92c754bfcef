"""A `tianshen run` child of a test, waited on by what it does, not by a guessed time: its
output is read as it comes (a thread), and a wait ends when a condition holds or the child
ends; it gives up after the child has spent `cpu_seconds` of its own CPU time (Linux's
/proc), which a loaded machine does not use up any sooner (and, a net for a child asleep for
good, after 10 wall minutes)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path


class Child:
    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "tianshen.cli", *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, env={**os.environ, "COLUMNS": "200"})
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def cpu_seconds(self) -> float:
        """User and system time the child has spent so far (0 once it is gone)."""
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def wait_for(self, condition: Callable[[], bool], cpu_seconds: float = 60) -> bool:
        """Whether `condition` came true while the child ran (polled every 0.1 s)."""
        wall = time.monotonic() + 600
        while not condition():
            if self.proc.poll() is not None or self.cpu_seconds() > cpu_seconds or time.monotonic() > wall:
                return condition()
            time.sleep(0.1)
        return True

    def wait_for_line(self, text: str, cpu_seconds: float = 60) -> bool:
        return self.wait_for(lambda: any(text in line for line in self.lines), cpu_seconds)

    def finish(self, cpu_seconds: float = 60) -> int | None:
        """The exit code once the child ends and its output is read (None: killed, still running
        after `cpu_seconds` of CPU)."""
        ended = self.wait_for(lambda: self.proc.poll() is not None, cpu_seconds)
        if not ended:
            self.proc.kill()
        self.proc.wait()
        self._reader.join()
        return self.proc.returncode if ended else None
