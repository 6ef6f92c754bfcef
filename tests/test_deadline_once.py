"""`next_deadline` is worked out once per stored event (issue 35 item 2): the answer is kept
on the state as it is (`GameState.due`, dropped by every fold), however often it is asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from tianshen.core.model import GameState
from tianshen.core.ruleset import Deadline, Ruleset
from tianshen.sim.rehearsal import rehearse
from tianshen.store import Store


def test_a_rehearsal_asks_next_deadline_about_once_per_stored_event(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    asked = Ruleset._next_deadline  # the work itself; `next_deadline` reads the state's cache

    def counted(self: Ruleset, state: GameState) -> Deadline | None:
        calls.append(state.phase.label)
        return asked(self, state)

    monkeypatch.setattr(Ruleset, "_next_deadline", counted)
    url = f"sqlite:///{tmp_path / 'r.db'}"
    result = rehearse("classic_8", 1, url)
    store = Store(url)
    events = len(store.events(result.game_id))
    store.close()
    assert result.winner and len(calls) / events <= 1.2, (len(calls), events)
