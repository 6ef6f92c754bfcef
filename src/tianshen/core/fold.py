"""The one fold of a game's event log (issue 24): the setup, then every accepted input in
order.  The driver (`judged`), the web pages (a state before an unsent event) and the tests
use it; with every event it gives the stored state byte for byte."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

from tianshen.core.model import GameState, Input, Outcome, read_input
from tianshen.core.ruleset import GameSetup, Ruleset


class StoredEvent(Protocol):
    """A row of the event log (store.EventRecord): its number, kind and JSON payload."""

    @property
    def seq(self) -> int: ...

    @property
    def kind(self) -> str: ...

    @property
    def payload_json(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Step:
    seq: int
    input: Input
    outcome: Outcome
    before: GameState  # the state the input was folded on


def stored_input(payload_json: str) -> Input:
    """An input as the event log keeps it."""
    return read_input(json.loads(payload_json))


def steps(ruleset: Ruleset, events: Iterable[StoredEvent], state: GameState | None = None,
          after: int | None = None) -> Iterator[Step]:
    """Each input of the log with what it did, after the setup (the first event); or, carried
    on from `state`, the state after the event `after`: each input after that one (the
    events up to it are skipped)."""
    for e in events:
        if after is not None and e.seq <= after:
            continue
        if e.kind == "setup":
            state = ruleset.setup(GameSetup.model_validate_json(e.payload_json)).state
            continue
        if state is None:
            raise ValueError(f"event {e.seq} comes before the setup")
        event = stored_input(e.payload_json)
        outcome = ruleset.apply(state, event)
        yield Step(e.seq, event, outcome, state)
        state = outcome.state


def fold(ruleset: Ruleset, events: Iterable[StoredEvent], before_seq: int | None = None) -> GameState | None:
    """The state after the events (those before `before_seq` only); None before the setup."""
    state: GameState | None = None
    for e in events:
        if before_seq is not None and e.seq >= before_seq:
            break
        if e.kind == "setup":
            state = ruleset.setup(GameSetup.model_validate_json(e.payload_json)).state
        elif state is None:
            raise ValueError(f"event {e.seq} comes before the setup")
        else:
            state = ruleset.apply(state, stored_input(e.payload_json)).state
    return state
