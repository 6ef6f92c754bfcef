"""Issue 32 item 2: one player's flood of PMs delays nobody.  A burst of replies to one player
goes out as one PM that answers each of them (「收到你的N条短消息：…」), and a deadline's
posts go out before the PM receipts waiting in the write queue.  Swapping the replies for
the one PM is one transaction: a crash mid-burst neither loses nor doubles an answer."""

from __future__ import annotations

import re
import warnings
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from daemon_config import NAMES, START, HandClock, memory_config
from forgetful import ForgetfulForum
from tianshen.config import load_config
from tianshen.forum.memory import MemoryBoard, MemoryForum, StoredPm
from tianshen.service import crash
from tianshen.service.daemon import Daemon, burst_body
from tianshen.sim import DaemonPlayers

GM = "神的使者"


Clock = HandClock


class Killed(BaseException):
    """The process killed (SIGKILL): nothing after it runs, no `except Exception` catches it."""


class RecordingForum(MemoryForum):
    """The GM's adapter, noting the kind of each write in the order they are made."""

    writes: list[str] = []

    def send_pm(self, to: str, subject: str, body: str, key: str) -> None:
        self.writes.append("pm")
        super().send_pm(to, subject, body, key)

    def reply(self, thread_id: str, body: str, key: str) -> int:
        self.writes.append("post")
        return super().reply(thread_id, body, key)

    def create_thread(self, title: str, body: str, key: str) -> str:
        self.writes.append("post")
        return super().create_thread(title, body, key)


def _config(tmp_path: Path) -> Path:
    return memory_config(tmp_path, "fl", 60)


def _daemon(path: Path, board: MemoryBoard, clock: Clock, forum: type[MemoryForum] = MemoryForum) -> Daemon:
    return Daemon(load_config(path), forum=forum(board), clock=clock, players=DaemonPlayers())


def _replies(board: MemoryBoard, player: str) -> list[StoredPm]:
    return [m for m in board.inbox(player) if m.sender == GM and "回复" in m.subject]


def _flood(board: MemoryBoard, clock: Clock, player: str, n: int) -> None:
    """`n` PMs in 60 s: every fifth one a real action, the rest chatter."""
    for i in range(n):
        clock.at += timedelta(seconds=60 / n)
        board.pm(player, GM, "帮助" if i % 5 == 0 else f"在吗{i}")


def _answered(text: str) -> set[int]:
    """The PMs (by number) a burst reply answers."""
    numbers: set[int] = set()
    for ranges in re.findall(r"^第([0-9～、]+)条：", text, flags=re.M):
        for part in ranges.split("、"):
            low, _, high = part.partition("～")
            numbers.update(range(int(low), int(high or low) + 1))
    return numbers


def test_five_hundred_pms_in_a_minute_get_one_reply_that_answers_each(tmp_path: Path) -> None:
    clock = Clock(START)
    board = MemoryBoard(clock.now)
    daemon = _daemon(_config(tmp_path), board, clock)
    daemon.tick()  # the deal
    player = NAMES[0]
    clock.at = START + timedelta(hours=1)
    _flood(board, clock, player, 500)
    daemon.tick()
    driver = daemon.driver("fl")
    assert len([r for r in daemon.store.inbound(driver.game_id) if r.source == "pm"]) == 500  # each one read
    replies = _replies(board, player)
    assert len(replies) == 1
    text = "".join(part.text for part in replies)
    assert text.startswith("收到你的500条短消息：")
    assert _answered(text) == set(range(1, 501))  # each PM answered in substance
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from tianshen.web.app import WebSettings, create_app

    token = "t" * 16
    page = TestClient(create_app(daemon.store, WebSettings(token=token))).get(
        f"/game/{driver.game_id}/gm", headers={"Authorization": f"Bearer {token}"}).text
    # the GM page shows the replies folded into the one PM, not as waiting to be sent
    assert page.count("并入汇总回复") >= 500 and ">待发</span>" not in page


def test_a_deadlines_posts_go_out_before_the_receipts_waiting(tmp_path: Path) -> None:
    clock = Clock(START)
    board = MemoryBoard(clock.now)
    daemon = _daemon(_config(tmp_path), board, clock, RecordingForum)
    daemon.tick()
    driver = daemon.driver("fl")
    night_end = driver.ruleset.next_deadline(driver.state()).at
    clock.at = night_end - timedelta(minutes=5)
    for name in NAMES:  # two PMs each (not a burst): eight players' receipts queued
        board.pm(name, GM, "帮助")
        board.pm(name, GM, "在吗")
    writes = daemon.forum.writes = []  # type: ignore[attr-defined]
    clock.at = night_end + timedelta(seconds=1)
    daemon.tick()  # the PMs and the night's end in one tick
    assert driver.state().phase.kind == "day"
    assert writes.count("pm") == 16 and "post" in writes
    assert writes.index("pm") > max(i for i, k in enumerate(writes) if k == "post")


def test_the_role_pms_go_out_before_the_player_list(tmp_path: Path) -> None:
    """Only the replies wait: the window of night 1 opens with the player list, and the
    role PMs are on the board before it (a late player list gives night 1 its time back)."""
    clock = Clock(START)
    board = MemoryBoard(clock.now)
    daemon = _daemon(_config(tmp_path), board, clock, RecordingForum)
    writes = daemon.forum.writes = []  # type: ignore[attr-defined]
    daemon.tick()  # the deal
    assert writes == ["pm"] * len(NAMES) + ["post"]


@pytest.mark.parametrize("where", ["after-merge", "after-write"])
def test_a_crash_mid_burst_neither_loses_nor_doubles(tmp_path: Path, where: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    path = _config(tmp_path)
    clock = Clock(START)
    board = MemoryBoard(clock.now)
    daemon = _daemon(path, board, clock, ForgetfulForum)  # keys forgotten across a restart
    daemon.tick()
    player = NAMES[1]
    clock.at = START + timedelta(hours=1)
    _flood(board, clock, player, 40)
    if where == "after-merge":
        merge = daemon.store.merge_outbox

        def merge_then_die(*args, **kwargs):  # type: ignore[no-untyped-def]
            merge(*args, **kwargs)
            raise Killed

        monkeypatch.setattr(daemon.store, "merge_outbox", merge_then_die)
    else:
        def point(name: str) -> None:
            if name == "after-write":
                raise Killed

        monkeypatch.setattr(crash, "point", point)
    with pytest.raises(Killed):
        daemon.tick()
    monkeypatch.undo()
    daemon.store.close()

    clock.at += timedelta(minutes=1)
    again = _daemon(path, board, clock, ForgetfulForum)
    again.tick()
    again.tick()
    replies = _replies(board, player)
    assert len(replies) == 1 and replies[0].text.startswith("收到你的40条短消息：")
    assert _answered(replies[0].text) == set(range(1, 41))
    driver = again.driver("fl")
    assert not again.store.pending_outbox(driver.game_id)
    again.store.close()


def test_the_burst_reply_says_each_answer_once_with_its_numbers() -> None:
    head = "【甲局】这条短消息来自甲局（1号）。"
    bodies = [f"{head}\n\n已收到：杀 乙", f"{head}\n\n无法识别", f"{head}\n\n无法识别", f"{head}\n\n无法识别",
              f"{head}\n\n已收到：杀 乙"]
    assert burst_body(bodies) == (f"{head}\n\n收到你的5条短消息：\n\n第1、5条：已收到：杀 乙\n\n第2～4条：无法识别")


def test_the_fuzz_counts_a_burst_reply_as_the_answer_to_each_of_its_pms() -> None:
    from tianshen.forum.memory import StoredPm
    from tianshen.sim import fuzz

    t = datetime(2026, 1, 1, tzinfo=UTC)
    asked = [StoredPm(i, "甲", GM, t, "", "在吗") for i in (1, 2, 3, 5)]
    replies = [StoredPm(4, GM, "甲", t, "天神回复", "收到你的3条短消息：\n\n第1～3条：没有看懂")]
    assert [pm.id for pm in fuzz._unanswered(asked, replies)] == [5]


def test_the_queue_keeps_the_pms_in_the_order_they_were_made() -> None:
    """Each player's inbox reads the same however the rows fall between flushes: the PMs go
    in the order they were made; the posts go before the first reply."""
    from tianshen.service.sender import in_queue_order
    from tianshen.store import OutboxRecord

    def row(i: int, kind: str, subject: str = "") -> OutboxRecord:
        return OutboxRecord(id=i, game_id=1, seq=i, kind=kind, target="青竹", title=None, subject=subject, body="",
                            key=str(i), status="pending", forum_ref=None, created_at=START, sent_at=None)

    rows = [row(5, "pm", "同伴的行动"), row(2, "post"), row(1, "pm", "你的身份"), row(3, "pm", "天神回复"),
            row(4, "post")]
    assert [r.id for r in in_queue_order(rows)] == [1, 2, 4, 3, 5]


def _sum_answered(replies: list[StoredPm]) -> int:
    """How many PMs these replies answer: a burst reply its N, any other one."""
    total = 0
    for m in replies:
        head = re.search(r"收到你的(\d+)条短消息", m.text)
        total += int(head.group(1)) if head else 1
    return total


def test_a_flood_over_many_polls_gets_at_most_the_hours_replies_and_each_pm_answered(tmp_path: Path) -> None:
    """One PM a poll for three hours: at most `[run] replies_per_hour` replies in any hour
    (the rest wait, and the next free reply answers them all); every PM is stored and
    answered; a restart keeps the count; another player's replies are not held."""
    path = _config(tmp_path)
    path.write_text(path.read_text(encoding="utf-8").replace("[run]\n", "[run]\nreplies_per_hour = 5\n"),
                    encoding="utf-8")
    clock = Clock(START)
    board = MemoryBoard(clock.now)
    daemon = _daemon(path, board, clock)
    daemon.tick()  # the deal
    flooder, other = NAMES[0], NAMES[1]
    clock.at = START + timedelta(minutes=30)
    for minute in range(180):
        clock.at += timedelta(minutes=1)
        board.pm(flooder, GM, f"在吗{minute}")
        if minute % 60 == 30:
            board.pm(other, GM, "帮助")
        if minute == 90:  # a restart mid-flood: the hour's replies are still counted
            daemon.store.close()
            daemon = _daemon(path, board, clock)
        daemon.tick()
    for _ in range(70):  # the flood is over: what waits goes out within the hour
        clock.at += timedelta(minutes=1)
        daemon.tick()
    driver = daemon.driver("fl")
    stored = [r for r in daemon.store.inbound(driver.game_id) if r.source == "pm" and r.sender == flooder]
    assert len(stored) == 180  # nothing he sent went unstored
    replies = _replies(board, flooder)
    times = [m.sent_at for m in replies]
    worst = max(sum(1 for u in times if t <= u < t + timedelta(hours=1)) for t in times)
    assert worst <= 5, f"{worst} replies in one hour"
    assert len(replies) >= 15  # three hours of flood: the cap each hour, not one reply in all
    assert _sum_answered(replies) == 180  # each PM answered, in a reply of its own or a summary
    assert len(_replies(board, other)) == 3  # the other player's replies did not wait
    daemon.store.close()
