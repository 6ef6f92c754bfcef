"""The store: schema, dedup, atomic steps, outbox, ordering and time zones on every backend."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect
from sqlalchemy.exc import IntegrityError, StatementError

from tianshen.store import InboundRecord, OutboxItem, Store
from tianshen.store.models import Base
from tianshen.store.store import MIGRATIONS

ROOT = Path(__file__).resolve().parents[1]
TABLES = {"games", "players", "phases", "inbound", "events", "outbox", "threads", "marks", "leases",
          "revoked_sessions"}
T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
CST = timezone(timedelta(hours=8))


def players(dead: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    names = ["甲", "乙", "丙"]
    return [
        {
            "name": n,
            "forum_name": f"user{i}",
            "seat": i + 1,
            "role": "killer" if i == 0 else "citizen",
            "faction": "mafia" if i == 0 else "town",
            "alive": n not in dead,
        }
        for i, n in enumerate(names)
    ]


def new_game(store: Store, name: str = "g1") -> int:
    return store.create_game(
        name=name,
        ruleset="classic_10",
        seed=2**40 + 7,
        config={"deadline_minutes": 30, "名": "值"},
        state_json='{"v": 0}',
        phase_label="night 1",
        deadline_at=T0 + timedelta(hours=1),
        players=players(),
        at=T0,
    )


def pm(forum_id: str, minutes: int = 1, text: str = "杀 乙") -> InboundRecord:
    return InboundRecord(
        source="pm", forum_id=forum_id, sender="user0", sent_at=T0 + timedelta(minutes=minutes), text=text
    )


def step(
    store: Store,
    game_id: int,
    *,
    inbound: InboundRecord | None = None,
    kind: str = "pm",
    phase: str = "night 1",
    state: str = '{"v": 1}',
    outbox: list[OutboxItem] | None = None,
    dead: tuple[str, ...] = (),
    at: datetime | None = None,
    status: str = "running",
) -> int | None:
    return store.commit_step(
        game_id,
        inbound=inbound,
        event_kind=kind,
        event_payload=json.dumps({"kind": kind, "state": state}),
        phase_label=phase,
        state_json=state,
        status=status,
        deadline_at=T0 + timedelta(hours=2),
        winner=None,
        players=players(dead),
        outbox=outbox or [],
        at=at,
    )


def count_rows(url: str, table: str) -> int:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return len(conn.exec_driver_sql(f"SELECT id FROM {table}").all())
    finally:
        engine.dispose()


# ---- schema -------------------------------------------------------------------------


def test_upgrade_builds_every_table_matching_the_models(db_url: str) -> None:
    store = Store(db_url)
    store.upgrade()
    store.upgrade()  # idempotent
    try:
        tables = set(inspect(store.engine).get_table_names())
        assert TABLES | {"alembic_version"} == tables
        with store.engine.connect() as conn:
            ctx = MigrationContext.configure(conn, opts={"compare_type": True})
            diff = compare_metadata(ctx, Base.metadata)
        assert diff == [], f"migration and models differ: {diff}"
        uniques = {tuple(u["column_names"]) for u in inspect(store.engine).get_unique_constraints("inbound")}
        assert ("game_id", "source", "forum_id") in uniques
    finally:
        store.close()


def test_migrations_are_packaged_and_work_from_any_cwd(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert (MIGRATIONS / "env.py").is_file()
    assert (MIGRATIONS / "script.py.mako").is_file()
    assert (MIGRATIONS / "versions" / "0001_baseline.py").is_file()
    monkeypatch.chdir(tmp_path)
    store = Store(db_url)
    try:
        store.upgrade()
        assert TABLES <= set(inspect(store.engine).get_table_names())
    finally:
        store.close()


def _alembic(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("alembic")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "alembic"]
    return subprocess.run(
        [*cmd, *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False, timeout=120
    )


def test_alembic_cli_from_repo_root_with_x_url(db_url: str) -> None:
    result = _alembic("-x", f"url={db_url}", "upgrade", "head")
    assert result.returncode == 0, result.stderr
    engine = create_engine(db_url)
    try:
        assert TABLES <= set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_alembic_cli_reads_url_from_environment(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'env.db'}"
    result = _alembic("upgrade", "head", env={**os.environ, "TIANSHEN_DATABASE_URL": url})
    assert result.returncode == 0, result.stderr
    engine = create_engine(url)
    try:
        assert TABLES <= set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


# ---- games --------------------------------------------------------------------------


def test_create_load_and_list_games(store: Store) -> None:
    gid = new_game(store)
    other = new_game(store, "g2")
    assert store.game_id("g1") == gid
    assert store.game_id("nope") is None
    game = store.load_game(gid)
    assert (game.name, game.ruleset, game.seed, game.status) == ("g1", "classic_10", 2**40 + 7, "running")
    assert game.phase_label == "night 1"
    assert game.config == {"deadline_minutes": 30, "名": "值"}
    assert game.state_json == '{"v": 0}'
    assert game.winner is None
    assert [g.id for g in store.list_games()] == [gid, other]
    with pytest.raises(KeyError):
        store.load_game(999)
    with pytest.raises(IntegrityError):
        new_game(store, "g1")


# ---- the step -----------------------------------------------------------------------


def test_commit_step_writes_everything(store: Store, db_url: str) -> None:
    gid = new_game(store)
    seq = step(
        store,
        gid,
        inbound=pm("101"),
        state='{"v": 1}',
        phase="day 1",
        dead=("乙",),
        outbox=[
            OutboxItem(kind="post", target="day:1", body="天亮了", title="第一天"),
            OutboxItem(kind="pm", target="user0", body="ok", subject="确认", key="custom-key"),
        ],
    )
    assert seq == 1
    game = store.load_game(gid)
    assert game.state_json == '{"v": 1}'
    assert game.phase_label == "day 1"
    assert game.deadline_at == T0 + timedelta(hours=2)
    assert store.has_inbound(gid, "pm", "101")
    assert not store.has_inbound(gid, "post", "101")
    out = store.outbox(gid)
    assert [(o.seq, o.kind, o.target, o.status) for o in out] == [
        (1, "post", "day:1", "pending"),
        (2, "pm", "user0", "pending"),
    ]
    assert out[0].title == "第一天" and out[0].key == "g1:1:0"
    assert out[1].subject == "确认" and out[1].key == "custom-key"
    assert count_rows(db_url, "players") == 3
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            alive = dict(conn.exec_driver_sql("SELECT name, alive FROM players").all())
    finally:
        engine.dispose()
    assert {k: bool(v) for k, v in alive.items()} == {"甲": True, "乙": False, "丙": True}


def test_duplicate_inbound_returns_none_and_writes_nothing(store: Store, db_url: str) -> None:
    gid = new_game(store)
    assert step(store, gid, inbound=pm("7"), state='{"v": 1}', outbox=[OutboxItem("pm", "user0", "a")]) == 1
    again = step(
        store,
        gid,
        inbound=pm("7", minutes=5, text="different"),
        state='{"v": 2}',
        phase="day 1",
        dead=("甲", "乙"),
        outbox=[OutboxItem("pm", "user1", "b", key="other-key")],
    )
    assert again is None
    assert [e.seq for e in store.events(gid)] == [1]
    assert [o.body for o in store.outbox(gid)] == ["a"]
    game = store.load_game(gid)
    assert (game.state_json, game.phase_label) == ('{"v": 1}', "night 1")
    assert [r.text for r in store.inbound(gid)] == ["杀 乙"]
    assert [p.label for p in store.phases(gid)] == ["night 1"]
    assert count_rows(db_url, "players") == 3
    # the same forum id from another source, or in another game, is not a duplicate
    assert step(store, gid, inbound=InboundRecord("post", "7", "user1", T0, "hi", thread_key="day:1")) == 2
    g2 = new_game(store, "g2")
    assert step(store, g2, inbound=pm("7")) == 1


def test_commit_step_is_atomic(store: Store, db_url: str) -> None:
    gid = new_game(store)
    assert step(store, gid, inbound=pm("1"), outbox=[OutboxItem("pm", "user0", "first", key="k1")]) == 1
    with pytest.raises(IntegrityError):
        step(
            store,
            gid,
            inbound=pm("2"),
            state='{"v": 99}',
            phase="day 1",
            dead=("丙",),
            outbox=[OutboxItem("post", "day:1", "new"), OutboxItem("pm", "user1", "clash", key="k1")],
        )
    assert not store.has_inbound(gid, "pm", "2")
    assert [e.seq for e in store.events(gid)] == [1]
    assert [o.body for o in store.outbox(gid)] == ["first"]
    game = store.load_game(gid)
    assert (game.state_json, game.phase_label) == ('{"v": 1}', "night 1")
    assert [(p.label, p.ended_at) for p in store.phases(gid)] == [("night 1", None)]
    assert count_rows(db_url, "players") == 3
    # the store is usable afterwards and the next step gets the next seq
    assert step(store, gid, inbound=pm("2")) == 2


def test_commit_step_unknown_game_raises(store: Store) -> None:
    with pytest.raises(KeyError):
        step(store, 12345)


def test_events_in_seq_order(store: Store) -> None:
    gid = new_game(store)
    kinds = ["pm", "post", "deadline", "gm", "pm"]
    phases = ["night 1", "night 1", "day 1", "day 1", "night 2"]
    for i, (kind, phase) in enumerate(zip(kinds, phases, strict=True)):
        inbound = pm(str(i)) if kind == "pm" else None
        assert step(store, gid, inbound=inbound, kind=kind, phase=phase, state=f'{{"v": {i}}}') == i + 1
    events = store.events(gid)
    assert [e.seq for e in events] == [1, 2, 3, 4, 5]
    assert [e.kind for e in events] == kinds
    # an event is labelled with the phase it arrived in
    assert [e.phase_label for e in events] == ["night 1", "night 1", "night 1", "day 1", "day 1"]
    assert json.loads(events[2].payload_json) == {"kind": "deadline", "state": '{"v": 2}'}
    assert store.events(new_game(store, "g2")) == []


def test_inbound_by_phase(store: Store) -> None:
    gid = new_game(store)
    step(store, gid, inbound=pm("1"), phase="day 1")
    step(store, gid, inbound=pm("2", text="投 甲"), phase="day 1")
    step(store, gid, inbound=InboundRecord("post", "p9", "user2", T0, "改", thread_key="vote:1", edited=True))
    assert [r.forum_id for r in store.inbound(gid)] == ["1", "2", "p9"]
    assert [r.forum_id for r in store.inbound(gid, "night 1")] == ["1"]
    assert [r.forum_id for r in store.inbound(gid, "day 1")] == ["2", "p9"]
    post = store.inbound(gid)[2]
    assert (post.source, post.thread_key, post.edited, post.sender) == ("post", "vote:1", True, "user2")


# ---- outbox -------------------------------------------------------------------------


def test_pending_outbox_and_mark_sent(store: Store) -> None:
    gid = new_game(store)
    step(store, gid, outbox=[OutboxItem("post", "vote:1", "a", title="投票"), OutboxItem("pm", "user1", "b")])
    step(store, gid, outbox=[OutboxItem("pm", "user2", "c")])
    pending = store.pending_outbox(gid)
    assert [(o.seq, o.body, o.key) for o in pending] == [
        (1, "a", "g1:1:0"),
        (2, "b", "g1:1:1"),
        (3, "c", "g1:2:0"),
    ]
    assert all(o.sent_at is None and o.forum_ref is None for o in pending)
    store.mark_sent(pending[0].id, "thread-55")
    store.mark_sent(pending[2].id, None)
    assert [o.body for o in store.pending_outbox(gid)] == ["b"]
    everything = store.outbox(gid)
    assert [(o.body, o.status, o.forum_ref) for o in everything] == [
        ("a", "sent", "thread-55"),
        ("b", "pending", None),
        ("c", "sent", None),
    ]
    assert everything[0].sent_at is not None and everything[0].sent_at.tzinfo == UTC
    with pytest.raises(KeyError):
        store.mark_sent(10_000, "x")
    # other games' outboxes are separate and number from 1
    g2 = new_game(store, "g2")
    step(store, g2, outbox=[OutboxItem("pm", "user0", "z")])
    assert [(o.seq, o.key) for o in store.pending_outbox(g2)] == [(1, "g2:1:0")]


# ---- time ---------------------------------------------------------------------------


def test_datetimes_come_back_aware_utc(store: Store) -> None:
    gid = new_game(store)
    sent = datetime(2024, 5, 2, 20, 30, 15, 123000, tzinfo=CST)  # 12:30:15.123 UTC
    deadline = datetime(2024, 5, 3, 8, 0, tzinfo=CST)
    store.commit_step(
        gid,
        inbound=InboundRecord("pm", "x1", "user0", sent, "hi"),
        event_kind="pm",
        event_payload="{}",
        phase_label="day 1",
        state_json="{}",
        status="running",
        deadline_at=deadline,
        winner=None,
        players=players(),
        outbox=[OutboxItem("pm", "user0", "b")],
    )
    game = store.load_game(gid)
    assert game.deadline_at == deadline
    assert game.deadline_at is not None and game.deadline_at.tzinfo == UTC
    assert game.deadline_at.hour == 0
    got = store.inbound(gid)[0].sent_at
    assert got == sent and got.tzinfo == UTC and got.microsecond == 123000
    event = store.events(gid)[0]
    assert event.created_at == sent and event.created_at.tzinfo == UTC
    out = store.outbox(gid)[0]
    assert out.created_at.tzinfo == UTC
    phases = store.phases(gid)
    assert phases[0].started_at == T0 and phases[0].started_at.tzinfo == UTC
    assert phases[0].ended_at == sent and phases[1].started_at == sent


def test_naive_datetimes_are_refused(store: Store) -> None:
    gid = new_game(store)
    with pytest.raises(StatementError):
        store.commit_step(
            gid,
            inbound=None,
            event_kind="gm",
            event_payload="{}",
            phase_label="night 1",
            state_json="{}",
            status="paused",
            deadline_at=datetime(2024, 1, 1, 12, 0),
            winner=None,
            players=players(),
            outbox=[],
        )
    assert store.events(gid) == []


# ---- phases -------------------------------------------------------------------------


def test_phases_open_and_close(store: Store) -> None:
    gid = new_game(store)
    assert [(p.label, p.started_at, p.ended_at) for p in store.phases(gid)] == [("night 1", T0, None)]
    t1, t2, t3 = (T0 + timedelta(minutes=m) for m in (10, 20, 30))
    step(store, gid, phase="night 1", at=t1)  # same phase: nothing changes
    assert [(p.label, p.ended_at) for p in store.phases(gid)] == [("night 1", None)]
    step(store, gid, phase="day 1", at=t2)
    step(store, gid, phase="over", at=t3, status="over")
    assert [(p.label, p.started_at, p.ended_at) for p in store.phases(gid)] == [
        ("night 1", T0, t2),
        ("day 1", t2, t3),
        ("over", t3, None),
    ]
    assert store.load_game(gid).status == "over"


# ---- threads and marks --------------------------------------------------------------


def test_threads_and_marks(store: Store) -> None:
    gid = new_game(store)
    g2 = new_game(store, "g2")
    assert store.thread_id(gid, "vote:1") is None
    store.set_thread_id(gid, "vote:1", "1001")
    store.set_thread_id(g2, "vote:1", "2002")
    assert store.thread_id(gid, "vote:1") == "1001"
    store.set_thread_id(gid, "vote:1", "1002")
    assert store.thread_id(gid, "vote:1") == "1002"
    assert store.thread_id(g2, "vote:1") == "2002"
    assert store.mark(gid, "last_pm") is None
    store.set_mark(gid, "last_pm", "41")
    store.set_mark(gid, "last_pm", "42")
    assert store.mark(gid, "last_pm") == "42"
    assert store.mark(g2, "last_pm") is None
    positions = "{" + ",".join(f'"{t}":[3,{t + 30},0]' for t in range(1, 200)) + "}"
    store.set_mark(gid, "pm_topics", positions)  # the daemon's read positions: any length
    assert store.mark(gid, "pm_topics") == positions


def test_a_game_signed_up_but_not_started(store: Store) -> None:
    t = datetime(2026, 1, 1, tzinfo=UTC)
    game = store.create_game(name="new", ruleset="classic_10", seed=1, config={"setup": {}}, state_json="{}",
                             phase_label="setup", deadline_at=t, players=[], at=t, status="new")
    record = store.load_game(game)
    assert (record.status, record.phase_label, record.deadline_at) == ("new", "setup", t)
    assert store.events(game) == [] and store.pending_outbox(game) == []


def test_migration_0007_moves_the_inputs_events_into_their_inbound_rows(db_url: str) -> None:
    """Issue 37: an input is stored once.  A database of 0006 with a game's setup, a PM, a
    deadline and a GM command: the PM's and the deadline's events move into their inbound
    rows, the setup's and the GM's stay, an inbound row that became no event is left as it
    is, and `events` reads the same before and after; a downgrade puts them back."""
    from alembic import command
    from sqlalchemy import text

    from tianshen.store.store import alembic_config

    store = Store(db_url)
    cfg = alembic_config(db_url)
    t = "'2026-01-01 00:00:00+00'" if db_url.startswith("postgresql") else "'2026-01-01 00:00:00'"

    def migrate(how: Any, to: str) -> None:
        with store.engine.begin() as conn:
            cfg.attributes["connection"] = conn
            how(cfg, to)

    def tables() -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        with store.engine.connect() as conn:
            return (list(conn.execute(text("SELECT seq, kind FROM events ORDER BY seq"))),
                    list(conn.execute(text("SELECT forum_id, event_seq FROM inbound ORDER BY id"))))

    migrate(command.upgrade, "0006")
    with store.engine.begin() as conn:
        conn.execute(text("INSERT INTO games (id, name, ruleset, seed, status, phase_label, state_json, config_json,"
                          f" created_at, updated_at, step_seq) VALUES (1, 'old', 'classic_8', 1, 'running', 'day 1',"
                          f" '{{}}', '{{}}', {t}, {t}, 4)"))
        for seq, kind, phase in ((1, "setup", "setup"), (2, "pm", "night 1"), (3, "deadline", "night 1"),
                                 (4, "gm", "day 1")):
            conn.execute(text("INSERT INTO events (game_id, seq, phase_label, kind, payload_json, created_at)"
                              f" VALUES (1, {seq}, '{phase}', '{kind}', '[\"{kind}\", {seq}]', {t})"))
        for fid, source, seq in (("7", "pm", "2"), ("night_end@x", "deadline", "3"), ("8", "pm", "NULL")):
            conn.execute(text("INSERT INTO inbound (game_id, source, forum_id, sender, sent_at, text, edited,"
                              f" phase_label, event_seq, received_at) VALUES (1, '{source}', '{fid}', 'a', {t},"
                              f" 'x', false, 'night 1', {seq}, {t})"))
    with store.engine.connect() as conn:  # (0006 has no payload column: the table itself)
        before = [tuple(r) for r in conn.execute(text(
            "SELECT seq, kind, phase_label, payload_json, created_at FROM events ORDER BY seq"))]
    store.upgrade()
    before = [(*r[:4], str(r[4])[:19]) for r in before]
    assert tables() == ([(1, "setup"), (4, "gm")], [("7", 2), ("night_end@x", 3), ("8", None)])
    after = [(e.seq, e.kind, e.phase_label, e.payload_json, str(e.created_at)[:19]) for e in store.events(1)]
    assert after == before
    migrate(command.downgrade, "0006")
    assert tables() == ([(1, "setup"), (2, "pm"), (3, "deadline"), (4, "gm")],
                        [("7", 2), ("night_end@x", 3), ("8", None)])
    with store.engine.connect() as conn:
        assert [(*r[:4], str(r[4])[:19]) for r in conn.execute(text(
            "SELECT seq, kind, phase_label, payload_json, created_at FROM events ORDER BY seq"))] == before
    store.close()


def test_a_database_made_by_the_first_release_upgrades_to_head(tmp_path: Path) -> None:
    """Migration 0002 on a database that already holds a game: its step seq is filled from
    its events, and the new tables and columns are there."""
    from alembic import command
    from sqlalchemy import text

    from tianshen.store.store import alembic_config

    url = f"sqlite:///{tmp_path / 'old.db'}"
    store = Store(url)
    with store.engine.begin() as conn:
        cfg = alembic_config(url)
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0001")
        conn.execute(text("INSERT INTO games (id, name, ruleset, seed, status, phase_label, state_json, config_json,"
                          " created_at, updated_at) VALUES (1, 'old', 'classic_8', 1, 'running', 'night 1', '{}',"
                          " '{}', '2026-01-01 00:00:00', '2026-01-01 00:00:00')"))
        for seq in (1, 2, 3):
            conn.execute(text("INSERT INTO events (game_id, seq, phase_label, kind, payload_json, created_at)"
                              f" VALUES (1, {seq}, 'night 1', 'pm', '{{}}', '2026-01-01 00:00:00')"))
    store.upgrade()  # what `alembic upgrade head` does
    assert store.step_seq(1) == 3
    assert store.load_game(1).board == ""
    assert store.acquire_lease(1, "a", T0, 30)
    store.close()


def test_migration_0008_a_state_behind_its_events_is_caught_up_on_downgrade(db_url: str) -> None:
    """Issue 37: a rehearsal's stored state may trail its events (`games.state_seq`).  A
    downgrade to 0007 (whose code reads `state_json` as the newest) writes the newest state
    first; the upgrade adds the column back, every state the newest (NULL)."""
    from alembic import command
    from sqlalchemy import text

    from tianshen.core.fold import fold
    from tianshen.rules import game_ruleset
    from tianshen.sim.rehearsal import rehearse
    from tianshen.store.store import alembic_config

    store = Store(db_url, durable=False)
    store.upgrade()
    result = rehearse("classic_8", 1, db_url, store=store, name="down-1")
    record = store.load_game(result.game_id)
    ruleset = game_ruleset(record.ruleset, record.config)
    early = fold(ruleset, store.events(result.game_id), before_seq=6)
    assert early is not None
    with store.engine.begin() as conn:  # as a rehearsal killed at seq 5 + the rest would leave it
        conn.execute(text("UPDATE games SET state_json = :s, state_seq = 5 WHERE id = :gid"),
                     dict(s=early.model_dump_json(), gid=result.game_id))
    assert store.load_game(result.game_id).state_json == result.state.model_dump_json()  # folded on read
    cfg = alembic_config(db_url)
    with store.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0007")
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT state_json FROM games WHERE id = :gid"),
                            dict(gid=result.game_id)).scalar() == result.state.model_dump_json()
    store.upgrade()
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT state_seq FROM games")).scalars().all() == [None]
    assert store.load_game(result.game_id).state_json == result.state.model_dump_json()
    store.close()


def test_migration_0009_an_input_said_by_its_row_gets_its_json_back_on_downgrade(db_url: str) -> None:
    """Issue 37: an inbound row that says all of its input keeps '' as its payload (the
    JSON made when read).  A downgrade to 0008 (whose code reads the column as the JSON)
    writes each one's JSON; `events` reads the same before, after and upgraded again."""
    from alembic import command
    from sqlalchemy import text

    from tianshen.sim.rehearsal import rehearse
    from tianshen.store.store import alembic_config

    store = Store(db_url, durable=False)
    store.upgrade()
    result = rehearse("classic_8", 2, db_url, store=store, name="down-9")
    events = store.events(result.game_id)

    def payloads() -> dict[int, str]:
        with store.engine.connect() as conn:
            return dict(conn.execute(text("SELECT event_seq, payload_json FROM inbound WHERE game_id = :gid"),
                                     dict(gid=result.game_id)).all())

    assert payloads() and set(payloads().values()) == {""}
    cfg = alembic_config(db_url)
    with store.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0008")
    by_seq = {e.seq: e.payload_json for e in events}
    assert payloads() == {seq: by_seq[seq] for seq in payloads()} and "" not in payloads().values()
    assert store.events(result.game_id) == events
    store.upgrade()
    assert store.events(result.game_id) == events
    assert store.load_game(result.game_id).state_json == result.state.model_dump_json()
    store.close()
