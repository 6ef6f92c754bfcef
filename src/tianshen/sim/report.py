"""Sums up Monte Carlo games (sim/montecarlo.py): figures (report.json), PNG plots and an
index.html that shows them.

What one game leaves (`extract`) is generic: the winner, the last day reached, every
player's role, side and death, the refusals and GM notes, and rule firings counted from the
typed events of the outcomes (core.events; each family's record names them, core.family.Family.events).  The
announcements (`ANNOUNCEMENTS`) are counted by the text keys a message was made of.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections import Counter
from operator import itemgetter
from pathlib import Path
from typing import Any

from tianshen.core.model import GameState, Outcome, PrivateMessage, PublicPost, text_parts
from tianshen.core.ruleset import Ruleset
from tianshen.core.spec import RulesetSpec
from tianshen.rules import family

# announcements counted in every family whose variant has the text: text key -> counter.  A
# message made of the variant's texts unrendered (core.spec.Text) counts them by their keys;
# its plain strings (and a message its family rendered) are matched against the template
# (its fields as wildcards): a simulated game renders no text for its report.
ANNOUNCEMENTS: dict[str, str] = {
    "dawn_saved": "saved by 束魂 (announced)",
    "dawn_bind_death": "束魂 failure death (announced)",
    "dawn_nobody": "night without deaths",
    "dawn_revived": "revival (announced)",
    "convert_killer": "conversion to killer",
    "convert_profession": "conversion to a profession",
    "nobody_executed": "day without execution",
    "victory_draw": "draw (announced)",
    "two_player_draw": "two-player draw",
}
_TEMPLATES: dict[str, list[tuple[str, str, str, re.Pattern[str]]]] = {}


def _announcements(spec: RulesetSpec) -> list[tuple[str, str, str, re.Pattern[str]]]:
    """(text key, counter, longest literal part, compiled template) of the `ANNOUNCEMENTS`
    this variant has (once per variant; the literal part is a quick test before the regex)."""
    found = _TEMPLATES.get(spec.id)
    if found is None:
        found = _TEMPLATES[spec.id] = []
        for key, name in ANNOUNCEMENTS.items():
            template = spec.texts.get(key, "").strip("\n")
            parts = re.split(r"\{[^{}]*\}", template)
            longest = max(parts, key=len) if template else ""
            if len(longest) >= 4:
                found.append((key, name, longest, re.compile(".*?".join(re.escape(part) for part in parts))))
    return found


def extract(ruleset: Ruleset, state: GameState, outcomes: list[Outcome], seed: int):  # -> GameResult
    """What one finished game leaves for the report (no message's text is rendered for it:
    see `ANNOUNCEMENTS`)."""
    from tianshen.sim.montecarlo import GameResult

    # a plain dict, its keys in the order a Counter took them: the first two, then each as
    # first counted (a Counter's `+= 1` on a new key called its Python `__missing__`)
    counters: dict[str, int] = {"refusals": 0, "GM notes": 0}
    count = counters.get
    names = family(ruleset.spec.ruleset).events
    messages: list[PublicPost | PrivateMessage] = []
    refusals = notes = 0
    for outcome in outcomes:  # most outcomes hold neither refusals, notes, events nor posts
        if outcome.refusals:
            refusals += len(outcome.refusals)
        if outcome.notes:
            notes += len(outcome.notes)
        if outcome.events:
            for event in outcome.events:
                if event.kind in names:
                    name = names[event.kind]
                    counters[name] = count(name, 0) + 1
        if outcome.posts:
            messages += outcome.posts
        if outcome.pms:
            messages += outcome.pms
    counters["refusals"], counters["GM notes"] = refusals, notes
    _count_announcements(ruleset.spec, *text_parts(messages), counters)
    players = [{"role": p.role, "faction": p.faction, "alive": p.alive, "died_in": p.died_in, "cause": p.death_cause}
               for p in state.players]
    for p in state.players:
        if not p.alive:
            name = f"death: {p.death_cause or '?'}"
            counters[name] = count(name, 0) + 1
    if state.winner == "draw":
        counters["draw"] = count("draw", 0) + 1
    return GameResult(seed=seed, winner=state.winner, rounds=state.phase.number, steps=len(outcomes),
                      players=players, counters=counters)


def _count_announcements(spec: RulesetSpec, keys: list[str], strings: list[str], counters: dict[str, int]) -> None:
    """The announcements among a game's text keys, and those matched in its plain strings."""
    wanted = _announcements(spec)
    if not wanted:
        return
    said = dict.fromkeys([key for key, _, _, _ in wanted], 0)  # only the wanted keys counted (a
    for key in keys:  # Counter of a game's keys: ~43 K instructions in a micro run, this loop ~24 K)
        if key in said:
            said[key] += 1
    every = "\0".join(strings)  # an announcement not in the game's strings is looked for in none
    for key, name, literal, rx in wanted:
        n = said[key]
        if n:
            counters[name] = counters.get(name, 0) + n
        if literal in every:
            for text in strings:
                if literal in text:
                    counters[name] = counters.get(name, 0) + len(rx.findall(text))


# ---- figures ----------------------------------------------------------------------------


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for k successes in n trials (95% by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # the interval holds the rate itself: at k = 0 or k = n rounding put a bound a hair past it
    # (6 of 6: 0.9999999999999999), and the plot's error bars refused the negative length
    return (max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half)))


def _death_time(died_in: str | None) -> tuple[int, int] | None:
    """(number, 0 night / 1 day) of a death, or None for a survivor or an unknown label."""
    if not died_in:
        return None
    kind, _, num = died_in.partition(" ")
    if not num.isdigit():
        return (10**6, 0)
    return (int(num), 0 if kind == "night" else 1)


def summarize(results: list[Any], variant: str, policy: str, players: int | None) -> dict[str, Any]:
    """The report's figures for one variant, from its games' results in seed order."""
    return Tally.of(results).report(variant, policy, players)


class Tally:
    """What the report reads of a run's results, summed as they come.  A worker sums each job's
    games into one (`sim.montecarlo.tally`) and sends that back instead of a result a game;
    tallies of consecutive seeds merged in seed order give `report` what summing every result
    in seed order gives (the winners' first-seen order breaks ties in their most-common order).
    Its counts are plain dicts, not `Counter`s: a Counter's `__delitem__` of its own makes every
    `counter[key] = n` a call of dict's `__setitem__` through its slot wrapper (~700
    instructions, ~27 a game here)."""

    def __init__(self) -> None:
        self.games = 0
        self.errors: list[tuple[int, str]] = []  # (seed, error), in seed order
        self.winners: dict[str, int] = {}
        self.rounds: dict[int, int] = {}
        self.steps = 0
        self.by_role: dict[str, list[int]] = {}  # role -> [players, survivors]
        self.counters: dict[str, int] = {}
        self.games_with: dict[str, int] = {}
        # side -> players by the number of the night or day they died in (None: the game's end)
        self.deaths: dict[str, dict[int | None, int]] = {}

    @classmethod
    def of(cls, results: list[Any]) -> Tally:
        tally = cls()
        for r in results:
            tally.add(r)
        return tally

    def add(self, r: Any) -> None:
        """One game's `GameResult`."""
        self.games += 1
        if r.error is not None:
            self.errors.append((r.seed, r.error))
            return
        winner, rounds = r.winner or "none", r.rounds
        self.winners[winner] = self.winners.get(winner, 0) + 1
        self.rounds[rounds] = self.rounds.get(rounds, 0) + 1
        self.steps += r.steps
        by_role, deaths = self.by_role, self.deaths
        for p in r.players:
            seen = by_role.get(p["role"])
            if seen is None:
                seen = by_role[p["role"]] = [0, 0]
            seen[0] += 1
            if p["alive"]:  # (no `bool()`: a type's call)
                seen[1] += 1
            side = p["faction"] or "?"
            died = deaths.get(side)
            if died is None:
                died = deaths[side] = {}
            t = _death_time(p["died_in"]) if not p["alive"] else None
            key = None if t is None else t[0]
            died[key] = died.get(key, 0) + 1
        # `Counter.update` by hand, one pass: the same keys, order and sums
        counters, games_with = self.counters, self.games_with
        total, seen_in = counters.get, games_with.get
        for k, v in r.counters.items():
            counters[k] = total(k, 0) + v
            if v:
                games_with[k] = seen_in(k, 0) + 1

    def merge(self, other: Tally) -> None:
        """`other`'s games after this tally's (the seeds that follow)."""
        self.games += other.games
        self.errors += other.errors
        _add(self.winners, other.winners)
        _add(self.rounds, other.rounds)
        self.steps += other.steps
        for role, (total, alive) in other.by_role.items():
            seen = self.by_role.setdefault(role, [0, 0])
            seen[0] += total
            seen[1] += alive
        for side, died in other.deaths.items():
            _add(self.deaths.setdefault(side, {}), died)
        _add(self.counters, other.counters)
        _add(self.games_with, other.games_with)

    def report(self, variant: str, policy: str, players: int | None) -> dict[str, Any]:
        n = self.games - len(self.errors)
        win = {side: {"games": k, "rate": k / n if n else 0.0, "ci95": list(wilson(k, n))}
               for side, k in sorted(self.winners.items(), key=itemgetter(1), reverse=True)}  # most common
        max_night = max(self.rounds, default=1)
        survival = {role: {"players": total, "survived": alive, "rate": alive / total}
                    for role, (total, alive) in sorted(self.by_role.items())}
        return {
            "variant": variant, "policy": policy, "players": players, "games": self.games, "played": n,
            "errors": [{"seed": seed, "error": error} for seed, error in self.errors][:20],
            "error_count": len(self.errors),
            "winners": win,
            "length": {"rounds": {str(k): v for k, v in sorted(self.rounds.items())},
                       "mean_rounds": sum(k * v for k, v in self.rounds.items()) / n if n else 0.0,
                       "mean_steps": self.steps / n if n else 0.0},
            "survival_by_role": survival,
            "survival_by_night": self.survival_by_night(max_night),
            "rules": {k: {"total": v, "per_game": v / n if n else 0.0,
                          "games_with": self.games_with.get(k, 0)}
                      for k, v in sorted(self.counters.items())},
        }

    def survival_by_night(self, max_night: int) -> dict[str, list[float]]:
        """Per side, the share of its players alive at the start of night 1, 2, … (games that
        ended earlier count with the players they ended with)."""
        out = {}
        for side in sorted(self.deaths):
            # alive at night k's start when he died in night or day k or later: counted for
            # the nights up to his death's number (a survivor, or an unknown label, for all)
            nights: Counter[int] = Counter()
            for number, count in self.deaths[side].items():
                nights[max_night if number is None else max(0, min(max_night, number))] += count
            total = sum(nights.values())
            row, alive = [], total - nights[0]
            for k in range(1, max_night + 1):
                row.append(alive / total)
                alive -= nights[k]
            out[side] = row
        return out


def _add(into: dict[Any, int], counts: dict[Any, int]) -> None:
    """`Counter.update` of `into` by `counts`: each count added, a new key after the others."""
    for k, v in counts.items():
        into[k] = into.get(k, 0) + v


def _survival_by_night(played: list[Any], max_night: int) -> dict[str, list[float]]:
    """`Tally.survival_by_night` of these results."""
    return Tally.of(played).survival_by_night(max_night)


# ---- plots and page ------------------------------------------------------------------


def plot(reports: list[dict[str, Any]], out: Path) -> list[str]:
    """PNG plots of one or two reports side by side; returns the file names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["font.sans-serif"] = _cjk_fonts() + plt.rcParams["font.sans-serif"]
    plt.rcParams["axes.unicode_minus"] = False
    names = []
    for name, draw in (("winners.png", _plot_winners), ("length.png", _plot_length),
                       ("survival_role.png", _plot_roles), ("survival_night.png", _plot_nights),
                       ("rules.png", _plot_rules)):
        fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
        draw(ax, reports)
        fig.tight_layout()
        fig.savefig(out / name)
        plt.close(fig)
        names.append(name)
    return names


def _cjk_fonts() -> list[str]:
    from matplotlib import font_manager

    wanted = ("Noto Sans CJK", "WenQuanYi", "Source Han", "SimHei", "Droid Sans Fallback", "AR PL")
    return sorted({f.name for f in font_manager.fontManager.ttflist if f.name.startswith(wanted)})


def _label(r: dict[str, Any]) -> str:
    """The variant id, or a variant file's name without `.toml`, and the policy."""
    return f"{Path(r['variant']).name.removesuffix('.toml')} ({r['policy']})"


def _bars(ax: Any, reports: list[dict[str, Any]], keys: list[str], values: Any, errors: Any = None) -> None:
    width = 0.8 / len(reports)
    for i, r in enumerate(reports):
        xs = [j + (i - (len(reports) - 1) / 2) * width for j in range(len(keys))]
        ys = [values(r, k) for k in keys]
        yerr = None
        if errors:
            lo_hi = [errors(r, k) for k in keys]
            yerr = [[y - lo for y, (lo, _) in zip(ys, lo_hi, strict=True)],
                    [hi - y for y, (_, hi) in zip(ys, lo_hi, strict=True)]]
        ax.bar(xs, ys, width, yerr=yerr, capsize=3, label=_label(r))
    ax.set_xticks(range(len(keys)), keys, rotation=20 if len(keys) > 5 else 0, ha="right" if len(keys) > 5 else "center")
    ax.legend(fontsize=8)


def _plot_winners(ax: Any, reports: list[dict[str, Any]]) -> None:
    sides = sorted({s for r in reports for s in r["winners"]})
    _bars(ax, reports, sides, lambda r, s: r["winners"].get(s, {}).get("rate", 0.0),
          lambda r, s: tuple(r["winners"].get(s, {}).get("ci95", (0.0, 0.0))))
    ax.set_ylabel("win rate (95% Wilson interval)")
    ax.set_title("Win rate per side")
    ax.set_ylim(0, 1)


def _plot_length(ax: Any, reports: list[dict[str, Any]]) -> None:
    rounds = sorted({int(d) for r in reports for d in r["length"]["rounds"]})
    keys = [str(d) for d in rounds]
    _bars(ax, reports, keys, lambda r, d: r["length"]["rounds"].get(d, 0) / max(1, r["played"]))
    ax.set_xlabel("rounds played (night k + day k = round k; the round the game ended in)")
    ax.set_ylabel("share of games")
    ax.set_title("Game length")


def _plot_roles(ax: Any, reports: list[dict[str, Any]]) -> None:
    roles = sorted({role for r in reports for role in r["survival_by_role"]})
    _bars(ax, reports, roles, lambda r, role: r["survival_by_role"].get(role, {}).get("rate", 0.0))
    ax.set_ylabel("share alive at the end")
    ax.set_title("Survival by role")
    ax.set_ylim(0, 1)


def _plot_nights(ax: Any, reports: list[dict[str, Any]]) -> None:
    styles = ("-", "--")
    for r, style in zip(reports, styles, strict=False):
        for side, row in r["survival_by_night"].items():
            ax.plot(range(1, len(row) + 1), row, style, marker="o", markersize=3, label=f"{side} — {_label(r)}")
    ax.set_xlabel("start of night")
    ax.set_ylabel("share of the side alive")
    ax.set_title("Survival by night")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=7)


def _plot_rules(ax: Any, reports: list[dict[str, Any]]) -> None:
    keys = sorted({k for r in reports for k in r["rules"] if k not in ("refusals",)})
    if not keys:
        ax.text(0.5, 0.5, "no rule firings counted", ha="center")
        return
    width = 0.8 / len(reports)
    for i, r in enumerate(reports):
        ys = [j + (i - (len(reports) - 1) / 2) * width for j in range(len(keys))]
        ax.barh(ys, [r["rules"].get(k, {}).get("per_game", 0.0) for k in keys], width, label=_label(r))
    ax.set_yticks(range(len(keys)), keys, fontsize=7)
    ax.set_xlabel("times per game")
    ax.set_title("How often each rule fires")
    ax.legend(fontsize=8)


def page(reports: list[dict[str, Any]], images: list[str]) -> str:
    """index.html: the plots and the main figures."""
    title = " vs ".join(_label(r) for r in reports)
    rows = []
    for r in reports:
        failed = f", {r['error_count']} failed" if r["error_count"] else ""
        rows.append(f"<h2>{html.escape(_label(r))}</h2><p>{r['played']} games played{failed}; "
                    f"mean {r['length']['mean_rounds']:.2f} rounds, {r['length']['mean_steps']:.0f} steps</p>")
        rows.append("<table><tr><th>side</th><th>wins</th><th>rate</th><th>95% interval</th></tr>")
        for side, w in r["winners"].items():
            lo, hi = w["ci95"]
            rows.append(f"<tr><td>{html.escape(side)}</td><td>{w['games']}</td><td>{w['rate']:.1%}</td>"
                        f"<td>{lo:.1%} – {hi:.1%}</td></tr>")
        rows.append("</table><table><tr><th>rule</th><th>per game</th><th>games with it</th></tr>")
        for k, v in r["rules"].items():
            rows.append(f"<tr><td>{html.escape(k)}</td><td>{v['per_game']:.3f}</td><td>{v['games_with']}</td></tr>")
        rows.append("</table>")
    imgs = "".join(f'<figure><img src="{name}" alt="{name}"></figure>' for name in images)
    style = ("body{font-family:sans-serif;max-width:1000px;margin:auto}table{border-collapse:collapse;"
             "margin:8px 0}td,th{border:1px solid #ccc;padding:2px 8px}img{max-width:100%}")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{style}</style></head><body><h1>Simulation: {html.escape(title)}</h1>{imgs}"
            f"{''.join(rows)}<p>Figures: <a href='report.json'>report.json</a></p></body></html>")


def write(reports: list[dict[str, Any]], out: Path) -> list[Path]:
    """report.json, the PNG plots and index.html in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    body = reports[0] if len(reports) == 1 else {"compare": reports}
    (out / "report.json").write_text(json.dumps(body, ensure_ascii=False, indent=2), encoding="utf-8")
    images = plot(reports, out)
    (out / "index.html").write_text(page(reports, images), encoding="utf-8")
    return [out / "report.json", *(out / name for name in images), out / "index.html"]
