"""Issue 25 items 2–9 and 11–14 without a browser: the board's log, the Mafia Universe count,
the timeline, the finished record and its JSON, the rehearsal clock, the GM's words."""

from __future__ import annotations

import json
import re
import warnings
from datetime import UTC, datetime, timedelta

import pytest
from web_game import TOKEN, at_vote, play_until

from tianshen.core.model import PostIn
from tianshen.core.votes import count_rows
from tianshen.web import views
from tianshen.web.app import WebSettings, create_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

GM = {"Authorization": f"Bearer {TOKEN}"}
LINKS = WebSettings(token=TOKEN, post_url="https://b.example/p/{thread}/{post}", thread_url="https://b.example/t/{thread}")


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def post(running, author: str, text: str, post_id: str, minutes: int) -> None:
    running.driver.handle(PostIn(id=post_id, thread=f"vote:{running.state().phase.number}", author=author,
                                 at=running.clock.now() + timedelta(minutes=minutes), text=text))


@pytest.fixture(scope="module")
def over(tmp_path_factory: pytest.TempPathFactory):
    db = tmp_path_factory.mktemp("over") / "g.db"
    return play_until(f"sqlite:///{db}", "classic_8", 3, lambda s: s.phase.kind == "over", max_steps=80)


def test_the_log_is_every_sent_post_in_order_with_links(tmp_path) -> None:
    """Item 6: the board's own record, in order; each entry links to its post or thread."""
    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "classic_10", 7, at_vote(2))
    gid = running.driver.game_id
    html = TestClient(create_app(running.store, LINKS)).get(f"/game/{gid}").text
    sent = [o for o in running.store.outbox(gid) if o.kind == "post" and o.status == "sent"]
    log = re.search(r'<section class="card" id="log">.*?</section>', html, re.S).group(0)
    assert log.count('<li class="board-post">') == len(sent) > 4
    assert log.count('href="https://b.example/') == len(sent)
    first = text_of(sent[0].title or sent[0].body)[:10]
    assert first.strip()[:6] in text_of(log)
    assert "天亮" in text_of(log) or "第2天" in text_of(log)


def test_the_count_orders_by_votes_then_the_time_reached(tmp_path) -> None:
    """Items 5, 7: Y reaches 2 votes before X does, so Y comes first; every post is marked;
    a second vote is refused, a chat post is no vote, the silent are 未投票."""
    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "classic_8", 3, at_vote(1))
    a = [p.name for p in running.state().alive()]
    x, y = a[0], a[1]
    post(running, a[2], f"投票 {x}", "101", 1)
    post(running, a[3], f"投票 {y}", "102", 2)
    post(running, a[4], f"投票 {y}", "103", 3)
    post(running, a[5], f"投票 {x}", "104", 4)
    post(running, a[5], f"投票 {y}", "105", 5)
    post(running, a[6], "大家好，我再想想", "106", 6)
    days = views.vote_counts(running.driver.ruleset, running.store.events(running.driver.game_id),
                             views.PostLinks((None, None), {}))
    day = days[1]
    assert [(r.target, r.votes) for r in day.rows][:2] == [(y, 2), (x, 2)]
    marks = {p.forum_id: p.mark for p in day.posts}
    assert marks["101"] == "counted" and marks["105"] == "refused"
    assert marks["106"] == "refused"  # 002: the rules refuse (and PM) a post in the vote thread that is no vote
    assert [h.line for h in day.history][-1].startswith(f"{y} 2，{x} 2")
    assert set(day.not_voting) == {n for n in a if n not in (a[2], a[3], a[4], a[5])}
    html = TestClient(create_app(running.store, LINKS)).get(f"/game/{running.driver.game_id}").text
    assert html.index(f'data-target="{y}"') < html.index(f'data-target="{x}"')
    assert "未投票 (" in html and "不计入" in html


def test_a_change_is_struck_through_and_a_late_post_marked(tmp_path) -> None:
    """Item 7 in butterfly_elder (changes allowed, 四): the old vote struck, linked to its post."""
    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "butterfly_elder", 3, lambda s: s.phase.kind == "day")
    a = [p.name for p in running.state().alive()]
    post(running, a[0], f"投票 {a[1]}", "201", 1)
    post(running, a[0], f"投票 {a[2]}", "202", 2)
    post(running, a[4], "弃权", "204", 3)
    html = TestClient(create_app(running.store, LINKS)).get(f"/game/{running.driver.game_id}").text
    thread = running.store.thread_id(running.driver.game_id, "vote:1")
    assert f'<s><a href="https://b.example/p/{thread}/201" rel="noopener">{a[0]}</a></s>' in html
    assert "改票" in html and "第1轮投票帖" in html
    marks = {p.forum_id: (p.mark, p.note) for p in views.vote_counts(
        running.driver.ruleset, running.store.events(running.driver.game_id), views.PostLinks((None, None), {}))[1].posts}
    assert marks["204"] == ("counted", "弃权")
    assert f"弃权 (1)：{a[4]}" in html and a[4] not in re.search(r'<p class="not-voting">.*?</p>', html).group(0)
    due = running.driver.ruleset.next_deadline(running.state())
    while running.state().phase.kind == "day":
        due = running.driver.ruleset.next_deadline(running.state())
        running.clock.set(due.at)
        running.driver.advance(due.at)
    running.driver.handle(PostIn(id="203", thread="vote:1", author=a[3], at=due.at + timedelta(minutes=1),
                                 text=f"投票 {a[1]}"))
    day = views.vote_counts(running.driver.ruleset, running.store.events(running.driver.game_id),
                            views.PostLinks((None, None), {}))[1]
    assert day.closed and {p.forum_id: p.mark for p in day.posts}["203"] == "late"


def test_butterfly_shows_rounds_and_the_announced_role(tmp_path) -> None:
    """Item 4: 第1轮, and a dead independent by the role the board announced (五)."""
    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "butterfly_elder", 3, lambda s: s.phase.kind == "day")
    state = running.state().copy()
    ruleset = running.driver.ruleset
    fly = next(p for p in state.players if p.role == "butterfly")
    fly.alive, fly.died_in = False, "night 1"
    shown = next(p for p in views.public_players(ruleset, state) if p.name == fly.name)
    assert shown.identity == "花蝴蝶" and shown.died_in == "第1轮 · 权力"
    assert views.phase_name(state.phase, "butterfly_elder") == "第1轮 · 投票"


def test_the_timeline_shows_each_phase_as_it_ended(tmp_path) -> None:
    """Item 9: /game/N/day/1 is the state after day 1's count: night 2's deaths not yet."""
    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "classic_10", 7, at_vote(2))
    gid = running.driver.game_id
    c = TestClient(create_app(running.store, LINKS))
    now = c.get(f"/game/{gid}").text
    for path in ("night/1", "day/1", "night/2"):
        assert f'href="/game/{gid}/{path}"' in now
    day1 = c.get(f"/game/{gid}/day/1")
    assert day1.status_code == 200 and "第1天结束时" in day1.text
    state = running.state()
    dead_by_day1 = [p for p in state.players if not p.alive and p.died_in in ("night 1", "day 1")]
    assert text_of(day1.text).count("出局") - text_of(day1.text).count("本日出局") >= len(dead_by_day1)
    later = [p for p in state.players if not p.alive and p.died_in == "night 2"]
    assert later, "the test needs a death after day 1"
    for p in later:
        row = re.search(rf'<li class="(alive|dead)" data-player="{p.name}">', day1.text)
        assert row and row.group(1) == "alive", f"{p.name} shows dead at the end of day 1"
    assert c.get(f"/game/{gid}/day/2").status_code == 404  # not over yet
    assert c.get(f"/game/{gid}/gm/1").status_code == 404


def test_the_finished_game_shows_the_whole_record(over) -> None:
    """Item 8: every role, the seed and salt with the commitment the player list posted, the
    JSON download; the page stops polling."""
    gid = over.driver.game_id
    c = TestClient(create_app(over.store, LINKS))
    html = c.get(f"/game/{gid}").text
    state = over.state()
    record = re.search(r'<section class="card" id="record">.*?</section>', html, re.S).group(0)
    for p in state.players:
        assert over.driver.ruleset.spec.role_name(p.role) in record
    assert f'data-seed="{state.seed}"' in record and f'data-salt="{state.salt}"' in record
    from tianshen.core.rng import seed_digest

    assert f'data-commitment="{seed_digest(state.seed, state.salt)}"' in record
    assert 'data-src=' not in html  # no polling
    data = json.loads(c.get(f"/game/{gid}/record.json").text)
    assert data["record"]["seed"] == str(state.seed)
    assert len(data["record"]["roles"]) == len(state.players) and data["announcements"]


def test_nothing_hidden_before_the_end_in_the_json_and_the_timeline(tmp_path) -> None:
    """The leak scan on the new pages: no living player's role, no forum account, no PM, no
    seed before the end."""
    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "classic_10", 7, at_vote(2))
    gid = running.driver.game_id
    c = TestClient(create_app(running.store, LINKS))
    state = running.state()
    ruleset = running.driver.ruleset
    revealed = {ruleset.public_identity(state, p) for p in state.players if not p.alive}
    hidden = {ruleset.spec.role_name(p.role) for p in state.alive()} - revealed
    pages = {"json": c.get(f"/game/{gid}/record.json").text}
    for path in ("night/1", "day/1", "night/2"):
        pages[path] = c.get(f"/game/{gid}/{path}").text
    for name, body in pages.items():
        data = body if name == "json" else re.sub(r'<li class="board-post">.*?</li>', "", body, flags=re.S)
        if name == "json":
            parsed = json.loads(body)
            assert "record" not in parsed
            parsed.pop("announcements")  # 神的使者's own posts may name any role in the rules
            data = json.dumps(parsed, ensure_ascii=False)
        for role in hidden:
            assert role not in data, (name, role)
        for p in state.players:
            assert p.forum_name not in body, (name, p.forum_name)
        for pm in running.store.outbox(gid):
            if pm.kind == "pm":
                assert pm.body.strip() not in body
        assert str(state.salt) not in body and "随机种子 <code>" not in body


def test_the_rehearsal_clock_drives_the_countdown(tmp_path) -> None:
    """Item 3: the page tells the game's time from the daemon's mark and says a rehearsal
    clock runs; without one, the real time."""
    from tianshen.service.daemon import GameClock, clock_mark

    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "classic_8", 3, at_vote(1))
    gid = running.driver.game_id
    running.store.set_board(gid, "memory:test")
    board = running.store.board_game("memory:test")
    clock = GameClock(running.clock.now(), 60.0)
    running.store.set_mark(board, "game_clock", clock_mark(clock))
    html = TestClient(create_app(running.store, LINKS)).get(f"/game/{gid}").text
    assert "排练时钟" in html and 'data-scale="60.0"' in html
    at = re.search(r'id="game-clock" hidden data-game-now="([^"]+)"', html).group(1)
    assert abs(datetime.fromisoformat(at) - running.clock.now()) < timedelta(minutes=10)
    now = views.game_now("", datetime(2026, 1, 1, tzinfo=UTC))
    assert now.at == datetime(2026, 1, 1, tzinfo=UTC) and not now.rehearsal
    assert not views.game_now("{broken", datetime(2026, 1, 1, tzinfo=UTC)).rehearsal


def test_the_gm_page_speaks_chinese_and_gives_commands(tmp_path) -> None:
    """Items 11, 13: no raw Python values, Chinese notes and deadline kinds, an admin line per
    player and for the phase."""
    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "classic_10", 7, at_vote(2))
    html = TestClient(create_app(running.store, LINKS)).get(f"/game/{running.driver.game_id}/gm", headers=GM).text
    roles = text_of(re.search(r'<section class="card" id="roles">.*?</section>', html, re.S).group(0))
    for raw in ("None", "True", "False", "=", "can_vote", "bind_streak", "target:"):
        assert raw not in roles, raw
    body = text_of(html)
    assert "vote_end" not in body and "下一个截止：投票截止" in body
    name = running.driver.name
    assert f"tianshen admin extend --game {name} --hours 24" in body
    alive = running.state().alive()[0]
    assert f"tianshen admin void-vote {alive.name} --game {name}" in body
    assert f"tianshen admin substitute --players {alive.seat} --game {name}" in body


def test_gm_notes_in_words() -> None:
    notes = views.gm_notes({"alive": True, "role": "x", "can_vote": False, "bind_streak": {"target": None, "n": 0},
                            "hp": 7, "muted": True, "needle_marks": ["第1轮"]})
    assert notes == {"可投票": "否", "剩余血量": "7", "被禁言": "是", "针孔": "第1轮"}
    assert views.gm_notes({"bind_streak": {"target": "石榴", "nights": 1}}) == {"束魂连续": "对象：石榴，连续夜数：1"}
    assert views.words(views.CAUSE_WORDS, "killed") == "被杀" and views.words(views.CAUSE_WORDS, "zzz") == "其他"


def test_the_daemons_clock_mark_gives_the_game_time() -> None:
    """Item 3: what the daemon writes (a GameClock at 60×) read back ten real seconds later is
    ten game minutes on; a forum's clock writes nothing."""
    from tianshen.service.daemon import ForumClock, GameClock, clock_mark

    start = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)
    clock = GameClock(start, 60.0, real_now=lambda: 1_000_000.0)
    real = datetime.fromtimestamp(1_000_010.0, UTC)
    now = views.game_now(clock_mark(clock), real)
    assert now.rehearsal and now.scale == 60.0 and now.at == start + timedelta(minutes=10)
    forum_clock = ForumClock.__new__(ForumClock)
    assert clock_mark(forum_clock) == ""


def test_the_pages_are_computed_once_per_new_event(tmp_path) -> None:
    """A poll without a new event replays nothing again; a new vote is on the next poll."""
    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "classic_8", 3, at_vote(1))
    c = TestClient(create_app(running.store, LINKS))
    gid = running.driver.game_id
    first = c.get(f"/game/{gid}/fragment").text
    assert c.get(f"/game/{gid}/fragment").text == first
    a = running.state().alive()
    post(running, a[0].name, f"投票 {a[1].name}", "301", 1)
    assert f'data-target="{a[1].name}"' in c.get(f"/game/{gid}/fragment").text


def test_a_vote_input_carries_its_void_vote_line(tmp_path) -> None:
    """Item 13: beside a vote post among the GM's inputs, the line that voids it."""
    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "classic_8", 3, at_vote(1))
    a = running.state().alive()
    post(running, a[0].name, f"投票 {a[1].name}", "401", 1)
    html = TestClient(create_app(running.store, LINKS)).get(f"/game/{running.driver.game_id}/gm", headers=GM).text
    inputs = re.search(r'<section class="card" id="inputs">.*?</section>', html, re.S).group(0)
    assert f"tianshen admin void-vote {a[0].name} --game {running.driver.name}" in text_of(inputs)


def test_a_vote_written_after_the_close_is_late(tmp_path) -> None:
    """Item 7: a post written after the vote's end but read before the count (a lagging
    board) is marked 迟到, not refused."""
    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "classic_8", 3, at_vote(1))
    a = running.state().alive()
    due = views.public_deadline(running.driver.ruleset, running.state())
    running.driver.handle(PostIn(id="501", thread="vote:1", author=a[0].name, at=due.at + timedelta(minutes=1),
                                 text=f"投票 {a[1].name}"))
    day = views.vote_counts(running.driver.ruleset, running.store.events(running.driver.game_id),
                            views.PostLinks((None, None), {}))[1]
    assert {p.forum_id: p.mark for p in day.posts}["501"] == "late"
    assert not day.rows


def test_every_count_uses_one_order() -> None:
    """Item 5: the rows of hex_survival and butterfly_elder (core.votes.count_rows, which their
    vote_count uses): votes, then who reached them first (not the seat); voters in vote order."""
    cast_at = {"甲": "2026-01-01T10:00:00+00:00", "乙": "2026-01-01T10:05:00+00:00",
               "丙": "2026-01-01T10:01:00+00:00", "丁": "2026-01-01T10:02:00+00:00", "戊": "2026-01-01T09:00:00+00:00"}
    rows = count_rows({"A": 2, "B": 2, "C": 1}, {"A": ["乙", "甲"], "B": ["丁", "丙"], "C": ["戊"]}, cast_at)
    assert [r[0] for r in rows] == ["B", "A", "C"]
    assert rows[0] == ("B", 2, "丙、丁")


def test_the_gm_page_names_threads_in_words(tmp_path) -> None:
    """Item 11: the outbox, the inputs and the preview say 主帖 / 第1天投票帖, not main / vote:1."""
    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", "classic_8", 3, at_vote(1))
    a = running.state().alive()
    post(running, a[0].name, f"投票 {a[1].name}", "601", 1)
    html = TestClient(create_app(running.store, LINKS)).get(f"/game/{running.driver.game_id}/gm", headers=GM).text
    body = text_of(html)
    assert "帖子 · 主帖" in body and "帖子 · 第1天投票帖" in body
    assert "vote:1" not in body and " main" not in body and "vote_open" not in body
    assert "截止 " in body and "开投票帖" in body  # the deadline that opened the thread, in words


@pytest.mark.parametrize("variant", ["classic_13", "game_ten", "n_lives", "butterfly_elder", "hex_survival_12"])
def test_every_familys_gm_cards_are_in_words(tmp_path, variant: str) -> None:
    """Item 11 on each family at day 2: no id (killer, solo, implicated…) on the GM's cards,
    and nothing we have no word for (其他)."""
    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", variant, 3,
                         lambda s: s.phase.kind == "day" and s.phase.number == 2, max_steps=200)
    html = TestClient(create_app(running.store, LINKS)).get(f"/game/{running.driver.game_id}/gm", headers=GM).text
    roles = re.search(r'<section class="card" id="roles">.*?</section>', html, re.S).group(0)
    shown = text_of(re.sub(r"<code>.*?</code>", "", roles, flags=re.S))
    assert not re.findall(r"[A-Za-z_]{3,}", shown), shown
    assert "其他" not in shown


def test_a_rehearsing_daemon_tells_the_page_its_clock(tmp_path) -> None:
    """Item 3 end to end: `tianshen run` on the memory board at time_scale 720 writes its clock;
    the public page of its game says a rehearsal clock runs, and tells the game's time."""
    from tianshen.config import load_config
    from tianshen.service.daemon import Daemon
    from tianshen.sim import DaemonPlayers
    from tianshen.store import Store

    db = f"sqlite:///{tmp_path / 'd.db'}"
    path = tmp_path / "c.toml"
    path.write_text(f'[database]\nurl = "{db}"\n[forum]\nkind = "memory"\n[run]\nsimulate = true\ntime_scale = 720\n'
                    '[game]\nname = "rehearsed"\nruleset = "classic_8"\nseed = 5\nstart = 2026-01-01T20:00:00Z\n',
                    encoding="utf-8")
    daemon = Daemon(load_config(path), players=DaemonPlayers())
    daemon.store.close()
    store = Store(db)
    gid = store.game_id("rehearsed")
    html = TestClient(create_app(store, LINKS)).get(f"/game/{gid}").text
    assert "排练时钟：游戏时间以 720 倍速运行" in html
    at = datetime.fromisoformat(re.search(r'id="game-clock" hidden data-game-now="([^"]+)"', html).group(1))
    assert abs(at - datetime(2026, 1, 1, 20, 0, tzinfo=UTC)) < timedelta(hours=2)  # game time, not today's
