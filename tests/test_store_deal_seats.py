"""Issue 37: the deal of a game made without players (`create_game(deal=...)`) writes its
seats without first dropping the rows the game has (none); a game made with players has
them dropped and written again by its deal, as any step that changes the seats."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import event, select

from tianshen.store import Step, Store
from tianshen.store.models import PlayerRow

AT = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)


def _seat(name: str, seat: int) -> dict[str, Any]:
    return {"name": name, "forum_name": name, "seat": seat, "role": "villager", "faction": "town", "alive": True}


def _deal(players: list[dict[str, Any]]) -> Step:
    return Step(inbound=None, event_kind="setup", event_payload="{}", phase_label="night 1", state_json="{}",
                status="running", deadline_at=None, winner=None, players=players, outbox=[], at=AT)


def _seats(store: Store, game_id: int) -> list[tuple[str, int]]:
    with store.engine.connect() as conn:
        rows = conn.execute(select(PlayerRow.name, PlayerRow.seat).where(PlayerRow.game_id == game_id)
                            .order_by(PlayerRow.seat))
        return [tuple(r) for r in rows]


def _made(store: Store, name: str, players: list[dict[str, Any]]) -> tuple[int, list[str]]:
    said: list[str] = []
    listen = lambda *a: said.append(" ".join(a[2].split()[:3]))  # noqa: E731
    event.listen(store.engine, "before_cursor_execute", listen)
    game_id = store.create_game(name=name, ruleset="classic_10", seed=1, config={}, state_json="{}",
                                phase_label="setup", deadline_at=None, players=players, at=AT,
                                status="new" if not players else "running",
                                deal=lambda _gid: _deal([_seat("甲", 1), _seat("乙", 2)]))
    event.remove(store.engine, "before_cursor_execute", listen)
    return game_id, said


def test_a_deal_seats_a_new_game_without_a_delete(tmp_path: Path) -> None:
    for durable in (True, False):
        store = Store(f"sqlite:///{tmp_path / f'{durable}.db'}", durable=durable)
        store.upgrade()
        game_id, said = _made(store, "new", [])
        assert "DELETE FROM players" not in said
        assert _seats(store, game_id) == [("甲", 1), ("乙", 2)]
        game_id, said = _made(store, "seated", [_seat("丙", 1), _seat("丁", 3)])
        assert said.count("DELETE FROM players") == 1
        assert _seats(store, game_id) == [("甲", 1), ("乙", 2)]  # the game's own seats dropped
        store.close()
