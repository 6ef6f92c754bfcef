"""What the shell knows of a ruleset family, in one record (issue 35 item 3).

Each family's package (`rules/<family>/__init__.py`) declares `FAMILY = Family(...)`; the
registry (`tianshen.rules.families`), the simulated players (`tianshen.sim.sims_for`), the
balance report's counters and the web pages' words are reads of it (the words of steps and
deadlines through its ruleset's step table, core.flow).  A family that lacks a word for one
of its own steps, deadline kinds or causes is refused when it loads, so the pages never fall
back to 其他 at run time.

Classes are named as "module:Class" strings, imported when first used: this module stays
free of the shell (no sim, web or store imports).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any

from tianshen.core import flow

# deadlines every family has: core's own (core.ruleset.next_deadline, core.checkin,
# core.substitution) and the reminder before a phase's end
CORE_DEADLINES: dict[str, str] = {"reminder": "提醒", "checkin_end": "签到截止", "substitution_end": "替补截止"}
# steps every family has: none (a night or a phase without steps)
CORE_STEPS: dict[str, str] = {"": "—"}
# causes of death core gives (core.deaths: GM modkill, a wasted seat)
CORE_CAUSES: dict[str, str] = {"modkill": "被天神判出局", "wasted": "名额作废"}


@dataclass(frozen=True)
class Family:
    """One ruleset family.

    Its steps and deadline kinds, with their words, are its ruleset class's step table
    (core.flow.Step, `STEPS`); `causes`: each `death_cause` it writes, with its word;
    `events`: typed event kind → the balance report's counter; `sims`: the default
    simulated players; `policies`: policy name → better players where written; `rounds`:
    the board counts rounds (第2轮 · 投票) instead of days and nights.  The running vote's
    ballots are the ruleset's `ballots` ledger's (core.ledgers)."""

    id: str
    ruleset: str
    sims: str
    causes: Mapping[str, str]
    events: Mapping[str, str] = field(default_factory=dict)
    policies: Mapping[str, str] = field(default_factory=dict)
    rounds: bool = False

    def __post_init__(self) -> None:
        missing = [k for k, w in self.causes.items() if not w.strip()]
        if missing:
            raise ValueError(f"family '{self.id}' has no word for its causes: {', '.join(missing)}")
        for name in (self.ruleset, self.sims, *self.policies.values()):
            if name.count(":") != 1:
                raise ValueError(f"family '{self.id}': '{name}' is not 'module:Class'")

    def check(self, cls: Any) -> None:
        """The ruleset class's step table (`cls.STEPS`, core.flow): every step and every
        deadline kind has a word (the pages never show 其他), and what runs at each end is
        a method of the class."""
        steps = tuple(getattr(cls, "STEPS", ()))
        if unworded := sorted({s.step for s in steps if s.step != flow.ANY and not s.words.strip()}):
            raise ValueError(f"family '{self.id}' has no word for its steps: {', '.join(unworded)}")
        if unnamed := sorted({s.kind for s in steps if not s.deadline_words.strip()}):
            raise ValueError(f"family '{self.id}' has no word for its deadlines: {', '.join(unnamed)}")
        if lacking := sorted(n for n in flow.ends(steps).values() if not callable(getattr(cls, n, None))):
            raise ValueError(f"family '{self.id}': STEPS names methods it lacks: {', '.join(lacking)}")

    def step_words(self) -> dict[str, str]:
        """Each `phase.step` the family sets → its word (its step table's, and core's)."""
        return {**CORE_STEPS, **{s.step: s.words for s in self._steps() if s.step != flow.ANY}}

    def deadline_words(self) -> dict[str, str]:
        """Each deadline kind → its word (its step table's, and core's own deadlines)."""
        return {**CORE_DEADLINES, **{s.kind: s.deadline_words for s in self._steps()}}

    def _steps(self) -> tuple[Any, ...]:
        return tuple(self.ruleset_class().STEPS)

    def cause_words(self) -> dict[str, str]:
        return {**CORE_CAUSES, **self.causes}

    def ruleset_class(self) -> Any:
        return load(self.ruleset)

    def sims_class(self, policy: str = "default") -> Any:
        return load(self.policies.get(policy, self.sims))


def load(name: str) -> Any:
    """The object a "module:Class" string names."""
    module, attr = name.split(":")
    return getattr(import_module(module), attr)
