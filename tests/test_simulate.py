"""`tianshen simulate`: a small Monte Carlo run over two workers, and its report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tianshen.cli import app
from tianshen.rules import load_ruleset
from tianshen.sim import montecarlo
from tianshen.sim.report import wilson

GAMES = 40


def _check(report: dict, games: int, players: int) -> None:
    assert report["games"] == games and report["played"] == games and report["error_count"] == 0
    assert sum(w["games"] for w in report["winners"].values()) == games
    assert abs(sum(w["rate"] for w in report["winners"].values()) - 1) < 1e-9
    for w in report["winners"].values():
        lo, hi = w["ci95"]
        assert 0 <= lo <= w["rate"] <= hi <= 1
    assert sum(report["length"]["rounds"].values()) == games
    assert sum(r["players"] for r in report["survival_by_role"].values()) == games * players
    for row in report["survival_by_night"].values():
        assert row[0] == 1.0  # everybody is alive when night 1 starts
        assert all(a >= b for a, b in zip(row, row[1:], strict=False))  # nobody comes back… in classic
    deaths = sum(v["total"] for k, v in report["rules"].items() if k.startswith("death: "))
    alive = sum(r["survived"] for r in report["survival_by_role"].values())
    assert deaths + alive == games * players


def test_simulate_writes_a_consistent_report(tmp_path: Path) -> None:
    out = tmp_path / "report"
    result = CliRunner().invoke(app, ["simulate", "--ruleset", "classic_10", "--games", str(GAMES), "--workers", "2",
                                      "--out", str(out), "--seed", "3"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    _check(report, GAMES, 10)
    for name in ("winners.png", "length.png", "survival_role.png", "survival_night.png", "rules.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert name in (out / "index.html").read_text(encoding="utf-8")
    assert report["rules"]["death: killed"]["total"] > 0


def test_compare_reports_both_variants_side_by_side(tmp_path: Path) -> None:
    out = tmp_path / "cmp"
    result = CliRunner().invoke(app, ["simulate", "--ruleset", "classic_10", "--compare", "classic_8", "--games", "12",
                                      "--workers", "1", "--policy", "smart", "--out", str(out)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    both = json.loads((out / "report.json").read_text(encoding="utf-8"))["compare"]
    assert [r["variant"] for r in both] == ["classic_10", "classic_8"]
    _check(both[0], 12, 10)
    _check(both[1], 12, 8)


def test_workers_do_not_change_the_games() -> None:
    one = montecarlo.run("classic_8", 6, workers=1, chunk=2)
    two = montecarlo.run("classic_8", 6, workers=2, chunk=2)
    assert [(r.seed, r.winner, r.steps) for r in one] == [(r.seed, r.winner, r.steps) for r in two]


@pytest.mark.parametrize("variant,players", [("classic_10", None), ("n_lives", 5), ("hex_survival_12", None)])
def test_default_policy_plays_the_rehearsal_sims_game(variant: str, players: int | None) -> None:
    """The pure-core game with the default sims is the game a rehearsal (driver, store,
    memory board) plays: the same inputs reach the ruleset, the final state is the same."""
    from tianshen.sim.rehearsal import rehearse

    rehearsal = rehearse(variant, 7, "sqlite://", players=players)
    ruleset = load_ruleset(variant)
    state = montecarlo.Game(ruleset, 7, players or ruleset.spec.players).play()
    assert state.model_dump_json() == rehearsal.state.model_dump_json()


def test_wilson_interval() -> None:
    lo, hi = wilson(50, 100)
    assert round(lo, 3) == 0.404 and round(hi, 3) == 0.596
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0
    for n in range(1, 200):  # rounding put a bound past the rate at 6 of 6, 0 of 11, … (the plot failed)
        for k in range(n + 1):
            lo, hi = wilson(k, n)
            assert 0.0 <= lo <= k / n <= hi <= 1.0, (k, n)


def test_a_small_run_all_won_by_one_side_plots_its_report(tmp_path: Path, monkeypatch) -> None:
    """6 games of 6 won by one side: the win rate's error bar was -1e-16 long, and matplotlib
    refused it with a traceback after report.json was written."""
    import tianshen.sim.montecarlo as mc

    monkeypatch.setattr(mc, "play", lambda ruleset, seed, players=None, policy="default": mc.GameResult(
        seed=seed, winner="civilians", rounds=2, steps=9, players=[]))
    result = CliRunner().invoke(app, ["simulate", "--ruleset", "classic_8", "--games", "6", "--workers", "1",
                                      "--out", str(tmp_path)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))["winners"]["civilians"]["ci95"][1] == 1.0


def test_jobs_are_small_enough_to_keep_every_worker_busy() -> None:
    """A worker whose jobs have run out waits for the others' last jobs: at most 25 games a
    job (a run of 4,000 classic_10 games on 2 workers had jobs of 200 games, about 1.3 s of
    one idle core at its end), and at least 8 jobs a worker when there are games enough."""
    for games in (1, 40, 4_000, 100_000):
        for workers in (1, 2, 8):
            size = montecarlo.chunk_size(games, workers)
            assert 1 <= size <= 25
            assert games < 8 * workers or -(-games // size) >= 8 * workers


def test_workers_start_with_the_ruleset_loaded(monkeypatch) -> None:
    """The parent loads the variant before the pool forks: the workers do not load it again."""
    import tianshen.sim.montecarlo as mc

    monkeypatch.setattr(mc, "_RULESETS", {})
    loads: list[str] = []
    real = mc.load_ruleset
    monkeypatch.setattr(mc, "load_ruleset", lambda v: loads.append(v) or real(v))
    results = mc.run("classic_8", 4, workers=2)
    assert [r.seed for r in results] == [1, 2, 3, 4] and loads == ["classic_8"]


def test_survival_by_night_counts_each_player_up_to_his_death() -> None:
    """The share of a side alive at the start of night k: a player counts for the nights up
    to his death's number (died in night 2 or day 2: nights 1 and 2), a survivor or an unknown
    label for all, "night 0" for none; a side's rows divide by all its players."""
    from tianshen.sim.report import _survival_by_night

    def result(*players: tuple[str, bool, str | None]) -> montecarlo.GameResult:
        return montecarlo.GameResult(seed=0, winner=None, rounds=3, steps=0, players=[
            {"role": "x", "faction": f, "alive": alive, "died_in": died, "cause": None} for f, alive, died in players])

    played = [result(("a", False, "night 2"), ("a", False, "day 1"), ("b", True, None), ("b", False, "night 0")),
              result(("a", False, "day 3"), ("a", False, "limbo"), ("b", False, "night 1"), ("c", True, "night 1"))]
    assert _survival_by_night(played, 3) == {"a": [1.0, 0.75, 0.5], "b": [2 / 3, 1 / 3, 1 / 3], "c": [1.0, 1.0, 1.0]}


def test_workers_collect_less(monkeypatch) -> None:
    """A worker freezes what it was forked with out of the collector and collects its young
    objects every `GEN0_THRESHOLD` allocations, not Python's 700; the parent keeps its own."""
    import gc

    import tianshen.sim.montecarlo as mc

    def collector(ruleset, seed, players=None, policy="default") -> mc.GameResult:
        return mc.GameResult(seed=seed, winner=None, rounds=0, steps=0, players=[],
                             counters={"gen0": gc.get_threshold()[0], "frozen": gc.get_freeze_count()})

    before = gc.get_threshold()
    monkeypatch.setattr(mc, "play", collector)
    results = mc.run("classic_8", 4, workers=2)
    assert {r.counters["gen0"] for r in results} == {mc.GEN0_THRESHOLD}
    assert min(r.counters["frozen"] for r in results) > 10_000
    assert gc.get_threshold() == before


def test_a_monte_carlo_run_does_not_import_the_store() -> None:
    """`tianshen simulate` plays on the pure core: importing the Monte Carlo loop and its
    sims leaves the driver, the store and SQLAlchemy unloaded (about 0.4 s of every run)."""
    import subprocess
    import sys

    code = ("import sys, tianshen.sim.montecarlo as mc; mc.play(mc.load_ruleset('classic_8'), 1); "
            "print(sorted(m for m in sys.modules if m.startswith(('sqlalchemy', 'tianshen.store', 'tianshen.service'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def _synthetic(seed: int, players=None, policy: str = "default") -> montecarlo.GameResult:
    """A made-up game: the winners alternate (ties broken by who was seen first), every fifth
    game fails, deaths by night and day."""
    if seed % 5 == 0:
        return montecarlo.GameResult(seed=seed, winner=None, rounds=1, steps=3, players=[], error=f"boom {seed}")
    return montecarlo.GameResult(
        seed=seed, winner="b" if seed % 2 else "a", rounds=seed % 4 + 1, steps=seed, counters={f"c{seed % 3}": seed % 2},
        players=[{"role": f"r{i}", "faction": "xy"[i % 2], "alive": (seed + i) % 3 == 0,
                  "died_in": None if (seed + i) % 3 == 0 else f"{'night' if i % 2 else 'day'} {i % 4}", "cause": "k"}
                 for i in range(4)])


def test_tallies_merged_in_seed_order_give_the_report_of_every_result(monkeypatch) -> None:
    """`tianshen simulate` has each worker sum its job's games into a `Tally`; merged in seed
    order whatever order the jobs came back in, they give what `summarize` makes of every
    result: the same winners' order on a tie, the same first errors, the same floats."""
    import tianshen.sim.montecarlo as mc
    from tianshen.sim.report import summarize

    real_done = mc._done

    def backwards(work, jobs, workers):  # the last job done first
        return reversed(list(real_done(work, jobs, workers)))

    monkeypatch.setattr(mc, "_done", backwards)
    monkeypatch.setattr(mc, "play", lambda ruleset, seed, players=None, policy="default": _synthetic(seed))
    reports = []
    for games, chunk in ((12, 5), (200, 3), (7, 1)):
        results = mc.run("classic_8", games, seed=2, chunk=chunk)
        summed = mc.tally("classic_8", games, seed=2, chunk=chunk)
        expected = summarize(results, "classic_8", "default", None)
        assert json.dumps(summed.report("classic_8", "default", None)) == json.dumps(expected)
        reports.append(expected)
    tie = reports[0]["winners"]  # seeds 2-13: a 5, b 5 (a first), 2 failed
    assert list(tie) == ["a", "b"] and tie["a"]["games"] == tie["b"]["games"] == 5
    assert [e["seed"] for e in reports[1]["errors"]] == list(range(5, 101, 5))


@pytest.mark.parametrize(("variant", "players"), [("classic_10", None), ("n_lives", 5)])
def test_a_run_summed_up_by_two_workers_reports_what_its_results_do(variant: str, players: int | None) -> None:
    from tianshen.sim.report import summarize

    results = montecarlo.run(variant, 16, players=players, workers=1)
    summed = montecarlo.tally(variant, 16, players=players, workers=2, chunk=3)
    assert json.dumps(summed.report(variant, "default", players)) == \
        json.dumps(summarize(results, variant, "default", players))


def test_simulate_has_the_workers_send_back_tallies_not_results(monkeypatch, tmp_path: Path) -> None:
    """The parent merges a `Tally` a job instead of unpickling and summing a result a game."""
    import pickle

    def no_results(*args, **kwargs):
        raise AssertionError("a result a game sent back")

    monkeypatch.setattr(montecarlo, "run", no_results)
    result = CliRunner().invoke(app, ["simulate", "--ruleset", "classic_8", "--games", "9", "--workers", "1",
                                      "--out", str(tmp_path)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    job = montecarlo.Job("classic_8", tuple(range(1, 26)), None, "default")
    assert len(pickle.dumps(montecarlo.tally_job(job))) * 4 < len(pickle.dumps(montecarlo.run_job(job)))
