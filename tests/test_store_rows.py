"""Issue 37, the store path's sixth round: fewer rows and statements a step, and no read of
what a process knows already (a game it signed up and dealt itself)."""

from __future__ import annotations

from sqlalchemy import event

from tianshen.sim.rehearsal import rehearse
from tianshen.store import Store


def _selects(store: Store) -> list[str]:
    seen: list[str] = []
    event.listen(store.engine, "before_cursor_execute",
                 lambda *a: seen.append(" ".join(a[2].split())) if a[2].lstrip().startswith("SELECT") else None)
    return seen


def test_a_game_dealt_here_reads_back_neither_its_inputs_nor_its_threads(db_url: str) -> None:
    store = Store(db_url, durable=False)
    store.upgrade()
    seen = _selects(store)
    result = rehearse("classic_10", 1, db_url, store=store, name="reads")
    assert result.winner
    assert not [s for s in seen if " FROM inbound" in s or " FROM threads" in s]
    assert store.inbound(result.game_id) and store.threads(result.game_id)  # written all the same
    store.close()
