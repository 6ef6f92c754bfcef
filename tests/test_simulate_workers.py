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


def test_a_tally_adds_a_game_as_counter_arithmetic_did_without_its_python_calls(monkeypatch) -> None:
    """`Tally.add` counts with `get` (a worker adds every game): the same keys in the same order
    and the same sums as `Counter.update` and `+= 1`, zeros kept, and neither of Counter's
    Python methods called once each key has been seen."""
    from collections import Counter

    from tianshen.sim.montecarlo import GameResult
    from tianshen.sim.report import Tally

    def player(role: str, faction: str, died_in: str | None) -> dict:
        return {"role": role, "faction": faction, "alive": died_in is None, "died_in": died_in, "cause": None}

    results = [GameResult(seed=1, winner="killers", rounds=3, steps=40, counters={"refusals": 2, "GM notes": 0},
                          players=[player("killer", "killers", None), player("commoner", "civilians", "night 1")]),
               GameResult(seed=2, winner=None, rounds=2, steps=30, counters={"refusals": 0, "GM notes": 1, "draw": 1},
                          players=[player("killer", "killers", "day 2"), player("commoner", "civilians", None)]),
               GameResult(seed=3, winner="killers", rounds=3, steps=35, counters={"refusals": 1, "GM notes": 0},
                          players=[player("killer", "killers", None), player("commoner", "civilians", "night 3")])]
    want_counters: Counter[str] = Counter()
    want_with: Counter[str] = Counter()
    for r in results:
        want_counters.update(r.counters)
        for k, v in r.counters.items():
            if v:
                want_with[k] += 1
    tally = Tally()
    for r in results[:2]:
        tally.add(r)
    calls: list[str] = []
    monkeypatch.setattr(Counter, "update", lambda self, *a, **k: calls.append("update"))
    monkeypatch.setattr(Counter, "__missing__", lambda self, key: calls.append("missing") or 0, raising=False)
    tally.add(results[2])
    assert calls == []
    assert list(tally.counters.items()) == list(want_counters.items())
    assert list(tally.games_with.items()) == list(want_with.items())
    assert list(tally.winners.items()) == [("killers", 2), ("none", 1)]
    assert list(tally.rounds.items()) == [(3, 2), (2, 1)]
    assert {side: dict(died) for side, died in tally.deaths.items()} == {"killers": {None: 2, 2: 1},
                                                                         "civilians": {1: 1, None: 1, 3: 1}}


def test_a_boards_ids_are_the_numbers_text_made_once() -> None:
    """The board numbers its inputs 1, 2, … as `str(n)` did, past its table of texts too; two
    boards share each text below the table's end instead of making it again."""
    from tianshen.sim.montecarlo import DEFAULT_START, CoreBoard

    boards = [CoreBoard([DEFAULT_START]), CoreBoard([DEFAULT_START])]
    for board in boards:
        for n in range(1, 1101):
            if n % 2:
                board.pm("甲", "神的使者", "/done")
            else:
                board.post("甲", "main", "签到")
    ids = [[e.id for e in board.take()] for board in boards]
    assert sorted(ids[0], key=int) == [str(n) for n in range(1, 1101)]
    assert all(a is b for a, b in zip(ids[0], ids[1], strict=True) if int(a) < 1024)


@pytest.mark.parametrize("variant", ["classic_10", "game_ten"])
def test_the_classic_sims_seed_with_their_seeds_text_as_it_is_now(variant: str) -> None:
    """The classic sims keep their seed's text for the seeding strings: each string is
    `seed:phase:step:purpose` of the seed they hold, also after it was set again."""
    import random

    from tianshen.sim import montecarlo

    seeded: list[str] = []

    class Recording(random.Random):
        def seed(self, a=None, version=2) -> None:  # type: ignore[no-untyped-def,override]
            if a is not None:  # (not the seeding `Random()` makes)
                seeded.append(a)
            super().seed(a, version)

    ruleset = montecarlo._ruleset(variant)
    game = montecarlo.Game(ruleset, 3, ruleset.spec.players)
    sims = game.sims
    sims._random = Recording()  # type: ignore[attr-defined]
    sims.seed = 4077  # type: ignore[attr-defined]
    game.play()
    assert seeded and all(text.startswith("4077:") for text in seeded)
    assert all(text.count(":") >= 3 for text in seeded)
