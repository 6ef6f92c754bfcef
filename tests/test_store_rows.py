"""Issue 37, the store path's sixth round: fewer rows and statements a step, and no read of
what a process knows already (a game it signed up and dealt itself)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import event, select

from tianshen.sim.rehearsal import rehearse
from tianshen.store import OutboxItem, Step, Store
from tianshen.store.models import PlayerRow

T0 = datetime(2026, 1, 1, 20, 0, tzinfo=UTC)


def _selects(store: Store) -> list[str]:
    seen: list[str] = []
    event.listen(store.engine, "before_cursor_execute",
                 lambda *a: seen.append(" ".join(a[2].split())) if a[2].lstrip().startswith("SELECT") else None)
    return seen


def test_a_game_dealt_here_reads_nothing_back(db_url: str) -> None:
    """Its row, marks, inputs and threads are what it wrote: a rehearsal runs no SELECT."""
    store = Store(db_url, durable=False)
    store.upgrade()
    seen = _selects(store)
    result = rehearse("classic_10", 1, db_url, store=store, name="reads")
    assert result.winner
    assert seen == []
    assert store.inbound(result.game_id) and store.threads(result.game_id)  # written all the same
    store.close()


def _writes(store: Store) -> list[str]:
    seen: list[str] = []
    event.listen(store.engine, "before_cursor_execute", lambda *a: seen.append(" ".join(a[2].split()[:3])))
    return seen


def test_a_step_writes_only_the_players_rows_it_changed(db_url: str) -> None:
    store = Store(db_url, durable=False)
    store.upgrade()
    seen = _writes(store)
    result = rehearse("classic_10", 1, db_url, store=store, name="seats")
    assert seen.count("DELETE FROM players") == 1  # the deal's: a death updates its row alone
    if store.engine.dialect.name == "sqlite":  # (PostgreSQL: inside the step's one statement, `_pg_step`)
        assert 0 < seen.count("UPDATE players SET") < 15
    with store.engine.connect() as conn:
        rows = conn.execute(select(PlayerRow.name, PlayerRow.alive, PlayerRow.role).where(
            PlayerRow.game_id == result.game_id)).all()
    assert {r.name: (r.alive, r.role) for r in rows} == {p.name: (p.alive, p.role) for p in result.state.players}
    store.close()


def test_a_changed_seat_that_is_not_stored_writes_every_row_again(store: Store) -> None:
    gid = store.create_game(name="g", ruleset="classic_10", seed=1, config={}, state_json="{}",
                            phase_label="night 1", deadline_at=None, players=[_seat("甲", 1)], at=T0)
    seats = [_seat("甲", 1, alive=False), _seat("乙", 2)]
    store.commit_step(gid, inbound=None, event_kind="gm", event_payload="{}", phase_label="night 1",
                      state_json="{}", status="running", deadline_at=None, winner=None, players=seats,
                      outbox=[], at=T0, players_changed=["甲", "乙"])
    with store.engine.connect() as conn:
        rows = conn.execute(select(PlayerRow.name, PlayerRow.alive).where(PlayerRow.game_id == gid)).all()
    assert sorted(rows) == [("乙", True), ("甲", False)]


def _seat(name: str, seat: int, alive: bool = True) -> dict:
    return dict(name=name, forum_name=name, seat=seat, role="平民", faction="civilians", alive=alive)


def test_a_phase_change_is_one_statement_and_ends_the_phase_before(store: Store) -> None:
    gid = store.create_game(name="g", ruleset="classic_10", seed=1, config={}, state_json="{}",
                            phase_label="night 1", deadline_at=None, players=[_seat("甲", 1)], at=T0)
    seen = _writes(store)
    t1, t2, t3 = (T0 + timedelta(hours=h) for h in (1, 2, 3))
    steps = [Step(inbound=None, event_kind="deadline", event_payload="{}", phase_label=label, state_json="{}",
                  status="running", deadline_at=None, winner=None, players=None, outbox=[], at=at)
             for label, at in (("day 1", t2), ("night 2", t3))]
    store.commit_step(gid, inbound=None, event_kind="gm", event_payload="{}", phase_label="night 1",
                      state_json="{}", status="running", deadline_at=None, winner=None, players=None, outbox=[],
                      at=t1, then=steps)
    assert [s for s in seen if "phases" in s] == ["INSERT INTO phases"]
    assert [(p.label, p.started_at, p.ended_at) for p in store.phases(gid)] == [
        ("night 1", T0, t2), ("day 1", t2, t3), ("night 2", t3, None)]


def test_a_steps_outbox_rows_come_back_with_their_ids(store: Store) -> None:
    """On PostgreSQL a step's outbox rows are one execute of one statement for any number
    of rows, the rows one JSON parameter (issue 37: psycopg's client CPU goes to each
    parameter set of an executemany), their ids in the rows' order.  On SQLite the same one-row statement for any number of
    rows (an execute a row: not a statement compiled for each new count), with no RETURNING
    (each id is the cursor's rowid), the game's own row too.  The rows queued have the ids
    written."""
    gid = store.create_game(name="g", ruleset="classic_10", seed=1, config={}, state_json="{}",
                            phase_label="night 1", deadline_at=None, players=[_seat("甲", 1)], at=T0)
    many: list[tuple[bool, str]] = []
    event.listen(store.engine, "before_cursor_execute",
                 lambda *a: many.append((a[5], a[2])) if a[2].startswith(("INSERT INTO outbox", "WITH g AS")) else None)
    for count in (4, 6, 7):
        items = [OutboxItem(kind="pm", target=f"玩家{n}", body=f"第{count}.{n}条") for n in range(count)]
        store.commit_step(gid, inbound=None, event_kind="gm", event_payload="{}", phase_label="night 1",
                          state_json="{}", status="running", deadline_at=None, winner=None, players=None,
                          outbox=items, at=T0)
    if store.engine.dialect.name == "postgresql":
        assert [m for m, _ in many] == [False, False, False] and len({sql for _, sql in many}) == 1
    else:
        assert len({sql for _, sql in many}) == 1 and "RETURNING" not in many[0][1]
        inserted: list[str] = []
        event.listen(store.engine, "before_cursor_execute", lambda *a: inserted.append(a[2]))
        other = store.create_game(name="g2", ruleset="classic_10", seed=1, config={}, state_json="{}",
                                  phase_label="night 1", deadline_at=None, players=[], at=T0)
        assert other == gid + 1 and store.load_game(other).name == "g2"
        assert not any("RETURNING" in sql for sql in inserted)
    stored = {r.key: (r.id, r.seq, r.body) for r in store.outbox(gid)}
    assert {r.key: (r.id, r.seq, r.body) for r in store.queued(gid)} == stored
    assert sorted(seq for _, seq, _ in stored.values()) == list(range(1, 18))
    assert [seq for _, seq, _ in sorted(stored.values())] == list(range(1, 18))  # ids in the rows' order


def test_a_games_row_is_written_by_statements_compiled_once(store: Store) -> None:
    """`create_game` runs its INSERTs on the transaction's cursor as a step does (issue 37),
    not through Connection.execute; the game reads back as written."""
    compiled: list[object] = []
    event.listen(store.engine, "before_execute", lambda *a: compiled.append(a[1]) if a[1].is_dml else None)
    gid = store.create_game(name="g", ruleset="classic_10", seed=5, config={"setup": {"x": "甲"}}, state_json="{}",
                            phase_label="night 1", deadline_at=T0, players=[_seat("甲", 1), _seat("乙", 2)], at=T0)
    assert compiled == []
    game = store.load_game(gid)
    assert (game.name, game.seed, game.config, game.deadline_at, game.step_seq) == ("g", 5, {"setup": {"x": "甲"}}, T0, 0)
    assert [(p.label, p.started_at, p.ended_at) for p in store.phases(gid)] == [("night 1", T0, None)]
