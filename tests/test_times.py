"""Issue 23 items 1 and 2 (a GM's first game): every time is shown in the board's display zone
through one formatter, with a Chinese label; a start without an offset is read in that zone;
`admin new-game` refuses a start in the past and warns when the deal needs longer than the
time left; `run` starts a late game's clock at the deal and folds no deadline before it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from classic_helpers import ROLES_10
from tianshen.cli import app
from tianshen.config import load_config
from tianshen.core.clock import DEFAULT_ZONE, check_zone, duration, show, whole_minute
from tianshen.core.model import GameState
from tianshen.core.ruleset import GameSetup, Seat
from tianshen.forum.memory import MemoryBoard
from tianshen.rules import load_ruleset
from tianshen.service.daemon import Daemon
from tianshen.sim import DaemonPlayers

WIDE = {"COLUMNS": "300"}
EVENING = datetime.fromisoformat("2026-12-05T20:00:00+08:00")  # 12:00 UTC


# ---- the formatter ---------------------------------------------------------------------------


@pytest.mark.parametrize(("zone", "shown"), [
    ("Asia/Shanghai", "12月5日 20:00（北京时间）"),
    ("+08:00", "12月5日 20:00（北京时间）"),  # a Discuz board's timeoffset
    ("Asia/Tokyo", "12月5日 21:00（UTC+9）"),
    ("UTC", "12月5日 12:00（UTC）"),
    ("America/New_York", "12月5日 07:00（UTC-5）"),
    ("Asia/Kolkata", "12月5日 17:30（UTC+5:30）"),
])
def test_one_formatter_shows_the_time_in_the_zone_with_a_chinese_label(zone: str, shown: str) -> None:
    assert show(EVENING, zone) == shown
    assert show(EVENING.astimezone(UTC), zone) == shown  # the same moment, however it is written


def test_the_formatter_options_and_bad_zones() -> None:
    assert show(None) == "—"
    assert show(EVENING) == "12月5日 20:00（北京时间）"  # the default zone
    assert show(EVENING, year=True, seconds=True) == "2026年12月5日 20:00:00（北京时间）"
    assert check_zone("UTC+9") == "+09:00" and check_zone("Asia/Tokyo") == "Asia/Tokyo"
    with pytest.raises(ValueError, match="Asia/Shanghai"):
        check_zone("Mars/Olympus")


# ---- the zone reaches the rules as data --------------------------------------------------------


def _setup(start: datetime, zone: str = DEFAULT_ZONE) -> GameSetup:
    return GameSetup(seats=[Seat(name=n) for n in ROLES_10], seed=5, start=start, fixed_roles=ROLES_10,
                     salt="ab" * 16, zone=zone)


def test_a_start_at_20_beijing_time_is_shown_as_20_beijing_time() -> None:
    """The player list says when night 1 ends: 24 h after a 20:00+08:00 start is 20:00 北京时间,
    not `12:00 UTC` (nor, as before, the hour of the offset labelled UTC)."""
    outcome = load_ruleset("classic_10").setup(_setup(EVENING))
    [player_list] = [p.body for p in outcome.posts]
    assert "12月6日 20:00（北京时间）" in player_list, player_list
    assert "UTC" not in player_list
    assert outcome.state.zone == "Asia/Shanghai"
    tokyo = load_ruleset("classic_10").setup(_setup(EVENING, "Asia/Tokyo"))
    assert "12月6日 21:00（UTC+9）" in tokyo.posts[0].body


@pytest.mark.parametrize("variant", ["hex_survival_12", "n_lives", "butterfly_elder"])
def test_the_other_families_show_their_times_in_the_zone(variant: str) -> None:
    ruleset = load_ruleset(variant)
    seats = [Seat(name=f"玩家{i}") for i in range(ruleset.spec.players)]
    outcome = ruleset.setup(GameSetup(seats=seats, seed=3, start=EVENING, salt="ab" * 16))
    texts = [p.body for p in outcome.posts] + [m.body for m in outcome.pms]
    assert any("（北京时间）" in t for t in texts)
    assert not any("UTC" in t for t in texts)


def test_a_state_stored_before_the_zone_reads_as_the_default() -> None:
    state = load_ruleset("classic_10").setup(_setup(EVENING, "Asia/Tokyo")).state
    raw = state.model_dump(mode="json")
    raw.pop("zone")
    assert GameState.model_validate(raw).zone == DEFAULT_ZONE
    setup = _setup(EVENING).model_dump(mode="json")
    setup.pop("zone")
    assert GameSetup.model_validate(setup).zone == DEFAULT_ZONE


def test_a_replay_script_may_set_its_zone_and_a_start_without_offset(tmp_path: Path) -> None:
    from tianshen.replay import Script, replay

    script = Script.model_validate({"ruleset": "classic_8", "start": "2026-12-05T20:00:00", "zone": "Asia/Tokyo",
                                   "phase": [{"phase": "night 1"}]})
    assert script.start == datetime(2026, 12, 5, 11, tzinfo=UTC)
    result = replay(script, f"sqlite:///{(tmp_path / 'r.db').as_posix()}")
    first = result["phases"][0]["public"][0]
    assert "12月6日 20:00（UTC+9）" in first, first


# ---- admin new-game ---------------------------------------------------------------------------


def _config(tmp_path: Path, start: str, forum: str = "") -> Path:
    players = ", ".join(f'{{ name = "{n}" }}' for n in ROLES_10)
    path = tmp_path / "c.toml"
    path.write_text(f'[database]\nurl = "sqlite:///{(tmp_path / "g.db").as_posix()}"\n[forum]\nkind = "memory"\n'
                    f'{forum}[game]\nname = "g"\nruleset = "classic_10"\nseed = 3\n'
                    f'start = {start}\nplayers = [{players}]\n', encoding="utf-8")
    return path


def _new_game(path: Path):
    return CliRunner().invoke(app, ["admin", "new-game", "--config", str(path)], env=WIDE)


def test_admin_new_game_refuses_a_start_in_the_past(tmp_path: Path) -> None:
    result = _new_game(_config(tmp_path, "2026-03-01T20:00:00+08:00"))
    assert result.exit_code == 2, result.output
    [line] = result.output.strip().splitlines()
    assert "[game] start" in line and "in the past" in line and "2026年3月1日 20:00（北京时间）" in line, line
    assert "accepted:" in line and "start = " in line and "+08:00" in line, line
    assert not (tmp_path / "g.db").exists()


def test_admin_new_game_reads_a_start_without_offset_in_the_display_zone(tmp_path: Path) -> None:
    result = _new_game(_config(tmp_path, "2099-03-01T20:00:00"))
    assert result.exit_code == 0, result.output
    assert "starts 3月1日 20:00（北京时间）" in result.output, result.output
    status = CliRunner().invoke(app, ["admin", "status", "--config", str(tmp_path / "c.toml")], env=WIDE)
    assert "3月1日 20:00（北京时间）" in status.output, status.output
    from tianshen.store import Store

    store = Store(f"sqlite:///{(tmp_path / 'g.db').as_posix()}")
    record = store.load_game(store.game_id("g"))
    setup = GameSetup.model_validate(record.config["setup"])
    assert setup.start == datetime(2099, 3, 1, 12, tzinfo=UTC) and setup.zone == "Asia/Shanghai"
    store.close()
    started = CliRunner().invoke(app, ["admin", "start", "--config", str(tmp_path / "c.toml"),
                                       "--at", "2099-03-01T20:05"], env=WIDE)  # --at too: in the game's zone
    assert started.exit_code == 0, started.output
    store = Store(f"sqlite:///{(tmp_path / 'g.db').as_posix()}")
    [event] = store.events(store.game_id("g"))
    assert GameSetup.model_validate_json(event.payload_json).start == datetime(2099, 3, 1, 12, 5, tzinfo=UTC)
    store.close()


def test_admin_new_game_uses_the_configured_display_zone(tmp_path: Path) -> None:
    path = _config(tmp_path, "2099-03-01T20:00:00", forum='display_timezone = "Asia/Tokyo"\n')
    result = _new_game(path)
    assert result.exit_code == 0 and "starts 3月1日 20:00（UTC+9）" in result.output, result.output


def test_admin_new_game_warns_when_the_deal_needs_longer_than_the_time_left(tmp_path: Path) -> None:
    soon = (datetime.now(UTC) + timedelta(minutes=3)).isoformat()
    result = _new_game(_config(tmp_path, f'"{soon}"', forum="flood_interval_s = 60\n"))
    assert result.exit_code == 0, result.output
    warning = next(line for line in result.output.splitlines() if line.startswith("warning:"))
    assert "[game] start" in warning and "10 role PMs" in warning and "60 s" in warning and "11 min" in warning
    (tmp_path / "later").mkdir()
    later = _new_game(_config(tmp_path / "later", '"2099-03-01T20:00:00+08:00"', forum="flood_interval_s = 60\n"))
    assert later.exit_code == 0 and "warning" not in later.output, later.output


# ---- run: the clock starts at the deal --------------------------------------------------------


class Clock:
    def __init__(self, at: datetime) -> None:
        self.at = at

    def now(self) -> datetime:
        return self.at

    def real_at(self, game_time: datetime) -> datetime:
        return datetime.now(UTC) + (game_time - self.at)


def _daemon(tmp_path: Path, start: datetime, now: datetime, forum: str = "") -> Daemon:
    clock = Clock(now)
    board = MemoryBoard(clock.now)
    daemon = Daemon(load_config(_config(tmp_path, f'"{start.isoformat()}"', forum)), forum=board.gm(), clock=clock, players=DaemonPlayers())
    daemon.tick()
    return daemon


def test_run_deals_a_game_whose_start_is_past_now_and_folds_no_deadline_before_the_deal(tmp_path: Path) -> None:
    start = datetime(2026, 3, 1, 12, tzinfo=UTC)
    now = start + timedelta(days=3, minutes=7)
    daemon = _daemon(tmp_path, start, now)
    driver = daemon.driver("g")
    state = driver.state()
    assert state.phase.label == "night 1", state.phase.label
    assert all(p.alive for p in state.players)  # nobody removed for votes he could never cast
    [event] = [e for e in daemon.store.events(driver.game_id)]  # the deal, and nothing folded after it
    assert event.kind == "setup" and GameSetup.model_validate_json(event.payload_json).start == now
    assert driver.ruleset.next_deadline(state).at == now + timedelta(hours=24)
    player_list = next(o.body for o in daemon.store.outbox(driver.game_id) if o.kind == "post")
    assert show(now + timedelta(hours=24)) in player_list
    daemon.store.close()


def test_run_keeps_the_planned_start_of_a_deal_a_few_minutes_late(tmp_path: Path) -> None:
    start = datetime(2026, 3, 1, 12, tzinfo=UTC)
    daemon = _daemon(tmp_path, start, start + timedelta(minutes=2))  # within [run] late_window_minutes
    driver = daemon.driver("g")
    assert driver.ruleset.next_deadline(driver.state()).at == start + timedelta(hours=24)
    daemon.store.close()


def test_run_shows_the_times_in_the_configured_zone(tmp_path: Path) -> None:
    daemon = _daemon(tmp_path, EVENING, EVENING, forum='display_timezone = "Asia/Tokyo"\n')
    driver = daemon.driver("g")
    assert driver.state().zone == "Asia/Tokyo"
    player_list = next(o.body for o in daemon.store.outbox(driver.game_id) if o.kind == "post")
    assert "12月6日 21:00（UTC+9）" in player_list, player_list
    daemon.store.close()


# ---- issue 31 items 5 and 7: durations as people say them; extensions end on a whole minute ----


@pytest.mark.parametrize(("seconds", "said"), [
    (40, "40秒"), (60, "1分钟"), (72, "约1分钟"), (88, "约1分半钟"), (90, "1分半钟"), (660, "11分钟"),
    (661, "约11分钟"), (3600, "1小时"), (8100, "2小时15分"), (97200, "27小时"), (6 * 3600, "6小时"),
])
def test_a_duration_is_said_the_way_people_say_it(seconds: int, said: str) -> None:
    assert duration(timedelta(seconds=seconds)) == said


def test_whole_minute_rounds_up_only_between_minutes() -> None:
    t = datetime(2026, 12, 5, 23, 19, 47, tzinfo=UTC)
    assert whole_minute(t) == datetime(2026, 12, 5, 23, 20, tzinfo=UTC)
    assert whole_minute(t.replace(second=0)) == t.replace(second=0)


@pytest.mark.parametrize("variant", ["classic_10", "game_ten", "n_lives", "hex_survival_12", "butterfly_elder"])
def test_an_extension_of_seconds_ends_the_phase_on_a_whole_minute_and_says_so(variant: str) -> None:
    from tianshen.core.model import GmIn
    from tianshen.sim.rehearsal import default_seats

    ruleset = load_ruleset(variant)
    start = datetime(2026, 12, 5, 12, tzinfo=UTC)
    state = ruleset.setup(GameSetup(seats=default_seats(ruleset.spec.players), seed=1, start=start,
                                    salt="ab" * 16)).state
    end = ruleset.phase_ends_at(state)
    out = ruleset.apply(state, GmIn(id="gm:1", at=start, command="extend", args={"hours": 88 / 3600}, reason="迟到"))
    assert ruleset.phase_ends_at(out.state) == end + timedelta(minutes=2)
    [notice] = [p.body for p in out.posts if p.thread == "main"]
    assert "2分钟" in notice and "小时" not in notice.split("（")[0]


@pytest.mark.parametrize("variant", ["classic_8", "game_ten", "n_lives", "hex_survival_12", "butterfly_elder"])
def test_a_phase_started_between_two_minutes_ends_on_a_whole_minute(variant: str) -> None:
    """Issue 31 item 7: a deal at 07:19:47 (a start already past, dealt when the daemon came)
    or a GM advance at any second starts a phase whose end, and the vote thread's opening,
    fall on whole minutes, so 「至 07:20」 is the moment that counts."""
    from tianshen.core.model import GmIn
    from tianshen.sim.rehearsal import default_seats

    ruleset = load_ruleset(variant)
    start = datetime(2026, 12, 5, 23, 19, 47, tzinfo=UTC)
    state = ruleset.setup(GameSetup(seats=default_seats(ruleset.spec.players), seed=1, start=start,
                                    salt="ab" * 16)).state
    first = ruleset.next_deadline(state)
    assert first is not None and (first.at.second, first.at.microsecond) == (0, 0) and first.at > start
    at = start + timedelta(hours=1, seconds=13)
    for i in range(3):  # the GM ends each phase early, at a moment between two minutes
        state = ruleset.apply(state, GmIn(id=f"gm:{i}", at=at, command="advance", args={}, reason="测试")).state
        if state.phase.kind == "over":
            break
        due = ruleset.next_deadline(state)
        assert due is not None and (due.at.second, due.at.microsecond) == (0, 0), (state.phase.label, due)
        at = due.at - timedelta(seconds=17)
