"""Issue 26: the store path.  A run of inputs is written in one transaction; a run or a
deadline folded on a state that moved meanwhile (a GM command from `tianshen admin`) is
folded again on the newest state, or not fired; an idle daemon tick reads every game's head
in one query and trusts its cached states only during that tick."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import create_engine, event, select
from sqlalchemy.exc import IntegrityError

from test_driver import GM, ROLES, START, Env, RecordingForum, gm_pms
from tianshen.config import load_config
from tianshen.core.fold import steps
from tianshen.core.model import GameState
from tianshen.core.ruleset import GameSetup, Ruleset, Seat
from tianshen.core.spec import RulesetSpec
from tianshen.forum.memory import MemoryBoard
from tianshen.service.daemon import Daemon
from tianshen.service.driver import GameDriver, OfflineForum
from tianshen.sim.rehearsal import VESTS, VirtualClock, rehearse
from tianshen.specs import load_spec, shared_spec
from tianshen.store import OutboxItem, Step, Store
from tianshen.store import store as store_module
from tianshen.store.models import PlayerRow


@pytest.fixture
def env(db_url: str):
    """A classic_10 game dealt on the memory board (as in test_driver)."""
    clock = VirtualClock(START)
    board = MemoryBoard(clock.now)
    forum = RecordingForum(board)
    forum.login()
    store = Store(db_url)
    store.upgrade()
    setup = GameSetup(seats=[Seat(name=n) for n in ROLES], seed=7, start=START, fixed_roles=ROLES)
    yield Env(clock, board, forum, store, GameDriver.create(store, forum, "g1", "classic_10", setup))
    store.close()


def _lay_dead_and_idle(db_url: str, pid: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """PostgreSQL ends backend `pid` (a connection the store holds, from another one), and
    the store's connections count as lying idle since (`IDLE_PING_S`): the next use must
    try them."""
    other = create_engine(db_url)
    with other.connect() as killer:
        killer.exec_driver_sql(f"SELECT pg_terminate_backend({int(pid)})")
    other.dispose()
    monkeypatch.setattr(store_module, "IDLE_PING_S", -1.0)

def _statements(store: Store) -> list[str]:
    seen: list[str] = []
    event.listen(store.engine, "before_cursor_execute", lambda *a: seen.append(a[2].split("(")[0].strip()))
    return seen


def _night_pms(env: Env) -> None:
    env.goto(env.at(1))
    env.board.pm("丙", GM, "占卜 甲")
    env.board.pm("庚", GM, "天神你好")
    env.board.pm("辛", GM, "请问现在是第几夜")


def _admin_extend(env: Env, hours: float) -> None:
    """`tianshen admin extend` beside the driver: another process's store and driver."""
    other = Store(env.store.url)
    GameDriver(other, OfflineForum(), env.game_id).gm("extend", "测试顺延", env.clock.now(), hours=hours)
    other.close()


def test_a_run_of_inputs_is_written_in_one_transaction(env: Env) -> None:
    _night_pms(env)
    seen = _statements(env.store)
    assert env.driver.advance(env.clock.now()) == 3
    # one statement writes the three inputs (PostgreSQL: the whole step, `store._pg_step`)
    assert len([s for s in seen if s.startswith(("INSERT INTO inbound", "WITH g AS"))]) == 1
    # each input stored once (issue 37, migration 0007): its event is its inbound row's
    assert [s for s in seen if s.startswith("INSERT INTO events")] == []
    assert [(e.seq, e.kind) for e in env.store.events(env.game_id)][-3:] == [(2, "pm"), (3, "pm"), (4, "pm")]
    assert [i.event_seq for i in env.store.inbound(env.game_id)] == [2, 3, 4]
    assert len(gm_pms(env.board, "丙")) == 2 and len(gm_pms(env.board, "辛")) == 2  # role PM and the answer


def test_a_run_whose_state_moved_is_folded_again_on_the_newest(env: Env) -> None:
    _night_pms(env)
    real = env.store.commit_step

    def meanwhile(*args, **kwargs):  # the GM extends the night while the run is folded
        if kwargs.get("then"):
            _admin_extend(env, 1)
        return real(*args, **kwargs)

    env.store.commit_step = meanwhile  # type: ignore[method-assign]
    assert env.driver.advance(env.clock.now()) == 3
    kinds = [(e.seq, e.kind) for e in env.store.events(env.game_id)]
    assert kinds == [(1, "setup"), (2, "gm"), (3, "pm"), (4, "pm"), (5, "pm")]
    assert sorted(i.forum_id for i in env.store.inbound(env.game_id)) == sorted(
        str(pm.id) for pm in env.board.inbox(GM))
    assert env.driver.state().data.get("gm_log")
    assert len(gm_pms(env.board, "丙")) == 2 and len(gm_pms(env.board, "庚")) == 2


def test_a_deadline_the_gm_moved_meanwhile_is_not_fired(env: Env) -> None:
    due = env.due()
    env.goto(due)
    env.driver.trust_cache = True  # as during a daemon's tick: the head was read before the GM's command
    _admin_extend(env, 2)
    env.driver.advance(env.clock.now())
    state = env.driver.state()
    assert state.phase.label == "night 1"
    assert [e.kind for e in env.store.events(env.game_id)] == ["setup", "gm"]
    assert env.driver.ruleset.next_deadline(state).at == due + timedelta(hours=2)


def _board(tmp_path: Path, games: int) -> Daemon:
    tables = []
    for g in range(games):
        players = ", ".join(f'{{ name = "{v}{g}" }}' for v in VESTS[:10])
        tables.append(f'[[game]]\nname = "g{g}"\nruleset = "classic_10"\nseed = {g + 1}\n'
                      f'start = 2026-01-01T20:00:00Z\nplayers = [{players}]\n')
    path = tmp_path / "board.toml"
    path.write_text(f'[database]\nurl = "sqlite:///{tmp_path / "board.db"}"\n[forum]\nkind = "memory"\n'
                    f"[run]\ntime_scale = 1\npoll_seconds = 60\n\n" + "\n".join(tables), encoding="utf-8")
    return Daemon(load_config(path))


def test_an_idle_tick_reads_the_games_once_and_sees_a_gm_command(tmp_path: Path) -> None:
    daemon = _board(tmp_path, 6)
    daemon.tick()  # deals
    daemon.tick()
    seen = _statements(daemon.store)
    daemon.tick()
    assert len(seen) <= 4, seen  # the heads, the board's PM mark, the write queue: not a query a game
    game = daemon.store.game_id("g3")
    assert game is not None
    before = daemon.served[game].driver.state()
    other = Store(daemon.store.url)
    GameDriver(other, OfflineForum(), game).gm("extend", "测试顺延", daemon.clock.now(), hours=3)
    other.close()
    daemon.tick()
    after = daemon.served[game].driver.state()
    assert after.data.get("gm_log") and not before.data.get("gm_log")
    daemon.store.close()


# ---- issue 37: what this process wrote is not read again ---------------------------------


def _outbox_reads(store: Store) -> list[str]:
    """The SELECTs of outbox rows (not the seq a step's rows take) the store runs from now on."""
    seen: list[str] = []

    def statement(_conn, _cursor, sql: str, *_: object) -> None:
        if sql.lstrip().startswith("SELECT outbox."):
            seen.append(sql)

    event.listen(store.engine, "before_cursor_execute", statement)
    return seen


def test_the_driver_sends_and_settles_what_it_wrote_without_reading_the_outbox(env: Env) -> None:
    env.driver.flush()
    _night_pms(env)
    reads = _outbox_reads(env.store)
    env.driver.advance(env.clock.now())  # three receipts
    env.goto(env.due())
    env.driver.advance(env.clock.now())  # dawn: its posts are settled, then sent
    assert reads == []
    assert env.store.pending_outbox(env.game_id) == []
    assert len(gm_pms(env.board, "丙")) == 2 and any("第1夜结束" in p for p in env.gm_posts())


def test_rows_another_process_queued_are_read_and_sent(env: Env) -> None:
    env.driver.flush()
    posts = len(env.gm_posts())
    _admin_extend(env, 1)  # its announcement waits in the outbox for this process to send
    assert env.driver.flush() == 1
    assert len(env.gm_posts()) == posts + 1 and env.store.pending_outbox(env.game_id) == []


def _transactions(store: Store) -> list[list[str]]:
    """The statements of each transaction the store runs from now on (their first words)."""
    done: list[list[str]] = [[]]
    event.listen(store.engine, "before_cursor_execute", lambda *a: done[-1].append(" ".join(a[2].split()[:3])))
    event.listen(store.engine, "commit", lambda *_: done.append([]))
    event.listen(store.engine, "rollback", lambda *_: done.append([]))
    return done


def test_marks_are_written_with_the_steps_not_alone(env: Env) -> None:
    """The read positions go with the run of inputs they lead to, and the window checked
    after a deadline is cleared in the next step's commit: no transaction writes marks alone."""
    env.driver.flush()
    done = _transactions(env.store)
    _night_pms(env)
    env.driver.advance(env.clock.now())
    env.goto(env.due())
    env.driver.advance(env.clock.now())  # dawn, its window checked once sent
    env.goto(env.at(1))
    env.board.pm("丙", GM, "今天投谁")
    env.driver.advance(env.clock.now())
    alone = [t for t in done if t and all(s == "INSERT INTO marks" for s in t)]
    assert alone == []
    assert env.store.marks(env.game_id)["window"] == ""  # the dawn's window, cleared with the PM's step


def test_the_inputs_and_the_deadline_after_them_are_one_transaction(env: Env) -> None:
    """Nothing had to reach the board before the count: the night's PMs and its end are
    written together."""
    env.driver.flush()
    _night_pms(env)
    env.goto(env.due())
    seen = _statements(env.store)
    assert env.driver.advance(env.clock.now()) == 4
    # each input stored once (issue 37, migration 0007): its event is its inbound row's
    assert [s for s in seen if s.startswith("INSERT INTO events")] == []
    assert "SELECT coalesce" not in seen  # the newest outbox seq: as this process wrote it, not read
    assert [e.kind for e in env.store.events(env.game_id)] == ["setup", "pm", "pm", "pm", "deadline"]
    assert env.driver.state().phase.label == "day 1"
    assert any("第1夜结束" in p for p in env.gm_posts())


def test_a_classic_10_rehearsal_takes_at_most_16_transactions(db_url: str) -> None:
    """Issue 37: one transaction an advance for its steps, its marks and what the advance
    before it sent (the last flush recorded at once); 25 when each flush had its own."""
    store = Store(db_url, durable=False)
    store.upgrade()
    done = _transactions(store)
    result = rehearse("classic_10", 1, db_url, store=store, name="tx-count")
    assert result.winner
    assert len([t for t in done if t]) <= 16
    alone = [t for t in done if t and all(s.startswith("UPDATE outbox") for s in t)]
    assert len(alone) <= 1  # the last flush's own (no step comes after it)
    assert store.pending_outbox(result.game_id) == []  # the last flush's too
    # a run's last state and the players' rows as it left them are what is stored
    assert store.load_game(result.game_id).state_json == result.state.model_dump_json()
    with store.engine.connect() as conn:
        rows = conn.execute(select(PlayerRow.name, PlayerRow.alive).where(PlayerRow.game_id == result.game_id))
        assert dict(rows.all()) == {p.name: p.alive for p in result.state.players}
    assert not all(p.alive for p in result.state.players)
    store.close()


def test_a_rehearsal_builds_its_spec_once_per_process(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sign-up, driver and rehearsal share one spec object (`specs.shared_spec`), not a new
    copy of the variant each (issue 37)."""
    store = Store(db_url, durable=False)
    store.upgrade()
    rehearse("classic_10", 1, db_url, store=store, name="spec-warm")
    built: list[str] = []
    validate = RulesetSpec.model_validate.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(RulesetSpec, "model_validate",
                        classmethod(lambda cls, data, **kw: built.append(data.get("id")) or validate(cls, data, **kw)))
    rehearse("classic_10", 2, db_url, store=store, name="spec-again")
    assert built == []
    store.close()


def test_a_shared_spec_is_read_again_when_its_file_changes(tmp_path: Path) -> None:
    variant = tmp_path / "mine.toml"
    variant.write_text('include = ["classic_10"]\nname = "我的变体"\n', encoding="utf-8")
    first = shared_spec(str(variant))
    assert shared_spec(str(variant)) is first and first.name == "我的变体"
    variant.write_text('include = ["classic_10"]\nname = "改过的变体"\n', encoding="utf-8")
    assert shared_spec(str(variant)).name == "改过的变体"
    assert load_spec(str(variant)) is not load_spec(str(variant))  # load_spec: a copy the caller may change


def test_an_input_whose_fold_failed_is_read_again(env: Env) -> None:
    """The inputs folded before it are written; the read positions are not, so the failed
    one comes back at the next advance.  A run folds in place (issue 37): the failed fold
    wrote into the run's state before it failed, and what is written is the state the
    inputs before it fold to, not that half-changed one."""
    env.driver.flush()
    env.goto(env.at(1))
    env.board.pm("丙", GM, "占卜 甲")
    env.board.pm("庚", GM, "天神你好")
    env.goto(env.at(1.5))  # both older than the settle time: the PM mark would pass them
    real = env.driver.ruleset.apply_in_place

    def failing(state, event):  # type: ignore[no-untyped-def]
        if getattr(event, "text", "") == "天神你好":
            state.players[0].alive = False  # half-way through the fold
            state.data["broken"] = True
            raise RuntimeError("a bug in the rules")
        return real(state, event)

    env.driver.ruleset.apply_in_place = failing  # type: ignore[method-assign]
    try:  # the ruleset is shared by every game of its spec in this process: put back whatever happens
        with pytest.raises(RuntimeError):
            env.driver.advance(env.clock.now())
    finally:
        del env.driver.ruleset.apply_in_place
    assert env.driver.ruleset.apply_in_place == real
    assert [i.text for i in env.store.inbound(env.game_id)] == ["占卜 甲"]
    folded = list(steps(env.driver.ruleset, env.store.events(env.game_id)))[-1].outcome.state.model_dump_json()
    assert env.store.load_game(env.game_id).state_json == folded
    assert env.driver.state().model_dump_json() == folded and "broken" not in folded
    assert env.driver.advance(env.clock.now()) == 1
    assert [i.text for i in env.store.inbound(env.game_id)] == ["占卜 甲", "天神你好"]
    folded = list(steps(env.driver.ruleset, env.store.events(env.game_id)))[-1].outcome.state.model_dump_json()
    assert env.store.load_game(env.game_id).state_json == folded


def test_a_step_that_failed_after_its_fold_in_place_is_not_written(env: Env) -> None:
    """The run's state had the input folded in (in place) when what follows the fold failed
    (here the outbox rows' marking, which may read the store): the inputs before it are
    written with the state they fold to, without the failed one's changes."""
    env.driver.flush()
    env.goto(env.at(1))
    env.board.pm("庚", GM, "天神你好")
    env.board.pm("丙", GM, "占卜 甲")  # changes the state: the night's check
    env.goto(env.at(1.5))
    real, calls = env.driver._marked, []

    def failing(items):  # type: ignore[no-untyped-def]
        calls.append(items)
        if len(calls) == 2:  # the second input's, after its fold
            raise RuntimeError("the store went away")
        return real(items)

    env.driver._marked = failing  # type: ignore[method-assign]
    with pytest.raises(RuntimeError):
        env.driver.advance(env.clock.now())
    assert [i.text for i in env.store.inbound(env.game_id)] == ["天神你好"]
    folded = list(steps(env.driver.ruleset, env.store.events(env.game_id)))[-1].outcome.state.model_dump_json()
    assert env.store.load_game(env.game_id).state_json == folded == env.driver.state().model_dump_json()
    env.driver._marked = real  # type: ignore[method-assign]
    assert env.driver.advance(env.clock.now()) == 1
    folded = list(steps(env.driver.ruleset, env.store.events(env.game_id)))[-1].outcome.state.model_dump_json()
    assert env.store.load_game(env.game_id).state_json == folded


def test_a_run_of_inputs_is_folded_on_one_copy(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 37: a run folds in place into one copy of the state it starts from, not a copy
    a step (`Ruleset.apply`); the state it started from is not changed, and what is written
    is what its events fold to."""
    _night_pms(env)
    before = env.driver.state()
    kept = before.model_dump_json()
    copies: list[object] = []
    real, copied = Ruleset.apply, GameState.copy
    monkeypatch.setattr(Ruleset, "apply", lambda self, state, event: copies.append(event) or real(self, state, event))
    monkeypatch.setattr(GameState, "copy", lambda self, **kw: copies.append(self) or copied(self, **kw))
    assert env.driver.advance(env.clock.now()) == 3
    monkeypatch.undo()
    assert len(copies) == 1
    assert before.model_dump_json() == kept
    folded = list(steps(env.driver.ruleset, env.store.events(env.game_id)))[-1].outcome.state.model_dump_json()
    assert env.store.load_game(env.game_id).state_json == folded == env.driver.state().model_dump_json()


def test_a_game_created_and_dealt_at_once_is_dealt_once(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`GameDriver.create` deals with the setup it tried at sign-up (issue 37): the role list
    is still checked before the game is stored, the deal is not made a second time."""
    store = Store(db_url)
    store.upgrade()
    made: list[object] = []
    real = Ruleset.setup
    monkeypatch.setattr(Ruleset, "setup", lambda self, setup: made.append(setup) or real(self, setup))
    forum = RecordingForum(MemoryBoard(VirtualClock(START).now))
    forum.login()
    setup = GameSetup(seats=[Seat(name=n) for n in ROLES], seed=7, start=START, fixed_roles=ROLES)
    driver = GameDriver.create(store, forum, "once", "classic_10", setup)
    assert len(made) == 1
    assert driver.state().phase.label == "night 1" and len(driver.state().players) == len(ROLES)
    store.close()


def test_a_steps_statements_skip_sqlalchemys_execution_layer_but_not_its_events(env: Env) -> None:
    """A step's and a flush's statements run on the transaction's cursor, compiled once
    (issue 37); the engine's cursor events still see each of them, and a refused write is
    SQLAlchemy's IntegrityError, the transaction rolled back."""
    env.driver.flush()
    seen = _statements(env.store)
    compiled: list[object] = []  # writes run through Connection.execute (compiled per call)
    event.listen(env.store.engine, "before_execute", lambda *a: compiled.append(a[1]) if a[1].is_dml else None)
    _night_pms(env)
    env.goto(env.due())
    env.driver.advance(env.clock.now())
    step = {"WITH g AS"} if env.store.engine.dialect.name == "postgresql" else {  # (one statement: `_pg_step`)
        "UPDATE games SET", "INSERT INTO inbound", "INSERT INTO outbox"}
    assert step | {"UPDATE outbox SET"} <= {" ".join(s.split()[:3]) for s in seen}
    assert compiled == []
    seq, stored = env.store.step_seq(env.game_id), env.store.inbound(env.game_id)[0]
    then = Step(inbound=None, event_kind="gm", event_payload="{}", phase_label="x", state_json="{}",
                status="running", deadline_at=None, winner=None, players=None, outbox=[], at=env.clock.now())
    with pytest.raises(IntegrityError):  # an input stored already: nothing of the steps is written
        env.store.commit_step(env.game_id, inbound=stored, event_kind="pm", event_payload="{}", phase_label="x",
                              state_json="{}", status="running", deadline_at=None, winner=None, players=None,
                              outbox=[OutboxItem(kind="post", target="main", body="不该发出")], then=[then])
    assert env.store.step_seq(env.game_id) == seq and env.store.load_game(env.game_id).phase_label != "x"
    assert all(r.body != "不该发出" for r in env.store.pending_outbox(env.game_id) + env.store.outbox(env.game_id))


def test_a_pooled_postgresql_connection_is_tried_only_after_lying_idle(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """No SELECT 1 before each of a busy process's transactions (issue 37), yet a connection
    that lay idle and died meanwhile (a restarted server) is replaced, not used."""
    if not db_url.startswith("postgresql"):
        pytest.skip("the pool's ping is PostgreSQL's")
    store = Store(db_url)
    store.upgrade()
    pings: list[bool] = []
    real = store_module._ping
    monkeypatch.setattr(store_module, "_ping", lambda conn: pings.append(True) or real(conn))
    for _ in range(5):
        store.list_games()
    assert pings == []  # used a moment ago: taken as it is
    with store.engine.connect() as conn:
        pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar()
    _lay_dead_and_idle(db_url, pid, monkeypatch)
    store.list_games()  # the dead connection is tried, fails, and a new one serves
    assert pings
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT pg_backend_pid()").scalar() != pid
    store.close()


def test_a_utc_time_goes_to_sqlite_as_its_text_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On SQLite a UTC time (every time the store writes) becomes its text without
    `UTCDateTime` and SQLAlchemy's format (issue 37), the same text; another zone is still
    turned into UTC and a naive time still refused, as the type layer does."""
    from datetime import UTC, datetime, timezone

    from sqlalchemy import bindparam, insert

    from tianshen.store.models import UTCDateTime

    calls: list[object] = []
    real = UTCDateTime.process_bind_param
    monkeypatch.setattr(UTCDateTime, "process_bind_param",
                        lambda self, value, dialect: calls.append(value) or real(self, value, dialect))
    store = Store(f"sqlite:///{tmp_path}/t.db")
    store.upgrade()
    table = store_module._E
    with store.engine.connect() as conn:  # a statement of its own: compiled after the patch
        fast = store_module._fast(conn, "test-utc", lambda: insert(table).values(
            created_at=bindparam("created_at", type_=table.c.created_at.type)))
    (_, _, _, proc), = (b for b in fast.binds if b[0] == "created_at")
    calls.clear()
    at = datetime(2026, 12, 6, 13, 1, 2, 5, tzinfo=UTC)
    assert proc(at) == "2026-12-06 13:01:02.000005" and calls == []
    assert proc(datetime(2026, 12, 6, 21, 1, 2, tzinfo=timezone(timedelta(hours=8)))) == "2026-12-06 13:01:02.000000"
    with pytest.raises(ValueError, match="naive"):
        proc(datetime(2026, 12, 6, 13, 1, 2))
    store.close()


def test_a_few_rows_go_to_postgresql_one_by_one(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """psycopg runs an executemany in a pipeline, dearer than an execute a row below five rows
    (issue 37): a step's three marks and three outbox rows go as one statement each (one
    JSON parameter: one round trip, not three), a flush's parts recorded alike go as one statement (see
    `test_a_flushs_pms_are_recorded_on_postgresql_as_one_statement`), their rowcount tells
    a row that is not there."""
    if not db_url.startswith("postgresql"):
        pytest.skip("psycopg's executemany")
    import psycopg

    from tianshen.store import SentPart

    store = Store(db_url)
    store.upgrade()
    game_id = store.create_game(f"few-{id(store)}", "classic_10", 1, {}, "{}", "night 1", None, [])
    many: list[int] = []
    real, one = psycopg.Cursor.executemany, psycopg.Cursor.execute
    monkeypatch.setattr(psycopg.Cursor, "executemany", lambda self, q, p, **k: many.append(len(p)) or real(self, q, p, **k))
    executed: list[str] = []
    monkeypatch.setattr(psycopg.Cursor, "execute", lambda self, q, p=None, **k: executed.append(
        " ".join(str(q).split()[:3])) or one(self, q, p, **k))
    store.commit_step(game_id, inbound=None, event_kind="gm", event_payload="{}", phase_label="night 1",
                      state_json="{}", status="running", deadline_at=None, winner=None, players=None,
                      outbox=[OutboxItem(kind="pm", target=f"p{n}", body=f"第{n}条") for n in range(3)],
                      marks={"a": "1", "b": "2", "c": "3"}, expected_seq=0)
    # the whole step one statement (`store._pg_step`): its marks and outbox rows JSON parameters
    assert executed.count("WITH g AS") == 1 and not any(s.startswith(("INSERT", "UPDATE")) for s in executed)
    assert many == []
    rows = store.pending_outbox(game_id)
    assert [r.body for r in rows] == ["第0条", "第1条", "第2条"] and len({r.id for r in rows}) == 3
    assert store.marks(game_id) == {"a": "1", "b": "2", "c": "3"}
    store.record_parts([SentPart(outbox_id=r.id, parts_done=1, done=True, game_id=game_id) for r in rows[:2]])
    assert [r.body for r in store.pending_outbox(game_id)] == ["第2条"]
    with pytest.raises(KeyError):  # one of three not there: the summed rowcount tells, nothing recorded
        store.record_parts([SentPart(outbox_id=i, parts_done=1, done=True, game_id=game_id)
                            for i in (rows[2].id, 10**9, 10**9 + 1)])
    assert [r.body for r in store.pending_outbox(game_id)] == ["第2条"]
    executed.clear()  # a phase change: the ended phase and the new one, one statement
    store.commit_step(game_id, inbound=None, event_kind="gm", event_payload="{}", phase_label="day 1",
                      state_json="{}", status="running", deadline_at=None, winner=None, players=None, outbox=[])
    assert executed.count("WITH g AS") == 1 and "INSERT INTO phases" not in executed  # (in the step's)
    assert [(p.label, p.ended_at is None) for p in store.phases(game_id)] == [("night 1", False), ("day 1", True)]
    assert many == []
    store.close()


def test_a_flushs_pms_are_recorded_on_postgresql_as_one_statement(db_url: str) -> None:
    """Issue 37: the parts of a flush are one UPDATE on PostgreSQL, every record (the PMs
    alike, a post with its own ref and board time) a row of one JSON parameter.  On SQLite
    one set of parameters for the alike ones on consecutive ids (their range), the post its own."""
    from tianshen.store import SentPart

    store = Store(db_url)
    store.upgrade()
    game_id = store.create_game(f"alike-{id(store)}", "classic_10", 1, {}, "{}", "night 1", None, [])
    items = [OutboxItem(kind="pm", target=f"p{n}", body=f"第{n}条") for n in range(6)]
    store.commit_step(game_id, inbound=None, event_kind="gm", event_payload="{}", phase_label="night 1",
                      state_json="{}", status="running", deadline_at=None, winner=None, players=None,
                      outbox=[*items, OutboxItem(kind="post", target="main", body="公告")], expected_seq=0)
    rows = store.pending_outbox(game_id)
    sets: list[int] = []
    event.listen(store.engine, "before_cursor_execute", lambda *a: sets.append(len(a[3]) if a[5] else 1)
                 if a[2].startswith("UPDATE outbox") else None)
    store.record_parts([SentPart(outbox_id=r.id, parts_done=1, done=True, game_id=game_id,
                                 forum_ref="7" if r.kind == "post" else None,
                                 board_at=START if r.kind == "post" else None) for r in rows])
    assert sets == ([1] if store.engine.dialect.name == "postgresql" else [2])
    assert store.pending_outbox(game_id) == []
    assert [(r.status, r.forum_ref, r.board_at) for r in store.outbox(game_id)] == [("sent", None, None)] * 6 + [
        ("sent", "7", START)]
    store.close()



def test_a_rows_parts_recorded_in_one_flush_end_at_its_last_part(db_url: str) -> None:
    """The records of one flush may hold a row's parts one after the other (a long message
    in two) beside another row's record alike to its last part: the row ends at its last
    part, sent, on every database (grouping the alike records by value ran the row's last
    part with the other row's, then its first part after it: part 2 would go out again)."""
    from tianshen.store import SentPart

    store = Store(db_url)
    store.upgrade()
    game_id = store.create_game(f"parts-{id(store)}", "classic_10", 1, {}, "{}", "night 1", None, [])
    store.commit_step(game_id, inbound=None, event_kind="gm", event_payload="{}", phase_label="night 1",
                      state_json="{}", status="running", deadline_at=None, winner=None, players=None,
                      outbox=[OutboxItem(kind="pm", target=f"p{n}", body=f"第{n}条") for n in range(3)],
                      expected_seq=0)
    resumed, long, other = store.pending_outbox(game_id)
    store.record_parts([SentPart(outbox_id=resumed.id, parts_done=1, done=False, game_id=game_id)])
    store.record_parts([SentPart(outbox_id=resumed.id, parts_done=2, done=True, game_id=game_id),
                        SentPart(outbox_id=long.id, parts_done=1, done=False, game_id=game_id),
                        SentPart(outbox_id=long.id, parts_done=2, done=True, game_id=game_id),
                        SentPart(outbox_id=other.id, parts_done=1, done=True, game_id=game_id)])
    assert store.pending_outbox(game_id) == []
    assert [(r.status, r.parts_done) for r in store.outbox(game_id)] == [("sent", 2), ("sent", 2), ("sent", 1)]
    store.close()

def _alone(tmp_path: Path) -> Env:
    """A classic_10 game on a rehearsal's own board (`create(alone=True)`), night 1 open."""
    clock = VirtualClock(START)
    board = MemoryBoard(clock.now)
    forum = RecordingForum(board)
    forum.login()
    store = Store(f"sqlite:///{tmp_path / 'alone.db'}", durable=False)
    store.upgrade()
    setup = GameSetup(seats=[Seat(name=n) for n in ROLES], seed=7, start=START, fixed_roles=ROLES)
    driver = GameDriver.create(store, forum, "g1", "classic_10", setup, alone=True)
    driver.trust_cache = True  # as `rehearse`: no one else writes its game
    return Env(clock, board, forum, store, driver)


def test_a_rehearsals_flush_is_recorded_with_its_next_step(tmp_path: Path) -> None:
    """Issue 37: on a rehearsal's own board (it drops a repeated key) what a flush sent is
    written in the next step's transaction, not in one of its own; this process's queue
    knows it went out at once."""
    env = _alone(tmp_path)
    done = _transactions(env.store)
    _night_pms(env)
    env.driver.advance(env.clock.now())  # three receipts, sent
    assert env.store.queued(env.game_id) == []
    other = Store(env.store.url)  # another reader: not recorded yet
    assert len(other.pending_outbox(env.game_id)) == 3
    env.goto(env.due())
    env.driver.advance(env.clock.now())  # dawn: the receipts recorded with its step
    steps = [t for t in done if any(s.startswith("UPDATE games") for s in t)]
    assert len(steps) == 2 and any(s.startswith("UPDATE outbox") for s in steps[1])
    assert not [t for t in done if t and all(s.startswith("UPDATE outbox") for s in t)]
    receipts = [r for r in other.outbox(env.game_id) if r.key.split(":")[1] in ("2", "3", "4")]
    assert len(receipts) == 3 and all(r.status == "sent" for r in receipts)
    assert other.pending_outbox(env.game_id) != []  # the dawn's posts: not recorded yet
    # a read of this store (an ORM session) writes them first: it sees what went out
    assert [r.key for r in env.store.outbox(env.game_id) if r.status != "sent"] == []
    assert other.pending_outbox(env.game_id) == []
    other.close()


def test_a_rehearsal_killed_before_recording_sends_again_and_the_board_keeps_one_copy(tmp_path: Path) -> None:
    """Killed between a flush and the step that records it: the rows are still pending in
    the database; the restarted driver sends them again, the board drops the repeated keys
    (one copy each on the board) and the rows are recorded sent."""
    env = _alone(tmp_path)
    _night_pms(env)
    env.driver.advance(env.clock.now())  # three receipts, sent; the process dies before its next step
    before = len(gm_pms(env.board, "丙")), len(gm_pms(env.board, "庚")), len(gm_pms(env.board, "辛"))
    env.restart()  # the unrecorded parts died with the old store
    assert len(env.store.pending_outbox(env.game_id)) == 3
    assert env.driver.flush() == 3
    assert (len(gm_pms(env.board, "丙")), len(gm_pms(env.board, "庚")), len(gm_pms(env.board, "辛"))) == before
    assert env.store.pending_outbox(env.game_id) == []


def test_a_sqlite_store_keeps_one_connection_between_its_transactions(tmp_path: Path) -> None:
    """Issue 37: the hot transactions of a rehearsal's SQLite store (not durable) take no
    connection from the pool each (a third of an empty transaction's CPU); one that fails
    gives it back, and after `engine.dispose()` (a database healed) the kept one is closed
    and a new one is used.  A durable store (the daemon's, the web's) keeps none."""
    durable = Store(f"sqlite:///{tmp_path / 'd.db'}")
    durable.upgrade()
    taken: list[object] = []
    event.listen(durable.engine, "checkout", lambda dbapi, *_: taken.append(dbapi))
    durable.list_games(), durable.list_games(), durable.heads(("",))
    assert len(taken) == 3
    durable.close()
    store = Store(f"sqlite:///{tmp_path / 'k.db'}", durable=False)
    store.upgrade()
    checkouts: list[object] = []
    event.listen(store.engine, "checkout", lambda dbapi, *_: checkouts.append(dbapi))
    game_id = store.create_game(name="kept", ruleset="classic_10", seed=1, config={}, state_json="{}",
                                phase_label="setup", deadline_at=None, players=[], status="new")
    for _ in range(3):
        store.load_game(game_id)
        store.step_seq(game_id)
    assert len(checkouts) == 1
    with pytest.raises(KeyError):
        store.load_game(game_id + 1)  # (not a failed transaction: the connection stays)
    with pytest.raises(RuntimeError), store._conn():
        raise RuntimeError("a step that failed")
    store.load_game(game_id)
    assert len(checkouts) == 2  # given back when its transaction failed
    first = checkouts[-1]
    store.engine.dispose()
    store.load_game(game_id)
    assert len(checkouts) == 3 and checkouts[-1] is not first
    with pytest.raises(Exception, match="closed"):
        first.execute("SELECT 1")  # the disposed pool's connection was closed, not used again
    store.close()


def test_a_fast_statements_values_are_processed_once_a_name() -> None:
    """A statement that binds one value several times (a flush's record binds `done` four
    times) runs its processor once a row; constants are processed when compiled; the
    values come out in the binds' order, named for a driver that names them."""
    calls: list[object] = []

    def proc(value: object) -> object:
        calls.append(value)
        return f"<{value}>"

    binds = (("a", True, None, proc), ("b", True, None, None), ("a", True, None, proc), ("k", False, 7, proc),
             ("c", False, None, None))
    fast = store_module._Fast("UPDATE t SET …", True, binds)
    assert fast.params({"a": 1, "b": 2, "k": 99, "c": 3}) == ("<1>", 2, "<1>", "<7>", None)
    assert fast.params({"a": 4, "b": 5}) == ("<4>", 5, "<4>", "<7>", None)
    assert calls == [7, 1, 4]  # the constant once, then `a` once a row
    named = store_module._Fast("UPDATE t SET …", False, binds[:2])
    assert named.params({"a": 1, "b": 2}) == {"a": "<1>", "b": 2}
    assert store_module._Fast("SELECT 1", True, ()).params({}) == ()


def test_records_on_sqlite_join_only_neighbours_alike_and_keep_a_rows_parts_in_order(tmp_path: Path) -> None:
    """The ranges of `_record` on SQLite: a gap in the ids or a different record starts a new
    range, and a row's second part recorded in the same batch still comes after its first."""
    from tianshen.store import SentPart

    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    store.upgrade()
    game_id = store.create_game("ranges", "classic_10", 1, {}, "{}", "night 1", None, [])
    items = [OutboxItem(kind="pm", target=f"p{n}", body=f"第{n}条") for n in range(5)]
    store.commit_step(game_id, inbound=None, event_kind="gm", event_payload="{}", phase_label="night 1",
                      state_json="{}", status="running", deadline_at=None, winner=None, players=None,
                      outbox=items, expected_seq=0)
    a, b, c, d, e = (r.id for r in store.pending_outbox(game_id))
    sets: list[list] = []
    event.listen(store.engine, "before_cursor_execute", lambda *x: sets.append(x[3] if x[5] else [x[3]])
                 if x[2].startswith("UPDATE outbox") else None)
    store.record_parts([SentPart(outbox_id=i, parts_done=1, done=True, game_id=game_id) for i in (a, b, d, e)]
                       + [SentPart(outbox_id=c, parts_done=1, done=False, game_id=game_id),
                          SentPart(outbox_id=c, parts_done=2, done=True, game_id=game_id, forum_ref="9")])
    assert [(p[-2], p[-1]) for p in sets[0]] == [(a, b), (d, e), (c, c), (c, c)]
    assert [(r.status, r.parts_done, r.forum_ref) for r in store.outbox(game_id)] == [
        ("sent", 1, None), ("sent", 1, None), ("sent", 2, "9"), ("sent", 1, None), ("sent", 1, None)]
    store.close()


def test_a_hot_statements_none_time_skips_the_type_layer() -> None:
    """A None time (a new outbox row's `sent_at`, an open phase's end) is bound as None at
    once, not through `UTCDateTime` (issue 37); a time still gives SQLAlchemy's text, and a
    boolean's processor is used as it is."""
    from sqlalchemy import Boolean

    from tianshen.store.models import UTCDateTime

    calls: list[object] = []
    proc = UTCDateTime().bind_processor(create_engine("sqlite://").dialect)

    def counted(value: object) -> object:
        calls.append(value)
        return proc(value)

    quick = store_module._quick(UTCDateTime(), "sqlite", counted)
    calls.clear()
    assert quick(None) is None and quick(None) is None and calls == []
    assert quick(START) == proc(START)
    assert store_module._quick(Boolean(), "sqlite", counted) is counted


def test_a_rehearsals_postgresql_store_keeps_its_connection_and_tries_it_after_lying_idle(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rehearsal's store on PostgreSQL keeps one connection between its transactions (no
    checkout and return a transaction: about 60 µs of client CPU each), and one that lay idle
    and died meanwhile (a restarted server) is tried, found dead and replaced, not used."""
    if not db_url.startswith("postgresql"):
        pytest.skip("PostgreSQL's kept connection")
    store = Store(db_url, durable=False)
    store.upgrade()
    checkouts: list[object] = []
    event.listen(store.engine, "checkout", lambda dbapi, *_: checkouts.append(dbapi))
    for _ in range(3):
        store.heads(("",))
    assert len(checkouts) == 1
    with store._conn() as conn:
        pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar()
    _lay_dead_and_idle(db_url, pid, monkeypatch)
    store.heads(("",))  # tried, dead: a new one serves
    with store._conn() as conn:
        assert conn.exec_driver_sql("SELECT pg_backend_pid()").scalar() != pid
    store.close()


def test_a_rehearsal_writes_its_state_now_and_then_and_every_reader_gets_the_newest(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 37: a rehearsal's commits leave the stored state behind its events (up to
    `STATE_EVERY` seqs; its JSON is about a twentieth of a rehearsal's CPU), the last one
    writes it.  After every commit another store's `load_game` gives the state the events
    fold to, byte for byte (core.fold, the audit's own replay)."""
    from tianshen.core.fold import fold
    from tianshen.rules import game_ruleset
    from tianshen.service import driver as driver_module

    store = Store(db_url, durable=False)
    store.upgrade()
    other = Store(db_url)
    behind: list[int] = []
    committed = Store.commit_step

    def checked(self: Store, game_id: int, **kw):  # type: ignore[no-untyped-def]
        seq = committed(self, game_id, **kw)
        record = other.load_game(game_id)
        with other.engine.connect() as conn:
            state_seq, step_seq = conn.execute(select(store_module._G.c.state_seq, store_module._G.c.step_seq)
                                               .where(store_module._G.c.id == game_id)).one()
        if state_seq is not None:
            behind.append(step_seq - state_seq)
        folded = fold(game_ruleset(record.ruleset, record.config), other.events(game_id))
        assert folded is not None and record.state_json == folded.model_dump_json()
        return seq

    monkeypatch.setattr(Store, "commit_step", checked)
    result = rehearse("classic_10", 3, db_url, store=store, name="behind-3")
    assert behind and max(behind) < driver_module.STATE_EVERY  # behind at some commits, never far
    with store.engine.connect() as conn:
        assert conn.execute(select(store_module._G.c.state_seq).where(
            store_module._G.c.id == result.game_id)).scalar() is None  # the end written
    assert store.load_game(result.game_id).state_json == result.state.model_dump_json()
    other.close()
    store.close()


def test_a_rehearsal_killed_while_its_state_is_behind_goes_on_from_the_newest(tmp_path: Path) -> None:
    """Killed after a commit that left the stored state behind: the restarted driver reads
    the newest state (the events after the stored one folded), as the killed one had it."""
    env = _alone(tmp_path)
    _night_pms(env)
    env.driver.advance(env.clock.now())
    env.goto(env.due())
    env.driver.advance(env.clock.now())
    had = env.driver.state().model_dump_json()
    with env.store.engine.connect() as conn:
        assert conn.execute(select(store_module._G.c.state_seq)).scalar() is not None  # behind
    env.restart()
    assert env.driver.state().model_dump_json() == had
    env.goto(env.due())
    env.driver.advance(env.clock.now())  # goes on: the next commit folds on the newest state
    assert env.driver.state().phase.label != "night 1"


def test_a_game_created_here_is_signed_up_and_dealt_in_one_transaction(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 37: `GameDriver.create` writes the sign-up and the deal in one commit (the deal
    tried at sign-up is the deal); a deal that fails leaves no game behind."""
    store = Store(db_url, durable=False)
    store.upgrade()
    forum = RecordingForum(MemoryBoard(VirtualClock(START).now))
    forum.login()
    setup = GameSetup(seats=[Seat(name=n) for n in ROLES], seed=7, start=START, fixed_roles=ROLES)
    done = _transactions(store)
    driver = GameDriver.create(store, forum, "one-tx", "classic_10", setup, alone=True)
    first = next(t for t in done if t)
    step = ("WITH g AS",) if store.engine.dialect.name == "postgresql" else ("UPDATE games SET", "INSERT INTO outbox")
    assert first[0].startswith("INSERT INTO games") and all(any(s.startswith(w) for s in first) for w in step)
    record = store.load_game(driver.game_id)
    assert (record.status, record.step_seq) == ("running", 1)
    assert store.pending_outbox(driver.game_id) == []  # sent by create's flush
    monkeypatch.setattr(GameDriver, "_window_mark", lambda *a: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        GameDriver.create(store, forum, "no-deal", "classic_10", setup, alone=True)
    assert store.game_id("no-deal") is None
    store.close()


def test_an_input_said_all_by_its_inbound_row_is_stored_once_and_read_as_it_was_folded(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 37, migration 0009: a PM's, a post's and a deadline's JSON is neither made nor
    stored beside the inbound row that says it all (its `payload_json` is ''); every reader
    (`events`, `load_game`'s fold, the web's events) gets the JSON the driver folded."""
    from tianshen.core.model import DeadlineIn, PmIn, PostIn
    from tianshen.web.app import _events_after

    folded: dict[int, object] = {}
    original = GameDriver._folded

    def kept(self: GameDriver, seq: int, label: str, event, outcome, after: str) -> None:  # type: ignore[no-untyped-def]
        folded[seq] = event
        original(self, seq, label, event, outcome, after)

    monkeypatch.setattr(GameDriver, "_folded", kept)
    for cls in (PmIn, PostIn, DeadlineIn):
        monkeypatch.setattr(cls, "model_dump_json", lambda self: pytest.fail("an input's JSON made"))
    store = Store(db_url, durable=False)
    store.upgrade()
    result = rehearse("classic_10", 4, db_url, store=store, name="said-4")
    monkeypatch.undo()
    folded = {seq: e.model_dump_json() for seq, e in folded.items()}  # type: ignore[attr-defined]
    with store.engine.connect() as conn:
        payloads = conn.execute(select(store_module._I.c.payload_json)).scalars().all()
    assert len(payloads) == len(folded) > 50 and set(payloads) == {""}
    events = {e.seq: e.payload_json for e in store.events(result.game_id)}
    assert {seq: events[seq] for seq in folded} == folded
    web = {e.seq: e.payload_json for e in _events_after(store, result.game_id, 0, max(events))}
    assert web == events
    other = Store(db_url)  # a state behind its events, folded on read with the inputs made from their rows
    with store.engine.begin() as conn:
        conn.execute(store_module._G.update().values(state_json=_state_after(store, result.game_id, 1), state_seq=1))
    assert other.load_game(result.game_id).state_json == result.state.model_dump_json()
    other.close()
    store.close()


def _state_after(store: Store, game_id: int, seq: int) -> str:
    from tianshen.core.fold import fold
    from tianshen.rules import game_ruleset

    record = store.load_game(game_id)
    state = fold(game_ruleset(record.ruleset, record.config), store.events(game_id), before_seq=seq + 1)
    assert state is not None
    return state.model_dump_json()


def test_an_input_its_row_does_not_say_all_of_keeps_its_json(env: Env) -> None:
    """A post's first version (not a column of its row) and a time not in UTC (read back in
    UTC) are stored in the row's `payload_json` as before; a step without a payload whose
    row does not say its input is refused."""
    from datetime import timezone

    from tianshen.core.model import PmIn, PostIn
    from tianshen.service.driver import _inbound
    from tianshen.store.store import row_says

    env.goto(env.at(1))
    at = env.clock.now()
    edited = PostIn(id="p1", thread="main", author="丙", at=at, text="好", edited=True, original_text="坏")
    zoned = PmIn(id="m1", sender="丙", at=at.astimezone(timezone(timedelta(hours=8))), text="天神你好")
    plain = PmIn(id="m2", sender="丙", at=at, text="天神你好")
    for one in (edited, zoned, plain):
        assert env.driver.step(one) is not None
    with env.store.engine.connect() as conn:
        rows = dict(conn.execute(select(store_module._I.c.forum_id, store_module._I.c.payload_json)).all())
    assert rows == {"p1": edited.model_dump_json(), "m1": zoned.model_dump_json(), "m2": ""}
    stored = [e.payload_json for e in env.store.events(env.game_id)[-3:]]
    assert stored == [edited.model_dump_json(), zoned.model_dump_json(), plain.model_dump_json()]
    assert [row_says(e, _inbound(e)) for e in (edited, zoned, plain)] == [False, False, True]  # type: ignore[arg-type]
    inbound = _inbound(PmIn(id="m3", sender="丙", at=at, text="x"))
    with pytest.raises(ValueError, match="needs its payload"):
        env.store.commit_step(env.game_id, inbound=inbound, event_kind="gm", event_payload=None,
                              phase_label="night 1", state_json=None, status="running", deadline_at=None,
                              winner=None, players=None, outbox=[])


def test_a_hot_statements_time_is_processed_in_one_call() -> None:
    """A time bound by a hot statement goes through one Python function (issue 37), not
    three nested ones; a time last seen, a time not in UTC and a None as before."""
    import sys
    from datetime import timezone

    from tianshen.store.models import UTCDateTime

    proc = UTCDateTime()._cached_bind_processor(create_engine("sqlite://").dialect)  # (as compiled: a text)
    quick = store_module._quick(UTCDateTime(), "sqlite", proc)
    calls: list[str] = []
    sys.setprofile(lambda frame, what, arg: calls.append(frame.f_code.co_name) if what == "call" else None)
    try:
        text = quick(START + timedelta(seconds=1))
    finally:
        sys.setprofile(None)
    assert text == proc(START + timedelta(seconds=1)) and calls == ["process"]
    zoned = START.astimezone(timezone(timedelta(hours=8)))
    assert quick(zoned) == proc(zoned) and quick(zoned) == proc(zoned) and quick(START) == proc(START)
    assert quick(None) is None


def test_a_flushs_records_are_joined_into_ranges_from_the_parts_themselves() -> None:
    """Issue 37: on SQLite the records of a flush become ranges of ids straight from the
    parts sent (each record's values compared as one tuple, no dict a record first): alike
    records on consecutive ids join, another id, value or a row's next part starts a range."""
    from tianshen.store import SentPart

    at, later = START, START + timedelta(seconds=1)
    parts = [(SentPart(outbox_id=i, parts_done=1, done=True), at) for i in (3, 4, 5)]
    parts += [(SentPart(outbox_id=7, parts_done=1, done=True), at),  # an id skipped
              (SentPart(outbox_id=8, parts_done=1, done=False), at),  # a row's first part of two
              (SentPart(outbox_id=8, parts_done=2, done=True), at),  # and its second
              (SentPart(outbox_id=9, parts_done=1, done=True), later),  # another time
              (SentPart(outbox_id=10, parts_done=1, done=True, forum_ref="12", board_at=at), at)]
    runs = store_module._ranges(parts)
    assert [(r["lo"], r["hi"]) for r in runs] == [(3, 5), (7, 7), (8, 8), (8, 8), (9, 9), (10, 10)]
    assert runs[0] == dict(b_parts=1, b_ref=None, b_done=True, b_sent=at, b_board=None, lo=3, hi=5)
    assert [(r["b_parts"], r["b_done"]) for r in runs[2:4]] == [(1, False), (2, True)]
    assert (runs[4]["b_sent"], runs[5]["b_ref"], runs[5]["b_board"]) == (later, "12", at)
