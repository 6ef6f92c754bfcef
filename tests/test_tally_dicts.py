"""A `Tally` keeps its counts in plain dicts (issue 37: a `Counter`'s item writes go through a
slot wrapper): summed and merged, they are what `Counter`s summed in seed order give — each
count added, the keys in first-seen order, the winners most common first with ties in
first-seen order, a counter never above zero seen in no game."""

from __future__ import annotations

from collections import Counter
from typing import Any

from tianshen.sim.montecarlo import GameResult
from tianshen.sim.report import Tally, summarize


def _result(seed: int, winner: str | None, rounds: int, counters: dict[str, int]) -> GameResult:
    players = [{"role": "killer", "faction": "killers", "alive": seed % 2 == 0, "died_in": "night 2", "cause": "x"},
               {"role": "citizen", "faction": "civilians", "alive": False, "died_in": f"day {seed}", "cause": "y"}]
    return GameResult(seed=seed, winner=winner, rounds=rounds, steps=10 + seed, players=players, counters=counters)


RESULTS = [_result(1, "civilians", 3, {"refusals": 0, "a": 2}), _result(2, "killers", 2, {"refusals": 0, "b": 1}),
           _result(3, "killers", 3, {"refusals": 0, "a": 0, "c": 4}), _result(4, "civilians", 4, {"refusals": 0, "b": 2}),
           _result(5, None, 4, {"refusals": 0, "a": 1})]


def _by_counters(results: list[Any]) -> dict[str, Any]:
    """The sums as `Counter`s make them, in seed order."""
    winners, rounds, counters, games_with = Counter(), Counter(), Counter(), Counter()
    deaths: dict[str, Counter[Any]] = {}
    for r in results:
        winners[r.winner or "none"] += 1
        rounds[r.rounds] += 1
        counters.update(r.counters)
        games_with.update(k for k, v in r.counters.items() if v)
        for p in r.players:
            key = None if p["alive"] else int(p["died_in"].split()[1])
            deaths.setdefault(p["faction"], Counter())[key] += 1
    return {"winners": winners.most_common(), "rounds": list(rounds.items()), "counters": list(counters.items()),
            "games_with": list(games_with.items()), "deaths": {s: list(c.items()) for s, c in deaths.items()}}


def _of(tally: Tally) -> dict[str, Any]:
    return {"winners": sorted(tally.winners.items(), key=lambda kv: -kv[1]), "rounds": list(tally.rounds.items()),
            "counters": list(tally.counters.items()), "games_with": list(tally.games_with.items()),
            "deaths": {s: list(c.items()) for s, c in tally.deaths.items()}}


def test_summed_and_merged_as_counters_sum() -> None:
    whole = Tally.of(RESULTS)
    merged = Tally.of(RESULTS[:2])
    for part in (RESULTS[2:3], RESULTS[3:]):
        merged.merge(Tally.of(part))
    assert _of(whole) == _of(merged) == _by_counters(RESULTS)
    assert merged.report("v", "p", None) == whole.report("v", "p", None)


def test_the_report_reads_the_counts_as_counters_did() -> None:
    report = summarize(RESULTS, "v", "p", None)
    assert list(report["winners"]) == ["civilians", "killers", "none"]  # 2, 2, 1: ties first seen first
    assert [w["games"] for w in report["winners"].values()] == [2, 2, 1]
    assert report["rules"]["refusals"] == {"total": 0, "per_game": 0.0, "games_with": 0}
    assert report["rules"]["a"]["games_with"] == 2 and report["rules"]["b"]["total"] == 3
