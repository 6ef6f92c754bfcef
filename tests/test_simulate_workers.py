"""What a `tianshen simulate` worker does besides its games (issue 37)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

# a fresh interpreter (the test process has imported every sims module already): the parent
# starts the pool as `montecarlo.tally` does, each worker reports the modules a job imported
_SCRIPT = """
import json, sys
from tianshen.sim import montecarlo

def imports_of(job):
    before = set(sys.modules)
    montecarlo.tally_job(job)
    return sorted(set(sys.modules) - before)

variant, players = sys.argv[1], (int(sys.argv[2]) or None)
jobs = [montecarlo.Job(variant, (seed,), players, "default") for seed in (1, 2)]
print(json.dumps(sorted({m for _, found in montecarlo._done(imports_of, jobs, 2) for m in found})))
"""


@pytest.mark.parametrize(("variant", "players"), [("classic_10", 0), ("n_lives", 5)])
def test_a_worker_imports_nothing_for_its_games(variant: str, players: int) -> None:
    """The parent imports the sims' module before it forks the workers, so no worker imports
    (and, without a bytecode cache, compiles) it again for its first game."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run([sys.executable, "-c", _SCRIPT, variant, str(players)], capture_output=True, text=True,
                         env=env, check=True, timeout=120)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_simulate_redraws_its_progress_bar_at_most_twice_a_second(monkeypatch, tmp_path) -> None:
    """The parent shares the workers' cores: its bar (a redraw about 2 ms of CPU) is redrawn
    twice a second, not rich's default ten times."""
    import rich.progress
    from typer.testing import CliRunner

    from tianshen.cli import app

    rates: list[float] = []

    class Spy(rich.progress.Progress):
        def __init__(self, *columns, **options) -> None:  # type: ignore[no-untyped-def]
            rates.append(options.get("refresh_per_second", 10))
            super().__init__(*columns, **options)

    monkeypatch.setattr(rich.progress, "Progress", Spy)
    result = CliRunner().invoke(app, ["simulate", "--ruleset", "classic_8", "--games", "2", "--workers", "1",
                                      "--out", str(tmp_path)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert rates and max(rates) <= 2
